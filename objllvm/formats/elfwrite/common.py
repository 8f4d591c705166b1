"""What the ELF writer's modules share: the section header fields' positions, flag and type constants, the set of
removed sections or dropped symbols as one flag byte each (:class:`Flagged`), the section views the writer hands
out (:class:`WSection`), and :class:`Columns`: reading and writing one fixed-size field of every entry of a table in
the file's byte order."""
import struct
import sys
from itertools import compress

from ..elf import SHF_ALLOC, SHT_CREL, SHT_DYNSYM, SHT_GROUP, SHT_REL, SHT_RELA, SHT_SYMTAB, SHT_SYMTAB_SHNDX

SHF_INFO_LINK = 0x40
SHF_LINK_ORDER = 0x80
SHF_EXCLUDE = 0x80000000
STT_SECTION = 3
BATCH_BYTES = 1 << 22        # relocation sections renumbered a batch of about this many bytes at a time (memory)
MIN_ALIGN_CAP = 1 << 16      # sh_addralign up to this (or up to the input's size) is honoured when placing
# Runs of the input's bytes at least this long are named to the caller (``out_copies``: part index, input offset), to
# be copied by the kernel from the input file (sendfile) rather than through this process's map of it.
SEND_MIN = 1 << 16

REL_TYPES = frozenset((SHT_REL, SHT_RELA, SHT_CREL))
SYMTAB_TYPES = frozenset((SHT_SYMTAB, SHT_DYNSYM))
GROUP_TYPES = frozenset((SHT_GROUP,))
SHNDX_TYPES = frozenset((SHT_SYMTAB_SHNDX,))
# Sections whose symbol indices the writer renumbers itself; any other section that links to a symbol table and
# holds symbol indices needs a renumberer from the caller (ElfWriter.set_symbol_renumberer).
OWN_SYMBOL_USERS = frozenset((SHT_REL, SHT_RELA, SHT_CREL, SHT_GROUP, SHT_SYMTAB_SHNDX))
FLIP = bytes.maketrans(b"\0\1", b"\1\0")       # removed flags -> kept flags

# The fields of a section header tuple, in file order (ElfFile.headers).
FIELDS = ("name_off", "type", "flags", "addr", "offset", "size", "link", "info", "addralign", "entsize")
TYPE, FLAGS, OFFSET, SIZE, LINK, INFO, ALIGN = 1, 2, 4, 5, 6, 7, 8
# (byte offset, struct format code) of each field in an Elf64_Shdr; every Elf32_Shdr field is 32-bit, at 4 * k
FIELDS64 = ((0, "I"), (4, "I"), (8, "Q"), (16, "Q"), (24, "Q"), (32, "Q"), (40, "I"), (44, "I"), (48, "Q"),
            (56, "Q"))


def align_up(x: int, a: int) -> int:
    return x if a <= 1 else (x + a - 1) // a * a


def minus(ranges, cut) -> list:
    """The parts of ``ranges`` (sorted, disjoint [start, end) pairs) outside every range of ``cut`` (any order)."""
    out = []
    cut = sorted(c for c in cut if c[1] > c[0])
    k = 0
    for a, b in ranges:
        while k < len(cut) and cut[k][1] <= a:
            k += 1
        j = k
        while a < b and j < len(cut) and cut[j][0] < b:
            ca, cb = cut[j]
            if ca > a:
                out.append((a, ca))
            a = max(a, cb)
            j += 1
        if a < b:
            out.append((a, b))
    return out


class Flagged:
    """The indices flagged in ``flags`` (one byte each, 1 where flagged: the removed sections, the symbols a table
    loses) as a set; ``low``: the first (-1: none)."""
    __slots__ = ("flags", "low")

    def __init__(self, flags: bytes):
        self.flags = flags
        self.low = flags.find(1)

    def __bool__(self) -> bool:
        return self.low >= 0

    def __contains__(self, x) -> bool:
        return 0 <= x < len(self.flags) and self.flags[x] == 1

    def isdisjoint(self, values) -> bool:
        return not any(self.flags_of(values))

    def intersection(self, values) -> set:
        values = list(values)
        return set(compress(values, self.flags_of(values)))

    def flags_of(self, values) -> list:
        """1 (flagged) or 0 for each of ``values``."""
        flags = self.flags
        n = len(flags)
        values = values if isinstance(values, list) else list(values)
        if values and (min(values) < 0 or max(values) >= n):
            return [flags[v] if 0 <= v < n else 0 for v in values]
        return list(map(flags.__getitem__, values))


