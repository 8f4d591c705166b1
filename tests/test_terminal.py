"""Names from files never reach a terminal as they are, and every JSON document parses strictly.

testdata/terminal (scripts/testdata.d/85-terminal.sh, yaml2obj-22 plus byte edits) holds an object whose library
names, linker options, command line, section names and offloading triple carry escape sequences (title change
``ESC ] 0 ; ... BEL``, screen clear ``ESC [ 2 J``, colours), a newline followed by a forged
``objllvm: error: /etc/passwd: ...`` line, a right-to-left override (U+202E) and bytes that are not UTF-8 (ff fe),
and a BSD archive of it whose member names carry the same (and one of 300 characters).
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import orjson
import pytest

from conftest import ROOT, TESTDATA
from objllvm import render
from objllvm import errors

T = TESTDATA / "terminal"
OBJ, AR = T / "hostile.o", T / "hostile-members.a"


def run(*args, cwd=None):
    """The CLI in a subprocess: (exit status, stdout bytes, stderr bytes), nothing decoded."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-m", "objllvm", *map(str, args)], capture_output=True, env=env, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def assert_terminal_safe(data: bytes, what: str) -> None:
    """Nothing a terminal acts on: UTF-8 whose only non-printable characters are newlines."""
    text = data.decode("utf-8")          # (strict: a byte that is not UTF-8 fails here)
    bad = sorted({f"U+{ord(c):04X}" for c in text if not c.isprintable() and c != "\n"})
    assert not bad, f"{what}: {bad}"


def assert_one_line_errors(err: bytes) -> None:
    for line in err.decode("utf-8").splitlines():
        assert line.startswith(("objllvm: error: ", "objllvm: warning: ")), line
        assert not line.startswith("objllvm: error: /etc/passwd"), line


TEXT_COMMANDS = [
    ("dump", OBJ), ("dump", AR), ("sections", "--all", OBJ), ("sections", "--all", AR), ("audit", T),
]


@pytest.mark.parametrize("args", TEXT_COMMANDS, ids=lambda a: " ".join(map(str, a[:-1])) + " " + a[-1].name)
def test_text_output_is_escaped(args):
    rc, out, err = run(*args)
    assert rc in (0, 1), err
    assert_terminal_safe(out, "stdout")
    assert_terminal_safe(err, "stderr")
    assert_one_line_errors(err)
    # what was escaped is still there to read, in the documented form
    if args[0] == "dump":
        assert b"m\\x1b]0;owned\\x07" in out                       # a library name
        assert b"bad\\xff\\xfe\\x0aobjllvm: error: /etc/passwd" in out
        assert b"\\u202egnp.exe" in out
        assert b"x86_64\\x1b]0;owned\\x07-unknown-linux\\x1b[2J" in out   # the offloading triple
    if args[-1] == AR:
        assert b"(a\\x1b]0;owned\\x07\\x1b[2J.o)" in out               # a member name in a heading


def test_error_line_names_the_section_escaped():
    """The broken section's name (escape sequences, a newline, bytes not UTF-8) is one error line."""
    rc, out, err = run("dump", OBJ)
    assert rc == 1
    (line,) = [x for x in err.decode().splitlines() if "no terminating NUL" in x]
    assert line.startswith(f"objllvm: error: {OBJ}: section [7] .deplibs\\x1b]0;owned\\x07\\x1b[2J\\x1b[31m"
                           "\\xff\\xfe\\x0aobjllvm: error: /etc/passwd: forged: offset 0x0: ")


def test_file_name_in_error_line_is_escaped(tmp_path):
    bad = tmp_path / "x\x1b[2J\nobjllvm: error: forged.o"
    bad.write_bytes(b"\x7fELF\x02\x01\x01" + bytes(20))
    rc, out, err = run("dump", bad)
    assert rc == 1
    assert_terminal_safe(err, "stderr")
    assert len(err.decode().splitlines()) == 1 and b"x\\x1b[2J\\x0aobjllvm: error: forged.o" in err


def test_extract_text_is_escaped(tmp_path):
    rc, out, err = run("extract", OBJ, AR, "-o", tmp_path / "x")
    assert rc == 0, err
    assert_terminal_safe(out, "stdout")
    assert_terminal_safe(err, "stderr")


