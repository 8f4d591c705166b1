"""The Python API: every job is a function of ``objllvm`` returning typed results, ``__all__`` and ``dir(objllvm)``
list them, the examples of docs/api.md print what the page shows and pass ``mypy --strict``, and each command's
output is its job's result rendered (the commands do nothing else).

    python3 tests/test_api.py --update      # rewrite the outputs shown in docs/api.md from a run of its examples
"""
from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT

PAGE = ROOT / "docs" / "api.md"
EXAMPLE = re.compile(r"<!-- api-example -->\n```python\n(.*?)```\n\nprints\n\n```text\n(.*?)```", re.S)
JOBS = ["dump", "decode", "perf_map", "layout", "perf_diff", "cfg", "rewrite_file", "extract", "audit_files"]
RESULTS = ["ObjectDump", "PerfMapResult", "Layout", "PerfDiffResult", "FunctionGraph", "RewriteResult",
           "ExtractResult", "AuditReport"]


def _cli(*argv, cwd=None):
    return subprocess.run([sys.executable, "-m", "objllvm", *map(str, argv)], capture_output=True, text=True,
                          cwd=cwd, env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120"})


def _run_example(code: str, workdir) -> str:
    os.symlink(ROOT / "testdata", workdir / "testdata")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=workdir,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_every_job_is_listed_and_shown():
    import objllvm
    for name in JOBS + RESULTS + ["ObjllvmError", "UsageError", "__version__"]:
        assert name in objllvm.__all__, name
    assert set(objllvm.__all__) <= set(dir(objllvm))
    for name in objllvm.__all__:
        assert getattr(objllvm, name) is not None, name
    for name in JOBS:
        assert callable(getattr(objllvm, name)), name
    # (the subpackages keep their names: a function called `rewrite` would be replaced by the subpackage as soon
    # as it is imported)
    import objllvm.audit
    import objllvm.rewrite
    assert objllvm.rewrite_file is objllvm.rewrite.rewrite_file and objllvm.audit_files is objllvm.audit.job.audit_files
    for name in JOBS + RESULTS:              # (objllvm.api names each job too)
        assert getattr(objllvm.api, name) is getattr(objllvm, name), name


def test_the_page_documents_every_job():
    text = PAGE.read_text()
    for name in JOBS:
        assert f"objllvm.{name}(" in text, name
    members = set(re.findall(r"^        - (\w+)$", text, re.M))
    assert set(JOBS) <= members and set(RESULTS) <= members


@pytest.mark.parametrize("n", range(len(EXAMPLE.findall(PAGE.read_text()))))
def test_the_page_examples_print_what_it_shows(n, tmp_path):
    code, shown = EXAMPLE.findall(PAGE.read_text())[n]
    assert _run_example(code, tmp_path) == shown


def test_the_page_examples_pass_mypy_strict(tmp_path):
    pytest.importorskip("mypy", reason="the test extra is not installed: pip install -e '.[test]'")
    files = []
    for i, (code, _shown) in enumerate(EXAMPLE.findall(PAGE.read_text())):
        files.append(tmp_path / f"example_{i}.py")
        files[-1].write_text(code)
    assert len(files) >= 7
    # (from the top directory: pyproject's [tool.mypy] reads the package's lower modules for their types only)
    p = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", *map(str, files)],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stdout + p.stderr


def test_a_misuse_of_a_result_fails_mypy(tmp_path):
    """The types the check sees are the API's, not Any: a wrong one is found."""
    pytest.importorskip("mypy", reason="the test extra is not installed: pip install -e '.[test]'")
    f = tmp_path / "wrong.py"
    f.write_text('import objllvm\n\nn: int = objllvm.perf_map("a", ["b"]).function_order\n')
    p = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(f)],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 1 and "OrderFile | None" in p.stdout, p.stdout


# -- the commands render the results of the API ------------------------------------------------------------
LOOP, RUN_A, RUN_B = (ROOT / "testdata" / "perf-map" / n for n in ("loop.pie", "run-a.data", "run-b.data"))


def test_perf_map_command_renders_the_result(tmp_path):
    import objllvm
    res = objllvm.perf_map(str(LOOP), [str(RUN_A)], clusters=str(tmp_path / "api.txt"))
    p = _cli("perf-map", LOOP, RUN_A, "--json", "--clusters", tmp_path / "cli.txt")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["functions"] == res.profile.to_dict()["functions"]
    assert [c["function"] for c in doc["clusters"]["functions"]] == [c.function for c in res.clusters[0].clusters]
    assert (tmp_path / "api.txt").read_text().split("\n", 3)[3] == (tmp_path / "cli.txt").read_text().split("\n", 3)[3]


def test_layout_is_what_perf_map_writes(tmp_path):
    import objllvm
    res = objllvm.perf_map(str(LOOP), [str(RUN_A)], clusters=str(tmp_path / "c.txt"))
    plan = objllvm.layout(res.profile)
    written = (tmp_path / "c.txt").read_text()
    assert plan.cluster_text() == "\n".join(ln for ln in written.splitlines() if not ln.startswith("#")) + "\n"


