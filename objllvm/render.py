"""The two renderers: text and JSON.  Commands print only through these.

Text: tables in tabulate's "simple" format.  Small tables and cells the column layout does not reproduce exactly
go to tabulate itself; tables given by their columns (:class:`ColumnTable`) are laid out here: each column's
width from its values, then every row through one bytes %-template, a batch of rows per formatting.

JSON: json's text.  Small plain documents are written by ``dumps_plain`` (json's text without importing json or
orjson, whose imports are most of a small command's run); the rest by orjson (json only where orjson's text would
differ: non-ASCII text, integers beyond 64 bits).  Parts a codec writes itself from its columns are spliced in as
text or streamed (RawJSON, JSONStream).

Text from a file never reaches the terminal unescaped (``errors.terminal_text``)."""

import sys
from itertools import chain, repeat
from operator import add

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
    """A text table given by its columns: the same text as a :class:`Table` of the same cells, laid out from the
    columns' widths.  ``columns``: sequences of equal length; ``kinds``: one letter per column, ``d`` integers
    in decimal, ``x`` integers as ``0x`` hex (each plus ``bases[i]`` when ``bases`` is given), ``s`` text,
    ``b`` text as ASCII bytes of printable characters without blanks at either end (made by the caller, not
    read from a file), ``c`` small integers standing for the text ``labels[i][v]``.  ``columns`` may be a
    function that makes them: it is called when the table is written (a producer of many tables then holds
    no table's cells before its turn)."""
    __slots__ = ("headers", "_columns", "kinds", "title", "bases", "labels")

    def __init__(self, headers, columns, kinds, title=None, bases=None, labels=None):
        self.headers = headers
        self._columns = columns
        self.kinds = kinds
        self.title = title
        self.bases = bases
        self.labels = labels

    @property
    def columns(self):
        c = self._columns
        return c() if callable(c) else c

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
            elif k == "b":
                cols.append([v.decode("ascii") for v in col])
            else:
                cols.append(list(col))
        return [list(r) for r in zip(*cols)]


def expand(items):
    """The items as they are (every table is a single item)."""
    return iter(items)


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
    """Render Heading / Text / Table / ColumnTable items (any iterable: each is written as it comes) as plain
    text.  Tables come out in tabulate's "simple" format, numbers not parsed (every column left-aligned, two
    blanks between columns, no blanks at a line's end).  ``engine="tabulate"``: tabulate lays out every table
    (the reference the column layout is tested against); else it lays out only what the column layout does not
    do exactly: text with non-ASCII or non-printing characters or blanks at either end, cells other than int,
    str and None.

    Every character that is not printable in a heading, a title, a header or a cell is written as an escape
    (``errors.terminal_text``: ``\\x1b``, ``\\u202e``, ``\\xff``); a ``Text`` keeps its newlines and tabs."""
    w = _TextWriter(out or sys.stdout)
    first = True
    fast = engine == "fast"
    for it in items:
        t = type(it)
        if t is ColumnTable:
            if not fast or not w.column_table(it):
                w.tabulate(it.title, it.headers, it.rows)
        elif t is Heading:
            if not first and it.level <= 1:
                w.text("\n")
            w.text(("" if it.level <= 1 else "  " * (it.level - 1)) + terminal_text(it.text) + "\n")
        elif t is Text:
            w.text(terminal_text(it.text, "" if it.one_line else "\n\t") + "\n")
        elif t is Table:
            if not fast or not w.column_table(_columns_of(it)):
                w.tabulate(it.title, it.headers, it.rows)
        else:
            raise TypeError(f"cannot render {t.__name__}")
        first = False
    w.flush()


_BATCH_ROWS = 1 << 13      # table rows formatted by one %-operation (its memory is reused by the next)
_FLUSH_BYTES = 1 << 20     # text kept before it is written
_NONE = type(None)


def _plain(s) -> bool:
    """True when tabulate writes ``s`` as it is, as wide as its length."""
    return type(s) is str and s.isascii() and s.isprintable() and s.strip() == s


def _plain_cells(cells) -> bool:
    """_plain of every distinct str of ``cells``, checked on them joined (one pass in C)."""
    cells = list(cells)
    joined = "\n".join(cells)
    if not joined.isascii() or joined.count("\n") != len(cells) - 1 or not joined.replace("\n", "").isprintable():
        return False      # (a newline of a cell's own is not plain)
    return " \n" not in joined and "\n " not in joined and joined.strip(" ") == joined


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


