"""Offloading entries (``llvm_offload_entries``): the globals and kernels an offloading runtime registers.

LLVM <= 19 wrote ``omp_offloading_entries`` (``cuda_``/``hip_offloading_entries``) with the older 32-byte
``__tgt_offload_entry`` (address, name, size, i32 flags, i32 data); both layouts are read.

Layout of one entry (Frontend/Offloading/Utility.h, ``EntryTy``, version 1; 56 bytes on 64-bit targets, 48
on 32-bit): u64 reserved (0), u16 version, u16 kind (1 OpenMP, 2 CUDA, 4 HIP, 8 SYCL), u32 flags, the
global's address, a pointer to its name (a string in ``.llvm.rodata.offloading``), u64 size, u64 data, an
auxiliary pointer.  Pointers are relocations in an object; the name is read from the section they point into.
"""
from __future__ import annotations

import struct

from .._model import dataclass, field
from ..binary import pack_uint
from ..errors import DecodeError
from .registry import Codec, Table, register
from .support.addresses import Address, Resolver
from .support.strings import SectionStrings

KINDS = {0: "none", 1: "openmp", 2: "cuda", 4: "hip", 8: "sycl"}
# (field, offset, size) for 64-bit and 32-bit pointers
_LAYOUT = {8: (("reserved", 0, 8), ("version", 8, 2), ("kind", 10, 2), ("flags", 12, 4), ("address", 16, 8),
               ("name", 24, 8), ("size", 32, 8), ("data", 40, 8), ("aux", 48, 8)),
           4: (("reserved", 0, 8), ("version", 8, 2), ("kind", 10, 2), ("flags", 12, 4), ("address", 16, 4),
               ("name", 20, 4), ("size", 24, 8), ("data", 32, 8), ("aux", 40, 4), ("pad", 44, 4))}
_SIZE = {8: 56, 4: 48}
# LLVM <= 19 (``omp_offloading_entries``, ``cuda_offloading_entries``, ``hip_offloading_entries``):
# ``__tgt_offload_entry {void *addr; char *name; size_t size; int32_t flags; int32_t data;}``
_LEGACY = {8: (("address", 0, 8), ("name", 8, 8), ("size", 16, 8), ("flags", 24, 4), ("data", 28, 4)),
           4: (("address", 0, 4), ("name", 4, 4), ("size", 8, 4), ("flags", 12, 4), ("data", 16, 4))}
_LEGACY_SIZE = {8: 32, 4: 20}
_LEGACY_KINDS = {"omp": 1, "cuda": 2, "hip": 4}
_LEGACY_NAMES = ("omp_offloading_entries", "cuda_offloading_entries", "hip_offloading_entries")
_POINTERS = ("address", "name", "aux")


@dataclass
class OffloadEntry:
    reserved: int
    version: int
    kind: int
    flags: int
    address: Address
    name_pointer: Address
    size: int
    data: int
    aux: Address
    name: str | None = None          # the string the name pointer points to
    pad: int = 0

    @property
    def kind_name(self) -> str:
        return KINDS.get(self.kind, f"kind-{self.kind:#x}")


@dataclass
class OffloadEntries:
    word_size: int
    entries: list = field(default_factory=list)
    layout: str = "v1"               # 'v1' (LLVM 20+, 56/48 bytes) or 'legacy' (LLVM <= 19, 32/20 bytes)




