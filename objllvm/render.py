"""The two renderers: text (tables through tabulate) and JSON.  Commands print only through these."""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass


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


def _orjson_bytes(data, indent: bool):
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
        b = orjson.dumps(data, default=_default, option=opt)
        if indent and len(b) <= BIG_JSON:
            b = orjson.dumps(data, default=_default, option=opt | orjson.OPT_INDENT_2)
    except (TypeError, ValueError):          # orjson.JSONEncodeError is a TypeError
        return None
    if not b.isascii():
        return None
    return b


def render_json(data, out=None, *, indent: bool = True) -> None:
    """JSON on ``out``: indented by 2 (``indent=True``) or one compact line (``indent=False``, and also
    when the compact form is over ``BIG_JSON`` bytes).  Uses orjson when it is installed (the same
    text as json's, but floats may be spelled differently, e.g. 1e-05 vs 1e-5), else json."""
    out = out or sys.stdout
    b = _orjson_bytes(data, indent)
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
    text = json.dumps(data, separators=(",", ":"), default=_default)
    if indent and len(text) <= BIG_JSON:
        text = json.dumps(data, indent=2, default=_default)
    out.write(text)
    out.write("\n")


def report_error(message: str, err=None) -> None:
    """One line on standard error, the only way commands report problems."""
    (err or sys.stderr).write(f"objllvm: error: {message}\n")


def report_warning(message: str, err=None) -> None:
    (err or sys.stderr).write(f"objllvm: warning: {message}\n")
