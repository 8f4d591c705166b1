"""SHT_LLVM_CALL_GRAPH_PROFILE in both layouts.

* type 0x6fff4c02 (LLVM <= 12): 16-byte entries ``{u32 from, u32 to, u64 weight}`` with symbol indices;
* type 0x6fff4c09 (LLVM >= 13): 8-byte weights; relocation 2i (R_*_NONE) names the caller of edge i
  and relocation 2i+1 the callee, in ``.rel[a].llvm.call-graph-profile``.
"""
from __future__ import annotations

from .._model import dataclass, field
from ..binary import Reader, pack_uint
from ..errors import DecodeError
from .registry import Codec, Table, register
from .support.symbols import SymbolRef, symbol_ref

OLD_TYPE, NEW_TYPE = 0x6FFF4C02, 0x6FFF4C09


@dataclass
class CGEdge:
    source: SymbolRef
    target: SymbolRef
    weight: int


@dataclass
class CallGraphProfile:
    layout: str                      # 'symbol-indices' (LLVM <= 12) or 'relocations' (LLVM >= 13)
    edges: list = field(default_factory=list)


@register
class CGProfileCodec(Codec):
    kind = "cg-profile"
    description = "call-graph profile: caller -> callee edge weights"
    sh_types = (OLD_TYPE, NEW_TYPE)
    names = (".llvm.call-graph-profile",)

    def decode(self, data, ctx):
        r = Reader(data, ctx.endian)
        if ctx.section is not None and ctx.section.type == OLD_TYPE:
            edges = []
            while not r.at_end():
                try:
                    f = r.u32("caller symbol index")
                    t = r.u32("callee symbol index")
                    w = r.u64("weight")
                except DecodeError as exc:
                    exc.message = f"entry {len(edges)}: {exc.message} (16-byte entries)"
                    exc.partial = CallGraphProfile("symbol-indices", edges)
                    raise
                for idx, what in ((f, "caller"), (t, "callee")):
                    if ctx.symbols and idx >= len(ctx.symbols):
                        raise DecodeError(f"entry {len(edges)}: {what} symbol index {idx} is past the symbol "
                                          f"table ({len(ctx.symbols)} symbols)", offset=r.pos - 16,
                                          partial=CallGraphProfile("symbol-indices", edges))
                edges.append(CGEdge(symbol_ref(ctx.symbols, f), symbol_ref(ctx.symbols, t), w))
            return CallGraphProfile("symbol-indices", edges)
        if len(data) % 8:
            raise DecodeError(f"size {len(data)} is not a multiple of 8 (expected one u64 weight per edge)",
                              offset=len(data) - len(data) % 8)
        weights = [r.u64("weight") for _ in range(len(data) // 8)]
        relocs = ctx.relocations
        if not relocs:
            # Linked output (or relocations stripped): the weights alone remain.
            return CallGraphProfile("relocations", [CGEdge(SymbolRef(None, None), SymbolRef(None, None), w)
                                                    for w in weights])
        if len(relocs) != 2 * len(weights):
            raise DecodeError(f"{len(weights)} weights need {2 * len(weights)} relocations, the relocation "
                              f"section has {len(relocs)}", offset=0)
        edges = []
        for i, w in enumerate(weights):
            a, b = relocs[2 * i], relocs[2 * i + 1]
            edges.append(CGEdge(SymbolRef(a.sym, a.symbol.name if a.symbol else ""),
                                SymbolRef(b.sym, b.symbol.name if b.symbol else ""), w))
        return CallGraphProfile("relocations", edges)

    def encode(self, model, ctx):
        e = ctx.endian
        if model.layout == "symbol-indices":
            return b"".join(pack_uint(x.source.index, 4, e) + pack_uint(x.target.index, 4, e)
                            + pack_uint(x.weight, 8, e) for x in model.edges)
        return b"".join(pack_uint(x.weight, 8, e) for x in model.edges)

    def to_dict(self, model):
        return {"layout": model.layout,
                "edges": [{"from": x.source.to_dict(), "to": x.target.to_dict(), "weight": x.weight}
                          for x in model.edges]}

    def from_dict(self, d, ctx):
        def ref(x):
            return SymbolRef(x.get("index"), x.get("name"))
        return CallGraphProfile(d.get("layout", "relocations"),
                                [CGEdge(ref(x["from"]), ref(x["to"]), int(x["weight"])) for x in d["edges"]])

    def tables(self, model, options):
        return [Table(["from", "to", "weight"],
                      [[x.source.text(), x.target.text(), x.weight] for x in model.edges])]
