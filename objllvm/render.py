"""The two renderers: text and JSON.  Commands print only through these.

Text: tables in tabulate's "simple" format, laid out here from the columns' widths through per-row
%-templates, many rows per formatting (numpy for very big groups of tables, when installed); tabulate
itself only for cells this layout cannot reproduce exactly.  JSON: json's text (orjson for big plain
documents), parts a codec can write itself spliced in as text or streamed (RawJSON, JSONStream).

Cheap to import (codecs and the command line import it at start-up): tabulate, json, orjson and numpy
are imported when something needs them.  docs/benchmarks.md says what each path costs."""
import sys
from itertools import chain, repeat
from _operator import add

from ._model import dataclass
from .errors import report_error, report_warning  # noqa: F401  (commands print problems through these)
from .errors import terminal_text


@dataclass
class Table:
    """A text table."""
    headers: list
    rows: list
    title: str | None = None


class ColumnTable:
    """A text table given by its columns: the same text as a :class:`Table` of the same cells, laid
    out from the columns' widths and written through one template per row.  ``columns``: sequences
    of equal length; ``kinds``: one letter per column, ``d`` integers in decimal, ``x`` integers as
    ``0x`` hex (each plus ``bases[i]`` when ``bases`` is given), ``s`` text, ``c`` small integers
    standing for the text ``labels[i][v]``."""
    __slots__ = ("headers", "columns", "kinds", "title", "bases", "labels")

    def __init__(self, headers, columns, kinds, title=None, bases=None, labels=None):
        self.headers = headers
        self.columns = columns
        self.kinds = kinds
        self.title = title
        self.bases = bases
        self.labels = labels

    @property
    def rows(self) -> list:
        """The cells row by row, as a :class:`Table` of this table holds them (hex as text)."""
        cols = []
        for i, (col, k) in enumerate(zip(self.columns, self.kinds)):
            b = self.bases[i] if self.bases else 0
            if k == "d":
                cols.append([v + b for v in col])
            elif k == "x":
                cols.append([f"{v + b:#x}" for v in col])
            elif k == "c":
                lab = self.labels[i]
                cols.append([lab[v] for v in col])
            else:
                cols.append(list(col))
        return [list(r) for r in zip(*cols)]


class TableGroup:
    """Many tables of the same columns (headers, kinds and labels as in :class:`ColumnTable`), given
    column by column across the tables: ``columns[i]`` the list of the tables' i-th columns,
    ``bases[i]`` the list of the tables' bases for it (or None), ``titles`` the tables' titles.
    Rendered as the tables one after the other (``tables()``), each laid out from its own columns'
    widths: the layout is computed for many tables at once."""
    __slots__ = ("headers", "kinds", "labels", "titles", "columns", "bases")

    def __init__(self, headers, kinds, titles, columns, bases=None, labels=None):
        self.headers = headers
        self.kinds = kinds
        self.titles = titles
        self.columns = columns
        self.bases = bases
        self.labels = labels

    def tables(self):
        bases = self.bases or (None,) * len(self.columns)
        for k, title in enumerate(self.titles):
            yield ColumnTable(self.headers, [c[k] for c in self.columns], self.kinds, title,
                              [0 if b is None else b[k] for b in bases], self.labels)


class FlatTableGroup:
    """Many tables of the same columns (headers, kinds and labels as in :class:`ColumnTable`; no
    bases), given flat: ``counts[k]`` the number of rows of table k, ``columns(i, j)`` the rows of
    tables i to j one after the other, as one sequence per column.  ``titles`` as in
    :class:`TableGroup` (an ``encoded(i, j, encoding, errors)`` method, when it has one, gives the titles
    of tables i to j as bytes, each with its newline).  For a producer that keeps its rows in columns
    over all its tables (no per-table objects): the layout is computed for a batch of tables at once."""
    __slots__ = ("headers", "kinds", "labels", "titles", "counts", "columns", "bounds")

    def __init__(self, headers, kinds, titles, counts, columns, labels=None, bounds=None):
        self.headers = headers
        self.kinds = kinds
        self.titles = titles
        self.counts = counts
        self.columns = columns
        self.labels = labels
        # optional: bounds(i, j, columns) -> for each number column of tables i to j, (lo, hi) or None:
        # lo a lower bound of its values (its smallest value when negative values can occur), hi an upper
        # bound (the widths come from the values themselves when hi's text is wider than the header)
        self.bounds = bounds

    def tables(self):
        from itertools import accumulate as acc
        ends = list(acc(self.counts))
        for i, j in batches(ends, _BATCH_ROWS):
            start = ends[i - 1] if i else 0
            cols = self.columns(i, j)
            a = start
            for k in range(i, j):
                b = ends[k] - start
                yield ColumnTable(self.headers, [c[a:b] for c in cols], self.kinds, self.titles[k], None,
                                  self.labels)
                a = b


def expand(items):
    """The items with each TableGroup replaced by its tables."""
    for it in items:
        if type(it) is TableGroup or type(it) is FlatTableGroup:
            yield from it.tables()
        else:
            yield it


@dataclass
class Heading:
    text: str
    level: int = 1


@dataclass
class Text:
    """Text of one or more lines (its newlines and tabs are written; ``one_line``: escaped too, for a message
    that is one line whatever it quotes from a file)."""
    text: str
    one_line: bool = False


def render_text(items, out=None, *, engine: str = "fast") -> None:
    """Render Heading / Text / Table / ColumnTable items (any iterable: each is written as it comes,
    in batches) as plain text.  Tables come out in tabulate's "simple" format, numbers not parsed
    (every column left-aligned, two blanks between columns, no blanks at a line's end).
    ``engine="tabulate"``: tabulate lays out every table (the reference the fast layout is tested
    against); else it lays out only what the fast layout does not do exactly: text with non-ASCII
    or non-printing characters or blanks at either end, cells other than int, str and None.

    Text from a file never reaches the terminal as it is: every character that is not printable (control
    characters, escape sequences, bidirectional overrides, bytes that were not UTF-8) in a heading, a
    title, a header or a cell is written as an escape (``errors.terminal_text``: ``\\x1b``, ``\\u202e``,
    ``\\xff``); a ``Text`` keeps its newlines and tabs."""
    out = out or sys.stdout
    w = _TextWriter(out)
    first = True
    for it in items:
        t = type(it)
        if t is ColumnTable:
            if engine != "fast" or not w.column_table(it):
                w.tabulate(it.title, it.headers, it.rows)
        elif t is TableGroup:
            if engine != "fast" or not w.group(it):
                for c in it.tables():
                    if engine != "fast" or not w.column_table(c):
                        w.tabulate(c.title, c.headers, c.rows)
        elif t is FlatTableGroup:
            if engine != "fast" or not w.flat_group(it):
                for c in it.tables():
                    if engine != "fast" or not w.column_table(c):
                        w.tabulate(c.title, c.headers, c.rows)
        elif t is Heading:
            if not first and it.level <= 1:
                w.text("\n")
            w.text(("" if it.level <= 1 else "  " * (it.level - 1)) + terminal_text(it.text) + "\n")
        elif t is Text:
            w.text(terminal_text(it.text, "" if it.one_line else "\n\t") + "\n")
        elif t is Table:
            if engine != "fast" or not w.column_table(_columns_of(it)):
                w.tabulate(it.title, it.headers, it.rows)
        else:
            raise TypeError(f"cannot render {t.__name__}")
        first = False
    w.flush()


