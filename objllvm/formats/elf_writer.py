"""A small ELF writer: remove, resize, replace or add non-allocated sections without moving anything loadable.

It works on ET_REL, ET_EXEC and ET_DYN files, 32/64-bit, both byte orders::

    w = ElfWriter(ElfFile(data, path))
    w.remove(w.index_of(".llvm_addrsig"))        # also drops the relocation sections that target it
    w.set_content(w.index_of(".deplibs"), b"m\\0")
    out = w.write()                              # bytes of the new file (the input is not touched)

What ``write`` keeps consistent when sections disappear or indices shift: section header indices,
``sh_link``/``sh_info``, ``st_shndx`` of every symbol in every symbol table (through SHT_SYMTAB_SHNDX when
extended), SHT_GROUP member lists (a removed member leaves its group; a group left empty goes too),
``e_shstrndx`` and extended numbering (``e_shnum``/``e_shstrndx`` in section 0).

Layout: the ELF header, the program headers, every segment's bytes, every allocated section and every section
that overlaps any of these (as a whole: a PT_GNU_RELRO range may end inside .symtab) stay at their file offsets
(files with program headers), and so do the bytes there that no header describes (padding, bytes between
sections), wherever the output puts nothing else.  Relocatable objects have no segments: their sections are
packed in their original file order, each at its alignment.  Other sections keep their original order and
the padding that preceded them; where nothing changed before a section, it keeps its exact offset, so a
rewrite with no change is byte-identical.  Sections that are not touched (SHF_COMPRESSED ones too) are
copied as they are.

Symbols defined in removed sections: section symbols become null local symbols (no index moves) and leave
``.llvm_addrsig``.  When another symbol is defined there (``__covrec_*`` in ``__llvm_covfun``), a relocatable
object loses all the symbols of the removed sections, as with llvm-objcopy: the table is renumbered (locals
first, sh_info the first global) with every index into it -- REL/RELA relocations, SHT_SYMTAB_SHNDX, group
signatures, ``.llvm_addrsig`` and the LLVM <= 12 call-graph profile.

Refused with an :class:`~objllvm.errors.ObjllvmError`: changing the size of an allocated section or of a
section inside a segment, removing a section that a kept section links to, that defines a (non-section)
symbol a kept relocation, group signature or call-graph edge uses (or that defines one at all, outside
relocatable objects, or with SHT_CREL relocations on the table), or whose section symbol a kept relocation
uses; removing the section name table or a symbol table that something uses.

Hostile input: the writer never allocates by an untrusted size.  The program header table and every segment
must lie inside the input file; a section placed at a new offset must have an sh_addralign of 0, 1 or a
power of two no larger than the input (or 64 KiB); an empty or SHT_NOBITS section whose sh_offset is past the
end keeps it and moves nothing else there; and the output may not pass twice the input's size plus the new
contents, alignment padding and a section header table (overlapping sections would be copied once each).
Each is refused with an ObjllvmError naming the section (or program header) and the offset.
"""
import _struct as struct  # (struct.py only re-exports it: one module fewer to import)
import sys
from itertools import accumulate, compress, repeat
from _operator import add, and_, eq, gt, itemgetter, lshift, mod, mul, ne, not_, or_, rshift, sub

from .elf import (SHF_ALLOC, SHF_COMPRESSED, SHN_LORESERVE, SHN_XINDEX, SHT_CREL, SHT_DYNSYM,
                             SHT_GROUP, SHT_NOBITS, SHT_REL, SHT_RELA, SHT_SYMTAB, SHT_SYMTAB_SHNDX, ElfFile)
from ..binary import ULEBError, read_uleb, uleb_encode
from ..errors import ObjllvmError

SHF_INFO_LINK = 0x40
SHF_LINK_ORDER = 0x80
SHF_EXCLUDE = 0x80000000
STT_SECTION = 3
_SHT_LLVM_ADDRSIG = 0x6FFF4C03
_SHT_LLVM_CG_PROFILE_OLD = 0x6FFF4C02      # LLVM <= 12: {u32 from, u32 to, u64 weight} by symbol index
_BATCH_BYTES = 1 << 22       # relocations renumbered as one column at a time: about 4 MiB of entries
MIN_ALIGN_CAP = 1 << 16      # sh_addralign up to this (or up to the input's size) is honoured when placing
# The lean paths (a relocatable object's walk, relocations renumbered into an array, groups' signatures by columns,
# runs of relocation sections read as one slice, symbols with extended indices by columns, the file order from the
# few empty sections): False takes the general ones they stand for (tests compare them).
_LEAN = True
_REL_TYPES = frozenset((SHT_REL, SHT_RELA, SHT_CREL))
_SYMTAB_TYPES = frozenset((SHT_SYMTAB, SHT_DYNSYM))
_GROUP_TYPES = frozenset((SHT_GROUP,))
_SHNDX_TYPES = frozenset((SHT_SYMTAB_SHNDX,))
_RELA_TYPES = frozenset((SHT_REL, SHT_RELA))
_REL_GROUP_TYPES = frozenset((SHT_REL, SHT_RELA, SHT_GROUP))
_FLIP = bytes.maketrans(b"\0\1", b"\1\0")       # removed flags -> kept flags
_ONLY_ONE = bytes((0, 1)) + bytes(254)          # a byte 1 stays 1, every other byte becomes 0
_ZERO_LANE = bytes((1,)) + bytes(255)          # a lane's top byte: 0 (the lane is 0) -> 1, else 0
_NOT_TWO = bytes((1, 1, 0)) + bytes((1,)) * 253     # a byte 2 becomes 0, every other byte 1
_NOT_SECTION_SYMBOL = bytes(0 if b & 0xF == STT_SECTION else 1 for b in range(256))      # st_info -> not STT_SECTION
_INFO_LINK_BYTE = bytes(1 if b & 0x40 else 0 for b in range(256))       # a flags' low byte -> SHF_INFO_LINK set

# The fields of a section header tuple, in file order (ElfFile.headers).
_FIELDS = ("name_off", "type", "flags", "addr", "offset", "size", "link", "info", "addralign", "entsize")
_TYPE, _FLAGS, _OFFSET, _SIZE, _LINK, _INFO, _ALIGN = 1, 2, 4, 5, 6, 7, 8
# (byte offset, array type code) of each field in an Elf64_Shdr; every Elf32_Shdr field is 32-bit, at 4 * k
_FIELDS64 = ((0, "I"), (4, "I"), (8, "Q"), (16, "Q"), (24, "Q"), (32, "Q"), (40, "I"), (44, "I"), (48, "Q"),
             (56, "Q"))


# Runs of the input's bytes at least this long are named to the caller (``out_copies``: part index, input offset), to
# be copied by the kernel from the input file (sendfile) rather than through this process's map of it: about half
# the CPU per byte, and the input's pages never enter this process (docs/benchmarks.md, "Copies the kernel makes").
SEND_MIN = 1 << 16
# Runs of the input shorter than this, one after the other in the output with fewer zeros than this between them, are
# copied into one buffer by the lean layout walk (see ElfWriter._pack_object)
_COALESCE = 2048
_ZEROS = bytes(_COALESCE)

# Columns of fewer words than this are packed (and read, in the other byte order) by struct, longer ones by array:
# array imports collections (about 1.5 ms of a rewrite's start-up), struct costs 3-10 ns more per word (measured at
# 6,000 and 60,000 words), so a rewrite of an object of a few thousand sections does better without array.
_SMALL = 16384


def _array(code: str, values=(), n: int | None = None):
    """``array(code, values)`` for ``n`` (default ``len(values)``) words and more than _SMALL; fewer are packed by
    struct, as a memoryview of that format (what the callers use of an array: tobytes, itemsize, a buffer of that
    format to store).  A value the type cannot hold raises OverflowError either way."""
    if n is None:
        n = len(values)
    if n < _SMALL:
        try:
            return memoryview(struct.pack(f"={n}{code}", *values)).cast(code)
        except struct.error as exc:
            raise OverflowError(str(exc)) from None
    from array import array
    return array(code, values)


# Relocations' symbol indices renumbered as lanes of one integer (see _lanes_renumbered) where the dropped symbols
# make at most this many runs (each run costs a few passes over the column; more take the per-entry mapping)
_LANE_RUNS = 8
_LANE_BLOCK = 4096


def _lanes_renumbered(column, runs, nsyms):
    """The 32-bit words of ``column`` (a memoryview of native words) renumbered as symbol indices where the symbols of
    ``runs`` ([first, end) of each run of dropped ones, ascending) leave a table of ``nsyms``: each word less the
    number of dropped symbols below it -- as lanes of Python integers, a few passes in C over a block of the column
    at a time instead of a step per word.  The new words' bytes (b"" where none changes), or None where the caller is
    to decide entry by entry: a word of 2**31 or more, one past the table, or one naming a dropped symbol."""
    order = sys.byteorder
    # (blocks of _LANE_BLOCK words: each integer worked out stays small enough to come from memory already in use,
    # not from new pages the kernel has to find, which cost more here than the arithmetic)
    whole = min(len(column), _LANE_BLOCK)
    if not whole:
        return b""
    one = b"\1\0\0\0" if order == "little" else b"\0\0\0\1"
    ones = int.from_bytes(one * whole, order)
    top = ones << 31
    half = (1 << 31) * ones
    # the offsets to add to a lane to set its top bit where its word is t or more (1 <= t <= 2**31): one per
    # threshold, reused by every block
    tops = [t for first, end in runs for t in (first, end) if t < nsyms]
    # (where the last run ends the table, as a compiler's last symbols, no word past the table is the look for one
    # at or past that run's first)
    past = nsyms if not runs or runs[-1][1] != nsyms else None
    if past is not None:
        tops.append(past)
    adds = {t: half - t * ones for t in set(tops)}
    out = []
    changed = False
    for k in range(0, len(column), whole):
        raw = column[k:k + whole].tobytes()
        x = int.from_bytes(raw, order)
        if len(raw) != 4 * whole:           # (the last block, shorter: every lane is alike, so its low ones)
            lanes = (1 << 8 * len(raw)) - 1
            top_k = top & lanes
            adds_k = {t: v & lanes for t, v in adds.items()}
        else:
            top_k, adds_k = top, adds
        if x & top_k or past is not None and (x + adds_k[past]) & top_k:
            return None             # (a word of 2**31 or more, or past the table)
        less = 0                    # (each lane's count of dropped symbols below its word, times 2**31)
        for first, end in runs:
            above = (x + adds_k[end]) & top_k if end < nsyms else 0
            if (x + adds_k[first]) & top_k != above:
                return None         # (a dropped symbol used: refused by the caller's walk)
            if above:
                less += (end - first) * above
        if less:
            changed = True
            raw = (x - (less >> 31)).to_bytes(len(raw), order)
        out.append(raw)
    return b"".join(out) if changed else b""


class _Flagged:
    """The indices flagged in ``flags`` (one byte each, 1 where flagged: the removed sections, the symbols a table
    loses) as the set tests the writer makes of them, answered from the flags rather than from a set of as many
    integers; ``low``: the first (-1: none)."""
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
        return set(filter(self.__contains__, values))

    def flags_of(self, values):
        """1 (flagged) or 0 for each of ``values``, as an iterator (one step in C each: past the flags, as a
        symbol's SHN_ABS, by flags padded with zeros up to 2**20)."""
        values = values if isinstance(values, list) else list(values)
        if not values:
            return iter(())
        flags, top = self.flags, max(values)
        if min(values) >= 0 and top < max(len(flags), 1 << 20):
            if top >= len(flags):
                flags = flags + bytes(top + 1 - len(flags))
            return map(flags.__getitem__, values)
        return map(int, map(self.__contains__, values))


class _SymbolMap:
    """Old symbol index -> new one (-1 for a dropped one), from the runs of dropped symbols (``runs``: [first, end) of
    each, ascending) of a table whose kept ones are ``keep`` (one byte each, 1 where kept).  The whole list (an integer
    per symbol) is made only for a path that looks up every index (:meth:`whole`); a few are worked out from the runs
    (:meth:`of`)."""
    __slots__ = ("keep", "runs", "_whole")

    def __init__(self, keep: bytes, runs: list):
        self.keep, self.runs, self._whole = keep, runs, None

    def whole(self) -> list:
        if self._whole is None:
            m = list(accumulate(self.keep, initial=-1))
            del m[0]
            for i, j in self.runs:
                m[i:j] = repeat(-1, j - i)
            self._whole = m
        return self._whole

    def of(self, values: list) -> list:
        """The new indices of ``values`` (each below the table's size): all of them between the same two runs (the
        group signatures of an object that loses a section symbol and its last globals) moved by one subtraction in C,
        a few by bisection, others through the whole list."""
        if not values:
            return []
        from _bisect import bisect_right       # (the C module: bisect.py only wraps it)
        runs = self.runs
        firsts = [a for a, _ in runs]
        before = list(accumulate((b - a for a, b in runs), initial=0))     # dropped ones before each run
        lo = min(values)
        k = bisect_right(firsts, lo)
        if bisect_right(firsts, max(values)) == k and (not k or lo >= runs[k - 1][1]):
            return list(map((-before[k]).__add__, values))
        if self._whole is not None or 16 * len(values) > len(self.keep):
            return list(map(self.whole().__getitem__, values))
        out = []
        for x in values:
            k = bisect_right(firsts, x)
            out.append(-1 if k and x < runs[k - 1][1] else x - before[k])
        return out


def _end_if_adjacent(offs, sizes):
    """Where sections at ``offs`` of ``sizes`` (at least one) end when each one's end is the next one's offset (one
    after the other in the file), else None."""
    after = list(accumulate(sizes, initial=offs[0]))
    end = after.pop()
    return end if after == offs else None


def _renumbered_members(words, flags_at, new) -> list:
    """Group words ``words`` (flag words at ``flags_at``, kept as they are) with each member moved to its new index
    (``new``); a member past the table stays."""
    n = len(new)
    if max(words, default=0) < n:
        renumbered = list(map(new.__getitem__, words))
    else:
        renumbered = [new[m] if m < n else m for m in words]
    any(map(renumbered.__setitem__, flags_at, map(words.__getitem__, flags_at)))      # (each step gives None)
    return renumbered


def _shndx_lut(new) -> list:
    """st_shndx -> its new value: a section index below SHN_LORESERVE moved to its new index (``new``), a reserved
    one (and one past the table) as it is."""
    lim = min(len(new), SHN_LORESERVE)
    lut = new[:lim]
    lut += range(lim, 0x10000)
    return lut


def _moved_shndx(column, new, big) -> list:
    """The st_shndx values ``column`` with each section index moved to its new one (``new``), but at the positions
    ``big`` (reserved indices, or past the table) where they stay."""
    if not big:
        return list(map(new.__getitem__, column))
    col = list(column)
    any(map(col.__setitem__, big, repeat(0)))       # (each step gives None)
    col = list(map(new.__getitem__, col))
    any(map(col.__setitem__, big, map(column.__getitem__, big)))
    return col


