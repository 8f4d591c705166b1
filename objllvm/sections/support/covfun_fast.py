"""A fast decoder of ``__llvm_covfun`` sections as compilers write them, behind ``coverage_map.decode_covfun``.

``decode(data, e, names, files)`` gives the model the plain decoder (``coverage_model.decode_records``) gives,
reading the mappings of the whole section as one list of ULEB128 values (``uleb_values``) and keeping the
regions as columns (:class:`Packed`) that ``Mapping.regions`` turns into Region objects when asked and that
``support/covfun_json.py`` writes as JSON without a dict per region.  A record it does not take -- a padded or
over-long ULEB128, a value out of range, a count that does not fit -- goes alone through
``coverage_model.decode_mapping`` (which reports any error, with the records before it) and its regions join
the columns; a header it does not take (a section that ends inside a record) hands the rest of the section to
``decode_records``.  tests/test_coverage_packed.py checks both decoders give the same result on every corpus
file, on generated and mutated sections; scripts/bench-coverage checks the benchmark programs.

It earns its place on lua, zstd and jsonnet of scripts/bench-coverage (docs/benchmarks.md, "coverage").
"""
from __future__ import annotations

from itertools import accumulate

from .coverage_model import (BRANCH, CODE, DECISION, EXPANSION, GAP_BIT, HEADER, MCDC_BRANCH, SKIPPED, U32,
                             CoverageFunctions, FunctionRecord, Mapping, Region, decode_records, record_mapping)


class Slow(Exception):
    """The fast decoder leaves this record (or the rest of the section) to the plain one."""


_LOW = bytes(range(0x80))
_HIGH = bytes(range(0x80, 0x100))
_TOP_BIT = bytes(0x80) + b"\1" * 0x80         # bytes.translate table: 1 for a byte with its top bit set, else 0


class _Ulebs(dict):
    """{multi-byte ULEB128 as bytes: its value}; a padded (not minimal) or over-long (more than 10 bytes, as
    read_uleb's limit) one raises Slow."""

    def __missing__(self, b):
        if len(b) > 10 or b[-1] == 0:
            raise Slow
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
    occurrences).  Slow for a padded or over-long one."""
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
            raise Slow     # (a truncated one)
        values[p - high] = value(blob[p:q + 1])
        high += q - p
        p = find(1, q + 1)
    return values


class Packed:
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


    def mark(self) -> tuple:
        """The lengths of the columns, for ``undo``."""
        return len(self.cols), len(self.lines), len(self.cx_index), len(self.files)

    def undo(self, mark: tuple) -> None:
        """Drop what was added after ``mark`` (a record the fast decoder gave up on half-way)."""
        a, b, c, d = mark
        del self.cols[a:], self.lines[b:], self.cx_index[c:], self.cx_ops[c:], self.files[d:]

    def add_mapping(self, m: Mapping) -> Mapping:
        """A mapping that holds ``m``'s regions (as the plain decoder made them) in these columns."""
        first = len(self.lines)
        counts = [0] * len(m.file_ids)
        prev_fid, line = -1, 0
        for r in m.regions:
            if r.file != prev_fid:
                prev_fid, line = r.file, 0
                if r.file:
                    self.files.append((len(self.lines), 0, r.file))
            if r.file:
                at, n, fid = self.files[-1]
                self.files[-1] = (at, n + 1, fid)
            counts[r.file] += 1
            k = r.kind
            head = (r.counter if k == CODE else (r.expanded_file << 3) | 4 if k == EXPANSION else k << 3)
            if k == BRANCH:
                ops = (head, r.counter, r.false_counter)
            elif k == MCDC_BRANCH:
                ops = (head, r.counter, r.false_counter, *r.params)
            elif k == DECISION:
                ops = (head, *r.params)
            else:
                ops = None
            if ops is not None:
                self.cx_index.append(len(self.lines))
                self.cx_ops.append(ops)
            self.cols += (head, r.line_start - line, r.col_start, r.line_end - r.line_start,
                          r.col_end | (GAP_BIT if r.gap else 0))
            self.lines.append(r.line_start)
            line = r.line_start
        self._cx = None
        return Mapping._lazy(m.file_ids, m.expressions, self, first, counts)


def decode(data: bytes, e, names: dict, files: dict) -> CoverageFunctions:
    """The records of the section ``data`` (see the module's docstring); a DecodeError as decode_records gives."""
    heads, stop, tail = _headers(data, e)
    values = _values(data, heads)
    packed = Packed([], [], [], [], [])
    out = CoverageFunctions()
    recs = out.records
    for (start, nh, fh, fref, m0, m1, pad), (v, j, cnt, wide) in zip(heads, values):
        mark = packed.mark()
        try:
            if v is None:
                raise Slow
            file_ids, exprs, first, counts = _read_record(v, j, j + cnt, packed, wide)
            mapping, raw = Mapping._lazy(file_ids, exprs, packed, first, counts), None
        except (Slow, IndexError, ValueError):
            packed.undo(mark)
            m, raw = record_mapping(data, m0, m1, out, names.get(nh), nh)
            mapping = packed.add_mapping(m)
        rec = FunctionRecord(start, nh, fh, fref, mapping, raw, pad, names.get(nh))
        fl = files.get(fref)
        if fl is not None:
            ids = mapping.file_ids
            rec.files = (list(map(fl.__getitem__, ids)) if not ids or max(ids) < len(fl)
                         else [fl[i] if i < len(fl) else None for i in ids])
        recs.append(rec)
    if stop is not None:
        return decode_records(data, e, names, files, stop, out)
    if tail:
        recs[-1].padding += tail
    return out