_BATCH_ROWS = 1 << 13      # table rows formatted by one %-operation (its memory is reused by the next)
FIRST_BATCH = 1 << 10      # render.batches: the first batch's rows; each batch at most a 24th of all rows
BATCHES_AT_LEAST = 24


def batches(ends, cap, first=None):
    """(i, j) of consecutive batches of items (tables, functions) whose running row counts are ``ends``:
    each batch ends with the last item that keeps it within its size in rows (at least one item).  The
    first is ``first`` rows (FIRST_BATCH) and each is twice the one before, up to ``cap`` or a
    BATCHES_AT_LEAST'th of all rows, whichever is smaller (but at least ``first``).

    The memory a batch takes is taken from the system (page faults, ~2 us per 4 KiB page here) as far
    as it is larger than any batch before, and reused by the later ones; each batch also has a fixed
    cost.  So small batches for a small input and big ones for a big one: the JSON document of a map
    of 24,000 blocks is 16.6 ms of work with batches of 1,024 blocks and 18.8 ms with 8,192 (1,160 more
    page faults); at 240,000 blocks 141 ms and 135 ms."""
    n = len(ends)
    i = 0
    size = min(FIRST_BATCH if first is None else first, cap)
    if n:
        cap = min(cap, max(size, ends[-1] // BATCHES_AT_LEAST))
    while i < n:
        x = (ends[i - 1] if i else 0) + size
        lo, hi = i, n          # the first item past x (bisect_right, without importing bisect)
        while lo < hi:
            mid = (lo + hi) // 2
            if x < ends[mid]:
                hi = mid
            else:
                lo = mid + 1
        j = lo if lo > i else i + 1
        yield i, j
        i = j
        if size < cap:
            size = min(2 * size, cap)
# Groups of tables with more rows than this are laid out through numpy (when it is installed): its
# import (about 0.1 s and 14 MB) is then repaid (2M rows: 1.4 s instead of 2.4 s); below, the
# %-templates are about as fast and take less memory.
NUMPY_ROWS = 500_000
_NUMPY_BATCH = 1 << 14
_NONE = type(None)
_BYTE_VALUES = bytes(range(256))     # b.translate(None, _BYTE_VALUES[:n]) is empty when every byte of b is below n
_PRINTABLE_ASCII_NL = bytes(range(0x20, 0x7f)) + b"\n"    # b.translate(None, this): the bytes that are not these


def _plain(s) -> bool:
    """True when tabulate writes ``s`` as it is, as wide as its length."""
    return type(s) is str and s.isascii() and s.isprintable() and s.strip() == s


def _columns_of(t):
    """A Table as a ColumnTable (None when its cells are not all int, str or None)."""
    rows = t.rows
    n = len(t.headers)
    if not rows or any(len(r) != n for r in rows):
        return None if rows else ColumnTable(t.headers, [], "", t.title)
    cols, kinds = [], []
    for col in zip(*rows):
        types = set(map(type, col))
        if types == {int}:
            cols.append(col)
            kinds.append("d")
        elif types <= {int, str, _NONE}:
            cols.append(col if types == {str} else ["" if v is None else str(v) for v in col])
            kinds.append("s")
        else:
            return None
    return ColumnTable(t.headers, cols, "".join(kinds), t.title)


class _Templates(dict):
    def __init__(self, make):
        super().__init__()
        self.make = make

    def __missing__(self, key):
        v = self[key] = self.make(key)
        return v


class _TextWriter:
    """Text as %-templates (bytes, ``%`` escaped) and their arguments, formatted and written a batch
    at a time."""

    def __init__(self, out):
        self.out = out
        self.tmpl = []
        self.args = []
        self.rows = 0
        self.buf = buf = getattr(out, "buffer", None)
        self.encoding = (getattr(out, "encoding", None) or "utf-8") if buf is not None else "utf-8"
        self.errors = (getattr(out, "errors", None) or "strict") if buf is not None else "surrogatepass"

    def text(self, s: str) -> None:
        self.tmpl.append(s.encode(self.encoding, self.errors).replace(b"%", b"%%"))

    def flush(self) -> None:
        if not self.tmpl:
            return
        data = b"".join(self.tmpl) % tuple(self.args)
        self.tmpl.clear()
        self.args.clear()
        self.rows = 0
        if self.buf is not None:
            self.out.flush()
            self.buf.write(data)
        else:
            self.out.write(data.decode(self.encoding, self.errors))

    def titles(self, titles, i, j) -> list:
        """The titles of tables i to j as bytes, each with its newline (b"" for none), escaped as
        terminal_text escapes them.  Titles that give themselves as bytes (an ``encoded`` method) are
        taken as they are when they hold only printable ASCII."""
        enc = getattr(titles, "encoded", None)
        if enc is not None:
            try:
                tb = enc(i, j, self.encoding, self.errors)
            except UnicodeError:       # (a byte that was not UTF-8 in a name: escaped below)
                tb = None
            if tb is not None:
                joined = b"".join(tb)
                if joined.isascii() and not joined.translate(None, _PRINTABLE_ASCII_NL):
                    return tb
        return [(terminal_text(t) + "\n").encode(self.encoding, self.errors) if t else b"" for t in titles[i:j]]

    def tabulate(self, title, headers, rows) -> None:
        if title:
            self.text(f"{terminal_text(title)}\n")
        if rows:
            from tabulate import tabulate
            rows = [[terminal_text(v) if type(v) is str else v for v in r] for r in rows]
            headers = [terminal_text(h) if type(h) is str else h for h in headers]
            self.text(tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True) + "\n")
        else:
            self.text("(none)\n")

    def group(self, g) -> bool:
        """Lay out the tables of a TableGroup through numpy when it is big and numpy is there (False:
        nothing written, they are to be laid out one by one)."""
        cols, kinds, headers = g.columns, g.kinds, g.headers
        labels = g.labels or (None,) * len(cols)
        ntab = len(g.titles)
        if not ntab or set(kinds) - set("dxc") or kinds[-1] != "c" or not all(map(_plain, headers)):
            return False
        if len(cols) < 2 or kinds[-2] not in "dx" or "c" in kinds[:-1]:
            return False
        counts = list(map(len, cols[0]))
        if 0 in counts:
            return False
        lab = labels[-1]
        if not all(map(_plain, lab)):
            return False
        bases = g.bases or (None,) * len(cols)
        for col, k, b in zip(cols, kinds, bases):
            if k != "c":
                types = set(map(type, col))
                unsigned = types == {bytes} or len(types) == 1 and getattr(col[0], "typecode", "b") in "BHILQ"
                if (not unsigned and min(map(min, col)) < 0) or (b and min(b) < 0):
                    return False          # negative numbers: the tables one by one
        self.flush()
        np = None
        if sum(counts) >= NUMPY_ROWS:
            try:
                import numpy as np
            except ImportError:
                pass
        if np is None:
            return self._group_templates(g, counts)
        from itertools import accumulate as acc
        self.flush()
        ends = list(acc(counts))
        lablen = np.array(list(map(len, lab)), np.int64)
        lab_b = [s.encode("ascii") for s in lab]
        is_empty = lablen == 0
        frames = {}
        for i, j in batches(ends, _NUMPY_BATCH):
            start = ends[i - 1] if i else 0
            nrow = ends[j - 1] - start
            cnt = np.array(counts[i:j], np.int64)
            starts = np.zeros(j - i, np.int64)
            np.cumsum(cnt[:-1], out=starts[1:])
            widths = []
            fields = []
            codes = _np_column(np, cols[-1][i:j], nrow)
            empty = is_empty[codes]
            for c, (col, k, b, h) in enumerate(zip(cols, kinds, bases, headers)):
                part = col[i:j]
                if k == "c":
                    w = np.maximum(np.maximum.reduceat(lablen[codes], starts), len(h) + 2)
                    widths.append(w.tolist())
                    fields.append(("lit", b"  ", ~empty))
                    fields.append(("c", codes, lab_b))
                    continue
                v = _np_column(np, part, nrow).astype(np.uint64)
                if b:
                    v += np.repeat(np.array(b[i:j], np.uint64), cnt)
                hi = np.maximum.reduceat(v, starts)
                radix = 16 if k == "x" else 10
                nd = np.ones(j - i, np.int64) + (2 if k == "x" else 0)
                for e in range(1, len(f"{int(hi.max()):x}" if k == "x" else str(int(hi.max())))):
                    nd += hi >= np.uint64(radix ** e)
                w = np.maximum(nd, len(h) + 2)
                widths.append(w.tolist())
                last_num = c == len(cols) - 2
                if c:
                    fields.append(("lit", b"  ", None))
                fields.append((k, v, np.repeat(w, cnt), empty if last_num else None))
            fields.append(("lit", b"\n", None))
            text, lens = numpy_rows(nrow, fields)
            cut = np.cumsum(lens)[starts + cnt - 1].tolist()
            keys = list(zip(*widths))
            for key in set(keys) - frames.keys():
                head = "  ".join(x.ljust(y) for x, y in zip(headers, key)).rstrip()
                frames[key] = (head + "\n" + "  ".join("-" * y for y in key) + "\n").encode("ascii")
            tb = self.titles(g.titles, i, j)
            mv = memoryview(text)
            slices = map(mv.__getitem__, map(slice, [0] + cut[:-1], cut))
            pieces = chain.from_iterable(zip(tb, map(frames.__getitem__, keys), slices))
            self._write(b"".join(pieces))
        return True

    def _group_templates(self, g, counts) -> bool:
        """group() without numpy: a batch of tables' rows by one %-operation, each row's template chosen
        by its table's widths and its label."""
        from itertools import accumulate as acc
        cols, kinds, headers = g.columns, g.kinds, g.headers
        bases = g.bases or (None,) * len(cols)
        lab = g.labels[-1]
        lablen = tuple(map(len, lab))
        lab_esc = [s.encode("ascii").replace(b"%", b"%%") for s in lab]
        ends = list(acc(counts))
        flat = chain.from_iterable
        frames, rowsets = {}, {}
        titles = g.titles
        last = len(cols) - 1
        for i, j in batches(ends, _BATCH_ROWS):
            widths, args = [], []
            for c, (col, k, b, h) in enumerate(zip(cols, kinds, bases, headers)):
                part = col[i:j]
                hmin = len(h) + 2
                if k == "c":
                    widths.append(list(map(max, map(max, map(map, repeat(lablen.__getitem__), part)), repeat(hmin))))
                    continue
                his = list(map(max, part))
                if b:
                    his = list(map(add, his, b[i:j]))
                    args.append(map(add, flat(part), flat(map(repeat, b[i:j], counts[i:j]))))
                else:
                    args.append(flat(part))
                widths.append(list(map(max, map(len, map(hex if k == "x" else str, his)), repeat(hmin))))
            tb = self.titles(titles, i, j)
            tmpl = []
            for t, key, codes in zip(tb, zip(*widths), cols[-1][i:j]):
                fr = frames.get(key)
                if fr is None:
                    head = "  ".join(x.ljust(y) for x, y in zip(headers, key)).rstrip()
                    fr = frames[key] = (head + "\n" + "  ".join("-" * y for y in key) + "\n").encode("ascii")
                    parts = [(b"%#-" if k == "x" else b"%-") + b"%d" % w + (b"x" if k == "x" else b"d")
                             for k, w in zip(kinds[:last], key)]
                    full = b"  ".join(parts) + b"  "
                    short = b"  ".join(parts[:-1] + [b"%#x" if kinds[last - 1] == "x" else b"%d"])
                    rowsets[key] = tuple(full + s + b"\n" if s else short + b"\n" for s in lab_esc)
                if t:
                    tmpl.append(t.replace(b"%", b"%%"))
                tmpl.append(fr)
                tmpl.append(b"".join(map(rowsets[key].__getitem__, codes)))
            self._write(b"".join(tmpl) % tuple(flat(zip(*args))))
        return True

    def flat_group(self, g) -> bool:
        """Lay out a FlatTableGroup (False, nothing written, when it is not one this can do: kinds other
        than ``d``/``x`` and a last ``c`` column, headers or labels tabulate would change, negative
        numbers).  A batch of tables at a time: each column's width for every table of the batch at once
        when no value of the batch is wider than its header (else table by table), each row's template
        chosen by its table's widths and its label, the rows formatted by one %-operation."""
        from itertools import accumulate as acc
        kinds, headers, counts = g.kinds, g.headers, g.counts
        if len(kinds) < 2 or set(kinds[:-1]) - set("dx") or kinds[-1] != "c" or len(headers) != len(kinds):
            return False
        lab = g.labels[-1]
        if not all(map(_plain, headers)) or not all(map(_plain, lab)) or 0 in counts:
            return False
        flat = chain.from_iterable
        last = len(kinds) - 1
        if len(lab) > 256 or max(map(len, lab)) > 255:
            return False
        lablen = bytes(map(len, lab)) + bytes(256 - len(lab))     # a label's length by its code
        lab_esc = [s.encode("ascii").replace(b"%", b"%%") for s in lab]
        hw = [len(h) + 2 for h in headers]
        ends = list(acc(counts))
        titles = g.titles
        frames, rowsets, pieces = {}, {}, {}
        self.flush()
        for i, j in batches(ends, _BATCH_ROWS):
            start = ends[i - 1] if i else 0
            cols = g.columns(i, j)
            known = g.bounds(i, j, cols) if g.bounds is not None else None
            cnt = counts[i:j]
            firsts = [e - start for e in ends[i:j - 1]]
            firsts.insert(0, 0)
            slices = None
            widths = []
            bounds = {}
            for c, (col, k) in enumerate(zip(cols, kinds)):
                if c == last:
                    col = col if type(col) is bytes else bytes(col)
                    if col.translate(None, _BYTE_VALUES[:len(lab)]):
                        raise IndexError(f"label code {max(col)} in column {headers[c]!r} (labels: {len(lab)})")
                    lens = col.translate(lablen)
                    if not lens.translate(None, _BYTE_VALUES[:hw[c] + 1]):     # none longer than the header
                        widths.append(repeat(hw[c]))
                        continue
                    col, fmt, neg = lens, None, False
                else:
                    lo, hi = (known and known[c]) or (min(col), max(col))
                    bounds[c] = (lo, hi)
                    fmt = hex if k == "x" else str
                    neg = lo < 0
                    if max(len(fmt(lo)), len(fmt(hi))) <= hw[c]:
                        widths.append(repeat(hw[c]))
                        continue
                if slices is None:
                    slices = list(map(slice, firsts, firsts[1:] + [ends[j - 1] - start]))
                w = map(max, map(col.__getitem__, slices))
                if fmt:
                    w = map(len, map(fmt, w))
                    if neg:
                        w = map(max, w, map(len, map(fmt, map(min, map(col.__getitem__, slices)))))
                widths.append(map(max, w, repeat(hw[c])))
            keys = list(zip(*widths)) if slices is not None else [tuple(w.__next__() for w in widths)] * (j - i)
            for key in set(keys) - frames.keys():
                head = "  ".join(x.ljust(y) for x, y in zip(headers, key)).rstrip()
                frames[key] = (head + "\n" + "  ".join("-" * y for y in key) + "\n").encode("ascii")
                parts = [(b"%#-" if k == "x" else b"%-") + b"%d" % w + (b"x" if k == "x" else b"d")
                         for k, w in zip(kinds[:last], key)]
                full = b"  ".join(parts) + b"  "
                short = b"  ".join(parts[:-1] + [b"%#x" if kinds[last - 1] == "x" else b"%d"])
                rowsets[key] = tuple(full + s + b"\n" if s else short + b"\n" for s in lab_esc)
            tb = self.titles(titles, i, j)
            if len(set(keys)) == 1:
                data = self._piece_rows(cols, kinds, keys[0], bounds, lab, pieces, firsts,
                                        list(map(bytes.__add__, tb, repeat(frames[keys[0]]))), ends[-1])
                if data is not None:
                    self._write(data)
                    continue
            codes = cols[last]
            if len(set(keys)) == 1:
                tmpl = list(map(rowsets[keys[0]].__getitem__, codes))
            else:
                tmpl = list(map(tuple.__getitem__, map(rowsets.__getitem__, flat(map(repeat, keys, cnt))), codes))
            for f, t, key in zip(firsts, tb, keys):
                tmpl[f] = t.replace(b"%", b"%%") + frames[key] + tmpl[f]
            self._write(b"".join(tmpl) % tuple(flat(zip(*cols[:last]))))
        return True

    @staticmethod
    def _piece_rows(cols, kinds, key, bounds, lab, pieces, firsts, heads, total):
        """The rows of a batch of tables that all have the widths ``key``, as bytes (None when they are
        not for this): a column of small numbers (below 0x10000) as pieces of text made once for each
        value (with the blanks after it), the last number and the label together as one piece made
        once for each pair (both below 256), other numbers converted by the template.  ``heads``: the
        text before each table's first row (at ``firsts``); ``total``: the rows of the whole group."""
        last = len(kinds) - 1
        n = len(cols[0])
        args, tparts = [], []
        for c in range(last):
            col, k, w = cols[c], kinds[c], key[c]
            lo, hi = bounds[c]
            if lo < 0:
                return None
            fmt = "%#x" if k == "x" else "%d"
            if c == last - 1:
                codes = cols[last]
                if hi > 255 or (type(codes) is not bytes and max(codes) > 255):
                    return None
                codes = codes if type(codes) is bytes else bytes(codes)
                pairs = bytearray(2 * n)
                pairs[0::2] = col if type(col) is bytes else bytes(col)
                pairs[1::2] = codes
                keys = memoryview(pairs).cast("H")
                little = sys.byteorder == "little"
                tab = pieces.get((c, k, w))
                if tab is None:
                    tab = pieces[(c, k, w)] = [None] * 0x10000
                    pieces[(c, k, w, "made")] = set()
                made = pieces[(c, k, w, "made")]
                for code in [c for c in range(len(lab)) if c not in made and c in codes]:   # (the labels present)
                    s = lab[code]
                    for v in range(256):
                        txt = fmt % v
                        t = ((txt.ljust(w) + "  " + s) if s else txt) + "\n"
                        tab[(v | code << 8) if little else (v << 8 | code)] = t.encode("ascii")
                    made.add(code)
                args.append(map(tab.__getitem__, keys))
                tparts.append(b"%s")
            elif hi < 0x10000 and hi - len(pieces.get((c, k, w), ())) < total // 4:
                # (pieces only where making them costs less than converting the rows would)
                tab = pieces.get((c, k, w))
                if tab is None:
                    tab = pieces[(c, k, w)] = []
                if len(tab) <= hi:
                    tab.extend(((fmt % v).ljust(w) + "  ").encode("ascii") for v in range(len(tab), hi + 1))
                args.append(map(tab.__getitem__, col))
                tparts.append(b"%s")
            else:
                args.append(col)
                length = len(fmt % hi)
                if len(fmt % lo) == length:     # all as long: the padding as text (a padded conversion is slower)
                    tparts.append(fmt.encode("ascii") + b" " * (w - length + 2))
                else:
                    tparts.append((b"%#-" if k == "x" else b"%-") + b"%d" % w + (b"x" if k == "x" else b"d") + b"  ")
        # the tables' titles and frames: before the first piece of each table
        if tparts[0] == b"%s":
            first = args[0] = list(args[0])
        else:
            first = [b""] * n
            args.insert(0, first)
            tparts.insert(0, b"%s")
        # (C-level: __setitem__ returns None)
        any(map(first.__setitem__, firsts, map(bytes.__add__, heads, map(first.__getitem__, firsts))))
        k = len(args)
        rows = first * k            # the arguments row by row, a column at a time (faster than zip)
        for c, col in enumerate(args):
            rows[c::k] = col if type(col) is list else list(col)
        return (b"".join(tparts) * n) % tuple(rows)

    def _write(self, data: bytes) -> None:
        if self.buf is not None:
            self.out.flush()
            self.buf.write(data)
        else:
            self.out.write(data.decode(self.encoding, self.errors))

    def column_table(self, t) -> bool:
        """Lay out ``t`` (False, nothing written, when it is one for tabulate)."""
        if t is None:
            return False
        cols, kinds, headers, title = t.columns, t.kinds, t.headers, t.title
        n = len(cols[0]) if cols else 0
        if not n:
            if title:
                self.text(f"{terminal_text(title)}\n")
            self.text("(none)\n")
            return True
        if len(headers) != len(cols) or not all(map(_plain, headers)):
            return False
        bases = t.bases or (0,) * len(cols)
        labels = t.labels or (None,) * len(cols)
        last = len(cols) - 1
        widths, parts, args, coded = [], [], [], {}
        for i, (col, k, b, h) in enumerate(zip(cols, kinds, bases, headers)):
            if k == "d" or k == "x":
                lo, hi = min(col) + b, max(col) + b
                if type(lo) is not int or type(hi) is not int:       # bool, float...: tabulate's
                    return False
                w = max(len(f"{lo:#x}"), len(f"{hi:#x}")) if k == "x" else max(len(str(lo)), len(str(hi)))
                fmt = "%#-{}x" if k == "x" else "%-{}d"
                args.append((col, b, False))
            else:
                if k == "c":
                    lab = labels[i]
                    used = {v: lab[v] for v in set(col)}
                else:
                    used = {v: v for v in set(col)}
                if not all(map(_plain, used.values())):
                    return False
                w = max(map(len, used.values()))
                if k == "c" or i == last and "" in used:
                    coded[i] = used          # written into the row's template
                    fmt = None
                else:
                    fmt = "%-{}s"
                    args.append((col, 0, True))
            w = max(w, len(h) + 2)
            widths.append(w)
            parts.append(fmt and (fmt.replace("{}", "") if i == last else fmt.format(w)).encode("ascii"))
        # An empty last cell after one that can be empty: the blanks at the lines' ends are cut afterwards.
        strip = last in coded and "" in coded[last].values() and (last == 0 or kinds[last - 1] not in "dx")
        head = "  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip()
        self.text((f"{terminal_text(title)}\n" if title else "") + head + "\n" + "  ".join("-" * w for w in widths) + "\n")
        if not coded:
            row = b"  ".join(parts) + b"\n"
        else:
            order = sorted(coded)

            def template(key):
                ps = list(parts)
                for i, v in zip(order, key):
                    s = coded[i][v]
                    ps[i] = (s if i == last else s.ljust(widths[i])).encode("ascii").replace(b"%", b"%%")
                if not ps[last] and not strip:      # nothing after the cell before: it is not padded
                    ps[last - 1] = b"%d" if kinds[last - 1] == "d" else b"%#x"
                    del ps[last]
                return b"  ".join(ps) + b"\n"
            if len(order) == 1:
                templates = {v: template((v,)) for v in coded[order[0]]}
            else:
                templates = _Templates(template)
        # The rows a batch at a time: what a row costs while it is formatted (its template, its arguments;
        # bytes.join takes 80 bytes per piece) is taken for _BATCH_ROWS rows, not for the whole table.
        for a in range(0, n, _BATCH_ROWS):
            e = min(n, a + _BATCH_ROWS)
            if not coded:
                self.tmpl.append(row * (e - a))
            elif len(order) == 1:
                self.tmpl.append(b"".join(map(templates.__getitem__, cols[order[0]][a:e])))
            else:
                self.tmpl.append(b"".join(map(templates.__getitem__, zip(*(cols[i][a:e] for i in order)))))
            part = [[v.encode("ascii") for v in col[a:e]] if enc else
                    map(add, col[a:e], repeat(b)) if b else col[a:e] for col, b, enc in args]
            if strip:
                import re
                rows = self.tmpl.pop() % tuple(chain.from_iterable(zip(*part)))
                self.tmpl.append(re.sub(rb" +\n", b"\n", rows).replace(b"%", b"%%"))
            else:
                self.args.extend(chain.from_iterable(zip(*part)) if len(part) > 1 else part[0] if part else ())
            self.rows += e - a
            if self.rows >= _BATCH_ROWS:
                self.flush()
        return True


def json_quoter():
    """json's function that quotes a str as ASCII JSON text (its C one, without json's imports; imported
    when first asked for: text output does not need it), with each byte that was not UTF-8 written as
    :func:`json_bytes_escaped` writes it."""
    try:
        from _json import encode_basestring_ascii
    except ImportError:                                              # pragma: no cover - not CPython
        from json.encoder import encode_basestring_ascii

    def quote(s: str) -> str:
        t = encode_basestring_ascii(s)
        return json_bytes_escaped(t) if "\\udc" in t else t
    return quote


_UNDECODABLE = []


def json_bytes_escaped(text):
    """JSON text (str or ASCII bytes, as json writes it: non-ASCII escaped) with each lone surrogate
    U+DC80..U+DCFF -- a byte that was not UTF-8, decoded with surrogateescape -- written as the four
    characters ``\\xNN`` of that byte (JSON ``"\\\\xff"``).  Strict parsers (orjson, RFC 8259's "valid
    Unicode") reject a lone surrogate; docs/schemas.md says how names with such bytes are carried.  The
    text's escaped backslashes and surrogate pairs (characters beyond U+FFFF) are left as they are."""
    if not _UNDECODABLE:
        import re
        pat = r"\\\\|\\ud[89ab][0-9a-f]{2}\\udc[0-9a-f]{2}|\\udc([89a-f][0-9a-f])"
        _UNDECODABLE.append(re.compile(pat))
        _UNDECODABLE.append(re.compile(pat.encode("ascii")))
    if isinstance(text, str):
        if "\\udc" not in text:
            return text
        return _UNDECODABLE[0].sub(lambda m: "\\\\x" + m[1] if m[1] else m[0], text)
    if b"\\udc" not in text:
        return text
    return _UNDECODABLE[1].sub(lambda m: b"\\\\x" + m[1] if m[1] else m[0], text)


def _plain_text(s: str) -> bool:
    """s needs no escape in JSON: printable ASCII (no control character, no DEL) without '"' or '\\'."""
    return s.isascii() and s.isprintable() and '"' not in s and "\\" not in s


def json_text(s: str) -> str:
    """json's quoted ASCII text of the str ``s`` (as json.dumps writes it).  A plain one is quoted here
    and any other by json's C function, imported when first needed: a document of plain names and
    paths does not load it (nor do NULs in one otherwise plain, as render_json's placeholders have)."""
    if _plain_text(s):
        return '"' + s + '"'
    if "\0" in s and _plain_text(s.replace("\0", "")):
        return '"' + s.replace("\0", "\\u0000") + '"'
    if not _QUOTER:
        _QUOTER.append(json_quoter())
    return _QUOTER[0](s)


_QUOTER: list = []


def json_layout(indent, depth: int):
    """The pieces json.dumps places between the parts of a document, for a writer that assembles its text
    itself: ``(nl, key)``.  ``nl[k]``: what goes before an item at nesting level ``k`` (nothing when
    compact, ``indent`` is None; else a newline and ``indent + 2 * k`` blanks, as ``indent=2`` writes it
    inside a document whose line there is indented by ``indent``), for ``k`` below ``depth``;
    ``key(name, k)``: a key (ASCII) at level ``k`` with its colon (``:``, or ``: `` when indented)."""
    if indent is None:
        nl = [b""] * depth
        colon = b":"
    else:
        nl = [b"\n" + b" " * (indent + 2 * k) for k in range(depth)]
        colon = b": "

    def key(k, lvl):
        return nl[lvl] + b'"' + k.encode("ascii") + b'"' + colon
    return nl, key


def json_texts(strings) -> list:
    """The quoted ASCII JSON texts of a list of str (None: ``null``) as bytes: at C speed, three
    operations for the whole list when every one is plain."""
    if None not in strings:
        joined = " ".join(strings)
        if _plain_text(joined):              # (so no NUL in any: they split at the NULs put between them)
            return ('"' + '"\0"'.join(strings) + '"').encode("ascii").split(b"\0") if strings else []
    q = json_quoter()
    return [b"null" if s is None else q(s).encode("ascii") for s in strings]


class _PlainDecoder:
    """The settings _json's scanner reads from its context (json.JSONDecoder's defaults)."""
    strict = True
    object_hook = object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name):
        return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[name]