class _TextWriter:
    """Text as bytes, written a batch at a time."""

    def __init__(self, out):
        self.out = out
        self.plain_headers, self.frames, self.labels = {}, {}, {}
        self.parts = []
        self.size = 0
        self.buf = buf = getattr(out, "buffer", None)
        self.encoding = (getattr(out, "encoding", None) or "utf-8") if buf is not None else "utf-8"
        self.errors = (getattr(out, "errors", None) or "strict") if buf is not None else "surrogatepass"

    def text(self, s: str) -> None:
        self.add(s.encode(self.encoding, self.errors))

    def add(self, b: bytes) -> None:
        self.parts.append(b)
        self.size += len(b)
        if self.size >= _FLUSH_BYTES:
            self.flush()

    def flush(self) -> None:
        if not self.parts:
            return
        data = b"".join(self.parts)
        self.parts.clear()
        self.size = 0
        if self.buf is not None:
            self.out.flush()
            self.buf.write(data)
        else:
            self.out.write(data.decode(self.encoding, self.errors))

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

    def column_table(self, t) -> bool:
        """Lay out ``t`` (False, nothing written, when it is one for tabulate)."""
        if t is None:
            return False
        cols, headers, title = t.columns, t.headers, t.title
        n = len(cols[0]) if cols else 0
        if not n:
            if title:
                self.text(f"{terminal_text(title)}\n")
            self.text("(none)\n")
            return True
        key = tuple(headers)
        plain = self.plain_headers.get(key)
        if plain is None:
            plain = self.plain_headers[key] = len(headers) == len(cols) and all(map(_plain, headers))
        if not plain:
            return False
        layout = _layout(t, cols, self.labels)
        if layout is None:
            return False
        widths, args, ragged = layout
        fkey = (key, t.kinds, widths)
        frame = self.frames.get(fkey)
        if frame is None:
            frame = self.frames[fkey] = _frame(t.kinds, headers, widths, self.encoding, self.errors)
        head, row = frame
        self.add((f"{terminal_text(title)}\n".encode(self.encoding, self.errors) if title else b"") + head)
        for a in range(0, n, _BATCH_ROWS):
            e = min(n, a + _BATCH_ROWS)
            part = [col[a:e] for col in args] if a or e < n else args
            rows = (row * (e - a)) % tuple(chain.from_iterable(zip(*part)))
            if ragged:      # a last cell that can be empty: no blanks at the lines' ends
                rows = b"\n".join(map(bytes.rstrip, rows.split(b"\n")))
            self.add(rows)
        return True


def _frame(kinds, headers, widths, encoding, errors):
    """(the header and rule lines as bytes, the rows' %-template) of a table of these columns and widths."""
    last = len(widths) - 1
    specs = []
    for i, (k, w) in enumerate(zip(kinds, widths)):
        if k == "d" or k == "x":
            specs.append((b"%#" if k == "x" else b"%") + (b"" if i == last else b"-%d" % w) + (b"x" if k == "x" else b"d"))
        else:
            specs.append(b"%s" if i == last else b"%-" + b"%d" % w + b"s")
    head = "  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip()
    return ((head + "\n" + "  ".join("-" * w for w in widths) + "\n").encode(encoding, errors),
            b"  ".join(specs) + b"\n")