JSON_COMMANDS = [("dump", "--json", OBJ), ("dump", "--json", AR), ("sections", "--json", "--all", AR),
                 ("audit", "--json", T)]


@pytest.mark.parametrize("args", JSON_COMMANDS, ids=lambda a: " ".join(map(str, a[:-1])) + " " + a[-1].name)
def test_json_parses_strictly(args):
    rc, out, err = run(*args)
    assert rc in (0, 1), err
    doc = orjson.loads(out)                     # strict: a lone surrogate ("\udcff") is refused
    assert json.loads(out) == doc
    assert_terminal_safe(err, "stderr")
    text = out.decode("ascii")
    if args[0] == "dump":
        # a byte that is not UTF-8 as the four characters \xff (JSON "\\xff"); the escape character as JSON's
        assert '"bad\\\\xff\\\\xfe\\nobjllvm: error: /etc/passwd: forged"' in text
        assert '"m\\u001b]0;owned\\u0007"' in text


def test_sarif_and_extract_manifest_parse_strictly(tmp_path):
    rc, out, err = run("audit", "--sarif", tmp_path / "a.sarif", T)
    assert rc in (0, 1), err
    raw = (tmp_path / "a.sarif").read_bytes()
    orjson.loads(raw)
    assert b"\\\\xff\\\\xfe" in raw          # (a member's name, its bytes that are not UTF-8 as \xff\xfe)
    rc, out, err = run("extract", "--json", OBJ, AR, "-o", tmp_path / "x")
    assert rc == 0, err
    doc = orjson.loads(out)
    manifest = orjson.loads((tmp_path / "x" / "manifest.json").read_bytes())
    members = {p["member"] for p in manifest["payloads"]}
    assert "b\\xff\\xfe\nobjllvm: error: /etc/passwd: forged.o" in members
    assert doc["payloads"] == manifest["payloads"]


# -- extract: names too long for a file system, manifests that point elsewhere -------------------------------
def test_extract_shortens_long_names_and_writes_everything(tmp_path):
    """A 5,000-character triple and a 300-character member name: every payload is written, under a name of at
    most NAME_MAX characters, names unique, each file's bytes as the manifest says."""
    from objllvm.bitcode.payloads import NAME_MAX
    out = tmp_path / "x"
    rc, _, err = run("extract", OBJ, AR, "-o", out)
    assert rc == 0, err
    manifest = json.loads((out / "manifest.json").read_text())
    paths = [p["path"] for p in manifest["payloads"]]
    assert len(paths) == 4 * 4                    # 4 payloads in the object and in each of its 3 members
    assert len(set(paths)) == len(paths) and sorted(paths + ["manifest.json"]) == sorted(os.listdir(out))
    assert max(map(len, paths)) <= NAME_MAX
    assert sum(p["kind"] == "offload-image" and len(p["triple"]) == 5000 for p in manifest["payloads"]) == 4
    import hashlib
    for p in manifest["payloads"]:
        assert hashlib.sha256((out / p["path"]).read_bytes()).hexdigest() == p["sha256"]


