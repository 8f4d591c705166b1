"""objllvm rewrite: every operation on real objects (clang-19, llc-19, lld-19 outputs), checked three ways:
objllvm reads the output back, llvm-readobj-19 sees the same sections/symbols/relocations as in the input
except what the operation changes, and rewritten relocatable objects link with ld.lld-19 into a program that
runs and prints what the unmodified program prints."""
from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys

import pytest

from conftest import ROOT, TESTDATA, need_tool, run_objllvm
from objllvm import api
from objllvm import rewrite as rw
from objllvm.formats import open_object
from objllvm.errors import ObjllvmError, UsageError
from test_rewrite_support import (RW, assert_same_except, expected_output, link, link_and_run, objs_with,
                                  readobj, section)

ELF = TESTDATA / "elf"


def model(path, kind):
    (m,) = api.decode(str(path), kind)
    return m


def functions(path):
    return [f for m in api.decode(str(path), "bb-addr-map") for f in m.functions]


def do(tmp_path, name, *ops, src=None):
    src = src or RW / name
    out = tmp_path / ("rw-" + os.path.basename(str(src)))
    res = rw.rewrite_file(str(src), str(out), list(ops))
    assert res.written and out.exists()
    return out, res


# -- dependent libraries -------------------------------------------------------------------------------
def test_drop_deplib_then_link_fails_without_libm_and_add_deplib_elsewhere_restores_it(tmp_path):
    want = expected_output(tmp_path)
    main2, res = do(tmp_path, "main.o", rw.DropDeplib("m"))
    assert model(main2, "deplibs").libraries == []
    assert [(c.name, c.action) for c in res.changes] == [(".deplibs", "resized")]
    assert_same_except(readobj(RW / "main.o"), readobj(main2), resized={".deplibs"})
    # lld honours .deplibs: without it, sqrt is undefined ...
    p = link(objs_with({"main.o": main2}), tmp_path / "nolibm")
    assert p.returncode != 0 and "sqrt" in p.stderr
    # ... and a .deplibs section added to another object (it has none) brings libm back.
    lo2, res = do(tmp_path, "linkopt.o", rw.AddDeplib("m"))
    assert [(c.name, c.action) for c in res.changes] == [(".strtab", "resized"), (".deplibs", "added")]
    assert model(lo2, "deplibs").libraries == ["m"]
    after = readobj(lo2)
    assert section(after, ".deplibs")["type"] == "SHT_LLVM_DEPENDENT_LIBRARIES"
    before = readobj(RW / "linkopt.o")
    after["sections"] = [s for s in after["sections"] if s["name"] != ".deplibs"]
    assert_same_except(before, after, resized={".strtab"})
    assert link_and_run(objs_with({"main.o": main2, "linkopt.o": lo2}), tmp_path / "p") == want


def test_deplib_glob_and_32bit_big_endian(tmp_path):
    for name in ("portable-i386.o", "portable-ppc64be.o"):
        src = ELF / name
        libs = model(src, "deplibs").libraries
        assert libs
        out, _ = do(tmp_path, None, rw.DropDeplib(libs[0][:1] + "*"), rw.AddDeplib("extra"), src=src)
        assert model(out, "deplibs").libraries == [x for x in libs if not x.startswith(libs[0][:1])] + ["extra"]
        assert_same_except(readobj(src), readobj(out), resized={".deplibs"})


# -- linker options ----------------------------------------------------------------------------------------
def test_linker_options_drop_and_add(tmp_path):
    want = expected_output(tmp_path)
    before = model(RW / "linkopt.o", "linker-options").options
    assert ("objllvm-note", "rewrite test") in [(o.key, o.value) for o in before]
    out, _ = do(tmp_path, "linkopt.o", rw.DropLinkerOption("objllvm-note=*"), rw.AddLinkerOption("lib=z"))
    got = [(o.key, o.value) for o in model(out, "linker-options").options]
    assert got == [(o.key, o.value) for o in before if o.key != "objllvm-note"] + [("lib", "z")]
    assert_same_except(readobj(RW / "linkopt.o"), readobj(out), resized={".linker-options"})
    ro = subprocess.run([need_tool("llvm-readobj-19"), "--elf-linker-options", str(out)], capture_output=True,
                        text=True).stdout
    assert "objllvm-note" not in ro and "lib: m" in ro and "lib: z" in ro
    assert link_and_run(objs_with({"linkopt.o": out}), tmp_path / "p") == want


def test_add_linker_option_compressed_input(tmp_path):
    # A zstd-compressed .linker-options: decoded through the container, written back uncompressed.
    src = ELF / "linker-options-zstd.o"
    out, _ = do(tmp_path, None, rw.AddLinkerOption("lib=extra"), src=src)
    opts = model(out, "linker-options").options
    assert opts[-1].key == "lib" and opts[-1].value == "extra"
    assert [(o.key, o.value) for o in opts[:-1]] == [(o.key, o.value) for o in model(src, "linker-options").options]
    s = section(readobj(out), ".linker-options")
    assert not s["flags"] & 0x800


# -- address significance ----------------------------------------------------------------------------------
def test_drop_addrsig_links_with_safe_icf(tmp_path):
    want = expected_output(tmp_path)
    assert model(RW / "main.o", "addrsig").symbols
    out, _ = do(tmp_path, "main.o", rw.DropAddrsig())
    assert api.decode(str(out), "addrsig") == []
    assert_same_except(readobj(RW / "main.o"), readobj(out), removed={".llvm_addrsig"})
    assert link_and_run(objs_with({"main.o": out}), tmp_path / "p", "-Wl,--icf=safe") == want


