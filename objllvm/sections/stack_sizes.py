"""``.stack_sizes`` (clang ``-fstack-size-section``): per function its address and its stack frame size.

Each entry: the function's address (address-sized; a relocation in an object), then the size as ULEB128.
Every function symbol at an entry's address is named (identical code folding gives one entry several).  In
an object, a relocation to a symbol that is not a function, or to one outside the section ``sh_link`` names
(the functions' section), is named with a warning, as llvm-readobj warns.
"""
from __future__ import annotations

from .._model import dataclass, field
from ..binary import Reader, pack_uint, uleb_encode
from ..errors import DecodeError
from .registry import Codec, Table, register
from .support.addresses import Address, Resolver


@dataclass
class StackSizeEntry:
    function: Address
    size: int


@dataclass
class StackSizes:
    word_size: int
    entries: list = field(default_factory=list)


def _check_target(ctx, rel, link: int, offset: int) -> None:
    """Warn about an entry of an object whose relocation names a symbol that is no function, or a function
    outside the section sh_link names."""
    sym = rel.symbol if rel is not None else None
    if sym is None or sym.is_section:
        return
    if sym.type != 2:                       # STT_FUNC
        ctx.warn(f"entry's symbol {sym.name!r} is not a function symbol (type {sym.type})", offset)
    elif link and 0 < sym.shndx < 0xFF00 and sym.shndx != link and _has_section(ctx.obj, sym.shndx):
        ctx.warn(f"entry's function {sym.name!r} is in section index {sym.shndx}, not in section {link} "
                 f"(the section's sh_link)", offset)


def _has_section(obj, index: int) -> bool:
    return any(s.index == index for s in getattr(obj, "sections", None) or ())


@register
class StackSizesCodec(Codec):
    kind = "stack-sizes"
    description = "stack sizes (-fstack-size-section): stack frame size of each function"
    names = (".stack_sizes",)

    def decode(self, data, ctx):
        w = ctx.addr_size
        r = Reader(data, ctx.endian)
        res = Resolver(ctx, all_names=True)
        out = StackSizes(w)
        link = ctx.section.link if ctx.section is not None and ctx.is_relocatable and ctx.format == "elf" else 0
        while not r.at_end():
            p = r.pos
            k = len(out.entries)
            try:
                v = r.uint(w, f"entry {k}: function address")
                fn = res.at(p, v)
                size = r.uleb(f"entry {k}: stack size")
            except DecodeError as exc:
                exc.partial = out
                raise
            if ctx.is_relocatable and ctx.format == "elf":
                _check_target(ctx, res.reloc_at(p), link, p)
            out.entries.append(StackSizeEntry(fn, size))
        res.finish()
        return out

    def encode(self, model, ctx):
        w, e = model.word_size, ctx.endian
        return b"".join(pack_uint(x.function.value, w, e) + uleb_encode(x.size) for x in model.entries)

    def to_dict(self, model):
        return {"word_size": model.word_size,
                "entries": [{"function": x.function.to_dict(), "size": x.size} for x in model.entries]}

    def from_dict(self, d, ctx):
        return StackSizes(int(d.get("word_size", ctx.addr_size)),
                          [StackSizeEntry(Address.from_dict(x["function"]), int(x["size"])) for x in d["entries"]])

    def tables(self, model, options):
        return [Table(["function", "stack size"], [[x.function.text(), x.size] for x in model.entries])]
