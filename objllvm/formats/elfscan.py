"""Which sections of an ELF object have given types or names, from its section header table and section name
table alone: no ElfFile, no Section, no Python object per section.

``section_indices(buf, start, size, types, names)`` looks at the object at ``buf[start:start + size]`` (``buf``:
the bytes or memory map of the whole file, so that an archive member costs no copy) and returns the indices of
its sections whose ``sh_type`` is one of ``types`` or whose name is one of ``names``.  It returns None for any
header it does not read plainly (bad magic, class or encoding, a section header table or name table out of
bounds, extended section numbering, a name table without a final NUL): the caller then reads the object with
:class:`~objllvm.formats.elf.ElfFile`, which names what is wrong.  Only the ELF header, the section header
table and the name table are read; what the other sections hold, and where, is not looked at.
"""
from __future__ import annotations

import re
import struct

from .elf import ELF_MAGIC

SHN_XINDEX = 0xFFFF
# (class, encoding) -> the header after e_ident, and the section header's size
_EHDR = {(c, d): struct.Struct(("<" if d == 1 else ">") + ("HHIQQQIHHHHHH" if c == 2 else "HHIIIIIHHHHHH"))
         for c in (1, 2) for d in (1, 2)}
_SHDR = {(c, d): struct.Struct(("<" if d == 1 else ">") + ("IIQQQQIIQQ" if c == 2 else "IIIIIIIIII"))
         for c in (1, 2) for d in (1, 2)}
_NAME_PATTERNS: dict = {}


def section_indices(buf, start: int, size: int, types, names) -> list | None:
    """The sorted indices of the sections of the ELF object at ``buf[start:start + size]`` whose type is in
    ``types`` (integers) or whose name is in ``names`` (strings); None when its headers are not plain (see the
    module's docstring).  ``buf`` has ``find`` (bytes, mmap)."""
    if size < 16 or buf[start:start + 4] != ELF_MAGIC:
        return None
    key = (buf[start + 4], buf[start + 5])
    eh = _EHDR.get(key)
    if eh is None or size < 16 + eh.size:
        return None
    (_t, _m, _v, _e, _ph, shoff, _f, _eh, _pe, _pn, shentsize, shnum, shstrndx) = eh.unpack_from(buf, start + 16)
    if shoff == 0:
        return []                                   # no section header table: no sections
    sh = _SHDR[key]
    row = sh.size
    if shentsize != row or shnum == 0 or shstrndx == SHN_XINDEX or shstrndx >= shnum \
            or shoff + shnum * row > size:
        return None
    table = start + shoff
    end = table + shnum * row
    little = key[1] == 1
    found = _typed(buf, table, end, row, types, little)
    if shstrndx and names:
        hdr = sh.unpack_from(buf, table + shstrndx * row)
        noff, nsize = hdr[4], hdr[5]
        if noff + nsize > size or (nsize and buf[start + noff + nsize - 1] != 0):
            return None
        offsets = _name_offsets(buf, start + noff, nsize, names)
        if offsets:
            found.update(_named(buf, table, end, row, offsets, little))
    return sorted(found)


def _typed(buf, table: int, end: int, row: int, types, little: bool) -> set:
    """Indices of the sections whose sh_type is in ``types``: the byte of bits 8-15 of every sh_type, one per
    section, copied out of the table in one strided slice and searched; each hit's whole type compared."""
    order = "little" if little else "big"
    wanted = {t.to_bytes(4, order) for t in types if 0 <= t < 1 << 32}
    if not wanted:
        return set()
    at = 5 if little else 6                         # sh_type is the header's second word
    column = bytes(memoryview(buf)[table + at:end:row])
    out = set()
    for probe in {w[1 if little else 2] for w in wanted}:
        i = column.find(probe)
        while i >= 0:
            p = table + i * row + 4
            if buf[p:p + 4] in wanted:
                out.add(i)
            i = column.find(probe, i + 1)
    return out


def _name_offsets(buf, base: int, size: int, names) -> set:
    """The offsets in the name table (at ``base``, ``size`` bytes) at which one of ``names`` starts and runs to
    a NUL: one regular-expression pass over the table finds the NULs that end one of them (a name may end a
    longer string: tables share tails), each hit then compared name by name."""
    pattern, encoded = _name_pattern(names)
    out = set()
    end = base + size
    m = pattern.search(buf, base, end)
    while m is not None:
        p = m.start()
        for b in encoded:
            q = p - len(b)
            if q >= base and buf[q:p] == b:
                out.add(q - base)
        m = pattern.search(buf, p + 1, end)
    return out


def _name_pattern(names) -> tuple:
    """(a pattern matching a NUL that ends one of ``names``, the names encoded): compiled once per set.  The
    NUL is found by its literal byte, then the byte before it is checked against the names' last bytes before
    each name of that length is tried (lookbehinds of one width each)."""
    key = frozenset(names)
    got = _NAME_PATTERNS.get(key)
    if got is None:
        encoded = sorted({n.encode("utf-8", "surrogateescape") for n in key} - {b""})
        encoded = [b for b in encoded if b"\0" not in b]
        by_len: dict = {}
        for b in encoded:
            by_len.setdefault(len(b), []).append(re.escape(b + b"\0"))
        behind = b"|".join(b"(?<=" + b"|".join(v) + b")" for _, v in sorted(by_len.items()))
        last = re.escape(bytes(sorted({b[-1] for b in encoded})))
        text = b"\0(?<=[" + last + b"]\0)(?:" + behind + b")" if encoded else b"(?!)"
        got = _NAME_PATTERNS[key] = (re.compile(text), encoded)
    return got


def _named(buf, table: int, end: int, row: int, offsets, little: bool) -> set:
    """Indices of the sections whose sh_name (the header's first word) is one of ``offsets``: each offset's
    bytes searched for in the table, a hit counted where it starts a header."""
    order = "little" if little else "big"
    out = set()
    for off in offsets:
        if off >= 1 << 32:
            continue
        pat = off.to_bytes(4, order)
        i = buf.find(pat, table, end)
        while i >= 0:
            if (i - table) % row == 0:
                out.add((i - table) // row)
            i = buf.find(pat, i + 1, end)
    return out
