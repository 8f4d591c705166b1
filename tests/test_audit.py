"""objllvm audit on real objects (testdata/audit/tree, made by scripts/testdata.d/50-audit.sh), diffed against
llvm-readobj-19 (ELF linker options / dependent libraries, Mach-O linker options) and lld-link-19 (how the
COFF linker reads .drectve), plus policy, report, exit status and bad-input behaviour."""
from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import TESTDATA, need_tool, run_objllvm
from objllvm.audit import audit, load_policy, parse_policy
from objllvm.audit.policy import default_policy, libpath_problem
from objllvm.audit.scan import library_name, walk
from objllvm.errors import UsageError

TREE = TESTDATA / "audit" / "tree"
SRC = TESTDATA / "src" / "audit"
STRICT = SRC / "policy-strict.toml"


@pytest.fixture(scope="module")
def report():
    return audit([TREE], jobs=1)


def _reqs(report, kinds, file=None, member=None):
    return [r for r in report.requests if r.kind in kinds and (file is None or r.file == str(file))
            and r.member == member]


# -- every request, against LLVM's tools ------------------------------------------------------------
def _readobj_elf(path):
    tool = need_tool("llvm-readobj-19")
    out = subprocess.run([tool, "--elf-linker-options", "--dependent-libraries", str(path)], capture_output=True,
                         text=True, check=True).stdout
    per = []
    for block in out.split("\nFile: ")[1:]:
        deplibs = re.search(r"DependentLibs \[\n(.*?)\]", block, re.S).group(1).split()
        opts = re.search(r"LinkerOptions \[\n(.*?)\]", block, re.S).group(1)
        per.append((deplibs, [tuple(x.strip().split(": ", 1)) for x in opts.splitlines() if x.strip()]))
    return per


ELF_OBJECTS = sorted((TREE / "elf").glob("*.o"))


@pytest.mark.parametrize("path", ELF_OBJECTS, ids=lambda p: p.name)
def test_elf_requests_match_readobj(report, path):
    ((deplibs, opts),) = _readobj_elf(path)
    got = _reqs(report, ("library", "libpath", "option"), path)
    assert [r.value for r in got if r.section == ".deplibs"] == deplibs
    assert [(r.key, r.value) for r in got if r.section == ".linker-options"] == opts


def test_elf_archive_members_match_readobj(report):
    for ar in (TREE / "lib" / "libelf.a", TREE / "lib" / "libthin.a"):
        tool = need_tool("llvm-ar-19")
        members = subprocess.run([tool, "t", str(ar)], capture_output=True, text=True, check=True).stdout.split()
        expected = _readobj_elf(ar)
        assert len(members) == len(expected)
        stored = [m for m in {r.member for r in report.requests if r.file == str(ar)}]
        for (deplibs, opts), m in zip(expected, members):
            # llvm-ar prints thin members relative to the current directory; the archive stores them relative
            # to itself
            name = next((s for s in stored if m.endswith(os.path.basename(s))), os.path.basename(m))
            got = _reqs(report, ("library", "libpath", "option"), ar, name)
            assert [r.value for r in got if r.section == ".deplibs"] == deplibs
            assert [(r.key, r.value) for r in got if r.section == ".linker-options"] == opts


def _lld_link_libraries(path, tmp_path):
    """The /DEFAULTLIB libraries lld-link-19 tries to open for this object (in order)."""
    tool = need_tool("lld-link-19")
    p = subprocess.run([tool, f"/out:{tmp_path / 'x.dll'}", "/dll", "/noentry", "/machine:x64", str(path)],
                       capture_output=True, text=True, cwd=tmp_path)
    return re.findall(r"could not open '([^']*)'", p.stdout + p.stderr)


@pytest.mark.parametrize("name", ["coff-pragma.obj", "coff-lib.obj"])
def test_coff_libraries_match_lld_link(report, name, tmp_path):
    path = TREE / "coff" / name
    expected = _lld_link_libraries(path, tmp_path)
    assert expected
    got = [r.value for r in _reqs(report, ("library",), path)]
    assert got == expected


