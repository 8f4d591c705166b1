"""Which sections of an ELF object have given types or names, from its section header table and section name
table alone: no ElfFile, no Section, no Python object per section.

``section_indices(src, base, size, Wanted(types, names))`` returns the indices of the sections of the object of
``size`` bytes at ``base`` in ``src`` whose ``sh_type`` is one of ``types`` or whose name is one of ``names``.
``src`` gives the pieces read: ``InMemory(buf)`` (bytes or a memory map) or ``FileReader(f)`` (an open file,
by pread).  It returns None for any header it does not read plainly (bad magic, class or encoding, a section
header table or name table out of bounds, extended section numbering, a name table without a final NUL): the
caller then reads the object with :class:`~objllvm.formats.elf.ElfFile`, which names what is wrong.  Only the
ELF header, the section header table and the name table are read; what the other sections hold, and where, is
not looked at.
"""
from __future__ import annotations

import os
import re
import struct

from .elf import ELF_MAGIC

SHN_XINDEX = 0xFFFF
HEAD = 64                   # bytes of an object's start that hold its ELF header (either class)
MAPPED_ABOVE = 4 << 20      # FileReader: a table larger than this is read from a memory map, not copied


class InMemory:
    """The pieces of ``buf`` (bytes or mmap): ``piece(pos, n)`` is ``(buf, pos)``, no copy."""

    def __init__(self, buf):
        self.buf = buf

    def piece(self, pos: int, n: int, before: int = 0, after: int = 0) -> tuple:
        return self.buf, pos


class FileReader:
    """Pieces of an open file by position, without mapping it: ``read(pos, n)`` (bytes) and ``piece(pos, n)``
    (``(buf, at)``: the bytes are ``buf[at:at + n]``) take one pread, or nothing when the last piece read holds
    them: ``piece`` reads ``before`` and ``after`` more bytes around what it is asked for, in the same pread (a
    section name table before the section header table, the next archive member's header after it).  A piece
    over MAPPED_ABOVE bytes is taken from a memory map of the file, so that what is held stays small.  A pread
    costs a fraction of the page fault that reading a header from a mapped file takes, and the bytes around
    save a pread each (the audit of /usr/lib/llvm-22/lib, scripts/bench-audit).  Positions and lengths are the
    caller's to bound by the file's size."""

    def __init__(self, f):
        self.fd = f.fileno()
        self._map = None
        self._last = b""
        self._at = 0

    def read(self, pos: int, n: int) -> bytes:
        k = pos - self._at
        if k >= 0 and k + n <= len(self._last):
            return self._last[k:k + n]
        return os.pread(self.fd, n, pos)

    def piece(self, pos: int, n: int, before: int = 0, after: int = 0) -> tuple:
        k = pos - self._at
        if k >= 0 and k + n <= len(self._last):
            return self._last, k
        if n > MAPPED_ABOVE:
            if self._map is None:
                import mmap
                self._map = mmap.mmap(self.fd, 0, access=mmap.ACCESS_READ)
            return self._map, pos
        lo = max(0, pos - before)
        self._last, self._at = os.pread(self.fd, pos - lo + n + after, lo), lo
        return self._last, pos - lo


class Wanted:
    """The section types and names section_indices looks for, prepared once: per ELF identification (the magic,
    EI_CLASS and EI_DATA: an object's first six bytes), where its header keeps the section header table's
    position and shape, the header row's size, where a row keeps its section's offset and size, the byte order,
    the wanted types as they are stored, and the stored byte of bits 8-15 of each, with its place in a row."""

    def __init__(self, types, names):
        self.layouts = {}
        for cls, (table_fields, row, section_fields) in ((1, ("<16xI10xHHH", 40, "<16xII")),
                                                         (2, ("<24xQ10xHHH", 64, "<24xQQ"))):
            for enc in (1, 2):
                e, order = ("<", "little") if enc == 1 else (">", "big")
                stored = frozenset(t.to_bytes(4, order) for t in types if 0 <= t < 1 << 32)
                self.layouts[ELF_MAGIC + bytes((cls, enc))] = (
                    struct.Struct(e + table_fields[1:]), row, struct.Struct(e + section_fields[1:]),
                    order, stored, sorted({w[1 if enc == 1 else 2] for w in stored}), 5 if enc == 1 else 6)
        self.pattern, self.names = _name_pattern(names)


NAME_BYTES = 48             # a guess of the section name table's bytes per section (most objects have fewer)
AHEAD_AT_MOST = 4096        # the bytes between the section header table and what follows the object read with it
SUFFIX_CLASSES = 7          # the name pass: how many of the bytes before a NUL are checked by class first


