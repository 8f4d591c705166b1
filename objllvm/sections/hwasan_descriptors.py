"""``hwasan_globals``: HWASan's global descriptors (``-fsanitize=hwaddress``), one per instrumented global.

A descriptor is 8 bytes: an i32 offset from the descriptor to the global (a PC-relative relocation in an
object), then a u32 whose low 24 bits are the global's size and whose top byte is its tag.  The tag is also the
top byte of the global's (tagged) symbol value.  The ``.note.hwasan.globals`` note (codec ``hwasan-globals``)
says where the descriptors of a linked file start and end.
"""
from __future__ import annotations

from .._model import dataclass, field
from ..binary import Reader, pack_uint
from ..errors import DecodeError
from .registry import Codec, Table, register


@dataclass
class HwasanDescriptor:
    offset_field: int                # the stored i32
    size: int                        # low 24 bits
    tag: int                         # top 8 bits
    global_name: str | None = None
    address: int | None = None       # linked file: the global's (untagged) address


@dataclass
class HwasanDescriptors:
    descriptors: list = field(default_factory=list)


@register
class HwasanDescriptorsCodec(Codec):
    kind = "hwasan-global-descriptors"
    description = "HWASan global descriptors: each instrumented global's place, size and tag"
    names = ("hwasan_globals",)

    def decode(self, data, ctx):
        r = Reader(data, ctx.endian)
        out = HwasanDescriptors()
        relocs = {x.offset: x for x in ctx.relocations or ()}
        sec = ctx.section
        mask = (1 << 56) - 1
        by_place = None
        while not r.at_end():
            p = r.pos
            k = len(out.descriptors)
            try:
                off = r.i32(f"descriptor {k}: offset to the global")
                word = r.u32(f"descriptor {k}: size and tag")
            except DecodeError as exc:
                exc.message += " (descriptors are 8 bytes)"
                exc.partial = out
                raise
            d = HwasanDescriptor(off, word & 0xFFFFFF, word >> 24)
            if by_place is None:
                by_place = {}
                for s in ctx.symbols:
                    if s.type == 1 and s.name:                    # STT_OBJECT, by (section, untagged value)
                        by_place.setdefault((s.shndx, s.value & mask), s.name)
                        by_place.setdefault((None, s.value & mask), s.name)
            rel = relocs.get(p) if ctx.is_relocatable else None
            if rel is not None and rel.symbol is not None:
                sym = rel.symbol
                addend = rel.addend if rel.addend is not None else off
                if sym.is_section:
                    d.global_name = by_place.get((sym.shndx, addend))
                else:
                    d.global_name = sym.name
            elif not ctx.is_relocatable and sec is not None:
                d.address = (sec.addr + p + off) & ((1 << (8 * ctx.addr_size)) - 1)
                d.global_name = by_place.get((None, d.address))
            out.descriptors.append(d)
        return out

    def encode(self, model, ctx):
        e = ctx.endian
        return b"".join(pack_uint(d.offset_field & 0xFFFFFFFF, 4, e) + pack_uint((d.tag << 24) | d.size, 4, e)
                        for d in model.descriptors)

    def to_dict(self, model):
        return {"descriptors": [{"global": d.global_name, "size": d.size, "tag": d.tag, "offset": d.offset_field,
                                 "address": d.address} for d in model.descriptors]}

    def from_dict(self, d, ctx):
        out = HwasanDescriptors()
        for x in d["descriptors"]:
            size, tag = int(x["size"]), int(x["tag"])
            if not (0 <= size < 1 << 24 and 0 <= tag < 256):
                raise DecodeError("hwasan-global-descriptors: size must fit in 24 bits and tag in 8")
            out.descriptors.append(HwasanDescriptor(int(x.get("offset", 0)), size, tag, x.get("global"),
                                                    x.get("address")))
        return out

    def tables(self, model, options):
        return [Table(["global", "size", "tag"],
                      [[d.global_name or (f"{d.address:#x}" if d.address is not None else "?"), d.size,
                        f"{d.tag:#04x}"] for d in model.descriptors])]