@register
class OffloadEntriesCodec(Codec):
    kind = "offload-entries"
    description = "offloading entries (OpenMP/CUDA/HIP/SYCL globals and kernels to register), with their names"
    names = ("llvm_offload_entries", "__LLVM,offload_entries") + _LEGACY_NAMES
    name_hints = ("offload",)
    formats = ("elf", "coff", "macho")

    def matches_name(self, section, obj, options=None):
        return obj.format in self.formats and (section.name in self.names
                                               or section.name.startswith("llvm_offload_entries$"))

    def decode(self, data, ctx):
        w = ctx.addr_size
        if w not in _LAYOUT:
            raise DecodeError(f"unsupported address size {w}", offset=0)
        sname_ = ctx.section.name if ctx.section is not None else ""
        base_name = sname_.partition(",")[2] if "," in sname_ else sname_
        legacy = base_name in _LEGACY_NAMES
        layout = (_LEGACY if legacy else _LAYOUT)[w]
        size = (_LEGACY_SIZE if legacy else _SIZE)[w]
        e = ctx.endian
        res = Resolver(ctx)
        strings = SectionStrings(ctx.obj)
        out = OffloadEntries(w, layout="legacy" if legacy else "v1")
        legacy_kind = _LEGACY_KINDS.get(base_name.partition("_")[0], 0) if legacy else 0
        n = len(data) // size
        fmt = {1: "B", 2: "H", 4: "I", 8: "Q"}
        for i in range(n):
            base = i * size
            vals = {}
            for name, off, sz in layout:
                vals[name] = struct.unpack_from(e + fmt[sz], data, base + off)[0]
            if legacy:
                vals.update(reserved=0, version=0, kind=legacy_kind, aux=0)
            # any pointer of an entry may be null (an aux pointer, a global without an address): no relocation
            # there keeps the stored value
            ptr = {k: res.at(base + off, vals[k], required=False) for k, off, _ in layout if k in _POINTERS}
            if legacy:
                ptr["aux"] = Address(0)
            np = ptr["name"]
            if ctx.is_relocatable:
                r = res.reloc_at(base + dict((k, o) for k, o, _ in layout)["name"])
                sname = None
                if r is not None and r.symbol is not None:
                    addend = r.addend if r.addend is not None else vals["name"]
                    at = addend if r.symbol.is_section else r.symbol.value + addend
                    sname = strings.at(r.symbol.shndx, at)
            else:
                sname = strings.at_address(vals["name"]) if vals["name"] else None
            if vals["reserved"] != 0:
                raise DecodeError(f"entry {i}: reserved word is {vals['reserved']:#x}, expected 0 (an older entry "
                                  f"layout?)", offset=base, partial=out)
            out.entries.append(OffloadEntry(vals["reserved"], vals["version"], vals["kind"], vals["flags"],
                                            ptr["address"], np, vals["size"], vals["data"], ptr["aux"], sname,
                                            vals.get("pad", 0)))
        if n * size != len(data):
            raise DecodeError(f"{len(data) - n * size} bytes after the last whole entry ({size} bytes each)",
                              offset=n * size, partial=out)
        return out

    def encode(self, model, ctx):
        w, e = model.word_size, ctx.endian
        parts = []
        for x in model.entries:
            vals = {"reserved": x.reserved, "version": x.version, "kind": x.kind, "flags": x.flags,
                    "address": x.address.value, "name": x.name_pointer.value, "size": x.size, "data": x.data,
                    "aux": x.aux.value, "pad": x.pad}
            parts += [pack_uint(vals[k] & ((1 << (8 * sz)) - 1), sz, e)
                      for k, _, sz in (_LEGACY if model.layout == "legacy" else _LAYOUT)[w]]
        return b"".join(parts)

    def to_dict(self, model):
        return {"word_size": model.word_size, "layout": model.layout,
                "entries": [{"version": x.version, "kind": x.kind_name, "kind_value": x.kind, "flags": x.flags,
                             "address": x.address.to_dict(), "name": x.name, "name_pointer": x.name_pointer.to_dict(),
                             "size": x.size, "data": x.data, "aux": x.aux.to_dict(), "reserved": x.reserved,
                             "pad": x.pad} for x in model.entries]}

    def from_dict(self, d, ctx):
        out = OffloadEntries(int(d.get("word_size", ctx.addr_size)), layout=d.get("layout", "v1"))
        for x in d["entries"]:
            out.entries.append(OffloadEntry(int(x.get("reserved", 0)), int(x.get("version", 1)), int(x["kind_value"]),
                                            int(x.get("flags", 0)), Address.from_dict(x["address"]),
                                            Address.from_dict(x["name_pointer"]), int(x.get("size", 0)),
                                            int(x.get("data", 0)), Address.from_dict(x["aux"]), x.get("name"),
                                            int(x.get("pad", 0))))
        return out

    def tables(self, model, options):
        return [Table(["name", "kind", "version", "flags", "address", "size", "data"],
                      [[x.name if x.name is not None else x.name_pointer.text(), x.kind_name, x.version,
                        f"{x.flags:#x}", x.address.text(), x.size, x.data] for x in model.entries])]

