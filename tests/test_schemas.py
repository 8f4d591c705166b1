"""The JSON Schemas shipped in objllvm/schemas/: valid draft 2020-12 schemas, printed by ``objllvm schema``,
named in the --help texts, and met by every JSON document the commands give on the whole corpus.

(Every ``run_objllvm(..., "--json")`` in the other tests is validated too: see conftest.check_json_doc.)
"""
from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stdout

import pytest

from conftest import ROOT, SCHEMA_DIR, TESTDATA, check_json_doc, corpus_files, run_objllvm
from objllvm import api, cli

jsonschema = pytest.importorskip("jsonschema")

NAMES = ["audit", "dump", "extract", "perf-diff", "perf-map", "perf-profile", "rewrite", "sections"]
MALFORMED = sorted(p for p in (TESTDATA / "malformed").iterdir() if p.suffix != ".json")


def _main_json(*argv) -> tuple[int, dict]:
    """Run a command in this process (much faster than a subprocess over the whole corpus); its JSON."""
    buf = io.StringIO()
    with redirect_stdout(buf):
        try:
            status = cli.main([str(a) for a in argv])
        except SystemExit as exc:      # argparse
            status = exc.code
    return status, json.loads(buf.getvalue())


def _keys(doc, path=""):
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield path + "/" + k, k
            yield from _keys(v, path + "/" + k)
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _keys(v, f"{path}/{i}")


def _no_spaces_in_keys(doc):
    bad = [p for p, k in _keys(doc) if not re.fullmatch(r"[A-Za-z0-9_.$-]+", k)]
    assert not bad, f"JSON keys must be identifiers (no spaces): {bad[:5]}"


def test_every_schema_is_a_valid_2020_12_schema():
    assert api.schema_names() == NAMES
    for name in NAMES:
        schema = json.loads((SCHEMA_DIR / f"{name}.json").read_text())
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["properties"]["schema"] == {"const": f"objllvm-{name}"}
        assert schema["additionalProperties"] is False      # the envelope is closed: a new field needs the schema


@pytest.mark.parametrize("name", NAMES)
def test_schema_command_prints_the_shipped_file(name):
    status, out, err = run_objllvm("schema", name)
    assert (status, err) == (0, "")
    assert json.loads(out) == json.loads((SCHEMA_DIR / f"{name}.json").read_text())


def test_schema_command_lists_and_refuses():
    status, out, err = run_objllvm("schema")
    assert status == 0 and all(n in out for n in NAMES)
    status, out, err = run_objllvm("schema", "nope")
    assert status == 2 and out == ""
    assert err == "objllvm: error: no JSON schema named 'nope' (expected one of " + ", ".join(NAMES) + ")\n"


@pytest.mark.parametrize("command", ["sections", "dump", "extract", "perf-map", "perf-diff", "audit", "rewrite"])
def test_help_names_the_schema(command):
    status, out, err = run_objllvm(command, "--help")
    assert status == 0
    assert f"objllvm schema {command}" in " ".join(out.split()), out
    assert "README" not in out


def test_the_schemas_reject_what_they_should():
    """A schema that accepts anything would make every other check here moot."""
    status, doc = _main_json("dump", "--json", TESTDATA / "elf" / "deplibs.o")
    check_json_doc(doc)
    for mutate in (lambda d: d.update(extra=1),                                         # closed envelope
                   lambda d: d["files"][0].pop("format"),                               # required field
                   lambda d: d["files"][0]["sections"][0].update(status="fine"),        # enum
                   lambda d: d["files"][0]["sections"][0]["content"].update(libraries="m"),  # per-kind body
                   lambda d: d["files"][0]["sections"][0].update(index=-1)):            # minimum
        bad = json.loads(json.dumps(doc))
        mutate(bad)
        with pytest.raises(AssertionError, match="violation"):
            check_json_doc(bad)


