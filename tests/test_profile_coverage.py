"""Instrumentation-profile and coverage-mapping sections, checked against LLVM's own tools.

Inputs (scripts/testdata.d/46-profile.sh): a C program built by clang-22 and clang-19 (ELF object, linked
program, COFF and Mach-O objects), 32-bit, big-endian and uncompressed-name objects, and a rustc object.  The
programs were run; ``llvm-profdata-{22,19} show --all-functions --counts`` of the .profraw each wrote and
``llvm-cov-22 export`` with that profile were recorded beside them.  The recorded outputs are compared here
without any tool; the live tests run the tools again (need_tool).
"""
from __future__ import annotations

import json
from pathlib import Path
import re
import subprocess
from collections import Counter

import pytest

from conftest import TESTDATA, need_tool, run_objllvm
from objllvm.sections import registry
from objllvm.formats import open_object
from objllvm.errors import DecodeError
from objllvm.sections.registry import SectionContext, decode_section

D = TESTDATA / "profile"
PROGRAMS = ["prog-clang22", "prog-clang19", "prog-clang22-macho.dylib"]
OBJECTS = ["prog-clang22.o", "prog-clang19.o", "prog-clang22-coff.obj", "prog-clang19-coff.obj",
           "prog-clang22-macho.o", "prog-clang19-macho.o", "prog-i386.o", "prog-ppc64be.o", "prog-nocompress.o",
           "rust.o"]
# which recorded run goes with which file (the same compiler, the same source)
RUN_OF = {"prog-clang22": "prog-clang22", "prog-clang19": "prog-clang19", "rust.o": "rust",
          "prog-clang22-macho.dylib": "prog-clang22"}
for _f in OBJECTS:
    RUN_OF.setdefault(_f, "prog-clang19" if "clang19" in _f else "prog-clang22")


def _decoded(path, kind):
    obj = open_object(str(path))
    out = []
    for s in obj.sections:
        d = decode_section(obj, s)
        if d.codec is not None and d.codec.kind == kind:
            assert d.error is None, str(d.error)
            out.append((s, d.model))
    return obj, out


def profile_records(path):
    """Every data record of the file (all __llvm_prf_data sections)."""
    _, secs = _decoded(path, "profile")
    return [r for s, m in secs if getattr(m, "role", None) == "data" for r in m.records]


def coverage_functions(path):
    _, secs = _decoded(path, "coverage")
    return [r for s, m in secs if hasattr(m, "records") and m.records and hasattr(m.records[0], "mapping")
            for r in m.records]


def parse_profdata_show(text):
    """{name: (hash, counters)} from ``llvm-profdata show --all-functions --counts``."""
    out = {}
    cur = None
    for line in text.splitlines():
        m = re.match(r"^  (\S.*):$", line)
        if m:
            cur = m.group(1)
            continue
        m = re.match(r"^    Hash: (0x[0-9a-f]+)$", line)
        if m and cur:
            out[cur] = [int(m.group(1), 16), None]
        m = re.match(r"^    Counters: (\d+)$", line)
        if m and cur:
            out[cur][1] = int(m.group(1))
    return {k: tuple(v) for k, v in out.items()}


def _ours_by_name(records):
    out = {}
    for r in records:
        assert r.name is not None, f"no name for hash {r.name_hash:#x}"
        out[r.name] = (r.func_hash, r.num_counters)
    return out


# -- the profile records against llvm-profdata's view of the run --------------------------------------------------
@pytest.mark.parametrize("name", PROGRAMS + OBJECTS)
@pytest.mark.parametrize("tool", ["22", "19"])
def test_profile_records_match_llvm_profdata_show(name, tool):
    text = (D / f"{RUN_OF[name]}.profdata-show-{tool}.txt").read_text()
    theirs = parse_profdata_show(text)
    assert len(theirs) >= 4, text
    ours = _ours_by_name(profile_records(D / name))
    # every file of the same source: the same names, structural hashes and counter counts as the run's profile
    assert ours == theirs


