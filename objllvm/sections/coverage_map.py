"""Coverage-mapping sections (``-fcoverage-mapping``; rustc ``-C instrument-coverage``).

One codec, kind ``coverage``, for ``__llvm_covmap`` and ``__llvm_covfun`` (COFF ``.lcovmap$M``/``.lcovfun$M``,
Mach-O ``__LLVM_COV,__llvm_cov*``), coverage-mapping format versions 4 to 7 (stored 3 to 6; LLVM 19 and LLVM 22
both write version 7, the one with MC/DC regions):

* ``__llvm_covmap``: one record per translation unit: ``u32 0, u32 file-names size, u32 0, u32 version`` and the
  file-name list (``uleb count, uleb uncompressed size, uleb compressed size``, then zlib data or
  ``uleb length, bytes`` per name; the first name is the compilation directory), padded to 8;
* ``__llvm_covfun``: one record per function: ``u64 name hash, u32 mapping size, u64 structural hash,
  u64 file-list hash`` (packed, 28 bytes), the mapping, padding to 8.  The mapping: ``uleb file count`` and that
  many indices into the unit's file list, ``uleb expression count`` and (LHS, RHS) counter pairs, then per file
  ``uleb region count`` and the regions: a counter or a region kind (expansion, skipped, branch, MC/DC decision,
  MC/DC branch) and its operands, then ``uleb line delta, uleb column, uleb line count, uleb end column`` (the end
  column's top bit marks a gap region).

Counters print as ``0`` (zero), ``#N`` (counter N) and ``eN`` (expression N); an expression as ``#0 - #1``.
Function names come from the object's name lists by hash, file names from the ``__llvm_covmap`` record whose
file-list hash the function names.

A ``__llvm_covfun`` section is read at once into region columns (``_decode_covfun_packed``; the Region objects
are made when ``Mapping.regions`` is first read) and written to JSON from those columns (``covfun_json_chunks``,
the text of ``to_dict`` without a dict per region); anything unusual goes record by record through
``decode_mapping``, which reports it.  docs/profile-coverage.md, "How ``__llvm_covfun`` is read and written".
"""
from __future__ import annotations

from .._model import dataclass, field, from_packed, no_gc
from ..binary import ULEBError, Reader, decode_text, encode_text, pack_uint, read_uleb, uleb_encode
from ..errors import DecodeError
from .registry import Codec, Table, register
from .support.instrprof import (COVERAGE_ROLES, ObjectCache, cached_per_object, deflate, inflate, name_hash,
                                names_by_hash, role_for, section_role)

VERSIONS = (3, 4, 5, 6)            # stored values (format versions 4-7); LLVM 19 and 22 write 6
KINDS = ("code", "expansion", "skipped", "gap", "branch", "mcdc-decision", "mcdc-branch")
CODE, EXPANSION, SKIPPED, GAP, BRANCH, DECISION, MCDC_BRANCH = range(7)
GAP_BIT = 1 << 31
WHOLE_LINE_END = 0xFFFFFFFF


def counter_text(v: int) -> str:
    tag = v & 3
    if tag == 0:
        return "0"
    if tag == 1:
        return f"#{v >> 2}"
    return f"e{v >> 2}"


def counter_parse(s) -> int:
    if isinstance(s, int):
        return s
    s = str(s)
    if s == "0":
        return 0
    if s.startswith("#"):
        return (int(s[1:]) << 2) | 1
    if s.startswith("e"):      # the tag (add or subtract) is the reference's: 'e3+' or 'e3-'
        raise DecodeError(f"counter {s!r}: an expression reference needs its kind ('e3+' or 'e3-')")
    if s.startswith("+e") or s.startswith("-e"):
        return (int(s[2:]) << 2) | (3 if s[0] == "+" else 2)
    raise DecodeError(f"counter {s!r}: expected '0', '#N', '+eN' or '-eN'")


def counter_json(v: int) -> str:
    tag = v & 3
    if tag < 2:
        return counter_text(v)
    return f"{'+' if tag == 3 else '-'}e{v >> 2}"


# -- __llvm_covmap ------------------------------------------------------------------------------------------------
@dataclass
class FileList:
    names: list = field(default_factory=list)      # str; the first is the compilation directory (version >= 6)
    compressed: bytes | None = None
    raw: bytes | None = None                       # the blob as stored, when re-encoding would differ

    def encode(self) -> bytes:
        if self.raw is not None:
            return self.raw
        plain = b"".join(uleb_encode(len(b)) + b for b in (encode_text(n) for n in self.names))
        if self.compressed is not None:
            comp = self.compressed
            import zlib
            try:
                ok = zlib.decompress(comp) == plain
            except zlib.error:
                ok = False
            if not ok:
                comp = deflate(plain)
            return uleb_encode(len(self.names)) + uleb_encode(len(plain)) + uleb_encode(len(comp)) + comp
        return uleb_encode(len(self.names)) + uleb_encode(len(plain)) + uleb_encode(0) + plain


@dataclass
class CovMapRecord:
    offset: int
    version: int                     # stored value (6: format version 7)
    files: FileList
    filenames_hash: int              # MD5 of the stored file-list blob: the key covfun records name
    n_records: int = 0
    coverage_size: int = 0
    padding: bytes = b""


@dataclass
class CoverageMap:
    records: list = field(default_factory=list)


def _read_file_list(blob: bytes, version: int, base: int) -> FileList:
    r = Reader(blob)
    count = r.uleb("file-name count")
    ulen = r.uleb("uncompressed size of the file names")
    clen = r.uleb("compressed size of the file names")
    if clen:
        r.need(clen, "compressed file names")
        comp = blob[r.pos:r.pos + clen]
        plain = inflate(comp, ulen, "file names", base + r.pos)
        r.pos += clen
        if not r.at_end():
            raise DecodeError(f"{r.remaining()} bytes after the compressed file names", offset=base + r.pos)
        pr, pbase = Reader(plain), None
    else:
        comp = None
        pr, pbase = r, base
    names = []
    if count > pr.remaining() + 1:
        raise DecodeError(f"{count} file names cannot fit in {pr.remaining()} bytes", offset=base)
    try:
        for _ in range(count):
            n = pr.uleb("file-name length")
            names.append(decode_text(pr.bytes(n, "file name")))
    except DecodeError as exc:
        if pbase is None:
            exc.message = f"in the uncompressed file names: {exc.message}"
            exc.offset = base
        else:
            exc.offset += pbase
        raise
    if not pr.at_end():
        raise DecodeError(f"{pr.remaining()} bytes after {count} file names", offset=base + (pr.pos if pbase is not None
                                                                                             else 0))
    out = FileList(names, comp)
    if out.encode() != blob:
        out.raw = bytes(blob)
    return out


def decode_covmap(data, e="<") -> CoverageMap:
    out = CoverageMap()
    r = Reader(data, e)
    n = len(data)
    while r.pos < n:
        start = r.pos
        try:
            nrec = r.u32("record count (0)")
            fsize = r.u32("file-name list size")
            csize = r.u32("coverage size (0)")
            version = r.u32("coverage-mapping version")
            if version not in VERSIONS:
                raise DecodeError(f"coverage-mapping version {version + 1} (stored {version}): expected versions 4 "
                                  f"to 7 (stored 3-6; LLVM 19 and 22 write 7)", offset=start + 12)
            if nrec or csize:
                raise DecodeError(f"record count {nrec} and coverage size {csize}: expected 0 and 0 (function "
                                  f"records live in __llvm_covfun from version 4)", offset=start)
            blob = r.bytes(fsize, "file-name list")
            files = _read_file_list(blob, version, start + 16)
            end = min((r.pos + 7) & ~7, n)
            pad = r.bytes(end - r.pos, "padding")
        except DecodeError as exc:
            exc.partial = out
            raise
        out.records.append(CovMapRecord(start, version, files, name_hash(blob), nrec, csize, pad))
    return out