# -- call-graph profile ------------------------------------------------------------------------------------
def test_drop_cg_edge_rewrites_relocation_pairs(tmp_path):
    want = expected_output(tmp_path)
    src = RW / "main.o"
    edges = model(src, "cg-profile").edges
    assert len(edges) >= 3
    victim = edges[1]
    out, res = do(tmp_path, "main.o", rw.DropCGEdge(f"{victim.source.name}:{victim.target.name}"))
    got = model(out, "cg-profile").edges
    assert [(e.source.name, e.target.name, e.weight) for e in got] == \
        [(e.source.name, e.target.name, e.weight) for e in edges if e is not victim]
    # LLVM reads the same edges from the rewritten weights + R_X86_64_NONE pairs.
    ro = readobj(out, "--cg-profile")
    cg = ro["raw"]["CGProfile"]
    cg = [x["CGProfileEntry"] for x in cg]
    assert [(x["From"]["Name"], x["To"]["Name"], x["Weight"]) for x in cg] == \
        [(e.source.name, e.target.name, e.weight) for e in got]
    assert_same_except(readobj(src), ro, resized={".llvm.call-graph-profile", ".rel.llvm.call-graph-profile"},
                       relocs_changed={".rel.llvm.call-graph-profile"})
    assert {c.name for c in res.changes} == {".llvm.call-graph-profile", ".rel.llvm.call-graph-profile"}
    # lld uses the profile (--call-graph-profile-sort is on by default) and the program still runs.
    assert link_and_run(objs_with({"main.o": out}), tmp_path / "p") == want


def test_scale_cg_weights(tmp_path):
    src = RW / "main.o"
    edges = model(src, "cg-profile").edges
    out, _ = do(tmp_path, "main.o", rw.ScaleCGWeights("0.5"))
    assert [e.weight for e in model(out, "cg-profile").edges] == [int(round(e.weight * 0.5)) for e in edges]
    assert_same_except(readobj(src), readobj(out))


@pytest.mark.parametrize("name", ["cg-profile-i386.o", "cg-profile-ppc64be.o", "cg-profile-old.o",
                                  "cg-profile-ld-r.o"])
def test_drop_cg_edge_32bit_big_endian_old_layout(tmp_path, name):
    src = ELF / name
    edges = model(src, "cg-profile").edges
    e0 = edges[0]
    out, _ = do(tmp_path, None, rw.DropCGEdge(f"{e0.source.name}:{e0.target.name}"), src=src)
    got = model(out, "cg-profile").edges
    want = [e for e in edges if not (e.source.name == e0.source.name and e.target.name == e0.target.name)]
    assert [(e.source.name, e.target.name, e.weight) for e in got] == \
        [(e.source.name, e.target.name, e.weight) for e in want]
    before, after = readobj(src), readobj(out)
    rel = [s["name"] for s in before["sections"] if s["info"] == ".llvm.call-graph-profile"]
    assert_same_except(before, after, resized={".llvm.call-graph-profile", *rel}, relocs_changed=set(rel))


# -- bitcode -----------------------------------------------------------------------------------------------
def test_strip_bitcode_matches_objcopy_and_links(tmp_path):
    want = expected_output(tmp_path)
    objcopy = need_tool("llvm-objcopy-19")
    h2, res = do(tmp_path, "helper.o", rw.StripBitcode())
    assert {c.name for c in res.changes if c.action == "removed"} == {".llvmbc", ".llvmcmd"}
    l2, _ = do(tmp_path, "lto.o", rw.StripBitcode())
    for src, out, names in ((RW / "helper.o", h2, [".llvmbc", ".llvmcmd"]), (RW / "lto.o", l2, [".llvm.lto"])):
        assert_same_except(readobj(src), readobj(out), removed=set(names))
        ref = tmp_path / ("objcopy-" + src.name)
        subprocess.run([objcopy, *[f"--remove-section={n}" for n in names], str(src), str(ref)], check=True)
        assert _sections_and_contents(out) == _sections_and_contents(ref)
    assert link_and_run(objs_with({"helper.o": h2, "lto.o": l2}), tmp_path / "p") == want


def _sections_and_contents(path):
    """Sections (name, type, flags, size, bytes) and symbols, as llvm-objcopy-19 output can be compared with
    ours: objcopy rebuilds string tables (so their bytes, and the symbol table's name offsets, differ)."""
    o = open_object(str(path))
    secs = [(s.name, s.type, s.flags) + ((s.size, s.data()) if s.type not in (2, 3) else ()) for s in o.sections]
    syms = [(x.name, x.value, x.size, x.type, x.bind, x.other, x.shndx) for x in o.symbols]
    return secs, syms


