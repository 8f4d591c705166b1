"""The short version of the reliability sweep (scripts/sweep-real-files, docs/real-files.md): a handful of corpus
files, a few hundred seeded mutants of the corpus and the compression bombs (inflating to 64 MiB here, the
sweep's default is 512 MiB), each through dump --json, sections, extract, rewrite --strip-llvm and a rewrite
with no operation, in worker processes with a time limit; and, run as root, in-place rewrites of four linked
corpus files owned by nobody with mode 4755.  Fails on any traceback, hang, data lost (a no-op rewrite that is
not byte-identical, an input that changed), owner or mode change, file left behind, raw control byte on the
terminal or command over its memory bound, naming each.  (SIGKILL during rewrites: tests/test_signals.py.)"""
from __future__ import annotations

import importlib.machinery
import importlib.util
import os

from conftest import ROOT

SEED = 20261127


def _sweep_module():
    loader = importlib.machinery.SourceFileLoader("sweep_real_files", str(ROOT / "scripts" / "sweep-real-files"))
    spec = importlib.util.spec_from_loader("sweep_real_files", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def test_short_sweep_holds_every_invariant():
    sweep = _sweep_module()
    tallies, info = sweep.sweep(real=0, corpus=8, mutants=300, kills=0, owners=4, bombs=True, bomb_mib=64, seed=SEED,
                                jobs=min(2, os.cpu_count() or 1), timeout=30, timeout_small=30, quiet=True)
    by = {t.name: t for t in tallies}
    assert by["mutants"].runs == 300 * len(sweep.COMMANDS) and by["corpus files"].files == 8
    assert by["compression bombs"].files >= 4
    report = sweep.table(tallies, info)
    assert not any(t.problems() for t in tallies), report