def encode_covmap(m: CoverageMap, e="<") -> bytes:
    parts = []
    for rec in m.records:
        blob = rec.files.encode()
        parts.append(pack_uint(rec.n_records, 4, e) + pack_uint(len(blob), 4, e) +
                     pack_uint(rec.coverage_size, 4, e) + pack_uint(rec.version, 4, e) + blob + rec.padding)
    return b"".join(parts)


# -- __llvm_covfun ------------------------------------------------------------------------------------------------
@dataclass(slots=True)
class Region:
    kind: int                 # CODE ... MCDC_BRANCH as encoded (a gap region is a code region with ``gap``)
    file: int                 # the function's file id (index into ``FunctionRecord.file_ids``)
    counter: int              # encoded counter (code, gap, branch: true count; 0 for the others)
    line_start: int
    col_start: int            # as stored (0 with col_end 0: the whole line)
    line_end: int
    col_end: int              # as stored, without the gap bit
    gap: bool = False
    false_counter: int = 0    # branch regions
    expanded_file: int = 0    # expansion regions
    params: tuple = ()        # MC/DC decision: (bitmap index, conditions); branch: (id, true id, false id) + 1

    @property
    def display_kind(self) -> int:
        return GAP if self.gap else self.kind

    def span(self) -> tuple:
        """(line start, column start, line end, column end) as llvm-cov shows them."""
        if self.col_start == 0 and self.col_end == 0:
            return (self.line_start, 1, self.line_end, WHOLE_LINE_END)
        return (self.line_start, self.col_start, self.line_end, self.col_end)


class Mapping:
    """A function's mapping: ``file_ids`` (indices into the unit's file list), ``expressions`` ((lhs, rhs)
    encoded counters) and ``regions`` (:class:`Region`, file by file).  A plain record like the other models
    (positional or keyword construction, ``==`` by value, ``repr``); a decoded one holds its regions in its
    section's columns (:class:`_Packed`) and makes the Region objects when ``regions`` is first read."""
    __slots__ = ("file_ids", "expressions", "_regions", "_packed", "_first", "_counts")
    __match_args__ = ("file_ids", "expressions", "regions")

    def __init__(self, file_ids=None, expressions=None, regions=None):
        self.file_ids = [] if file_ids is None else file_ids
        self.expressions = [] if expressions is None else expressions
        self._regions = [] if regions is None else regions
        self._packed = None

    @classmethod
    def _lazy(cls, file_ids, expressions, packed, first, counts):
        m = cls.__new__(cls)
        m.file_ids = file_ids
        m.expressions = expressions
        m._regions = None
        m._packed = packed
        m._first = first            # index of its first region in packed's columns
        m._counts = counts          # regions of each file id
        return m

    regions = from_packed(lambda m, packed: packed.regions(m._first, m._counts))

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.file_ids, self.expressions, self.regions) == (other.file_ids, other.expressions, other.regions)

    __hash__ = None

    def __repr__(self):
        return f"Mapping(file_ids={self.file_ids!r}, expressions={self.expressions!r}, regions={self.regions!r})"


@dataclass
class FunctionRecord:
    offset: int
    name_hash: int
    func_hash: int
    filenames_hash: int
    mapping: Mapping | None
    raw: bytes | None = None          # the mapping bytes when they do not re-encode the same (non-minimal ULEBs)
    padding: bytes = b""
    name: str | None = None           # derived (name lists)
    files: list | None = None         # derived (covmap): file names of file_ids


@dataclass
class CoverageFunctions:
    records: list = field(default_factory=list)


def _uleb_reader(data, end):
    """A fast ULEB128 reader over ``data``; returns (read(pos, what) -> (value, pos), flags) where flags[0] turns
    True when a value was not minimally encoded."""
    flags = [False]

    def read(pos, what):
        if pos >= end:
            raise DecodeError(f"expected {what} (ULEB128), ran off the end of the mapping", offset=pos)
        b = data[pos]
        if b < 0x80:
            return b, pos + 1
        try:
            result, pos, minimal = read_uleb(data, pos, end)
        except ULEBError as exc:
            raise DecodeError(f"truncated {what} (ULEB128)" if exc.truncated else f"{what} (ULEB128) is too long",
                              offset=exc.start) from None
        if not minimal:
            flags[0] = True
        return result, pos
    return read, flags


U32 = 0xFFFFFFFF


def decode_mapping(data, start: int, end: int):
    """The mapping in ``data[start:end]``: (Mapping, minimal) -- minimal False when some ULEB was padded."""
    read, flags = _uleb_reader(data, end)
    m = Mapping()
    pos = start
    nfiles, pos = read(pos, "file count")
    if nfiles > end - pos:
        raise DecodeError(f"{nfiles} file ids cannot fit in {end - pos} bytes", offset=start)
    for _ in range(nfiles):
        v, pos = read(pos, "file index")
        m.file_ids.append(v)
    nexpr, p2 = read(pos, "expression count")
    if nexpr > (end - p2) // 2:
        raise DecodeError(f"{nexpr} expressions cannot fit in {end - p2} bytes", offset=pos)
    pos = p2
    exprs = m.expressions
    for _ in range(nexpr):
        lhs, pos = read(pos, "expression LHS")
        rhs, pos = read(pos, "expression RHS")
        exprs.append((lhs, rhs))

    def check(c, at):
        if c & 2 and (c >> 2) >= nexpr:
            raise DecodeError(f"counter refers to expression {c >> 2}, the function has {nexpr}", offset=at)
        if c > U32:
            raise DecodeError(f"counter {c:#x} does not fit in 32 bits", offset=at)

    for i, (lhs, rhs) in enumerate(exprs):
        check(lhs, start)
        check(rhs, start)
    regions = m.regions
    for fid in range(nfiles):
        at = pos
        nreg, pos = read(pos, "region count")
        if nreg > (end - pos) // 5:
            raise DecodeError(f"{nreg} regions cannot fit in {end - pos} bytes (5 or more each)", offset=at)
        line = 0
        for _ in range(nreg):
            at = pos
            if pos < end and data[pos] < 0x80:      # the common case, inline: a one-byte ULEB
                head = data[pos]
                pos += 1
            else:
                head, pos = read(pos, "counter or region kind")
            kind = CODE
            counter = fc = expanded = 0
            params = ()
            if head & 3:
                if head & 2 and head >> 2 >= nexpr or head > U32:
                    check(head, at)
                counter = head
            elif head & 4:
                kind = EXPANSION
                expanded = head >> 3
                if expanded >= nfiles:
                    raise DecodeError(f"expansion of file id {expanded}, the function has {nfiles}", offset=at)
            else:
                k = head >> 3
                if k == CODE:
                    pass
                elif k == SKIPPED:
                    kind = SKIPPED
                elif k == BRANCH or k == MCDC_BRANCH:
                    kind = k
                    counter, pos = read(pos, "branch true counter")
                    check(counter, at)
                    fc, pos = read(pos, "branch false counter")
                    check(fc, at)
                    if k == MCDC_BRANCH:
                        a, pos = read(pos, "MC/DC condition id")
                        b, pos = read(pos, "MC/DC true id")
                        c, pos = read(pos, "MC/DC false id")
                        if a == 0 or a > 0x7FFF or b > 0x7FFF or c > 0x7FFF:
                            raise DecodeError(f"MC/DC condition ids ({a}, {b}, {c}) stored plus one: expected "
                                              f"1 to 32767 (0 for none in the true and false ids)", offset=at)
                        params = (a, b, c)
                elif k == DECISION:
                    kind = DECISION
                    a, pos = read(pos, "MC/DC bitmap index")
                    b, pos = read(pos, "MC/DC condition count")
                    if a > U32 or b > 0x7FFF:
                        raise DecodeError(f"MC/DC decision (bitmap index {a}, {b} conditions) out of range", offset=at)
                    params = (a, b)
                else:
                    raise DecodeError(f"region kind {k}: expected 0 code, 2 skipped, 4 branch, 5 MC/DC decision or "
                                      f"6 MC/DC branch", offset=at)
            if pos + 4 <= end and (data[pos] | data[pos + 1] | data[pos + 2] | data[pos + 3]) < 0x80:
                line += data[pos]                    # four one-byte ULEBs (most regions), inline
                regions.append(Region(kind, fid, counter, line, data[pos + 1], line + data[pos + 2], data[pos + 3],
                                      False, fc, expanded, params))
                pos += 4
                continue
            delta, pos = read(pos, "line delta")
            cs, pos = read(pos, "start column")
            nl, pos = read(pos, "line count")
            ce, pos = read(pos, "end column")
            if delta > U32 or cs > U32 or nl > U32 or ce > U32:
                raise DecodeError("a region's line or column does not fit in 32 bits", offset=at)
            gap = bool(ce & GAP_BIT)
            line += delta
            regions.append(Region(kind, fid, counter, line, cs, line + nl, ce & ~GAP_BIT, gap, fc, expanded, params))
    if pos != end:
        raise DecodeError(f"{end - pos} bytes left after the mapping's regions", offset=pos)
    return m, not flags[0]


