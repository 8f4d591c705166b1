"""The records of a ``__llvm_covfun`` section and the plain decoder of their mappings (the readable reference).

The models (:class:`Region`, :class:`Mapping`, :class:`FunctionRecord`, :class:`CoverageFunctions`), the counter
notation, :func:`decode_mapping` / :func:`encode_mapping` of one function's mapping and :func:`decode_records`,
the record-by-record decoder of a section, which reports what is wrong and where and keeps the records before.
The codec (``sections/coverage_map.py``) decodes through ``support/covfun_fast.py``, which falls back to
:func:`decode_mapping` for any record it does not take; the format is described in that codec's docstring.
"""
from __future__ import annotations

from ..._model import dataclass, field, from_packed
from ...binary import ULEBError, read_uleb, uleb_encode
from ...errors import DecodeError

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
    for lhs, rhs in exprs:
        _check_counter(lhs, nexpr, start)
        _check_counter(rhs, nexpr, start)
    for fid in range(nfiles):
        pos = _decode_file_regions(data, pos, end, read, fid, nfiles, nexpr, m.regions)
    if pos != end:
        raise DecodeError(f"{end - pos} bytes left after the mapping's regions", offset=pos)
    return m, not flags[0]


def _check_counter(c: int, nexpr: int, at: int) -> None:
    if c & 2 and (c >> 2) >= nexpr:
        raise DecodeError(f"counter refers to expression {c >> 2}, the function has {nexpr}", offset=at)
    if c > U32:
        raise DecodeError(f"counter {c:#x} does not fit in 32 bits", offset=at)


def _decode_file_regions(data, pos, end, read, fid, nfiles, nexpr, regions) -> int:
    """Append the regions of file id ``fid`` (its count, then each region) read at ``pos``; the end of them."""
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
        kind, counter, fc, expanded, params, pos = _region_head(head, pos, at, read, nfiles, nexpr)
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
        line += delta
        regions.append(Region(kind, fid, counter, line, cs, line + nl, ce & ~GAP_BIT, bool(ce & GAP_BIT), fc,
                              expanded, params))
    return pos


def _region_head(head, pos, at, read, nfiles, nexpr) -> tuple:
    """(kind, counter, false counter, expanded file, params, position after the operands) of the region whose
    counter or kind is ``head``, its operands read at ``pos``."""
    if head & 3:
        _check_counter(head, nexpr, at)
        return CODE, head, 0, 0, (), pos
    if head & 4:
        if head >> 3 >= nfiles:
            raise DecodeError(f"expansion of file id {head >> 3}, the function has {nfiles}", offset=at)
        return EXPANSION, 0, 0, head >> 3, (), pos
    k = head >> 3
    if k == CODE or k == SKIPPED:
        return k, 0, 0, 0, (), pos
    if k == BRANCH or k == MCDC_BRANCH:
        counter, pos = read(pos, "branch true counter")
        _check_counter(counter, nexpr, at)
        fc, pos = read(pos, "branch false counter")
        _check_counter(fc, nexpr, at)
        params = ()
        if k == MCDC_BRANCH:
            a, pos = read(pos, "MC/DC condition id")
            b, pos = read(pos, "MC/DC true id")
            c, pos = read(pos, "MC/DC false id")
            if a == 0 or a > 0x7FFF or b > 0x7FFF or c > 0x7FFF:
                raise DecodeError(f"MC/DC condition ids ({a}, {b}, {c}) stored plus one: expected 1 to 32767 (0 "
                                  f"for none in the true and false ids)", offset=at)
            params = (a, b, c)
        return k, counter, fc, 0, params, pos
    if k == DECISION:
        a, pos = read(pos, "MC/DC bitmap index")
        b, pos = read(pos, "MC/DC condition count")
        if a > U32 or b > 0x7FFF:
            raise DecodeError(f"MC/DC decision (bitmap index {a}, {b} conditions) out of range", offset=at)
        return DECISION, 0, 0, 0, (a, b), pos
    raise DecodeError(f"region kind {k}: expected 0 code, 2 skipped, 4 branch, 5 MC/DC decision or 6 MC/DC branch",
                      offset=at)


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


def decode_records(data, e, names, files, pos: int = 0, out: CoverageFunctions | None = None) -> CoverageFunctions:
    """The function records of ``data`` from ``pos`` on, appended to ``out``: each header, then its mapping by
    :func:`decode_mapping`.  A DecodeError names the record and carries the records read before it."""
    import struct
    out = CoverageFunctions() if out is None else out
    hdr = struct.Struct(e + "QIQQ")
    n = len(data)
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
        m, raw = record_mapping(data, pos, pos + size, out, names.get(nh), nh)
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


def record_mapping(data, start: int, end: int, out: CoverageFunctions, name, nh) -> tuple:
    """(Mapping, the stored bytes when they do not re-encode the same, else None) of the record whose mapping is
    ``data[start:end]``, the next record of ``out``; a DecodeError names it and carries ``out``."""
    try:
        m, minimal = decode_mapping(data, start, end)
    except DecodeError as exc:
        exc.message = f"function record {len(out.records)} ({name or f'hash {nh:#x}'}): {exc.message}"
        exc.partial = out
        raise
    return m, (None if minimal else bytes(data[start:end]))