def test_coff_other_directives_match_readobj(report):
    text = subprocess.run([need_tool("llvm-readobj-19"), "--coff-directives", str(TREE / "coff" / "coff-pragma.obj")],
                          capture_output=True, text=True, check=True).stdout
    directives = re.search(r"Directive\(s\): (.*)", text).group(1).split()
    names = [d.split(":", 1)[0] for d in directives if d.startswith("/")]
    got = _reqs(report, ("library", "libpath", "option"), TREE / "coff" / "coff-pragma.obj")
    # every directive is one request, in order, with the option name as written
    assert ["/" + r.key.lstrip("/") for r in got] == names


@pytest.mark.parametrize("path", [TREE / "macho" / "macho-linker-options.o", TREE / "macho" / "fat.o"],
                         ids=lambda p: p.name)
def test_macho_requests_match_readobj(report, path):
    text = subprocess.run([need_tool("llvm-readobj-19"), "--macho-linker-options", str(path)], capture_output=True,
                          text=True, check=True).stdout
    expected = [re.findall(r"Value: (.*)", b) for b in re.findall(r"Strings \[\n(.*?)\n\s*\]", text, re.S)]
    got = [r for r in report.requests if r.file == str(path) and r.section == "LC_LINKER_OPTION"]
    assert len(got) == len(expected)
    for r, strings in zip(got, expected):
        if r.kind == "library" and r.key == "-framework":
            assert strings == ["-framework", r.value]
        elif r.kind == "library":
            assert strings == [r.value] and r.value == "-l" + r.library
        elif r.kind == "libpath":
            assert strings == [r.key + r.value]
        else:
            pytest.fail(f"unexpected request {r}")


def test_embedded_bitcode_and_cmdline_found(report):
    tool = need_tool("llvm-readobj-19")
    expected_bc, expected_cmd = set(), set()
    for p in sorted(TREE.rglob("*.o")) + sorted(TREE.rglob("*.obj")):
        out = subprocess.run([tool, "--sections", str(p)], capture_output=True, text=True, check=True).stdout
        for block in out.split("\nFile: ")[1:]:
            for name, size in re.findall(r"Name: ([.\w]+).*?\n(?:.*\n)*?\s+(?:Size|RawDataSize): (\w+)", block):
                size = int(size, 0)
                if name in (".llvmbc", ".llvm.lto", "__bitcode") and size >= 4:
                    expected_bc.add((str(p), size))
                if name in (".llvmcmd", "__cmdline") and size:
                    expected_cmd.add((str(p), size))
    got_bc = {(r.file, r.size) for r in report.requests if r.kind == "bitcode" and r.member is None}
    got_cmd = {(r.file, r.size) for r in report.requests if r.kind == "cmdline" and r.member is None}
    assert got_bc == expected_bc and len(got_bc) == 4
    assert got_cmd == expected_cmd and len(got_cmd) == 5       # the two -fembed-bitcode=marker objects too
    # through the thin archive as well
    assert any(r.kind == "bitcode" and r.member and r.member.endswith("embed.o") for r in report.requests)


def test_counts_and_skipping(report):
    files = [p for p in TREE.rglob("*") if p.is_file()]
    assert report.files == len(files)
    assert report.skipped == 1          # README.txt
    objects = len(list(TREE.rglob("*.o"))) + len(list(TREE.rglob("*.obj"))) + 1   # fat.o has two slices
    members = 3 + 3 + 2 + 5             # libelf.a, coff.lib, libthin.a, import.lib (llvm-dlltool-19)
    assert report.objects == objects + members
    assert not [f for f in report.findings if f.rule == "unreadable"]


# -- library names ----------------------------------------------------------------------------------
@pytest.mark.parametrize("value,fmt,name", [
    ("ssl", "elf", "ssl"), ("-lssl", "macho", "ssl"), ("-l:libssl.a", "elf", "ssl"), ("libssl.a", "elf", "ssl"),
    ("libssl.so.3", "elf", "ssl"), ("/usr/lib/libcrypto.so", "elf", "crypto"), ("ssl.lib", "coff", "ssl"),
    ("LibCrypto.LIB", "coff", "crypto"), ("User32.lib", "coff", "user32"), ("my lib.lib", "coff", "my lib"),
    ("libfoo", "elf", "libfoo"), ("lib.a", "elf", "lib"), ("C:\\x\\zlib.lib", "coff", "zlib")])
def test_library_name(value, fmt, name):
    assert library_name(value, fmt) == name