def test_linked_records_resolve_to_counters_and_bitmaps():
    for name in PROGRAMS:
        obj, secs = _decoded(D / name, "profile")
        data = [m for s, m in secs if m.role == "data"][0]
        cnts = [s for s in obj.sections if s.name.endswith("__llvm_prf_cnts")][0]
        spans = sorted((r.counters.offset, r.counters.offset + 8 * r.num_counters) for r in data.records)
        assert all(r.counters.via == "address" and r.counters.section_index == cnts.index for r in data.records)
        # the records' counters tile the counters section without overlap
        assert spans[0][0] == 0 and spans[-1][1] == cnts.size
        assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
        mcdc = [r for r in data.records if r.num_bitmap_bytes]
        assert {r.name for r in mcdc} == {"classify", "main"}
        assert all(r.bitmap is not None and r.bitmap.section_name.endswith("__llvm_prf_bits") for r in mcdc)


def test_object_records_resolve_through_relocations():
    obj, secs = _decoded(D / "prog-clang22.o", "profile")
    by_index = {s.index: s for s in obj.sections}
    recs = [r for s, m in secs if m.role == "data" for r in m.records]
    assert len(recs) == 8
    for r in recs:
        assert r.counters.via == "relocation"
        target = by_index[r.counters.section_index]
        assert target.name == "__llvm_prf_cnts" and target.size == 8 * r.num_counters
    apply = [r for r in recs if r.name == "apply"][0]
    assert apply.value_sites == (1, 0, 0)          # -enable-value-profiling: the indirect call
    i386 = profile_records(D / "prog-i386.o")       # REL relocations: the addend is in the field
    assert all(r.counters.via == "relocation" and r.counters.offset == 0 for r in i386)


def test_names_compressed_and_plain_agree():
    names = {}
    for f in ("prog-clang22.o", "prog-nocompress.o"):
        _, secs = _decoded(D / f, "profile")
        nl = [m for s, m in secs if m.role == "names"][0]
        names[f] = (nl.names.all_names(), [c.compressed is not None for c in nl.names.chunks])
    assert names["prog-clang22.o"][0] == names["prog-nocompress.o"][0]
    assert names["prog-clang22.o"][1] == [True] and names["prog-nocompress.o"][1] == [False]


# -- the coverage mapping against llvm-cov export -----------------------------------------------------------------
def _export_functions(doc):
    return {f["name"]: f for f in doc["data"][0]["functions"]}


def _our_regions(rec):
    regions, branches, decisions = Counter(), Counter(), Counter()
    for x in rec.mapping.regions:
        ls, cs, le, ce = x.span()
        k = x.display_kind
        key = (ls, cs, le, ce, x.file, x.expanded_file, k)
        (branches if k in (4, 6) else decisions if k == 5 else regions)[key] += 1
    return regions, branches, decisions


def _their_regions(f):
    regions = Counter(tuple(r[:4]) + tuple(r[5:8]) for r in f["regions"])
    branches = Counter(tuple(r[:4]) + tuple(r[6:9]) for r in f["branches"])
    decisions = Counter(tuple(r[:4]) + tuple(r[6:9]) for r in f.get("mcdc_records", []))
    return regions, branches, decisions


def _export_name(name, files):
    # llvm-cov shows a local function without its "file:" prefix
    for fn in files or ():
        base = fn.rsplit("/", 1)[-1]
        if name.startswith(base + ":"):
            return name[len(base) + 1:]
    return name


def check_against_export(path, doc):
    theirs = _export_functions(doc)
    ours = coverage_functions(path)
    seen = set()
    for rec in ours:
        assert rec.name is not None
        name = _export_name(rec.name, rec.files)
        f = theirs.get(name)
        assert f is not None, f"{name} not in llvm-cov's export ({sorted(theirs)})"
        seen.add(name)
        assert [x.rsplit("/", 1)[-1] for x in rec.files] == [x.rsplit("/", 1)[-1] for x in f["filenames"]]
        assert _our_regions(rec) == _their_regions(f), name
    assert seen == set(theirs)
    return len(ours)


