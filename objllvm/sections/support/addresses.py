"""Shared helpers: addresses stored in a section, as a relocatable object or a linked file gives them.

In a relocatable object an address field usually holds 0 (RELA) or the addend (REL) and a relocation at that
offset names the symbol; in a linked file the field holds the address itself.  :class:`Address` keeps the raw
field (what ``encode`` writes back) and what it resolves to: the relocation's symbol and addend, or the
function/object symbol at that address.
"""
from __future__ import annotations

import bisect

from ..._model import dataclass


@dataclass
class Address:
    value: int                      # the raw field as stored
    symbol: str | None = None       # the relocation's symbol (object) or the symbol at the address (linked)
    addend: int = 0                 # with ``symbol`` from a relocation: the offset from it

    def to_dict(self):
        return {"value": self.value, "symbol": self.symbol, "addend": self.addend}

    @classmethod
    def from_dict(cls, d):
        if isinstance(d, int):
            return cls(d)
        return cls(int(d["value"]), d.get("symbol"), int(d.get("addend") or 0))

    def text(self) -> str:
        if self.symbol is None:
            return f"{self.value:#x}"
        if self.addend:
            sign = "+" if self.addend > 0 else "-"
            return f"{self.symbol}{sign}{abs(self.addend):#x}"
        return self.symbol if self.value == 0 else f"{self.value:#x} <{self.symbol}>"


class Resolver:
    """Resolve address fields of one section: by relocation (object) or by symbol value (linked file)."""

    def __init__(self, ctx, base: int = 0):
        self.ctx = ctx
        self.base = base               # offset of the decoded bytes within the section (0: the whole section)
        self._relocs = None
        self._by_value = None
        self._in_section = None
        self._ranges = None
        self._funcs = None

    @property
    def relocs(self) -> dict:
        if self._relocs is None:
            out = {}
            for r in self.ctx.relocations or ():
                out.setdefault(r.offset, r)
            self._relocs = out
        return self._relocs

    def reloc_at(self, offset: int):
        return self.relocs.get(offset + self.base)

    def symbol_name(self, sym) -> str:
        if sym is None:
            return ""
        if sym.is_section or (not sym.name and self.ctx.format == "elf"):
            sec = _section_by_index(self.ctx.obj, sym.shndx)
            if sec is not None:
                return sec.name
        return sym.name

    def at(self, offset: int, value: int, pcrel: bool = False) -> Address:
        """The address field at ``offset`` holding ``value``.  ``pcrel``: the field is relative to its own
        place (its resolved address is then shown for a linked file)."""
        r = self.reloc_at(offset) if self.ctx.is_relocatable else None
        if r is not None:
            addend = r.addend if r.addend is not None else _signed(value, self.ctx.addr_size)
            sym = r.symbol
            if sym is not None and sym.is_section:
                named = self.symbol_in_section(sym.shndx, addend)
                if named:                     # .text+0x40 -> the function defined there
                    return Address(value, named, 0)
            return Address(value, self.symbol_name(sym), addend)
        if self.ctx.is_relocatable:
            return Address(value)
        name = self.function_at(value)
        return Address(value, name) if name else Address(value)

    def symbol_in_section(self, shndx, offset: int) -> str | None:
        """The function or object symbol defined at ``offset`` of section ``shndx`` (relocatable object)."""
        if self._in_section is None:
            out = {}
            for s in self.ctx.symbols:
                if s.type in (1, 2) and s.name:
                    out.setdefault((s.shndx, s.value), s.name)
            self._in_section = out
        return self._in_section.get((shndx, offset))

    def locate(self, shndx, offset: int):
        """(name, offset from it) of ``offset`` in section ``shndx`` of an object: the function or object symbol
        containing it, else the section."""
        if self._ranges is None:
            out = {}
            for s in self.ctx.symbols:
                if s.type in (1, 2) and s.name:
                    out.setdefault(s.shndx, []).append((s.value, s.value + max(s.size, 1), s.name))
            for v in out.values():
                v.sort()
            self._ranges = out
        funcs = self._ranges.get(shndx, ())
        i = bisect.bisect_right(funcs, (offset, float("inf"), "")) - 1
        if i >= 0 and funcs[i][0] <= offset < funcs[i][1]:
            return funcs[i][2], offset - funcs[i][0]
        sec = _section_by_index(self.ctx.obj, shndx)
        return (sec.name if sec is not None else None), offset

    def function_containing(self, address: int) -> str | None:
        """Linked file: the function symbol whose [value, value + size) holds ``address``."""
        if self._funcs is None:
            self._funcs = sorted((s.value, s.value + max(s.size, 1), s.name) for s in self.ctx.symbols
                                 if s.type == 2 and s.name and s.shndx)
        i = bisect.bisect_right(self._funcs, (address, float("inf"), "")) - 1
        if i >= 0 and self._funcs[i][0] <= address < self._funcs[i][1]:
            return self._funcs[i][2]
        return None

    def function_at(self, address: int) -> str | None:
        if self._by_value is None:
            out = {}
            for s in self.ctx.symbols:
                if s.type in (1, 2) and s.name and s.shndx:
                    out.setdefault(s.value, s.name)
            self._by_value = out
        return self._by_value.get(address)


def _signed(v: int, size: int) -> int:
    bits = 8 * size
    return v - (1 << bits) if v >> (bits - 1) else v


def _section_by_index(obj, index):
    if obj is None or index is None:
        return None
    secs = getattr(obj, "sections", None) or []
    if 0 <= index < len(secs) and secs[index].index == index:
        return secs[index]
    for s in secs:
        if s.index == index:
            return s
    return None
