"""SHT_LLVM_SYMPART (``.llvm_sympart``): which partition a symbol goes to (-fsymbol-partition)."""
from __future__ import annotations

from .._model import dataclass
from ..binary import Reader, decode_text, encode_text, pack_uint
from ..errors import DecodeError
from .registry import Codec, Table, register
from .support.symbols import SymbolNamer, SymbolRef, symbol_containing


@dataclass
class SymbolPartition:
    partition: str
    symbol: SymbolRef
    stored_value: int          # the word as stored (0 in RELA objects; the address in linked files)
    address: int | None        # resolved address: symbol value + addend, or the stored word


@register
class SympartCodec(Codec):
    kind = "sympart"
    description = "symbol partition: a partition name and the symbol placed in it"
    sh_types = (0x6FFF4C05,)
    names = (".llvm_sympart",)
    typed_names = True

    def decode(self, data, ctx):
        r = Reader(data, ctx.endian)
        name = decode_text(r.cstring("partition name"))
        word_off = r.pos
        word = r.uint(ctx.addr_size, f"{ctx.addr_size}-byte symbol address")
        if not r.at_end():
            raise DecodeError(f"{r.remaining()} unexpected trailing bytes (expected name + one address)",
                              offset=r.pos)
        rel = [x for x in ctx.relocations if x.offset == word_off]
        if rel:
            x = rel[0]
            sym = SymbolNamer(ctx).reloc_ref(x, word_off)
            addend = x.addend if x.addend is not None else word
            # an unknown symbol leaves the address unknown (never its addend alone)
            address = (x.symbol.value + addend) if x.symbol is not None else None
        elif ctx.relocations or (ctx.is_relocatable and ctx.relocations_error is not None):
            why = f" (the relocations cannot be read: {ctx.relocations_error})" if ctx.relocations_error else ""
            raise DecodeError(f"no relocation at offset {word_off:#x} for the symbol address{why}",
                              offset=word_off, partial=SymbolPartition(name, SymbolRef(None, None), word, None))
        elif ctx.is_relocatable:
            # a relocatable object's word is a placeholder (0 in RELA): without its relocation, no address
            ctx.warn(f"no relocation gives the symbol address at offset {word_off:#x}", word_off)
            sym, address = SymbolRef(None, None), None
        else:
            s = symbol_containing(ctx.symbols, word)
            sym = SymbolRef(s.index, s.name) if s else SymbolRef(None, None)
            address = word
        return SymbolPartition(name, sym, word, address)

    def encode(self, model, ctx):
        return encode_text(model.partition) + b"\0" + pack_uint(model.stored_value, ctx.addr_size, ctx.endian)

    def to_dict(self, model):
        return {"partition": model.partition, "symbol": model.symbol.to_dict(), "address": model.address}

    def from_dict(self, d, ctx):
        s = d.get("symbol") or {}
        return SymbolPartition(str(d["partition"]), SymbolRef(s.get("index"), s.get("name")),
                               int(d.get("stored_value", 0 if ctx.is_relocatable else d.get("address") or 0)),
                               d.get("address"))

    def relocations_after_edit(self, edit, relocations):
        """The one relocation sits on the address word after the name."""
        word_off = len(edit.data) - edit.ctx.addr_size
        return [(i, word_off) for i in range(len(relocations))]

    def tables(self, model, options):
        addr = f"{model.address:#x}" if model.address is not None else "?"
        return [Table(["partition", "symbol", "address"], [[model.partition, model.symbol.text(), addr]])]
