"""SHT_LLVM_ADDRSIG (``.llvm_addrsig``): the address-significant symbols, as ULEB128 indices.

COFF ``.llvm_addrsig`` holds the same ULEB128 list, of COFF symbol-table indices (auxiliary records counted).
Mach-O ``__DATA,__llvm_addrsig`` holds no indices: each address-significant symbol is an external relocation
on the section (whose bytes are a placeholder, kept as they are).
"""
from .._model import dataclass, field
from ..binary import Reader, uleb_encode
from ..errors import DecodeError
from ..render import ColumnTable, Text
from .registry import Codec, register
from .support.symbols import UNKNOWN_NAME, SymbolNamer, SymbolRef


@dataclass
class AddressSignificance:
    symbols: list = field(default_factory=list)   # SymbolRef, in section order
    stale: str | None = None      # why the indices cannot be trusted (sh_link does not name the symbol table)
    placeholder: bytes | None = None              # Mach-O: the section's bytes (the symbols are relocations)


# What lld (ELF, ObjFile::initializeSections and findKeepUniqueSections) does with a table: it takes the table
# only when sh_link is nonzero (it checks nothing else); with sh_link = 0 it ignores the table (--icf=safe warns
# that it "conservatively ignores" it) and marks every symbol of the object address-significant.
LLD_IGNORES = ("lld ignores a table with sh_link = 0 (--icf=safe warns) and treats every symbol of this "
               "object as address-significant")
LLD_READS = "lld reads it anyway (it checks only that sh_link is not 0), so its indices pick whatever symbols they hit"


def stale_reason(ctx) -> str | None:
    """Why the table of ``ctx.section`` is stale, or None: an ELF table whose sh_link does not name the symbol
    table (GNU strip/objcopy and ld -r renumber the symbols and leave sh_link = 0)."""
    obj, sec = ctx.obj, ctx.section
    if sec is None or getattr(obj, "format", None) != "elf" or not hasattr(obj, "section_types"):
        return None
    types = obj.section_types
    symtab = types.index(2) if 2 in types else None        # SHT_SYMTAB
    if symtab is not None and sec.link == symtab:
        return None
    where = "no symbol table" if symtab is None else f"the symbol table is section [{symtab}]"
    return (f"stale: sh_link is {sec.link}, not the symbol table's index ({where}): a tool that renumbered the "
            f"symbols (GNU strip or objcopy, ld -r) left the indices behind, so they may name other symbols; "
            + (LLD_IGNORES if sec.link == 0 else LLD_READS))


@register
class AddrsigCodec(Codec):
    kind = "addrsig"
    description = "address-significance table (-faddrsig); empty: no symbol is address-significant"
    sh_types = (0x6FFF4C03,)
    names = (".llvm_addrsig", "__DATA,__llvm_addrsig")
    formats = ("elf", "coff", "macho")
    typed_names = True

    def decode(self, data, ctx):
        if ctx.format == "macho":
            return AddressSignificance([SymbolRef(x.sym, x.symbol.name if x.symbol else None)
                                        for x in ctx.relocations], placeholder=bytes(data))
        r = Reader(data, ctx.endian)
        # a stale table (sh_link not the symbol table) keeps its indices, its names are not looked up: not an
        # error, as lld and llvm-readobj go on
        stale = stale_reason(ctx)
        ref = (lambda idx, _at: SymbolRef(idx, None)) if stale is not None else SymbolNamer(ctx).ref
        out = []
        while not r.at_end():
            start = r.pos
            try:
                idx = r.uleb("symbol index", max_bits=32)
            except DecodeError as exc:
                exc.partial = AddressSignificance(out, stale)
                raise
            out.append(ref(idx, start))     # an unnamed symbol is a warning: the entry stays
        return AddressSignificance(out, stale)

    def encode(self, model, ctx):
        if model.placeholder is not None:
            return model.placeholder
        return b"".join(uleb_encode(s.index) for s in model.symbols)

    def renumber_symbols(self, data, mapping, ctx=None) -> bytes:
        """The ELF table's bytes with each symbol index moved by ``mapping`` (old index -> new one; -1: the symbol
        is dropped and leaves the table; an index past the list stays): what the table becomes when a rewrite
        renumbers the symbol table.  A bad ULEB128 is a DecodeError at its offset."""
        r = Reader(data)
        n = len(mapping)
        out = []
        while not r.at_end():
            x = r.uleb("symbol index", max_bits=32)
            y = mapping[x] if x < n else x
            if y >= 0:
                out.append(uleb_encode(y))
        return b"".join(out)

    def to_dict(self, model):
        d = {"symbols": [s.to_dict() for s in model.symbols]}
        if model.stale is not None:
            d["stale"] = model.stale
        if model.placeholder is not None:
            d["placeholder"] = model.placeholder.hex()
        return d

    def from_dict(self, d, ctx):
        if ctx.format in ("coff", "macho"):
            return self._from_dict_coff_macho(d, ctx)
        stale = stale_reason(ctx)
        if stale is not None:        # names mean nothing here: indices only, kept as they are
            try:
                return AddressSignificance([SymbolRef(int(s["index"]), None) for s in d["symbols"]], stale)
            except (KeyError, TypeError, ValueError):
                raise DecodeError("a stale address-significance table takes symbol indices only "
                                  "(its names cannot be trusted)") from None
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

    def _from_dict_coff_macho(self, d, ctx):
        by_index = {s.index: s for s in ctx.symbols}
        by_name = {}
        for s in ctx.symbols:
            by_name.setdefault(s.name, s.index)
        out = []
        for s in d["symbols"]:
            idx = s.get("index")
            if idx is None:
                idx = by_name.get(s.get("name"))
                if idx is None:
                    raise DecodeError(f"no symbol named {s.get('name')!r} in the symbol table")
            if int(idx) not in by_index:
                raise DecodeError(f"symbol index {idx} names no symbol")
            out.append(SymbolRef(int(idx), by_index[int(idx)].name))
        if ctx.format != "macho":
            return AddressSignificance(out)
        have = [x.sym for x in ctx.relocations]
        if [x.index for x in out] != have:
            raise DecodeError("Mach-O address significance is the section's relocations: its symbols cannot be "
                              "changed by rewriting the section's bytes")
        return AddressSignificance(out, placeholder=bytes.fromhex(d.get("placeholder", "")) or bytes(ctx.section.size))

    def tables(self, model, options):
        syms = model.symbols            # by columns: no row objects (a section of zeros is a symbol a byte)
        indices = [s.index for s in syms]
        if model.stale is not None:
            return [Text(model.stale),
                    ColumnTable(["index", "symbol"], [indices, ["(not trusted)"] * len(syms)], "ds")]
        names = [UNKNOWN_NAME if s.name is None else s.name for s in syms]
        return [ColumnTable(["index", "symbol"], [indices, names], "ds")]
