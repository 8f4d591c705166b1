"""The command line: output, exit statuses, one-line errors, never a traceback."""
import json
import subprocess
import sys

from objllvm.formats import open_object

from conftest import ROOT, TESTDATA, run_objllvm

ELF = TESTDATA / "elf"


def _corrupt_deplibs(tmp_path):
    """deplibs.o with the final NUL of .deplibs replaced: a malformed section beside a good .llvm_addrsig."""
    obj = open_object(str(ELF / "deplibs.o"))
    sec = obj.section_by_name(".deplibs")
    data = bytearray((ELF / "deplibs.o").read_bytes())
    data[sec.offset + sec.size - 1] = ord("X")
    p = tmp_path / "bad-deplibs.o"
    p.write_bytes(bytes(data))
    return p, sec


def test_dump_text_shows_every_kind():
    rc, out, err = run_objllvm("dump", *(ELF / n for n in ("deplibs.o", "linker-options.o", "cg-profile-asm.o",
                                                            "sympart.o", "embed.o", "cg-profile-old.o")))
    assert rc == 0, err
    for word in ("deplibs", "linker-options", "addrsig", "cg-profile", "sympart", "llvmcmd", "pthread",
                 "/opt/vendor/lib", "libpart.so", "old_a (1)", "warm (2)"):
        assert word in out


def test_malformed_section_one_line_error_and_the_rest_dumped(tmp_path):
    p, sec = _corrupt_deplibs(tmp_path)
    rc, out, err = run_objllvm("dump", p, ELF / "linker-options.o")
    assert rc == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err
    line = lines[0]
    # the line names the file, the section (index and name), the offset of the string with no NUL, what was expected
    assert str(p) in line and f"section [{sec.index}] .deplibs" in line and "offset 0xa" in line
    assert "terminating NUL" in line
    assert "square" in out                    # .llvm_addrsig of the same file still dumped
    assert "/opt/vendor/lib" in out           # and the next file too


def test_json_schema(tmp_path):
    p, _ = _corrupt_deplibs(tmp_path)
    rc, out, _ = run_objllvm("dump", "--json", ELF / "libgnu.a", p)
    doc = json.loads(out)
    assert rc == 1
    assert doc["schema"] == "objllvm-dump" and doc["version"] == 1
    assert [f["member"] for f in doc["files"][:3]] == ["a-member-with-a-long-name-over-sixteen.o",
                                                         "linker-options.o", "cg-profile-asm.o"]
    for f in doc["files"]:
        assert set(f) == {"file", "member", "format", "type", "sections"}
        for s in f["sections"]:
            assert set(s) == {"index", "name", "type", "type_value", "size", "flags", "kind", "status",
                              "error", "warnings", "content"}
            assert s["status"] in ("decoded", "error", "undecoded", "unknown")
    bad = [s for f in doc["files"] for s in f["sections"] if s["status"] == "error"]
    assert len(bad) == 1 and bad[0]["content"] is None and doc["errors"] == [bad[0]["error"]]


def test_section_filter():
    rc, out, _ = run_objllvm("dump", "--json", "--section", "addrsig", ELF / "deplibs.o")
    kinds = {s["kind"] for f in json.loads(out)["files"] for s in f["sections"]}
    assert rc == 0 and kinds == {"addrsig"}


def test_sections_command():
    rc, out, _ = run_objllvm("sections", "--json", ELF / "unknown-types.o")
    secs = json.loads(out)["files"][0]["sections"]
    assert rc == 0
    assert [(s["name"], s["type"], s["codec"]) for s in secs] == [
        (".llvm.odrtab", "SHT_LLVM_ODRTAB", None), (".llvm.part.ehdr", "SHT_LLVM_PART_EHDR", None),
        (".llvm.future", "SHT_LLVM_UNKNOWN(0x6fff4c7f)", None), (".deplibs", "SHT_LLVM_DEPENDENT_LIBRARIES", "deplibs")]