def _layout(t, cols, labels_cache):
    """(widths, per-column arguments, whether a line can end in blanks) of a ColumnTable, or None when tabulate
    is to lay it out.  ``labels_cache``: id of a labels list -> (the list, its labels as bytes, all plain?)."""
    kinds, headers = t.kinds, t.headers
    bases = t.bases or (0,) * len(cols)
    labels = t.labels or (None,) * len(cols)
    widths, args = [], []
    ragged = False
    for i, (col, k, b, h) in enumerate(zip(cols, kinds, bases, headers)):
        if k == "d" or k == "x":
            lo, hi = min(col), max(col)
            if type(lo) is not int or type(hi) is not int:       # bool, float, None...: tabulate's
                return None
            if b:
                lo, hi = lo + b, hi + b
                col = list(map(add, col, repeat(b))) if len(col) > _BATCH_ROWS else map(add, col, repeat(b))
            fmt = hex if k == "x" else str
            widths.append(max(len(fmt(lo)), len(fmt(hi)), len(h) + 2))
            args.append(col)
            continue
        if k == "c":
            lab = labels[i]
            known = labels_cache.get(id(lab))
            if known is None or known[0] is not lab:
                known = labels_cache[id(lab)] = (lab, [s.encode("ascii") if _plain(s) or s == "" else None
                                                      for s in lab])
            lab_b = known[1]
            col = list(map(lab_b.__getitem__, col))
            if None in col:
                return None
            w = max(map(len, col))
            empty = not min(map(len, col))
        elif k == "s":
            used = set(col)
            if not all(type(v) is str for v in used):
                return None
            if not _plain_cells(used):
                # tabulate writes a cell escaped and without blanks at either end: as wide as its length
                # when that is ASCII (a name with control bytes from a damaged section)
                shown = {v: terminal_text(v).strip(" ") for v in used}
                if not "".join(shown.values()).isascii():
                    return None
                col = list(map(shown.__getitem__, col))
                used = set(shown.values())
            col = [v.encode("ascii") for v in col]
            w = max(map(len, used))
            empty = "" in used
        else:
            w = max(map(len, col))
            empty = min(map(len, col)) == 0
        ragged = ragged or empty
        widths.append(max(w, len(h) + 2))
        args.append(col)
    return tuple(widths), args, ragged



FIRST_BATCH = 1 << 10      # render.batches: the first batch's rows; each batch at most a 24th of all rows
BATCHES_AT_LEAST = 24


def batches(ends, cap, first=None):
    """(i, j) of consecutive batches of items (tables, functions) whose running row counts are ``ends``:
    each batch ends with the last item that keeps it within its size in rows (at least one item).  The
    first is ``first`` rows (FIRST_BATCH) and each is twice the one before, up to ``cap`` or a
    BATCHES_AT_LEAST'th of all rows, whichever is smaller (but at least ``first``).

    The memory a batch takes is taken from the system as far as it is larger than any batch before, and
    reused by the later ones; each batch also has a fixed cost.  So small batches for a small input and big
    ones for a big one."""
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


def json_quoter():
    """A function that quotes a str as ASCII JSON text as json.dumps does (json's encoder, imported when first
    asked for), with each byte that was not UTF-8 written as :func:`json_bytes_escaped` writes it."""
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


_INF = float("inf")


def loads_plain(text: str):
    """json.loads(text) (json imported when first needed)."""
    import json
    return json.loads(text)


def dumps_plain(data, indent=None, default=None) -> str:
    """json.dumps(data, indent=indent, default=default) (with separators (",", ":") when ``indent`` is
    None) for documents of dicts, lists, tuples, str, int, float, bool and None (dict keys: str, int,
    float, bool or None, as json converts them; anything else through ``default``): the same text,
    without importing json (its encoder and decoder import re and enum, a good part of a small command's
    start-up).  Subclasses of these types go to ``default`` (TypeError without one)."""
    q = json_text
    out: list = []
    app = out.append
    sep = ": " if indent is not None else ":"
    keys: dict = {}

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
                    # (a str key's text, with the separator, made once per document: keys repeat)
                    kt = keys.get(k) if type(k) is str else None
                    if kt is None:
                        kt = key(k) + sep
                        if type(k) is str:
                            keys[k] = kt
                    app(kt if first else nl + kt)
                    first = False
                    tv = type(v)
                    if tv is int:              # (the commonest values written here, without a call)
                        app(int.__repr__(v))
                    elif tv is str:
                        app(q(v))
                    else:
                        enc(v, level + 1)
            else:
                for v in o:
                    if not first:
                        app(nl)
                    first = False
                    tv = type(v)
                    if tv is int:
                        app(int.__repr__(v))
                    elif tv is str:
                        app(q(v))
                    else:
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
    """The document through orjson, or None where its text would differ from json's: non-ASCII text (json
    escapes it), surrogate-escaped names, integers beyond 64 bits.  (NaN and infinities, which no codec
    produces, come out as null: valid JSON, unlike json's NaN.)"""
    import orjson
    opt = orjson.OPT_NON_STR_KEYS
    try:
        b = orjson.dumps(data, default=default, option=opt)
        if indent and len(b) <= BIG_JSON:
            b = orjson.dumps(data, default=default, option=opt | orjson.OPT_INDENT_2)
    except TypeError:          # orjson.JSONEncodeError is a TypeError
        return None
    return b if b.isascii() else None


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
    """The text of a RawJSON part written piece by piece: ``size``, the length of its compact text, or a
    lower bound of it when that is over BIG_JSON (it decides whether the document is indented), and
    ``chunks(None)``, an iterator over the pieces of the compact text (ASCII bytes).  Nothing of the text is
    kept once written.  (An indented document is written from the part's value.)"""
    __slots__ = ("size", "chunks")

    def __init__(self, size: int, chunks):
        self.size = size
        self.chunks = chunks


