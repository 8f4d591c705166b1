"""Shared helpers: addresses stored in a section, as a relocatable object or a linked file gives them.

In a relocatable object an address field usually holds 0 (RELA) or the addend (REL) and a relocation at that
offset names the symbol; in a linked file the field holds the address itself.  :class:`Address` keeps the raw
field (what ``encode`` writes back) and what it resolves to: the relocation's symbol and addend, or the
function/object symbol at that address.

What cannot be resolved is never guessed (docs/errors.md): a relocation whose symbol cannot be named gives an
unknown name (``<?>`` in text, ``null`` in JSON) and a warning at the field; an address field of a relocatable
object with no relocation is an error at its offset (its stored bytes are a placeholder, not the address);
a second relocation at one field, or one that starts inside a field, is reported (:meth:`Resolver.finish`).
"""
from __future__ import annotations

import bisect

from ..._model import dataclass, field
from ...errors import DecodeError, ObjllvmError
from .symbols import UNKNOWN_NAME, SymbolNamer


@dataclass
class Address:
    value: int                      # the raw field as stored
    symbol: str | None = None       # the relocation's symbol (object) or the symbol at the address (linked)
    addend: int = 0                 # with ``symbol`` from a relocation: the offset from it
    unknown: bool = False           # a relocation names a symbol that cannot be named (``symbol`` is None)
    aliases: list = field(default_factory=list)   # other function symbols at the same address (folded code)
    resolved: int | None = None     # linked file: the address a dynamic relocation puts there (the stored word
                                    # of a position-independent image is then a placeholder)

    @property
    def address(self) -> int:
        """The address the field holds once loaded: the dynamic relocation's, else the stored word."""
        return self.value if self.resolved is None else self.resolved

    def to_dict(self):
        d = {"value": self.value, "symbol": self.symbol, "addend": self.addend}
        if self.unknown:
            d["unknown"] = True
        if self.aliases:
            d["aliases"] = list(self.aliases)
        if self.resolved is not None:
            d["address"] = self.resolved
        return d

    @classmethod
    def from_dict(cls, d):
        if isinstance(d, int):
            return cls(d)
        res = d.get("address")
        return cls(int(d["value"]), d.get("symbol"), int(d.get("addend") or 0), bool(d.get("unknown")),
                   [str(a) for a in d.get("aliases") or ()], None if res is None else int(res))

    @property
    def names(self) -> list:
        """Every name of the address: the symbol, then its aliases (empty when there is none)."""
        return ([self.symbol] if self.symbol is not None else []) + list(self.aliases)

    def text(self) -> str:
        if self.unknown:
            name = UNKNOWN_NAME
        elif self.symbol is None:
            return f"{self.address:#x}"
        else:
            name = ", ".join(self.names)
        if self.addend:
            sign = "+" if self.addend > 0 else "-"
            return f"{name}{sign}{abs(self.addend):#x}"
        return name if self.address == 0 or self.unknown else f"{self.address:#x} <{name}>"


