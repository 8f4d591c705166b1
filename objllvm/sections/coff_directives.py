"""COFF ``.drectve``: linker directives (``/DEFAULTLIB:x.lib /INCLUDE:sym /EXPORT:f ...``).

The section is one text of directives separated by white space, split as the Microsoft linker splits a
command line: double quotes group (``/DEFAULTLIB:"my lib.lib"``), ``2n`` backslashes before a quote give
``n`` backslashes and the quote delimits, ``2n+1`` give ``n`` backslashes and a literal quote, other
backslashes are literal.  A directive starts with ``/`` or ``-``; its option name ends at the first
``:`` and is case-insensitive (``option`` is the upper-case form, ``name`` as written), the rest is the
value with quotes removed.  Each directive keeps its exact text and the white space before it, so
``encode`` gives back the same bytes (a UTF-8 byte order mark, as link.exe accepts, is kept too).
"""
from __future__ import annotations

from .._model import dataclass, field
from ..binary import decode_text, encode_text
from .registry import Codec, Table, register

_WS = " \t\r\n\0"
BOM = "\ufeff"


@dataclass
class Directive:
    option: str | None     # upper-case option name ('DEFAULTLIB'); None for a word that is not an option
    value: str | None      # the value, unquoted; None when the directive has no ':'
    name: str = ""         # option name as written ('defaultlib')
    raw: str = ""          # the exact text of the directive
    separator: str = " "   # white space before it
    offset: int = 0        # byte offset of the directive in the section


@dataclass
class Directives:
    directives: list = field(default_factory=list)
    trailing: str = ""     # white space (and NUL padding) after the last directive
    bom: bool = False


def unquote(token: str) -> str:
    """A token with the Microsoft command-line quoting rules applied."""
    out = []
    i, n = 0, len(token)
    in_quotes = False
    while i < n:
        c = token[i]
        if c == "\\":
            j = i
            while j < n and token[j] == "\\":
                j += 1
            nbs = j - i
            if j < n and token[j] == '"':
                out.append("\\" * (nbs // 2))
                if nbs % 2:
                    out.append('"')
                else:
                    in_quotes = not in_quotes
                i = j + 1
            else:
                out.append("\\" * nbs)
                i = j
        elif c == '"':
            if in_quotes and i + 1 < n and token[i + 1] == '"':   # "" inside quotes: a literal quote
                out.append('"')
                i += 2
                continue
            in_quotes = not in_quotes
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def quote(value: str) -> str:
    """The inverse of :func:`unquote`: quote a value when it holds white space or quotes."""
    if value and not any(c in value for c in _WS + '"'):
        return value
    out = ['"']
    nbs = 0
    for c in value:
        if c == "\\":
            nbs += 1
            continue
        if c == '"':
            out.append("\\" * (2 * nbs + 1) + '"')
        else:
            out.append("\\" * nbs + c)
        nbs = 0
    out.append("\\" * (2 * nbs) + '"')
    return "".join(out)


def split_tokens(text: str) -> list:
    """(start, end) spans of the white-space separated tokens; quotes protect white space."""
    spans = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in _WS:
            i += 1
        if i >= n:
            break
        start = i
        in_quotes = False
        while i < n:
            c = text[i]
            if c == "\\":
                j = i
                while j < n and text[j] == "\\":
                    j += 1
                if j < n and text[j] == '"':
                    if (j - i) % 2 == 0:
                        in_quotes = not in_quotes
                    i = j + 1
                else:
                    i = j
                continue
            if c == '"':
                in_quotes = not in_quotes
            elif not in_quotes and c in _WS:
                break
            i += 1
        spans.append((start, i))
    return spans


def parse_directive(raw: str) -> tuple:
    """(option, name, value) of one directive's text."""
    if raw[:1] in ("/", "-") and len(raw) > 1:
        colon = raw.find(":")
        if colon < 0:
            name, value = unquote(raw[1:]), None
        else:
            name, value = unquote(raw[1:colon]), unquote(raw[colon + 1:])
        return name.upper(), name, value
    return None, "", unquote(raw)


def make_directive(option: str | None, value: str | None, name: str | None = None) -> str:
    if option is None:
        return quote(value or "")
    text = "/" + (name or option)
    if value is not None:
        text += ":" + quote(value)
    return text


@register
class CoffDirectivesCodec(Codec):
    kind = "coff-directives"
    description = "COFF linker directives (.drectve: /DEFAULTLIB, /INCLUDE, /EXPORT, ...)"
    names = (".drectve",)
    formats = ("coff",)

    def decode(self, data, ctx):
        text = decode_text(data)
        bom = text.startswith(BOM)
        base = 1 if bom else 0
        spans = split_tokens(text[base:])
        out = []
        prev = 0
        for s, e in spans:
            raw = text[base + s:base + e]
            option, name, value = parse_directive(raw)
            off = len(encode_text(text[:base + s]))
            out.append(Directive(option, value, name, raw, text[base + prev:base + s], off))
            prev = e
        return Directives(out, text[base + prev:], bom)

    def encode(self, model, ctx):
        parts = [BOM] if model.bom else []
        for d in model.directives:
            parts.append(d.separator)
            parts.append(d.raw if d.raw else make_directive(d.option, d.value, d.name or None))
        parts.append(model.trailing)
        return encode_text("".join(parts))

    def to_dict(self, model):
        return {"directives": [{"option": d.option, "name": d.name, "value": d.value, "raw": d.raw,
                                "separator": d.separator} for d in model.directives],
                "trailing": model.trailing, "bom": model.bom}

    def from_dict(self, d, ctx):
        out = []
        for x in d["directives"]:
            option = x.get("option")
            option = None if option is None else str(option)
            value = x.get("value")
            value = None if value is None else str(value)
            name = str(x.get("name") or option or "")
            raw = x.get("raw")
            # keep the exact text when it still says the same thing, else write it anew
            if raw is None or parse_directive(str(raw))[0::2] != (option.upper() if option else None, value):
                raw = make_directive(option.upper() if option else None, value, name or None)
            out.append(Directive(option.upper() if option else None, value, name if option else "", str(raw),
                                 str(x.get("separator", " "))))
        return Directives(out, str(d.get("trailing", "")), bool(d.get("bom", False)))

    def tables(self, model, options):
        return [Table(["offset", "option", "value"],
                      [[f"{d.offset:#x}", d.option if d.option is not None else "(not an option)",
                        "" if d.value is None else d.value] for d in model.directives])]
