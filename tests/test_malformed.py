"""The malformed corpus (testdata/malformed/, made by scripts/make-malformed): each file gives exactly the error
lines written in manifest.json, through the API and through every command, never a traceback.

Crashers found by fuzzing in modules other areas own are listed in testdata/malformed/crashers.json with
``xfail``: ``test_crasher_fixed`` replays each one (``scripts/fuzz --replay``, memory-limited) as a strict xfail
naming the module, so it flips (and fails) when the module is fixed.
"""
from __future__ import annotations

import json
import os
import pkgutil
import tracemalloc

import pytest

from objllvm import api, cli
from objllvm.errors import ObjllvmError

from conftest import ROOT, TESTDATA, run_objllvm
from fuzz import harness

MAL = TESTDATA / "malformed"
MANIFEST = json.loads((MAL / "manifest.json").read_text())
CRASHERS = json.loads((MAL / "crashers.json").read_text()) if (MAL / "crashers.json").exists() else []
BY_NAME = {m["name"]: m for m in MANIFEST + CRASHERS}


def _expected(m, path, key="errors"):
    return [e.replace("{path}", str(path)).replace("{dir}", os.path.dirname(str(path))) for e in m.get(key, ())]


def _lines(m, path):
    """The stderr lines of ``objllvm dump`` on one file: warnings and errors (each section's warnings first; a
    container-level case's errors are items of their own, reported before any section's problems).  A NUL from
    the file (a member name) is written as ``\\x00`` (docs/errors.md: names are escaped)."""
    warnings = [f"objllvm: warning: {e}".replace("\0", "\\x00") for e in _expected(m, path, "warnings")]
    errors = [f"objllvm: error: {e}".replace("\0", "\\x00") for e in _expected(m, path)]
    return errors + warnings if m["level"] == "container" else warnings + errors


def _errors(path):
    out = []
    for it in api.dump(str(path)):
        if isinstance(it, ObjllvmError):
            out.append(it)
        else:
            out.extend(it.errors)
    return out


def _params(entries=None):
    return [pytest.param(m, id=m["name"]) for m in (MANIFEST if entries is None else entries)]


def test_manifest_lists_every_file():
    files = {p.name for p in MAL.iterdir() if p.is_file() and p.suffix != ".json"}
    assert files == set(BY_NAME), "testdata/malformed/ and manifest.json disagree: run scripts/make-malformed"
    assert len(MANIFEST) >= 20
    for m in MANIFEST:
        # a file whose defect only the rewrite path meets decodes cleanly: its lines are in "rewrite"
        assert m["level"] in ("container", "section") and (m["errors"] or m.get("rewrite") or m.get("warnings")), \
            m["name"]
    for m in CRASHERS:
        assert m["xfail"]["module"] and m["xfail"]["why"], m["name"]


_CRASHER_PARAMS = [pytest.param(m, id=m["name"], marks=pytest.mark.xfail(
    strict=True, reason=f"routed to {m['xfail']['module']}: {m['xfail']['why']}")) for m in CRASHERS] or [
    pytest.param(None, id="none-open", marks=pytest.mark.skip(
        reason="no open crasher: testdata/malformed/crashers.json is empty (all found so far are fixed)"))]


@pytest.mark.parametrize("m", _CRASHER_PARAMS)
def test_crasher_fixed(m):
    """A crasher found by fuzzing in a module this area does not own: fails until the owner fixes it."""
    import subprocess
    import sys
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "fuzz"), "--replay", str(MAL / m["name"]),
                        "--memory-limit-mb", "1024"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr


@pytest.mark.parametrize("m", _params())
def test_exact_errors(m):
    """The API gives exactly the manifest's error and warning lines, each an ObjllvmError with file, section
    and offset."""
    path = MAL / m["name"]
    errs = _errors(path)
    assert [str(e) for e in errs] == _expected(m, path)
    warns = [w for it in api.dump(str(path)) if not isinstance(it, ObjllvmError) for w in it.warnings]
    assert [str(w) for w in warns] == _expected(m, path, "warnings")
    for e in errs + warns:
        # (a warning about the section header, e.g. its type, has no offset in the contents)
        assert e.file == str(path) and (e.offset is not None or "section type" in e.message)
        if m["level"] == "section":
            assert e.section_index is not None and e.section_name


@pytest.mark.parametrize("m", _params())
def test_property_holds(m):
    """Under the fuzz harness: nothing but ObjllvmError, located, bounded time and memory."""
    data = (MAL / m["name"]).read_bytes()
    was = tracemalloc.is_tracing()
    tracemalloc.start()
    try:
        vs = harness.check_container(data, str(MAL / m["name"]))
    finally:
        if not was:
            tracemalloc.stop()
    assert not vs, "\n".join(f"{v}\n{v.trace}" for v in vs)


