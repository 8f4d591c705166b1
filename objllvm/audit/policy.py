"""Audit policy: which linker requests and embedded artifacts are findings, and how severe.

A policy is a TOML file (read with :mod:`tomllib`).  Every table and key is optional; what is missing
comes from the default policy shipped as ``objllvm/data/default-policy.toml``.  Unknown tables or keys,
values of the wrong type and unknown severities are errors naming the key; TOML syntax errors name the
line and column.
"""
from __future__ import annotations

import fnmatch
import os
import posixpath
import re

from .._model import dataclass, field
from ..errors import UsageError

SEVERITIES = ("error", "warning", "note")
OFF = ("allow", "off", "none")
_RANK = {"note": 1, "warning": 2, "error": 3}

# table -> key -> kind of value
_SCHEMA = {
    "libraries": {"deny": "globs", "allow": "globs", "severity": "severity"},
    "libpath": {"roots": "strings", "severity": "severity"},
    "options": {"deny": "globs", "severity": "severity"},
    "embedded": {"bitcode": "severity", "cmdline": "severity", "instrumentation": "severity",
                 "sanitizer": "severity"},
    "unreadable": {"severity": "severity"},
    "mistyped": {"count": "bool", "severity": "severity"},
}


def severity_rank(sev: str | None) -> int:
    return _RANK.get(sev or "", 0)


@dataclass
class Policy:
    library_deny: list = field(default_factory=list)
    library_allow: list = field(default_factory=list)
    library_severity: str | None = "error"
    libpath_roots: list = field(default_factory=list)
    libpath_severity: str | None = "warning"
    option_deny: list = field(default_factory=list)
    option_severity: str | None = "error"
    bitcode: str | None = "warning"
    cmdline: str | None = "warning"
    instrumentation: str | None = "warning"
    sanitizer: str | None = "warning"
    unreadable: str | None = "warning"
    mistyped_count: bool = False       # count requests of sections linkers ignore (type contradicts name)
    mistyped_severity: str | None = "warning"
    source: str = "(default policy)"

    # -- rules -------------------------------------------------------------------------------------
    def library_verdict(self, name: str, raw: str, fold_case: bool):
        """(rule, message) when the library request is a finding, else None."""
        if self.library_severity is None:
            return None
        hit = _match_any(self.library_deny, (name, raw), fold_case)
        if hit is not None:
            return "library-denied", f"library '{name}' (requested as '{raw}') matches deny pattern '{hit}'"
        if self.library_allow and _match_any(self.library_allow, (name, raw), fold_case) is None:
            return "library-not-allowed", f"library '{name}' (requested as '{raw}') is not in the allow list"
        return None

    def libpath_verdict(self, path: str):
        if self.libpath_severity is None:
            return None
        problem = libpath_problem(path, self.libpath_roots)
        return None if problem is None else ("libpath-outside-roots", f"library search path '{path}' {problem}")

    def option_verdict(self, key: str):
        if self.option_severity is None or not key:
            return None
        hit = _match_any(self.option_deny, (option_key(key),), True, transform=option_key)
        return None if hit is None else ("option-denied", f"linker option '{key}' matches deny pattern '{hit}'")

    def severity_of(self, rule: str) -> str | None:
        return {"library-denied": self.library_severity, "library-not-allowed": self.library_severity,
                "libpath-outside-roots": self.libpath_severity, "option-denied": self.option_severity,
                "embedded-bitcode": self.bitcode, "embedded-cmdline": self.cmdline,
                "embedded-instrumentation": self.instrumentation, "embedded-sanitizer": self.sanitizer,
                "unreadable": self.unreadable, "mistyped-section": self.mistyped_severity}[rule]

    def to_dict(self) -> dict:
        def sev(s):
            return s or "allow"
        return {"libraries": {"deny": self.library_deny, "allow": self.library_allow,
                              "severity": sev(self.library_severity)},
                "libpath": {"roots": self.libpath_roots, "severity": sev(self.libpath_severity)},
                "options": {"deny": self.option_deny, "severity": sev(self.option_severity)},
                "embedded": {"bitcode": sev(self.bitcode), "cmdline": sev(self.cmdline),
                             "instrumentation": sev(self.instrumentation), "sanitizer": sev(self.sanitizer)},
                "unreadable": {"severity": sev(self.unreadable)},
                "mistyped": {"count": self.mistyped_count, "severity": sev(self.mistyped_severity)}}


def option_key(key: str) -> str:
    """Option keys compare without their leading '/' or '-' and without case: '/EXPORT' = 'export'."""
    return key.lstrip("/-").lower()


def _match_any(patterns, values, fold_case, transform=None):
    for p in patterns:
        pat = transform(p) if transform else p
        for v in values:
            if fold_case:
                if fnmatch.fnmatchcase(v.lower(), pat.lower()):
                    return p
            elif fnmatch.fnmatchcase(v, pat):
                return p
    return None


_DRIVE = re.compile(r"^[A-Za-z]:")


def _norm(p: str):
    """(normalised path with '/', absolute?, Windows drive path?)."""
    q = p.replace("\\", "/")
    drive = bool(_DRIVE.match(q))
    absolute = q.startswith("/") or drive
    if drive:
        q = q[:2].upper() + "/" + q[2:].lstrip("/")
    return posixpath.normpath(q) if q else ".", absolute, drive