def encode_mapping(m: Mapping) -> bytes:
    out = bytearray()
    u = uleb_encode
    out += u(len(m.file_ids))
    for f in m.file_ids:
        out += u(f)
    out += u(len(m.expressions))
    for a, b in m.expressions:
        out += u(a)
        out += u(b)
    by_file = {}
    for r in m.regions:
        by_file.setdefault(r.file, []).append(r)
    for fid in range(len(m.file_ids)):
        regs = by_file.get(fid, [])
        out += u(len(regs))
        line = 0
        for r in regs:
            k = r.kind
            if k == CODE:
                out += u(r.counter)
            elif k == EXPANSION:
                out += u((r.expanded_file << 3) | 4)
            elif k == SKIPPED:
                out += u(SKIPPED << 3)
            elif k in (BRANCH, MCDC_BRANCH):
                out += u(k << 3)
                out += u(r.counter)
                out += u(r.false_counter)
                if k == MCDC_BRANCH:
                    for p in r.params:
                        out += u(p)
            elif k == DECISION:
                out += u(k << 3)
                for p in r.params:
                    out += u(p)
            out += u(r.line_start - line)
            out += u(r.col_start)
            out += u(r.line_end - r.line_start)
            out += u(r.col_end | (GAP_BIT if r.gap else 0))
            line = r.line_start
    return bytes(out)


HEADER = 28


def decode_covfun(data, e="<", obj=None) -> CoverageFunctions:
    """The function records; names and file names joined from ``obj``'s other sections when given.

    Two decoders give the same records: :func:`_decode_covfun_packed` (the whole section's mappings at
    once, column by column) and, when it meets anything unusual -- a padded or over-long ULEB128, a value
    out of range, a count that does not fit, any malformed record -- :func:`_decode_covfun_each`, record by
    record with :func:`decode_mapping`, which says what is wrong and where, and keeps the records before."""
    data = bytes(data)          # indexing bytes is faster than a memoryview's
    names = names_by_hash(obj)
    files = _files_by_hash(obj)
    try:
        return _decode_covfun_packed(data, e, names, files)
    except (_Slow, IndexError, ValueError):        # (IndexError, ValueError: values missing at the end)
        return _decode_covfun_each(data, e, names, files)


class _Slow(Exception):
    """The packed decoder met something it leaves to the record-by-record one."""


_LOW = bytes(range(0x80))
_HIGH = bytes(range(0x80, 0x100))
_TOP_BIT = bytes(0x80) + b"\1" * 0x80         # bytes.translate table: 1 for a byte with its top bit set, else 0


class _Ulebs(dict):
    """{multi-byte ULEB128 as bytes: its value}; a padded (not minimal) or over-long (more than 10 bytes, as
    read_uleb's limit) one raises _Slow."""

    def __missing__(self, b):
        if len(b) > 10 or b[-1] == 0:
            raise _Slow
        v = 0
        for k, x in enumerate(b):
            v |= (x & 0x7F) << (7 * k)
        if len(self) < 65536:
            self[b] = v
        return v


_ULEBS = _Ulebs()


def uleb_values(blob: bytes) -> list:
    """The values of ``blob``, a run of whole ULEB128s (its last byte below 0x80): the last byte of each value
    (the bytes without those that have their top bit set: the values, for those of one byte), then each value
    of several bytes put in its place (found by bytes.find in a map of the top bits, decoded once for all its
    occurrences).  _Slow for a padded or over-long one.  (A regular expression splitting the stream around
    the multi-byte values is slower here: 30 against 20 ms for 784 KB, 83,000 bytes with the top bit set,
    and the import of re takes 6 ms.)"""
    values = list(blob.translate(None, _HIGH))
    if len(values) == len(blob):
        return values
    find = blob.translate(_TOP_BIT).find
    value = _ULEBS.__getitem__
    high = 0                # bytes with the top bit before ``p``
    p = find(1)
    while p >= 0:
        q = find(0, p)      # the last byte of the value
        if q < 0:
            raise _Slow     # (a truncated one)
        values[p - high] = value(blob[p:q + 1])
        high += q - p
        p = find(1, q + 1)
    return values


class _Packed:
    """The regions of a section's function records, as columns: ``cols`` five values a region (the head --
    counter or region kind --, line delta, start column, line count, end column with the gap bit), ``lines``
    the start line of each, and the operands of the branch and MC/DC regions (``cx_index``: their region
    indices, ascending; ``cx_ops``: (head, operands...) of each); ``files``: (first region, regions, file id)
    of each run of regions of a file id above 0, in order (the others are file 0's)."""
    __slots__ = ("cols", "lines", "cx_index", "cx_ops", "files", "_cx")

    def __init__(self, cols, lines, cx_index, cx_ops, files=None):
        self.cols = cols
        self.lines = lines
        self.cx_index = cx_index
        self.cx_ops = cx_ops
        self.files = [] if files is None else files
        self._cx = None

    def regions(self, first: int, counts) -> list:
        """The Region objects of the function whose regions start at ``first``, ``counts`` of each file id."""
        cx = self._cx
        if cx is None:
            cx = self._cx = dict(zip(self.cx_index, self.cx_ops))
        cols, lines = self.cols, self.lines
        out = []
        app = out.append
        at = first
        for fid, n in enumerate(counts):
            for k in range(at, at + n):
                h, _, cs, nl, ce = cols[5 * k:5 * k + 5]
                ls = lines[k]
                gap = ce >= GAP_BIT
                if gap:
                    ce &= ~GAP_BIT
                if h & 3:
                    app(Region(CODE, fid, h, ls, cs, ls + nl, ce, gap))
                elif h & 4:
                    app(Region(EXPANSION, fid, 0, ls, cs, ls + nl, ce, gap, 0, h >> 3))
                elif h == 0:
                    app(Region(CODE, fid, 0, ls, cs, ls + nl, ce, gap))
                elif h == SKIPPED << 3:
                    app(Region(SKIPPED, fid, 0, ls, cs, ls + nl, ce, gap))
                else:
                    ops = cx[k]
                    if h == DECISION << 3:
                        app(Region(DECISION, fid, 0, ls, cs, ls + nl, ce, gap, 0, 0, ops[1:]))
                    else:
                        app(Region(h >> 3, fid, ops[1], ls, cs, ls + nl, ce, gap, ops[2], 0, ops[3:]))
            at += n
        return out


