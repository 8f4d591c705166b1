"""Shared helpers: symbol references as the codecs show them."""
from __future__ import annotations

from ..._model import dataclass


@dataclass
class SymbolRef:
    index: int | None     # symbol table index (None when unknown, e.g. no relocation)
    name: str | None

    def to_dict(self):
        return {"index": self.index, "name": self.name}

    def text(self) -> str:
        if self.index is None:
            return "?"
        return f"{self.name} ({self.index})" if self.name else f"<unnamed> ({self.index})"


def symbol_ref(symbols, index: int) -> SymbolRef:
    if 0 <= index < len(symbols):
        return SymbolRef(index, symbols[index].name)
    return SymbolRef(index, None)


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
