"""Address -> basic block lookups over the basic-block address maps of one file.

    >>> from objllvm.bbindex import BBIndex
    >>> index = BBIndex.from_path("testdata/bb-addr-map/clang19-labels.exe")
    >>> fn, block = index.lookup(0x1620)
    >>> fn.name, block.id, hex(block.address), block.size

``BBIndex.from_object(obj)`` / ``from_path(path)`` decode every SHT_LLVM_BB_ADDR_MAP(_V0) section of a
linked file or an object.  ``functions`` is sorted by address.  ``lookup(address)`` finds the block
holding ``address`` by bisection (the index is built once); ``function_at(address)`` the function
whose address ranges hold it (alignment padding between blocks included).

In relocatable objects every text section starts at 0, so addresses repeat: ``functions`` is
sorted by (text section index, address), and ``lookup`` and ``function_at`` take ``section=`` (the
index of the text section, ``FunctionMap.section_index``); without it the first match in section
order is returned.

A decoding error raises the located :class:`~objllvm.errors.DecodeError` by default; with
``strict=False`` the functions decoded before it are kept and the error is in ``index.errors``.
An object with no map gives an index with no functions.
"""
from __future__ import annotations

from bisect import bisect_right
from operator import add

from ..bb_addr_map import OMIT_BB_ENTRIES, TYPE_NAMES


class _Table:
    """Sorted, non-empty [start, end) intervals with a payload each; bisect lookups."""
    __slots__ = ("starts", "ends", "items")

    def __init__(self, entries):
        entries.sort(key=lambda e: (e[0], e[1]))
        self.starts = [e[0] for e in entries]
        self.ends = [e[1] for e in entries]
        self.items = [e[2] for e in entries]

    @classmethod
    def from_columns(cls, starts, ends, items):
        t = cls.__new__(cls)
        if any(a > b for a, b in zip(starts, starts[1:])):      # usually sorted already
            order = sorted(range(len(starts)), key=lambda i: (starts[i], ends[i]))
            starts = [starts[i] for i in order]
            ends = [ends[i] for i in order]
            items = [items[i] for i in order]
        t.starts, t.ends, t.items = starts, ends, items
        return t

    def find(self, address):
        i = bisect_right(self.starts, address) - 1
        # Intervals never overlap in a valid map; step back over a zero-length neighbour anyway.
        while i >= 0:
            if address < self.ends[i]:
                return self.items[i]
            if i == 0 or self.ends[i - 1] <= self.starts[i]:
                return None
            i -= 1
        return None


class BBIndex:
    def __init__(self, functions=(), errors=(), relocatable=False):
        self.functions = sorted(functions, key=lambda f: (f.section_index or 0, f.address))
        if not relocatable:
            self.functions.sort(key=lambda f: f.address)
        self.errors = list(errors)
        self.relocatable = relocatable
        self._blocks = None     # section key -> _Table of (function, range, block index)
        self._ranges = None     # section key -> _Table of function

    # -- construction --------------------------------------------------------------------------
    @classmethod
    def from_object(cls, obj, *, strict: bool = True, options=None) -> "BBIndex":
        from .. import registry
        codec = registry.get("bb-addr-map")
        functions, errors = [], []
        for s in obj.sections:
            # ELF: by type; COFF (x86 objects of LLVM 23): by name
            if obj.format == "elf":
                if s.type not in TYPE_NAMES:
                    continue
            elif obj.format != "coff" or s.name != ".llvm_bb_addr_map":
                continue
            d = registry.decode_section(obj, s, options)
            if d.error is not None:
                if strict:
                    raise d.error
                errors.append(d.error)
            if d.model is not None and d.codec is codec:
                functions.extend(d.model.functions)
        return cls(functions, errors, bool(obj.is_relocatable))

    @classmethod
    def from_path(cls, path: str, *, strict: bool = True, options=None) -> "BBIndex":
        """The index of the one object in ``path`` (an archive is an error: open its members)."""
        from ...formats import open_object
        return cls.from_object(open_object(str(path)), strict=strict, options=options)

    # -- lookups -------------------------------------------------------------------------------
    def _key(self, f):
        return f.section_index if self.relocatable else None

    def _build(self):
        blocks, ranges = {}, {}
        for f in self.functions:
            key = self._key(f)
            bl = blocks.get(key)
            if bl is None:
                bl = blocks[key] = ([], [], [])
                ranges[key] = []
            rl = ranges[key]
            if f.feature & OMIT_BB_ENTRIES:
                continue
            bstarts, bends, bitems = bl
            for r in f.ranges:
                base = r.base_address
                if r._blocks is None:            # columns: no Block objects until a hit
                    offs, sizes = r._cols[1], r._cols[2]
                else:
                    offs = [b.address - base for b in r._blocks]
                    sizes = [b.size for b in r._blocks]
                if not sizes:
                    continue
                starts = [base + o for o in offs]
                ends = list(map(add, starts, sizes))
                lo, hi = min(starts), max(ends)
                if hi > lo:
                    rl.append((lo, hi, f))
                if 0 in sizes:                   # zero-size blocks hold no address
                    keep = [i for i, s in enumerate(sizes) if s]
                    starts = [starts[i] for i in keep]
                    ends = [ends[i] for i in keep]
                    idx = keep
                else:
                    idx = range(len(sizes))
                bstarts += starts
                bends += ends
                bitems += [(f, r, i) for i in idx]
        self._blocks = {k: _Table.from_columns(*v) for k, v in blocks.items()}
        self._ranges = {k: _Table(v) for k, v in ranges.items()}

    def _tables(self, which, section):
        if self._blocks is None:
            self._build()
        tables = self._blocks if which == "blocks" else self._ranges
        if not self.relocatable:
            t = tables.get(None)
            return [t] if t is not None else []
        if section is not None:
            t = tables.get(section)
            return [t] if t is not None else []
        return [tables[k] for k in sorted(tables, key=lambda k: -1 if k is None else k)]

    def lookup(self, address: int, section: int | None = None):
        """``(FunctionMap, Block)`` of the block holding ``address``, or None."""
        for t in self._tables("blocks", section):
            hit = t.find(address)
            if hit is not None:
                f, r, i = hit
                return f, r.blocks[i]
        return None

    def function_at(self, address: int, section: int | None = None):
        """The FunctionMap whose ranges (first block start to last block end) hold ``address``."""
        for t in self._tables("ranges", section):
            hit = t.find(address)
            if hit is not None:
                return hit
        return None

    def __len__(self):
        return len(self.functions)

    def __repr__(self):
        return f"BBIndex({len(self.functions)} functions" + (f", {len(self.errors)} errors" if self.errors else "") + ")"


__all__ = ["BBIndex"]