@pytest.mark.parametrize("name", ["prog-clang22", "prog-clang19", "rust.o"])
def test_coverage_matches_recorded_llvm_cov_export(name):
    doc = json.loads((D / f"{RUN_OF[name]}.cov-export.json").read_text())
    assert check_against_export(D / name, doc) >= 4


def test_covmap_files_and_hash_join():
    obj, secs = _decoded(D / "prog-clang22", "coverage")
    covmap = [m for s, m in secs if s.name == "__llvm_covmap"][0]
    assert [r.version for r in covmap.records] == [6]           # format version 7 (MC/DC)
    assert covmap.records[0].files.names == ["", "prog.c"]
    funcs = coverage_functions(D / "prog-clang22")
    assert all(f.filenames_hash == covmap.records[0].filenames_hash for f in funcs)
    # the coverage records' hashes are the profile records' hashes
    prof = {r.name: r.func_hash for r in profile_records(D / "prog-clang22")}
    assert {f.name: f.func_hash for f in funcs} == prof


# -- live: the tools on the committed files -----------------------------------------------------------------------
@pytest.mark.parametrize("run", ["prog-clang22", "prog-clang19", "rust"])
@pytest.mark.parametrize("ver", ["22", "19"])
def test_live_llvm_profdata_show(run, ver):
    tool = need_tool(f"llvm-profdata-{ver}")
    p = subprocess.run([tool, "show", "--all-functions", "--counts", str(D / f"{run}.profraw")],
                       capture_output=True, text=True, check=True)
    theirs = parse_profdata_show(p.stdout)
    src = run if run != "rust" else "rust.o"
    assert _ours_by_name(profile_records(D / src)) == theirs


@pytest.mark.parametrize("name", PROGRAMS + OBJECTS)
def test_live_llvm_cov_export(name, tmp_path):
    cov = need_tool("llvm-cov-22")
    prof = need_tool("llvm-profdata-22")
    pd = tmp_path / "x.profdata"
    subprocess.run([prof, "merge", "-o", str(pd), str(D / f"{RUN_OF[name]}.profraw")], check=True)
    p = subprocess.run([cov, "export", "-format=text", "-instr-profile", str(pd), str(D / name)],
                       capture_output=True, text=True, check=True)
    assert check_against_export(D / name, json.loads(p.stdout)) >= 4


# -- exact re-encoding through the JSON view (rewrite --set-section) ----------------------------------------------
@pytest.mark.parametrize("name", PROGRAMS + OBJECTS)
def test_to_dict_from_dict_encode_is_identity(name):
    obj = open_object(str(D / name))
    n = 0
    for s in obj.sections:
        d = decode_section(obj, s)
        if d.codec is None or d.codec.kind not in ("profile", "coverage"):
            continue
        ctx = SectionContext.for_section(obj, s)
        doc = json.loads(json.dumps(d.codec.to_dict(d.model)))
        assert d.codec.encode(d.codec.from_dict(doc, ctx), ctx) == s.data(), s.name
        n += 1
    assert n >= 5


def test_edited_names_and_regions_re_encode():
    obj = open_object(str(D / "prog-clang22"))
    codec = registry.get("coverage")
    s = [s for s in obj.sections if s.name == "__llvm_covfun"][0]
    ctx = SectionContext.for_section(obj, s)
    doc = codec.to_dict(codec.decode(s.data(), ctx))
    doc["functions"][0]["regions"][0]["line_end"] += 1
    back = codec.decode(codec.encode(codec.from_dict(doc, ctx), ctx), ctx)
    assert back.records[0].mapping.regions[0].line_end == doc["functions"][0]["regions"][0]["line_end"]
    pcodec = registry.get("profile")
    ns = [s for s in obj.sections if s.name == "__llvm_prf_names"][0]
    nctx = SectionContext.for_section(obj, ns)
    nd = pcodec.to_dict(pcodec.decode(ns.data(), nctx))
    nd["chunks"][0]["names"][0] = "renamed"
    nd["chunks"][0]["compressed_bytes"] = None
    again = pcodec.decode(pcodec.encode(pcodec.from_dict(nd, nctx), nctx), nctx)
    assert again.names.all_names()[0] == "renamed" and again.names.chunks[0].compressed is not None


