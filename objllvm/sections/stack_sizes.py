"""``.stack_sizes`` (clang ``-fstack-size-section``): per function its address and its stack frame size.

Each entry: the function's address (address-sized; a relocation in an object), then the size as ULEB128.
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


@register
class StackSizesCodec(Codec):
    kind = "stack-sizes"
    description = "stack sizes (-fstack-size-section): stack frame size of each function"
    names = (".stack_sizes",)

    def decode(self, data, ctx):
        w = ctx.addr_size
        r = Reader(data, ctx.endian)
        res = Resolver(ctx)
        out = StackSizes(w)
        while not r.at_end():
            p = r.pos
            k = len(out.entries)
            try:
                v = r.uint(w, f"entry {k}: function address")
                size = r.uleb(f"entry {k}: stack size")
            except DecodeError as exc:
                exc.partial = out
                raise
            out.entries.append(StackSizeEntry(res.at(p, v), size))
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
