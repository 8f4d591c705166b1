"""dump goes on where llvm-readobj goes on; no empty or wrong result looks like success.

Every class of fault is tested on real malformed objects (testdata/malformed/, byte edits of real objects made
by scripts/make-malformed; testdata/lit/, LLVM's own lit inputs built by yaml2obj-22 in tests/test_lit_readobj.py)
and through real processes where the behaviour is the process's (exit status, closed stdout, SIGINT).
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT, TESTDATA, run_objllvm
from objllvm import api
from objllvm.errors import ObjllvmError

MAL = TESTDATA / "malformed"
ELF = TESTDATA / "elf"
BC = TESTDATA / "bitcode"


def _dump(path):
    (item,) = api.dump(str(path))
    assert not isinstance(item, ObjllvmError)
    return {d.section.name: d for d in item.sections}


# -- 2: an unresolvable symbol costs a name ------------------------------------------------------------------
def test_symbol_index_past_table_keeps_the_entry_json_null_name_and_index():
    rc, out, err = run_objllvm("dump", "--json", MAL / "addrsig-index-past-symtab.o")
    doc = json.loads(out)
    (sec,) = [s for f in doc["files"] for s in f["sections"] if s["kind"] == "addrsig"]
    assert sec["status"] == "decoded" and sec["error"] is None
    assert sec["content"]["symbols"] == [{"index": 3, "name": "square"}, {"index": 127, "name": None}]
    assert len(sec["warnings"]) == 1 and "section [10] .llvm_addrsig: offset 0x1" in sec["warnings"][0]
    assert doc["warnings"] == sec["warnings"] and doc["errors"] == []
    # llvm-readobj style: the warning on stderr, the dump on stdout, and exit 1 (a value was lost)
    assert rc == 1 and err.splitlines() == [f"objllvm: warning: {sec['warnings'][0]}"]


def test_text_shows_unknown_names_as_placeholder():
    rc, out, err = run_objllvm("dump", MAL / "cg-profile-old-index-past-symtab.o")
    assert rc == 1 and "<?> (4096)" in out and "old_a (1)" in out
    assert "warning at offset 0x14: entry 1: callee symbol index 4096" in out


def test_warning_names_the_section_being_decoded_not_symtab():
    for name in ("addrsig-index-past-symtab.o", "reloc-symbol-past-symtab.o", "rewrite-empty-section-past-end.o"):
        # (the last one's empty .symtab lies past the end of the file: its header is an error item of its own)
        (item,) = [i for i in api.dump(str(MAL / name)) if not isinstance(i, ObjllvmError)]
        for d in item.sections:
            for w in d.warnings:
                assert w.section_index == d.section.index and w.section_name == d.section.name
                assert ".symtab" not in str(w).split(": ")[1]


def test_name_offset_past_strtab_costs_only_that_name(tmp_path):
    """A symbol's st_name past .strtab: the symbol has no name (a warning of the codec naming it), every other
    symbol and every section decodes; llvm-readobj warns the same way and goes on."""
    from objllvm.formats import open_object
    src = ELF / "cg-profile-asm.o"
    obj = open_object(str(src))
    symtab = next(s for s in obj.sections if s.type == 2)
    k = next(s.index for s in obj.symbols if s.name == "cold")
    data = bytearray(src.read_bytes())
    data[symtab.offset + 24 * k:symtab.offset + 24 * k + 4] = (0x7FFFFF).to_bytes(4, "little")
    bad = tmp_path / "bad.o"
    bad.write_bytes(bytes(data))
    secs = _dump(bad)
    cg = secs[".llvm.call-graph-profile"]
    assert cg.status == "decoded"
    names = [(e.source.name, e.target.name) for e in cg.model.edges]
    assert names == [("hot", "warm"), ("warm", None), ("hot", "external_fn"), (None, "hot")]
    assert [w.offset for w in cg.warnings] == [8, 24] and all("past the end of the string table" in str(w)
                                                              for w in cg.warnings)
    rc, out, err = run_objllvm("dump", bad)
    assert rc == 1 and out.count("<?> (3)") == 2 and len(err.splitlines()) == 2
    readobj = shutil.which("llvm-readobj-22")
    if readobj:
        p = subprocess.run([readobj, "--cg-profile", str(bad)], capture_output=True, text=True)
        assert "warning" in p.stderr and "<?>" in p.stdout       # LLVM also warns and names it <?>


def test_unreadable_relocation_section_costs_the_pairs_not_the_section(tmp_path):
    """A relocation section whose size is not a multiple of its entry size: cg-profile keeps its weights."""
    from objllvm.formats import open_object
    src = ELF / "cg-profile-asm.o"
    obj = open_object(str(src))
    rel = next(s for s in obj.sections if s.name == ".rel.llvm.call-graph-profile")
    data = bytearray(src.read_bytes())
    shoff = int.from_bytes(data[0x28:0x30], "little")
    pos = shoff + 64 * rel.index + 32          # sh_size
    data[pos:pos + 8] = (rel.size - 3).to_bytes(8, "little")
    bad = tmp_path / "bad.o"
    bad.write_bytes(bytes(data))
    cg = _dump(bad)[".llvm.call-graph-profile"]
    assert cg.status == "decoded" and [e.weight for e in cg.model.edges] == [4000, 12, 987654321012, 1]
    assert all(e.source.index is None for e in cg.model.edges)
    (w,) = cg.warnings
    assert "the relocations cannot be read" in w.message and "not a multiple of the entry size" in w.message


# -- 3: partial results kept ---------------------------------------------------------------------------------
def test_cg_profile_count_mismatch_keeps_the_pairs_it_can_pair():
    cg = _dump(MAL / "cg-profile-reloc-mismatch.o")[".llvm.call-graph-profile"]
    assert cg.status == "decoded"
    assert [(e.source.name, e.target.name, e.weight) for e in cg.model.edges] == [
        ("hot", "warm", 4000), ("warm", "cold", 12), ("hot", "external_fn", 987654321012), (None, None, 1)]
    (w,) = cg.warnings
    assert w.offset == 0 and "3 edges paired" in w.message


# -- 4: no silent wrong answers ------------------------------------------------------------------------------
def test_bb_addr_map_address_without_relocation_is_an_error_there():
    bb = _dump(MAL / "bb-addr-map-reloc-missing.o")[".llvm_bb_addr_map"]
    assert bb.status == "error" and bb.error.offset == 0x75
    assert [f.name for f in bb.model.functions] == ["_start"]          # what decoded before is kept
    rc, out, err = run_objllvm("dump", MAL / "bb-addr-map-reloc-missing.o")
    assert rc == 1 and "_start" in out and "no relocation for the function address at offset 0x75" in err


def test_sympart_without_relocation_has_no_address_not_zero():
    (item,) = api.dump(str(MAL / "sympart-no-relocation.o"))
    first = next(d for d in item.sections if d.section.index == 4)
    assert first.model.address is None and first.model.symbol.index is None and first.warnings
    rc, out, _ = run_objllvm("dump", "--json", MAL / "sympart-no-relocation.o")
    doc = json.loads(out)
    assert rc == 1 and doc["files"][0]["sections"][0]["content"]["address"] is None


def test_mistyped_deplibs_is_reported_and_audit_does_not_count_it(tmp_path):
    d = _dump(MAL / "deplibs-progbits.o")[".deplibs"]
    assert d.mistyped and d.model.libraries == ["m", "pthread", "z with space"]
    assert "SHT_PROGBITS contradicts the name .deplibs" in str(d.warnings[0])
    rc, out, err = run_objllvm("audit", "--no-progress", "--json", MAL / "deplibs-progbits.o")
    doc = json.loads(out)
    assert rc == 0 and doc["libraries"] == []
    assert {f["rule"] for f in doc["findings"]} == {"mistyped-section"}
    pol = tmp_path / "p.toml"
    pol.write_text('[mistyped]\ncount = true\n[libraries]\ndeny = ["pthread"]\n')
    rc, out, err = run_objllvm("audit", "--no-progress", "--json", "--policy", pol, MAL / "deplibs-progbits.o")
    doc = json.loads(out)
    assert rc == 1 and [f["rule"] for f in doc["findings"]] == ["library-denied"]
    pol.write_text("[mistyped]\ncount = 1\n")
    rc, out, err = run_objllvm("audit", "--policy", pol, MAL / "deplibs-progbits.o")
    assert rc == 2 and "'mistyped.count' must be true or false" in err


def test_one_broken_section_dumps_everything_else_exit_1():
    """The issue's acceptance: a file with one broken section (the bb map without a relocation), every other
    LLVM section of the file dumped, exit status 1."""
    rc, out, err = run_objllvm("dump", "--json", MAL / "bb-addr-map-reloc-missing.o", ELF / "deplibs.o")
    doc = json.loads(out)
    assert rc == 1 and len(doc["errors"]) == 1
    assert [s["status"] for f in doc["files"] for s in f["sections"]] == ["error", "decoded", "decoded"]
    assert doc["files"][0]["sections"][0]["content"]["functions"][0]["name"] == "_start"


# -- 5 / 6: the command line ----------------------------------------------------------------------------------
def test_argument_errors_name_the_command_with_one_usage_line_and_a_hint():
    rc, out, err = run_objllvm("dump", "--sectoin", "addrsig", ELF / "deplibs.o")
    assert rc == 2 and out == ""
    assert err.splitlines() == [
        "usage: objllvm dump [options] FILE [FILE ...]  ('objllvm dump -h' for help)",
        "objllvm dump: error: unrecognized arguments: --sectoin (did you mean --section?)"]
    rc, _, err = run_objllvm("dupm", ELF / "deplibs.o")
    assert rc == 2 and err.splitlines()[-1].endswith("(did you mean 'dump'?)") and len(err.splitlines()) == 2
    rc, _, err = run_objllvm("dump", "-s", "addrsg", ELF / "deplibs.o")
    assert rc == 2 and err.splitlines()[-1].startswith("objllvm dump: error: argument --section/-s: invalid choice")
    assert err.splitlines()[-1].endswith("(did you mean 'addrsig'?)")
    rc, _, err = run_objllvm("audit", "--fail-on", "warn", ELF / "deplibs.o")
    assert rc == 2 and err.splitlines()[-1].startswith("objllvm audit: error:") and "'warning'" in err


def _env():
    return dict(os.environ, PYTHONPATH=str(ROOT))


@pytest.mark.parametrize("cmd", [["dump"], ["sections"], ["dump", "--json"]])
def test_closed_stdout_is_one_line(cmd):
    p = subprocess.run([sys.executable, "-m", "objllvm", *cmd, str(ELF / "deplibs.o")], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, env=_env(), cwd=ROOT,
                       preexec_fn=lambda: os.close(1))
    assert p.returncode == 1
    assert p.stderr.splitlines() == ["objllvm: error: cannot write the output: standard output is closed"]


def test_closed_stderr_and_stdout_no_crash():
    p = subprocess.run([sys.executable, "-m", "objllvm", "dump", str(MAL / "addrsig-index-past-symtab.o")],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env(), cwd=ROOT,
                       preexec_fn=lambda: (os.close(1), os.close(2)))
    assert p.returncode == 1


def test_rewrite_without_operation_says_it_copied(tmp_path):
    out = tmp_path / "copy.o"
    rc, text, err = run_objllvm("rewrite", ELF / "deplibs.o", "-o", out)
    assert rc == 0 and err == ""
    assert text.strip() == f"no operation given: {ELF / 'deplibs.o'} copied to {out} unchanged"
    assert out.read_bytes() == (ELF / "deplibs.o").read_bytes()
    rc, text, _ = run_objllvm("rewrite", ELF / "deplibs.o", "-o", tmp_path / "j.o", "--json")
    assert rc == 0 and json.loads(text)["unchanged"] is True
    rc, text, _ = run_objllvm("rewrite", ELF / "deplibs.o", "-o", tmp_path / "k.o", "--strip-llvm", "--json")
    assert rc == 0 and json.loads(text)["unchanged"] is False


def test_extract_writes_no_empty_file(tmp_path):
    """rustc's .llvmcmd is empty: listed as skipped, no zero-byte file."""
    out = tmp_path / "o"
    rc, text, err = run_objllvm("extract", BC / "libtinyrs.rlib", "-o", out)
    doc = json.loads((out / "manifest.json").read_text())
    assert rc == 0, err
    assert [p.stat().st_size for p in out.iterdir() if p.stat().st_size == 0] == []
    assert [s["section"] for s in doc["skipped"]] == [".llvmcmd"] and "empty" in doc["skipped"][0]["reason"]
    assert "empty: nothing to write" in text