# -- bad input: one located line, partial results, no allocation by a claimed size --------------------------------
def _ctx_for(name, section_name):
    obj = open_object(str(D / name))
    s = [s for s in obj.sections if s.name == section_name][0]
    return obj, s, SectionContext.for_section(obj, s)


def test_cut_data_section_is_a_located_error_with_the_whole_records():
    obj, s, ctx = _ctx_for("prog-clang22", "__llvm_prf_data")
    with pytest.raises(DecodeError) as ei:
        registry.get("profile").decode(s.data()[:-10], ctx)
    assert ei.value.offset == 7 * 64 and "64-byte records" in str(ei.value) and "version 10" in str(ei.value)
    assert len(ei.value.partial.records) == 7


def test_zlib_bomb_in_names_is_refused():
    from objllvm.binary import uleb_encode
    import zlib
    comp = zlib.compress(b"\x01" * 100000, 9)
    bomb = uleb_encode(1 << 40) + uleb_encode(len(comp)) + comp
    obj, s, ctx = _ctx_for("prog-clang22", "__llvm_prf_names")
    with pytest.raises(DecodeError) as ei:
        registry.get("profile").decode(bomb, ctx)
    assert "refused" in str(ei.value) and ei.value.offset == len(bomb) - len(comp)
    lie = uleb_encode(100) + uleb_encode(len(comp)) + comp      # claims less than the stream gives
    with pytest.raises(DecodeError, match="gives more than 100 bytes"):
        registry.get("profile").decode(lie, ctx)


def test_bad_covmap_version_and_counts_are_located():
    obj, s, ctx = _ctx_for("prog-clang22", "__llvm_covmap")
    data = bytearray(s.data())
    data[12] = 9
    with pytest.raises(DecodeError) as ei:
        registry.get("coverage").decode(bytes(data), ctx)
    assert ei.value.offset == 12 and "version 10" in str(ei.value)
    obj, s, ctx = _ctx_for("prog-clang22", "__llvm_covfun")
    data = bytearray(s.data())
    data[28:30] = b"\xff\x7f"        # the first function's file count: 16383 file ids in a small mapping
    with pytest.raises(DecodeError) as ei:
        registry.get("coverage").decode(bytes(data), ctx)
    assert "classify" in str(ei.value) and "16383 file ids" in str(ei.value) and ei.value.offset == 28


def test_cli_dump_shows_the_profile_and_the_coverage(tmp_path):
    rc, out, err = run_objllvm("dump", "--section", "profile", D / "prog-clang22")
    assert rc == 0, err
    assert "prog.c:negate" in out and "structural hash" in out and "[28] __llvm_prf_cnts+0x38" in out
    rc, out, err = run_objllvm("dump", "--section", "coverage", "--json", D / "prog-clang22")
    assert rc == 0, err
    secs = {s["name"]: s for s in json.loads(out)["files"][0]["sections"]}
    assert secs["__llvm_covfun"]["kind"] == "coverage" and secs["__llvm_covmap"]["content"]["role"] == "covmap"
    assert [f["name"] for f in secs["__llvm_covfun"]["content"]["functions"]][:2] == ["classify", "sum_to"]
    rc, out, err = run_objllvm("dump", "--section", "coverage", D / "prog-clang22")
    assert rc == 0 and "mcdc-branch" in out and "expansion" in out and "5:26-5:71" in out


