"""Sanitizer sections (asan-globals, sancov-*) against the compiler's own IR and the symbol table.

testdata/sanitizers/ (scripts/testdata.d/82-sanitizers.sh): san.c and dyn.cc compiled by clang-22 with
``-fsanitize=address -fsanitize-coverage=trace-pc-guard,pc-table,inline-8bit-counters,inline-bool-flag`` to
objects and to IR (``-S -emit-llvm``, the same flags), and a PIE link of both (its fields are filled by dynamic
relocations).  The IR holds each ASan
descriptor and each coverage array as the compiler built it; the tests read them from the IR text and compare
what objllvm decodes from the objects and the link, and check names and addresses against the symbol table
(read with pyelftools, not objllvm's reader).
"""
from __future__ import annotations

import re

import pytest
from elftools.elf.elffile import ELFFile

from conftest import TESTDATA, run_objllvm
from objllvm import api

D = TESTDATA / "sanitizers"
UNITS = ("san", "dyn")
ALL_ONES = (1 << 64) - 1


def _ir(unit):
    return (D / f"{unit}.ll").read_text()


def ir_globals(unit):
    """{IR name of the global: (size, size with redzone, name, module, dynamic init, odr symbol or None)}."""
    text = _ir(unit)
    strings = {m.group(1): m.group(2) for m in
               re.finditer(r'^@(___asan_gen_\S+) = private (?:unnamed_addr )?constant \[\d+ x i8\] c"(.*?)\\00"',
                           text, re.M)}
    out = {}
    for m in re.finditer(r'^@__asan_global_(\S+) = private global \{[^}]*\} \{ (.*) \}, section "asan_globals"', text,
                         re.M):
        f = re.findall(r"i64 (?:ptrtoint \(ptr @(\S+) to i64\)|(-?\d+))", m.group(2))
        assert len(f) == 8, m.group(0)
        odr = f[7][0] or None
        assert odr is not None or int(f[7][1]) in (-1, 0)
        out[m.group(1)] = (int(f[1][1]), int(f[2][1]), strings[f[3][0]], strings[f[4][0]], int(f[5][1]), odr)
    return out


def ir_coverage(unit):
    """{(function, table): slots}; for the PC table, entries (PC and flags pairs) and function entries too."""
    out = {}
    for m in re.finditer(r'^@__sancov_gen_\S* = private (?:global|constant) \[(\d+) x (?:i32|i8|i1|ptr)\] (.*), '
                         r'section "__sancov_(\w+)", comdat\(\$(\S+?)\)', _ir(unit), re.M):
        n, body, table, fn = int(m.group(1)), m.group(2), m.group(3), m.group(4)
        if table == "pcs":
            assert body.startswith(f"[ptr @{fn}, ptr inttoptr (i64 1 to ptr)")     # the entry block first
            out[(fn, "pcs")] = n // 2
            out[(fn, "entries")] = body.count("inttoptr (i64 1 to ptr)")
        else:
            out[(fn, table)] = n
    return out


def decoded(path, kinds):
    items = api.dump(str(path), kinds)
    secs = [d for i in items for d in i.sections]
    for d in secs:
        assert d.error is None and not d.warnings, (d.section.name, d.error, d.warnings)
    return secs


def symbols(path, every=False):
    """{name: symbol} of the symbol table ({name: [symbols]} with ``every``)."""
    with open(path, "rb") as f:
        elf = ELFFile(f)
        syms = [s for s in elf.get_section_by_name(".symtab").iter_symbols() if s.name]
    if every:
        out = {}
        for s in syms:
            out.setdefault(s.name, []).append(s)
        return out
    return {s.name: s for s in syms}


@pytest.mark.parametrize("unit", UNITS)
def test_asan_globals_of_an_object_match_the_ir(unit):
    want = ir_globals(unit)
    got = {}
    for d in decoded(D / f"{unit}.o", ["asan-globals"]):
        assert d.section.flags & 0x80                      # SHF_LINK_ORDER to the global's section
        for g in d.model.globals:
            odr = g.odr_indicator.symbol if g.odr_indicator.symbol else None
            if odr is None:
                assert g.odr_indicator.value in (0, ALL_ONES)
            got[g.address.symbol] = (g.size, g.size_with_redzone, g.name_text, g.module_text, g.has_dynamic_init, odr)
    assert got == want
    assert any(v[4] for v in got.values()) == (unit == "dyn")     # C++'s dynamic initializer is flagged


@pytest.mark.parametrize("unit", UNITS)
def test_asan_globals_agree_with_the_symbol_table(unit):
    syms = symbols(D / f"{unit}.o")
    for d in decoded(D / f"{unit}.o", ["asan-globals"]):
        (g,) = d.model.globals                             # one descriptor per section in an object
        s = syms[g.address.symbol]
        assert s["st_info"]["type"] == "STT_OBJECT"
        assert s["st_size"] == g.size_with_redzone          # the global is padded with its redzone
        assert s["st_shndx"] == d.section.link               # SHF_LINK_ORDER names the global's section


LINKS = ("san-pie",)


@pytest.mark.parametrize("link", LINKS)
def test_asan_globals_of_the_link_are_addresses_of_the_symbols(link):
    want = {}
    for unit in UNITS:
        for k, v in ir_globals(unit).items():
            want.setdefault(k, []).append(v)
    syms = symbols(D / link)
    all_syms = symbols(D / link, every=True)
    (d,) = decoded(D / link, ["asan-globals"])
    assert len(d.model.globals) == sum(len(v) for v in want.values())
    for g in d.model.globals:
        odr = g.odr_indicator.symbol or None
        assert (g.size, g.size_with_redzone, g.name_text, g.module_text, g.has_dynamic_init, odr) in want[g.address.symbol]
        # (two units each have a local .str: the one at this address)
        assert g.address.address in [x["st_value"] for x in all_syms[g.address.symbol]]
        if odr:
            assert syms[odr]["st_value"] == g.odr_indicator.address
        if link == "san-pie":                               # the words are 0: R_X86_64_RELATIVE fills them
            assert g.address.value == 0 and g.address.resolved