def test_perf_diff_command_renders_the_result():
    import objllvm
    res = objllvm.perf_diff(str(RUN_A), str(RUN_B), binary=str(LOOP))
    p = _cli("perf-diff", RUN_A, RUN_B, "--binary", LOOP, "--json", "--top", "0")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == json.loads(json.dumps(res.diff.to_dict()))


def test_cfg_command_renders_the_result():
    import objllvm
    graph = objllvm.cfg(str(LOOP), "mix", perf_data=str(RUN_A))
    p = _cli("cfg", LOOP, "--function", "mix", "--perf", RUN_A, "-o", "-")
    assert p.returncode == 0, p.stderr
    assert p.stdout == graph.dot()


def test_extract_command_renders_the_result(tmp_path):
    import objllvm
    res = objllvm.extract([str(ROOT / "testdata" / "bitcode" / "embed.o")], str(tmp_path / "api"))
    p = _cli("extract", ROOT / "testdata" / "bitcode" / "embed.o", "-o", tmp_path / "cli", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == res.manifest
    assert [f.path for f in res.files] == [d["path"] for d in res.manifest["payloads"]]
    assert sorted(os.listdir(tmp_path / "api")) == sorted([f.path for f in res.files] + ["manifest.json"])
    assert [f.kind for f in res.files] == ["bitcode", "cmdline"]
    assert res.written and not res.errors and not res.skipped


def test_rewrite_command_renders_the_result(tmp_path):
    import objllvm
    from objllvm.rewrite import Remove
    src = ROOT / "testdata" / "rewrite" / "main.o"
    res = objllvm.rewrite_file(str(src), str(tmp_path / "api.o"), [Remove("addrsig")])
    p = _cli("rewrite", src, "-o", tmp_path / "cli.o", "--remove", "addrsig", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["changes"] == [c.to_dict() for c in res.changes]
    assert (tmp_path / "api.o").read_bytes() == (tmp_path / "cli.o").read_bytes()


def test_audit_command_renders_the_result(tmp_path):
    import objllvm
    tree = ROOT / "testdata" / "audit" / "tree" / "elf"
    report = objllvm.audit_files([str(tree)], jobs=1, sarif=str(tmp_path / "api.sarif"))
    p = _cli("audit", tree, "--json", "-j", "1", "--sarif", tmp_path / "cli.sarif", "--fail-on", "never")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == json.loads(json.dumps(report.to_dict()))
    assert json.loads((tmp_path / "api.sarif").read_text()) == json.loads((tmp_path / "cli.sarif").read_text())
    with pytest.raises(objllvm.UsageError):
        objllvm.audit_files([str(tree)], jobs=0)


# What the commands may take from the job packages: the API's functions where they live (a command imports its
# job's module alone, not objllvm.api with every other job), constants, and the renderers of results.  Anything
# else (a reader, a mapper, a writer) is orchestration: it belongs in the API.
COMMANDS_MAY_IMPORT = {
    "objllvm.perf.job": {"perf_map", "perf_diff", "cfg"}, "objllvm.bitcode.job": {"extract"},
    "objllvm.audit.job": {"audit_files"}, "objllvm.rewrite": None,     # (rewrite_file and the operation classes)
    "objllvm.perf.mapping": {"UNMAPPED_REASONS"}, "objllvm.perf.diff": {"LINE"},
    "objllvm.audit.report": {"report_to_text"}, "objllvm.audit.policy": {"default_policy_text"},
    "objllvm.audit.progress": {"Progress"},
}


def test_commands_call_the_jobs_through_the_api():
    for path in sorted((ROOT / "objllvm" / "commands").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 2 and not node.module:
                assert {a.name for a in node.names} <= {"rewrite", "api"}, f"{path.name}: {ast.unparse(node)}"
            if not isinstance(node, ast.ImportFrom) or node.level != 2 or not node.module:
                continue
            mod = "objllvm." + node.module
            if mod.split(".")[1] not in ("perf", "audit", "bitcode", "rewrite"):
                continue
            assert mod in COMMANDS_MAY_IMPORT, f"{path.name}: from {mod} import ..."
            allowed = COMMANDS_MAY_IMPORT[mod]
            assert allowed is None or {a.name for a in node.names} <= allowed, f"{path.name}: {ast.unparse(node)}"


def _update() -> None:
    import tempfile
    from pathlib import Path
    text = PAGE.read_text()

    def run(m):
        with tempfile.TemporaryDirectory() as d:
            out = _run_example(m.group(1), Path(d))
        return m.group(0)[:m.start(2) - m.start(0)] + out + "```"
    PAGE.write_text(EXAMPLE.sub(run, text))


if __name__ == "__main__" and sys.argv[1:] == ["--update"]:
    _update()
