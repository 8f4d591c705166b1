"""Shared helpers: symbol references as the codecs show them, and how a codec names a symbol.

An unresolvable symbol costs a name, never the section (as llvm-readobj warns and goes on): a symbol
index past the table, a name offset past the string table, no symbol table at all.  The reference keeps
its index, its name is ``None`` (``<?>`` in text), and the context records a warning located at the
offset in the section being decoded (see :class:`SymbolNamer`).  Every codec that names symbols (cg-profile,
addrsig, sympart, bb-addr-map, pc-sections, jump tables) goes through :class:`SymbolNamer`.
"""
from ..._model import dataclass
from ...errors import ObjllvmError

UNKNOWN_NAME = "<?>"


@dataclass
class SymbolRef:
    index: int | None     # symbol table index (None when unknown, e.g. no relocation)
    name: str | None      # None: the symbol could not be named (see the section's warnings)

    def to_dict(self):
        return {"index": self.index, "name": self.name}

    def text(self) -> str:
        if self.index is None:
            return "?"
        if self.name is None:
            return f"{UNKNOWN_NAME} ({self.index})"
        return f"{self.name} ({self.index})" if self.name else f"<unnamed> ({self.index})"


def symbol_ref(symbols, index: int) -> SymbolRef:
    """A reference by index, without warnings (name None when the index is past ``symbols``)."""
    if 0 <= index < len(symbols):
        return SymbolRef(index, symbols[index].name)
    return SymbolRef(index, None)


class SymbolNamer:
    """Names symbols for one section decode; every name it cannot give is a warning of ``ctx``.

    ``ref(index, offset)``: the symbol at ``index`` of the object's symbol table.
    ``reloc_ref(rel, offset)``: the symbol a relocation refers to (its own symbol table).
    Both return a :class:`SymbolRef` whose name is None when the symbol cannot be named, and warn once per
    (offset, index)."""

    def __init__(self, ctx):
        self.ctx = ctx
        self._symbols = None
        self._by_index = None

    @property
    def symbols(self) -> list:
        if self._symbols is None:
            try:
                self._symbols = self.ctx.symbols
            except ObjllvmError as exc:       # an object that reads its table late
                self.ctx.symbols_error = exc
                self._symbols = []
        return self._symbols

    def _bad_names(self) -> dict:
        """symbol index -> why its name cannot be read (every table of the object; read once)."""
        merged = self.__dict__.get("_bad")
        if merged is None:
            merged = {}
            for per_table in (getattr(self.ctx.obj, "symbol_name_errors", None) or {}).values():
                merged.update(per_table)
            self._bad = merged
        return merged

    def _no_table(self, what: str) -> str:
        err = self.ctx.symbols_error
        if err is not None:
            return f"{what}: the symbol table cannot be read ({err.message})"
        return f"{what}: there is no symbol table"

    def _table(self) -> dict | None:
        """index -> symbol when indices are not positions in the list (COFF: auxiliary records take indices
        of their own), else None."""
        if self._by_index is None:
            syms = self.symbols
            positional = all(s.index == i for i, s in enumerate(syms))
            self._by_index = False if positional else {s.index: s for s in syms}
        return self._by_index or None

    def ref(self, index: int, offset: int | None = None, what: str = "symbol") -> SymbolRef:
        syms = self.symbols
        if not syms:
            self.ctx.warn(self._no_table(f"{what} index {index}"), offset)
            return SymbolRef(index, None)
        table = self._table()
        sym = (syms[index] if 0 <= index < len(syms) else None) if table is None else table.get(index)
        if sym is None:
            limit = len(syms) if table is None else getattr(self.ctx.obj, "number_of_symbols", None)
            if table is not None and (limit is None or 0 <= index < limit):
                self.ctx.warn(f"{what} index {index} is not a symbol (an auxiliary record)", offset)
            else:
                self.ctx.warn(f"{what} index {index} is past the end of the symbol table "
                              f"({limit if limit is not None else len(syms)} symbols)", offset)
            return SymbolRef(index, None)
        why = self._bad_names().get(index)
        if why is not None:
            self.ctx.warn(f"{what} index {index}: cannot read its name: {why}", offset)
            return SymbolRef(index, None)
        return SymbolRef(index, sym.name)

    def reloc_ref(self, rel, offset: int | None = None, what: str = "symbol") -> SymbolRef:
        """The symbol of relocation ``rel`` (``rel.symbol`` is None when its index was past its table)."""
        if rel.symbol is not None:
            why = self._bad_names().get(rel.sym) if not rel.symbol.name else None
            if why is not None:
                self.ctx.warn(f"{what} index {rel.sym} (relocation at {rel.offset:#x}): cannot read its name: "
                              f"{why}", offset)
                return SymbolRef(rel.sym, None)
            return SymbolRef(rel.sym, rel.symbol.name)
        if not rel.sym:
            return SymbolRef(0, "")
        if not self.symbols:
            self.ctx.warn(self._no_table(f"{what} index {rel.sym} (relocation at {rel.offset:#x})"), offset)
            return SymbolRef(rel.sym, None)
        self.ctx.warn(f"{what} index {rel.sym} of the relocation at {rel.offset:#x} is past the end of its "
                      f"symbol table", offset)
        return SymbolRef(rel.sym, None)


def symbol_containing(symbols, address: int, shndx: int | None = None):
    """A function or object symbol whose [value, value+size) holds ``address``; exact starts win."""
    best = None
    for s in symbols:
        if s.type not in (1, 2) or (shndx is not None and s.shndx != shndx):
            continue
        if s.value == address:
            return s
        if s.value < address < s.value + s.size and (best is None or s.value > best.value):
            best = s
    return best
