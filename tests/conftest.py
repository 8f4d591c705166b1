"""Shared test helpers.

* ``TESTDATA``: the committed corpus (made by scripts/make-testdata).
* ``need_tool(name)``: the path of an LLVM/system tool, or skip the test saying which tool is missing.
* ``run_objllvm(*args)``: run the CLI in a subprocess (exit status, stdout, stderr).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TESTDATA = ROOT / "testdata"


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
    return p.returncode, p.stdout, p.stderr


def corpus_files(exclude=("src", "malformed", "lit")):
    """Every committed binary under testdata/ (not sources, not the malformed corpus, not the lit inputs:
    LLVM's malformed cases, tests/test_lit_readobj.py)."""
    out = []
    for p in sorted(TESTDATA.rglob("*")):
        rel = p.relative_to(TESTDATA)
        if not p.is_file() or rel.parts[0] in exclude or p.suffix in (".txt", ".json", ".md", ".yaml", ".c", ".s",
                                                                           ".ll", ".expected", ".toml"):
            continue
        out.append(p)
    return out