@pytest.mark.parametrize("unit", UNITS)
def test_sancov_tables_of_an_object_match_the_ir(unit):
    want = ir_coverage(unit)
    got = {}
    for d in decoded(D / f"{unit}.o", ["sancov-pcs", "sancov-guards", "sancov-cntrs", "sancov-bools"]):
        m = d.model
        if d.codec.kind == "sancov-pcs":
            fn = m.entries[0].function
            assert m.entries[0].is_function_entry and m.entries[0].offset == 0
            assert {e.function for e in m.entries} == {fn}           # every block PC inside its function
            got[(fn, "pcs")] = len(m.entries)
            got[(fn, "entries")] = sum(e.is_function_entry for e in m.entries)
        else:
            (r,) = m.ranges
            assert r.first == 0 and r.count == len(m.values) and set(m.values) == {0}
            got[(r.function, m.table)] = r.count
    assert got == want


@pytest.mark.parametrize("link", LINKS)
def test_sancov_tables_of_the_link_are_split_by_function(link):
    want = {}
    for unit in UNITS:
        want.update(ir_coverage(unit))
    syms = symbols(D / link)
    secs = {d.codec.kind: d for d in decoded(D / link, ["sancov-pcs", "sancov-guards", "sancov-cntrs",
                                                         "sancov-bools"])}
    pcs = secs.pop("sancov-pcs").model.entries
    starts = [e for e in pcs if e.is_function_entry]
    for e in starts:
        assert syms[e.function]["st_value"] == e.pc.address and e.offset == 0
    for e in pcs:
        s = syms[e.function]
        assert s["st_value"] <= e.pc.address < s["st_value"] + s["st_size"]
    for kind, d in secs.items():
        table = kind.split("-")[1]
        assert {(r.function, table): r.count for r in d.model.ranges} == \
            {k: v for k, v in want.items() if k[1] == table}
        assert [r.function for r in d.model.ranges] == [e.function for e in starts]   # the PC table's order


def test_sancov_text_names_functions_and_blocks():
    rc, out, err = run_objllvm("dump", "-s", "sancov-pcs", "-s", "sancov-guards", str(D / "san.o"))
    assert rc == 0 and not err
    assert "process+0x" in out and "function entry" in out
    rc, out, _ = run_objllvm("dump", "--json", "-s", "asan-globals", str(D / "dyn.o"))
    assert rc == 0 and '"ns::weights"' in out and '"dyn.cc"' in out


def test_audit_flags_sanitizer_instrumented_objects(tmp_path):
    import shutil
    from objllvm.audit import audit, parse_policy
    tree = tmp_path / "tree"
    tree.mkdir()
    for f in ("san.o", "san-pie", "dyn-macho.o"):
        shutil.copy(D / f, tree / f)
    shutil.copy(TESTDATA / "bitcode" / "marker.o", tree / "plain.o")      # no sanitizer section: no finding
    rep = audit([str(tree)], jobs=1)
    hits = {f.request.file.rsplit("/", 1)[1]: f for f in rep.findings if f.rule == "embedded-sanitizer"}
    assert set(hits) == {"san.o", "san-pie", "dyn-macho.o"}
    assert {f.severity for f in hits.values()} == {"warning"}
    # every table of the object is named: the sections counted are those of readelf's section list
    with open(D / "san.o", "rb") as fh:
        names = [s.name for s in ELFFile(fh).iter_sections()]
    n = sum(names.count(x) for x in ("asan_globals", "__sancov_guards", "__sancov_cntrs", "__sancov_bools",
                                     "__sancov_pcs"))
    assert hits["san.o"].request.section == f"{n} sanitizer sections"
    assert hits["san.o"].request.value == "asan-globals, sancov-bools, sancov-cntrs, sancov-guards, sancov-pcs"
    # a release gate: the key as an error fails the audit; "allow" silences it
    gate = parse_policy('[embedded]\nsanitizer = "error"\n', "gate.toml")
    rep = audit([str(tree)], policy=gate, jobs=1)
    assert rep.exit_status("error") == 1
    assert {f.severity for f in rep.findings if f.rule == "embedded-sanitizer"} == {"error"}
    off = parse_policy('[embedded]\nsanitizer = "allow"\n', "off.toml")
    assert not [f for f in audit([str(tree)], policy=off, jobs=1).findings if f.rule == "embedded-sanitizer"]
    sarif = rep.to_sarif()
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    res = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "embedded-sanitizer"]
    assert len(res) == 3 and all(rules[r["ruleIndex"]]["id"] == "embedded-sanitizer" for r in res)
    rc, out, _ = run_objllvm("audit", "--no-progress", "--json", tree)
    assert rc == 0 and "embedded-sanitizer" in out


@pytest.mark.parametrize("name", ["san.o", "dyn.o", "san-pie"])
def test_json_views_go_back_to_the_same_bytes(name):
    from objllvm.formats import open_object
    from objllvm.sections import registry
    obj = open_object(str(D / name))
    n = 0
    for s in obj.sections:
        d = registry.decode_section(obj, s)
        if d.codec is None or not d.codec.kind.startswith(("asan-", "sancov-")):
            continue
        ctx = registry.SectionContext.for_section(obj, s)
        model = d.codec.from_dict(d.codec.to_dict(d.model), ctx)
        assert d.codec.encode(model, ctx) == s.data()
        n += 1
    assert n >= 5