def _raw_text_size(text) -> int:
    if isinstance(text, JSONStream):
        return text.size
    return sum(map(len, text)) if isinstance(text, list) else len(text)


def _same_in_json(data, limit: int = 10000) -> bool:
    """True when json's compact text of ``data`` is certainly what orjson gives (then orjson need not even be
    imported): dicts with str keys, lists, tuples, str without DEL (orjson does not escape it), int, bool, None
    and RawJSON only, at most ``limit`` of them.  (Non-ASCII text and integers beyond 64 bits send the orjson
    path to json anyway.)"""
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


def _document(data, indent, default, fits: bool = False) -> bytes:
    """The JSON text of a document of plain values (``default`` for others), indented by 2 when ``indent`` and
    its compact text is at most BIG_JSON bytes (``fits``: the caller knows it is, the compact text is not made
    to measure it)."""
    if _same_in_json(data):
        if indent and fits:
            return dumps_plain(data, 2, default).encode("ascii")
        text = dumps_plain(data, None, default)
        if indent and len(text) <= BIG_JSON:
            text = dumps_plain(data, 2, default)
        return text.encode("ascii")
    b = _orjson_bytes(data, indent, default)
    if b is None:
        import json
        text = json.dumps(data, separators=(",", ":"), default=default)
        if indent and len(text) <= BIG_JSON:
            text = json.dumps(data, indent=2, default=default)
        b = json_bytes_escaped(text).encode("ascii")
    return b


def _writer(out):
    buf = getattr(out, "buffer", None)
    if buf is not None:
        out.flush()
        return buf.write

    def write(p):
        out.write(p.decode("ascii") if isinstance(p, bytes) else p)
    return write


def _raw_pieces(r):
    """The compact text of a RawJSON part, piece by piece (bytes)."""
    t = r.text
    if isinstance(t, JSONStream):
        return t.chunks(None)
    return (p if isinstance(p, bytes) else p.encode("ascii") for p in (t if isinstance(t, list) else [t]))


def render_json(data, out=None, *, indent: bool = True, raw: bool = False) -> None:
    """JSON on ``out``: indented by 2 (``indent=True``) or one compact line (``indent=False``, and also when the
    compact form is over ``BIG_JSON`` bytes): json's text.  ``raw=True``: ``data`` may hold :class:`RawJSON`
    parts (the same output as with their values): their text is spliced into the compact document, streamed
    when it is a JSONStream; an indented document is written from their values."""
    out = out or sys.stdout
    if not raw:
        write = _writer(out)
        write(_document(data, indent, _default))
        write(b"\n")
        return
    raws, seen = [], {}
    tag = f"\0objllvm-raw-json:{id(raws):x}:"

    def placeholder(o):
        if isinstance(o, RawJSON):
            if id(o) not in seen:       # (a skeleton written by orjson may be written again by json)
                seen[id(o)] = len(raws)
                raws.append(o)
            return f"{tag}{seen[id(o)]}\0"
        return _default(o)
    skeleton = _document(data, False, placeholder)
    marks = [dumps_plain(f"{tag}{i}\0").encode("ascii") for i in range(len(raws))]
    size = len(skeleton) - sum(map(len, marks)) + sum(_raw_text_size(r.text) for r in raws)
    if indent and size <= BIG_JSON:
        write = _writer(out)
        write(_document(_materialised(data) if raws else data, True, _default, fits=True))
        write(b"\n")
        return
    write = _writer(out)
    pos = 0
    for m, r in zip(marks, raws):
        at = skeleton.index(m, pos)
        write(skeleton[pos:at])
        for p in _raw_pieces(r):
            write(p)
        pos = at + len(m)
    write(skeleton[pos:])
    write(b"\n")


def _materialised(o):
    """``o`` with every RawJSON part replaced by its value."""
    t = type(o)
    if t is RawJSON:
        return o.value()
    if t is dict:
        return {k: _materialised(v) for k, v in o.items()}
    if t is list or t is tuple:
        return [_materialised(v) for v in o]
    return o