_SCAN = []
_INF = float("inf")
_JSON_SPACE = " \t\n\r"


def loads_plain(text: str):
    """json.loads(text) for a str: the same value, or ValueError (json.JSONDecodeError when json's own
    messages are wanted: any error is reported through json's decoder) -- without importing json when
    the text is valid (json.decoder imports re and enum: ~10 ms of a small command's run).  Uses _json's
    scanner, as json.loads does."""
    if not _SCAN:
        try:
            from _json import make_scanner
            _SCAN.append(make_scanner(_PlainDecoder))
        except ImportError:                                             # pragma: no cover - not CPython
            _SCAN.append(None)
    scan = _SCAN[0]
    if scan is None:                                                    # pragma: no cover
        import json
        return json.loads(text)
    start = len(text) - len(text.lstrip(_JSON_SPACE))
    try:
        value, end = scan(text, start)
    except (StopIteration, ValueError, SystemError):
        # Bad text.  (The scanner raises json's JSONDecodeError only when json.decoder is loaded; when it
        # is not, CPython 3.11's scanner fails with a SystemError.)  json.loads below says what is wrong.
        value = end = None
    if end is None or text[end:].strip(_JSON_SPACE):
        import json
        return json.loads(text)             # (raises: with json's message for where the text goes wrong)
    return value