@pytest.mark.parametrize("path,roots,ok", [
    ("/src/build/lib", ["/src/build"], True), ("/src/build", ["/src/build/"], True),
    ("/src/buildx", ["/src/build"], False), ("/src/build/../../etc", ["/src/build"], False),
    ("lib/x", [], True), ("../x", [], False), ("a/../../x", ["/"], False), ("/opt", [], False),
    ("C:\\build\\lib", ["c:/build"], True), ("..\\outside dir", ["/src"], False)])
def test_libpath_roots(path, roots, ok):
    assert (libpath_problem(path, roots) is None) == ok


# -- policies ---------------------------------------------------------------------------------------
def test_strict_policy_findings():
    rep = audit([TREE], policy=load_policy(str(STRICT)), jobs=1)
    denied = {(r.file, r.member, r.value) for r in (f.request for f in rep.findings if f.rule == "library-denied")}
    # from the sources: ssl (ELF #pragma, COFF #pragma, Mach-O -lssl) and crypto* (ELF deplib libcrypto.a and
    # ELF linker option lib=crypto), in the objects and in the archives that hold them
    e, c, m, lib = TREE / "elf", TREE / "coff", TREE / "macho", TREE / "lib"
    assert denied == {
        (str(e / "elf-pragma.o"), None, "ssl"), (str(e / "elf-pragma.o"), None, "libcrypto.a"),
        (str(e / "elf-linker-options.o"), None, "crypto"),
        (str(lib / "libelf.a"), "elf-pragma.o", "ssl"), (str(lib / "libelf.a"), "elf-pragma.o", "libcrypto.a"),
        (str(lib / "libelf.a"), "elf-linker-options.o", "crypto"),
        (str(c / "coff-pragma.obj"), None, "ssl.lib"), (str(lib / "coff.lib"), "coff-pragma.obj", "ssl.lib"),
        (str(m / "macho-linker-options.o"), None, "-lssl"), (str(m / "fat.o"), "x86_64", "-lssl")}
    assert all(f.severity == "error" for f in rep.findings if f.rule == "library-denied")
    cmd = [f for f in rep.findings if f.rule == "embedded-cmdline"]
    assert len(cmd) == 6 and all(f.severity == "error" for f in cmd)
    paths = {f.request.value for f in rep.findings if f.rule == "libpath-outside-roots"}
    assert paths == {"/opt/vendor/lib", "/src/build/../../etc", "/usr/local/lib", "C:\\build\\lib", "..\\outside dir"}
    assert rep.exit_status("error") == 1


def test_allow_list_policy():
    rep = audit([TREE], policy=load_policy(str(SRC / "policy-allow.toml")), jobs=1)
    not_allowed = {f.request.library for f in rep.findings if f.rule == "library-not-allowed"}
    assert not_allowed == {"ssl", "crypto", "my lib", "Security", "CoreFoundation"}
    assert {f.severity for f in rep.findings if f.rule == "library-not-allowed"} == {"warning"}
    assert not [f for f in rep.findings if f.rule.startswith("embedded")]
    assert rep.exit_status("error") == 0 and rep.exit_status("warning") == 1


def test_option_deny_policy():
    pol = parse_policy('[options]\ndeny = ["export", "/MERGE", "undocumented-*"]\nseverity = "note"\n')
    rep = audit([TREE / "coff" / "coff-pragma.obj", TREE / "elf" / "asm-opts.o"], policy=pol, jobs=1)
    got = sorted((f.request.key, f.severity) for f in rep.findings if f.rule == "option-denied")
    assert got == [("/EXPORT", "note"), ("/merge", "note"), ("undocumented-key", "note")]


def test_default_policy_file_is_the_defaults():
    """The shipped file, parsed, is Policy()'s defaults (what an audit without --policy uses), key by key."""
    from objllvm.audit.policy import Policy, default_policy_text, parse_policy
    assert parse_policy(default_policy_text(), "(default policy)") == Policy()
    assert default_policy() == Policy()
    changed = parse_policy(default_policy_text().replace('cmdline = "warning"', 'cmdline = "error"'))
    assert changed.cmdline == "error" and changed != Policy()


def test_default_policy_shipped_and_documented():
    p = default_policy()
    assert (p.bitcode, p.cmdline, p.library_severity, p.libpath_severity) == ("warning", "warning", "error", "warning")
    doc = (Path(__file__).parent.parent / "docs" / "audit.md").read_text()
    from objllvm.audit.policy import default_policy_text
    assert default_policy_text().strip() in doc