# -- audit: instrumentation and coverage in a tree ----------------------------------------------------------------
def test_audit_reports_instrumented_objects_in_a_tree(tmp_path):
    import shutil
    from objllvm.audit import audit, parse_policy
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    for f in ("prog-clang22", "prog-clang22-coff.obj", "prog-clang22-macho.o"):
        shutil.copy(D / f, tree / "sub" / f)
    shutil.copy(TESTDATA / "profile" / "rust.o", tree / "rust.o")
    plain = TESTDATA / "bitcode" / "marker.o"           # no profile sections: no finding
    shutil.copy(plain, tree / "plain.o")
    rep = audit([str(tree)], jobs=1)
    hits = {Path(f.request.file).name: f for f in rep.findings if f.rule == "embedded-instrumentation"}
    assert set(hits) == {"prog-clang22", "prog-clang22-coff.obj", "prog-clang22-macho.o", "rust.o"}
    assert {f.severity for f in hits.values()} == {"warning"}
    assert "covfun" in hits["prog-clang22"].message and "data" in hits["prog-clang22"].message
    # a release gate: the key as an error fails the audit; "allow" silences it
    gate = parse_policy('[embedded]\ninstrumentation = "error"\n', "gate.toml")
    rep = audit([str(tree)], policy=gate, jobs=1)
    assert rep.exit_status("error") == 1
    assert {f.severity for f in rep.findings if f.rule == "embedded-instrumentation"} == {"error"}
    off = parse_policy('[embedded]\ninstrumentation = "allow"\n', "off.toml")
    assert not [f for f in audit([str(tree)], policy=off, jobs=1).findings if f.rule == "embedded-instrumentation"]
    sarif = rep.to_sarif()
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    res = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "embedded-instrumentation"]
    assert len(res) == 4 and all(r["level"] == "error" for r in res)
    assert all(rules[r["ruleIndex"]]["id"] == "embedded-instrumentation" for r in res)
    rc, out, err = run_objllvm("audit", "--no-progress", "--sarif", tmp_path / "a.sarif", tree)
    assert rc == 0 and "embedded-instrumentation" in out and (tmp_path / "a.sarif").exists()


# -- extract --coverage: the mapping and names for offline use ----------------------------------------------------
def test_extract_coverage_writes_a_file_llvm_cov_reads(tmp_path):
    from objllvm.sections.coverage_map import read_testing_format
    out = tmp_path / "out"
    files = [D / "prog-clang22", D / "prog-ppc64be.o", D / "prog-clang22-macho.o", D / "rust.o"]
    rc, text, err = run_objllvm("extract", "--coverage", "--json", "-o", out, *files)
    assert rc == 0, err
    doc = json.loads((out / "manifest.json").read_text())
    cov = {Path(p["file"]).name: p for p in doc["payloads"] if p["kind"] == "coverage-mapping"}
    names = {Path(p["file"]).name: p for p in doc["payloads"] if p["kind"] == "profile-names"}
    assert set(cov) == set(names) == {f.name for f in files}
    for f in files:
        p = cov[f.name]
        ours = coverage_functions(f)
        nl, cm, cf = read_testing_format((out / p["path"]).read_bytes())
        assert p["functions"] == len(ours) == len(cf.records)
        # the same records, little-endian whatever the object's byte order
        assert [(r.name_hash, r.func_hash, r.mapping) for r in cf.records] == \
            [(r.name_hash, r.func_hash, r.mapping) for r in ours]
        listed = (out / names[f.name]["path"]).read_text().splitlines()
        assert listed == nl.all_names() and {r.name for r in ours} <= set(listed)
    # without --coverage nothing of the kind is written
    rc, text, err = run_objllvm("extract", "--json", "-o", tmp_path / "plain", D / "prog-clang22")
    assert rc == 0 and not json.loads((tmp_path / "plain" / "manifest.json").read_text())["payloads"]


@pytest.mark.parametrize("name,ver", [("prog-clang22", "22"), ("prog-ppc64be.o", "22"), ("prog-clang19", "19"),
                                      ("rust.o", "22")])
def test_live_llvm_cov_reads_the_extracted_mapping(name, ver, tmp_path):
    cov = need_tool(f"llvm-cov-{ver}")
    prof = need_tool(f"llvm-profdata-{ver}")
    pd = tmp_path / "x.profdata"
    subprocess.run([prof, "merge", "-o", str(pd), str(D / f"{RUN_OF[name]}.profraw")], check=True)
    rc, text, err = run_objllvm("extract", "--coverage", "-o", tmp_path / "out", D / name)
    assert rc == 0, err
    mapping = next((tmp_path / "out").glob("*.covmapping"))

    def export(path):
        p = subprocess.run([cov, "export", "-format=text", "-instr-profile", str(pd), str(path)],
                           capture_output=True, text=True, check=True)
        return json.loads(p.stdout)["data"][0]["functions"]
    assert export(mapping) == export(D / name)