def test_extract_force_drops_manifest_entries_outside_the_directory(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("not extract's\n")
    out = tmp_path / "x"
    out.mkdir()
    (out / "kept.bc").write_bytes(b"BC")
    earlier = {"schema": "objllvm-extract", "version": 1, "skipped": [], "errors": [], "payloads": [
        {"path": "../outside.txt", "kind": "bitcode"}, {"path": os.fspath(outside), "kind": "bitcode"},
        {"path": "..", "kind": "bitcode"}, {"path": "manifest.json", "kind": "bitcode"},
        {"path": "kept.bc", "kind": "bitcode"}]}
    (out / "manifest.json").write_text(json.dumps(earlier))
    rc, _, err = run("extract", "--force", TESTDATA / "bitcode" / "embed.o", "-o", out)
    assert rc == 0, err
    paths = [p["path"] for p in json.loads((out / "manifest.json").read_text())["payloads"]]
    assert "kept.bc" in paths
    assert not [p for p in paths if "/" in p or p in ("..", "manifest.json")], paths
    assert outside.read_text() == "not extract's\n"


# -- the renderer and the error reporter themselves -----------------------------------------------------------
def test_terminal_text_escapes():
    terminal_text, report_error = errors.terminal_text, errors.report_error
    assert terminal_text("plain name é 日本") == "plain name é 日本"
    assert terminal_text("a\x1b[2Jb\x07\x00\x7f\x85\x9b") == "a\\x1b[2Jb\\x07\\x00\\x7f\\x85\\x9b"
    assert terminal_text("\u202eexe.gnp\u2066\u2028") == "\\u202eexe.gnp\\u2066\\u2028"
    assert terminal_text("ab\udcff\udc80") == "ab\\xff\\x80"
    assert terminal_text("l1\nl2\tx\r", "\n\t") == "l1\nl2\tx\\x0d"
    err = io.StringIO()
    report_error("f.o: section [3] .a\nobjllvm: error: g.o: forged", err)
    assert err.getvalue() == "objllvm: error: f.o: section [3] .a\\x0aobjllvm: error: g.o: forged\n"


@pytest.mark.parametrize("engine", ["fast", "tabulate"])
def test_every_table_path_escapes(engine):
    bad = "f\x1b]0;t\x07\udcff\n"
    items = [render.Heading("h " + bad), render.Text("t1 " + bad + "t2"),
             render.Table(["name"], [[bad], ["ok"]], title="T " + bad),
             render.ColumnTable(["a", "b"], [[1, 2], [3, 4]], "dd", title="C " + bad),
             render.ColumnTable(["a", "l"], [[1], [0]], "dc", title="G " + bad, labels=[None, ["x"]]),
             render.ColumnTable(["a", "l"], [[5, 6], [b"y", b""]], "db", title="F " + bad)]
    out = io.StringIO()
    render.render_text(items, out, engine=engine)
    text = out.getvalue()
    assert_terminal_safe(text.encode("utf-8"), "render_text")
    for tag in ("h ", "T ", "C ", "G ", "F "):
        assert f"{tag}f\\x1b]0;t\\x07\\xff\\x0a" in text, tag
    assert "t1 f\\x1b]0;t\\x07\\xff\nt2" in text          # a Text keeps its newlines
    out = io.StringIO()
    render.render_text([render.Text("error at offset 0x0: name " + bad, one_line=True)], out, engine=engine)
    assert out.getvalue() == "error at offset 0x0: name f\\x1b]0;t\\x07\\xff\\x0a\n"     # a message: one line


def test_json_bytes_escaped_keeps_pairs_and_backslashes():
    q = render.json_text
    assert q("a\udcffb") == '"a\\\\xffb"'
    assert q("\U0001F4FF") == '"\\ud83d\\udcff"'                 # a character beyond U+FFFF: its pair stays
    assert q("x\\udcff") == '"x\\\\udcff"'                         # a backslash, then the letters
    for doc in ({"k\udc80": ["\udcff", "\U0001F4FF", "C:\\x86"], "f": 1.5}, ["\udcfe"] * 3):
        for indent in (True, False):
            out = io.StringIO()
            render.render_json(doc, out, indent=indent)
            assert orjson.loads(out.getvalue()) == json.loads(out.getvalue())
    out = io.StringIO()
    render.render_json({"k\udc80": ["\udcff", "\U0001F4FF", "C:\\x86"], "f": 1.5}, out)
    assert json.loads(out.getvalue()) == {"k\\x80": ["\\xff", "\U0001F4FF", "C:\\x86"], "f": 1.5}


def test_rewrite_diff_names_a_section_on_one_escaped_line():
    """The decoded diff of a --dry-run heads its hunks with the section's name: a name with a newline and escape
    sequences stays one escaped line (the diff lines themselves are JSON)."""
    import io

    from objllvm.render import render_text
    from objllvm.rewrite.session import Change, RewriteResult, describe_changes
    name = ".deplibs\x1b]0;owned\x07\nobjllvm: error: /etc/passwd: forged"
    res = RewriteResult("in.o", None, [Change(7, name, "changed", 4, 2, "deplibs",
                                              {"libraries": ["a", "b"]}, {"libraries": ["a"]})])
    out = io.StringIO()
    render_text(describe_changes(res), out)
    text = out.getvalue()
    assert "\x1b" not in text and "\x07" not in text
    assert not any(line.startswith("objllvm: error:") for line in text.splitlines()), text
    assert "\\x1b]0;owned\\x07\\x0aobjllvm: error: /etc/passwd: forged (before)" in text
