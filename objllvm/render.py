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


def render_json(data, out=None, *, indent: bool = True) -> None:
    """JSON on ``out``.  ``indent=False`` writes one compact line (json's C encoder: much faster for big
    documents)."""
    out = out or sys.stdout
    if indent:
        json.dump(data, out, indent=2, default=_default)
    else:
        out.write(json.dumps(data, separators=(",", ":"), default=_default))
    out.write("\n")


def report_error(message: str, err=None) -> None:
    """One line on standard error, the only way commands report problems."""
    (err or sys.stderr).write(f"objllvm: error: {message}\n")


def report_warning(message: str, err=None) -> None:
    (err or sys.stderr).write(f"objllvm: warning: {message}\n")