def _header_field(k: int):
    def get(self):
        return self._w.cols[k][self._i]

    def set(self, value):
        self._w._own_column(k)[self._i] = value
    return property(get, set, doc=f"sh_{_FIELDS[k]}")


class WSection:
    """One section as the writer holds it: a view of the writer's header table (``orig`` is the index in the
    input, None for an added section), its new contents (``content``, None for the input's bytes) and whether
    it is ``removed``.  Made on demand: the writer itself keeps columns, not an object per section."""
    __slots__ = ("_w", "_i")

    def __init__(self, writer: "ElfWriter", index: int):
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


class _Sections:
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


def _minus(ranges, cut) -> list:
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


def _align(x: int, a: int) -> int:
    return x if a <= 1 else (x + a - 1) // a * a


class ElfWriter:
    """Edit the section table of one ELF file and produce the new file's bytes.

    The header table is held as columns: ``cols`` (ten lists, one per header field, as
    :attr:`ElfFile.columns`), the removed flags and a dict of new contents, so that an object with tens of
    thousands of sections costs no Python object per section.  ``sections`` gives :class:`WSection` views."""

    def __init__(self, elf: ElfFile):
        if not isinstance(elf, ElfFile):
            raise ObjllvmError("only ELF files can be rewritten", file=getattr(elf, "path", None))
        self.elf = elf
        # (an archive member's bytes are a view of the archive's: the writer slices them as bytes)
        self.data = elf.data.tobytes() if type(elf.data) is memoryview else elf.data
        self.path = elf.path
        e = elf.endian
        self.is64 = elf.is64
        self._shdr = elf._shdr
        self._u32 = struct.Struct(e + "I")
        self.cols: list = list(elf.columns)        # the reader's lists until one is changed (see _column)
        self._owned = [False] * len(self.cols)
        self._n_orig = elf.section_count
        self._removed = bytearray(self._n_orig)
        self._content: dict = {}          # index -> new stored bytes
        # Input sections given new bytes of the same size as one buffer (relocation sections renumbered as one
        # column): [input start, input end, buffer, their indices (ascending, one after the other in the file)].
        # Read as their contents; laid out as input sections, the buffer then put in place of the input's bytes
        # (_splice_patches), or turned into contents of their own first (_materialize_patches).
        self._patches: list = []
        self._added_names: dict = {}      # index -> name of an added section
        self.sections = _Sections(self)
        self.shstrndx = elf.e_shstrndx
        self._rel_by_target = None
        self._rel_count = 0
        self._kinds_key = None
        self._type_codes = None
        self.moves: list = []     # after write(): (section index or what, input offset, output offset, size)
        # after write_parts(): (index in the parts, input offset) of the parts that are runs of the input's bytes of
        # SEND_MIN bytes or more, in order (see SEND_MIN)
        self.out_copies: list = []
        self.out_parts: list | None = None      # the list write_parts() last made (``out_copies`` goes with it)
        self._src: dict = {}        # id(view) -> (view, input offset): the long views of the input, as made

    # -- queries -------------------------------------------------------------------------------
    def _of_types(self, wanted, first: int = 0) -> list:
        """The indices (from ``first`` on, ascending) of the sections whose sh_type is in ``wanted`` (one of the
        frozensets above), worked out once for all of them while the types stay as they are."""
        types = self.cols[_TYPE]
        self._fresh_kinds(types)
        found = self._kinds.get(wanted)
        if found is None:       # (each kind when first asked for)
            found = []
            present = wanted & self._types_seen
            if _LEAN and present and len(self._types_seen) <= 256:
                # by one byte per section, made once (each distinct type's code): each kind then found by searches
                # in C (a few) or one translate (many), not by a pass over the column per kind
                code, codes = self.type_codes()
                wanted_codes = [code[t] for t in present]
                if sum(map(codes.count, wanted_codes)) <= 64:
                    for c in wanted_codes:
                        i = codes.find(c)
                        while i >= 0:
                            found.append(i)
                            i = codes.find(c, i + 1)
                else:
                    table = bytearray(256)
                    for c in wanted_codes:
                        table[c] = 1
                    found = list(compress(range(len(types)), codes.translate(table)))
            else:
                for t in present:
                    count = types.count(t)
                    if count <= 64:        # a few: found by list.index, a search in C
                        i = -1
                        for _ in range(count):
                            i = types.index(t, i + 1)
                            found.append(i)
                    else:
                        found += compress(range(len(types)), map(eq, types, repeat(t)))
            found = self._kinds[wanted] = sorted(found)
        return found[1:] if first and found and found[0] == 0 else found

    def _fresh_kinds(self, types) -> None:
        """Forget what _of_types and type_codes worked out when the type column is another one (or grew)."""
        key = (id(types), len(types))
        if self._kinds_key != key:
            self._kinds, self._kinds_key, self._types_seen = {}, key, set(types)
            self._type_codes = None

    def type_codes(self):
        """(code, codes): a code (0-255) for each distinct sh_type (a dict) and one code byte per section, made once
        while the types stay as they are; None where there are more than 256 distinct types."""
        types = self.cols[_TYPE]
        self._fresh_kinds(types)
        if self._type_codes is None:
            if len(self._types_seen) > 256:
                return None
            code = {t: k for k, t in enumerate(self._types_seen)}
            self._type_codes = (code, bytes(map(code.__getitem__, types)))
        return self._type_codes

    def name(self, index: int) -> str:
        if index >= self._n_orig:
            return self._added_names[index]
        return self.elf.section_name(index)

    def _err(self, msg, index=None, offset=None):
        name = self.name(index) if index is not None and index < len(self._removed) else None
        return ObjllvmError(msg, file=self.path, member=self.elf.member, section_index=index,
                            section_name=name, offset=offset)

    def index_of(self, name: str) -> int:
        rm = self._removed
        for i in range(len(rm)):
            if not rm[i] and self.name(i) == name:
                return i
        raise self._err(f"no section named {name!r}")

    def is_removed(self, index: int) -> bool:
        return bool(self._removed[index])

    @property
    def removed_flags(self) -> bytearray:
        """One byte per section, 1 where it is removed (read it; edit through :meth:`remove`)."""
        return self._removed

    def edited(self) -> list:
        """The indices of the sections given new contents (set, added, or rewritten by the writer), ascending."""
        if not self._patches:
            return sorted(self._content)
        out = set(self._content)
        for p in self._patches:
            out.update(p[3])
        return sorted(out)

    def content(self, index: int) -> bytes:
        """The stored bytes of a section (its new content when set)."""
        c = self._content.get(index)
        if c is not None:
            return c
        cols = self.cols
        if cols[_TYPE][index] == SHT_NOBITS or index >= self._n_orig:
            return b""
        off = cols[_OFFSET][index]
        if self._patches:
            for start, end, buf, idx in self._patches:
                if idx[0] <= index <= idx[-1] and index in idx:
                    return bytes(memoryview(buf)[off - start:off - start + cols[_SIZE][index]])
        return self.data[off:off + cols[_SIZE][index]]

    def _materialize_patches(self) -> None:
        """The patches' sections given contents of their own (those whose bytes changed), as the writer stores
        new contents; no patch left."""
        cols = self.cols
        for start, end, buf, idx in self._patches:
            idx = [i for i in idx if i not in self._content]
            offs = list(map(cols[_OFFSET].__getitem__, idx))
            ends = list(map(add, offs, map(cols[_SIZE].__getitem__, idx)))
            mv = memoryview(buf)
            pieces = list(map(bytes, map(mv.__getitem__, map(slice, map(sub, offs, repeat(start)),
                                                             map(sub, ends, repeat(start))))))
            mv.release()
            old = map(self.data.__getitem__, map(slice, offs, ends))
            self._content.update(compress(zip(idx, pieces), map(ne, pieces, old)))
        self._patches = []

    def _splice_patches(self, chunks, at_table, new_off):
        """The lean walk's ``chunks`` (offset order, none overlapping; the header table's to go in at ``at_table``)
        with the patches' bytes in place of the input's where their sections landed: (chunks, at_table); None where
        they are not all found there as runs of the input (the caller then materializes the patches)."""
        from _bisect import bisect_right    # (here: a rewrite without patches does not import it; the C module)
        offs, sizes = self.cols[_OFFSET], self.cols[_SIZE]
        rm, contents = self._removed, self._content
        key = itemgetter(0)
        for start, end, buf, idx in self._patches:
            if any(map(rm.__getitem__, idx)) or not contents.keys().isdisjoint(idx):
                return None
            mv = memoryview(buf)
            ins = list(map(offs.__getitem__, idx))
            shifts = list(map(sub, ins, map(new_off.__getitem__, idx)))
            if shifts.count(shifts[0]) == len(shifts):
                ranges = [(start - shifts[0], end - shifts[0], mv)]
            else:           # (placed at more than one shift: alignment padding between them)
                ranges = []
                k = 0
                while k < len(idx):
                    j = k
                    while j + 1 < len(idx) and shifts[j + 1] == shifts[k]:
                        j += 1
                    a, b = ins[k], ins[j] + sizes[idx[j]]
                    ranges.append((a - shifts[k], b - shifts[k], mv[a - start:b - start]))
                    k = j + 1
            for a, b, piece in ranges:
                k = bisect_right(chunks, a, key=key) - 1
                if k < 0:
                    return None
                j, at, last = k, chunks[k][0], None
                while j < len(chunks) and chunks[j][0] < b:
                    o, c = chunks[j]
                    if o != at or not isinstance(c, memoryview):
                        return None
                    at = o + len(c)
                    last = j
                    j += 1
                if last is None or at < b or chunks[k][0] + len(chunks[k][1]) <= a or k < at_table <= last:
                    return None
                o0, c0 = chunks[k]
                o1, c1 = chunks[last]
                new = [(o0, c0[:a - o0])] if a > o0 else []
                new.append((a, piece))
                if at > b:
                    new.append((b, c1[b - o1:]))
                chunks[k:last + 1] = new
                if at_table > last:
                    at_table += len(new) - (last + 1 - k)
        return chunks, at_table

    def _own_column(self, k: int) -> list:
        """Header column ``k``, the writer's own copy (made on the first change)."""
        if not self._owned[k]:
            self.cols[k] = list(self.cols[k])
            self._owned[k] = True
        return self.cols[k]

    def _words_of(self, code: str, raw) -> list:
        """The ``code`` (array type code) words of ``raw``, read in the file's byte order."""
        size = struct.calcsize(code)
        if (self.elf.endian == "<") == (sys.byteorder == "little") and not len(raw) % size:
            return memoryview(raw).cast("B").cast(code).tolist()
        if len(raw) < size * _SMALL:
            return list(struct.unpack(f"{self.elf.endian}{len(raw) // size}{code}", raw))
        from array import array
        words = array(code)
        words.frombytes(raw)
        if (self.elf.endian == "<") != (sys.byteorder == "little"):
            words.byteswap()
        return words.tolist()

    def _file_words(self, code: str, values):
        """``values`` as ``code`` words in the file's byte order (to store into the output): an array, or a memoryview
        of that format (both have tobytes and itemsize)."""
        if len(values) < _SMALL:
            return memoryview(struct.pack(f"{self.elf.endian}{len(values)}{code}", *values)).cast(code)
        from array import array
        words = array(code, values)
        if (self.elf.endian == "<") != (sys.byteorder == "little"):
            words.byteswap()
        return words

    def _plain(self, index: int) -> bytes:
        """What a section's bytes mean: its new contents when set, else the input's, decompressed when it is
        SHF_COMPRESSED (a DecodeError naming the section when they do not decompress)."""
        c = self._content.get(index)
        if c is None and index < self._n_orig and self.cols[_FLAGS][index] & SHF_COMPRESSED:
            return self.elf.section(index).data()
        return self.content(index)

    def _store(self, index: int, data: bytes) -> None:
        """New contents for a section the writer rewrites alongside (symbols, groups): stored uncompressed."""
        self._content[index] = data
        if self.cols[_FLAGS][index] & SHF_COMPRESSED:        # (the column is copied only then)
            self._own_column(_FLAGS)[index] &= ~SHF_COMPRESSED

    def relocation_sections_for(self, index: int) -> list:
        """The kept REL/RELA/CREL sections whose target (sh_info) is section ``index``."""
        n = len(self._removed)
        if self._rel_by_target is None or self._rel_count != n:
            by = {}
            infos = self.cols[_INFO]
            for i in self._of_types(_REL_TYPES, 1):
                if infos[i]:
                    by.setdefault(infos[i], []).append(i)
            self._rel_by_target, self._rel_count = by, n
        rels = self._rel_by_target.get(index)
        if not rels:
            return []
        rm = self._removed
        return [i for i in rels if not rm[i]]

    # -- edits ---------------------------------------------------------------------------------
    def remove(self, index: int, *, with_relocations: bool = True) -> list:
        """Mark a section (and the relocation sections that target it) removed; returns the indices."""
        if not 0 < index < len(self._removed):
            raise self._err(f"no section with index {index}")
        out = [index]
        rm = self._removed
        rm[index] = 1
        if with_relocations:
            for r in self.relocation_sections_for(index):
                rm[r] = 1
                out.append(r)
        return out

    def remove_many(self, indices) -> list:
        """:meth:`remove` each of ``indices`` (and the relocation sections that target them); returns the indices
        of the sections this removes, in index order."""
        rm = self._removed
        n = len(rm)
        indices = list(indices)
        if indices and (min(indices) <= 0 or max(indices) >= n):
            raise self._err(f"no section with index {next(i for i in indices if not 0 < i < n)}")
        new = list(compress(indices, map(not_, map(rm.__getitem__, indices))))
        any(map(rm.__setitem__, new, repeat(1)))      # (each step gives None)
        targets = bytearray(n)          # (flags: 1 for each of ``new``)
        any(map(targets.__setitem__, new, repeat(1)))
        rels = self._of_types(_REL_TYPES, 1)
        infos = list(map(self.cols[_INFO].__getitem__, rels))
        if infos and max(infos) >= n:       # (a target past the table: none of ``new``, as 0 is not)
            infos = [t if t < n else 0 for t in infos]
        rels = [r for r in compress(rels, map(targets.__getitem__, infos)) if not rm[r]]
        any(map(rm.__setitem__, rels, repeat(1)))
        return sorted(new + rels)

    def set_content(self, index: int, data: bytes) -> None:
        """Replace a section's bytes (stored as given: an SHF_COMPRESSED section is written uncompressed)."""
        s = self.sections[index]
        if s.type == SHT_NOBITS:
            raise self._err("SHT_NOBITS section has no contents to replace", index)
        if s.alloc and len(data) != s.size:
            raise self._err(f"allocated section: changing its size ({s.size} -> {len(data)} bytes) would move "
                            f"loaded code or data (refused)", index)
        self._content[index] = bytes(data)
        if s.flags & SHF_COMPRESSED:
            s.flags &= ~SHF_COMPRESSED

    def add_section(self, name: str, sh_type: int, data: bytes, *, flags: int = 0, addralign: int = 1,
                    entsize: int = 0, link: int = 0, info: int = 0) -> int:
        """Append a non-allocated section (its name goes at the end of the section name table)."""
        if flags & SHF_ALLOC:
            raise self._err(f"cannot add allocated section {name!r}: that would need a new segment")
        if not 0 < self.shstrndx < len(self._removed):
            raise self._err("the file has no section name table: cannot name a new section")
        strtab = bytearray(self._plain(self.shstrndx))
        name_off = len(strtab)
        strtab += name.encode("utf-8", "surrogateescape") + b"\0"
        self.set_content(self.shstrndx, bytes(strtab))
        i = len(self._removed)
        for k, v in enumerate((name_off, sh_type, flags, 0, 0, len(data), link, info, addralign, entsize)):
            self._own_column(k).append(v)
        self._removed.append(0)
        self._content[i] = bytes(data)
        self._added_names[i] = name
        return i

    def encode_relocations(self, index: int, relocs) -> bytes:
        """The bytes of REL/RELA section ``index`` holding ``relocs`` (objects with offset/type/sym/addend)."""
        t = self.cols[_TYPE][index]
        rela = t == SHT_RELA
        if t not in (SHT_REL, SHT_RELA):
            raise self._err("not a REL or RELA section", index)
        e = self.elf.endian
        if self.is64:
            st, shift = struct.Struct(e + ("QQq" if rela else "QQ")), 32
        else:
            st, shift = struct.Struct(e + ("IIi" if rela else "II")), 8
        out = []
        for r in relocs:
            info = (r.sym << shift) | r.type
            out.append(st.pack(r.offset, info, r.addend or 0) if rela else st.pack(r.offset, info))
        return b"".join(out)

    # -- write ---------------------------------------------------------------------------------
    def _closure(self, types, infos) -> "_Flagged":
        """Finish the removal set: relocation sections of removed targets, groups left empty (to a fixed point;
        only relocation sections and groups can join the set).  Returns the removed sections (as their flags)."""
        rm = self._removed
        n = len(types)
        rels = self._of_types(_REL_TYPES, 1)
        rels = list(compress(rels, map(rm.translate(_FLIP).__getitem__, rels)))      # (the kept ones)
        groups = self._of_types(_GROUP_TYPES, 1)
        targets = list(map(infos.__getitem__, rels))
        if targets and max(targets) >= n:       # (a target past the table: never a removed section)
            targets = [t if t < n else 0 for t in targets]
            lookup0 = True
        else:
            lookup0 = False
        table = self._group_table(groups) if groups else None
        alive = None
        if table is not None:
            words, bounds = table[0], table[1]
            # the groups with members (more than the flag word): where their members start and end in ``words``
            lasts = bounds[1:]
            if table[3] > 4:            # (every group has members: as compilers write them)
                with_members = groups
                firsts = list(map((1).__add__, bounds))
                firsts.pop()
            else:
                full = list(map(gt, map(sub, lasts, bounds[:-1]), repeat(1)))
                with_members = list(compress(groups, full))
                firsts = list(map((1).__add__, compress(bounds, full)))
                lasts = list(compress(lasts, full))
            in_range = words if not words or max(words) < n else [w for w in words if w < n]
        # removed sections whose relocation sections and groups are not looked at yet, by their flags: all of them in
        # the first round (section 0 clear: where a target past the table was read as 0)
        pending = bytearray(rm)
        if lookup0:
            pending[0] = 0
        first = True                    # (groups are looked at once in any case: one may name no section in range)
        while True:
            # relocation sections whose target is removed (by columns), then groups whose members all are
            joining = [i for i in compress(rels, map(pending.__getitem__, targets)) if not rm[i]]
            any(map(rm.__setitem__, joining, repeat(1)))        # (each step gives None)
            if table is not None:
                any(map(pending.__setitem__, joining, repeat(1)))
                if first or any(map(pending.__getitem__, in_range)):
                    # by columns: a group goes when it has members and none of them (in range) is kept (the search for
                    # a kept one among its members finds none)
                    alive = self._alive(words)
                    none = map((-1).__eq__, map(alive.find, repeat(1), firsts, lasts))
                    hit = list(compress(with_members, none))
                    hit = list(compress(hit, map(not_, map(rm.__getitem__, hit))))
                    any(map(rm.__setitem__, hit, repeat(1)))
                    joining += hit
            else:
                for i in groups:
                    if not rm[i]:
                        members_i = self._group_members(i, strict=False)
                        if members_i and all(rm[m] for m in members_i if m < n):
                            rm[i] = 1
                            joining.append(i)
            first = False
            if not joining:
                break
            pending = bytearray(n)
            any(map(pending.__setitem__, joining, repeat(1)))
        # for the member lists (see _check_and_fix_references): the groups' words, and which of them are kept sections
        # (as last worked out: nothing removed since is among the words, or it would have been again)
        self._groups_read = (groups, table, alive)
        return _Flagged(bytes(rm))

    def _alive(self, words) -> bytes:
        """1 for each of ``words`` that is the index of a kept section, else 0."""
        keep = self._removed.translate(_FLIP)
        if not words or max(words) < len(keep):
            return bytes(map(keep.__getitem__, words))
        n = len(keep)
        return bytes([keep[m] if m < n else 0 for m in words])

    def _group_table(self, groups):
        """The words of groups ``groups`` (input sections, not compressed, each a whole number of words and at least
        the flag word, none given new contents) as one column: (words, bounds, raw, least, whole), group
        ``groups[k]`` being ``words[bounds[k]:bounds[k + 1]]`` (its flag word first), ``raw`` the bytes the words
        were read from, ``least`` the smallest group's size in bytes, ``whole`` whether they lie one after the other
        in the file (``raw`` one slice of it); None when one of them is not such a group (the caller then reads them
        one by one)."""
        cols = self.cols
        if not self._stored_as_input(groups):
            return None
        offs = list(map(cols[_OFFSET].__getitem__, groups))
        sizes = list(map(cols[_SIZE].__getitem__, groups))
        distinct = set(sizes)
        least = min(distinct)
        if least < 4 or any(z & 3 for z in distinct):
            return None
        mv = memoryview(self.data)
        end = _end_if_adjacent(offs, sizes)       # (one after the other in the file, as assemblers write them)
        if end is not None:
            if end > len(self.data):
                return None
            raw = bytes(mv[offs[0]:end])
        else:
            ends = list(map(add, offs, sizes))
            if max(ends) > len(self.data):
                return None
            raw = b"".join(map(mv.__getitem__, map(slice, offs, ends)))
        w = self._words_of("I", raw)
        return w, list(accumulate(map(rshift, sizes, repeat(2)), initial=0)), raw, least, end is not None

    def _group_members(self, i: int, strict: bool = True) -> list:
        """The member indices of group ``i``; not ``strict``: a compressed group that does not decompress is read
        as stored (deciding whether it is left empty needs no more; rewriting its list does)."""
        try:
            b = self._plain(i)
        except ObjllvmError:
            if strict:
                raise
            b = self.content(i)
        n = len(b) // 4
        return [self._u32.unpack_from(b, 4 * k)[0] for k in range(1, n)]

    def write(self) -> bytes:
        """The new file's bytes."""
        return b"".join(self.write_parts())

    def write_parts(self) -> list:
        """The new file as a list of buffers to write one after the other (slices of the input are views of it,
        not copies): what :meth:`write` joins."""
        cols = self.cols
        if not self._removed:
            self.out_size, self.out_shoff = len(self.data), 0
            return [memoryview(self.data)]      # no section header table: nothing this writer can change
        if not self._changes_anything():
            # Nothing removed, added or edited: the new file is the input, byte for byte (a relocatable object is
            # not repacked, and a group that was empty before is not dropped).
            self.out_size, self.out_shoff = len(self.data), self.elf.e_shoff
            self.out_copies, self.out_parts = [], [memoryview(self.data)]
            return self.out_parts
        removed = self._closure(cols[_TYPE], cols[_INFO])
        rm = self._removed
        if rm[0]:
            raise self._err("section 0 cannot be removed", 0)
        # new[i]: the output index of kept section i (for a removed one: that of the kept section before it)
        new = list(accumulate(rm.translate(_FLIP), initial=-1))
        del new[0]
        if removed:
            self._check_and_fix_references(cols, new, removed)
        if 0 <= self.shstrndx < len(rm) and rm[self.shstrndx]:
            raise self._err("the section name table cannot be removed", self.shstrndx)
        return self._layout(cols, new)

    def _check_and_fix_references(self, cols, new, removed):
        rm = self._removed
        n = len(rm)
        flags, links, infos = cols[_FLAGS], cols[_LINK], cols[_INFO]
        keep = rm.translate(_FLIP)
        # A kept section that links (sh_link, or sh_info with SHF_INFO_LINK) to a removed one: refused, the first
        # such section in index order (section 0 aside).  Found by sets; walked only when there is one.
        if _LEAN and not self._owned[_FLAGS] and n == self._n_orig:
            # (the few distinct values, then looked up; the sections with SHF_INFO_LINK by the flags' low byte as the
            # input's table has it, ANDed with the kept flags as integers)
            kept_links = set(compress(links, keep))
            info_link = int.from_bytes(self.elf.flag_bytes().translate(_INFO_LINK_BYTE), "little") & \
                int.from_bytes(keep, "little")
            kept_info_links = set(compress(infos, info_link.to_bytes(n, "little")))
        else:
            kept_links = compress(links, keep)
            kept_info_links = compress(compress(infos, keep), map(and_, compress(flags, keep), repeat(SHF_INFO_LINK)))
        if not removed.isdisjoint(kept_links) or not removed.isdisjoint(kept_info_links):
            for i in compress(range(1, n), keep[1:]):
                link, info = links[i], infos[i]
                if link and link in removed:
                    what = "links to" if not flags[i] & SHF_LINK_ORDER else "is ordered after (SHF_LINK_ORDER)"
                    raise self._err(f"section [{i}] {self.name(i)} {what} section [{link}] {self.name(link)}, "
                                    f"which would be removed (remove it too, or keep the target)", link)
                if info and info in removed and (flags[i] & SHF_INFO_LINK):
                    raise self._err(f"section [{i}] {self.name(i)} refers (sh_info) to section [{info}] "
                                    f"{self.name(info)}, which would be removed", info)
        symtabs = [i for i in self._of_types(_SYMTAB_TYPES) if not rm[i]]
        groups = [i for i in self._of_types(_GROUP_TYPES) if not rm[i]]
        # Symbols defined in removed sections.
        for i in symtabs:
            self._fix_symbols(i, new, removed)
        # Group member lists: by columns where every member (in range) of every kept group is kept, renumbered as one
        # column (the words of every group, as _closure read them)
        read = getattr(self, "_groups_read", None)
        table = alive = None
        if groups and read is not None and read[1] is not None and groups[0]:
            # (the kept ones of the groups _closure read: all groups but section 0, which is none here)
            every, table, alive = read
            at = list(compress(range(len(every)), map(keep.__getitem__, every)))      # the kept groups, in ``every``
        if table is None and groups:
            table = self._group_table(groups)
            at = range(len(groups))
        if table is not None:
            words, bounds, raw = table[:3]
            if alive is None:
                alive = self._alive(words)
            flags_at = bounds[:-1]
            if _LEAN and at[-1] - at[0] == len(at) - 1:
                # the kept groups one after the other in the table (the removed ones before or after them): their
                # words are one run of it, looked at and renumbered as one; where every word of it names a kept
                # section (the flag words too, as they usually do: 0 or 1), with no look at the flag words
                w0, w1 = bounds[at[0]], bounds[at[-1] + 1]
                if alive.find(0, w0, w1) >= 0:
                    alive = bytearray(alive)
                    any(map(alive.__setitem__, flags_at, repeat(1)))     # (flag words; each step gives None)
                if alive.find(0, w0, w1) < 0:
                    # (one slice of the input where every group is, so the kept ones too)
                    whole = table[4]
                    self._renumber_group_run(groups, words[w0:w1], bounds[at[0]:at[-1] + 1], w0, raw, new, whole)
                    groups = []
            else:
                alive = bytearray(alive)
                any(map(alive.__setitem__, flags_at, repeat(1)))     # (flag words; each step gives None)
                starts = list(map(bounds.__getitem__, at))
                ends = list(map(bounds.__getitem__, map((1).__add__, at)))
                # (a kept group has a member that is not kept: the walk below decides; so does one past the table)
                if alive.find(0) < 0 or all(map((-1).__eq__, map(alive.find, repeat(0), starts, ends))):
                    renumbered = _renumbered_members(words, flags_at, new)
                    if renumbered != words:
                        blob = self._file_words("I", renumbered).tobytes()
                        cuts = list(map(slice, map(lshift, starts, repeat(2)), map(lshift, ends, repeat(2))))
                        pieces = list(map(blob.__getitem__, cuts))
                        # (uncompressed input sections: stored as they are, no flag to clear)
                        self._content.update(compress(zip(groups, pieces),
                                                      map(ne, pieces, map(raw.__getitem__, cuts))))
                    groups = []
        for i in groups:
            b = self._plain(i)
            if len(b) < 4:
                continue
            members = self._group_members(i)
            kept = [new[m] for m in members if m < n and not rm[m]]
            if kept != members:
                e = self.elf.endian
                self._store(i, b[:4] + struct.pack(f"{e}{len(kept)}I", *kept))

    def _renumber_group_run(self, groups, words, firsts, w0, raw, new, whole=False) -> None:
        """The member lists of the kept groups ``groups`` (input sections, ascending), whose words are ``words`` (one
        run of the group table, beginning at word ``w0`` of it; ``firsts``: where each group's flag word is in the
        table; every member in range is kept) renumbered by ``new``: as one patch (see _patches) where the groups lie
        one after the other in the file, else as contents of their own (those that change)."""
        flags_at = list(map(sub, firsts, repeat(w0)))
        renumbered = _renumbered_members(words, flags_at, new)
        if renumbered == words:
            return
        blob = self._file_words("I", renumbered).tobytes()
        cols = self.cols
        if whole:           # (``whole``: the groups are known to lie one after the other)
            start = cols[_OFFSET][groups[0]]
            self._patches.append([start, start + len(blob), blob, list(groups)])
            return
        offs = list(map(cols[_OFFSET].__getitem__, groups))
        end = _end_if_adjacent(offs, list(map(cols[_SIZE].__getitem__, groups)))
        if end is not None:
            # one after the other in the file (as assemblers write them): one patch, as relocations are renumbered
            self._patches.append([offs[0], end, blob, list(groups)])
            return
        ends = flags_at[1:]
        ends.append(len(words))
        cuts = list(map(slice, map(lshift, flags_at, repeat(2)), map(lshift, ends, repeat(2))))
        pieces = list(map(blob.__getitem__, cuts))
        old = raw[w0 * 4:(w0 + len(words)) * 4]
        # (uncompressed input sections: stored as they are, no flag to clear)
        self._content.update(compress(zip(groups, pieces), map(ne, pieces, map(old.__getitem__, cuts))))

    def _fix_symbols_lean(self, si, new, removed, data, st, column, ext, shndx_sec) -> bool:
        """:meth:`_fix_symbols` by bytes where the table has fewer sections than SHN_LORESERVE and no symbol's section
        is in SHT_SYMTAB_SHNDX: one code per symbol (its section kept, removed, or a reserved index or one past the
        table -- at most 64 of those), no set of st_shndx values.  True when done; False where the caller is to
        decide (the section symbols of removed sections the only symbols there, an extended index, more than 64
        reserved ones)."""
        n = len(self._removed)
        if n > SHN_LORESERVE:
            return self._fix_extended_lean(si, new, removed, data, st, column, ext, shndx_sec)
        codes = bytes(map((bytes(self._removed) + b"\2" * (0x10000 - n)).__getitem__, column))
        big = []
        k = codes.find(2)
        while k >= 0:
            if len(big) == 64 or column[k] == SHN_XINDEX:
                return False
            big.append(k)
            k = codes.find(2, k + 1)
        size = st.size
        shndx_pos = 6 if self.is64 else 14
        if codes.find(1) < 0:
            # no symbol in a removed section: every st_shndx naming a section moves to its new index
            col2 = _moved_shndx(column, new, big)
            if col2 != column:
                self._store(si, self._with_column(data, size, shndx_pos, col2))
            return True
        if not self.elf.is_relocatable:
            return False
        # a symbol other than a section symbol in a removed section: the symbols of the removed sections go
        gone = codes.translate(_ONLY_ONE)
        if not self._defines_other_than_section_symbols(gone, data, len(column), size):
            return False
        self._drop_symbols(si, new, removed, data, st, column, ext, shndx_sec, gone=gone, big=big)
        return True

    def _defines_other_than_section_symbols(self, gone: bytes, data, nsyms: int, size: int) -> bool:
        """Whether a symbol other than a section symbol is among those ``gone`` marks (1 each) in the symbol table
        ``data`` (``nsyms`` entries of ``size`` bytes): their st_info bytes and the marks ANDed as integers."""
        info = data[(4 if self.is64 else 12):nsyms * size:size]      # st_info
        return bool(int.from_bytes(gone, "little") & int.from_bytes(info.translate(_NOT_SECTION_SYMBOL), "little"))

    def _link_words_equal(self, value: int) -> bytes:
        """1 for each input section whose sh_link (as the header table has it) is ``value``, else 0: the link words
        as 32-bit lanes of integers, a block at a time, each lane XORed with ``value`` and tested for zero."""
        row = self._shdr.size
        start = self.elf.e_shoff + (40 if self.is64 else 24)
        n = self._n_orig
        raw = memoryview(self.data)[start:start + (n - 1) * row + 4]
        # (the words' bytes in the file's order, read as little-endian lanes: compared with the value's bytes alike)
        words = raw.cast("I")[::row // 4].tobytes()
        want = int.from_bytes(struct.pack(self.elf.endian + "I", value), "little")
        whole = min(n, _LANE_BLOCK)
        ones = int.from_bytes(b"\1\0\0\0" * whole, "little")
        low = 0x7FFFFFFF * ones
        top = ones << 31
        target = want * ones
        out = []
        for k in range(0, 4 * n, 4 * whole):
            chunk = words[k:k + 4 * whole]
            y = int.from_bytes(chunk, "little") ^ target
            if len(chunk) != 4 * whole:         # (the last block, shorter: every lane alike, so its low ones)
                y &= (1 << 8 * len(chunk)) - 1
            nonzero = (y | ((y & low) + low)) & top         # (the top bit of each lane that is not 0)
            out.append(nonzero.to_bytes(4 * whole, "little")[3:len(chunk):4])
        return b"".join(out).translate(_ZERO_LANE)

    def _fix_extended_lean(self, si, new, removed, data, st, column, ext, shndx_sec) -> bool:
        """:meth:`_fix_symbols_lean` for a table of SHN_LORESERVE sections or more, its symbols' sections past it in
        SHT_SYMTAB_SHNDX: where that table has a word for every symbol, 0 for those whose st_shndx is not SHN_XINDEX
        (as LLVM and GNU as write it), each naming a section of the table.  Codes as there, the words' removed flags
        looked up by bytes and ORed in as integers.  False where the caller is to decide."""
        rm = self._removed
        n = len(rm)
        nsyms = len(column)
        if ext is None or len(ext) < 4 * nsyms or not nsyms:
            return False
        # st_shndx below SHN_LORESERVE: 1 where its section is removed; SHN_XINDEX: 2; the other reserved ones: 0
        codes = bytes(map((bytes(rm[:SHN_LORESERVE]) + bytes(SHN_XINDEX - SHN_LORESERVE) + b"\2").__getitem__, column))
        raw = bytes(ext[:4 * nsyms])
        if (self.elf.endian == "<") == (sys.byteorder == "little"):
            words = memoryview(raw).cast("I")
        else:
            words = self._ext_words(raw, nsyms)
        if any(compress(words, codes.translate(_NOT_TWO))) or max(words) >= n:
            return False
        gone = int.from_bytes(codes.translate(_ONLY_ONE), "little") | int.from_bytes(
            bytes(map(rm.__getitem__, words)), "little")          # (the words of the others are 0: section 0, kept)
        size = st.size
        shndx_pos = 6 if self.is64 else 14
        if not gone:
            # no symbol in a removed section: st_shndx below SHN_LORESERVE and SHN_XINDEX words moved
            col2 = list(map(_shndx_lut(new).__getitem__, column))
            if col2 != column:
                self._store(si, self._with_column(data, size, shndx_pos, col2))
            moved = self._file_words("I", list(map(new.__getitem__, words))).tobytes()    # (new[0] is 0)
            if moved != raw:
                self._store(shndx_sec, moved + bytes(ext[4 * nsyms:]))
            return True
        gone = gone.to_bytes(nsyms, "little")
        if not self._defines_other_than_section_symbols(gone, data, nsyms, size):
            return False
        self._drop_symbols(si, new, removed, data, st, column, ext, shndx_sec, xwords=(words, True), gone=gone)
        return True

    def _fix_symbols(self, si, new, removed):
        rm = self._removed
        n = len(rm)
        e = self.elf.endian
        st = struct.Struct(e + ("IBBHQQ" if self.is64 else "IIIBBH"))
        data = self._plain(si)
        nsyms = len(data) // st.size
        links = self.cols[_LINK]
        shndx_sec = next((k for k in self._of_types(_SHNDX_TYPES) if not rm[k] and links[k] == si), None)
        ext = bytearray(self._plain(shndx_sec)) if shndx_sec is not None else None
        shndx_pos = 6 if self.is64 else 14    # st_shndx offset inside an entry
        low = removed.low
        column = self._column(data[:nsyms * st.size], st.size, shndx_pos)      # st_shndx of every symbol
        if _LEAN and self._fix_symbols_lean(si, new, removed, data, st, column, ext, shndx_sec):
            return
        values = set(column)
        # Fast path: no symbol refers to a section at or after the first removed one (below the reserved indices;
        # nor to SHT_SYMTAB_SHNDX).
        if SHN_XINDEX not in values and not any(low <= v < SHN_LORESERVE for v in values):
            return
        # No symbol in a removed section?  With extended indices: none of the st_shndx below the reserved ones
        # and no SHT_SYMTAB_SHNDX word names one, nor a section past the table (the other symbols' words are
        # 0; where one is not and names a removed section, the walk below decides).
        if SHN_XINDEX not in values:
            untouched = removed.isdisjoint(values)
        elif _LEAN:
            m = min(len(ext) // 4, nsyms) if ext is not None else 0
            words = self._ext_words(ext, m) if m else []
            untouched = (removed.isdisjoint([v for v in values if v < SHN_LORESERVE]) and removed.isdisjoint(words)
                         and max(words, default=0) < n)
        else:
            untouched = False
        if untouched:
            # Every st_shndx below SHN_LORESERVE that names a section moves to its new index, by columns; so does
            # every SHT_SYMTAB_SHNDX word of a symbol whose st_shndx is SHN_XINDEX.
            lut = _shndx_lut(new)
            col2 = list(map(lut.__getitem__, column))
            if col2 != column:
                self._store(si, self._with_column(data, st.size, shndx_pos, col2))
            if ext is not None and SHN_XINDEX in values:
                if any(compress(words, map(ne, column[:m], repeat(SHN_XINDEX)))):
                    is_x = map(eq, column[:m], repeat(SHN_XINDEX))
                    moved = list(map(add, words, map(mul, is_x, map(sub, map(new.__getitem__, words), words))))
                else:                   # (the other symbols' words are 0, and stay: new[0] is 0)
                    moved = list(map(new.__getitem__, words))
                if moved != words:
                    self._store(shndx_sec, self._file_words("I", moved).tobytes() + bytes(ext[4 * m:]))
            return
        # a relocatable object with a symbol (not a section's) in a removed section: the symbols of the removed
        # sections go (what the walk below comes to at the first such symbol; found by columns, through
        # SHT_SYMTAB_SHNDX where symbols' sections are there)
        if self.elf.is_relocatable and (_LEAN or SHN_XINDEX not in values):
            xwords = None
            if SHN_XINDEX in values:
                # every symbol's SHT_SYMTAB_SHNDX word (0 past the table's end), and whether those of the symbols
                # whose st_shndx is not SHN_XINDEX are all 0 (as LLVM and GNU as write them)
                xwords = words + [0] * (nsyms - m) if m < nsyms else words
                xwords = (xwords, not any(compress(xwords, map(ne, column, repeat(SHN_XINDEX)))))
            real = self._real_shndx(column, ext if SHN_XINDEX in values else None, values, xwords)
            if self._defines_in_removed(real, removed, data, st.size):
                self._drop_symbols(si, new, removed, data, st, column, ext, shndx_sec, real, xwords)
                return
        out = None
        neutral = []
        u16 = struct.Struct(e + "H")
        for k, shndx in enumerate(column):
            real = shndx
            if shndx == SHN_XINDEX:
                if ext is None or 4 * k + 4 > len(ext):
                    continue
                real = self._u32.unpack_from(ext, 4 * k)[0]
            elif shndx == 0 or shndx >= SHN_LORESERVE:
                continue
            if real in removed:
                v = st.unpack_from(data, k * st.size)
                nm, info = (v[0], v[1]) if self.is64 else (v[0], v[3])
                if info & 0xF == STT_SECTION:
                    neutral.append(k)
                    continue
                if self.elf.is_relocatable:
                    # a relocatable object: the symbols of the removed sections go, if nothing kept uses them
                    # (from the table as read: the loop so far may have renumbered some of ``ext``)
                    ext0 = bytearray(self._plain(shndx_sec)) if shndx_sec is not None else None
                    self._drop_symbols(si, new, removed, data, st, column, ext0, shndx_sec)
                    return
                name = self._symbol_name(si, nm)
                raise self._err(f"symbol {name!r} (index {k}) is defined in section [{real}] {self.name(real)}, "
                                f"which would be removed (refused: the symbol would dangle)", real)
            nr = new[real] if real < n else real
            if nr == real:
                continue
            if out is None:
                out = bytearray(data)
            if shndx == SHN_XINDEX:
                self._u32.pack_into(ext, 4 * k, nr)
            else:
                u16.pack_into(out, k * st.size + shndx_pos, nr)
        if neutral:
            used = self._symbols_used_by_relocations(si)
            for k in neutral:
                if k in used:
                    raise self._err(f"the section symbol (index {k}) of a removed section is used by a kept "
                                    f"relocation (refused)", si)
                if out is None:
                    out = bytearray(data)
                # A local section symbol whose section is gone becomes a null local symbol (no index shifts).
                out[k * st.size:(k + 1) * st.size] = bytes(st.size)
                if ext is not None and 4 * k + 4 <= len(ext):
                    self._u32.pack_into(ext, 4 * k, 0)
            # .llvm_addrsig lists no symbol of a removed section: the nulled ones leave it (no index moves)
            types = self.cols[_TYPE]
            sigs = [i for i in compress(range(n), map(eq, links, repeat(si)))
                    if i and not rm[i] and types[i] == _SHT_LLVM_ADDRSIG]
            if sigs:
                mapping = list(range(nsyms))
                for k in neutral:
                    mapping[k] = -1
                for i in sigs:
                    b = self._renumbered_addrsig(i, mapping, nsyms)
                    if b != self._plain(i):
                        self._store(i, b)
        if out is not None:
            self._store(si, bytes(out))
        if ext is not None and bytes(ext) != self._plain(shndx_sec):
            self._store(shndx_sec, bytes(ext))

    def _real_shndx(self, column, ext, values=None, xwords=None) -> list:
        """The section of every symbol (``column``: the st_shndx values, ``values`` their set if known) through
        SHT_SYMTAB_SHNDX when extended; 0 where none.  ``xwords``: (the SHT_SYMTAB_SHNDX word of every symbol,
        whether those of the symbols without SHN_XINDEX are all 0), when known."""
        if max(column, default=0) < SHN_LORESERVE:
            return list(column)
        # reserved ones (SHN_XINDEX too) -> 0, the others stay
        reserved = {x: 0 for x in (values if values is not None else set(column)) if x >= SHN_LORESERVE}
        base = map(reserved.get, column, column)
        if ext is None:
            return list(base)
        if xwords is not None and xwords[1]:
            return list(map(add, base, xwords[0]))      # (0 where the st_shndx is not SHN_XINDEX)
        is_x = map(eq, column, repeat(SHN_XINDEX))
        words = xwords[0] if xwords is not None else self._ext_words(ext, len(column))
        return list(map(add, base, map(mul, is_x, words)))

    def _ext_words(self, ext, count: int) -> list:
        """The first ``count`` words of an SHT_SYMTAB_SHNDX table (0 past its end)."""
        out = self._words_of("I", ext[:min(len(ext) // 4, count) * 4])
        out += repeat(0, count - len(out))
        return out

    def _defines_in_removed(self, real, removed, data, size) -> bool:
        """Whether a symbol other than a section symbol is defined in one of the ``removed`` sections (``real``: the
        section of every symbol, as :meth:`_real_shndx` gives)."""
        pos = 4 if self.is64 else 12      # st_info
        info = data[pos:len(real) * size:size]
        return any(info[k] & 0xF != STT_SECTION for k in compress(range(len(real)), removed.flags_of(real)))

    def _input_run(self, indices):
        """The input's bytes of relocation sections ``indices`` (ascending) as one view of it (not a copy) where they
        are input sections (uncompressed, no new contents, none in a patch) that lie one after the other in the file;
        else None."""
        cols = self.cols
        if not indices or not self._stored_as_input(indices):
            return None
        offs = list(map(cols[_OFFSET].__getitem__, indices))
        end = _end_if_adjacent(offs, list(map(cols[_SIZE].__getitem__, indices)))
        if end is None or end > len(self.data):
            return None
        if any(p[0] < end and offs[0] < p[1] for p in self._patches):
            return None
        return memoryview(self.data)[offs[0]:end]

    def _stored_as_input(self, indices) -> bool:
        """Whether the sections ``indices`` (ascending, at least one) are input sections with no new contents and
        none SHF_COMPRESSED: their bytes in the input are what they hold."""
        if indices[-1] >= self._n_orig or self._content and not self._content.keys().isdisjoint(indices):
            return False
        # (the flags' second byte as the input's table has it, where the flags are the input's: no look at each)
        return _LEAN and not self._owned[_FLAGS] and not self.elf.has_compressed() or not any(
            f & SHF_COMPRESSED for f in set(map(self.cols[_FLAGS].__getitem__, indices)))

    def _plain_many(self, indices) -> list:
        """:meth:`_plain` of each of ``indices`` (sliced by columns where they are input sections, uncompressed)."""
        cols = self.cols
        if not indices:
            return []
        if self._patches or max(indices) >= self._n_orig or SHT_NOBITS in map(cols[_TYPE].__getitem__, indices) or any(
                map(and_, map(cols[_FLAGS].__getitem__, indices), repeat(SHF_COMPRESSED))):
            return list(map(self._plain, indices))
        offs = list(map(cols[_OFFSET].__getitem__, indices))
        ends = map(add, offs, map(cols[_SIZE].__getitem__, indices))
        out = list(map(self.data.__getitem__, map(slice, offs, ends)))
        contents = self._content
        if contents:
            for k, i in enumerate(indices):
                c = contents.get(i)
                if c is not None:
                    out[k] = c
        return out

    def _renumber_relocations(self, users, dropped, mapping, nsyms, runs=None) -> dict | None:
        """{index: new bytes} of the REL/RELA sections of ``users`` with their symbol indices renumbered by
        ``mapping``, by columns (the sections of one type joined); None when one of them uses a ``dropped`` symbol or
        is not a whole number of entries (the caller then walks them one by one, and refuses)."""
        types = self.cols[_TYPE]
        edits: dict = {}
        if not dropped:
            return edits
        low = dropped.low
        sizes = self.cols[_SIZE]
        from _bisect import bisect_right
        for t in (SHT_REL, SHT_RELA):
            idx = [i for i in users if types[i] == t]
            if not idx:
                continue
            # a batch of sections at a time, about 4 MiB of entries (what this holds at once stays small)
            ends = list(accumulate(map(sizes.__getitem__, idx)))
            start = 0
            while start < len(idx):
                stop = max(bisect_right(ends, (ends[start - 1] if start else 0) + _BATCH_BYTES), start + 1)
                if not self._renumber_batch(t, idx[start:stop], edits, dropped, low, mapping, nsyms, runs):
                    return None
                start = stop
        return edits

    def _renumber_batch(self, t, idx, edits, dropped, low, mapping, nsyms, runs=None) -> bool:
        """:meth:`_renumber_relocations` for the sections ``idx`` of type ``t``: their new bytes into ``edits``; False
        where the caller is to walk them (a dropped symbol used, an entry cut short)."""
        size = (24 if t == SHT_RELA else 16) if self.is64 else (12 if t == SHT_RELA else 8)
        shift, mask = (32, 0xFFFFFFFF) if self.is64 else (8, 0xFF)
        wide = 8 if self.is64 else 4
        b = self._input_run(idx) if _LEAN else None     # (one slice where they lie one after the other)
        if b is not None:
            parts = None
            lens = list(map(self.cols[_SIZE].__getitem__, idx))
        else:
            parts = self._plain_many(idx)
            lens = list(map(len, parts))
        if any(map(mod, lens, repeat(size))):
            return False
        if b is None:
            b = b"".join(parts)
        # ELF64 of this machine's byte order: r_sym is the 32-bit word at byte 12 (little-endian) or 8 (big-endian)
        # of each entry, read and written as a column of words
        words = self.is64 and (self.elf.endian == "<") == (sys.byteorder == "little")
        if words and _LEAN:
            at = (3 if sys.byteorder == "little" else 2)
            column = memoryview(b).cast("I")[at::size // 4]
            new_words = _lanes_renumbered(column, runs, nsyms) if runs is not None and len(runs) <= _LANE_RUNS else None
            if new_words is None:
                try:
                    # every index in the table and none of them dropped (-1 does not fit): one step in C, from the
                    # column as it lies in the entries
                    new_words = _array("I", map(mapping.whole().__getitem__, column), len(column))
                except (IndexError, OverflowError):
                    new_words = None        # (worked out below: refused, or an index past the table kept)
                else:
                    if memoryview(new_words).cast("B") == column.tobytes():
                        return True
            elif not new_words:
                return True     # (every symbol used is below the first dropped one: nothing moves)
            else:
                new_words = memoryview(new_words).cast("I")
            if new_words is not None:
                out = bytearray(b)
                mv = memoryview(out).cast("I")
                mv[at::size // 4] = new_words
                mv.release()
                del new_words
                if parts is None:       # one slice of the input: its new bytes as one patch (see _patches)
                    start = self.cols[_OFFSET][idx[0]]
                    edits.setdefault(None, []).append([start, start + len(out), out, idx])
                    return True
                cuts = list(map(slice, accumulate(lens, initial=0), accumulate(lens)))
                mv = memoryview(out)
                pieces = list(map(bytes, map(mv.__getitem__, cuts)))
                mv.release()
                del out
                old = parts if parts is not None else map(b.__getitem__, cuts)
                edits.update(compress(zip(idx, pieces), map(ne, pieces, old)))
                return True
            syms = column.tolist()
        else:
            infos_col = self._wide_column(b, size, wide, wide)
            syms = list(map(rshift, infos_col, repeat(shift)))
        if isinstance(b, memoryview):
            b = b.tobytes()
        if max(syms, default=0) < low:
            return True         # every symbol used is below the first dropped one: nothing moves, nothing refused
        if not dropped.isdisjoint(syms):
            return False
        m = mapping.whole()
        if max(syms, default=0) >= nsyms:
            new_syms = [m[x] if x < nsyms else x for x in syms]
        else:
            new_syms = list(map(m.__getitem__, syms))
        if new_syms == syms:
            return True
        if words:
            out = bytearray(b)
            mv = memoryview(out).cast("I")
            mv[(3 if sys.byteorder == "little" else 2)::size // 4] = _array("I", new_syms)
            mv.release()
            nb = bytes(out)
            del out
        else:
            new_col = list(map(or_, map(lshift, new_syms, repeat(shift)), map(and_, infos_col, repeat(mask))))
            nb = self._with_wide_column(b, size, wide, wide, new_col)
        del syms, new_syms
        cuts = list(map(slice, accumulate(lens, initial=0), accumulate(lens)))
        pieces = list(map(nb.__getitem__, cuts))
        old = parts if parts is not None else map(b.__getitem__, cuts)
        edits.update(compress(zip(idx, pieces), map(ne, pieces, old)))
        return True

    def _drop_symbols(self, si, new, removed, data, st, column, ext, shndx_sec, real=None, xwords=None, gone=None,
                      big=None):
        """Symbol table ``si`` of a relocatable object without the symbols defined in removed sections (section
        symbols too): the kept ones renumbered in order (locals stay first; sh_info is the new first global),
        with every kept user of symbol indices rewritten -- REL/RELA relocations, SHT_SYMTAB_SHNDX, group
        signatures, .llvm_addrsig (the dropped symbols leave it) and the LLVM <= 12 call-graph profile.  A dropped
        symbol that a kept relocation, group or call-graph edge uses is refused, as are kept SHT_CREL relocations
        on this table (this writer does not rewrite them)."""
        rm = self._removed
        n = len(rm)
        e = self.elf.endian
        size = st.size
        nsyms = len(column)
        types, links, infos = self.cols[_TYPE], self.cols[_LINK], self.cols[_INFO]
        # The section of every symbol (through SHT_SYMTAB_SHNDX when extended); 0 where none.  (``real``: the
        # caller's, where no symbol's section is in SHT_SYMTAB_SHNDX.)
        # (``gone``, ``big``: the caller's, by bytes -- see _fix_symbols_lean -- where no symbol's section is in
        # SHT_SYMTAB_SHNDX: 1 for each symbol in a removed section; the symbols with a reserved st_shndx)
        if gone is not None:
            real = None             # (what refuse reads, worked out there)
        else:
            if real is None:
                real = self._real_shndx(column, ext)
            gone = removed.flags_of(real)
        flags = bytearray(gone)     # 1 for each dropped symbol (symbol 0 never)
        flags[0] = 0
        flags = bytes(flags)
        dropped = _Flagged(flags)
        kept_sections = rm.translate(_FLIP)
        if _LEAN and n == self._n_orig and not self._owned[_LINK]:
            # the kept sections whose sh_link is the table: by the link words as the input's header table has them,
            # compared as lanes of integers and ANDed with the kept flags (no pass over the column per section)
            linked = int.from_bytes(self._link_words_equal(si), "little") & int.from_bytes(kept_sections, "little")
            users = list(compress(range(n), linked.to_bytes(n, "little")))
        else:
            users = list(compress(range(n), map(eq, links, repeat(si))))
            users = list(compress(users, map(kept_sections.__getitem__, users)))
        if users and not users[0]:
            del users[0]            # (section 0)

        def refuse(k, how, where):
            nm = st.unpack_from(data, k * size)[0]
            what = self._symbol_name(si, nm)
            what = f"symbol {what!r}" if what else "the section symbol"
            sec = (real if real is not None else self._real_shndx(column, ext))[k]
            raise self._err(f"{what} (index {k}) is defined in section [{sec}] "
                            f"{self.name(sec)}, which would be removed, but {how} [{where}] {self.name(where)} "
                            f"uses it (refused: the symbol would dangle)", sec)
        # The runs of dropped rows (and so of kept ones) by find; old index -> new index (dropped ones: -1) from them
        keep = flags.translate(_FLIP)
        runs = []
        i = flags.find(1)
        while i >= 0:
            j = flags.find(0, i)
            if j < 0:
                j = nsyms
            runs.append((i, j))
            i = flags.find(1, j)
        mapping = _SymbolMap(keep, runs)
        renumbered = None
        if SHT_CREL not in map(types.__getitem__, users):
            renumbered = self._renumber_relocations(users, dropped, mapping, nsyms, runs)
        group_sigs = None
        if renumbered is not None:      # (done: the others are walked below)
            coded = self.type_codes() if _LEAN else None
            if coded is not None:
                # (the users' types as the writer's code bytes: each kind of them by a translate)
                code, codes = coded
                ucodes = bytes(map(codes.__getitem__, users))

                def of(kinds, want=1):
                    table = bytearray((1 - want,)) * 256
                    for t in kinds & code.keys():
                        table[code[t]] = want
                    return ucodes.translate(table)
                groups = list(compress(users, of(_GROUP_TYPES)))
            else:
                utypes = list(map(types.__getitem__, users))
                groups = list(compress(users, map(SHT_GROUP.__eq__, utypes)))
            sigs = list(map(infos.__getitem__, groups))
            if _LEAN and groups and dropped.isdisjoint(sigs) and max(sigs) < nsyms:
                # the groups' signatures by columns (none of them dropped): the few other users walked below
                group_sigs = (groups, sigs)
                if coded is not None:
                    users = list(compress(users, of(_REL_GROUP_TYPES, 0)))
                else:
                    users = list(compress(users, map(not_, map(_REL_GROUP_TYPES.__contains__, utypes))))
            elif coded is not None:
                users = list(compress(users, of(_RELA_TYPES, 0)))
            else:
                users = list(compress(users, map(not_, map(_RELA_TYPES.__contains__, utypes))))
        rel_edits = {}
        for i in users:
            t = types[i]
            if t == SHT_CREL:
                raise self._err(f"symbols defined in removed sections would have to go, and this writer cannot "
                                f"renumber the symbols of SHT_CREL relocations (refused; first such symbol: index "
                                f"{dropped.low})", i)
            if t in (SHT_REL, SHT_RELA):
                rst = struct.Struct(e + (("QQq" if t == SHT_RELA else "QQ") if self.is64 else
                                         ("IIi" if t == SHT_RELA else "II")))
                shift, mask = (32, 0xFFFFFFFF) if self.is64 else (8, 0xFF)
                b = self._plain(i)
                whole = len(b) // rst.size * rst.size
                wide = 8 if self.is64 else 4
                infos_col = self._wide_column(b[:whole], rst.size, wide, wide)      # r_info of every entry
                syms = [v >> shift for v in infos_col]
                hit = dropped.intersection(syms)
                if hit:
                    refuse(min(hit), "kept relocation section", i)
                m = mapping.whole()
                if max(syms, default=0) >= nsyms:     # an index past the table: stays as it is
                    new_syms = [m[x] if x < nsyms else x for x in syms]
                else:
                    new_syms = list(map(m.__getitem__, syms))
                if new_syms != syms:
                    new_col = list(map(or_, map(lshift, new_syms, repeat(shift)), map(and_, infos_col, repeat(mask))))
                    rel_edits[i] = self._with_wide_column(b[:whole], rst.size, wide, wide, new_col) + b[whole:]
            elif t == SHT_GROUP:
                sig = infos[i]
                if sig in dropped:
                    refuse(sig, "the signature of kept group", i)
            elif t == _SHT_LLVM_CG_PROFILE_OLD:
                b = self._plain(i)
                edges = list(struct.iter_unpack(e + "IIQ", b[:len(b) // 16 * 16]))
                hit = dropped.intersection(x for f, t2, _w in edges for x in (f, t2))
                if hit:
                    refuse(min(hit), "a call-graph profile edge in", i)
                m = mapping.whole()
                rel_edits[i] = b"".join(struct.pack(e + "IIQ", m[f] if f < nsyms else f, m[t2] if t2 < nsyms else t2, w)
                                        for f, t2, w in edges) + b[len(b) // 16 * 16:]
            elif t == _SHT_LLVM_ADDRSIG:
                rel_edits[i] = self._renumbered_addrsig(i, mapping.whole(), nsyms)
        # Nothing kept uses a dropped symbol: write the new tables.
        if renumbered:              # (only those that changed; and the patches)
            self._patches += renumbered.pop(None, ())
            if any(map(and_, map(self.cols[_FLAGS].__getitem__, renumbered), repeat(SHF_COMPRESSED))):
                for i, b in renumbered.items():
                    self._store(i, b)
            else:
                self._content.update(renumbered)
        for i, b in rel_edits.items():
            if b != self._plain(i):
                self._store(i, b)
        ginfo = [i for i in users if types[i] == SHT_GROUP and infos[i] < nsyms]
        if ginfo:
            old = list(map(infos.__getitem__, ginfo))
            for i, x, y in zip(ginfo, old, mapping.of(old)):
                if x != y:
                    self._own_column(_INFO)[i] = y
        if group_sigs is not None:
            groups, sigs = group_sigs
            new_sigs = mapping.of(sigs)
            if new_sigs != sigs:
                any(map(self._own_column(_INFO).__setitem__, groups, new_sigs))      # (each gives None)
        # st_shndx of the kept symbols renumbered by columns (as in _fix_symbols), then the kept rows joined
        shndx_pos = 6 if self.is64 else 14
        table = data[:nsyms * size]
        if big is not None:
            col2 = _moved_shndx(column, new, big)
        else:
            col2 = list(map(_shndx_lut(new).__getitem__, column))
        if col2 != column:
            table = self._with_column(table, size, shndx_pos, col2)
        mv = memoryview(table)
        parts = []
        prev = 0
        for i, j in runs:               # the runs of kept rows between the dropped ones
            if i > prev:
                parts.append(mv[prev * size:i * size])
            prev = j
        parts.append(mv[prev * size:])
        parts.append(data[nsyms * size:])
        self._store(si, b"".join(parts))
        if ext is not None:
            words = list(compress(xwords[0] if xwords is not None else self._ext_words(ext, nsyms), keep))
            is_x = map(eq, compress(column, keep), repeat(SHN_XINDEX))
            if xwords is not None and xwords[1] and max(words, default=0) < n and (not words or not rm[words[0]]):
                # the words of symbols without SHN_XINDEX are 0 (and stay: new[0] is 0); those with it name kept
                # sections (the symbols of removed ones are gone; symbol 0's is checked here)
                words = list(map(new.__getitem__, words))
            elif max(words, default=0) < n:       # (a kept section's word moves to its new index)
                keeps = rm.translate(_FLIP)
                moves = map(mul, map(keeps.__getitem__, words), map(sub, map(new.__getitem__, words), words))
                words = list(map(add, words, map(mul, is_x, moves)))
            else:
                words = [new[r] if x and 0 < r < n and not rm[r] else r for x, r in zip(is_x, words)]
            self._store(shndx_sec, self._file_words("I", words).tobytes())
        first_global = infos[si]
        self._own_column(_INFO)[si] = first_global - flags.count(1, 0, first_global)

    def _renumbered_addrsig(self, i, mapping, nsyms) -> bytes:
        """The ULEB128 symbol indices of .llvm_addrsig ``i`` renumbered by ``mapping``, dropped ones left out."""
        b = self._plain(i)
        out = bytearray()
        pos, end = 0, len(b)
        while pos < end:
            try:
                x, pos, _ = read_uleb(b, pos, end, 6)
            except ULEBError as exc:
                raise self._err(f"address-significance table: bad ULEB128 symbol index at byte {exc.start} "
                                f"(cannot renumber it)", i, exc.start) from None
            y = mapping[x] if x < nsyms else x
            if y >= 0:
                out += uleb_encode(y)
        return bytes(out)

    def _column(self, table: bytes, entsize: int, pos: int) -> list:
        """The 16-bit field at ``pos`` of every ``entsize``-byte entry of ``table``."""
        if (self.elf.endian == "<") == (sys.byteorder == "little"):
            return memoryview(table).cast("H")[pos // 2::entsize // 2].tolist()
        only = struct.Struct(self.elf.endian + (f"{pos}xH{entsize - pos - 2}x"))
        return [x for (x,) in only.iter_unpack(table)]

    def _wide_column(self, table: bytes, entsize: int, pos: int, wide: int) -> list:
        """The ``wide``-byte (4 or 8) unsigned field at ``pos`` of every ``entsize``-byte entry of ``table``."""
        code = "Q" if wide == 8 else "I"
        if (self.elf.endian == "<") == (sys.byteorder == "little") and entsize % wide == 0 and pos % wide == 0:
            return memoryview(table).cast(code)[pos // wide::entsize // wide].tolist()
        only = struct.Struct(self.elf.endian + (f"{pos}x{code}{entsize - pos - wide}x"))
        return [x for (x,) in only.iter_unpack(table)]

    def _with_wide_column(self, data: bytes, entsize: int, pos: int, wide: int, column: list) -> bytes:
        """``data`` with the ``wide``-byte field at ``pos`` of each entry set from ``column``."""
        out = bytearray(data)
        code = "Q" if wide == 8 else "I"
        if (self.elf.endian == "<") == (sys.byteorder == "little") and entsize % wide == 0 and pos % wide == 0:
            mv = memoryview(out).cast(code)
            mv[pos // wide::entsize // wide] = memoryview(_array(code, column))
            mv.release()
            return bytes(out)
        one = struct.Struct(self.elf.endian + code)
        for r, v in enumerate(column):
            one.pack_into(out, r * entsize + pos, v)
        return bytes(out)

    def _with_column(self, data: bytes, entsize: int, pos: int, column: list) -> bytes:
        """``data`` (a table of ``entsize``-byte entries) with the 16-bit field at ``pos`` of each entry set from
        ``column``: one strided store of the whole column."""
        out = bytearray(data)
        words = self._file_words("H", column)
        mv = memoryview(out)[:len(column) * entsize].cast("H")
        mv[pos // 2::entsize // 2] = memoryview(words)
        mv.release()
        return bytes(out)

    def _symbols_used_by_relocations(self, si) -> set:
        used = set()
        rm = self._removed
        types, links, infos = self.cols[_TYPE], self.cols[_LINK], self.cols[_INFO]
        for i in range(len(rm)):
            t = types[i]
            if not rm[i] and t == SHT_CREL and links[i] == si:
                raise self._err("a removed section has a section symbol, and this writer cannot tell whether the "
                                "SHT_CREL relocations use it (refused)", i)
            if rm[i] or t not in (SHT_REL, SHT_RELA) or links[i] != si:
                continue
            b = self._plain(i)
            if self.is64:
                st = struct.Struct(self.elf.endian + ("QQq" if t == SHT_RELA else "QQ"))
                used.update(v[1] >> 32 for v in st.iter_unpack(b[:len(b) // st.size * st.size]))
            else:
                st = struct.Struct(self.elf.endian + ("IIi" if t == SHT_RELA else "II"))
                used.update(v[1] >> 8 for v in st.iter_unpack(b[:len(b) // st.size * st.size]))
        for i in range(len(rm)):
            if not rm[i] and types[i] == SHT_GROUP and links[i] == si:
                used.add(infos[i])
        return used

    def _symbol_name(self, si, nm) -> str:
        link = self.cols[_LINK][si]
        if not 0 < link < len(self._removed):
            return f"#{nm}"
        try:
            b = self._plain(link)
        except ObjllvmError:        # (only for the message: the stored bytes then)
            b = self.content(link)
        end = b.find(b"\0", nm)
        return b[nm:end if end >= 0 else len(b)].decode("utf-8", "replace")

    def _fixed_ranges(self, cols):
        """Byte ranges of the input that must stay where they are."""
        elf = self.elf
        ehsize = 64 if self.is64 else 52
        size = len(self.data)
        ranges = [(0, ehsize)]
        if elf.e_phoff and elf.e_phnum:
            end = elf.e_phoff + elf.e_phnum * elf.e_phentsize
            if end > size:
                raise self._err(f"program header table ({elf.e_phnum} entries of {elf.e_phentsize} bytes at "
                                f"{elf.e_phoff:#x}) runs past the end of the file ({size:#x} bytes): cannot keep it "
                                f"in place", offset=0x20 if self.is64 else 0x1C)
            ranges.append((elf.e_phoff, end))
        for k, seg in enumerate(getattr(elf, "segments", [])):
            if seg["filesz"]:
                if seg["offset"] + seg["filesz"] > size:
                    raise self._err(f"program header {k}: segment contents ({seg['filesz']:#x} bytes at "
                                    f"{seg['offset']:#x}) run past the end of the file ({size:#x} bytes): cannot keep "
                                    f"the segment in place", offset=elf.e_phoff + k * elf.e_phentsize)
                ranges.append((seg["offset"], seg["offset"] + seg["filesz"]))
        has_segments = len(ranges) > 1
        if not has_segments:
            return [list(ranges[0])]
        types, flags, offs, sizes = cols[_TYPE], cols[_FLAGS], cols[_OFFSET], cols[_SIZE]
        # A section with bytes that overlaps a fixed range stays where it is as a whole: its bytes inside the range
        # cannot move, and its bytes outside it are copied with them.  So the fixed ranges are the spans of the
        # connected groups of overlapping items (fixed ranges and sections with bytes) that hold a fixed range:
        # a segment whose file range ends inside a section (lld's PT_GNU_RELRO with p_filesz = p_memsz, ending in
        # .symtab) fixes that whole section.  Sorted by start, such a group is a run of items each starting
        # before the furthest end of those before it.
        items = [(a, b, True) for a, b in ranges]
        if elf.e_shoff and elf.e_shoff < size:
            items.append((elf.e_shoff, min(elf.e_shoff + self._n_orig * self._shdr.size, size), False))
        for i in range(1, self._n_orig):
            if types[i] != SHT_NOBITS and sizes[i] and offs[i] < size:
                items.append((offs[i], min(offs[i] + sizes[i], size), bool(flags[i] & SHF_ALLOC)))
        items.sort()
        merged = []
        start, end, fixed = items[0]
        for a, b, f in items[1:]:
            if a < end:
                if b > end:
                    end = b
                fixed = fixed or f
            else:
                if fixed:
                    merged.append([start, end])
                start, end, fixed = a, b, f
        if fixed:
            merged.append([start, end])
        # (fixed ranges that touch are one)
        out = [merged[0]]
        for a, b in merged[1:]:
            if a <= out[-1][1]:
                out[-1][1] = max(out[-1][1], b)
            else:
                out.append([a, b])
        return out

    def _layout(self, cols, new) -> bytes:
        elf = self.elf
        data = self.data
        rm = self._removed
        contents = self._content
        n, n_orig = len(rm), self._n_orig
        types, flags, offs, sizes, aligns = cols[_TYPE], cols[_FLAGS], cols[_OFFSET], cols[_SIZE], cols[_ALIGN]
        fixed = self._fixed_ranges(cols)
        has_segments = len(fixed) > 1 or bool(elf.e_phnum)
        mv = memoryview(data)

        low = fixed[0][1] if len(fixed) == 1 and fixed[0][0] == 0 else None
        if self._patches and not (_LEAN and low is not None and not has_segments):
            self._materialize_patches()         # (only the lean walk puts them in place)

        def in_fixed(a, b):
            if low is not None and a >= low:      # only the ELF header is fixed (a relocatable object)
                return None
            for fa, fb in fixed:
                if a < fb and b > fa:
                    return (fa, fb)
            return None

        keep = rm.translate(_FLIP)
        shnum = rm.count(0)                 # (the flags are 0 or 1)
        shsize = shnum * self._shdr.size
        # Walk the input's sections in file order: by (offset, size > 0), then index; -1 is the section header
        # table, which comes before a section with the same key.  (Sizes: SHT_NOBITS sections have none.)
        eff = [0 if t == SHT_NOBITS else z for t, z in zip(types, sizes)] if SHT_NOBITS in types else list(sizes)
        sh_in = elf.e_shoff if elf.e_shoff else len(data)
        sh_in_size = n_orig * self._shdr.size
        eff.append(sh_in_size)                               # eff[-1], offs_w[-1]: the header table's
        offs_w = list(offs[:n_orig])
        offs_w.append(sh_in)
        # empty ones before the others, each in index order; then a stable sort by offset
        order = [-1] if not sh_in_size else []
        empty = self._empty_sections(eff) if _LEAN else None
        if empty is not None:       # a few: the others are the ranges between them
            order += empty
            if sh_in_size:
                order.append(-1)
            prev = 0
            for i in empty:
                order += range(prev + 1, i)
                prev = i
            order += range(prev + 1, n_orig)
        else:
            idx = range(1, n_orig)
            order += compress(idx, map(not_, eff[1:n_orig]))
            if sh_in_size:
                order.append(-1)
            order += compress(idx, eff[1:n_orig])
        order.sort(key=offs_w.__getitem__)
        fixed_sec = set()
        if has_segments:
            for i in order:
                size = eff[i]
                if i < 0 or not size or rm[i]:
                    continue
                off = offs[i]
                if in_fixed(off, off + size) is not None:
                    fixed_sec.add(i)
                    c = contents.get(i)
                    newsize = len(c) if c is not None else sizes[i]
                    if newsize != sizes[i]:
                        raise self._err(f"section lies inside a segment or is allocated: its size cannot change "
                                        f"({sizes[i]} -> {newsize} bytes)", i)
        chunks, late = [], []        # (offset, bytes); ``late`` ones win (the fixed ranges)
        src = self._src = {}
        for fa, fb in fixed:
            late.append((fa, self._input_view(mv, fa, fb)))
        pos = prev_end = fixed[0][1]     # just after the ELF header
        new_off = list(offs)      # each section's offset in the output (unless it moves: its input offset)
        shoff = None
        size_in = len(data)
        beyond = []          # kept sections whose input offset is past the end of the file, with new contents
        bound = self._size_bound(shsize, keep, aligns)
        cap = self._align_cap()
        # Input bytes that land contiguously in the output (one section after another, or the padding before a
        # section and the section) are copied as one slice: run = [output offset, input start, input end].
        packed = None
        if _LEAN and low is not None and not has_segments:
            # a relocatable object (only the ELF header fixed): the lean walk, or None where it gives way
            packed = self._pack_object(order, offs_w, eff, new_off, shsize, bound, cap, pos, mv)
        if self._patches:
            # the patches' bytes in place of the input's; where the lean walk gave way or they are not found as runs
            # of the input, the layout again with them as contents of their own
            spliced = self._splice_patches(packed[3], packed[4], new_off) if packed is not None else None
            if spliced is None:
                self._materialize_patches()
                return self._layout(cols, new)
            packed = packed[:3] + spliced + packed[5:]
            patched = True
        else:
            patched = False
        if packed is not None:
            shoff, pos, prev_end, chunks, at_table, top = packed
        else:
            new_off[:] = offs
            run_out = run_in = run_end = -1
            append = chunks.append
            for ref in order:
                off = offs_w[ref]
                size = eff[ref]
                end = off + size
                if ref < 0:
                    if elf.e_shoff and shsize <= size and in_fixed(off, end) is not None:
                        shoff = off         # (overlapping a segment: it stays, as a section there does)
                    else:
                        shoff = self._place(off if elf.e_shoff else None, shsize, 8 if self.is64 else 4, pos,
                                            prev_end, in_fixed)
                    pos = max(pos, shoff + shsize)
                    prev_end = max(prev_end, end)
                    continue
                if rm[ref]:
                    if off <= size_in and end > prev_end:
                        prev_end = end
                    continue
                if off > size_in:
                    # Only an empty or SHT_NOBITS section can claim an offset past the end (the container checks the
                    # others): it has no bytes there, so it must not move anything else out to that offset.
                    if contents.get(ref):
                        beyond.append(ref)      # new bytes: placed after everything, like an added section
                    else:
                        new_off[ref] = off
                    continue
                if has_segments:
                    if ref in fixed_sec:
                        new_off[ref] = off
                        body = contents.get(ref)
                        if body is not None:
                            if run_end >= 0:
                                append((run_out, self._input_view(mv, run_in, run_end)))
                                run_end = -1
                            late.append((off, body))
                        if end > pos:
                            pos = end
                        if end > prev_end:
                            prev_end = end
                        continue
                    if flags[ref] & SHF_ALLOC and (types[ref] == SHT_NOBITS or not size):
                        new_off[ref] = off        # allocated sections never move in a file with segments
                        continue
                body = contents.get(ref)
                if body is not None:
                    n_out = len(body)
                else:
                    n_out = (end if end < size_in else size_in) - off      # the input's bytes (none for NOBITS)
                if pos == prev_end and off >= pos and (low is not None or not n_out):
                    cand = off                # in step with the input, nothing fixed in the way: keep the offset
                elif not n_out and has_segments and in_fixed(off, off + 1) is not None:
                    cand = off                # an empty section inside a fixed range: its offset is there as it was
                elif low is not None and pos >= low:
                    a = aligns[ref]           # a relocatable object: nothing fixed after the header
                    if a > 1 and (a & (a - 1) or a > cap):
                        a = self._alignment(ref)      # (refused there)
                    cand = pos + (off - prev_end if off > prev_end else 0)
                    if a > 1:
                        cand = (cand + a - 1) // a * a
                else:
                    cand = self._place(off, n_out, self._alignment(ref), pos, prev_end, in_fixed)
                new_off[ref] = cand
                if cand + n_out > bound:
                    self._check_end(cand + n_out, bound, ref)
                if n_out:
                    gap = off - prev_end
                    if gap > 0 and cand == pos + gap and (low is not None and pos >= low or pos == prev_end
                                                          or in_fixed(pos, cand) is None):
                        # the input's padding, as it was (in step with the input, at its own offsets)
                        if run_end == prev_end and run_out + (run_end - run_in) == pos:
                            run_end = off
                        else:
                            if run_end >= 0:
                                append((run_out, self._input_view(mv, run_in, run_end)))
                            run_out, run_in, run_end = pos, prev_end, off
                    if body is None:
                        if run_end == off and run_out + (run_end - run_in) == cand:
                            run_end = off + n_out
                        else:
                            if run_end >= 0:
                                append((run_out, self._input_view(mv, run_in, run_end)))
                            run_out, run_in, run_end = cand, off, off + n_out
                    else:
                        if run_end >= 0:
                            append((run_out, self._input_view(mv, run_in, run_end)))
                            run_end = -1
                        append((cand, body))
                if size or n_out or not has_segments:
                    # (in a linked file an empty section takes nothing: the padding around it goes on)
                    if cand + n_out > pos:
                        pos = cand + n_out
                    if end > prev_end:
                        prev_end = end
            if run_end >= 0:
                append((run_out, self._input_view(mv, run_in, run_end)))
        beyond.sort()
        for ref in beyond + [i for i in range(n_orig, n) if not rm[i]]:
            body = contents[ref]
            cand = self._place(None, len(body), self._alignment(ref), pos, prev_end, in_fixed)
            new_off[ref] = cand
            self._check_end(cand + len(body), bound, ref)
            chunks.append((cand, body))
            pos = max(pos, cand + len(body))
        if shoff is None or shoff + shsize > (sh_in if elf.e_shoff else 0) + sh_in_size \
                and any(o < shoff + shsize and o + len(b) > shoff for o, b in chunks if b):
            # (only a table that grew can run into what follows it)
            shoff = self._place(None, shsize, 8 if self.is64 else 4, pos, prev_end, in_fixed)
        table = (shoff, self._header_table(new, new_off, shnum))
        ordered = packed is not None and shoff == packed[0]
        if ordered:
            # the lean walk's chunks are in offset order, none overlapping: the table goes where it was placed
            allc = late + chunks[:at_table]
            allc.append(table)
            allc += chunks[at_table:]
            total = allc[-1][0] + len(allc[-1][1])
        else:
            allc = chunks + late
            allc.append(table)          # (over the input's bytes, where the table lies in a segment's range)
            total = max(map(add, map(itemgetter(0), allc), map(len, map(itemgetter(1), allc))))
        # Bytes past everything the headers describe (a signature, an appended archive, padding) are data: kept,
        # at their offset when the output reaches exactly there, else right after the output (a move, reported).
        self.moves = []
        # (A relocatable object's sections and header table are packed after any change: that is its layout, not
        # reported.  In a linked file, offsets are something other tools may rely on: every move is.)
        if has_segments and elf.e_shoff and shoff != elf.e_shoff:
            self.moves.append(("(section header table)", elf.e_shoff, shoff, shsize))
        if packed is not None:      # (the lean walk found where the sections end)
            covered = self._covered_end(cols, fixed, sh_in, sh_in_size, (prev_end, top))
        else:
            covered = self._covered_end(cols, fixed, sh_in, sh_in_size, linked=has_segments)
        if covered < size_in:
            tail = self._input_view(mv, covered, size_in)
            at = covered if total == covered else total
            if at != covered:
                self.moves.append(("(data after the last section)", covered, at, len(tail)))
            allc.append((at, tail))
            total = at + len(tail)
            bound += len(tail)
        if has_segments:
            for i in range(1, n_orig):
                if not rm[i] and eff[i] and new_off[i] != offs[i] and offs[i] <= size_in:
                    self.moves.append((i, offs[i], new_off[i], eff[i]))
        if has_segments:
            allc[:0] = self._undescribed(cols, fixed, sh_in, sh_in_size, allc, min(total, size_in), mv)
        if patched and total > bound:
            # (the bound counts new contents, not patches: as contents of their own, the layout decides)
            self._materialize_patches()
            return self._layout(cols, new)
        self._check_end(total, bound, None)
        e = elf.endian
        raw_shnum, raw_shstrndx = struct.unpack_from(e + "HH", data, 0x3C if self.is64 else 0x30)
        ns = new[self.shstrndx] if 0 <= self.shstrndx < n and not rm[self.shstrndx] else 0
        e_shnum = 0 if shnum >= SHN_LORESERVE or raw_shnum == 0 else shnum
        e_shstrndx = SHN_XINDEX if ns >= SHN_LORESERVE or raw_shstrndx == SHN_XINDEX else ns
        if self.is64:
            head = ((e + "Q", 0x28, shoff), (e + "HH", 0x3C, e_shnum, e_shstrndx))
        else:
            head = ((e + "I", 0x20, shoff), (e + "HH", 0x30, e_shnum, e_shstrndx))
        if not elf.e_phnum and elf.e_phoff > total and self._changes_anything():
            # An empty program header table at an offset past the new end (the output is smaller than the input):
            # LLVM's tools reject the file ("program headers are longer than binary"); no table is e_phoff 0.
            head += ((e + "Q", 0x20, 0) if self.is64 else (e + "I", 0x1C, 0),)
        self.out_size, self.out_shoff = total, shoff
        self.out_copies = []
        self.out_parts = self._parts(allc, total, head, ordered, src, self.out_copies)
        self._src = {}
        return self.out_parts

    def _undescribed(self, cols, fixed, sh_in, sh_in_size, chunks, limit, mv) -> list:
        """(offset, view) pieces that keep the input's bytes no header describes -- not in a section (removed ones
        included), the section header table or a fixed range: padding, bytes between sections -- at their own
        offsets below ``limit``, wherever ``chunks`` put nothing there."""
        types, offs, sizes = cols[_TYPE], cols[_OFFSET], cols[_SIZE]
        n = self._n_orig
        used = [(a, b) for a, b in fixed]
        if self.elf.e_shoff:
            used.append((sh_in, sh_in + sh_in_size))
        used += [(o, o + z) for o, z, t in zip(offs[:n], sizes[:n], types[:n]) if z and t != SHT_NOBITS]
        taken = [(o, o + len(b)) for o, b in chunks if len(b)]
        free = _minus([(0, limit)], used)
        if not free:
            return []
        return [(a, self._input_view(mv, a, b)) for a, b in _minus(free, taken)]

    def _changes_anything(self) -> bool:
        """Whether a section is removed, added, given new contents or a changed header (else the output is the
        input's bytes)."""
        return bool(self._content or self._patches or self._removed.count(1) or len(self._removed) != self._n_orig
                    or any(self._owned))

    def _input_view(self, mv, a: int, b: int):
        """``mv[a:b]`` (a view of the input), noted in ``_src`` when it is SEND_MIN bytes or more."""
        v = mv[a:b]
        if b - a >= SEND_MIN:
            self._src[id(v)] = (v, a)
        return v

    def _empty_sections(self, eff, most: int = 64):
        """The input sections (section 0 aside) with no bytes in the file (``eff``: their sizes, 0 for SHT_NOBITS), in
        index order, found by searches in C; None when there are more than ``most``."""
        found = []
        i = 0
        try:
            for _ in range(most + 1):
                i = eff.index(0, i + 1, self._n_orig)
                found.append(i)
        except ValueError:
            return found
        return None

    def _pack_object(self, order, offs_w, eff, new_off, shsize, bound, cap, pos, mv):
        """The walk of :meth:`_layout` for a file where only the ELF header is fixed (a relocatable object), with
        fewer steps per section: (header table offset, pos, prev_end, chunks in offset order, none overlapping,
        where the header table's goes in the list, where the sections' bytes end as _covered_end counts them),
        the kept sections' offsets set in
        ``new_off``.  None (``new_off`` then half set) where the general walk is to decide: a section past the end
        of the input, an alignment it would refuse, a layout past ``bound``, no header table offset."""
        if not self.elf.e_shoff:
            return None
        rm = self._removed
        n_orig = self._n_orig
        size_in = len(self.data)
        contents = self._content
        aligns = self.cols[_ALIGN]
        # kind of each input section (the header table last, read as [-1]): 0 kept, 1 removed, 2 new contents,
        # 3 the section header table
        kind = list(rm[:n_orig])
        kind.append(3)
        bodies = [i for i in contents if i < n_orig and not rm[i]]
        for i in bodies:
            kind[i] = 2
        # alignment of each section to place it at: 1 for 0 and 1, 0 for what _alignment refuses
        good = {a: 1 if a <= 1 else 0 if a & (a - 1) or a > cap else a for a in set(aligns)}
        al = None
        if len(good) == 1:
            al = [good[aligns[0]]] * len(aligns)
        elif all(a == v for a, v in good.items() if a):
            # (every alignment but 0 placed as it is, as compilers write them: the column as it is, its few zeros 1)
            al = aligns.tolist() if isinstance(aligns, memoryview) else list(aligns)
            if 0 in good:
                zeros = []
                try:
                    for _ in range(65):
                        zeros.append(al.index(0, zeros[-1] + 1 if zeros else 0))
                except ValueError:
                    any(map(al.__setitem__, zeros, repeat(1)))
                else:
                    al = None           # (many: by the table)
        if al is None:
            al = list(map(good.__getitem__, aligns))
        al.append(8 if self.is64 else 4)
        prev_end = pos
        top = 0                 # where the last byte of a section (not empty, inside the input) ends
        shoff = None
        chunks = []
        append = chunks.append
        # the current run of input bytes copied as one slice: [run_in, run_end) to run_in - run_shift
        run_in = run_end = run_shift = -1
        # Runs shorter than ``small`` (with the zeros between them) are copied into one buffer, ``acc`` (from output
        # offset acc_off to acc_end): a function's code between two removed sections is a run, and tens of thousands
        # of views of the input cost more than their bytes (objects the output holds, each a page fault's share, and
        # a step each when written).  None while patches are to go in: those are put in place of views.
        small = _COALESCE if not self._patches else 0
        acc = None
        acc_off = acc_end = 0
        for ref in order:
            off = offs_w[ref]
            k = kind[ref]
            if k == 1:              # removed: the output falls behind the input
                end = off + eff[ref]
                if end > prev_end and off <= size_in:
                    prev_end = end
                if end > top and end > off and off < size_in:
                    top = end
                continue
            end = off + eff[ref]
            if end > size_in:
                return None
            gap = off - prev_end
            if pos == prev_end and gap >= 0:
                cand = off          # in step with the input
            else:
                cand = pos + gap if gap > 0 else pos
                a = al[ref]
                if a != 1:
                    if not a:
                        return None
                    cand = (cand + a - 1) & -a
            if k == 0:
                if end > off:
                    if end > top:
                        top = end
                    # the section's bytes, with the padding before it where it lands as it was
                    start = prev_end if gap > 0 and cand == pos + gap else off
                    if start == run_end and off - cand == run_shift:
                        run_end = end
                    else:
                        if run_end >= 0:
                            o = run_in - run_shift
                            if run_end - run_in < small:
                                if acc is not None and o - acc_end < small:
                                    if o > acc_end:
                                        acc += _ZEROS[:o - acc_end]
                                    acc += mv[run_in:run_end]
                                else:
                                    if acc is not None:
                                        append((acc_off, acc))
                                    acc = bytearray(mv[run_in:run_end])
                                    acc_off = o
                                acc_end = o + run_end - run_in
                            else:
                                self._flush_runs(append, mv, acc, acc_off, run_in, run_end, run_shift)
                                acc = None
                        run_in, run_end, run_shift = start, end, off - cand
                    c = cand + end - off
                    if c > pos:
                        pos = c
                elif cand > pos:
                    pos = cand
                new_off[ref] = cand
            elif k == 2:
                if end > top and end > off:
                    top = end
                body = contents[ref]
                n_out = len(body)
                if n_out:
                    if gap > 0 and cand == pos + gap:
                        if prev_end == run_end and off - cand == run_shift:
                            run_end = off
                        else:
                            self._flush_runs(append, mv, acc, acc_off, run_in, run_end, run_shift)
                            acc = None
                            run_in, run_end, run_shift = prev_end, off, off - cand
                    self._flush_runs(append, mv, acc, acc_off, run_in, run_end, run_shift)
                    acc = None
                    run_end = -1
                    append((cand, body))
                if cand + n_out > pos:
                    pos = cand + n_out
                new_off[ref] = cand
            else:                   # the section header table (its chunk goes in at chunks[at_table])
                self._flush_runs(append, mv, acc, acc_off, run_in, run_end, run_shift)
                acc = None
                run_end = -1
                shoff, at_table = cand, len(chunks)
                if cand + shsize > pos:
                    pos = cand + shsize
            if end > prev_end:
                prev_end = end
        self._flush_runs(append, mv, acc, acc_off, run_in, run_end, run_shift)
        if pos > bound or shoff is None:
            return None
        return shoff, pos, prev_end, chunks, at_table, top

    def _flush_runs(self, append, mv, acc, acc_off, run_in, run_end, run_shift) -> None:
        """:meth:`_pack_object`'s pending bytes into its chunks (``append``): the buffer of short runs being filled
        (``acc``, at output offset ``acc_off``; None: none), then the current run of the input, [run_in, run_end) at
        output offset run_in - run_shift (none where run_end < 0), as a view of it (:meth:`_input_view`)."""
        if acc is not None:
            append((acc_off, acc))
        if run_end >= 0:
            append((run_in - run_shift, self._input_view(mv, run_in, run_end)))

    def _covered_end(self, cols, fixed, sh_in, sh_in_size, walked=None, linked=False) -> int:
        """Where the last byte that a header describes ends in the input: the ELF header, the program header
        table and segments (``fixed``), every section's contents (to the end of the file at most), the section
        header table.  ``walked``: (prev_end, top) of :meth:`_pack_object`, whose walk saw every section but
        section 0: the furthest end of any of them, and of one with bytes inside the input."""
        size_in = len(self.data)
        types, offs, sizes = cols[_TYPE], cols[_OFFSET], cols[_SIZE]
        n = self._n_orig
        end = max(fixed[-1][1], sh_in + sh_in_size if self.elf.e_shoff else 0)
        if len(offs) != n:
            offs, sizes, types = offs[:n], sizes[:n], types[:n]
        if SHT_NOBITS in types or max(offs, default=0) >= size_in:
            # sections with bytes inside the input
            if walked is not None:
                end = max(end, walked[1])
                if n and sizes[0] and types[0] != SHT_NOBITS and offs[0] < size_in:
                    end = max(end, offs[0] + sizes[0])
            else:
                ends = [o + z for o, z, t in zip(offs, sizes, types) if z and t != SHT_NOBITS and o < size_in]
                if ends:
                    end = max(end, max(ends))
        elif walked is not None:
            end = max(end, walked[0], offs[0] + sizes[0] if n else 0)
        elif n and linked:
            # (sections with bytes: an empty one describes none, and bytes after the last byte a header describes
            # are the file's tail, even where an empty section's offset lies among them)
            end = max(end, max(compress(map(add, offs, sizes), sizes), default=0))
        elif n:
            end = max(end, max(map(add, offs, sizes)))
        return min(end, size_in)

    @staticmethod
    def _assemble(chunks, total: int, head) -> bytes:
        """The output: ``total`` bytes, zero but where ``chunks`` ((offset, bytes), later ones winning where
        they overlap) put bytes, with the ELF header fields ``head`` ((format, offset, values...)) packed in."""
        return b"".join(ElfWriter._parts(chunks, total, head))

    @staticmethod
    def _parts(chunks, total: int, head, ordered: bool = False, src=None, copies=None) -> list:
        """:meth:`_assemble` as a list of buffers to be written one after the other (no copy of the input's
        bytes: slices of it stay views).  Chunks that do not overlap (a relocatable object's) are taken in
        offset order with zeros between; overlapping ones are painted in priority order (later ones win).
        ``ordered``: the caller knows them to be in offset order already, none overlapping.  ``src``
        (id(view) -> (view, input offset)): views of the input whose offsets are known; ``copies`` is given
        (part index, input offset) of each of them that is a part, in order."""
        if ordered:
            order = chunks
        else:
            order = sorted(((o, b) for o, b in chunks if len(b)), key=itemgetter(0))
            pos, ok = 0, True
            for o, b in order:
                if o < pos:
                    ok = False
                    break
                pos = o + len(b)
            if not ok:
                order = ElfWriter._paint(chunks)
        need = max(off + struct.calcsize(fmt) for fmt, off, *_ in head)
        # the ELF header fields: the first ``need`` bytes made as a small buffer of their own
        pieces, pos = [], 0
        zeros = bytes(4096)
        found = []          # (index in pieces, input offset)
        for o, b in order:
            if o > pos:
                gap = o - pos
                pieces.append(zeros[:gap] if gap <= 4096 else bytes(gap))
            n = len(b)
            if n >= SEND_MIN and src:
                e = src.get(id(b))
                if e is not None and e[0] is b:
                    found.append((len(pieces), e[1]))
            pieces.append(b)
            pos = o + n
        if pos < total:
            pieces.append(bytes(total - pos))
        # split off and patch the first ``need`` bytes
        first = bytearray()
        popped = 0
        rest = None         # (input offset, bytes taken) of a noted view whose start went into ``first``
        while pieces and len(first) < need:
            p = pieces.pop(0)
            take = need - len(first)
            first += p[:take]
            if len(p) > take:
                pieces.insert(0, memoryview(p)[take:] if not isinstance(p, memoryview) else p[take:])
                rest = next(((a, take) for i, a in found if i == popped), None)
                break
            popped += 1
        if len(first) < need:
            first += bytes(need - len(first))
        for fmt, off, *values in head:
            struct.pack_into(fmt, first, off, *values)
        if copies is not None:
            # indices in the returned list: ``first`` comes before what is left of ``pieces``
            if rest is not None:
                copies.append((1, rest[0] + rest[1]))
            copies.extend((i - popped + 1, a) for i, a in found if i > popped or i == popped and rest is None)
        return [bytes(first)] + pieces

    @staticmethod
    def _paint(chunks) -> list:
        """Non-overlapping (offset, buffer) pieces, in offset order, of ``chunks`` where later ones win."""
        import bisect
        starts, items = [], []          # sorted, non-overlapping: items[k] = (start, end, buffer, base)
        for o, b in chunks:
            n = len(b)
            if not n:
                continue
            e = o + n
            k = bisect.bisect_right(starts, o) - 1
            if k >= 0 and items[k][1] <= o:
                k += 1
            k = max(k, 0)
            keep_left = keep_right = None
            j = k
            while j < len(items) and items[j][0] < e:
                a0, e0, b0, base0 = items[j]
                if a0 < o:
                    keep_left = (a0, o, b0, base0)
                if e0 > e:
                    keep_right = (e, e0, b0, base0)
                j += 1
            repl = [x for x in (keep_left, (o, e, b, o), keep_right) if x is not None]
            items[k:j] = repl
            starts[k:j] = [x[0] for x in repl]
        out = []
        for a0, e0, b0, base0 in items:
            if a0 == base0 and e0 - a0 == len(b0):
                out.append((a0, b0))
            else:
                mv = b0 if isinstance(b0, memoryview) else memoryview(b0)
                out.append((a0, mv[a0 - base0:e0 - base0]))
        return out

    def _header_table(self, new, new_off, shnum) -> bytes | bytearray:
        """The new section header table: kept sections in index order, with new offsets, sizes and the
        section indices in sh_link / sh_info (relocation targets, SHF_INFO_LINK) renumbered."""
        rm = self._removed
        n = len(rm)
        contents = self._content
        data = self.data
        e = self.elf.endian
        raw_shnum, raw_shstrndx = struct.unpack_from(e + "HH", data, 0x3C if self.is64 else 0x30)
        ns = new[self.shstrndx] if 0 <= self.shstrndx < n and not rm[self.shstrndx] else 0
        pack = self._shdr.pack
        # Section 0: extended numbering where needed, and where the input used it.  (Without extended numbering
        # sh_size is 0: a stray value would claim bytes at sh_offset that the output, perhaps smaller, lacks.)
        nm, t, fl, addr, off, size, link, info, al, es = (c[0] for c in self.cols)
        ext_num = shnum >= SHN_LORESERVE or raw_shnum == 0
        ext_str = ns >= SHN_LORESERVE or raw_shstrndx == SHN_XINDEX
        shdrs = [pack(nm, t, fl, addr, off, shnum if ext_num else 0, ns if ext_str else link, info, al, es)]
        keep = bytearray(rm.translate(_FLIP))
        keep[0] = 0                         # (section 0 is done)
        if keep.find(1) < 0:
            return shdrs[0]

        def kept(k):
            return compress(self.cols[k], keep)

        def renumber(values, few=False):
            # every value that names a kept section becomes its new index; anything else stays (by the new
            # index list itself where every value names a kept section; ``few``: the column has few distinct values,
            # as sh_link has, each worked out once)
            if not few and values and max(values) < n and not any(map(rm.__getitem__, values)):
                return list(map(new.__getitem__, values))
            to = {x: new[x] if x and x < n and not rm[x] else x for x in set(values)}
            return list(map(to.__getitem__, values))
        sizes = None            # (the input's, unless a kept section has new contents)
        for i, c in contents.items():
            if keep[i]:
                if sizes is None:
                    sizes = list(kept(_SIZE))
                sizes[new[i] - 1] = len(c)
        links = renumber(list(kept(_LINK)), few=True)
        # sh_info is a section index in relocation sections and where SHF_INFO_LINK says so: renumbered as one
        # column, the other kept sections with a nonzero sh_info (a group's signature symbol, ...) left out of it
        # (as 0: their values could make the column take the slow way) and given theirs back
        old_infos = list(kept(_INFO))
        flags = self.cols[_FLAGS]
        if _LEAN and 2 * len(self._of_types(_GROUP_TYPES)) > len(self._of_types(_REL_TYPES)):
            # by rows: the kept relocation sections and those with SHF_INFO_LINK (found in the flags' low byte as
            # the input has them, unless an edit changed the flags) renumbered, the others as they are
            if self._owned[_FLAGS]:
                linked = compress(range(n), map(and_, flags, repeat(SHF_INFO_LINK)))
            else:
                linked = compress(range(n), self.elf.flag_bytes().translate(_INFO_LINK_BYTE))
            linked = list(linked)
            rels = self._of_types(_REL_TYPES)
            at = rels if linked == rels else sorted(set(linked).union(rels))      # (alike, as compilers write them)
            at = list(compress(at, map(keep.__getitem__, at))) if at else []
            infos = old_infos
            if at:
                infos = list(old_infos)
                values = list(map(self.cols[_INFO].__getitem__, at))
                any(map(infos.__setitem__, map((-1).__add__, map(new.__getitem__, at)), renumber(values)))
        else:
            # (few groups, the other sections with an sh_info that is not a section index: they are left out of one
            # renumbered column)
            infos_all = self.cols[_INFO]
            coded = self.type_codes() if self._type_codes is not None else None
            if coded is not None and len(coded[1]) == n:
                # (the types' code bytes, made already: the sections of other types by a translate, then those of
                # them with a nonzero sh_info, by two compress in C rather than a set of every relocation section)
                code, codes = coded
                table = bytearray(b"\1") * 256
                for t in _REL_TYPES & code.keys():
                    table[code[t]] = 0
                not_rel = codes.translate(table)
                other = compress(compress(range(n), not_rel), compress(infos_all, not_rel))
            else:
                other = set(compress(range(n), infos_all)).difference(self._of_types(_REL_TYPES))
            rows = [new[i] - 1 for i in other if keep[i] and not flags[i] & SHF_INFO_LINK]
            if rows:
                infos = list(old_infos)
                any(map(infos.__setitem__, rows, repeat(0)))
                infos = renumber(infos)
                any(map(infos.__setitem__, rows, map(old_infos.__getitem__, rows)))
            else:
                infos = renumber(old_infos)
        # The input's rows of the kept sections (runs of neighbours copied whole), rows packed for added ones;
        # then the columns that change stored over them: offsets, sizes, sh_link, sh_info, and any column an
        # edit changed (flags of a section written uncompressed, ...).
        row = self._shdr.size
        n_orig = self._n_orig
        table = memoryview(self.data)[self.elf.e_shoff:self.elf.e_shoff + n_orig * row]
        out = bytearray(shdrs[0])           # (section 0's row first: the table is this one buffer)
        i = keep.find(1, 0, n_orig)
        while i >= 0:
            j = keep.find(0, i, n_orig)
            if j < 0:
                j = n_orig
            out += table[i * row:j * row]
            i = keep.find(1, j, n_orig)
        for i in range(n_orig, n):
            if keep[i]:
                out += pack(*(c[i] for c in self.cols))
        changed = {_OFFSET: list(compress(new_off, keep)), _LINK: links, _INFO: infos}
        if sizes is not None:
            changed[_SIZE] = sizes
        rows = memoryview(out)[row:]
        for k, owned in enumerate(self._owned):
            values = changed.get(k)
            if values is None and owned:
                values = list(kept(k))
            if values is not None:
                self._store_column(rows, k, values)
        rows.release()
        return out

    def _store_column(self, table: bytearray, k: int, values: list) -> None:
        """Set header field ``k`` of every row of ``table`` (rows of section headers) from ``values``."""
        if self.is64:
            pos, code = _FIELDS64[k]
        else:
            pos, code = 4 * k, "I"
        words = self._file_words(code, values)
        size = words.itemsize
        mv = memoryview(table).cast(code)
        mv[pos // size::self._shdr.size // size] = memoryview(words)
        mv.release()

    def _alignment(self, i: int) -> int:
        """The alignment to place section ``i`` at: sh_addralign, which must be 0, 1 or a power of two no larger
        than the input file (or than 64 KiB): a larger one cannot have been honoured by the input's layout,
        and would only pad the output."""
        a = self.cols[_ALIGN][i]
        if a <= 1:
            return 1
        where = None
        if i < self._n_orig:
            where = self.elf.e_shoff + i * self._shdr.size + (0x30 if self.is64 else 0x20)
        if a & (a - 1):
            raise self._err(f"sh_addralign {a:#x} is not a power of two: cannot place the section (expected 0, 1 or "
                            f"a power of two)", i, where)
        cap = self._align_cap()
        if a > cap:
            raise self._err(f"sh_addralign {a:#x} is larger than the file ({len(self.data):#x} bytes) and than "
                            f"{MIN_ALIGN_CAP:#x}: cannot place the section (expected an alignment the input's own "
                            f"layout could honour)", i, where)
        return a

    def _align_cap(self) -> int:
        return max(len(self.data), MIN_ALIGN_CAP)

    def _size_bound(self, shsize, keep, aligns) -> int:
        """The most bytes any rewrite of this input can need: twice the input (each input byte copied once, and
        the input's own padding kept), the new contents, alignment padding (at most the input's size, or
        64 KiB: no more than the largest alignment less one for each kept section) and a new section header
        table.  ELF32 offsets are 32-bit as well."""
        cap = self._align_cap()
        contents = self._content
        grow = sum(map(len, compress(contents.values(), map(keep.__getitem__, contents))))
        most = max(aligns, default=0)
        pad = min((min(most, cap) - 1) * keep.count(1), cap) if most > 1 else 0
        bound = 2 * len(self.data) + grow + pad + shsize + 8
        return bound if self.is64 else min(bound, 0xFFFFFFFF)

    def _check_end(self, end, bound, index):
        """Refuse (before allocating anything) a layout that would reach past ``bound``."""
        if end <= bound:
            return
        s = self.sections[index] if index is not None else None
        what = "this section" if s is not None else "the section header table"
        raise self._err(f"the new layout would put {what} up to offset {end:#x}, past {bound:#x}, the most a rewrite "
                        f"of this {len(self.data):#x}-byte input can need (twice its size, plus the new contents, "
                        f"alignment padding and the section header table): overlapping or misplaced sections? "
                        f"(refused)", index, s.offset if s is not None and s.orig is not None else None)

    @staticmethod
    def _place(orig_off, size, align, pos, prev_end, in_fixed) -> int:
        """Where an item goes: its input offset while the output is still in step with the input, else after
        ``pos`` (keeping the input's padding), aligned, and clear of the fixed ranges."""
        align = max(align or 1, 1)
        if orig_off is not None and pos == prev_end and orig_off >= pos:
            cand = orig_off
        else:
            gap = max(0, orig_off - prev_end) if orig_off is not None else 0
            cand = _align(pos + gap, align)
        while size:
            f = in_fixed(cand, cand + size)
            if f is None:
                break
            cand = _align(f[1], align)
        if not size:
            f = in_fixed(cand, cand + 1)
            if f is not None and orig_off is None:
                cand = _align(f[1], align)
        return cand
