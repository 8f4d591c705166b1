"""Shared test helpers.

* ``TESTDATA``: the committed corpus (made by scripts/make-testdata).
* ``need_tool(name)``: the path of an LLVM/system tool, or skip the test saying which tool is missing.
* ``run_objllvm(*args)``: run the CLI in a subprocess (exit status, stdout, stderr).  Every JSON document it
  prints with ``--json`` is validated against the schema shipped in objllvm/schemas/ (``check_json_doc``).
* ``check_json_doc(doc)``: validate one objllvm JSON document against its schema (named by its "schema" key).

Markers: ``e2e`` (end-to-end: downloads sources, builds and profiles real programs) is deselected by default
(see pyproject.toml); run those with ``python3 -m pytest -q -m e2e -n 0``.
"""
from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTDATA = ROOT / "testdata"


# This project's machines set PYTHONDONTWRITEBYTECODE: without a cache, every xdist worker would rewrite and
# compile every test module again on every run.  The caches go to __pycache__ (ignored by git).
sys.dont_write_bytecode = False


def pytest_configure(config):
    """Bytecode for the package, written once before the tests (as an installed package has it): the hundreds
    of ``python3 -m objllvm`` processes the tests start would otherwise each compile every module they import
    when PYTHONDONTWRITEBYTECODE is set, as it is on this project's machines (a fresh clone: 97 s -> 85 s)."""
    if not hasattr(config, "workerinput"):          # the controller (or a run without xdist), once
        import compileall
        compileall.compile_dir(str(ROOT / "objllvm"), quiet=1)


def need_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (CI installs it: see .ci/run)")
    return path


def run_objllvm(*args, input=None, cwd=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run([sys.executable, "-m", "objllvm", *map(str, args)], capture_output=True, text=True,
                       input=input, cwd=cwd, env=env)
    if "--json" in map(str, args) and p.returncode in (0, 1) and p.stdout.strip():
        check_json_doc(json.loads(p.stdout))
    return p.returncode, p.stdout, p.stderr


SCHEMA_DIR = ROOT / "objllvm" / "schemas"


@functools.lru_cache(maxsize=None)
def _validator(name: str):
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is in the test extra: pip install -e '.[test]'")
    schema = json.loads((SCHEMA_DIR / f"{name}.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def check_json_doc(doc, name: str | None = None):
    """Validate an objllvm JSON document against its shipped schema; fail the test listing every violation.
    ``name`` defaults to the document's own ``"schema"`` ("objllvm-dump" -> dump.json)."""
    if name is None:
        assert isinstance(doc, dict) and str(doc.get("schema", "")).startswith("objllvm-"), \
            f"not an objllvm JSON document: {str(doc)[:200]}"
        name = doc["schema"][len("objllvm-"):]
    errors = sorted(_validator(name).iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
    assert not errors, f"{len(errors)} violation(s) of objllvm/schemas/{name}.json, first: " + "; ".join(
        f"at /{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}" for e in errors[:5])
    return doc


def absolute_imports(tree):
    """``(line, module)`` for every absolute import in a module's syntax tree, inside functions too
    (``import a.b`` and ``from a.b import c`` both give ``a.b``; relative imports are left out)."""
    import ast
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module


def corpus_files(exclude=("src", "malformed", "docs", "lit", "terminal")):
    """Every committed object under testdata/ (not sources, not the malformed corpus, not the documentation's
    perf.data, not the lit inputs: LLVM's malformed cases, tests/test_lit_readobj.py, not the names hostile to
    terminals: tests/test_terminal.py)."""
    out = []
    for p in sorted(TESTDATA.rglob("*")):
        rel = p.relative_to(TESTDATA)
        if not p.is_file() or rel.parts[0] in exclude or p.suffix in (".txt", ".json", ".md", ".yaml", ".c", ".s",
                                                                           ".ll", ".expected", ".toml"):
            continue
        out.append(p)
    return out


def corpus_elf_objects():
    """Every ELF object of the corpus: the files, and the members of its archives."""
    from objllvm.formats import iter_objects
    from objllvm.formats.elf import ElfFile
    return [o for p in corpus_files() for o in iter_objects(str(p)) if isinstance(o, ElfFile)]


def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (the default in pyproject.toml): one worker more than the machine has cores.  A share of the
    tests waits on child processes (LLVM's tools, signals sent to a real objllvm, a Dask cluster); on the
    2-core machine 3 workers took the suite from 94 s to 86 s, 4 workers gave 89 s."""
    return (os.cpu_count() or 1) + 1