@pytest.mark.parametrize("text,words", [
    ("[libraries]\ndeny = [\"ssl\"\n", ["line 3"]),
    ("[libraries]\ndeny = [ssl]\n", ["line 2, column 9"]),
    ("[libraries]\ndeny = []\ndenny = []\n", ["libraries.denny", "line 3"]),
    ("[embedded]\nbitcode = \"fatal\"\n", ["embedded.bitcode", "fatal", "line 2"]),
    ("[libpath]\nroots = []\n[librarys]\n", ["[librarys]", "line 3"]),
    ("[libpath]\nroots = \"/src\"\n", ["libpath.roots", "list"]),
])
def test_bad_policy_errors(text, words, tmp_path):
    f = tmp_path / "p.toml"
    f.write_text(text)
    with pytest.raises(UsageError) as ei:
        load_policy(str(f))
    for w in words:
        assert w in str(ei.value)
    rc, out, err = run_objllvm("audit", "--policy", f, TREE / "elf" / "elf-plain.o")
    assert rc == 2 and out == "" and len(err.splitlines()) == 1 and words[0] in err


# -- reports and exit status -------------------------------------------------------------------------
def test_cli_exit_status_and_outputs(tmp_path):
    rc, out, err = run_objllvm("audit", TREE)
    assert rc == 0 and err == ""                      # default policy: warnings only; no progress when piped
    assert "Libraries requested" in out and "embedded-bitcode" in out
    rc, out, err = run_objllvm("audit", "--fail-on", "warning", "--json", "--sarif", tmp_path / "o.sarif", TREE)
    assert rc == 1 and err == ""
    doc = json.loads(out)
    assert doc["schema"] == "objllvm-audit" and doc["summary"]["objects"] > 0
    ssl = next(x for x in doc["libraries"] if x["library"] == "ssl")
    assert ssl["objects"] == len(ssl["requested_by"]) == 6 and set(ssl["requested_as"]) == {"ssl", "ssl.lib", "-lssl"}
    sarif = json.loads((tmp_path / "o.sarif").read_text())
    assert len(sarif["runs"][0]["results"]) == len(doc["findings"])
    rc, out, err = run_objllvm("audit", "--policy", STRICT, TREE / "elf" / "elf-pragma.o")
    assert rc == 1 and "library-denied" in out
    rc, out, err = run_objllvm("audit", "--policy", STRICT, "--fail-on", "never", TREE / "elf" / "elf-pragma.o")
    assert rc == 0


# A subset of the SARIF 2.1.0 schema (the parts code-scanning tools require), written from the OASIS spec.
_SARIF_SUBSET = {
    "type": "object", "required": ["version", "$schema", "runs"],
    "properties": {
        "version": {"const": "2.1.0"}, "$schema": {"type": "string", "pattern": "sarif-2\\.1\\.0"},
        "runs": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["tool", "results"],
            "properties": {
                "tool": {"type": "object", "required": ["driver"], "properties": {"driver": {
                    "type": "object", "required": ["name", "rules"], "properties": {
                        "name": {"type": "string"},
                        "rules": {"type": "array", "items": {
                            "type": "object", "required": ["id", "shortDescription"],
                            "properties": {"id": {"type": "string"},
                                           "shortDescription": {"type": "object", "required": ["text"]},
                                           "defaultConfiguration": {"type": "object", "properties": {
                                               "level": {"enum": ["none", "note", "warning", "error"]}}}}}}}}}},
                "results": {"type": "array", "items": {
                    "type": "object", "required": ["ruleId", "level", "message", "locations"],
                    "properties": {
                        "ruleId": {"type": "string"}, "ruleIndex": {"type": "integer", "minimum": 0},
                        "level": {"enum": ["none", "note", "warning", "error"]},
                        "message": {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}},
                        "locations": {"type": "array", "minItems": 1, "items": {
                            "type": "object", "required": ["physicalLocation"], "properties": {
                                "physicalLocation": {"type": "object", "required": ["artifactLocation"],
                                                     "properties": {"artifactLocation": {
                                                         "type": "object", "required": ["uri"],
                                                         "properties": {"uri": {"type": "string", "format": "uri-reference"}}}}}}}}}}}}}}},
}