def _header_field(k: int):
    def get(self):
        return self._w.cols[k][self._i]

    def set(self, value):
        self._w._own_column(k)[self._i] = value
    return property(get, set, doc=f"sh_{FIELDS[k]}")


class WSection:
    """One section as the writer holds it: a view of the writer's header table (``orig`` is the index in the
    input, None for an added section), its new contents (``content``, None for the input's bytes) and whether
    it is ``removed``.  Made on demand: the writer itself keeps columns, not an object per section."""
    __slots__ = ("_w", "_i")

    def __init__(self, writer, index: int):
        self._w = writer
        self._i = index

    name_off, type, flags, addr, offset, size, link, info, addralign, entsize = map(_header_field, range(10))

    @property
    def orig(self) -> int | None:
        return self._i if self._i < self._w._n_orig else None

    @property
    def name(self) -> str:
        return self._w.name(self._i)

    @property
    def content(self) -> bytes | None:
        return self._w._content.get(self._i)

    @content.setter
    def content(self, value) -> None:
        if value is None:
            self._w._content.pop(self._i, None)
        else:
            self._w._content[self._i] = value

    @property
    def removed(self) -> bool:
        return bool(self._w._removed[self._i])

    @removed.setter
    def removed(self, value) -> None:
        self._w._removed[self._i] = 1 if value else 0

    @property
    def alloc(self) -> bool:
        return bool(self.flags & SHF_ALLOC)

    def __repr__(self):
        return f"<WSection [{self._i}] {self.name} removed={self.removed}>"


class Sections:
    """``ElfWriter.sections``: the sections as a sequence of :class:`WSection` views."""
    __slots__ = ("_w",)

    def __init__(self, writer):
        self._w = writer

    def __len__(self):
        return len(self._w._removed)

    def __getitem__(self, i):
        n = len(self._w._removed)
        if isinstance(i, slice):
            return [WSection(self._w, k) for k in range(*i.indices(n))]
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("section index out of range")
        return WSection(self._w, i)

    def __iter__(self):
        w = self._w
        return (WSection(w, k) for k in range(len(w._removed)))


class Columns:
    """Fixed-size fields of tables (symbol tables, relocations, group member lists) read and written in the file's
    byte order, a whole column at a time.  Mixed into the writer: needs ``self.elf``.  ``code`` is a struct format
    code: H (16-bit), I (32-bit) or Q (64-bit)."""

    def _native(self) -> bool:
        """Whether the file's byte order is this machine's."""
        return (self.elf.endian == "<") == (sys.byteorder == "little")

    def _words_of(self, code: str, raw) -> list:
        """The ``code`` words of ``raw`` (a whole number of them), read in the file's byte order."""
        if self._native():
            return memoryview(raw).cast(code).tolist()
        return list(struct.unpack(f"{self.elf.endian}{len(raw) // struct.calcsize(code)}{code}", raw))

    def _column_of(self, raw, code: str, start: int, step: int) -> list:
        """Every ``step``-th ``code`` word of ``raw`` (a whole number of words) from word ``start``: one field of
        every entry of a table."""
        if self._native():
            return memoryview(raw).cast(code)[start::step].tolist()
        return self._words_of(code, raw)[start::step]

    def _packed(self, code: str, values) -> bytes:
        """``values`` as ``code`` words in the file's byte order (struct.error where one does not fit)."""
        return struct.pack(f"{self.elf.endian}{len(values)}{code}", *values)

    def _store_words(self, out, code: str, start: int, step: int, values) -> None:
        """Set every ``step``-th ``code`` word of the writable buffer ``out`` from word ``start`` on, one per value of
        ``values``: one strided store of words packed in the file's byte order."""
        mv = memoryview(out).cast(code)
        mv[start:start + len(values) * step:step] = memoryview(self._packed(code, values)).cast(code)
        mv.release()

    def _field(self, table, entsize: int, pos: int, code: str) -> list:
        """The ``code`` field at byte ``pos`` of every ``entsize``-byte entry of ``table`` (a whole number of
        entries; ``pos`` and ``entsize`` multiples of the field's size)."""
        step = struct.calcsize(code)
        return self._column_of(table, code, pos // step, entsize // step)

    def _with_field(self, data, entsize: int, pos: int, code: str, column: list) -> bytes:
        """``data`` (a table of ``entsize``-byte entries, perhaps with a few bytes after them) with the ``code``
        field at ``pos`` of each of its first ``len(column)`` entries set from ``column``."""
        out = bytearray(data)
        step = struct.calcsize(code)
        self._store_words(memoryview(out)[:len(column) * entsize], code, pos // step, entsize // step, column)
        return bytes(out)
