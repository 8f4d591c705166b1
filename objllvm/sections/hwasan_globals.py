"""``.note.hwasan.globals``: the HWASan globals note (owner ``LLVM``, type NT_LLVM_HWASAN_GLOBALS = 3).

An ELF note whose descriptor is two i32 offsets from the note's start: the beginning and the end of the
``hwasan_globals`` descriptors (``__start_hwasan_globals`` / ``__stop_hwasan_globals``; PC-relative
relocations in an object).  Other notes in the section are kept as they are.
"""
from __future__ import annotations

import struct

from .._model import dataclass, field
from ..binary import Reader, pack_uint
from ..errors import DecodeError
from .registry import Codec, Table, register

NT_LLVM_HWASAN_GLOBALS = 3


@dataclass
class HwasanNote:
    name: bytes                     # owner, as stored (with its NUL and padding)
    type: int
    desc: bytes                     # descriptor, as stored (with padding)
    namesz: int
    descsz: int
    begin: int | None = None        # i32 offsets from the note's start (NT_LLVM_HWASAN_GLOBALS)
    end: int | None = None
    begin_symbol: str | None = None
    end_symbol: str | None = None
    offset: int = 0

    @property
    def owner(self) -> str:
        return self.name[:self.namesz].rstrip(b"\0").decode("utf-8", "surrogateescape")


@dataclass
class HwasanGlobalsNotes:
    notes: list = field(default_factory=list)


def _align4(n: int) -> int:
    return (n + 3) & ~3


@register
class HwasanGlobalsCodec(Codec):
    kind = "hwasan-globals"
    description = "HWASan globals note (NT_LLVM_HWASAN_GLOBALS): where the global descriptors start and end"
    names = (".note.hwasan.globals",)

    def decode(self, data, ctx):
        r = Reader(data, ctx.endian)
        out = HwasanGlobalsNotes()
        relocs = {x.offset: x for x in ctx.relocations or ()}
        sec = ctx.section
        while not r.at_end():
            start = r.pos
            try:
                namesz, descsz, ntype = r.u32("note name size"), r.u32("note descriptor size"), r.u32("note type")
                name = r.bytes(_align4(namesz), f"note name ({namesz} bytes, padded to 4)")
                desc = r.bytes(_align4(descsz), f"note descriptor ({descsz} bytes, padded to 4)")
            except DecodeError as exc:
                exc.partial = out
                raise
            n = HwasanNote(name, ntype, desc, namesz, descsz, offset=start)
            if n.owner == "LLVM" and ntype == NT_LLVM_HWASAN_GLOBALS:
                if descsz < 8:
                    raise DecodeError(f"NT_LLVM_HWASAN_GLOBALS descriptor is {descsz} bytes, expected 8",
                                      offset=start + 4, partial=out)
                dpos = start + 12 + _align4(namesz)
                n.begin, n.end = struct.unpack_from(ctx.endian + "ii", desc, 0)
                for attr, off in (("begin", dpos), ("end", dpos + 4)):
                    rel = relocs.get(off)
                    if rel is not None and rel.symbol is not None:
                        setattr(n, attr + "_symbol", rel.symbol.name)
                        if rel.addend is not None:   # PREL32 with addend = field offset: S - note start
                            setattr(n, attr, rel.addend - (off - start))
                    elif not ctx.is_relocatable and sec is not None:
                        setattr(n, attr + "_symbol", f"{(sec.addr + start + getattr(n, attr)) & 0xFFFFFFFFFFFFFFFF:#x}")
            out.notes.append(n)
        return out

    def encode(self, model, ctx):
        e = ctx.endian
        return b"".join(pack_uint(n.namesz, 4, e) + pack_uint(n.descsz, 4, e) + pack_uint(n.type, 4, e) + n.name
                        + n.desc for n in model.notes)

    def to_dict(self, model):
        return {"notes": [{"owner": n.owner, "type": n.type, "namesz": n.namesz, "descsz": n.descsz,
                           "name": n.name.hex(), "desc": n.desc.hex(), "begin": n.begin, "end": n.end,
                           "begin_symbol": n.begin_symbol, "end_symbol": n.end_symbol} for n in model.notes]}

    def from_dict(self, d, ctx):
        out = HwasanGlobalsNotes()
        for n in d["notes"]:
            name, desc = bytes.fromhex(n["name"]), bytes.fromhex(n["desc"])
            if len(name) != _align4(int(n["namesz"])) or len(desc) != _align4(int(n["descsz"])):
                raise DecodeError("hwasan-globals: name/desc lengths do not match namesz/descsz padded to 4")
            out.notes.append(HwasanNote(name, int(n["type"]), desc, int(n["namesz"]), int(n["descsz"])))
        return out

    def tables(self, model, options):
        rows = []
        for n in model.notes:
            if n.begin is not None:
                what = f"globals from {n.begin_symbol or n.begin} to {n.end_symbol or n.end}"
            else:
                what = n.desc[:n.descsz].hex()
            rows.append([n.owner, n.type, what])
        return [Table(["owner", "type", "descriptor"], rows)]