def _decode_covfun_packed(data, e, names, files) -> CoverageFunctions:
    """decode_covfun for well-formed sections: the headers one by one, then every mapping's ULEB128s as one
    list (uleb_values), then the records read from it, a region at a time for the branch, MC/DC and
    expansion regions and a run at a time for the others (a slice); the regions are kept as columns
    (_Packed) that Mapping.regions turns into Region objects when asked.  _Slow (or IndexError) for
    anything _decode_covfun_each would have to report or treat otherwise (IndexError or ValueError when the
    values run out before a record's end)."""
    import struct
    from itertools import accumulate
    unpack = struct.Struct(e + "QIQQ").unpack_from
    n = len(data)
    pos = 0
    heads, blobs, nvals = [], [], []
    tail = b""
    translate = bytes.translate
    while pos < n:
        if n - pos < HEADER:
            if heads and not data[pos:].strip(b"\0"):
                tail = data[pos:]
                break
            raise _Slow
        nh, size, fh, fref = unpack(data, pos)
        m = pos + HEADER
        end = m + size
        if end > n or not size or data[end - 1] >= 0x80:
            raise _Slow
        pend = min((end + 7) & ~7, n)
        blob = data[m:end]
        blobs.append(blob)
        nvals.append(len(translate(blob, None, _HIGH)))
        heads.append((pos, nh, fh, fref, data[end:pend]))
        pos = pend
    v = uleb_values(b"".join(blobs))
    del blobs
    cols, lines, cx_index, cx_ops, fruns = [], [], [], [], []
    packed = _Packed(cols, lines, cx_index, cx_ops, fruns)
    ext = cols.extend
    out = CoverageFunctions()
    recs = out.records
    lazy = Mapping._lazy
    j = 0
    for (start, nh, fh, fref, pad), cnt in zip(heads, nvals):
        end = j + cnt
        nfiles = v[j]
        j += 1
        if nfiles > end - j:
            raise _Slow
        file_ids = v[j:j + nfiles]
        j += nfiles
        nexpr = v[j]
        j += 1
        if 2 * nexpr > end - j:
            raise _Slow
        ex = v[j:j + 2 * nexpr]
        j += 2 * nexpr
        if ex and max(ex) >= 4 * nexpr:
            for c in ex:
                if c & 2 and c >> 2 >= nexpr or c > U32:
                    raise _Slow
        first = len(lines)
        counts = []
        for fid in range(nfiles):
            nreg = v[j]
            j += 1
            if 5 * nreg > end - j:
                raise _Slow
            counts.append(nreg)
            a = len(cols)
            if fid and nreg:
                fruns.append((a // 5, nreg, fid))
            run = j
            for _ in range(nreg):
                h = v[j]
                if h & 3:                   # a counter: a code region (or gap)
                    j += 5
                elif h & 4:                 # an expansion
                    if h >> 3 >= nfiles:
                        raise _Slow
                    j += 5
                elif h == 0 or h == 16:     # a code region of counter zero, a skipped region
                    j += 5
                else:               # branch, MC/DC decision, MC/DC branch: its operands kept aside
                    ext(v[run:j + 1])
                    if h == 0x20 or h == 0x28:      # two operands
                        ops = tuple(v[j:j + 3])
                        b, c = ops[1], ops[2]
                        if h == 0x20:
                            if b & 2 and b >> 2 >= nexpr or c & 2 and c >> 2 >= nexpr or b > U32 or c > U32:
                                raise _Slow
                        elif b > U32 or c > 0x7FFF:
                            raise _Slow
                        run = j + 3
                    elif h == 0x30:                 # two counters, three condition ids
                        ops = tuple(v[j:j + 6])
                        _, b, c, x, y, z = ops
                        if (b & 2 and b >> 2 >= nexpr or c & 2 and c >> 2 >= nexpr or b > U32 or c > U32
                                or x == 0 or x > 0x7FFF or y > 0x7FFF or z > 0x7FFF):
                            raise _Slow
                        run = j + 6
                    else:
                        raise _Slow
                    cx_index.append(len(cols) // 5)
                    cx_ops.append(ops)
                    j = run + 4
            ext(v[run:j])
            lines.extend(accumulate(cols[a + 1::5]))
        if j != end:
            raise _Slow
        hs = cols[5 * first::5]
        if hs and max(hs) >= 4 * nexpr:
            for h in hs:
                if h & 2 and h >> 2 >= nexpr:
                    raise _Slow
        rec = FunctionRecord(start, nh, fh, fref, lazy(file_ids, list(zip(ex[0::2], ex[1::2])), packed, first,
                                                         counts), None, pad, names.get(nh))
        fl = files.get(fref)
        if fl is not None:
            rec.files = (list(map(fl.__getitem__, file_ids)) if not file_ids or max(file_ids) < len(fl)
                         else [fl[i] if i < len(fl) else None for i in file_ids])
        recs.append(rec)
    if cols and max(cols) > U32:
        raise _Slow
    if tail:
        recs[-1].padding += tail
    return out


def _decode_covfun_each(data, e, names, files) -> CoverageFunctions:
    import struct
    out = CoverageFunctions()
    hdr = struct.Struct(e + "QIQQ")
    n = len(data)
    pos = 0
    while pos < n:
        start = pos
        if n - pos < HEADER:
            if not bytes(data[pos:]).strip(b"\0"):
                # zero bytes that fill a linked section up to its alignment: padding of the last record
                if out.records:
                    out.records[-1].padding += bytes(data[pos:])
                    break
            raise DecodeError(f"expected a {HEADER}-byte function record header, {n - pos} bytes left",
                              offset=pos, partial=out)
        nh, size, fh, fref = hdr.unpack_from(data, pos)
        pos += HEADER
        if size > n - pos:
            raise DecodeError(f"function record {len(out.records)}: a mapping of {size} bytes runs past the end "
                              f"({n - pos} bytes left)", offset=start + 8, partial=out)
        try:
            m, minimal = decode_mapping(data, pos, pos + size)
        except DecodeError as exc:
            exc.message = f"function record {len(out.records)} ({names.get(nh) or f'hash {nh:#x}'}): {exc.message}"
            exc.partial = out
            raise
        raw = None
        if not minimal:
            raw = bytes(data[pos:pos + size])
        pos += size
        end = min((pos + 7) & ~7, n)
        pad = bytes(data[pos:end])
        pos = end
        rec = FunctionRecord(start, nh, fh, fref, m, raw, pad, names.get(nh))
        fl = files.get(fref)
        if fl is not None:
            rec.files = [fl[i] if i < len(fl) else None for i in m.file_ids]
        out.records.append(rec)
    return out


def encode_covfun(m: CoverageFunctions, e="<") -> bytes:
    import struct
    hdr = struct.Struct(e + "QIQQ")
    parts = []
    for r in m.records:
        body = r.raw if r.raw is not None else encode_mapping(r.mapping)
        parts.append(hdr.pack(r.name_hash, len(body), r.func_hash, r.filenames_hash) + body + r.padding)
    return b"".join(parts)


def resolved_files(rec: CovMapRecord) -> list:
    """The unit's file names as llvm-cov shows them: relative ones joined to the compilation directory."""
    import posixpath
    names = rec.files.names
    if rec.version < 5 or not names:
        return list(names)
    cwd = names[0]
    out = [cwd]
    for n in names[1:]:
        if n.startswith("/") or not cwd:
            out.append(n)
        else:
            out.append(posixpath.normpath(posixpath.join(cwd, n)))
    return out


_FILES_CACHE = ObjectCache()


def _files_by_hash(obj) -> dict:
    """{file-list hash: resolved file names} of every ``__llvm_covmap`` record of ``obj`` (cached per object: an
    ELF object has one ``__llvm_covfun`` section per function)."""
    return cached_per_object(_FILES_CACHE, obj, _files_table)


def _files_table(obj) -> dict:
    table = {}
    for s in obj.sections:
        if section_role(s, obj) == "covmap":
            try:
                cm = decode_covmap(s.data(), obj.endian)
            except DecodeError as exc:
                cm = exc.partial or CoverageMap()
            for rec in cm.records:
                table.setdefault(rec.filenames_hash, resolved_files(rec))
    return table


# -- views ----------------------------------------------------------------------------------------------------------
_COUNTER_JSON: dict = {}


def _cj(v: int) -> str:
    t = _COUNTER_JSON.get(v)
    if t is None:
        t = counter_json(v)
        if len(_COUNTER_JSON) < 65536:
            _COUNTER_JSON[v] = t
    return t


def region_dict(r: Region) -> dict:
    if r.kind == CODE and (r.col_start or r.col_end):       # most regions: a code or gap region, columns given
        return {"kind": "gap" if r.gap else "code", "file": r.file, "line_start": r.line_start,
                "col_start": r.col_start, "line_end": r.line_end, "col_end": r.col_end, "counter": _cj(r.counter)}
    ls, cs, le, ce = r.span()
    d = {"kind": KINDS[r.display_kind], "file": r.file, "line_start": ls, "col_start": cs, "line_end": le,
         "col_end": ce}
    if r.kind in (CODE, BRANCH, MCDC_BRANCH):
        d["counter"] = _cj(r.counter)
    if r.kind in (BRANCH, MCDC_BRANCH):
        d["false_counter"] = _cj(r.false_counter)
    if r.kind == EXPANSION:
        d["expanded_file"] = r.expanded_file
    if r.kind == DECISION:
        d["bitmap_index"], d["conditions"] = r.params
    if r.kind == MCDC_BRANCH:
        d["condition_id"], d["true_id"], d["false_id"] = (p - 1 for p in r.params)
    if r.col_start == 0 and r.col_end == 0:
        d["whole_line"] = True
    return d


def function_dict(r: FunctionRecord) -> dict:
    """A function record as to_dict gives it."""
    m = r.mapping
    return {"offset": r.offset, "name": r.name, "name_hash": f"{r.name_hash:#018x}",
            "structural_hash": f"{r.func_hash:#018x}", "filenames_hash": f"{r.filenames_hash:#018x}",
            "file_ids": list(m.file_ids), "files": r.files,
            "expressions": [{"lhs": counter_json(a), "rhs": counter_json(b)} for a, b in m.expressions],
            "regions": [region_dict(x) for x in m.regions],
            "raw": r.raw.hex() if r.raw is not None else None, "padding": r.padding.hex()}


# -- the JSON text of decoded records, column by column ------------------------------------------------------------
# What ``dump --json`` writes for an __llvm_covfun section: the same text as json.dumps(to_dict(model)) (compact,
# or indented by 2 as part of a document), made without a dict per region: a batch of functions at a time, one
# bytes %-template for all its regions (text before the start line, start line, start column, end line, end
# column, text after), the texts that depend on a region's kind, file, counter or operands made once each.
_KIND_OF_HEAD = {0x20: BRANCH, 0x28: DECISION, 0x30: MCDC_BRANCH, SKIPPED << 3: SKIPPED, 0: CODE}
_JSON_BATCH = 1 << 14       # regions a batch at most (render.batches)


class _Texts(dict):
    """A dict that makes a missing value by ``make(key)`` (and keeps at most 65,536)."""
    __slots__ = ("make",)

    def __init__(self, make):
        super().__init__()
        self.make = make

    def __missing__(self, key):
        v = self.make(key)
        if len(self) < 65536:
            self[key] = v
        return v


class _JSONStyle:
    """The pieces of the text of a covfun section's content, compact (``indent`` None) or indented by 2 with
    its opening ``{`` on a line indented by ``indent`` blanks (as json.dumps(..., indent=2) writes it there)."""

    def __init__(self, indent):
        from ..render import json_layout, json_texts
        nl, key = json_layout(indent, 7)

        def cj(v):
            return b'"' + counter_json(v).encode("ascii") + b'"'

        def items(texts, lvl):       # a non-empty list of texts at level lvl
            return b"[" + nl[lvl] + (b"," + nl[lvl]).join(texts) + nl[lvl - 1] + b"]"

        self.nl = nl
        start = b"{" + key("role", 1) + b'"covfun",' + key("functions", 1)
        self.open = start + b"[" + nl[2]
        self.close = nl[1] + b"]" + nl[0] + b"}"
        self.empty = start + b"[]" + nl[0] + b"}"
        self.between = b"," + nl[2]
        self.head = (b"{" + key("offset", 3) + b"%d," + key("name", 3) + b"%s," + key("name_hash", 3)
                     + b'"0x%016x",' + key("structural_hash", 3) + b'"0x%016x",' + key("filenames_hash", 3)
                     + b'"0x%016x",' + key("file_ids", 3) + b"%s," + key("files", 3) + b"%s,"
                     + key("expressions", 3) + b"%s," + key("regions", 3))
        self.regions_end = nl[3] + b"]"
        self.tail = b"," + key("raw", 3) + b"%s," + key("padding", 3) + b'"%s"' + nl[2] + b"}"
        self.file_ids = _Texts(lambda t: items([b"%d" % x for x in t], 4) if t else b"[]")
        self.files = _Texts(lambda t: b"null" if t is None else items(json_texts(list(t)), 4) if t else b"[]")
        self.expr = _Texts(lambda e: b"{" + key("lhs", 5) + cj(e[0]) + b"," + key("rhs", 5) + cj(e[1]) + nl[4] + b"}")
        self.expr_open = b"[" + nl[4]
        self.expr_between = b"," + nl[4]
        self.expr_close = nl[3] + b"]"
        self.hex = _Texts(lambda b: b.hex().encode("ascii"))
        self.raw = _Texts(lambda b: b"null" if b is None else b'"' + b.hex().encode("ascii") + b'"')
        self.expr_list = {b"": b"[]"}        # the text of an empty list of expressions
        # a region: (before, start line, start column, end line, after) -- before: ',' and the start of the
        # region up to its start line (the kind and the file id: keyed by (head, stored end column) for file 0,
        # ``before_file(f)`` for file f); after: its end column and the rest (keyed by (head, stored end
        # column); a branch or MC/DC region's by ((head, operands...), stored end column))
        self.region = b"%s%d," + key("col_start", 5) + b"%d," + key("line_end", 5) + b"%d%s"
        end = nl[4] + b"}"
        whole = b"," + key("whole_line", 5) + b"true" + end
        col_end = b"," + key("col_end", 5)

        def before(fid, hc):
            h, ce = hc
            kind = "gap" if ce & GAP_BIT else KINDS[_kind_of_head(h)]
            return (b"," + nl[4] + b"{" + key("kind", 5) + b'"' + kind.encode("ascii") + b'",' + key("file", 5)
                    + b"%d," % fid + key("line_start", 5))
        self.before_file = _Texts(lambda fid: _Texts(lambda hc: before(fid, hc)))
        self.before = self.before_file[0]

        def rest(h):        # the text after a code, gap, skipped or expansion region's end column
            if h & 3 or h == 0:
                return b"," + key("counter", 5) + cj(h) + end
            if h & 4:
                return b"," + key("expanded_file", 5) + b"%d" % (h >> 3) + end
            return end

        def rest_ops(ops):  # ... of a branch, MC/DC decision or MC/DC branch region: (head, operands...)
            if ops[0] == DECISION << 3:
                return b"," + key("bitmap_index", 5) + b"%d," % ops[1] + key("conditions", 5) + b"%d" % ops[2] + end
            t = b"," + key("counter", 5) + cj(ops[1]) + b"," + key("false_counter", 5) + cj(ops[2])
            if ops[0] == MCDC_BRANCH << 3:
                t += (b"," + key("condition_id", 5) + b"%d," % (ops[3] - 1) + key("true_id", 5) + b"%d," % (ops[4] - 1)
                      + key("false_id", 5) + b"%d" % (ops[5] - 1))
            return t + end
        self.after = _Texts(lambda hc: col_end + b"%d" % (hc[1] & ~GAP_BIT) + rest(hc[0]))
        self.after_ops = _Texts(lambda oc: col_end + b"%d" % (oc[1] & ~GAP_BIT) + rest_ops(oc[0]))
        # a whole-line region (start and end columns stored as 0): columns 1 and 0xffffffff, "whole_line"
        self.whole_after = lambda h: col_end + b"%d" % WHOLE_LINE_END + rest(h)[:-len(end)] + whole
        self.whole_after_ops = lambda ops: col_end + b"%d" % WHOLE_LINE_END + rest_ops(ops)[:-len(end)] + whole


def _kind_of_head(h: int) -> int:
    """The region kind (CODE ... MCDC_BRANCH) of a well-formed region's head (its counter or kind)."""
    return CODE if h & 3 else EXPANSION if h & 4 else _KIND_OF_HEAD.get(h, CODE)


_JSON_STYLES: dict = {}


def _json_style(indent) -> _JSONStyle:
    st = _JSON_STYLES.get(indent)
    if st is None:
        st = _JSON_STYLES[indent] = _JSONStyle(indent)
    return st


_U64 = 1 << 64


def _no_gc_chunks(it):
    """The pieces of ``it``, each made with the collector off (no cycles among the texts: its passes only cost)."""
    while True:
        with no_gc():
            p = next(it, None)
        if p is None:
            return
        yield p


def _json_ready(model):
    """The _Packed that holds the regions of every record of ``model`` (a decoded CoverageFunctions), in order
    and whole, when every record is as decode made it, at least in kind (fields of the types decode gives, the
    regions not asked for), so that the column writer gives to_dict's text; else None.  (Checked a field at a
    time over all records: a set of the types each.)"""
    from itertools import chain, repeat
    from operator import add, attrgetter, is_not
    recs = model.records
    if type(recs) is not list or not recs:
        return None if type(recs) is not list else _Packed([], [], [], [])
    if set(map(type, recs)) != {FunctionRecord}:
        return None
    maps = list(map(attrgetter("mapping"), recs))
    if set(map(type, maps)) != {Mapping} or any(map(is_not, map(attrgetter("_regions"), maps), repeat(None))):
        return None
    packs = set(map(attrgetter("_packed"), maps))
    if len(packs) != 1:
        return None
    firsts = list(map(attrgetter("_first"), maps))
    if firsts[1:] != list(map(add, firsts, map(sum, map(attrgetter("_counts"), maps[:-1])))):
        return None             # (records removed or moved)
    ints, none = {int}, type(None)
    for name in ("offset", "name_hash", "func_hash", "filenames_hash"):
        col = list(map(attrgetter(name), recs))
        if set(map(type, col)) != ints or (name != "offset" and (min(col) < 0 or max(col) >= _U64)):
            return None
    if (not set(map(type, map(attrgetter("name"), recs))) <= {str, none}
            or set(map(type, map(attrgetter("padding"), recs))) != {bytes}
            or not set(map(type, map(attrgetter("raw"), recs))) <= {bytes, none}):
        return None
    fids = list(map(attrgetter("file_ids"), maps))
    if set(map(type, fids)) != {list} or not set(map(type, chain.from_iterable(fids))) <= ints:
        return None
    files = list(map(attrgetter("files"), recs))
    if (not set(map(type, files)) <= {list, none}
            or not set(map(type, chain.from_iterable(filter(None, files)))) <= {str, none}):
        return None
    exprs = list(map(attrgetter("expressions"), maps))
    if set(map(type, exprs)) != {list}:
        return None
    exprs = list(chain.from_iterable(exprs))
    if (not set(map(type, exprs)) <= {tuple} or not set(map(len, exprs)) <= {2}
            or not set(map(type, chain.from_iterable(exprs))) <= ints):
        return None
    return packs.pop()


def _json_size_at_least(model) -> int:
    """A length the compact text is certainly not shorter than: 76 bytes a region (the shortest one, a gap
    region of one-digit numbers, is 90), 200 a function (the shortest is about 210)."""
    return 76 * sum(map(sum, (r.mapping._counts for r in model.records))) + 200 * len(model.records)


def covfun_json_chunks(model, packed, indent):
    """The text of to_dict(model) (see _JSONStyle), piece by piece: a batch of functions at a time, each
    column of the batch (the regions', then the functions') by one operation where it can."""
    from bisect import bisect_left
    from itertools import accumulate, repeat
    from operator import add, attrgetter, sub
    from ..render import batches, json_texts
    st = _json_style(indent)
    recs = model.records
    if not recs:
        yield st.empty
        return
    cols, lines, cx_index, cx_ops, fruns = packed.cols, packed.lines, packed.cx_index, packed.cx_ops, packed.files
    before, before_file, after, after_ops = st.before, st.before_file, st.after, st.after_ops
    expr_join = st.expr_between.join
    maps = list(map(attrgetter("mapping"), recs))
    counts = list(map(attrgetter("_counts"), maps))
    totals = list(map(sum, counts))
    ends = list(accumulate(totals))
    base = maps[0]._first
    pending = st.open
    head_t = st.head + b"[\0"
    tail_t = st.regions_end + st.tail + st.between + b"\0"
    empty_end = len(st.regions_end)
    for i, j in batches(ends, _JSON_BATCH):
        a = base + (ends[i - 1] if i else 0)
        b = base + ends[j - 1]
        nreg = b - a
        # the regions: before and after each one's numbers
        ce = cols[5 * a + 4:5 * b:5]
        hc = list(zip(cols[5 * a:5 * b:5], ce))
        texts_before = list(map(before.__getitem__, hc))
        texts_after = list(map(after.__getitem__, hc))
        cs = cols[5 * a + 2:5 * b:5]
        p, q = bisect_left(cx_index, a), bisect_left(cx_index, b)
        if q > p:
            at = list(map(sub, cx_index[p:q], repeat(a)))
            any(map(texts_after.__setitem__, at, map(after_ops.__getitem__, zip(cx_ops[p:q], map(ce.__getitem__, at)))))
        if 0 in cs:                 # whole-line regions (columns 0 and 0): columns 1 and 0xffffffff
            cx = dict(zip(cx_index[p:q], cx_ops[p:q]))
            k = cs.index(0)
            while True:
                if not ce[k] & ~GAP_BIT:
                    cs[k] = 1
                    ops = cx.get(a + k)
                    texts_after[k] = st.whole_after(hc[k][0]) if ops is None else st.whole_after_ops(ops)
                try:
                    k = cs.index(0, k + 1)
                except ValueError:
                    break
        # the functions: the text from the end of the one before to the start of each one's regions (its
        # fields, expressions), which goes before its first region; the regions of file ids above 0
        fr, fm, nf = recs[i:j], maps[i:j], j - i
        exprs = list(map(expr_join, map(map, repeat(st.expr.__getitem__), map(attrgetter("expressions"), fm))))
        args = [None] * (8 * nf)
        args[0::8] = map(attrgetter("offset"), fr)
        args[1::8] = json_texts(list(map(attrgetter("name"), fr)))
        args[2::8] = map(attrgetter("name_hash"), fr)
        args[3::8] = map(attrgetter("func_hash"), fr)
        args[4::8] = map(attrgetter("filenames_hash"), fr)
        args[5::8] = map(st.file_ids.__getitem__, map(tuple, map(attrgetter("file_ids"), fm)))
        args[6::8] = map(st.files.__getitem__, [f if f is None else tuple(f) for f in map(attrgetter("files"), fr)])
        args[7::8] = map(st.expr_list.get, exprs, map(add, map(add, repeat(st.expr_open), exprs),
                                                         repeat(st.expr_close)))
        heads = ((head_t * nf) % tuple(args)).split(b"\0")
        args = [None] * (2 * nf)
        args[0::2] = map(st.raw.__getitem__, map(attrgetter("raw"), fr))
        args[1::2] = map(st.hex.__getitem__, map(attrgetter("padding"), fr))
        tails = ((tail_t * nf) % tuple(args)).split(b"\0")
        tails[-1] = pending
        starts = list(map(add, tails[-1:] + tails[:-2], heads))    # (tails[-1] is ''; heads[-1] too)
        pending = tails[-2]
        ft = totals[i:j]
        if 0 in ft:                 # functions without regions: their text goes before the next one's
            k = ft.index(0)
            while True:
                text = starts[k] + b"]" + tails[k][empty_end:]
                if k + 1 < nf:
                    starts[k + 1] = text + heads[k + 1]
                else:
                    pending = text
                try:
                    k = ft.index(0, k + 1)
                except ValueError:
                    break
        firsts = [0, *accumulate(ft[:-1])]
        p, q = bisect_left(fruns, (a,)), bisect_left(fruns, (b,))
        for x, n, fid in fruns[p:q]:
            x -= a
            texts_before[x:x + n] = map(before_file[fid].__getitem__, hc[x:x + n])
        if not nreg:
            continue
        keep = [k for k, f in zip(firsts, ft) if f]
        if len(keep) == nf:
            any(map(texts_before.__setitem__, firsts, map(add, starts, map(bytes.__getitem__, map(
                texts_before.__getitem__, firsts), repeat(slice(1, None))))))
        else:
            for k, f, s in zip(firsts, ft, starts):
                if f:
                    texts_before[k] = s + texts_before[k][1:]
        args = [None] * (5 * nreg)
        args[0::5] = texts_before
        args[1::5] = lines[a:b]
        args[2::5] = cs
        args[3::5] = map(add, lines[a:b], cols[5 * a + 3:5 * b:5])
        args[4::5] = texts_after
        yield (st.region * nreg) % tuple(args)
    yield pending[:-len(st.between)] + st.close


def region_from_dict(d: dict) -> Region:
    kind = KINDS.index(d["kind"])
    gap = kind == GAP
    if gap:
        kind = CODE
    whole = d.get("whole_line")
    cs, ce = (0, 0) if whole else (int(d["col_start"]), int(d["col_end"]))
    params = ()
    if kind == DECISION:
        params = (int(d["bitmap_index"]), int(d["conditions"]))
    elif kind == MCDC_BRANCH:
        params = (int(d["condition_id"]) + 1, int(d["true_id"]) + 1, int(d["false_id"]) + 1)
    return Region(kind, int(d["file"]), counter_parse(d.get("counter", 0)), int(d["line_start"]), cs,
                  int(d["line_end"]), ce, gap, counter_parse(d.get("false_counter", 0)),
                  int(d.get("expanded_file", 0)), params)


def _same_files(raw: bytes, version: int, names: list) -> bool:
    try:
        return _read_file_list(raw, version, 0).names == names
    except DecodeError:
        return False


def _same_mapping(raw: bytes, m: Mapping) -> bool:
    try:
        return decode_mapping(raw, 0, len(raw))[0] == m
    except DecodeError:
        return False


def expression_text(m: Mapping, i: int) -> str:
    lhs, rhs = m.expressions[i]
    kinds = {r for r in _refs(m) if r >> 2 == i}
    if not kinds:       # no counter names it, so nothing says whether it adds or subtracts
        return f"{counter_text(lhs)} ? {counter_text(rhs)} (not referenced)"
    op = "+" if any(k & 3 == 3 for k in kinds) else "-"
    return f"{counter_text(lhs)} {op} {counter_text(rhs)}"


def _refs(m: Mapping):
    for a, b in m.expressions:
        if a & 2:
            yield a
        if b & 2:
            yield b
    for r in m.regions:
        if r.counter & 2:
            yield r.counter
        if r.false_counter & 2:
            yield r.false_counter


@register
class CoverageCodec(Codec):
    kind = "coverage"
    description = "coverage mapping (-fcoverage-mapping): file lists, per-function regions and counter expressions"
    formats = ("elf", "coff", "macho")
    names = ("__llvm_covfun", "__llvm_covmap")     # recognised by section_role; listed for the fuzz harness
    name_hints = ("cov",)

    def matches_name(self, section, obj, options=None) -> bool:
        return section_role(section, obj) in COVERAGE_ROLES

    def decode(self, data, ctx):
        role = role_for(ctx, "covfun")
        if role == "covmap":
            return decode_covmap(data, ctx.endian)
        with no_gc():       # hundreds of thousands of small acyclic regions: the collector's passes cost ~40%
            return decode_covfun(data, ctx.endian if ctx is not None else "<", ctx.obj if ctx is not None else None)

    def encode(self, model, ctx):
        if isinstance(model, CoverageMap):
            return encode_covmap(model, ctx.endian if ctx is not None else "<")
        return encode_covfun(model, ctx.endian if ctx is not None else "<")

    def to_json(self, model):
        if type(model) is not CoverageFunctions:
            return None
        with no_gc():
            packed = _json_ready(model)
        if packed is None:
            return None
        from ..render import BIG_JSON, JSONStream
        # The size decides whether the document is indented (render.BIG_JSON): when the text is certainly
        # longer, that bound; else the exact length of the compact text (made, and kept for a compact
        # document: it is then at most a few MB).
        size = _json_size_at_least(model)
        compact = None
        if size <= BIG_JSON:
            with no_gc():
                compact = list(covfun_json_chunks(model, packed, None))
            size = sum(map(len, compact))

        def chunks(indent):
            if indent is None and compact is not None:
                return iter(compact)
            return _no_gc_chunks(covfun_json_chunks(model, packed, indent))
        return JSONStream(size, chunks)

    def to_dict(self, model):
        if isinstance(model, CoverageMap):
            return {"role": "covmap", "units": [{
                "offset": r.offset, "version": r.version + 1, "filenames_hash": f"{r.filenames_hash:#018x}",
                "compressed": r.files.compressed is not None, "files": list(r.files.names),
                "resolved_files": resolved_files(r), "padding": r.padding.hex(),
                "compressed_bytes": r.files.compressed.hex() if r.files.compressed is not None else None,
                "raw": r.files.raw.hex() if r.files.raw is not None else None} for r in model.records]}
        return {"role": "covfun", "functions": [function_dict(r) for r in model.records]}

    def from_dict(self, d, ctx):
        if d.get("role") == "covmap":
            out = CoverageMap()
            for u in d["units"]:
                comp = u.get("compressed_bytes")
                if comp is not None:
                    comp = bytes.fromhex(comp)
                elif u.get("compressed"):
                    comp = b""          # no zlib stream: FileList.encode compresses the names afresh
                fl = FileList(list(u["files"]), comp)
                raw = bytes.fromhex(u["raw"]) if u.get("raw") else None
                if raw is not None and _same_files(raw, int(u["version"]) - 1, fl.names):
                    fl.raw = raw        # the stored bytes, unless the names were edited
                blob = fl.encode()
                out.records.append(CovMapRecord(int(u.get("offset", 0)), int(u["version"]) - 1, fl, name_hash(blob),
                                                padding=bytes.fromhex(u.get("padding", ""))))
            return out
        out = CoverageFunctions()
        for f in d["functions"]:
            m = Mapping([int(x) for x in f["file_ids"]],
                        [(counter_parse(x["lhs"]), counter_parse(x["rhs"])) for x in f["expressions"]],
                        [region_from_dict(x) for x in f["regions"]])
            raw = bytes.fromhex(f["raw"]) if f.get("raw") else None
            if raw is not None and not _same_mapping(raw, m):
                raw = None              # edited: encode the regions given
            out.records.append(FunctionRecord(int(f.get("offset", 0)), int(f["name_hash"], 0),
                                              int(f["structural_hash"], 0), int(f["filenames_hash"], 0), m, raw,
                                              bytes.fromhex(f.get("padding", "")), f.get("name"), f.get("files")))
        return out

    def tables(self, model, options):
        if isinstance(model, CoverageMap):
            rows = [[i, r.version + 1, "zlib" if r.files.compressed is not None else "none", j, n]
                    for i, r in enumerate(model.records) for j, n in enumerate(resolved_files(r))]
            return [Table(["unit", "version", "compression", "file", "name"], rows)]
        funcs = [[r.name or f"{r.name_hash:#018x}", f"{r.func_hash:#018x}",
                  ", ".join(str(x) for x in (r.files or r.mapping.file_ids)), len(r.mapping.expressions),
                  len(r.mapping.regions)] for r in model.records]
        regs = []
        for r in model.records:
            fname = r.name or f"{r.name_hash:#018x}"
            for x in r.mapping.regions:
                ls, cs, le, ce = x.span()
                if x.kind == EXPANSION:
                    what = f"file {x.expanded_file}"
                elif x.kind == SKIPPED:
                    what = ""
                elif x.kind == DECISION:
                    what = f"bitmap {x.params[0]}, {x.params[1]} conditions"
                else:
                    what = counter_text(x.counter)
                if x.kind in (BRANCH, MCDC_BRANCH):
                    what += f" / {counter_text(x.false_counter)}"
                if x.kind == MCDC_BRANCH:
                    what += f" (id {x.params[0] - 1}, true {x.params[1] - 1}, false {x.params[2] - 1})"
                regs.append([fname, x.file, KINDS[x.display_kind],
                             f"{ls}:{cs}-{le}:{'$' if ce == WHOLE_LINE_END else ce}", what])
        exprs = [[r.name or f"{r.name_hash:#018x}", f"e{i}", expression_text(r.mapping, i)]
                 for r in model.records for i in range(len(r.mapping.expressions))]
        out = [Table(["function", "structural hash", "files", "expressions", "regions"], funcs),
               Table(["function", "file id", "kind", "span", "counter"], regs)]
        if exprs:
            out.append(Table(["function", "expression", "value"], exprs))
        return out


# -- offline form: LLVM's coverage-mapping "testing format" (read by llvm-cov like an object file) --------------
TESTING_MAGIC = 0x6D766F636D766C6C          # "llvmcovm"
TESTING_VERSION = 1                         # TestingFormatVersion::Version2: the covmap size is stored


def testing_format(obj) -> bytes | None:
    """The object's coverage mapping and function names as one file ``llvm-cov`` reads in place of the binary
    (``llvm-cov export -instr-profile P.profdata FILE``): ``u64 magic, u64 version 2, uleb names size, uleb 0,
    names, uleb covmap size``, padding to 8, ``__llvm_covmap``, padding to 8, the ``__llvm_covfun`` sections each
    padded to 8 (as llvm-cov joins them).  The format is little-endian with 8-byte addresses: a big-endian
    object's records are re-encoded.  None when the object has no coverage mapping."""
    from .support.instrprof import linked_pe_names
    covmaps = [s for s in obj.sections if section_role(s, obj) == "covmap"]
    if not covmaps:
        return None
    names = b""
    for s in obj.sections:
        if section_role(s, obj) in ("names",):
            d = bytes(s.data())
            names += d[1:] if linked_pe_names(s, obj) and d[:1] == b"\0" else d
    if not names:
        names = b"".join(bytes(s.data()) for s in obj.sections if section_role(s, obj) == "covnames")
    swap = obj.endian != "<"
    covmap = b""
    for s in covmaps:
        d = bytes(s.data())
        covmap += encode_covmap(decode_covmap(d, obj.endian), "<") if swap else d
    covfun = bytearray()
    for s in obj.sections:
        if section_role(s, obj) == "covfun":
            d = bytes(s.data())
            if swap:
                d = encode_covfun(decode_covfun(d, obj.endian), "<")
            covfun += d
            covfun += bytes(-len(covfun) % 8)
    out = bytearray(TESTING_MAGIC.to_bytes(8, "little") + TESTING_VERSION.to_bytes(8, "little"))
    out += uleb_encode(len(names)) + uleb_encode(0) + names + uleb_encode(len(covmap))
    out += bytes(-len(out) % 8) + covmap
    out += bytes(-len(out) % 8) + covfun
    return bytes(out)



def read_testing_format(data: bytes) -> tuple:
    """(names, CoverageMap, CoverageFunctions) of a file :func:`testing_format` wrote (version 2 only)."""
    from .support.instrprof import decode_name_list
    r = Reader(data, "<")
    if len(data) < 16 or r.u64("magic") != TESTING_MAGIC:
        raise DecodeError("not a coverage-mapping testing-format file (expected the magic 'llvmcovm')", offset=0)
    version = r.u64("testing-format version")
    if version != TESTING_VERSION:
        raise DecodeError(f"testing-format version {version}: expected {TESTING_VERSION} (version 2)", offset=8)
    nsize = r.uleb("names size")
    r.uleb("names address")
    names = decode_name_list(r.bytes(nsize, "names"))
    csize = r.uleb("coverage-map size")
    r.pos = (r.pos + 7) & ~7
    covmap = decode_covmap(r.bytes(csize, "coverage map"))
    r.pos = min((r.pos + 7) & ~7, len(data))
    return names, covmap, decode_covfun(data[r.pos:])