# -- IR-level instrumentation: the raw-profile version variable, vtable records and their names -------------------
def test_ir_pgo_object_vtables_value_sites_and_version():
    path = D / "vt-irpgo.o"
    obj, secs = _decoded(path, "profile")
    data = [m for s, m in secs if m.role == "data"]
    assert {(m.raw_version, tuple(m.variants)) for m in data} == {(10, ("ir",))}
    recs = [r for m in data for r in m.records]
    for tool in ("22", "19"):
        text = (D / f"vt-irpgo.profdata-show-{tool}.txt").read_text()
        assert _ours_by_name(recs) == parse_profdata_show(text)
    # value sites against llvm-profdata-22's per-function site counts
    text = (D / "vt-irpgo.profdata-show-22.txt").read_text()
    sites = dict(re.findall(r"^  (\S+):\n(?:    .*\n)*?    Indirect Call Site Count: (\d+)", text, re.M))
    vtables = dict(re.findall(r"^  (\S+):\n(?:    .*\n)*?    Number of instrumented vtables: (\d+)", text, re.M))
    assert sites and {r.name: str(r.value_sites[0]) for r in recs} == sites
    assert {r.name: str(r.value_sites[2]) for r in recs} == vtables
    vt = [r for s, m in secs if m.role == "vtab" for r in m.records]
    # each record's name (by hash, from __llvm_prf_vns) is the vtable its relocation points at
    assert sorted((r.name, r.symbol) for r in vt) == [("_ZTV2Sq", "_ZTV2Sq"), ("_ZTV4Rect", "_ZTV4Rect")]
    assert {r.size for r in vt} == {40}
    assert set(re.findall(r"\[\s*\d+, (_ZTV\w+),", text)) == {r.name for r in vt}


def test_unknown_raw_version_is_a_located_error(tmp_path):
    from objllvm.formats import open_data
    data = bytearray((D / "vt-irpgo.o").read_bytes())
    obj = open_object(str(D / "vt-irpgo.o"))
    sym = next(s for s in obj.symbols if s.name == "__llvm_profile_raw_version")
    sec = next(s for s in obj.sections if s.index == sym.shndx)
    data[sec.offset + sym.value] = 9
    bad = next(open_data(bytes(data), "bad.o"))
    s = next(s for s in bad.sections if s.name == "__llvm_prf_data")
    d = decode_section(bad, s)
    assert d.status == "error" and d.error.offset == 0
    assert str(d.error).startswith("bad.o: section [45] __llvm_prf_data: offset 0x0: __llvm_profile_raw_version")
    assert "version 9: expected 10" in str(d.error) and d.model is not None and d.model.raw_version == 9


# -- the runtime's own copy: a .profraw holds the program's __llvm_prf_data and __llvm_prf_names as they were ------
def _profraw(path):
    """The parts of a version-10 raw profile this test needs (header fields: InstrProfData.inc)."""
    import struct
    b = path.read_bytes()
    f = struct.unpack_from("<16Q", b, 0)
    (magic, version, ids, ndata, pad_before, ncnt, pad_after, nbits, pad_bits, names_size, *_rest) = f
    assert version & 0xFFFFFFFF == 10
    pos = 16 * 8 + ids
    data = b[pos:pos + 64 * ndata]
    pos += 64 * ndata + pad_before
    counters = struct.unpack_from(f"<{ncnt}Q", b, pos)
    pos += 8 * ncnt + pad_after + nbits + pad_bits
    return data, counters, b[pos:pos + names_size]


