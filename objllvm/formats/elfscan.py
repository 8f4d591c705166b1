"""Which sections of an ELF object have given types or names, from its section header table and section name
table alone: no ElfFile, no Section, no Python object per section.

``section_indices(fetch, size, Wanted(types, names))`` returns the indices of the sections of an object of
``size`` bytes whose ``sh_type`` is one of ``types`` or whose name is one of ``names``; ``fetch`` gives it the
pieces it reads (``in_memory(buf, start)``: from bytes or a memory map; ``FileReader(f).fetch_at(pos)``: from a
file by pread).  It returns None for any
header it does not read plainly (bad magic, class or encoding, a section header table or name table out of
bounds, extended section numbering, a name table without a final NUL): the caller then reads the object with
:class:`~objllvm.formats.elf.ElfFile`, which names what is wrong.  Only the ELF header, the section header
table and the name table are read; what the other sections hold, and where, is not looked at.
"""
from __future__ import annotations

import os
import re
import struct

from .elf import ELF_MAGIC

SHN_XINDEX = 0xFFFF
# (class, encoding) -> the header after e_ident, and the section header's size
_EHDR = {(c, d): struct.Struct(("<" if d == 1 else ">") + ("HHIQQQIHHHHHH" if c == 2 else "HHIIIIIHHHHHH"))
         for c in (1, 2) for d in (1, 2)}
_SHDR = {(c, d): struct.Struct(("<" if d == 1 else ">") + ("IIQQQQIIQQ" if c == 2 else "IIIIIIIIII"))
         for c in (1, 2) for d in (1, 2)}
HEAD = 64                   # bytes of an object's start that hold its ELF header (either class)
MAPPED_ABOVE = 4 << 20      # FileReader: a table larger than this is read from a memory map, not copied


def in_memory(buf, start: int = 0):
    """A ``fetch`` for section_indices over ``buf`` (bytes or mmap) holding the object at ``start``."""
    return lambda off, n: (buf, start + off)


class FileReader:
    """Pieces of an open file by position, without mapping it: ``read(pos, n)`` is one pread; ``fetch_at(base)``
    is a fetch for section_indices of the object at ``base`` (a pread per table, or a memory map of the file
    for a table over MAPPED_ABOVE bytes, so that what is held stays small).  A pread is a fraction of the cost
    of the page fault that reading a mapped file's header takes (the audit of /usr/lib/llvm-22/lib,
    scripts/bench-audit).  Positions and lengths are the caller's to bound by the file's size."""

    def __init__(self, f):
        self.fd = f.fileno()
        self._map = None

    def read(self, pos: int, n: int) -> bytes:
        return os.pread(self.fd, n, pos)

    def fetch_at(self, base: int):
        def fetch(off, n):
            if n <= MAPPED_ABOVE:
                return os.pread(self.fd, n, base + off), 0
            if self._map is None:
                import mmap
                self._map = mmap.mmap(self.fd, 0, access=mmap.ACCESS_READ)
            return self._map, base + off
        return fetch


class Wanted:
    """The section types and names section_indices looks for, prepared once."""

    def __init__(self, types, names):
        self.types = {order: {t.to_bytes(4, order) for t in types if 0 <= t < 1 << 32} for order in ("little", "big")}
        self.probes = {order: {w[1 if order == "little" else 2] for w in ws} for order, ws in self.types.items()}
        self.pattern, self.names = _name_pattern(names)