# -- regressions of the core fixes found by fuzzing -------------------------------------------------------------
def test_zstd_bomb_is_not_inflated():
    """A 2 KB zstd frame of 64 MB behind a header claiming 16 bytes: at most ch_size + 1 bytes are inflated."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        errs = _errors(MAL / "zstd-bomb.o")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [e.message for e in errs] == ["decompresses to more than ch_size 16 bytes"]
    assert peak < 8 << 20, f"peak {peak >> 20} MB"


def test_negative_archive_size_does_not_loop():
    """'-60' as a member size sent the reader back to the same header forever (int() takes a sign)."""
    with harness.watchdog(10):
        errs = _errors(MAL / "archive-negative-size.a")
    assert len(errs) == 1 and "expected decimal digits" in errs[0].message


@pytest.mark.parametrize("field", [b"+5", b"1_0", b" -1", b"0x10"])
def test_archive_size_must_be_digits(field, tmp_path):
    data = bytearray((TESTDATA / "elf" / "libgnu.a").read_bytes())
    data[0xAF4 + 48:0xAF4 + 58] = field.ljust(10)
    p = tmp_path / "bad.a"
    p.write_bytes(bytes(data))
    errs = _errors(p)
    assert [e.message for e in errs] == [f"bad member size field {field.strip()!r} (expected decimal digits)"]


def test_bsd_name_length_must_be_digits(tmp_path):
    data = bytearray((TESTDATA / "elf" / "libbsd.a").read_bytes())
    i = data.index(b"#1/")
    data[i:i + 16] = b"#1/-5".ljust(16)
    p = tmp_path / "bad.a"
    p.write_bytes(bytes(data))
    errs = _errors(p)
    assert [e.message for e in errs] == ["bad BSD name length b'#1/-5'"] and errs[0].offset == i


# -- the command line -------------------------------------------------------------------------------------------
def _commands():
    from objllvm import commands
    return sorted(m.name for m in pkgutil.iter_modules(commands.__path__) if not m.name.startswith("_"))


def _argv(cmd, path, tmp_path):
    """Arguments that make ``cmd`` read ``path`` (and write only under tmp_path)."""
    out = tmp_path / f"out-{cmd}"
    return {
        "sections": ["sections", path],
        "dump": ["dump", path],
        "extract": ["extract", path, "-o", out],
        "rewrite": ["rewrite", path, "-o", out, "--strip-llvm"],
        "audit": ["audit", "--no-progress", path],
        "perf_map": ["perf-map", path, "--perf-script", TESTDATA / "malformed" / "manifest.json"],
        "cfg": ["cfg", path, "--function", "main", "-o", f"{out}.dot"],
        "perf_diff": ["perf-diff", TESTDATA / "perf-loop" / "pipe.data", TESTDATA / "perf-loop" / "pipe.data",
                      "--binary", path],
        "schema": ["schema", "dump"],              # reads no input file: the command itself must still behave
        "completion": ["completion", "bash"],
    }.get(cmd, [cmd.replace("_", "-"), path])


def test_every_command_is_known_here():
    """A new command gets its arguments in _argv (until then it is run as `objllvm CMD FILE`)."""
    assert set(_commands()) >= {"sections", "dump"}


@pytest.mark.parametrize("cmd", _commands())
@pytest.mark.parametrize("m", _params(MANIFEST + CRASHERS))
def test_command_on_malformed(cmd, m, tmp_path, capsys):
    """Every command on every malformed file: exit 0 or 1 (1 from dump always, from sections when the file
    cannot be opened), every stderr line one `objllvm: error:`/`warning:` line, never an internal error.
    rewrite leaves no output behind when it fails."""
    path = str(MAL / m["name"])
    if m.get("xfail") and cmd in m["xfail"]["commands"]:
        pytest.skip(f"known crasher of {m['xfail']['module']} (test_crasher_fixed)")
    rc = cli.main([str(a) for a in _argv(cmd, path, tmp_path)])
    err = capsys.readouterr().err
    assert rc != 3 and "internal error" not in err and "Traceback" not in err, err
    lines = err.splitlines()
    assert all(ln.startswith(("objllvm: error: ", "objllvm: warning: ")) for ln in lines), err
    if m.get("xfail"):
        assert rc in (0, 1), err
    elif cmd == "dump":
        want = _lines(m, path)
        assert rc == (1 if want else 0) and lines == want, err
    elif cmd == "sections":
        assert rc == (1 if m["level"] == "container" else 0), err
    else:
        assert rc in (0, 1), err
        if rc == 1:
            assert lines, "exit 1 without a message"
    if cmd == "rewrite" and rc != 0:
        assert not (tmp_path / "out-rewrite").exists()
    assert not [p for p in tmp_path.rglob(".objllvm-*")], "temporary file left behind"


# -- the rewrite path: cases found by fuzzing (scripts/fuzz), fixed in objllvm/formats/elfwrite/ and objllvm/rewrite/ -
REWRITE = [m for m in MANIFEST if m.get("rewrite")]


@pytest.mark.parametrize("m", _params(REWRITE))
def test_rewrite_outcome(m, tmp_path, capsys):
    """`objllvm rewrite FILE -o OUT ARGS` gives exactly the manifest's lines (exit 1, nothing written), or, with
    none, writes a file objllvm reads back; the API raises the same ObjllvmError, located."""
    from objllvm import rewrite as rw
    from objllvm.formats.elf import ElfFile
    path = str(MAL / m["name"])
    want = [e.replace("{path}", path) for e in m["rewrite"]["errors"]]
    out = tmp_path / "out.o"
    rc = cli.main(["rewrite", path, "-o", str(out), *m["rewrite"]["args"]])
    lines = capsys.readouterr().err.splitlines()
    assert lines == [f"objllvm: error: {e}" for e in want]
    assert rc == (1 if want else 0)
    assert out.exists() == (not want) and not list(tmp_path.glob(".objllvm-*"))
    if not want:
        ElfFile(out.read_bytes(), str(out)).symbols
        return
    ops = {"--strip-llvm": [rw.StripLLVM()], "--drop-addrsig": [rw.DropAddrsig(), rw.AddDeplib("fuzz")]}[
        m["rewrite"]["args"][0]]
    with pytest.raises(ObjllvmError) as ei:
        rw.rewrite_file(path, str(tmp_path / "api.o"), ops)
    assert [str(ei.value)] == want and ei.value.file == path and ei.value.offset is not None


def test_rewrite_cases_pass_the_fuzz_property():
    """The inputs scripts/fuzz found in the rewrite path (MemoryError, OverflowError, a 1.8 GB output, KeyError)
    replayed against every target, address space limited to 1 GB: no violation (none is set aside as known)."""
    import subprocess
    import sys
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "fuzz"), "--replay",
                        *[str(MAL / m["name"]) for m in REWRITE], "--memory-limit-mb", "1024"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and f"replayed {len(REWRITE)} file(s): 0 violation(s)" in p.stdout, p.stdout + p.stderr


def test_real_process_over_the_whole_corpus():
    """One `objllvm dump` / `sections` process over every malformed file: one line per error, exit 1."""
    files = [MAL / m["name"] for m in MANIFEST if not m.get("xfail")]
    rc, out, err = run_objllvm("dump", *files)
    assert rc == 1 and "Traceback" not in err
    want = [ln for m in MANIFEST if not m.get("xfail") for ln in _lines(m, MAL / m["name"])]
    assert sorted(err.splitlines()) == sorted(want)     # unreadable files are reported first, then sections
    rc, out, err = run_objllvm("sections", "--json", *files)
    doc = json.loads(out)
    assert rc == 1 and "Traceback" not in err
    assert len(doc["errors"]) == sum(len(m["errors"]) for m in MANIFEST if m["level"] == "container"
                                     and not m.get("xfail"))


def test_internal_error_debug_shows_traceback(tmp_path):
    """An unexpected exception: a short report and exit 3; with --debug the traceback."""
    code = ("import sys; from objllvm import cli; from objllvm.sections import registry\n"
            "registry.get('deplibs').decode = lambda data, ctx: {}['boom']\n"
            "sys.exit(cli.main(sys.argv[1:]))\n")
    import subprocess
    import sys
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    target = str(TESTDATA / "elf" / "deplibs.o")
    p = subprocess.run([sys.executable, "-c", code, "dump", target], capture_output=True, text=True, env=env)
    assert p.returncode == 3 and "Traceback" not in p.stderr
    assert p.stderr.count("\n") == 1 and "internal error (KeyError" in p.stderr and "--debug" in p.stderr
    p = subprocess.run([sys.executable, "-c", code, "--debug", "dump", target], capture_output=True, text=True,
                       env=env)
    assert p.returncode == 1 and "Traceback (most recent call last)" in p.stderr and "KeyError: 'boom'" in p.stderr