@pytest.mark.parametrize("name", ["prog-clang22", "prog-clang19"])
def test_profraw_holds_the_sections_and_counters_where_we_say(name):
    obj = open_object(str(D / name))
    data_sec = next(s for s in obj.sections if s.name == "__llvm_prf_data")
    names_sec = next(s for s in obj.sections if s.name == "__llvm_prf_names")
    raw_data, counters, raw_names = _profraw(D / f"{name}.profraw")
    assert raw_names == names_sec.data()
    # the records as the runtime saw them: the same, but for the function and value-data pointers (the program
    # was loaded at a random base: each moved by the same bias)
    file_recs = [data_sec.data()[i:i + 64] for i in range(0, data_sec.size, 64)]
    run_recs = [raw_data[i:i + 64] for i in range(0, len(raw_data), 64)]
    assert len(file_recs) == len(run_recs) == 8
    biases = set()
    for a, b in zip(file_recs, run_recs):
        assert a[:32] == b[:32] and a[48:] == b[48:]
        for lo in (32, 40):           # the function and value-data pointers (absolute, relocated at load)
            fa, fb = int.from_bytes(a[lo:lo + 8], "little"), int.from_bytes(b[lo:lo + 8], "little")
            if fa or fb:
                biases.add(fb - fa)
    assert len(biases) <= 1
    # each function's counters, read where our decoding says they live, are llvm-profdata's counts
    shown = {}
    for m in re.finditer(r"^  (\S+):\n    Hash: \S+\n    Counters: \d+\n    Function count: (\d+)\n"
                         r"    Block counts: \[([^\]]*)\]", (D / f"{name}.profdata-show-22.txt").read_text(), re.M):
        shown[m.group(1)] = [int(m.group(2))] + [int(x) for x in m.group(3).split(",") if x.strip()]
    ours = {}
    for r in profile_records(D / name):
        first = r.counters.offset // 8
        ours[r.name] = list(counters[first:first + r.num_counters])
    assert len(shown) == 8 and ours == shown


def _evaluate(mapping, counters, value):
    """The count of an encoded counter: counter N, or an expression (its kind from the reference's tag)."""
    memo = {}

    def ev(v):
        tag = v & 3
        if tag == 0:
            return 0
        if tag == 1:
            return counters[v >> 2]
        if v not in memo:
            lhs, rhs = mapping.expressions[v >> 2]
            memo[v] = ev(lhs) + ev(rhs) if tag == 3 else ev(lhs) - ev(rhs)
        return memo[v]
    return ev(value)


@pytest.mark.parametrize("name", ["prog-clang22", "prog-clang19"])
def test_region_counts_from_counters_and_expressions_match_llvm_cov(name):
    """Every code region's and branch's count, computed from the run's counters through our decoded counter
    expressions, is the count llvm-cov-22 export gives it."""
    _, counters, _ = _profraw(D / f"{name}.profraw")
    prof = {r.name: r for r in profile_records(D / name)}
    theirs = _export_functions(json.loads((D / f"{name}.cov-export.json").read_text()))
    checked = 0
    for rec in coverage_functions(D / name):
        p = prof[rec.name]
        first = p.counters.offset // 8
        cs = counters[first:first + p.num_counters]
        f = theirs[_export_name(rec.name, rec.files)]
        ours_regions = Counter()
        ours_branches = Counter()
        for x in rec.mapping.regions:
            if x.display_kind == 0:
                ours_regions[x.span() + (x.file, _evaluate(rec.mapping, cs, x.counter))] += 1
            elif x.display_kind in (4, 6):
                ours_branches[x.span() + (x.file, _evaluate(rec.mapping, cs, x.counter),
                                          _evaluate(rec.mapping, cs, x.false_counter))] += 1
        assert ours_regions == Counter(tuple(r[:4]) + (r[5], r[4]) for r in f["regions"] if r[7] == 0), rec.name
        assert ours_branches == Counter(tuple(r[:4]) + (r[6], r[4], r[5]) for r in f["branches"]), rec.name
        checked += sum(ours_regions.values()) + sum(ours_branches.values())
    assert checked > 40