def section_indices(fetch, size: int, wanted: Wanted, head: bytes | None = None) -> list | None:
    """The sorted indices of the sections of an ELF object of ``size`` bytes whose type or name is one
    ``wanted``; None when its headers are not plain (see the module's docstring).  ``fetch(off, n)`` gives
    ``(buf, at)``: the object's bytes ``off .. off + n`` are ``buf[at:at + n]`` (``buf``: bytes or mmap; see
    in_memory, FileReader); ``head``: the object's first HEAD bytes when the caller has them."""
    if head is None:
        buf, at = fetch(0, min(size, HEAD))
        head = buf[at:at + HEAD]
    if size < 16 or head[:4] != ELF_MAGIC:
        return None
    key = (head[4], head[5])
    eh = _EHDR.get(key)
    if eh is None or size < 16 + eh.size or len(head) < 16 + eh.size:
        return None
    (_t, _m, _v, _e, _ph, shoff, _f, _eh, _pe, _pn, shentsize, shnum, shstrndx) = eh.unpack_from(head, 16)
    if shoff == 0:
        return []                                   # no section header table: no sections
    sh = _SHDR[key]
    row = sh.size
    if shentsize != row or shnum == 0 or shstrndx == SHN_XINDEX or shstrndx >= shnum \
            or shoff + shnum * row > size:
        return None
    buf, table = fetch(shoff, shnum * row)
    end = table + shnum * row
    if len(buf) < end:
        return None                                 # (the file is shorter than when it was measured)
    order = "little" if key[1] == 1 else "big"
    found = _typed(buf, table, end, row, wanted, order)
    if shstrndx and wanted.names:
        hdr = sh.unpack_from(buf, table + shstrndx * row)
        noff, nsize = hdr[4], hdr[5]
        if noff + nsize > size:
            return None
        nbuf, nat = fetch(noff, nsize)
        if len(nbuf) < nat + nsize or (nsize and nbuf[nat + nsize - 1] != 0):
            return None
        offsets = _name_offsets(nbuf, nat, nsize, wanted)
        if offsets:
            found.update(_named(buf, table, end, row, offsets, order))
    return sorted(found)


def _typed(buf, table: int, end: int, row: int, wanted: Wanted, order: str) -> set:
    """Indices of the sections whose sh_type is wanted: the byte of bits 8-15 of every sh_type, one per section,
    copied out of the table in one strided slice and searched; each hit's whole type compared."""
    types = wanted.types[order]
    if not types:
        return set()
    at = 5 if order == "little" else 6              # sh_type is the header's second word
    with memoryview(buf) as view:
        column = bytes(view[table + at:end:row])
    out = set()
    for probe in wanted.probes[order]:
        i = column.find(probe)
        while i >= 0:
            p = table + i * row + 4
            if buf[p:p + 4] in types:
                out.add(i)
            i = column.find(probe, i + 1)
    return out


def _name_offsets(buf, base: int, size: int, wanted: Wanted) -> set:
    """The offsets in the name table (at ``base``, ``size`` bytes) at which one of ``names`` starts and runs to
    a NUL: one regular-expression pass over the table finds the NULs that end one of them (a name may end a
    longer string: tables share tails), each hit then compared name by name."""
    pattern, encoded = wanted.pattern, wanted.names
    out = set()
    if pattern is None:
        return out
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
    """(a pattern matching a NUL that ends one of ``names``, the names encoded).  The NUL is found by its literal
    byte, then the byte before it is checked against the names' last bytes before each name of that length is
    tried (lookbehinds of one width each)."""
    encoded = sorted({n.encode("utf-8", "surrogateescape") for n in names} - {b""})
    encoded = [b for b in encoded if b"\0" not in b]
    if not encoded:
        return None, []
    by_len: dict = {}
    for b in encoded:
        by_len.setdefault(len(b), []).append(re.escape(b + b"\0"))
    behind = b"|".join(b"(?<=" + b"|".join(v) + b")" for _, v in sorted(by_len.items()))
    last = re.escape(bytes(sorted({b[-1] for b in encoded})))
    return re.compile(b"\0(?<=[" + last + b"]\0)(?:" + behind + b")"), encoded


def _named(buf, table: int, end: int, row: int, offsets, order: str) -> set:
    """Indices of the sections whose sh_name (the header's first word) is one of ``offsets``: each offset's
    bytes searched for in the table, a hit counted where it starts a header."""
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