def test_bad_inputs_exit_1_with_one_line(tmp_path):
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x7fELF\x02\x01" + b"\xff" * 20)
    for args in (["dump", junk], ["sections", junk], ["dump", TESTDATA / "src"]):
        rc, out, err = run_objllvm(*args)
        assert rc == 1, args
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


def test_input_path_that_does_not_exist_is_usage_exit_2(tmp_path):
    """The same failure, the same status in every command: a named input that does not exist is exit 2, one
    line naming the command and the path, nothing done (no output file, no manifest)."""
    missing = str(tmp_path / "missing.o")
    for args in (["dump", missing], ["sections", missing], ["dump", ELF / "deplibs.o", missing],
                 ["extract", missing, "-o", tmp_path / "x"], ["rewrite", missing, "-o", tmp_path / "r.o"],
                 ["audit", missing], ["perf-map", missing, "--perf-script", missing],
                 ["cfg", missing, "--function", "f", "-o", tmp_path / "c.dot"]):
        rc, out, err = run_objllvm(*args)
        assert rc == 2, (args, err)
        assert err.splitlines() == [f"objllvm: error: {args[0]}: {missing}: no such file or directory"] \
            * err.count(missing), err
        assert out == ""
    assert list(tmp_path.iterdir()) == []


def test_bad_usage_exits_2():
    rc, _, err = run_objllvm("dump", "--section", "no-such-kind", ELF / "deplibs.o")
    assert rc == 2 and "Traceback" not in err
    rc, _, err = run_objllvm("no-such-command")
    assert rc == 2


def test_internal_error_is_reported_briefly(monkeypatch, capsys):
    from objllvm import cli
    from objllvm.sections import registry
    codec = registry.get("deplibs")
    monkeypatch.setattr(codec, "decode", lambda data, ctx: 1 / 0)
    # an unexpected exception inside a codec is a bug: short report, exit 3, no traceback without --debug
    assert cli.main(["dump", str(ELF / "deplibs.o")]) == 3
    err = capsys.readouterr().err
    assert "internal error (ZeroDivisionError" in err and "--debug" in err and "Traceback" not in err