def test_live_rewrite_set_section_coverage_is_what_llvm_cov_reads(tmp_path):
    """An edited region, written back with `rewrite --set-section`, is what llvm-cov-22 then reports."""
    cov = need_tool("llvm-cov-22")
    prof = need_tool("llvm-profdata-22")
    rc, out, err = run_objllvm("dump", "--section", "coverage", "--json", D / "prog-clang22")
    assert rc == 0, err
    doc = json.loads(out)
    f0 = doc["files"][0]
    f0["sections"] = [s for s in f0["sections"] if s["name"] == "__llvm_covfun"]
    region = f0["sections"][0]["content"]["functions"][0]["regions"][0]
    region["line_end"] += 1
    (tmp_path / "c.json").write_text(json.dumps(doc))
    rc, out, err = run_objllvm("rewrite", "--set-section", f"coverage={tmp_path / 'c.json'}", "-o", tmp_path / "ed",
                               D / "prog-clang22")
    assert rc == 0, err
    pd = tmp_path / "x.profdata"
    subprocess.run([prof, "merge", "-o", str(pd), str(D / "prog-clang22.profraw")], check=True)
    p = subprocess.run([cov, "export", "-format=text", "-instr-profile", str(pd), str(tmp_path / "ed")],
                       capture_output=True, text=True, check=True)
    first = json.loads(p.stdout)["data"][0]["functions"][0]
    assert first["name"] == "classify" and first["regions"][0][:4] == [region["line_start"], region["col_start"],
                                                                      region["line_end"], region["col_end"]]


def test_entry_coverage_byte_counters():
    """-mllvm -pgo-function-entry-coverage: the raw-version variable's variant flags say one-byte counters, and
    the counters are read as bytes (0xff: not run yet)."""
    obj, secs = _decoded(D / "entry-coverage.o", "profile")
    data = [m for s, m in secs if m.role == "data"]
    assert {tuple(m.variants) for m in data} == {("ir", "byte-coverage", "function-entry-only")}
    recs = [r for m in data for r in m.records]
    text = (D / "entry-coverage.profdata-show-22.txt").read_text()
    assert _ours_by_name(recs) == parse_profdata_show(text)
    cnts = [m for s, m in secs if m.role == "cnts"]
    assert cnts and {(m.width, tuple(m.values)) for m in cnts} == {(1, (0xFF,))}


def test_non_minimal_ulebs_are_kept_and_edits_still_apply():
    """A mapping with a padded ULEB128 (LLVM writes none, other writers may) re-encodes to the same bytes, also
    through JSON; an edited region is encoded from the edit."""
    import struct
    obj, s, ctx = _ctx_for("prog-clang22.o", "__llvm_covfun")       # one record: the whole section
    data = bytes(s.data())
    nh, size, fh, fref = struct.unpack_from("<QIQQ", data, 0)
    body = data[28:28 + size]
    assert body[0] == 1                                             # the file count
    padded = struct.pack("<QIQQ", nh, size + 1, fh, fref) + b"\x81\x00" + body[1:]
    codec = registry.get("coverage")
    m = codec.decode(padded, ctx)
    assert m.records[0].raw is not None and len(m.records[0].mapping.file_ids) == 1
    assert codec.encode(m, ctx) == padded
    doc = json.loads(json.dumps(codec.to_dict(m)))
    assert codec.encode(codec.from_dict(doc, ctx), ctx) == padded
    doc["functions"][0]["regions"][0]["col_end"] += 1
    edited = codec.decode(codec.encode(codec.from_dict(doc, ctx), ctx), ctx)
    assert edited.records[0].raw is None
    assert edited.records[0].mapping.regions[0].col_end == m.records[0].mapping.regions[0].col_end + 1


def test_name_list_with_padded_sizes_round_trips_and_edits():
    from objllvm.sections.support.instrprof import (decode_name_list, encode_name_list, name_list_from_dict,
                                                    name_list_to_dict)
    data = b"\x84\x00\x80\x00" + b"a\x01bc"          # sizes 4 and 0 in two-byte ULEBs, names stored plain
    m = decode_name_list(data)
    assert m.chunks[0].names == ["a", "bc"] and encode_name_list(m) == data
    d = json.loads(json.dumps(name_list_to_dict(m)))
    assert encode_name_list(name_list_from_dict(d)) == data
    d["chunks"][0]["names"].append("zz")
    assert decode_name_list(encode_name_list(name_list_from_dict(d))).chunks[0].names == ["a", "bc", "zz"]