def test_sarif_structure(tmp_path):
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is not installed (test-only dependency)")
    rep = audit([TREE], policy=load_policy(str(STRICT)), jobs=1)
    sarif = rep.to_sarif()
    jsonschema.validate(sarif, _SARIF_SUBSET)
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    results = sarif["runs"][0]["results"]
    assert len(results) == len(rep.findings)
    for res in results:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        uri = res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert uri.startswith("file://") or not uri.startswith("/")
    levels = {r["ruleId"]: r["level"] for r in results}
    assert levels["library-denied"] == "error" and levels["embedded-bitcode"] == "warning"
    member = next(r for r in results if r["properties"].get("member") == "elf-pragma.o")
    assert member["locations"][0]["logicalLocations"][0]["name"] == "elf-pragma.o"


# -- bad input: findings, and the audit goes on -------------------------------------------------------
def test_bad_inputs_become_unreadable_findings(tmp_path):
    t = tmp_path / "t"
    shutil.copytree(TREE, t, symlinks=True)
    # broken archive: cut in the middle of a member
    data = (t / "lib" / "libelf.a").read_bytes()
    (t / "lib" / "broken.a").write_bytes(data[: len(data) // 2])
    # malformed .deplibs: the last library name loses its NUL
    obj = bytearray((t / "elf" / "elf-pragma.o").read_bytes())
    i = obj.find(b"libcrypto.a\0")
    obj[i + 11] = ord("x")
    (t / "elf" / "bad-deplibs.o").write_bytes(bytes(obj))
    # malformed Mach-O LC_LINKER_OPTION: count larger than the strings
    mo = bytearray((t / "macho" / "macho-linker-options.o").read_bytes())
    j = mo.find((0x2D).to_bytes(4, "little") + (16).to_bytes(4, "little"))
    mo[j + 8:j + 12] = (1000).to_bytes(4, "little")
    (t / "macho" / "bad-count.o").write_bytes(bytes(mo))
    # COFF header whose section table runs past the end
    co = bytearray((t / "coff" / "coff-lib.obj").read_bytes())
    co[2:4] = (4000).to_bytes(2, "little")
    (t / "coff" / "bad-header.obj").write_bytes(bytes(co))
    # a thin archive whose member is gone, a dangling symlink, a symlink loop of files, a FIFO
    (t / "lib" / "lonely").mkdir()
    shutil.copy(t / "lib" / "libthin.a", t / "lib" / "lonely" / "libthin.a")
    os.symlink("nowhere.o", t / "dangling.o")
    os.symlink("loop-b.o", t / "loop-a.o")
    os.symlink("loop-a.o", t / "loop-b.o")
    os.mkfifo(t / "fifo.o")
    # a directory symlink loop: walked once
    os.symlink("..", t / "elf" / "up")
    rep = audit([t], jobs=1)
    bad = {(os.path.relpath(f.request.file, t), f.request.member): f.message
           for f in rep.findings if f.rule == "unreadable"}
    assert set(bad) == {("lib/broken.a", None), ("elf/bad-deplibs.o", None), ("macho/bad-count.o", None),
                        ("coff/bad-header.obj", None), ("lib/lonely/libthin.a", "../elf/asm-opts.o"),
                        ("lib/lonely/libthin.a", "../elf/embed.o"), ("dangling.o", None), ("loop-a.o", None),
                        ("loop-b.o", None)}
    assert "runs past the end of the archive" in bad[("lib/broken.a", None)]
    # the members before the break are still audited (those whose member header lies in the first half)
    ar = subprocess.run([need_tool("llvm-ar-19"), "t", str(t / "lib" / "libelf.a")], capture_output=True, text=True,
                        check=True).stdout.split()
    whole = [r.member for r in rep.requests if r.file == str(t / "lib" / "libelf.a")]
    salvaged = [r.member for r in rep.requests if r.file == str(t / "lib" / "broken.a") and r.kind != "unreadable"]
    assert salvaged and set(salvaged) < set(whole) and salvaged == whole[:len(salvaged)] and ar[0] in salvaged
    assert "no terminating NUL" in bad[("elf/bad-deplibs.o", None)] and ".deplibs" in bad[("elf/bad-deplibs.o", None)]
    assert "count says 1000 strings" in bad[("macho/bad-count.o", None)]
    assert "section table" in bad[("coff/bad-header.obj", None)] and "offset 0x14" in bad[("coff/bad-header.obj", None)]
    assert "cannot read" in bad[("lib/lonely/libthin.a", "../elf/asm-opts.o")]
    assert not any("internal error" in m for m in bad.values())
    # the good objects were still audited, each once (the directory loop did not repeat them)
    # (-lssl: macho-linker-options.o, fat.o, and bad-count.o whose other commands are fine)
    assert len([r for r in rep.requests if r.kind == "library" and r.value == "-lssl"]) == 3


def test_walk_follows_links_once(tmp_path):
    (tmp_path / "a").mkdir()
    shutil.copy(TREE / "elf" / "elf-pragma.o", tmp_path / "a" / "x.o")
    os.symlink(tmp_path / "a", tmp_path / "b")
    os.symlink(tmp_path, tmp_path / "a" / "loop")
    os.symlink("x.o", tmp_path / "a" / "y.o")
    files = list(walk([tmp_path]))
    assert len(files) == 1 and files[0].endswith("x.o")


def test_parallel_equals_serial(report):
    par = audit([TREE], jobs=2, chunk_size=2, serial_for=0)
    assert par.to_dict() == report.to_dict()


# -- the Rust toolchain's rlibs: embedded bitcode under the default policy ------------------------------
def _rust_libdir():
    dirs = sorted(glob.glob(os.path.expanduser("~/.rustup/toolchains/*/lib/rustlib/x86_64-unknown-linux-gnu/lib")))
    nightly = [d for d in dirs if "nightly" in d]
    return (nightly or dirs or [None])[0]


def test_rust_rlibs_embedded_bitcode():
    libdir = _rust_libdir()
    if libdir is None:
        pytest.skip("no Rust toolchain library directory (~/.rustup/toolchains/*/lib/rustlib/x86_64-unknown-linux-gnu/lib)")
    objdump = need_tool("llvm-objdump-19")
    rlibs = sorted(glob.glob(os.path.join(libdir, "*.rlib")))
    assert rlibs
    out = subprocess.run([objdump, "-h", *rlibs], capture_output=True, text=True).stdout
    expected = set()
    current = None
    for line in out.splitlines():
        m = re.match(r"^(.*\.rlib)\((.*)\):\s+file format", line)
        if m:
            current = m.groups()
            continue
        m = re.match(r"^\s*\d+\s+\.llvmbc\s+([0-9a-f]+)", line)
        if m and current and int(m.group(1), 16) >= 4:
            expected.add(current)
    rep = audit([libdir])
    got = {(f.request.file, f.request.member) for f in rep.findings if f.rule == "embedded-bitcode"}
    assert expected and got == expected
    assert {f.severity for f in rep.findings if f.rule == "embedded-bitcode"} == {"warning"}
    assert not [f for f in rep.findings if f.rule == "unreadable"]
    assert rep.exit_status("error") == 0 and rep.exit_status("warning") == 1


def test_progress_only_on_a_terminal():
    """stderr a terminal (a pty): a progress line, erased at the end; piped: nothing (checked above too)."""
    import pty
    import sys
    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    p = subprocess.Popen([sys.executable, "-m", "objllvm", "audit", str(TREE)], stdout=subprocess.PIPE,
                         stderr=slave, env=env)
    os.close(slave)
    out, _ = p.communicate(timeout=120)
    err = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        err += chunk
    os.close(master)
    assert p.returncode == 0 and b"Libraries requested" in out
    assert re.search(rb"audit: \d+ files, \d+ objects", err), err
    assert err.endswith(b"\r\x1b[K")
    rc, out, err = run_objllvm("audit", "--no-progress", TREE)
    assert rc == 0 and err == ""


def test_scan_of_the_header_columns_is_the_scan_of_every_section(monkeypatch):
    """scan_object looks at an ELF object's sections of a request type or a known name, found from the header
    columns and the name table: the requests are those of a scan of every section (the way other containers
    are scanned), on every committed file, the malformed and lit ones too."""
    from objllvm.audit import scan
    from objllvm.formats import iter_objects
    from objllvm.errors import ObjllvmError
    files = [p for p in sorted(TESTDATA.rglob("*")) if p.is_file() and p.relative_to(TESTDATA).parts[0] != "src"]
    elf = 0
    for p in files:
        try:
            objs = [o for o in iter_objects(str(p)) if not isinstance(o, ObjllvmError)]
        except ObjllvmError:
            continue
        for o in objs:
            fast = []
            scan.scan_object(o, fast)
            if o.format == "elf":
                elf += 1
                with monkeypatch.context() as m:
                    m.setattr(scan, "_elf_columns", lambda obj: None)
                    slow = []
                    scan.scan_object(o, slow)
                assert fast == slow, p
    assert elf > 200


# -- the header-table path (formats/elfscan.py) ----------------------------------------------------------
def test_objects_found_plain_by_their_headers_scan_as_when_read_whole(monkeypatch):
    """scan_file skips an ELF object (file or archive member) whose header and name tables show no section it
    looks at: on every committed file (malformed and lit ones too), the requests and errors are those of reading
    every object whole."""
    from objllvm.audit import scan
    files = [p for p in sorted(TESTDATA.rglob("*")) if p.is_file() and p.relative_to(TESTDATA).parts[0] != "src"]
    fast = [scan.scan_file(str(p)) for p in files]
    monkeypatch.setattr(scan, "section_indices", lambda *a, **k: None)
    whole = [scan.scan_file(str(p)) for p in files]
    assert fast == whole
    assert sum(n for _, n, _ in fast) > 300 and any(r for _, _, r in fast)


def _with_header_field(src, section, field, value, tmp_path, name):
    """A copy of the ELF object ``src`` with one 64-bit field of section ``section``'s header set to ``value``."""
    from objllvm.formats import open_object
    obj = open_object(str(src))
    i = next(s.index for s in obj.sections if s.name == section)
    data = bytearray(src.read_bytes())
    at = obj.e_shoff + i * 64 + {"offset": 24, "size": 32}[field]
    data[at:at + 8] = value.to_bytes(8, "little")
    out = tmp_path / name
    out.write_bytes(bytes(data))
    return out


def test_a_broken_section_audit_reads_is_reported_one_it_does_not_read_is_not(tmp_path):
    """.deplibs past the end: an unreadable finding naming the section and offset, the file's other requests
    still there; .text past the end: audit does not read .text (llvm-readobj --dependent-libraries neither),
    so the file audits as the intact one does."""
    src = TREE / "elf" / "elf-pragma.o"
    good = audit([src], jobs=1)
    bad_text = _with_header_field(src, ".text", "offset", 1 << 40, tmp_path, "text.o")
    rep = audit([bad_text], jobs=1)
    assert [r.to_dict() | {"file": ""} for r in rep.requests] == [r.to_dict() | {"file": ""} for r in good.requests]
    assert not [f for f in rep.findings if f.rule == "unreadable"]
    bad_deplibs = _with_header_field(src, ".deplibs", "size", 1 << 40, tmp_path, "deplibs.o")
    rep = audit([bad_deplibs], jobs=1)
    (u,) = [f for f in rep.findings if f.rule == "unreadable"]
    assert u.request.section == ".deplibs" and "run past the end of the file" in u.message
    assert [r.value for r in rep.requests if r.kind == "option"] == [r.value for r in good.requests
                                                                     if r.kind == "option"]


def test_header_table_path_agrees_on_mutated_objects_and_archives(monkeypatch, tmp_path):
    """Committed objects and archives with a few bytes changed, half of them in the last 4 KiB (where the
    section header and name tables are): the requests and errors of scan_file are those of reading every
    object whole, and never an internal error."""
    import random
    from objllvm.audit import scan
    srcs = [p for p in sorted(TESTDATA.rglob("*")) if p.is_file() and p.suffix in (".a", ".o")
            and p.relative_to(TESTDATA).parts[0] != "src" and p.stat().st_size < 200_000]
    rng = random.Random(31)
    real = scan.section_indices
    for k in range(300):
        data = bytearray(rng.choice(srcs).read_bytes())
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(data))
            if rng.random() < 0.5:
                i = len(data) - 1 - rng.randrange(min(len(data), 4096))
            data[i] = rng.randrange(256)
        p = tmp_path / f"m{k}.o"
        p.write_bytes(bytes(data))
        monkeypatch.setattr(scan, "section_indices", real)
        fast = scan.scan_file(str(p))
        monkeypatch.setattr(scan, "section_indices", lambda *a, **kw: None)
        assert fast == scan.scan_file(str(p)), k
        assert not [r for r in fast[2] if "internal error" in str(r[5])], k