def _headers(data: bytes, e) -> tuple:
    """([(offset, name hash, structural hash, file-list hash, mapping start, mapping end, padding)] of the
    records whose header and mapping are whole, the offset of the first that is not (or None), the zero bytes
    after the last record (they pad a linked section))."""
    import struct
    unpack = struct.Struct(e + "QIQQ").unpack_from
    n = len(data)
    pos = 0
    heads = []
    while pos < n:
        if n - pos < HEADER:
            if heads and not data[pos:].strip(b"\0"):
                return heads, None, data[pos:]
            return heads, pos, b""
        nh, size, fh, fref = unpack(data, pos)
        m = pos + HEADER
        end = m + size
        if end > n or not size or data[end - 1] >= 0x80:
            return heads, pos, b""
        pend = min((end + 7) & ~7, n)
        heads.append((pos, nh, fh, fref, m, end, data[end:pend]))
        pos = pend
    return heads, None, b""


def _values(data: bytes, heads: list) -> list:
    """[(values, index of the record's first, count, whether the list has a value over 32 bits)] of each record:
    one list of the whole section's ULEB128 values; where that meets a value it does not take, a list per record
    (None for a record it does not take)."""
    translate = bytes.translate
    blobs = [data[m0:m1] for _, _, _, _, m0, m1, _ in heads]
    counts = [len(translate(b, None, _HIGH)) for b in blobs]
    try:
        v = uleb_values(b"".join(blobs))
    except Slow:
        out = []
        for b, c in zip(blobs, counts):
            try:
                vr = uleb_values(b)
                out.append((vr, 0, c, max(vr) > U32))
            except Slow:
                out.append((None, 0, c, True))
        return out
    wide = bool(v) and max(v) > U32
    out, j = [], 0
    for c in counts:
        out.append((v, j, c, wide))
        j += c
    return out


def _read_record(v: list, j: int, end: int, packed: Packed, wide: bool) -> tuple:
    """(file ids, expressions, index of its first region, regions of each file id) of the record whose values
    are ``v[j:end]``, its regions added to ``packed``: per file id, a run of five values at a time for the code,
    gap, skipped and expansion regions (one slice), the operands of the others kept aside.  Slow (IndexError,
    ValueError) for one it does not take; ``wide``: ``v`` may have values over 32 bits."""
    nfiles = v[j]
    j += 1
    if nfiles > end - j:
        raise Slow
    file_ids = v[j:j + nfiles]
    j += nfiles
    nexpr = v[j]
    j += 1
    if 2 * nexpr > end - j:
        raise Slow
    ex = v[j:j + 2 * nexpr]
    j += 2 * nexpr
    if ex and max(ex) >= 4 * nexpr:
        for c in ex:
            if c & 2 and c >> 2 >= nexpr or c > U32:
                raise Slow
    cols, lines, cx_index, cx_ops = packed.cols, packed.lines, packed.cx_index, packed.cx_ops
    ext = cols.extend
    first = len(lines)
    counts = []
    for fid in range(nfiles):
        nreg = v[j]
        j += 1
        if 5 * nreg > end - j:
            raise Slow
        counts.append(nreg)
        a = len(cols)
        if fid and nreg:
            packed.files.append((a // 5, nreg, fid))
        run = j
        for _ in range(nreg):
            h = v[j]
            if h & 3 or h == 0 or h == 16:      # a code region (counter or zero, or gap), a skipped region
                j += 5
            elif h & 4:                         # an expansion
                if h >> 3 >= nfiles:
                    raise Slow
                j += 5
            else:               # branch, MC/DC decision, MC/DC branch: its operands kept aside
                ext(v[run:j + 1])
                ops, run = _operands(v, j, h, nexpr)
                cx_index.append(len(cols) // 5)
                cx_ops.append(ops)
                j = run + 4
        ext(v[run:j])
        lines.extend(accumulate(cols[a + 1::5]))
    if j != end:
        raise Slow
    hs = cols[5 * first::5]
    if hs and max(hs) >= 4 * nexpr:
        for h in hs:
            if h & 2 and h >> 2 >= nexpr:
                raise Slow
    if wide and hs and max(cols[5 * first:]) > U32:
        raise Slow
    return file_ids, list(zip(ex[0::2], ex[1::2])), first, counts


def _operands(v: list, j: int, h: int, nexpr: int) -> tuple:
    """((head, operands...), index after the operands) of the branch or MC/DC region whose head is ``v[j]``."""
    if h == 0x20 or h == 0x28:      # two operands
        ops = tuple(v[j:j + 3])
        b, c = ops[1], ops[2]
        if h == 0x20:
            if b & 2 and b >> 2 >= nexpr or c & 2 and c >> 2 >= nexpr or b > U32 or c > U32:
                raise Slow
        elif b > U32 or c > 0x7FFF:
            raise Slow
        return ops, j + 3
    if h == 0x30:                   # two counters, three condition ids
        ops = tuple(v[j:j + 6])
        _, b, c, x, y, z = ops
        if (b & 2 and b >> 2 >= nexpr or c & 2 and c >> 2 >= nexpr or b > U32 or c > U32
                or x == 0 or x > 0x7FFF or y > 0x7FFF or z > 0x7FFF):
            raise Slow
        return ops, j + 6
    raise Slow
