"""The JSON text of a decoded ``__llvm_covfun`` section, written from its region columns.

``covfun_json_chunks(model, packed, indent)`` gives the same text as ``json.dumps(to_dict(model))`` (compact, or
indented by 2 as part of a document) without a dict per region: a batch of functions at a time, one bytes
%-template for all its regions (text before the start line, start line, start column, end line, end column, text
after), the texts that depend on a region's kind, file, counter or operands made once each.  ``json_ready``
says whether a model is still as the decoder made it (else the codec's ``to_dict`` is written).
tests/test_coverage_packed.py checks the text against ``json.dumps(to_dict(...))``.  It earns its place on
lua, zstd and jsonnet of scripts/bench-coverage (docs/benchmarks.md, "coverage").
"""
from __future__ import annotations

from ..._model import no_gc
from .coverage_model import (BRANCH, CODE, DECISION, EXPANSION, GAP_BIT, KINDS, MCDC_BRANCH, SKIPPED,
                             WHOLE_LINE_END, FunctionRecord, Mapping, counter_json)
from .covfun_fast import Packed

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
        from ...render import json_layout, json_texts
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


def no_gc_chunks(it):
    """The pieces of ``it``, each made with the collector off (no cycles among the texts: its passes only cost)."""
    while True:
        with no_gc():
            p = next(it, None)
        if p is None:
            return
        yield p


def json_ready(model):
    """The Packed that holds the regions of every record of ``model`` (a decoded CoverageFunctions), in order
    and whole, when every record is as decode made it, at least in kind (fields of the types decode gives, the
    regions not asked for), so that the column writer gives to_dict's text; else None.  (Checked a field at a
    time over all records: a set of the types each.)"""
    from itertools import chain, repeat
    from operator import add, attrgetter, is_not
    recs = model.records
    if type(recs) is not list or not recs:
        return None if type(recs) is not list else Packed([], [], [], [])
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


def json_size_at_least(model) -> int:
    """A length the compact text is certainly not shorter than: 76 bytes a region (the shortest one, a gap
    region of one-digit numbers, is 90), 200 a function (the shortest is about 210)."""
    return 76 * sum(map(sum, (r.mapping._counts for r in model.records))) + 200 * len(model.records)


def covfun_json_chunks(model, packed, indent):
    """The text of to_dict(model) (see the module's docstring), piece by piece: a batch of functions at a time,
    each column of the batch (the regions', then the functions') by one operation where it can."""
    from itertools import accumulate
    from operator import add, attrgetter
    from ...render import batches
    st = _json_style(indent)
    recs = model.records
    if not recs:
        yield st.empty
        return
    cols, lines = packed.cols, packed.lines
    maps = list(map(attrgetter("mapping"), recs))
    totals = list(map(sum, map(attrgetter("_counts"), maps)))
    ends = list(accumulate(totals))
    base = maps[0]._first
    pending = st.open
    for i, j in batches(ends, _JSON_BATCH):
        a = base + (ends[i - 1] if i else 0)
        b = base + ends[j - 1]
        nreg = b - a
        texts_before, texts_after, cs = _region_texts(st, packed, a, b)
        starts, pending, ft = _function_texts(st, recs[i:j], maps[i:j], totals[i:j], pending)
        firsts = [0, *accumulate(ft[:-1])]
        if not nreg:
            continue
        for k, f, s in zip(firsts, ft, starts):     # each function's text goes before its first region
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


def _region_texts(st: _JSONStyle, packed, a: int, b: int) -> tuple:
    """(text before each region's start line, text after its end column, start columns) of the regions ``a`` to
    ``b`` of ``packed`` (whole-line regions given columns 1 and 0xffffffff)."""
    from bisect import bisect_left
    from itertools import repeat
    from operator import sub
    cols, cx_index, cx_ops, fruns = packed.cols, packed.cx_index, packed.cx_ops, packed.files
    ce = cols[5 * a + 4:5 * b:5]
    hc = list(zip(cols[5 * a:5 * b:5], ce))
    texts_before = list(map(st.before.__getitem__, hc))
    texts_after = list(map(st.after.__getitem__, hc))
    cs = cols[5 * a + 2:5 * b:5]
    p, q = bisect_left(cx_index, a), bisect_left(cx_index, b)
    if q > p:
        at = list(map(sub, cx_index[p:q], repeat(a)))
        any(map(texts_after.__setitem__, at, map(st.after_ops.__getitem__, zip(cx_ops[p:q], map(ce.__getitem__, at)))))
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
    p, q = bisect_left(fruns, (a,)), bisect_left(fruns, (b,))
    for x, n, fid in fruns[p:q]:        # the regions of file ids above 0
        x -= a
        texts_before[x:x + n] = map(st.before_file[fid].__getitem__, hc[x:x + n])
    return texts_before, texts_after, cs


def _function_texts(st: _JSONStyle, fr: list, fm: list, ft: list, pending: bytes) -> tuple:
    """(the text from the end of the function before to the start of each one's regions: its fields and
    expressions, the text after the batch's last function, regions of each) of the functions ``fr`` (mappings
    ``fm``, ``ft`` regions each); ``pending``: the text after the batch before."""
    from itertools import repeat
    from operator import add, attrgetter
    from ...render import json_texts
    nf = len(fr)
    exprs = list(map(st.expr_between.join, map(map, repeat(st.expr.__getitem__), map(attrgetter("expressions"), fm))))
    args = [None] * (8 * nf)
    args[0::8] = map(attrgetter("offset"), fr)
    args[1::8] = json_texts(list(map(attrgetter("name"), fr)))
    args[2::8] = map(attrgetter("name_hash"), fr)
    args[3::8] = map(attrgetter("func_hash"), fr)
    args[4::8] = map(attrgetter("filenames_hash"), fr)
    args[5::8] = map(st.file_ids.__getitem__, map(tuple, map(attrgetter("file_ids"), fm)))
    args[6::8] = map(st.files.__getitem__, [f if f is None else tuple(f) for f in map(attrgetter("files"), fr)])
    args[7::8] = map(st.expr_list.get, exprs, map(add, map(add, repeat(st.expr_open), exprs), repeat(st.expr_close)))
    heads = (((st.head + b"[\0") * nf) % tuple(args)).split(b"\0")
    args = [None] * (2 * nf)
    args[0::2] = map(st.raw.__getitem__, map(attrgetter("raw"), fr))
    args[1::2] = map(st.hex.__getitem__, map(attrgetter("padding"), fr))
    tails = (((st.regions_end + st.tail + st.between + b"\0") * nf) % tuple(args)).split(b"\0")
    tails[-1] = pending
    starts = list(map(add, tails[-1:] + tails[:-2], heads))    # (tails[-1] is ''; heads[-1] too)
    pending = tails[-2]
    if 0 in ft:                 # functions without regions: their text goes before the next one's
        empty_end = len(st.regions_end)
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
    return starts, pending, ft
