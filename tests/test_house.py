"""The house rules a reader relies on, checked over every module of the package and every page of the docs.

Units a reader can hold (modules of at most about a thousand lines, functions of at most about a hundred, a
docstring saying what each module holds), no imports of CPython's private modules, no code compiled at run
time, and comments and docs that state what is true rather than when or how fast it was measured (figures live
in docs/benchmarks.md and the pages the benchmark scripts write).
"""
import ast
import io
import re
import sys
import tokenize
from pathlib import Path

import pytest
from conftest import absolute_imports

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "objllvm"
MODULES = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)

MAX_MODULE_LINES = 1000
MAX_FUNCTION_LINES = 100

# A figure of time in a comment drifts the day the code changes; docs/benchmarks.md holds the measured ones.
TIMING = re.compile(r"\b\d+(?:[.,]\d+)?\s?(?:ms|µs|us|ns|s)\b")
# Words that tell the story of how the code was written rather than what it does.
HISTORY = re.compile(r"\b(?:this|last|previous|earlier|next|sixth|fifth|fourth|third|second|first) session\b"
                     r"|\bissues? #?\d+\b|\(#\d+\)", re.IGNORECASE)
# Benchmark pages report measurements (that is their job); real-files.md is the sweep's report.
FIGURE_PAGES = {"benchmarks.md", "real-files.md", "perf-layout.md"}


def _rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


def _tree(p: Path) -> ast.Module:
    return ast.parse(p.read_text(encoding="utf-8"), filename=str(p))


def test_the_rules_see_the_package():
    assert len(MODULES) > 50, "the walk over objllvm/ found too few modules to mean anything"


@pytest.mark.parametrize("path", MODULES, ids=_rel)
def test_module_is_short_and_says_what_it_holds(path):
    lines = path.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_MODULE_LINES, f"{_rel(path)} has {lines} lines: split it along a seam"
    tree = _tree(path)
    if path.name == "__main__.py" or (path.name == "__init__.py" and not tree.body):
        return
    assert ast.get_docstring(tree), f"{_rel(path)} opens without a docstring saying what it holds"


def _long_functions(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            n = node.end_lineno - node.lineno + 1
            if n > MAX_FUNCTION_LINES:
                yield node.name, node.lineno, n


def test_no_function_is_over_a_hundred_lines():
    long = [f"{_rel(p)}:{line} {name} ({n} lines)" for p in MODULES for name, line, n in _long_functions(_tree(p))]
    assert not long, "functions to split into named steps:\n" + "\n".join(long)


def _is_private_stdlib(name: str) -> bool:
    top = name.split(".")[0]
    return top.startswith("_") and not top.startswith("__") and top in sys.stdlib_module_names


def _private_imports(tree):
    return [(line, name) for line, name in absolute_imports(tree) if _is_private_stdlib(name)]


def test_the_private_module_check_recognises_one():
    assert list(_private_imports(ast.parse("import _struct as struct\nfrom _operator import add\n"))) == [
        (1, "_struct"), (2, "_operator")]
    assert not list(_private_imports(ast.parse("import struct\nfrom __future__ import annotations\n"
                                               "from ._model import Model\n")))


def test_no_imports_of_cpython_private_modules():
    found = [f"{_rel(p)}:{line} imports {name}" for p in MODULES for line, name in _private_imports(_tree(p))]
    assert not found, "use the public module:\n" + "\n".join(found)


def _runtime_compiles(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("exec", "eval",
                                                                                                 "compile"):
            yield node.lineno, node.func.id


def test_no_code_is_compiled_at_run_time():
    found = [f"{_rel(p)}:{line} calls {fn}" for p in MODULES for line, fn in _runtime_compiles(_tree(p))]
    assert not found, "\n".join(found)


def _comments_and_docstrings(path: Path):
    text = path.read_text(encoding="utf-8")
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            yield tok.start[0], tok.string
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield getattr(node, "lineno", 1), doc


def test_the_comment_rules_recognise_a_diary():
    assert TIMING.search("# the packed path saves 3.5 ms here")
    assert TIMING.search("# 40 µs a call")
    assert TIMING.search("that import costs about 0.1 s of CPU")
    assert HISTORY.search("# added in the sixth session")
    assert HISTORY.search("# see issue 31")
    assert not TIMING.search("# at most 16 MiB, 32-bit offsets")
    assert not HISTORY.search("# the rewrite session keeps the input's bytes")


def test_comments_state_no_timings_and_no_history():
    found = []
    for p in MODULES:
        for line, text in _comments_and_docstrings(p):
            for rx in (TIMING, HISTORY):
                m = rx.search(text)
                if m:
                    found.append(f"{_rel(p)}:{line}: ...{m.group(0)}...")
    assert not found, "comments and docstrings say what is true, figures live in docs/benchmarks.md:\n" + \
        "\n".join(found)


def test_tests_and_scripts_tell_no_history():
    files = [p for d in ("tests", "scripts") for p in sorted((ROOT / d).rglob("*"))
             if p.is_file() and "__pycache__" not in p.parts and p.name != "test_house.py"
             and p.suffix in ("", ".py", ".sh", ".c", ".cc", ".rs", ".yaml", ".md")]
    assert len(files) > 50
    found = []
    for p in files:
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            m = HISTORY.search(line)
            if m:
                found.append(f"{_rel(p)}:{n}: ...{m.group(0)}...")
    assert not found, "\n".join(found)


def test_docs_speak_of_the_project_only():
    pages = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
    assert len(pages) > 10
    found = []
    for p in pages:
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            m = HISTORY.search(line)
            if m:
                found.append(f"{_rel(p)}:{n}: ...{m.group(0)}...")
            elif p.name not in FIGURE_PAGES and p.name != "README.md" and re.search(r"\bsessions?\b", line) \
                    and not re.search(r"rewrite session|Session\b|session\.py|\.session\b|a session of", line):
                found.append(f"{_rel(p)}:{n}: ...session...")
    assert not found, "\n".join(found)