def libpath_problem(path: str, roots) -> str | None:
    """Why ``path`` is outside the roots, or None.  Relative paths are relative to the build directory:
    they are fine unless '..' takes them out of it; absolute paths must lie inside one of ``roots``."""
    norm, absolute, drive = _norm(path)
    if not absolute:
        if norm == ".." or norm.startswith("../"):
            return "escapes the build directory with '..'"
        return None
    for r in roots:
        rn, rabs, rdrive = _norm(r)
        a, b = (norm.lower(), rn.lower()) if drive or rdrive else (norm, rn)
        if a == b or a.startswith(b.rstrip("/") + "/"):
            return None
    where = "resolves to " + norm + " which is " if norm != path.replace("\\", "/") else "is "
    if not roots:
        return where + "absolute (no roots are allowed)"
    return where + "outside the allowed roots (" + ", ".join(roots) + ")"


# -- loading ---------------------------------------------------------------------------------------
def default_policy_text() -> str:
    """The shipped default policy file, data/default-policy.toml, with its comments: what
    ``audit --print-default-policy`` prints.  Read beside the package; through importlib.resources only for a
    package that is not on disk (that import is slow)."""
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "default-policy.toml")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        from importlib import resources
        return resources.files("objllvm").joinpath("data/default-policy.toml").read_text(encoding="utf-8")


def default_policy() -> Policy:
    """The default policy: the defaults of :class:`Policy`, which the shipped file states (a test keeps the
    two the same), so an audit without ``--policy`` reads no TOML."""
    return Policy()


def load_policy(path: str | None) -> Policy:
    """The default policy, with the settings of the TOML file at ``path`` (if any) on top."""
    base = default_policy()
    if path is None:
        return base
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the policy file: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: the policy file is not UTF-8 (byte offset {exc.start})") from None
    return parse_policy(text, path, base=base)


def parse_policy(text: str, name: str = "(policy)", base: Policy | None = None) -> Policy:
    import tomllib
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        if "end of document" in msg:
            msg = msg.replace("(at end of document)", f"(at end of document, line {text.count(chr(10)) + 1})")
        raise UsageError(f"{name}: bad TOML: {msg}") from None
    p = Policy(**{k: (list(v) if isinstance(v, list) else v) for k, v in (base or Policy()).__dict__.items()})
    p.source = name
    for table, body in doc.items():
        if table not in _SCHEMA:
            raise UsageError(f"{name}: line {_line_of(text, None, table)}: unknown table [{table}] "
                             f"(known: {', '.join(_SCHEMA)})")
        if not isinstance(body, dict):
            raise UsageError(f"{name}: '{table}' must be a table ([{table}])")
        for key, value in body.items():
            kinds = _SCHEMA[table]
            where = f"{name}: line {_line_of(text, table, key)}"
            if key not in kinds:
                raise UsageError(f"{where}: unknown key '{table}.{key}' (known in [{table}]: {', '.join(kinds)})")
            v = _check(where, f"{table}.{key}", kinds[key], value)
            attr = {("libraries", "deny"): "library_deny", ("libraries", "allow"): "library_allow",
                    ("libraries", "severity"): "library_severity", ("libpath", "roots"): "libpath_roots",
                    ("libpath", "severity"): "libpath_severity", ("options", "deny"): "option_deny",
                    ("options", "severity"): "option_severity", ("embedded", "bitcode"): "bitcode",
                    ("embedded", "cmdline"): "cmdline", ("embedded", "instrumentation"): "instrumentation",
                    ("embedded", "sanitizer"): "sanitizer",
                    ("unreadable", "severity"): "unreadable",
                    ("mistyped", "count"): "mistyped_count",
                    ("mistyped", "severity"): "mistyped_severity"}[(table, key)]
            setattr(p, attr, v)
    return p


def _line_of(text: str, table: str | None, key: str) -> str:
    """The line where ``key`` is set in ``[table]`` (or where table ``key`` starts), for messages."""
    current = None
    for no, line in enumerate(text.splitlines(), 1):
        m = re.match(r"\s*\[\s*([^\]]+?)\s*\]", line)
        if m:
            current = m.group(1).strip('"\'')
            if table is None and current == key:
                return str(no)
            continue
        m = re.match(r"\s*([\w\"'.-]+)\s*=", line)
        if m and table is not None and current == table and m.group(1).strip('"\'') == key:
            return str(no)
        if m and table is None and current is None and m.group(1).strip('"\'') == key:
            return str(no)
    return "?"


def _check(name, key, kind, value):
    if kind == "bool":
        if not isinstance(value, bool):
            raise UsageError(f"{name}: '{key}' must be true or false, not {value!r}")
        return value
    if kind == "severity":
        if not isinstance(value, str) or value.lower() not in SEVERITIES + OFF:
            raise UsageError(f"{name}: '{key}' = {value!r} is not a severity (expected one of "
                             f"{', '.join(SEVERITIES + OFF[:1])})")
        v = value.lower()
        return None if v in OFF else v
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise UsageError(f"{name}: '{key}' must be a list of strings, not {value!r}")
    if kind == "globs" and any(not x for x in value):
        raise UsageError(f"{name}: '{key}' holds an empty pattern")
    return list(value)