class Resolver:
    """Resolve address fields of one section: by relocation (object) or by symbol value (linked file)."""

    def __init__(self, ctx, base: int = 0, all_names: bool = False, dynamic: bool = False):
        self.ctx = ctx
        self.base = base               # offset of the decoded bytes within the section (0: the whole section)
        self.all_names = all_names     # name every function symbol at an address, not only the first
        self.dynamic = dynamic         # linked ELF file: apply the dynamic relocations that fill the fields
        self._dyn = None
        self.namer = SymbolNamer(ctx)
        self._relocs = None
        self._by_value = None
        self._in_section = None
        self._ranges = None
        self._funcs = None
        self._fields = {}              # section offset of each address field asked for -> its size

    @property
    def relocs(self) -> dict:
        """Section offset -> the first relocation there."""
        if self._relocs is None:
            out = {}
            for r in self.ctx.relocations or ():
                out.setdefault(r.offset, r)
            self._relocs = out
        return self._relocs

    def reloc_at(self, offset: int):
        return self.relocs.get(offset + self.base)

    def symbol_name(self, sym, rel=None, offset: int | None = None) -> str | None:
        """The name of ``sym`` (a section symbol: its section's name).  With the relocation ``rel`` whose
        symbol it is: None when that symbol cannot be named (an index past the table, an unreadable table or
        name), with a warning at ``offset``; "" only for a relocation with no symbol (index 0)."""
        if sym is None:
            if rel is None:
                return ""
            return self.namer.reloc_ref(rel, offset).name
        if sym.is_section or (not sym.name and self.ctx.format == "elf"):
            sec = _section_by_index(self.ctx.obj, sym.shndx)
            if sec is not None:
                return sec.name
        if not sym.name and rel is not None:
            return self.namer.reloc_ref(rel, offset).name
        return sym.name

    def at(self, offset: int, value: int, pcrel: bool = False, required: bool = True) -> Address:
        """The address field at ``offset`` holding ``value``.  ``pcrel``: the field is relative to its own
        place (its resolved address is then shown for a linked file).  In a relocatable object a field with no
        relocation is an error at its offset unless ``required`` is false (a field that may be a null pointer),
        when it is kept as its stored value."""
        where = offset + self.base
        self._fields[where] = self.ctx.addr_size
        r = self.reloc_at(offset) if self.ctx.is_relocatable else None
        if r is not None:
            addend = r.addend if r.addend is not None else _signed(value, self.ctx.addr_size)
            sym = r.symbol
            if sym is not None and sym.is_section:
                named = self.symbols_in_section(sym.shndx, addend)
                if named:                     # .text+0x40 -> the function defined there
                    return self._named(value, named, 0)
            name = self.symbol_name(sym, r, where)
            if name is None:
                return Address(value, None, addend, unknown=True)
            if sym is not None and not sym.is_section:
                self._check_defined(sym, where)
                if self.all_names and sym.type == 2:
                    return self._named(value, [name] + [n for n in self.symbols_in_section(sym.shndx, sym.value)
                                                        if n != name], addend)
            return Address(value, name, addend)
        if self.ctx.is_relocatable:
            if not required:
                return Address(value)
            raise DecodeError(self._missing(where), offset=where)
        if self.dynamic:
            d = self.dynamic_relocations(self.ctx.section).get(where)
            if d is not None:
                sym = d.symbol if d.sym else None
                at = ((sym.value if sym is not None and sym.shndx else 0)
                      + (d.addend if d.addend is not None else value)) & ((1 << (8 * self.ctx.addr_size)) - 1)
                names = self.functions_at(at) if at else []
                if not names and sym is not None and sym.name:
                    names = [sym.name]            # an undefined symbol the loader binds
                return Address(value, names[0] if names else None, 0,
                               aliases=names[1:] if self.all_names else [], resolved=at)
        if self.all_names:
            names = self.functions_at(value)
            return self._named(value, names, 0) if names else Address(value)
        name = self.function_at(value)
        return Address(value, name) if name else Address(value)

    def dynamic_relocations(self, section) -> dict:
        """Linked ELF file: section offset -> the dynamic relocation (``.rela.dyn``/``.rel.dyn``: a relocation
        section applying to no one section) that fills that place of ``section`` when the image is loaded.
        Position-independent images keep their addresses there (``R_*_RELATIVE`` addends), not in the section."""
        if self._dyn is None:
            self._dyn = {}
        key = section.index if section is not None else None
        got = self._dyn.get(key)
        if got is not None:
            return got
        out = {}
        obj = self.ctx.obj
        if section is not None and section.addr and self.ctx.format == "elf" and hasattr(obj, "read_relocations"):
            lo, hi = section.addr, section.addr + section.size
            for rs in obj.sections:
                if rs.type not in (4, 9) or rs.info or not rs.flags & 2:     # SHT_RELA/SHT_REL, allocated, sh_info 0
                    continue
                try:
                    rels = obj.read_relocations(rs)
                except ObjllvmError as exc:
                    self.ctx.warn(f"the dynamic relocations of [{rs.index}] {rs.name} cannot be read ({exc.message}): "
                                  f"addresses they fill are shown as stored", 0)
                    continue
                for r in rels:
                    if lo <= r.offset < hi:
                        out.setdefault(r.offset - lo, r)
        self._dyn[key] = out
        return out

    def _named(self, value, names, addend) -> Address:
        return Address(value, names[0], addend, aliases=names[1:] if self.all_names else [])

    def _missing(self, where: int) -> str:
        why = self.ctx.relocations_error
        if why is not None:
            return (f"the address field at {where:#x} has no relocation: the relocation section cannot be read "
                    f"({why.message})")
        if not self.ctx.relocations:
            return (f"the address field at {where:#x} has no relocation (no relocation section applies to the section): "
                    f"its stored value is a placeholder, not the address")
        return f"the address field at {where:#x} has no relocation: its stored value is a placeholder, not the address"

    def _check_defined(self, sym, where: int) -> None:
        """A relocation's symbol defined in a section that does not exist: named, with a warning (its address
        cannot be known)."""
        if self.ctx.format != "elf" or not 0 < sym.shndx < 0xFF00:
            return
        if _section_by_index(self.ctx.obj, sym.shndx) is None:
            self.ctx.warn(f"symbol {sym.name!r} is defined in section index {sym.shndx}, which does not exist",
                          where)

    def finish(self) -> None:
        """Report the relocations no address field used (ELF): one that starts inside a field or between
        fields, and a second one at the same field (the first is used)."""
        if self.ctx.format != "elf" or not self.ctx.is_relocatable:
            return
        fields = self._fields
        starts = sorted(fields)
        seen = set()
        for r in self.ctx.relocations or ():
            off = r.offset
            if off in fields:
                if off in seen:
                    self.ctx.warn(f"a second relocation at the address field at {off:#x}: only the first is used",
                                  off)
                seen.add(off)
                continue
            i = bisect.bisect_right(starts, off) - 1
            if i >= 0 and off < starts[i] + fields[starts[i]]:
                self.ctx.warn(f"invalid relocation offset {off:#x}: inside the address field at {starts[i]:#x}",
                              off)
            else:
                self.ctx.warn(f"invalid relocation offset {off:#x}: not at an address field", off)

    def symbol_in_section(self, shndx, offset: int) -> str | None:
        """The function or object symbol defined at ``offset`` of section ``shndx`` (relocatable object)."""
        names = self.symbols_in_section(shndx, offset)
        return names[0] if names else None

    def symbols_in_section(self, shndx, offset: int) -> list:
        """Every function or object symbol defined at ``offset`` of section ``shndx``, in table order."""
        if self._in_section is None:
            out = {}
            for s in self.ctx.symbols:
                if s.type in (1, 2) and s.name:
                    out.setdefault((s.shndx, s.value), []).append(s.name)
            self._in_section = out
        return self._in_section.get((shndx, offset), [])

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

    def containing(self, address: int):
        """Linked file: (name, offset from its start) of the function whose [value, value + size) holds
        ``address``; (None, None) when none does."""
        self.function_containing(address)
        i = bisect.bisect_right(self._funcs, (address, float("inf"), "")) - 1
        if i >= 0 and self._funcs[i][0] <= address < self._funcs[i][1]:
            return self._funcs[i][2], address - self._funcs[i][0]
        return None, None

    def function_at(self, address: int) -> str | None:
        names = self.functions_at(address)
        return names[0] if names else None

    def functions_at(self, address: int) -> list:
        """Linked file: every defined function or object symbol whose value is ``address``, in table order."""
        if self._by_value is None:
            out = {}
            for s in self.ctx.symbols:
                if s.type in (1, 2) and s.name and s.shndx:
                    out.setdefault(s.value, []).append(s.name)
            self._by_value = out
        return self._by_value.get(address, [])


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