def test_importing_objllvm_is_cheap():
    code = ("import sys, objllvm; heavy = [m for m in ('lief', 'elftools', 'tabulate', 'objllvm.sections.registry', "
            "'objllvm.formats') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT).stdout
    assert out.strip() == "[]"


def test_version_alone_same_as_argparse(monkeypatch, capsys):
    """`objllvm --version` is printed without a parser: the same text and exit as argparse's version action
    (which wraps the line on a terminal narrower than it + 2 columns: then argparse still does it)."""
    import pytest

    from objllvm import cli
    for columns in ("80", "15", "14", "5", "0", "x"):
        monkeypatch.setenv("COLUMNS", columns)
        outs = []
        for fast in (True, False):
            if not fast:
                monkeypatch.setattr(cli, "_version_only", lambda argv: False)
            with pytest.raises(SystemExit) as exc:
                cli.main(["--version"])
            monkeypatch.undo()
            monkeypatch.setenv("COLUMNS", columns)
            outs.append((exc.value.code, capsys.readouterr()))
        assert outs[0] == outs[1], columns
    assert cli._version_only(["--version", "--debug"]) is False and cli._version_only(["--vers"]) is False
    mods = subprocess.run([sys.executable, "-c", "import sys; from objllvm import cli\ntry: cli.main(['--version'])\n"
                           "except SystemExit: pass\nprint(sorted(m for m in sys.modules if m in ('argparse', "
                           "'objllvm.commands', 'objllvm.sections.registry')))"], capture_output=True, text=True, cwd=ROOT)
    assert mods.stdout.splitlines()[-1] == "[]"


def test_module_lists_same_as_pkgutil():
    import pkgutil

    from objllvm import commands, sections
    from objllvm._modules import module_names
    for pkg in (sections, commands):
        want = sorted(m.name for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith("_"))
        assert module_names(pkg) == want and len(want) > 5


def test_help_same_as_with_argparse_formatter(monkeypatch):
    """The parsers format with argparse's HelpFormatter at the width shutil would give (found without shutil)."""
    import argparse

    from objllvm import cli
    ours_class = cli._parser_class()
    subs = lambda p: list(p._subparsers._group_actions[0].choices.values())   # noqa: E731
    for columns in ("200", "80", "41", "12", "0"):
        monkeypatch.setenv("COLUMNS", columns)
        for argv in (None, ["dump", "x"], ["rewrite", "x"], ["perf-map", "x"]):
            monkeypatch.setattr(cli, "_PARSER_CLASS", argparse.ArgumentParser)
            plain = cli.build_parser(argv)
            monkeypatch.setattr(cli, "_PARSER_CLASS", ours_class)
            ours = cli.build_parser(argv)
            assert type(ours) is ours_class and type(plain) is argparse.ArgumentParser
            assert [ours.format_help(), ours.format_usage()] == [plain.format_help(), plain.format_usage()]
            assert len(subs(ours)) == len(subs(plain)) >= 1
            for a, b in zip(subs(ours), subs(plain)):
                assert a.format_help() == b.format_help() and a.prog == b.prog
    assert cli._terminal_columns() > 0


def _objllvm_env(**extra):
    import os
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}       # stdout block-buffered
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def test_the_command_flushes_its_output_before_it_ends(tmp_path):
    """run() ends the process without the interpreter's teardown: the buffered output must be all there."""
    out = tmp_path / "out.txt"
    with open(out, "w") as f:
        p = subprocess.run([sys.executable, "-m", "objllvm", "dump", "--json", str(TESTDATA / "elf" / "deplibs.o")],
                           stdout=f, stderr=subprocess.PIPE, text=True, env=_objllvm_env())
    assert p.returncode == 0, p.stderr
    assert json.loads(out.read_text())["schema"] == "objllvm-dump"
    rc, stdout, _ = run_objllvm("dump", "--json", TESTDATA / "elf" / "deplibs.o")
    assert rc == 0 and stdout == out.read_text()


def test_output_that_cannot_be_written_is_an_error_not_silence():
    import os
    if not os.path.exists("/dev/full"):
        import pytest
        pytest.skip("no /dev/full on this system to make the final write fail")
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "objllvm", "sections", str(TESTDATA / "elf" / "deplibs.o")],
                           stdout=full, stderr=subprocess.PIPE, text=True, env=_objllvm_env())
    assert p.returncode == 1
    assert p.stderr.strip().splitlines() == ["objllvm: error: cannot write the output: No space left on device"]


def test_a_closed_pipe_ends_quietly():
    files = sorted(map(str, (TESTDATA / "bb-addr-map").glob("*.o")))
    p = subprocess.Popen([sys.executable, "-m", "objllvm", "dump", *files], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=_objllvm_env())
    p.stdout.readline()
    p.stdout.close()          # the reader goes away, as `| head -1` does
    err = p.stderr.read().decode()
    assert p.wait(timeout=60) == 0 and "Traceback" not in err and "Exception ignored" not in err, err


def test_unbuffered_output_that_cannot_be_written_is_an_error_not_a_bug_report():
    import os
    if not os.path.exists("/dev/full"):
        import pytest
        pytest.skip("no /dev/full on this system to make the write fail")
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "objllvm", "sections", str(TESTDATA / "elf" / "deplibs.o")],
                           stdout=full, stderr=subprocess.PIPE, text=True, env=_objllvm_env(PYTHONUNBUFFERED="1"))
    assert p.returncode == 1
    assert p.stderr.strip().splitlines() == ["objllvm: error: cannot write the output: No space left on device"]
