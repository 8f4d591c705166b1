"""The package installs only what its commands import, says what it is licensed under, and ships its types
and schemas.  (scripts/check-wheel builds the wheel and runs it in a clean virtual environment: CI.)"""
from __future__ import annotations

import ast
import re
import sys
import tomllib

from conftest import ROOT, absolute_imports

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
IMPORT_NAMES = {"pyyaml": "yaml", "dask": "distributed", "pyelftools": "elftools"}   # distribution -> module imported, where they differ
OPTIONAL = {"fleet", "dwarf"}                # extras: a feature an option enables


def _dist_name(req: str) -> str:
    return re.split(r"[<>=!~;\[ ]", req, 1)[0].strip().lower()


def _third_party_imports() -> dict[str, set[str]]:
    """Top-level modules imported anywhere in objllvm/ (inside functions too) that are not the standard
    library or objllvm itself -> the files importing them."""
    out: dict[str, set[str]] = {}
    for path in sorted((ROOT / "objllvm").rglob("*.py")):
        for _line, n in absolute_imports(ast.parse(path.read_text(), str(path))):
            top = n.split(".")[0]
            if top not in sys.stdlib_module_names and top not in ("objllvm", "__future__"):
                out.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return out


def test_runtime_dependencies_are_exactly_what_the_package_imports():
    """Every runtime dependency is imported; every import is a runtime dependency or in one of the OPTIONAL
    extras (imported only when a command's option asks for it, or only when installed)."""
    deps = {IMPORT_NAMES.get(d, d) for d in map(_dist_name, PYPROJECT["project"]["dependencies"])}
    extras = PYPROJECT["project"]["optional-dependencies"]
    optional = {IMPORT_NAMES.get(d, d) for e in OPTIONAL for d in map(_dist_name, extras[e])}
    imported = _third_party_imports()
    assert deps <= set(imported), f"dependencies no module imports: {deps - set(imported)}"
    assert set(imported) <= deps | optional, {m: f for m, f in imported.items() if m not in deps | optional}


def test_test_only_libraries_are_in_the_test_extra_and_not_imported_by_the_package():
    test = {_dist_name(r) for r in PYPROJECT["project"]["optional-dependencies"]["test"]}
    assert {"pytest", "pytest-xdist", "jsonschema", "hypothesis", "pyelftools", "lief"} <= test
    imported = _third_party_imports()
    assert not set(imported) & {"lief", "jsonschema", "hypothesis", "pytest"}
    # pyelftools, the ELF readers' oracle, only behind perf-map --sample-profile (the `dwarf` extra)
    assert imported.get("elftools", set()) <= {"objllvm/perf/sample_profile.py"}
    docs = {_dist_name(r) for r in PYPROJECT["project"]["optional-dependencies"]["docs"]}
    assert docs == {"mkdocs", "mkdocs-material", "mkdocstrings"}


def test_license_file_matches_the_metadata():
    assert PYPROJECT["project"]["license"] == {"text": "Apache-2.0"}
    text = (ROOT / "LICENSE").read_text()
    assert text.lstrip().startswith("Apache License") and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text


def test_types_and_schemas_are_package_data():
    assert (ROOT / "objllvm" / "py.typed").exists()
    data = PYPROJECT["tool"]["setuptools"]["package-data"]["objllvm"]
    assert "py.typed" in data and "schemas/*.json" in data
    assert sorted((ROOT / "objllvm" / "schemas").glob("*.json"))