def test_replace_bitcode_matches_objcopy_update_section(tmp_path):
    want = expected_output(tmp_path)
    new = RW / "replacement.bc"
    out, res = do(tmp_path, "helper.o", rw.ReplaceBitcode(str(new)))
    assert open_object(str(out)).section_by_name(".llvmbc").data() == new.read_bytes()
    ref = tmp_path / "objcopy.o"
    subprocess.run([need_tool("llvm-objcopy-19"), f"--update-section=.llvmbc={new}", str(RW / "helper.o"),
                    str(ref)], check=True)
    assert _sections_and_contents(out) == _sections_and_contents(ref)
    assert_same_except(readobj(RW / "helper.o"), readobj(out), resized={".llvmbc"})
    assert link_and_run(objs_with({"helper.o": out}), tmp_path / "p") == want
    # llvm-bcanalyzer-19 reads what objllvm put there.
    dumped = tmp_path / "bc"
    subprocess.run([need_tool("llvm-objcopy-19"), f"--dump-section=.llvmbc={dumped}", str(out)], check=True)
    assert subprocess.run([need_tool("llvm-bcanalyzer-19"), str(dumped)], capture_output=True).returncode == 0


# -- basic-block address maps --------------------------------------------------------------------------------
def _bb_readobj(path):
    p = subprocess.run([need_tool("llvm-readobj-19"), "--elf-output-style=JSON", "--bb-addr-map", str(path)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)[0]["BBAddrMap"]


@pytest.mark.parametrize("src", [RW / "bbmap.o", RW / "prog.exe", TESTDATA / "bb-addr-map/clang19-pgo-static.o",
                                 TESTDATA / "bb-addr-map/clang19-pgo-profile-fs.o"], ids=lambda p: p.name)
def test_strip_pgo_analysis(tmp_path, src):
    out, _ = do(tmp_path, None, rw.StripPGOAnalysis(), src=src)
    assert functions(out)
    for fn in functions(out):
        assert fn.entry_count is None and not fn.pgo_blocks and not fn.feature & 0x87
    # LLVM sees the same functions (addresses resolved through the moved relocations) and blocks, no PGO.
    a, b = _bb_readobj(src), _bb_readobj(out)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        fx, fy = x["Function"], y["Function"]
        assert fx["At"] == fy["At"] and fx["Name"] == fy["Name"] and fx["BB Ranges"] == fy["BB Ranges"]
        assert "PGO analyses" in fx and "PGO analyses" not in fy
    names = {s["name"] for s in readobj(src)["sections"] if "bb_addr_map" in s["name"]}
    assert_same_except(readobj(src), readobj(out), resized=names, relocs_changed={".rela.llvm_bb_addr_map"})


def test_strip_pgo_analysis_links_and_runs(tmp_path):
    want = expected_output(tmp_path)
    out, _ = do(tmp_path, "bbmap.o", rw.StripPGOAnalysis())
    assert link_and_run(objs_with({"bbmap.o": out}), tmp_path / "p") == want
    exe, _ = do(tmp_path, "prog.exe", rw.StripPGOAnalysis())
    assert subprocess.run([str(exe), "500"], capture_output=True, text=True).stdout == want


def test_remove_group_member(tmp_path):
    """The COMDAT group of an inline function holds its bb-addr-map: removing the map updates the group."""
    want = expected_output(tmp_path)
    src = RW / "bbmap.o"
    out, _ = do(tmp_path, "bbmap.o", rw.Remove("bb-addr-map"))
    groups = {}
    for path in (src, out):
        p = subprocess.run([need_tool("llvm-readobj-19"), "--elf-output-style=JSON", "--section-groups", str(path)],
                           capture_output=True, text=True, check=True)
        gs = json.loads(p.stdout)[0]["Groups"]
        groups[path] = [[m["Name"] for m in g["Group"]["GroupSections"]] for g in (gs if isinstance(gs, list) else [gs])]
    gsrc = [g for g in groups[src] if ".llvm_bb_addr_map" in g]
    assert gsrc, groups[src]
    assert [g for g in groups[out] if g[0] == gsrc[0][0]] == \
        [[m for m in gsrc[0] if m not in (".llvm_bb_addr_map", ".rela.llvm_bb_addr_map")]]
    before = readobj(src)
    grp = {s["name"] for s in before["sections"] if s["type"] == "SHT_GROUP"}
    assert_same_except(before, readobj(out), removed={".llvm_bb_addr_map", ".rela.llvm_bb_addr_map"},
                       resized=grp)
    assert api.decode(str(out), "bb-addr-map") == []
    assert link_and_run(objs_with({"bbmap.o": out}), tmp_path / "p") == want


# -- generic: remove, strip-llvm, set-section ------------------------------------------------------------------
def test_strip_llvm_objects_link_and_run(tmp_path):
    want = expected_output(tmp_path)
    repl = {}
    for name in ("main.o", "helper.o", "lto.o", "bbmap.o", "linkopt.o"):
        out, res = do(tmp_path, name, rw.StripLLVM())
        repl[name] = out
        assert res.changes
        assert api.llvm_sections(open_object(str(out))) == []
        removed = {c.name for c in res.changes if c.action == "removed"}
        assert_same_except(readobj(RW / name), readobj(out), removed=removed,
                           resized={s["name"] for s in readobj(RW / name)["sections"] if s["type"] == "SHT_GROUP"})
    # Without .deplibs, libm must now be named on the command line.
    assert link_and_run(objs_with(repl), tmp_path / "p", "-lm") == want


@pytest.mark.parametrize("name", ["prog.exe", "prog.pie"])
def test_strip_llvm_executables_run(tmp_path, name):
    want = expected_output(tmp_path)
    out, res = do(tmp_path, name, rw.StripLLVM())
    assert {c.name for c in res.changes if c.action == "removed"} == {".llvmbc", ".llvmcmd", ".llvm_bb_addr_map"}
    ref = tmp_path / "objcopy"
    subprocess.run([need_tool("llvm-objcopy-19"), *[f"--remove-section={c.name}" for c in res.changes
                                                    if c.action == "removed"],
                    str(RW / name), str(ref)], check=True)
    assert _sections_and_contents(out) == _sections_and_contents(ref)
    assert_same_except(readobj(RW / name), readobj(out), removed={c.name for c in res.changes
                                                                  if c.action == "removed"})
    assert out.stat().st_size < (RW / name).stat().st_size
    os.chmod(out, 0o755)
    assert subprocess.run([str(out), "500"], capture_output=True, text=True).stdout == want
    # Program headers and every allocated byte are where they were.
    a, b = open_object(str(RW / name)), open_object(str(out))
    assert a.segments == b.segments
    for s in a.sections:
        if s.flags & 2 and s.type != 8:
            t = b.section_by_name(s.name)
            assert (t.offset, t.size) == (s.offset, s.size) and b.data[t.offset:t.offset + t.size] == s.data()


def test_strip_llvm_shared_object_links_and_runs(tmp_path):
    want = expected_output(tmp_path)
    out, _ = do(tmp_path, "libbb.so", rw.StripLLVM())
    lib = tmp_path / "lib" / "libbb.so"
    lib.parent.mkdir()
    shutil.copy(out, lib)
    assert api.llvm_sections(open_object(str(lib))) == []
    out2 = link_and_run([RW / "main.o", RW / "linkopt.o", lib], tmp_path / "p", f"-Wl,-rpath,{lib.parent}")
    assert out2 == want


def test_remove_by_name_and_kind_match_objcopy(tmp_path):
    objcopy = need_tool("llvm-objcopy-19")
    for name, what, removed in (("main.o", ".llvm.call-graph-profile", {".llvm.call-graph-profile",
                                                                        ".rel.llvm.call-graph-profile"}),
                                ("main.o", "deplibs", {".deplibs"}),
                                ("prog.pie", "bb-addr-map", {".llvm_bb_addr_map"})):
        out, res = do(tmp_path, name, rw.Remove(what))
        assert {c.name for c in res.changes if c.action == "removed"} == removed
        ref = tmp_path / ("ref-" + name)
        subprocess.run([objcopy, *[f"--remove-section={n}" for n in removed], str(RW / name), str(ref)],
                       check=True)
        assert _sections_and_contents(out) == _sections_and_contents(ref)
        assert_same_except(readobj(RW / name), readobj(out), removed=removed)


def test_set_section_from_dump_json(tmp_path):
    want = expected_output(tmp_path)
    # The whole dump document, edited: drop a dependent library ... and drop call-graph edges.
    code, js, err = run_objllvm("dump", "--json", "-s", "deplibs", RW / "main.o")
    assert code == 0, err
    doc = json.loads(js)
    doc["files"][0]["sections"][0]["content"]["libraries"] = ["m", "c"]
    (tmp_path / "deplibs.json").write_text(json.dumps(doc))
    code, js, err = run_objllvm("dump", "--json", "-s", "cg-profile", RW / "main.o")
    content = json.loads(js)["files"][0]["sections"][0]["content"]
    kept = content["edges"][::2]
    content["edges"] = kept
    (tmp_path / "cg.json").write_text(json.dumps(content))
    out, res = do(tmp_path, "main.o", rw.SetSection(f"deplibs={tmp_path / 'deplibs.json'}"),
                  rw.SetSection(f"cg-profile={tmp_path / 'cg.json'}"))
    assert model(out, "deplibs").libraries == ["m", "c"]
    assert [(e.source.name, e.target.name, e.weight) for e in model(out, "cg-profile").edges] == \
        [(e["from"]["name"], e["to"]["name"], e["weight"]) for e in kept]
    ro = readobj(out, "--cg-profile")
    assert len(ro["raw"]["CGProfile"]) == len(kept)
    assert_same_except(readobj(RW / "main.o"), ro, resized={".deplibs", ".llvm.call-graph-profile",
                                                            ".rel.llvm.call-graph-profile"},
                       relocs_changed={".rel.llvm.call-graph-profile"})
    assert link_and_run(objs_with({"main.o": out}), tmp_path / "p") == want
    # The same bytes as llvm-objcopy-19 --update-section with the encoded contents.
    new = open_object(str(out)).section_by_name(".deplibs").data()
    (tmp_path / "deplibs.bin").write_bytes(new)
    ref = tmp_path / "ref.o"
    subprocess.run([need_tool("llvm-objcopy-19"), f"--update-section=.deplibs={tmp_path / 'deplibs.bin'}",
                    str(RW / "main.o"), str(ref)], check=True)
    assert open_object(str(ref)).section_by_name(".deplibs").data() == new


def test_set_section_addrsig_by_name(tmp_path):
    src = RW / "main.o"
    syms = open_object(str(src)).symbols
    name = next(s.name for s in syms if s.name == "work")
    p = tmp_path / "a.json"
    p.write_text(json.dumps({"symbols": [{"name": name}]}))
    out, _ = do(tmp_path, "main.o", rw.SetSection(f"addrsig={p}"))
    assert [s.name for s in model(out, "addrsig").symbols] == [name]
    # (llvm-readobj-19 prints invalid JSON for --addrsig: read its text output)
    ro = subprocess.run([need_tool("llvm-readobj-19"), "--addrsig", str(out)], capture_output=True, text=True,
                        check=True).stdout
    assert ro.split("Addrsig [", 1)[1].split()[:2] == ["Sym:", name]


# -- errors: clear message, exit status 1, nothing written, input untouched --------------------------------------
def _snapshot(d):
    return sorted((p.name, p.stat().st_mtime_ns, p.read_bytes()) for p in d.iterdir())


@pytest.mark.parametrize("args,needle", [
    (["--remove", ".no-such-section"], "no '.no-such-section' section"),
    (["--drop-addrsig"], "no 'addrsig' section"),
    (["--strip-bitcode"], "no embedded bitcode"),
    (["--drop-deplib", "nothing*"], "no dependent library matches"),
    (["--drop-cg-edge", "nobody:*"], "no call-graph edge matches"),
    (["--replace-bitcode", str(RW / "not-bitcode.bin")], "not LLVM bitcode"),
    (["--set-section", "deplibs=BADKEY"], "missing key 'libraries'"),
    (["--set-section", "deplibs=NOTJSON"], "not JSON"),
    (["--set-section", "cg-profile=BADTYPE"], "does not match the cg-profile schema"),
    (["--remove", ".symtab"], "would be removed"),
    (["--remove", ".text.hot._Z4stepi"], "would be removed"),
])
def test_errors_write_nothing(tmp_path, args, needle):
    work = tmp_path / "w"
    work.mkdir()
    src = "bbmap.o" if ".text.hot._Z4stepi" in args else ("linkopt.o" if "--drop-addrsig" in args or
                                                             "--strip-bitcode" in args else "main.o")
    shutil.copy(RW / src, work / "in.o")
    shutil.copy(RW / "helper.o", work / "h.o")
    (tmp_path / "bad.json").write_text(json.dumps({"libs": ["m"]}))
    (tmp_path / "not.json").write_text("{not json")
    (tmp_path / "badtype.json").write_text(json.dumps({"edges": [{"from": 1, "to": 2, "weight": "x"}]}))
    args = [a.replace("BADKEY", str(tmp_path / "bad.json")).replace("NOTJSON", str(tmp_path / "not.json"))
            .replace("BADTYPE", str(tmp_path / "badtype.json")) for a in args]
    target = "h.o" if "--replace-bitcode" in args else "in.o"
    before = _snapshot(work)
    code, out, err = run_objllvm("rewrite", work / target, "-o", work / "out.o", *args)
    assert code == 1, (code, err)
    assert needle in err and "Traceback" not in err and err.count("\n") == 1, err
    assert _snapshot(work) == before        # input untouched, no output, no temporary file


def test_schema_errors_name_the_key(tmp_path):
    p = tmp_path / "lo.json"
    for doc, needle in (({"options": [{"key": "lib"}]}, "missing key 'value'"),
                        ({"options": "lib=z"}, "does not match the linker-options schema"),
                        (["not", "an", "object"], "expected a JSON object")):
        p.write_text(json.dumps(doc))
        with pytest.raises(ObjllvmError) as e:
            rw.rewrite_file(str(RW / "linkopt.o"), str(tmp_path / "o.o"), [rw.SetSection(f"linker-options={p}")])
        assert needle in str(e.value) and str(p) in str(e.value)
        assert not (tmp_path / "o.o").exists()
    with pytest.raises(ObjllvmError, match="not JSON"):
        rw.rewrite_file(str(RW / "linkopt.o"), None, [rw.SetSection("linker-options=/dev/null")], dry_run=True)


def test_archives_refused(tmp_path):
    code, out, err = run_objllvm("rewrite", ELF / "libgnu.a", "-o", tmp_path / "x.a", "--strip-llvm")
    assert code == 1 and "archives cannot be rewritten" in err
    assert not (tmp_path / "x.a").exists()


def test_usage_errors(tmp_path):
    code, _, err = run_objllvm("rewrite", RW / "main.o", "--strip-llvm")
    assert code == 2 and "no output file" in err
    shutil.copy(RW / "main.o", tmp_path / "a.o")
    code, _, err = run_objllvm("rewrite", tmp_path / "a.o", "-o", tmp_path / "a.o", "--strip-llvm")
    assert code == 2 and "--in-place" in err
    with pytest.raises(UsageError):
        rw.DropCGEdge("no-colon")


# -- safety: in-place, permissions, dry run, failed writes --------------------------------------------------------
def test_in_place_keeps_permissions(tmp_path):
    p = tmp_path / "prog"
    shutil.copy(RW / "prog.exe", p)
    os.chmod(p, 0o750)
    code, out, err = run_objllvm("rewrite", p, "--in-place", "--strip-bitcode")
    assert code == 0, err
    assert stat.S_IMODE(p.stat().st_mode) == 0o750
    assert open_object(str(p)).section_by_name(".llvmbc") is None
    assert sorted(x.name for x in tmp_path.iterdir()) == ["prog"]
    # -o keeps the input's permissions too, and leaves the input alone.
    code, out, err = run_objllvm("rewrite", p, "-o", tmp_path / "q", "--remove", "bb-addr-map")
    assert code == 0 and stat.S_IMODE((tmp_path / "q").stat().st_mode) == 0o750


def test_dry_run_prints_changes_writes_nothing(tmp_path):
    shutil.copy(RW / "main.o", tmp_path / "m.o")
    before = _snapshot(tmp_path)
    code, out, err = run_objllvm("rewrite", tmp_path / "m.o", "-o", tmp_path / "o.o", "--dry-run",
                                 "--drop-deplib", "m", "--drop-addrsig", "--scale-cg-weights", "2")
    assert code == 0, err
    assert _snapshot(tmp_path) == before
    assert ".llvm_addrsig" in out and "removed" in out and ".deplibs" in out and "resized" in out
    assert '-libraries[]: "m"' in out
    w = model(RW / "main.o", "cg-profile").edges[0].weight
    assert f'"weight":{w}' in out and f'"weight":{2 * w}' in out
    code, js, err = run_objllvm("rewrite", tmp_path / "m.o", "--dry-run", "--json", "--drop-addrsig")
    doc = json.loads(js)
    assert doc["written"] is False and [c["name"] for c in doc["changes"]] == [".llvm_addrsig"]


def test_failed_write_leaves_nothing(tmp_path):
    # The output path is an existing directory: the rename fails after the temporary file was written.
    (tmp_path / "out").mkdir()
    code, out, err = run_objllvm("rewrite", RW / "main.o", "-o", tmp_path / "out", "--drop-addrsig")
    assert code == 1 and "Traceback" not in err
    assert sorted(x.name for x in tmp_path.iterdir()) == ["out"] and not any((tmp_path / "out").iterdir())


def test_cli_rewrite_matches_api(tmp_path):
    code, out, err = run_objllvm("rewrite", RW / "main.o", "-o", tmp_path / "cli.o", "--drop-deplib", "m",
                                 "--drop-cg-edge", "main:*")
    assert code == 0 and out == "", err
    api_out, _ = do(tmp_path, "main.o", rw.DropDeplib("m"), rw.DropCGEdge("main:*"))
    assert (tmp_path / "cli.o").read_bytes() == api_out.read_bytes()


# -- offloading ------------------------------------------------------------------------------------------------
BC = TESTDATA / "bitcode"


def _objdump_offloading(path):
    p = subprocess.run([need_tool("llvm-objdump-19"), "--offloading", str(path)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return [(ln.split()[1]) for ln in p.stdout.splitlines() if ln.startswith(("triple", "arch"))]


def test_drop_offload_keeps_the_other_targets(tmp_path):
    src = BC / "packaged.o"
    before = _objdump_offloading(src)
    assert "amdgcn-amd-amdhsa" in before and len(before) == 6
    out, res = do(tmp_path, None, rw.DropOffload("amdgcn-*"), src=src)
    after = _objdump_offloading(out)
    assert after == [x for x in before if x not in ("amdgcn-amd-amdhsa", "gfx90a")]
    assert [e.triple for m in api.decode(str(out), "offloading") for e in m.entries] == \
        ["nvptx64-nvidia-cuda", "x86_64-pc-linux-gnu"]
    assert_same_except(readobj(src), readobj(out), resized={".llvm.offloading"})
    # With an architecture: nothing matches sm_80, sm_70 goes.
    with pytest.raises(ObjllvmError, match="no offloading image matches"):
        rw.rewrite_file(str(src), str(tmp_path / "x.o"), [rw.DropOffload("nvptx64-nvidia-cuda:sm_80")])
    assert not (tmp_path / "x.o").exists()
    out2, _ = do(tmp_path, None, rw.DropOffload("nvptx64-nvidia-cuda:sm_70"), src=out)
    assert _objdump_offloading(out2) == ["generic", "x86_64-pc-linux-gnu"]


@pytest.mark.parametrize("name,triple", [("omp.o", "x86_64-pc-linux-gnu"), ("cuda.o", "nvptx64-nvidia-cuda"),
                                         ("hip.o", "amdgcn-amd-amdhsa")])
def test_drop_last_offload_image_removes_the_section_like_objcopy(tmp_path, name, triple):
    """(Host objects with offloading are not linked here: that needs libomp / a GPU runtime.)"""
    src = BC / name
    out, res = do(tmp_path, None, rw.DropOffload(triple), src=src)
    assert [c.name for c in res.changes if c.action == "removed"] == [".llvm.offloading"]
    ref = tmp_path / "ref.o"
    subprocess.run([need_tool("llvm-objcopy-19"), "--remove-section=.llvm.offloading", str(src), str(ref)],
                   check=True)
    assert _sections_and_contents(out) == _sections_and_contents(ref)
    assert_same_except(readobj(src), readobj(out), removed={".llvm.offloading"})


def test_drop_offload_in_a_multi_image_blob(tmp_path):
    """A version-2 blob with two images (made by the offloading codec's writer, added with llvm-objcopy-19):
    dropping one image writes the blob again with the other."""
    from objllvm.sections import offloading as off
    elf_image = (RW / "tiny-arm32.o").read_bytes()
    bc_image = (RW / "replacement.bc").read_bytes()
    blob = off.write_offload_binary([
        {"image": elf_image, "image_kind": 1, "offload_kind": 1,
         "strings": [("triple", "armv7-linux-gnueabihf"), ("arch", "generic")]},
        {"image": bc_image, "image_kind": 2, "offload_kind": 2,
         "strings": [("triple", "nvptx64-nvidia-cuda"), ("arch", "sm_80")]}], version=2)
    (tmp_path / "blob").write_bytes(blob)
    src = tmp_path / "in.o"
    subprocess.run([need_tool("llvm-objcopy-19"), f"--add-section=.llvm.offloading={tmp_path / 'blob'}",
                    "--set-section-type=.llvm.offloading=0x6fff4c0b", "--set-section-flags=.llvm.offloading=exclude",
                    str(RW / "helper.o"), str(src)], check=True)
    out, _ = do(tmp_path, None, rw.DropOffload("nvptx64-nvidia-cuda"), src=src)
    (m,) = api.decode(str(out), "offloading")
    assert [(e.triple, e.arch, e.image) for e in m.entries] == [("armv7-linux-gnueabihf", "generic", elf_image)]
    assert_same_except(readobj(src), readobj(out), resized={".llvm.offloading"})


def test_dropping_every_cg_edge_removes_the_profile_and_its_relocations(tmp_path):
    want = expected_output(tmp_path)
    out, res = do(tmp_path, "main.o", rw.DropCGEdge("*:*"))
    assert {c.name for c in res.changes if c.action == "removed"} == {".llvm.call-graph-profile",
                                                                     ".rel.llvm.call-graph-profile"}
    assert_same_except(readobj(RW / "main.o"), readobj(out),
                       removed={".llvm.call-graph-profile", ".rel.llvm.call-graph-profile"})
    assert link_and_run(objs_with({"main.o": out}), tmp_path / "p") == want     # and no lld warning


@pytest.mark.parametrize("name", ["prog.exe", "prog.pie", "libbb.so"])
def test_operations_on_linked_files_keep_them_working(tmp_path, name):
    """Executables and shared objects: every applicable operation at once; the result runs (or links)."""
    want = expected_output(tmp_path)
    src = RW / name
    out, res = do(tmp_path, name, rw.ReplaceBitcode(str(RW / "replacement.bc")), rw.StripPGOAnalysis(),
                  rw.AddDeplib("extra"), rw.AddLinkerOption("lib=extra"), src=src)
    o = open_object(str(out))
    assert o.section_by_name(".llvmbc").data() == (RW / "replacement.bc").read_bytes()
    assert model(out, "deplibs").libraries == ["extra"]
    assert all(not f.pgo_blocks for f in functions(out))
    added = {".deplibs", ".linker-options"}
    before, after = readobj(src), readobj(out)
    after["sections"] = [s for s in after["sections"] if s["name"] not in added]
    assert_same_except(before, after, resized={".llvmbc", ".llvm_bb_addr_map", ".shstrtab"})
    assert open_object(str(src)).segments == o.segments
    if name == "libbb.so":
        lib = tmp_path / "lib" / "libbb.so"
        lib.parent.mkdir()
        shutil.copy(out, lib)
        got = link_and_run([RW / "main.o", RW / "linkopt.o", lib], tmp_path / "p", f"-Wl,-rpath,{lib.parent}")
    else:
        got = subprocess.run([str(out), "500"], capture_output=True, text=True).stdout
    assert got == want


def test_set_section_sympart_moves_its_relocation(tmp_path):
    """A longer partition name moves the address word: the relocation on it moves too (LLVM checks it)."""
    src = ELF / "sympart.o"
    code, js, err = run_objllvm("dump", "--json", "-s", "sympart", src)
    doc = json.loads(js)
    secs = doc["files"][0]["sections"]
    assert len(secs) == 2
    doc["files"][0]["sections"] = [secs[1]]            # the dump document names the section to set
    secs[1]["content"]["partition"] = "libpartition-renamed.so"
    (tmp_path / "sp.json").write_text(json.dumps(doc))
    out, res = do(tmp_path, None, rw.SetSection(f"sympart={tmp_path / 'sp.json'}"), src=src)
    ms = api.decode(str(out), "sympart")
    assert [m.partition for m in ms] == ["libpart.so", "libpartition-renamed.so"]
    assert ms[1].symbol.name == secs[1]["content"]["symbol"]["name"]
    ro = readobj(out)
    rels = [s["name"] for s in ro["sections"] if s["info"] == ".llvm_sympart"]
    offs = [r[0][0] for r in ro["relocations"][".rela.llvm_sympart"]]
    assert offs == [len("libpart.so") + 1, len("libpartition-renamed.so") + 1] and len(rels) == 2
    before = readobj(src)
    # The second pair changed: compare everything else.
    before["relocations"].pop(".rela.llvm_sympart")
    ro["relocations"].pop(".rela.llvm_sympart")
    assert_same_except(before, ro, resized={".llvm_sympart"})


def test_the_collector_pause_is_undone():
    """A rewrite pauses the cyclic garbage collector (a big object makes a header object per section) and leaves
    it as it found it: enabled, disabled, and after a refused rewrite."""
    import gc
    data = (RW / "main.o").read_bytes()
    was = gc.isenabled()
    try:
        gc.enable()
        rw.rewrite_bytes(data, [rw.StripLLVM()])
        assert gc.isenabled()
        with pytest.raises(ObjllvmError):
            rw.rewrite_bytes(data, [rw.Remove(".no-such-section")])
        assert gc.isenabled()
        gc.disable()
        rw.rewrite_bytes(data, [rw.StripLLVM()])
        assert not gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()


def test_drop_cg_edge_on_a_partly_paired_profile_says_why_it_refuses(tmp_path):
    """A call-graph profile that lost a relocation (testdata/malformed, 3 of 4 edges paired): --drop-cg-edge
    cannot tell whether the unnamed edge is the one to drop, and says so (not 'linked file'); nothing is
    written."""
    out = tmp_path / "out.o"
    code, _, err = run_objllvm("rewrite", TESTDATA / "malformed" / "cg-profile-reloc-mismatch.o", "-o", out,
                               "--drop-cg-edge", "hot:warm")
    assert code == 1 and not out.exists()
    assert "1 of its 4 edges have no symbol" in err and "linked file" not in err and err.count("\n") == 1



def test_the_index_answers_for_plain_sections_as_the_codecs_do():
    """Session.codec_at answers "no codec" for a plain section (.comment, .note.GNU-stack, .debug_*) from the codec
    index without the registry (sections.unclaimed), and as find_codec does with every codec loaded: none claims
    them under any type but LLVM's own (the codecs claim only LLVM's types)."""
    import objllvm.sections as pkg
    from objllvm.formats.base import Section
    from objllvm.formats.elf import NEVER_LLVM_TYPES, ElfFile, is_llvm_type
    from objllvm.rewrite import session
    from objllvm.sections import registry
    codecs = registry.codecs()
    assert all(is_llvm_type(t) for c in codecs.values() for t in c.sh_types)
    elf = ElfFile((TESTDATA / "rewrite" / "main.o").read_bytes(), "main.o")
    plain = [s.index for s in elf.sections if s.name in (".comment", ".note.GNU-stack") or s.name.startswith(".debug_")]
    assert len(plain) >= 3
    types = {0, 1, 7, 0x70000001, 0x6FFFFFF5, 0x6FFFFFFF} | {t for t in range(20) if t not in NEVER_LLVM_TYPES}
    for name in sorted({elf.section_name(i) for i in plain}):
        for t in sorted(types):
            sec = Section(1, name, t, 0, 0, 0, 0, 0, 0, 1, 0, _data=b"")
            assert registry.find_codec(sec, elf, None) is None, (name, t)
            assert pkg._unclaimed_by_index("elf", t, name), (name, t)
            assert not pkg.claimed_in_elf(name)
    sess = session.Session(elf)
    assert [sess.codec_at(i) for i in plain] == [None] * len(plain)
    assert [sess.is_llvm_at(i) for i in plain] == [False] * len(plain)


def test_names_answered_without_the_codecs():
    """Session.is_llvm_at answers "LLVM's" for the names the codec index says a codec claims by name alone
    (sections.claimed_in_elf: _index.ELF_NAMES_CLAIMED, made by scripts/gen-codec-index) without importing a codec:
    every lookup finds a codec for them, as PROGBITS or as any other type that is not one of the container's tables,
    in an ELF file, and on real files the answers are the codecs'.  Names no codec claims (.comment, .debug_*) are
    answered by the index too: a fresh process imports no codec module and not the registry for them."""
    import objllvm.sections as pkg
    from objllvm.formats.base import Section
    from objllvm.formats.elf import NEVER_LLVM_TYPES, ElfFile
    from objllvm.rewrite import session
    from objllvm.sections import _index, registry
    elf = ElfFile((TESTDATA / "rewrite" / "main.o").read_bytes(), "main.o")
    types = {7, 0x6FFFFFF5, 0x70000001} | {t for t in range(20) if t not in NEVER_LLVM_TYPES}
    code = ("import sys; from objllvm.formats.elf import ElfFile; from objllvm.rewrite import session; "
            f"elf = ElfFile(open({str(TESTDATA / 'rewrite' / 'main.o')!r}, 'rb').read(), 'main.o'); "
            "plain = [s.index for s in elf.sections if s.name in ('.comment', '.note.GNU-stack') "
            "or s.name.startswith('.debug_')]; sess = session.Session(elf); "
            "print(len(plain), [sess.is_llvm_at(i) for i in plain].count(True), "
            "sorted(m for m in sys.modules if m.startswith('objllvm.sections.') and m.count('.') == 2 "
            "and m != 'objllvm.sections._index'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=str(ROOT),
                         env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout.strip().split(maxsplit=2)
    assert int(out[0]) >= 2 and out[1:] == ["0", "[]"], out
    # the other way: names that every lookup gives a codec
    assert {"__llvm_covfun", "__llvm_covmap", "__llvm_prf_vals", ".llvm_stats", ".stack_sizes"} <= _index.ELF_NAMES_CLAIMED
    for name in sorted(_index.ELF_NAMES_CLAIMED):
        assert pkg.claimed_in_elf(name)
        for t in sorted(types):
            sec = Section(1, name, t, 0, 0, 0, 0, 0, 0, 1, 0, _data=b"")
            assert registry.find_codec(sec, elf, None) is not None, (name, t)
    cov = ElfFile((TESTDATA / "profile" / "prog-clang22.o").read_bytes(), "prog-clang22.o")
    named = [s.index for s in cov.sections if s.name in _index.ELF_NAMES_CLAIMED and s.type == 1]
    assert named
    sess = session.Session(cov)
    assert [sess.is_llvm_at(i) for i in named] == [sess.codec_at(i) is not None for i in named] == [True] * len(named)
