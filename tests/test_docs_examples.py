"""The documentation cannot drift: every example output in README.md and docs/*.md is what the command prints
today (scripts/make-doc-examples reruns them on the shipped test data), the README stays a short front door
with the test command CI runs, and the MkDocs site lists every page and builds with --strict."""
from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT


def _load_script():
    loader = importlib.machinery.SourceFileLoader("make_doc_examples", str(ROOT / "scripts" / "make-doc-examples"))
    spec = importlib.util.spec_from_loader("make_doc_examples", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


MDE = _load_script()
PAGES = MDE.pages()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.replace(str(ROOT) + "/", ""))
def test_examples_are_what_the_commands_print(page):
    with open(page, encoding="utf-8") as f:
        old = f.read()
    new, skipped = MDE.render(page)
    if new != old:
        import difflib
        diff = "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True), "page", "now", n=1))
        pytest.fail(f"out of date (run scripts/make-doc-examples):\n{diff[:4000]}")
    if skipped:
        pytest.skip("examples not rerun, tool missing: " + "; ".join(skipped))


def test_examples_exist_and_use_shipped_data():
    """Each page that shows commands shows them as regenerated examples; no example reads outside the tree."""
    n = 0
    for page in PAGES:
        text = open(page, encoding="utf-8").read()
        for m in re.finditer(r"<!-- example[^>]*-->\n```console\n(.*?)```", text, re.S):
            n += 1
            for line in m.group(1).splitlines():
                if line.startswith("$ "):
                    assert not re.search(r"(^|\s)(/tmp|~|/home|/root)", line[2:]), f"{page}: {line}"
    assert n >= 30


def test_readme_is_a_front_door():
    text = (ROOT / "README.md").read_text()
    lines = text.splitlines()
    assert len(lines) <= 250
    first_screen = "\n".join(lines[:40])
    for job in ("perf-map", "extract", "audit"):
        assert f"`objllvm {job}`" in first_screen
    for leftover in ("lead", "design card", "the issue", "helper", "README section"):
        assert leftover not in text.lower(), leftover


def test_readme_states_the_ci_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    commands = [ln.strip() for ln in ci.splitlines() if ln.strip().startswith("python3 -m pytest")]
    assert commands, ".ci/run runs no pytest command"
    readme = (ROOT / "README.md").read_text()
    assert f"```sh\n{commands[0]}\n```" in readme, commands[0]


def test_site_nav_lists_every_page():
    yml = (ROOT / "mkdocs.yml").read_text()
    nav = set(re.findall(r":\s*([\w.-]+\.md)\s*$", yml, re.M))
    pages = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert nav == pages, f"in nav, no page: {nav - pages}; pages not in nav: {pages - nav}"


def test_site_builds_strictly(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs extra is not installed: pip install -e '.[docs]'")
    pytest.importorskip("mkdocstrings", reason="the docs extra is not installed: pip install -e '.[docs]'")
    pytest.importorskip("material", reason="the docs extra is not installed: pip install -e '.[docs]'")
    # (not -q: with it, mkdocs 1.6 exits 0 even when --strict finds warnings)
    p = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                       cwd=ROOT, capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert p.returncode == 0, p.stderr[-3000:]
    warnings = [line for line in p.stderr.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert not warnings, "\n".join(warnings)
    api = (tmp_path / "site" / "api" / "index.html").read_text()
    assert api.count('id="objllvm.api.dump"') == 1
    # docstrings' Sphinx roles are links (docs/_ext/sphinx_roles.py), never shown as raw roles
    assert not re.search(r":(class|func|meth|attr|mod|exc):`", api)
    assert re.search(r'<a class="autorefs autorefs-internal"[^>]*href="#objllvm\.api\.ObjectDump"', api)


def test_site_home_is_the_readme():
    """docs/index.md is the README's front part (links made site-relative) plus its own "Where to go next"."""
    readme = (ROOT / "README.md").read_text().split("## Documentation")[0].replace("(docs/", "(")
    home = (ROOT / "docs" / "index.md").read_text()
    assert home.startswith(readme), "docs/index.md differs from README.md: copy the README's front part over"
    assert home[len(readme):].startswith("## Where to go next")