def dumps_plain(data, indent=None, default=None) -> str:
    """json.dumps(data, indent=indent, default=default) (with separators (",", ":") when ``indent`` is
    None) for documents of dicts, lists, tuples, str, int, float, bool and None (dict keys: str, int,
    float, bool or None, as json converts them; anything else through ``default``): the same text,
    without importing json (its encoder and decoder import re and enum: ~9 ms of a small command's
    start-up).  Subclasses of these types go to ``default`` (TypeError without one)."""
    q = json_text
    out: list = []
    app = out.append
    sep = ": " if indent is not None else ":"

    def num(o):
        if o != o:
            return "NaN"
        if o in (_INF, -_INF):
            return "Infinity" if o > 0 else "-Infinity"
        return float.__repr__(o)

    def key(k):
        t = type(k)
        if t is str:
            return q(k)
        if t is int:
            return '"' + int.__repr__(k) + '"'
        if t is float:
            return '"' + num(k) + '"'
        if t is bool or k is None:
            return '"true"' if k is True else '"false"' if k is False else '"null"'
        raise TypeError(f"keys must be str, int, float, bool or None, not {t.__name__}")

    def enc(o, level):
        t = type(o)
        if t is str:
            app(q(o))
        elif t is int:
            app(int.__repr__(o))
        elif t is bool:
            app("true" if o else "false")
        elif o is None:
            app("null")
        elif t is float:
            app(num(o))
        elif t is dict or t is list or t is tuple:
            if not o:
                app("{}" if t is dict else "[]")
                return
            nl = "," if indent is None else ",\n" + " " * (indent * (level + 1))
            app("{" if t is dict else "[")
            if indent is not None:
                app(nl[1:])
            first = True
            if t is dict:
                for k, v in o.items():
                    if not first:
                        app(nl)
                    first = False
                    app(key(k))
                    app(sep)
                    enc(v, level + 1)
            else:
                for v in o:
                    if not first:
                        app(nl)
                    first = False
                    enc(v, level + 1)
            if indent is not None:
                app("\n" + " " * (indent * level))
            app("}" if t is dict else "]")
        elif default is not None:
            enc(default(o), level)
        else:
            raise TypeError(f"Object of type {t.__name__} is not JSON serializable")
    enc(data, 0)
    return "".join(out)