def test_extract_refuses_an_earlier_manifest_by_name_then_merges_with_force(tmp_path):
    out = tmp_path / "o"
    rc, _, err = run_objllvm("extract", BC / "embed.o", "-o", out)
    assert rc == 0, err
    first = sorted(os.listdir(out))
    rc, _, err = run_objllvm("extract", BC / "omp.o", "-o", out)
    assert rc == 1 and "holds the manifest of an earlier extract (2 payloads)" in err and "--force" in err
    assert sorted(os.listdir(out)) == first
    rc, text, err = run_objllvm("extract", BC / "omp.o", "-o", out, "--force")
    assert rc == 0, err
    doc = json.loads((out / "manifest.json").read_text())
    listed = {p["path"] for p in doc["payloads"]}
    assert listed == set(os.listdir(out)) - {"manifest.json"} and set(first) - {"manifest.json"} <= listed
    assert doc["merged"] == 2 and "merged with 2 listed by the earlier manifest" in text


@pytest.mark.parametrize("text", [b"{not json", b"\xff\xfe garbage", b'{"schema": "other", "payloads": []}',
                                  b"[1, 2]", b'{"schema": "objllvm-extract", "payloads": []} trailing',
                                  b"[" * 200000],
                         ids=["bad-json", "not-utf8", "other-schema", "a-list", "trailing", "too-deep"])
