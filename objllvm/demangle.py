"""Readable names for mangled C++ (Itanium) and Rust (legacy and v0) symbols.

LLVM's own demangler does the work: every name of a run goes to one ``llvm-cxxfilt`` process (the newest one
installed: the highest ``llvm-cxxfilt-NN`` on PATH, else ``llvm-cxxfilt``; ``OBJLLVM_CXXFILT`` names another), one name a line, and its lines come back in the same order.
It is the demangler of llvm-readobj, llvm-nm and llvm-objdump, so objllvm shows what LLVM's tools show; GNU
``c++filt`` (binutils) is the fallback where no LLVM is installed (its output differs in small ways: ``> >``,
Rust crate hashes).  docs/design.md gives the measurements behind the choice.

Names that are not mangled, or that a line-based tool could not take whole (whitespace, control characters, very
long), are left as they are; a name the tool cannot demangle comes back unchanged.  With no tool at all every
name stays mangled and :func:`demangler_warning` says why.
"""
from __future__ import annotations

import os
import shutil
import subprocess

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

MAX_NAME = 16384           # longer names are left mangled (llvm-cxxfilt reads lines of any length; a bound anyway)
_PREFIXES = ("_Z", "__Z", "_R", "___Z")

_tool: "list[str | None]" = []     # [path or None], found once
_cache: "dict[str, str]" = {}      # mangled -> readable


def is_mangled(name: str) -> bool:
    """True for a name in the Itanium (``_Z``) or Rust v0 (``_R``) scheme (Rust legacy names are ``_ZN...E``)."""
    return name.startswith(_PREFIXES) and len(name) <= MAX_NAME and name.isprintable() and " " not in name


def newest_llvm_tool(name: str) -> str | None:
    """The highest ``NAME-NN`` on PATH (an unversioned ``NAME`` is often an older default), else ``NAME``."""
    versioned = []
    for d in os.environ.get("PATH", "").split(os.pathsep):
        try:
            entries = os.listdir(d or ".")
        except OSError:
            continue
        for e in entries:
            if e.startswith(name + "-") and e[len(name) + 1:].isdigit() and os.access(os.path.join(d, e), os.X_OK):
                versioned.append((int(e[len(name) + 1:]), os.path.join(d, e)))
    return max(versioned)[1] if versioned else shutil.which(name)


def tool() -> str | None:
    """The demangler program used: the newest llvm-cxxfilt on PATH, else GNU c++filt, else None."""
    if not _tool:
        found = os.environ.get("OBJLLVM_CXXFILT") or newest_llvm_tool("llvm-cxxfilt") or shutil.which("c++filt")
        _tool.append(found or None)
    return _tool[0]


def demangler_warning() -> str | None:
    """What to tell the user when names cannot be demangled here (None when they can)."""
    if tool() is None:
        return "no demangler found (llvm-cxxfilt or c++filt): names are shown mangled"
    return None


def demangle_all(names: "Iterable[str]") -> "dict[str, str]":
    """``{name: readable}`` for every mangled name of ``names`` (one tool run for all the new ones)."""
    names = list(names)
    todo = sorted({n for n in names if n and n not in _cache and is_mangled(n)})
    if todo:
        prog = tool()
        out = None
        if prog is not None:
            try:
                r = subprocess.run([prog], input="\n".join(todo) + "\n", capture_output=True, text=True,
                                   errors="surrogateescape", timeout=120)
                lines = r.stdout.split("\n")
                if r.returncode == 0 and len(lines) >= len(todo):
                    out = lines[:len(todo)]
            except (OSError, subprocess.SubprocessError):
                out = None
        for n, d in zip(todo, out or todo):
            _cache[n] = d or n
    return {n: _cache[n] for n in names if n in _cache}


def demangle(name: str) -> str:
    """The readable form of one name (itself when it is not mangled or cannot be demangled)."""
    if not is_mangled(name):
        return name
    return demangle_all([name]).get(name, name)


# -- render items and JSON documents --------------------------------------------------------------------------
def demangle_items(items: "Iterable[Any]") -> "list[Any]":
    """Render items (:mod:`objllvm.render`) with every table cell that is a mangled name, and every such word of a
    heading or a line of text, in its readable form (tables given by columns are expanded to plain ones)."""
    from .render import ColumnTable, Heading, Table, Text, expand
    items = list(expand(items))  # type: ignore[no-untyped-call]
    found: set[str] = set()
    for it in items:
        if type(it) in (Table, ColumnTable) and it.title:
            found.update(w for w in it.title.split() if is_mangled(w))
        if type(it) is Table:
            found.update(c for r in it.rows for c in r if type(c) is str and is_mangled(c))
        elif type(it) is ColumnTable:
            found.update(c for col, k in zip(it.columns, it.kinds) if k == "s" for c in col
                         if type(c) is str and is_mangled(c))
            for lab in it.labels or ():
                found.update(c for c in (lab or ()) if type(c) is str and is_mangled(c))
        elif type(it) in (Heading, Text):
            found.update(w for w in it.text.split() if is_mangled(w))
    names = demangle_all(found)
    if not names:
        return items
    def fix(c: "Any") -> "Any":
        return names.get(c, c) if type(c) is str else c

    out: "list[Any]" = []
    for it in items:
        if type(it) is ColumnTable:
            it = Table(it.headers, it.rows, it.title)
        if type(it) is Table:
            out.append(Table(it.headers, [[fix(c) for c in r] for r in it.rows],
                             _words(it.title, names) if it.title else it.title))
        elif type(it) is Heading:
            out.append(Heading(_words(it.text, names), it.level))
        elif type(it) is Text:
            out.append(Text(_words(it.text, names)))
        else:
            out.append(it)
    return out


def _words(text: str, names: "dict[str, str]") -> str:
    import re
    return re.sub(r"\S+", lambda m: names.get(m.group(0), m.group(0)), text)


def demangled_names(doc: "Any") -> "dict[str, str]":
    """``{mangled: readable}`` for every string of a JSON document that is a mangled name and demangles."""
    found: set[str] = set()
    stack = [doc]
    while stack:
        v = stack.pop()
        if type(v) is dict:
            stack.extend(v.values())
        elif type(v) is list:
            stack.extend(v)
        elif type(v) is str and is_mangled(v):
            found.add(v)
    return {k: d for k, d in sorted(demangle_all(found).items()) if d != k}
