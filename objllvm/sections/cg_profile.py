"""SHT_LLVM_CALL_GRAPH_PROFILE in both layouts.

* type 0x6fff4c02 (LLVM <= 12): 16-byte entries ``{u32 from, u32 to, u64 weight}`` with symbol indices;
* type 0x6fff4c09 (LLVM >= 13): 8-byte weights; relocation 2i (R_*_NONE) names the caller of edge i
  and relocation 2i+1 the callee, in ``.rel[a].llvm.call-graph-profile``.

COFF ``.llvm.call-graph-profile`` and Mach-O ``__LLVM,__cg_profile`` keep the old 16-byte entries: u32 caller
and u32 callee symbol-table indices (COFF: auxiliary records counted), u64 weight.
"""
from __future__ import annotations

import struct

from .._model import dataclass, field
from ..binary import Reader, pack_uint
from ..errors import DecodeError, ObjllvmError
from ..formats.base import Relocation
from .registry import Codec, Table, register
from .support.symbols import SymbolNamer, SymbolRef

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
    names = (".llvm.call-graph-profile", "__LLVM,__cg_profile")
    formats = ("elf", "coff", "macho")
    typed_names = True

    def decode(self, data, ctx):
        r = Reader(data, ctx.endian)
        namer = SymbolNamer(ctx)
        # 16-byte entries of symbol indices: ELF before LLVM 13, COFF and Mach-O (a COFF index counts
        # auxiliary records)
        old = ctx.format in ("coff", "macho") or ctx.section is not None and ctx.section.type == OLD_TYPE
        entsize = (getattr(ctx.section, "entsize", 0) or 0) if ctx.format == "elf" else 0
        if entsize and entsize != (16 if old else 8):
            ctx.warn(f"sh_entsize is {entsize}, expected {16 if old else 8}: entries read as "
                     f"{16 if old else 8} bytes", None)
        if old:
            edges = []
            while not r.at_end():
                start = r.pos
                try:
                    f = r.u32("caller symbol index")
                    t = r.u32("callee symbol index")
                    w = r.u64("weight")
                except DecodeError as exc:
                    exc.message = f"entry {len(edges)}: {exc.message} (16-byte entries)"
                    exc.partial = CallGraphProfile("symbol-indices", edges)
                    raise
                # an index past the table costs that name (a warning), not the section
                edges.append(CGEdge(namer.ref(f, start, f"entry {len(edges)}: caller symbol"),
                                    namer.ref(t, start + 4, f"entry {len(edges)}: callee symbol"), w))
            return CallGraphProfile("symbol-indices", edges)
        if len(data) % 8:
            raise DecodeError(f"size {len(data)} is not a multiple of 8 (expected one u64 weight per edge)",
                              offset=len(data) - len(data) % 8,
                              partial=CallGraphProfile("relocations", [
                                  CGEdge(SymbolRef(None, None), SymbolRef(None, None), w)
                                  for w in (r.u64("weight") for _ in range(len(data) // 8))]))
        weights = [r.u64("weight") for _ in range(len(data) // 8)]
        relocs = ctx.relocations
        if ctx.relocations_error is not None:
            ctx.warn(f"the relocations cannot be read ({ctx.relocations_error}): the edges have no symbols", 0)
        if not relocs:
            # Relocations stripped (or a linked file that kept the section): the weights alone remain.
            if weights and ctx.relocations_error is None:
                ctx.warn(f"{len(weights)} weights but no relocation section names their callers and callees", 0)
            return CallGraphProfile("relocations", [CGEdge(SymbolRef(None, None), SymbolRef(None, None), w)
                                                    for w in weights])
        if len(relocs) != 2 * len(weights):
            # keep the pairs that can be paired: edge i takes relocations 2i and 2i+1 when both exist
            ctx.warn(f"{len(weights)} weights need {2 * len(weights)} relocations, the relocation section "
                     f"has {len(relocs)}: {min(len(relocs) // 2, len(weights))} edges paired", 0)
        edges = []
        for i, w in enumerate(weights):
            if 2 * i + 1 < len(relocs):
                a, b = relocs[2 * i], relocs[2 * i + 1]
                edges.append(CGEdge(namer.reloc_ref(a, 8 * i, f"edge {i}: caller symbol"),
                                    namer.reloc_ref(b, 8 * i, f"edge {i}: callee symbol"), w))
            else:
                edges.append(CGEdge(SymbolRef(None, None), SymbolRef(None, None), w))
        return CallGraphProfile("relocations", edges)

    def encode(self, model, ctx):
        e = ctx.endian
        if model.layout == "symbol-indices":
            return b"".join(pack_uint(x.source.index, 4, e) + pack_uint(x.target.index, 4, e)
                            + pack_uint(x.weight, 8, e) for x in model.edges)
        return b"".join(pack_uint(x.weight, 8, e) for x in model.edges)

    def renumber_symbols(self, data, mapping, ctx) -> bytes:
        """An ELF section's bytes when a rewrite renumbers the symbol table (``mapping``: old index -> new one, -1
        for a dropped symbol; an index past the list stays).  The LLVM <= 12 layout holds symbol indices: each
        entry's caller and callee moved, bytes after the last whole entry kept; an edge that names a dropped symbol
        raises LookupError(the least such index, what uses it).  The newer layout names its symbols by relocations: kept as is."""
        if ctx.section is None or ctx.section.type != OLD_TYPE:
            return data
        fmt = ctx.endian + "IIQ"
        whole = len(data) // 16 * 16
        edges = list(struct.iter_unpack(fmt, data[:whole]))
        n = len(mapping)
        gone = [x for f, t, _w in edges for x in (f, t) if x < n and mapping[x] < 0]
        if gone:
            raise LookupError(min(gone), "a call-graph profile edge in")
        return b"".join(struct.pack(fmt, mapping[f] if f < n else f, mapping[t] if t < n else t, w)
                        for f, t, w in edges) + data[whole:]

    def to_dict(self, model):
        return {"layout": model.layout,
                "edges": [{"from": x.source.to_dict(), "to": x.target.to_dict(), "weight": x.weight}
                          for x in model.edges]}

    def from_dict(self, d, ctx):
        def ref(x):
            return SymbolRef(x.get("index"), x.get("name"))
        return CallGraphProfile(d.get("layout", "relocations"),
                                [CGEdge(ref(x["from"]), ref(x["to"]), int(x["weight"])) for x in d["edges"]])

    def removed_after_edit(self, model, relocated):
        # lld warns about a profile section whose relocation section is empty
        return relocated and not model.edges

    def relocations_after_edit(self, edit, relocations):
        """Relocation 2i names the caller of edge i, 2i+1 the callee, both at offset 8i: each kept edge takes the
        pair it had, a new edge a pair of relocations of the type the others have (R_*_NONE)."""
        if edit.model.layout != "relocations":
            return [(i, r.offset) for i, r in enumerate(relocations)]
        if edit.relocation_sections != 1:
            raise ObjllvmError("expected one relocation section for the call-graph profile")
        pairs = {}
        for k in range(0, len(relocations) - 1, 2):
            pairs.setdefault((relocations[k].sym, relocations[k + 1].sym), []).append(k)
        rtype = relocations[0].type if relocations else 0
        syms = edit.ctx.symbols
        out = []
        for i, e in enumerate(edit.model.edges):
            a, b = _symbol_index(syms, e.source, "caller", i), _symbol_index(syms, e.target, "callee", i)
            if pairs.get((a, b)):
                k = pairs[(a, b)].pop(0)
                out += [(k, 8 * i), (k + 1, 8 * i)]
            else:
                out += [Relocation(8 * i, rtype, a, 0), Relocation(8 * i, rtype, b, 0)]
        return out

    def tables(self, model, options):
        return [Table(["from", "to", "weight"],
                      [[x.source.text(), x.target.text(), x.weight] for x in model.edges])]


def _symbol_index(syms, ref, what, i) -> int:
    """The symbol table index an edge's end names: its index, else the first symbol (not a section's) of its name."""
    if ref.index is not None:
        if not 0 < ref.index < len(syms):
            raise ObjllvmError(f"edge {i}: {what} symbol index {ref.index} is not in the symbol table "
                               f"({len(syms)} symbols)")
        return ref.index
    hits = [s.index for s in syms if s.name == ref.name and s.type != 3]
    if not hits:
        raise ObjllvmError(f"edge {i}: no symbol named {ref.name!r} for the {what}")
    return hits[0]