def _default(o):
    if isinstance(o, (bytes, bytearray)):
        return o.hex()
    if isinstance(o, (set, frozenset, tuple)):
        return list(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


# Documents whose compact JSON is larger than this (1 MiB: more than anyone reads by eye) are written
# compact even when indentation was asked for: indenting multiplies a document's size by about 4, and
# its writing time with it (llvm-readobj's JSON is always compact).
BIG_JSON = 1 << 20


def _orjson_bytes(data, indent: bool, default=_default):
    """The document through orjson (about 10x faster than json's C encoder and 30x faster than its
    indenting one on a big bb-addr-map), or None when orjson is not installed or the output would
    differ from json's: non-ASCII text (json escapes it), surrogate-escaped names, integers beyond
    64 bits.  (NaN and infinities, which no codec produces, come out as null: valid JSON, unlike
    json's NaN.)"""
    try:
        import orjson
    except ImportError:
        return None
    opt = orjson.OPT_NON_STR_KEYS
    try:
        b = orjson.dumps(data, default=default, option=opt)
        if indent and len(b) <= BIG_JSON:
            b = orjson.dumps(data, default=default, option=opt | orjson.OPT_INDENT_2)
    except (TypeError, ValueError):          # orjson.JSONEncodeError is a TypeError
        return None
    if not b.isascii():
        return None
    return b


class RawJSON:
    """A part of a document given as its compact JSON text already (``text``: str or bytes, ASCII,
    non-ASCII characters escaped as json does; or a list of such pieces, one after the other), and ``value()``: the plain value that text stands for.
    ``render_json`` splices the text into its compact output, and writes ``value()`` when it
    indents.  The text must be exactly what json.dumps(value(), separators=(",", ":")) gives, and
    orjson must write value() the same way: ASCII text without DEL, no float, integers of 64 bits."""
    __slots__ = ("text", "value")

    def __init__(self, text: str, value):
        self.text = text
        self.value = value


class JSONStream:
    """The text of a RawJSON part written piece by piece: ``size``, about the length of its compact text
    (known without writing it: it decides, as BIG_JSON does, whether the document is indented), and
    ``chunks(indent)``, an iterator over its pieces (ASCII bytes): compact when ``indent`` is None, else
    as json.dumps(value, indent=2) writes it inside a document where the line it starts on is indented
    by ``indent`` blanks.  Nothing of the text is kept once written."""
    __slots__ = ("size", "chunks")

    def __init__(self, size: int, chunks):
        self.size = size
        self.chunks = chunks


def _raw_text_size(text) -> int:
    if isinstance(text, JSONStream):
        return text.size
    return sum(map(len, text)) if isinstance(text, list) else len(text)


def _stream(data, out, indent: bool) -> bool:
    """Write ``data`` (holding RawJSON parts, some of them JSONStream) when json's text of the rest is
    certainly the document's (see _same_in_json), streaming the JSONStream parts; False (nothing
    written) otherwise."""
    if not _same_in_json(data):
        return False
    raws = []
    tag = f"\0objllvm-raw-json:{id(raws):x}:"

    def placeholder(o):
        raws.append(o)
        return f"{tag}{len(raws) - 1}\0"
    skeleton = dumps_plain(data, None, placeholder)
    # the compact document's length: the skeleton's without its placeholders' texts, with the parts'
    size = (len(skeleton) - sum(len(dumps_plain(f"{tag}{i}\0")) for i in range(len(raws)))
            + sum(_raw_text_size(r.text) for r in raws))
    if indent and size <= BIG_JSON:
        streams = []

        def placeholder(o):     # noqa: F811  (indented: only the streams are spliced in)
            if isinstance(o.text, JSONStream):
                streams.append(o)
                return f"{tag}{len(streams) - 1}\0"
            return o.value()
        raws = streams
        skeleton = dumps_plain(data, 2, placeholder)
    b = skeleton.encode("ascii")
    buf = getattr(out, "buffer", None)
    if buf is not None:
        out.flush()
        write = buf.write
    else:
        def write(p):
            out.write(p.decode("ascii") if isinstance(p, bytes) else p)
    pos = 0
    for i, r in enumerate(raws):
        m = dumps_plain(f"{tag}{i}\0").encode("ascii")
        at = b.index(m, pos)
        write(b[pos:at])
        if isinstance(r.text, JSONStream):
            if indent and size <= BIG_JSON:
                line = b.rfind(b"\n", 0, at) + 1
                level = len(b[line:at]) - len(b[line:at].lstrip(b" "))
                pieces = r.text.chunks(level)
            else:
                pieces = r.text.chunks(None)
            for p in pieces:
                write(p)
        elif isinstance(r.text, list):
            for p in r.text:
                write(p if isinstance(p, bytes) or buf is None else p.encode("ascii"))
        else:
            write(r.text if isinstance(r.text, bytes) or buf is None else r.text.encode("ascii"))
        pos = at + len(m)
    write(b[pos:])
    write(b"\n")
    return True


def _same_in_json(data, limit: int = 10000) -> bool:
    """True when json's compact text of ``data`` is certainly what the orjson path gives (then orjson
    need not even be imported): dicts with str keys, lists, tuples, str without DEL (orjson does not
    escape it), int, bool, None and RawJSON only, at most ``limit`` of them.  (Non-ASCII text and
    integers beyond 64 bits send the orjson path to json anyway.)"""
    stack = [data]
    n = 0
    while stack:
        o = stack.pop()
        n += 1
        t = type(o)
        if n > limit:
            return False
        if t is str:
            if "\x7f" in o:
                return False
        elif t is dict:
            for k in o:
                if type(k) is not str or "\x7f" in k:
                    return False
            stack.extend(o.values())
        elif t is list or t is tuple:
            stack.extend(o)
        elif not (t is int or t is bool or o is None or t is RawJSON):
            return False
    return True


def _with_raw(data, out, indent: bool) -> bool:
    """Write ``data``, which holds RawJSON parts, when its compact form is what is wanted (returns
    False, writing nothing, when it is to be indented)."""
    raws = []
    tag = f"\0objllvm-raw-json:{id(raws):x}:"

    def placeholder(o):
        if isinstance(o, RawJSON):
            raws.append(o)
            return f"{tag}{len(raws) - 1}\0"
        return _default(o)

    b = None if _same_in_json(data) else _orjson_bytes(data, False, placeholder)
    import json
    if b is None:
        raws.clear()
        b = json_bytes_escaped(json.dumps(data, separators=(",", ":"), default=placeholder).encode("ascii"))
    marks = [json.dumps(f"{tag}{i}\0").encode("ascii") for i in range(len(raws))]
    size = len(b) + sum(_raw_text_size(r.text) for r in raws) - sum(map(len, marks))
    if indent and size <= BIG_JSON:
        return False
    pieces, pos = [], 0
    for r in raws:
        if isinstance(r.text, JSONStream):
            r.text = list(r.text.chunks(None))
    for m, r in zip(marks, raws):
        at = b.find(m, pos)
        if at < 0:                      # pragma: no cover - the placeholder is always there
            return False
        pieces.append(b[pos:at])
        if isinstance(r.text, list):
            pieces.extend(r.text)
        else:
            pieces.append(r.text)
        pos = at + len(m)
    pieces.append(b[pos:])
    buf = getattr(out, "buffer", None)
    if buf is not None:
        out.flush()
        for p in pieces:
            buf.write(p if isinstance(p, bytes) else p.encode("ascii"))
        buf.write(b"\n")
    else:
        for p in pieces:
            out.write(p.decode("ascii") if isinstance(p, bytes) else p)
        out.write("\n")
    return True


def _materialise(o):
    if isinstance(o, RawJSON):
        return o.value()
    return _default(o)


def render_json(data, out=None, *, indent: bool = True, raw: bool = False) -> None:
    """JSON on ``out``: indented by 2 (``indent=True``) or one compact line (``indent=False``, and also
    when the compact form is over ``BIG_JSON`` bytes).  Uses orjson when it is installed (the same
    text as json's, but floats may be spelled differently, e.g. 1e-05 vs 1e-5), else json.
    ``raw=True``: ``data`` may hold :class:`RawJSON` parts (the same output as with their values)."""
    out = out or sys.stdout
    default = _default
    if raw:
        if _stream(data, out, indent) or _with_raw(data, out, indent):
            return
        default = _materialise
    # a small plain document: json's text is the same, and json is cheaper to import than orjson
    b = None if not raw and _same_in_json(data) else _orjson_bytes(data, indent, default)
    if b is not None:
        buf = getattr(out, "buffer", None)
        if buf is not None:
            out.flush()
            buf.write(b)
            buf.write(b"\n")
        else:
            out.write(b.decode("ascii"))
            out.write("\n")
        return
    if not raw and _same_in_json(data):
        text = dumps_plain(data, None, default)
        if indent and len(text) <= BIG_JSON:
            text = dumps_plain(data, 2, default)
    else:
        import json
        text = json.dumps(data, separators=(",", ":"), default=default)
        if indent and len(text) <= BIG_JSON:
            text = json.dumps(data, indent=2, default=default)
        text = json_bytes_escaped(text)
    out.write(text)
    out.write("\n")


# -- rows through numpy ------------------------------------------------------------------------
def _np_column(np, parts, n):
    """The sequences ``parts`` one after the other as a numpy array (bytes and arrays without a copy each)."""
    types = set(map(type, parts))
    if types == {bytes}:
        return np.frombuffer(b"".join(parts), np.uint8)
    if len(types) == 1 and getattr(parts[0], "typecode", None) in ("B", "H", "I", "L", "Q"):
        return np.frombuffer(b"".join(parts), f"u{parts[0].itemsize}")
    return np.fromiter(chain.from_iterable(parts), np.int64, n)


def numpy_rows(n: int, fields):
    """Many rows of text at once (numpy, imported here): each row the fields one after the other, as
    ASCII bytes; returns (text, per-row lengths).  ``fields``, each one of:

    * ``("lit", b"text", keep)``: the text, in the rows where ``keep`` (a bool array, or None: all);
    * ``("d", values, width, strip)`` / ``("x", ...)``: non-negative integers (an array), decimal / ``0x``
      hex, left-aligned, padded with blanks to ``width`` (an array, per row; None: not padded), no
      padding in the rows where ``strip`` (a bool array, or None);
    * ``("c", codes, labels)``: ``labels[code]`` (bytes) for each row's code (an array).

    Every field is given a slot of its widest row; the bytes a row does not fill are dropped."""
    import numpy as np
    slots = []
    for f in fields:
        k = f[0]
        if k == "lit":
            slots.append(len(f[1]))
        elif k == "c":
            slots.append(max(map(len, f[2])) if f[2] else 0)
        else:
            v, width = f[1], f[2]
            top = int(v.max()) if n else 0
            prefix = 2 if k == "x" else 0
            digits = len(f"{top:x}") if k == "x" else len(str(top))
            # the digits' places, then blanks for the narrowest number (one digit) to the widest width
            slots.append(prefix + digits + (max(0, int(width.max()) - prefix - 1) if width is not None and n else 0))
    mat = np.zeros((n, sum(slots)), np.uint8)
    at = 0
    for f, w in zip(fields, slots):
        k = f[0]
        if k == "lit":
            if w:
                mat[:, at:at + w] = np.frombuffer(f[1], np.uint8)
                if f[2] is not None:
                    mat[~f[2], at:at + w] = 0
        elif k == "c":
            if w:
                table = np.zeros((len(f[2]), w), np.uint8)
                for i, s in enumerate(f[2]):
                    if s:
                        table[i, :len(s)] = np.frombuffer(s, np.uint8)
                mat[:, at:at + w] = table[f[1]]
        else:
            v = f[1].astype(np.uint64, copy=False)
            width, strip = f[2], f[3]
            radix = 16 if k == "x" else 10
            prefix = 2 if k == "x" else 0
            top = int(v.max()) if n else 0
            ndig = len(f"{top:x}") if k == "x" else len(str(top))
            slot = mat[:, at:at + w]
            if prefix:
                slot[:, 0] = 48
                slot[:, 1] = 120
            # the digits right-aligned in ndig places, the leading zeros left as holes (dropped); then
            # the blanks to the row's width
            if top < 1 << 32:           # narrower numbers, faster arithmetic
                v = v.astype(np.uint32)
            x = v
            one5, four = v.dtype.type(15), v.dtype.type(4)
            for e in range(ndig):
                col = prefix + ndig - 1 - e
                if radix == 16:
                    d = (x & one5).astype(np.uint8)
                    d += 48
                    d += (d > 57) * np.uint8(39)
                    if e < ndig - 1:
                        x = x >> four
                else:
                    q = x // v.dtype.type(10)
                    d = (x - q * v.dtype.type(10)).astype(np.uint8)
                    d += 48
                    x = q
                if e:
                    d[v < v.dtype.type(radix ** e)] = 0
                slot[:, col] = d
            if width is not None and w > prefix + ndig:
                nd = np.ones(n, np.intp)
                for e in range(1, ndig):
                    nd += v >= v.dtype.type(radix ** e)
                pad = np.arange(w - prefix - ndig)[None, :]
                blank = pad < (width - prefix - nd)[:, None]
                if strip is not None:
                    blank &= ~strip[:, None]
                slot[:, prefix + ndig:] = blank * np.uint8(32)
        at += w
    keep = mat != 0
    return mat[keep].tobytes(), np.count_nonzero(keep, axis=1)
