"""SHT_LLVM_ADDRSIG (``.llvm_addrsig``): the address-significant symbols, as ULEB128 indices."""
from __future__ import annotations

from .._model import dataclass, field
from ..binary import Reader, uleb_encode
from ..errors import DecodeError
from .registry import Codec, Table, register
from .support.symbols import SymbolRef


@dataclass
class AddressSignificance:
    symbols: list = field(default_factory=list)   # SymbolRef, in section order


@register
class AddrsigCodec(Codec):
    kind = "addrsig"
    description = "address-significance table (-faddrsig); empty: no symbol is address-significant"
    sh_types = (0x6FFF4C03,)
    names = (".llvm_addrsig",)

    def decode(self, data, ctx):
        r = Reader(data, ctx.endian)
        syms = ctx.symbols
        out = []
        while not r.at_end():
            start = r.pos
            try:
                idx = r.uleb("symbol index", max_bits=32)
            except DecodeError as exc:
                exc.partial = AddressSignificance(out)
                raise
            if idx >= len(syms):
                raise DecodeError(f"symbol index {idx} is past the symbol table ({len(syms)} symbols)",
                                  offset=start, partial=AddressSignificance(out))
            out.append(SymbolRef(idx, syms[idx].name))
        return AddressSignificance(out)

    def encode(self, model, ctx):
        return b"".join(uleb_encode(s.index) for s in model.symbols)

    def to_dict(self, model):
        return {"symbols": [s.to_dict() for s in model.symbols]}

    def from_dict(self, d, ctx):
        syms = ctx.symbols
        out = []
        for s in d["symbols"]:
            idx = s.get("index")
            if idx is None:   # allow naming symbols only
                matches = [x.index for x in syms if x.name == s["name"]]
                if not matches:
                    raise DecodeError(f"no symbol named {s['name']!r} in the symbol table")
                idx = matches[0]
            if not 0 <= int(idx) < max(len(syms), 1):
                raise DecodeError(f"symbol index {idx} is past the symbol table ({len(syms)} symbols)")
            out.append(SymbolRef(int(idx), syms[int(idx)].name if syms else s.get("name")))
        return AddressSignificance(out)

    def tables(self, model, options):
        return [Table(["index", "symbol"], [[s.index, s.name] for s in model.symbols])]