def test_extract_refuses_a_manifest_it_cannot_read(tmp_path, text):
    """A manifest.json in the way that is not an extract's manifest (bad JSON, not UTF-8, another
    document, nested too deep): one line naming it, nothing written, even with --force."""
    out = tmp_path / "o"
    out.mkdir()
    (out / "manifest.json").write_bytes(text)
    rc, _, err = run_objllvm("extract", BC / "embed.o", "-o", out, "--force")
    assert rc == 1 and "exists but is not an objllvm extract manifest" in err and "Traceback" not in err, err
    assert os.listdir(out) == ["manifest.json"] and (out / "manifest.json").read_bytes() == text


def test_extract_reads_an_earlier_manifest_with_a_bom(tmp_path):
    """An earlier manifest saved by an editor with a UTF-8 byte order mark is still read (as json.loads of
    the bytes reads it) and merged."""
    out = tmp_path / "o"
    rc, _, err = run_objllvm("extract", BC / "embed.o", "-o", out)
    assert rc == 0, err
    m = out / "manifest.json"
    m.write_bytes(b"\xef\xbb\xbf" + m.read_bytes())
    assert json.loads(m.read_bytes())["schema"] == "objllvm-extract"
    rc, text, err = run_objllvm("extract", BC / "omp.o", "-o", out, "--force")
    assert rc == 0 and json.loads(m.read_text())["merged"] == 2, err


