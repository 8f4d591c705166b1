"""``.debug_llvm_dyndbg`` (``SHT_LLVM_DYNDBG_ELF``, LLVM main: PRs #208803, #214188; clang
``-fdynamic-debugging``, PR #216307): LLVM's dynamic debugging embeds an unoptimized copy of a translation
unit's functions, a whole ELF relocatable object (the "inner" object), in the optimized ("outer") object; a link
with lld embeds the inner link's output the same way.

The section is the inner ELF file, nothing else.  It is recognised by its name (the section type's number is
not taken as evidence here: no LLVM with it is installed), read by objllvm's own ELF container, and shown as
what it is: file type, machine, its sections and the functions it defines.  A section that is not an ELF
file is an error at its first byte.  Encoding gives back the image, byte for byte.
"""
from __future__ import annotations

from .._model import dataclass, field
from ..errors import DecodeError, ObjllvmError, UsageError
from .registry import Codec, Table, register

SECTION_NAME = ".debug_llvm_dyndbg"


@dataclass
class InnerSection:
    index: int
    name: str
    type_name: str
    size: int


@dataclass
class DynDbgImage:
    image: bytes
    format_name: str = ""
    file_type: str = ""
    machine: str = ""
    sections: list = field(default_factory=list)      # InnerSection
    functions: list = field(default_factory=list)     # (name, section index, value, size) of defined functions


def decode_image(data, what: str) -> DynDbgImage:
    from ..formats import open_data
    from ..formats.elf import section_type_name
    image = bytes(data)
    out = DynDbgImage(image)
    if image[:4] != b"\x7fELF":
        raise DecodeError(f"not an ELF image: first bytes {image[:4].hex(' ') or '(none)'} (expected 7f 45 4c 46)",
                          offset=0, partial=out)
    try:
        objs = list(open_data(image, what, kind="elf"))
        inner = objs[0]
        out.format_name, out.file_type, out.machine = inner.format_name, inner.file_type, inner.machine_name
        out.sections = [InnerSection(s.index, s.name, section_type_name(s.type), s.size) for s in inner.sections]
        out.functions = [(s.name, s.shndx, s.value, s.size) for s in inner.symbols
                         if s.type == 2 and 0 < s.shndx < 0xFF00]
    except ObjllvmError as exc:
        raise DecodeError(f"the embedded ELF image: {exc.message}",
                          offset=exc.offset if exc.offset is not None else 0, partial=out) from None
    return out


@register
class DynDbgCodec(Codec):
    kind = "dyndbg-elf"
    description = "dynamic debugging: the unoptimized ELF object embedded in .debug_llvm_dyndbg"
    names = (SECTION_NAME,)

    def decode(self, data, ctx):
        sec = ctx.section
        return decode_image(data, f"{SECTION_NAME} image" if sec is None else f"[{sec.index}] {sec.name} image")

    def encode(self, model, ctx):
        return model.image

    def to_dict(self, model):
        return {"size": len(model.image), "format": model.format_name, "type": model.file_type,
                "machine": model.machine,
                "sections": [{"index": s.index, "name": s.name, "type": s.type_name, "size": s.size}
                             for s in model.sections],
                "functions": [{"name": n, "section_index": i, "value": v, "size": z}
                              for n, i, v, z in model.functions]}

    def from_dict(self, d, ctx):
        raise UsageError("dyndbg-elf: the embedded image is not part of the JSON view; replace the section with "
                         "the object file itself instead")

    def tables(self, model, options):
        head = Table(["embedded", "type", "machine", "size", "sections", "functions"],
                     [[model.format_name, model.file_type, model.machine, len(model.image), len(model.sections),
                       len(model.functions)]])
        return [head, Table(["function", "section", "value", "size"],
                            [[n, i, f"{v:#x}", z] for n, i, v, z in model.functions])]