@pytest.mark.parametrize("path", corpus_files() + MALFORMED, ids=lambda p: str(p.relative_to(TESTDATA)))
def test_dump_and_sections_json_of_every_file(path):
    for argv in (["dump", "--json"], ["sections", "--json"], ["sections", "--all", "--json"]):
        status, doc = _main_json(*argv, path)
        assert status in (0, 1)
        check_json_doc(doc)
        _no_spaces_in_keys(doc)


def test_dump_json_api_equals_command():
    path = TESTDATA / "bb-addr-map" / "rustc-v5-pgo.exe"
    status, doc = _main_json("dump", "--json", path)
    assert doc == json.loads(json.dumps(api.dump_to_dict(api.dump(str(path)))))


def test_extract_manifest_and_json(tmp_path):
    files = sorted(p for p in (TESTDATA / "bitcode").iterdir() if p.is_file() and p.suffix != ".txt")
    status, doc = _main_json("extract", *files, "-o", tmp_path / "out", "--json")
    assert status in (0, 1)
    kinds = {p["kind"] for p in doc["payloads"]}
    assert kinds == {"bitcode", "cmdline", "offload-image"}
    check_json_doc(doc)
    _no_spaces_in_keys(doc)
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    check_json_doc(manifest, "extract")


def test_audit_json_on_the_audit_tree(tmp_path):
    status, doc = _main_json("audit", "--json", TESTDATA / "audit" / "tree")
    assert status in (0, 1) and doc["requests"] and doc["findings"]
    check_json_doc(doc)
    _no_spaces_in_keys(doc)
    status, doc = _main_json("audit", "--json", "--policy", TESTDATA / "src" / "audit" / "policy-strict.toml",
                             TESTDATA / "audit" / "tree", TESTDATA / "malformed")
    check_json_doc(doc)


@pytest.mark.parametrize("binary", ["loop.pie"])
def test_perf_map_json(binary, tmp_path):
    status, doc = _main_json("perf-map", TESTDATA / "perf" / binary, TESTDATA / "docs" / "loop.perf.data",
                             "--json", "--clusters", tmp_path / "c.txt")
    assert status == 0
    check_json_doc(doc)
    _no_spaces_in_keys(doc)
    assert set(doc["samples"]["unmapped"]) == {"other_object", "build_id_mismatch", "outside_the_loaded_segments",
                                               "no_map_for_the_function", "between_blocks", "not_carried_to_the_new_build"}


def test_perf_map_json_of_many_recordings_carried_to_a_new_build(tmp_path):
    """Merged recordings, a saved profile read back, and a profile carried to a rebuilt binary."""
    pm = TESTDATA / "perf-map"
    runs = [pm / "run-a.data", pm / "run-b.data", pm / "run-a-z.data"]
    status, doc = _main_json("perf-map", pm / "loop.pie", *runs, "--save-profile", tmp_path / "p.json", "--json")
    assert status == 0 and len(doc["recordings"]) == 3
    check_json_doc(doc)
    saved = json.loads((tmp_path / "p.json").read_text())
    check_json_doc(saved)
    assert saved["schema"] == "objllvm-perf-profile"
    status, doc = _main_json("perf-map", pm / "loop-next.pie", tmp_path / "p.json", "--recorded-on", pm / "loop.pie",
                             "--json", "--clusters", tmp_path / "c.txt")
    assert status == 0 and doc["stale"]["samples"]["matched"] > 0
    check_json_doc(doc)
    _no_spaces_in_keys(doc)


@pytest.mark.parametrize("path", sorted((TESTDATA / "rewrite").glob("*.o")) + [TESTDATA / "rewrite" / "prog.exe"],
                         ids=lambda p: p.name)
def test_rewrite_json(path, tmp_path):
    status, doc = _main_json("rewrite", path, "-o", tmp_path / "out", "--strip-llvm", "--dry-run", "--json")
    assert status == 0
    check_json_doc(doc)