def test_extract_failed_run_leaves_nothing(tmp_path):
    out = tmp_path / "o"
    rc, text, err = run_objllvm("extract", MAL / "not-an-object.bin", "-o", out)
    assert rc == 1 and "nothing written" in text and not out.exists()


def test_interrupting_a_parallel_audit_stops_within_a_second(tmp_path):
    """A real process, a real SIGINT: every scan slowed to 50 ms a file (workers forked from the patched
    parent, started at once), 400 files over 2 workers (10 s of work); the interrupt ends it in under a
    second, one line."""
    tree = tmp_path / "tree"
    tree.mkdir()
    for i in range(400):
        shutil.copy(ELF / "deplibs.o", tree / f"f{i}.o")
    code = ("import sys, time\nimport objllvm.audit\nfrom objllvm.audit import scan\nreal = scan.scan_file\n"
            "objllvm.audit.SERIAL_SECONDS = 0\n"
            "def slow(p):\n    time.sleep(0.05)\n    return real(p)\n"
            "scan.scan_file = slow\nfrom objllvm import cli\nsys.exit(cli.main(sys.argv[1:]))\n")
    p = subprocess.Popen([sys.executable, "-c", code, "audit", "--no-progress", "-j", "2", str(tree)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(), cwd=ROOT)
    time.sleep(1.5)
    assert p.poll() is None, "the audit ended before the interrupt: make it longer"
    t = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=30)
    took = time.monotonic() - t
    assert p.returncode == 130 and err.splitlines() == ["objllvm: error: interrupted"], err
    assert took < 1.0, f"{took:.2f} s after SIGINT"