def section_indices(src, base: int, size: int, wanted: Wanted, head: bytes | None = None,
                    after: int = 0) -> list | None:
    """The sorted indices of the sections of the ELF object of ``size`` bytes at ``base`` in ``src`` whose
    type or name is ``wanted``; None when its headers are not plain (see the module's docstring).  ``head``:
    the object's first HEAD bytes, when the caller has them; ``after``: the bytes after the object the caller
    reads next (a FileReader reads them with the section header table when that ends the object)."""
    if head is None:
        buf, at = src.piece(base, min(size, HEAD))
        head = buf[at:at + HEAD]
    layout = wanted.layouts.get(head[:6])
    if layout is None:
        return None                                 # not ELF, or a class or data encoding ELF does not define
    table_fields, row, section_fields, order, types, probes, type_byte = layout
    if size < 16 + table_fields.size or len(head) < 16 + table_fields.size:
        return None
    shoff, shentsize, shnum, shstrndx = table_fields.unpack_from(head, 16)
    if shoff == 0:
        return []                                   # no section header table: no sections
    length = shnum * row
    if shentsize != row or shnum == 0 or shstrndx == SHN_XINDEX or shstrndx >= shnum or shoff + length > size:
        return None
    tail = size - shoff - length + after
    buf, table = src.piece(base + shoff, length, min(shoff, NAME_BYTES * shnum),
                           tail if tail <= AHEAD_AT_MOST else 0)
    end = table + length
    if len(buf) < end:
        return None                                 # (fewer bytes than the file size promised: it changed while read)
    found = []
    if probes:
        column = buf[table + type_byte:end:row]
        for probe in probes:
            i = column.find(probe)
            while i >= 0:
                p = table + i * row + 4
                if buf[p:p + 4] in types:
                    found.append(i)
                i = column.find(probe, i + 1)
    if shstrndx and wanted.pattern is not None:
        noff, nsize = section_fields.unpack_from(buf, table + shstrndx * row)
        if noff + nsize > size:
            return None
        nbuf, nat = src.piece(base + noff, nsize)
        if len(nbuf) < nat + nsize or (nsize and nbuf[nat + nsize - 1] != 0):
            return None
        m = wanted.pattern.search(nbuf, nat, nat + nsize)
        if m is not None:
            found += _named(buf, table, end, row, _name_offsets(nbuf, nat, nsize, wanted, m), order)
    return sorted(set(found)) if found else found


def _name_offsets(buf, start: int, size: int, wanted: Wanted, m) -> set:
    """The offsets in the name table (``buf[start:start + size]``) at which a wanted name starts and runs to a
    NUL: one regular-expression pass over the table finds the NULs that end one (a name may end a longer
    string: tables share tails), each hit then compared name by name; ``m`` is the pass's first hit."""
    pattern = wanted.pattern
    out = set()
    end = start + size
    while m is not None:
        p = m.start()
        for b in wanted.names:
            q = p - len(b)
            if q >= start and buf[q:p] == b:
                out.add(q - start)
        m = pattern.search(buf, p + 1, end)
    return out


def _name_pattern(names) -> tuple:
    """(a pattern matching a NUL that ends one of ``names``, the names encoded).  The NUL is found by its literal
    byte; the bytes before it are first checked position by position against the bytes the names end with (over
    the last SUFFIX_CLASSES bytes, or the shortest name's length), and only then is each name of each length tried
    (lookbehinds of one width each): the first check rejects nearly every NUL of a section name table at once.
    (The check is kept for scripts/bench-audit: without it each name is tried at every NUL of the tables.)"""
    encoded = sorted({n.encode("utf-8", "surrogateescape") for n in names} - {b""})
    encoded = [b for b in encoded if b"\0" not in b]
    if not encoded:
        return None, []
    by_len: dict = {}
    for b in encoded:
        by_len.setdefault(len(b), []).append(re.escape(b + b"\0"))
    behind = b"|".join(b"(?<=" + b"|".join(v) + b")" for _, v in sorted(by_len.items()))
    width = min(SUFFIX_CLASSES, *map(len, encoded))
    ends = b"".join(b"[" + re.escape(bytes(sorted({b[-i] for b in encoded}))) + b"]" for i in range(width, 0, -1))
    return re.compile(b"\0(?<=" + ends + b"\0)(?:" + behind + b")"), encoded


def _named(buf, table: int, end: int, row: int, offsets, order: str) -> list:
    """Indices of the sections whose sh_name (the header's first word) is one of ``offsets``: each offset's
    bytes searched for in the table, a hit counted where it starts a header."""
    out = []
    for off in offsets:
        if off >= 1 << 32:
            continue
        pat = off.to_bytes(4, order)
        i = buf.find(pat, table, end)
        while i >= 0:
            if (i - table) % row == 0:
                out.append((i - table) // row)
            i = buf.find(pat, i + 1, end)
    return out
