"""The two renderers: text (tables through tabulate) and JSON.  Commands print only through these.

Cheap to import (codecs and the command line import it at start-up): tabulate and json are imported
when something is printed."""
from __future__ import annotations

import sys

from ._model import dataclass
from .errors import report_error, report_warning  # noqa: F401  (commands print problems through these)


@dataclass
class Table:
    """A text table."""
    headers: list
    rows: list
    title: str | None = None


@dataclass
class Heading:
    text: str
    level: int = 1


@dataclass
class Text:
    text: str


def render_text(items, out=None) -> None:
    """Render Heading / Text / Table items as plain text."""
    from tabulate import tabulate
    out = out or sys.stdout
    first = True
    for it in items:
        if isinstance(it, Heading):
            if not first and it.level <= 1:
                out.write("\n")
            out.write(("" if it.level <= 1 else "  " * (it.level - 1)) + it.text + "\n")
        elif isinstance(it, Text):
            out.write(it.text + "\n")
        elif isinstance(it, Table):
            if it.title:
                out.write(f"{it.title}\n")
            if it.rows:
                out.write(tabulate(it.rows, headers=it.headers, tablefmt="simple", disable_numparse=True) + "\n")
            else:
                out.write("(none)\n")
        else:
            raise TypeError(f"cannot render {type(it).__name__}")
        first = False


def _default(o):
    if isinstance(o, (bytes, bytearray)):
        return o.hex()
    if isinstance(o, (set, frozenset, tuple)):
        return list(o)
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")


# Documents whose compact JSON is larger than this are written compact even when indentation was
# asked for: indenting a big document multiplies its size by about 4 and, without orjson, its
# writing time by about 10 (json's indenting encoder is pure Python).
BIG_JSON = 8 << 20


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
        b = json.dumps(data, separators=(",", ":"), default=placeholder).encode("ascii")
    marks = [json.dumps(f"{tag}{i}\0").encode("ascii") for i in range(len(raws))]
    size = len(b) + sum(sum(map(len, r.text)) if isinstance(r.text, list) else len(r.text) for r in raws) \
        - sum(map(len, marks))
    if indent and size <= BIG_JSON:
        return False
    pieces, pos = [], 0
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
        if _with_raw(data, out, indent):
            return
        default = _materialise
    b = _orjson_bytes(data, indent, default)
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
    import json
    text = json.dumps(data, separators=(",", ":"), default=default)
    if indent and len(text) <= BIG_JSON:
        text = json.dumps(data, indent=2, default=default)
    out.write(text)
    out.write("\n")