def test_bb_addr_map_function_whose_symbol_name_is_unreadable(tmp_path):
    """The symbol naming a mapped function has st_name past .strtab: that function has no name (a warning
    naming the bb-addr-map section), every other function keeps its name."""
    from objllvm.formats import open_object
    src = TESTDATA / "bb-addr-map" / "clang19-labels.exe"
    obj = open_object(str(src))
    symtab = next(s for s in obj.sections if s.type == 2)
    k = next(s.index for s in obj.symbols if s.name == "main" and s.type == 2)
    data = bytearray(src.read_bytes())
    data[symtab.offset + 24 * k:symtab.offset + 24 * k + 4] = (0x7FFFFFF).to_bytes(4, "little")
    bad = tmp_path / "bad.exe"
    bad.write_bytes(bytes(data))
    good = [f.name for d in _dump(src).values() if d.codec.kind == "bb-addr-map" for f in d.model.functions]
    (bb,) = [d for d in _dump(bad).values() if d.codec.kind == "bb-addr-map"]
    assert bb.status == "decoded"
    assert [f.name for f in bb.model.functions] == [None if n == "main" else n for n in good]
    (w,) = bb.warnings
    assert f"symbol {k} cannot be named" in w.message and w.section_name == ".llvm_bb_addr_map"


def test_audit_that_read_no_object_is_not_success(tmp_path):
    (tmp_path / "notes.txt").write_text("not an object\n")
    rc, out, err = run_objllvm("audit", "--no-progress", tmp_path)
    assert rc == 1 and "0 objects" in out
    assert err.splitlines() == ["objllvm: warning: audit: no object file or archive among the 1 file(s) found: "
                                "nothing was audited"]
    rc, out, err = run_objllvm("audit", "--no-progress", tmp_path / "nothing-here")
    assert rc == 2 and err.splitlines() == [f"objllvm: error: audit: {tmp_path / 'nothing-here'}: no such file or "
                                            "directory"] and out == ""


def test_symbol_namer_is_the_shared_mechanism():
    """What a codec (jump tables too) gets from SymbolNamer: a reference per index, warnings on the context."""
    from objllvm.formats.base import Relocation, Symbol
    from objllvm.sections.registry import SectionContext
    from objllvm.sections.support.symbols import SymbolNamer, SymbolRef
    syms = [Symbol(0, "", 0), Symbol(1, "f", 0x10, 4, 2)]
    ctx = SectionContext(symbols=syms)
    n = SymbolNamer(ctx)
    assert n.ref(1, 0) == SymbolRef(1, "f") and not ctx.warnings
    assert n.ref(5, 8, "target") == SymbolRef(5, None)
    assert n.reloc_ref(Relocation(0, 1, 1, 0, syms[1]), 0) == SymbolRef(1, "f")
    assert n.reloc_ref(Relocation(4, 1, 0, 0, None), 4) == SymbolRef(0, "")          # the null symbol
    assert n.reloc_ref(Relocation(8, 1, 9, 0, None), 16) == SymbolRef(9, None)
    assert [(w.offset, w.message) for w in ctx.warnings] == [
        (8, "target index 5 is past the end of the symbol table (2 symbols)"),
        (16, "symbol index 9 of the relocation at 0x8 is past the end of its symbol table")]
    empty = SectionContext()
    assert SymbolNamer(empty).ref(3, 0) == SymbolRef(3, None)
    assert [w.message for w in empty.warnings] == ["symbol index 3: there is no symbol table"]
    assert SymbolRef(3, None).text() == "<?> (3)" and SymbolRef(None, None).text() == "?"
