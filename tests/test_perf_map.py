"""perf-map: samples -> functions and blocks, branch stacks, cluster files, the command line.

Ground truth is independent of objllvm: block ranges from ``llvm-readobj-19 --bb-addr-map`` JSON, load segments
and symbols from pyelftools, runtime addresses computed here from the segments.  perf.data inputs are built
with objllvm.perf.writer (which perf itself reads back, see test_perf_data.py) or recorded for a fraction of a
second (skipped where perf record is not permitted).
"""
from __future__ import annotations

import bisect
import json
import os
import subprocess
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT, TESTDATA, need_tool, run_objllvm
from objllvm.errors import ObjllvmError
from objllvm.perf import clusters as cl
from objllvm.perf.mapping import map_profile, profile
from objllvm.perf.perfscript import collect_perfscript
from objllvm.perf.writer import PerfDataWriter, sample_type_bits

LOOP = TESTDATA / "perf" / "loop.pie"
NOMAP = TESTDATA / "perf" / "loop-nomap.pie"
SRC = TESTDATA / "src" / "perf" / "loop.c"
BASE = 0x555555554000          # where the synthetic "kernel" loads the PIE
OTHER_BASE = 0x5600AA000000    # a second process, another ASLR base


# -- independent ground truth ---------------------------------------------------------------------------------
def readobj_blocks(path):
    """[(start, end, function, id)] sorted, from llvm-readobj-19's JSON."""
    tool = need_tool("llvm-readobj-19")
    j = json.loads(subprocess.check_output([tool, "--bb-addr-map", "--elf-output-style=JSON", str(path)]))
    out = []
    for f in j[0]["BBAddrMap"]:
        fn = f["Function"]
        for r in fn["BB Ranges"]:
            for e in r["BB Entries"]:
                s = r["Base Address"] + e["Offset"]
                out.append((s, s + e["Size"], fn["Name"], e["ID"]))
    return sorted(out)


def readobj_fallthrough(path):
    """{(function, id): CanFallThrough} from llvm-readobj-19's JSON."""
    tool = need_tool("llvm-readobj-19")
    j = json.loads(subprocess.check_output([tool, "--bb-addr-map", "--elf-output-style=JSON", str(path)]))
    return {(f["Function"]["Name"], e["ID"]): e["CanFallThrough"]
            for f in j[0]["BBAddrMap"] for r in f["Function"]["BB Ranges"] for e in r["BB Entries"]}


def readobj_ranges(path):
    tool = need_tool("llvm-readobj-19")
    j = json.loads(subprocess.check_output([tool, "--bb-addr-map", "--elf-output-style=JSON", str(path)]))
    return {f["Function"]["Name"]: [[e["ID"] for e in r["BB Entries"]] for r in f["Function"]["BB Ranges"]]
            for f in j[0]["BBAddrMap"]}


def elf_info(path):
    from elftools.elf.elffile import ELFFile
    with open(path, "rb") as f:
        e = ELFFile(f)
        text = [s for s in e.iter_segments() if s["p_type"] == "PT_LOAD" and s["p_flags"] & 1][0]
        seg = dict(vaddr=text["p_vaddr"], offset=text["p_offset"], memsz=text["p_memsz"])
        syms = {s.name: s["st_value"] for s in e.get_section_by_name(".symtab").iter_symbols() if s.name}
        bid = next(iter(e.get_section_by_name(".note.gnu.build-id").iter_notes()))["n_desc"]
    return seg, syms, bytes.fromhex(bid)


def add_text_mapping(w, pid, base, seg, path=str(LOOP), build_id=None, record="mmap2"):
    start = base + (seg["vaddr"] & ~0xFFF)
    length = (seg["vaddr"] + seg["memsz"] - (seg["vaddr"] & ~0xFFF) + 0xFFF) & ~0xFFF
    if record == "mmap2":
        w.mmap2(pid, pid, start, length, seg["offset"] & ~0xFFF, path, build_id=build_id)
    else:
        w.mmap(pid, pid, start, length, seg["offset"] & ~0xFFF, path)


def truth_block(blocks, vaddr):
    i = bisect.bisect_right([b[0] for b in blocks], vaddr) - 1
    if i >= 0 and blocks[i][0] <= vaddr < blocks[i][1]:
        return blocks[i][2], blocks[i][3]
    return None


# -- synthetic profile with every kind of sample --------------------------------------------------------------
@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    blocks = readobj_blocks(LOOP)
    seg, syms, bid = elf_info(LOOP)
    w = PerfDataWriter()
    w.comm(42, 42, "loop", exec=True)
    add_text_mapping(w, 42, BASE, seg, build_id=bid)
    w.mmap2(42, 42, 0x7F0000026000, 0x156000, 0x26000, "/usr/lib/x86_64-linux-gnu/libc.so.6")
    w.fork(43, 42, 43, 42)                     # a child: inherits the mapping
    w.comm(50, 50, "loop", exec=True)          # another run of the binary, another base
    add_text_mapping(w, 50, OTHER_BASE, seg, build_id=bid)
    expected = Counter()
    t = 0
    for i, (start, end, name, bid_) in enumerate(blocks):
        n = i % 3 + 1
        for k in range(n):
            pid, base = [(42, BASE), (43, BASE), (50, OTHER_BASE)][k % 3]
            w.sample(base + start + (k % max(end - start, 1)), pid, time=t)
            t += 1
        expected[(name, bid_)] += n
    # Padding between two blocks of one function: it belongs to the block before it when that block can fall
    # through into it (readobj's CanFallThrough), else it stays "between blocks".
    falls = readobj_fallthrough(LOOP)
    gaps = [(a, b) for a, b in zip(blocks, blocks[1:]) if a[2] == b[2] and b[0] > a[1]]
    assert gaps, "the test program should have alignment padding between blocks"
    padding = Counter()
    for a, b in gaps:
        w.sample(BASE + a[1], 42)
        padding[(a[2], a[3]) if falls[(a[2], a[3])] else None] += 1
    assert padding[None] and len(padding) > 1, "want padding after blocks that fall through and blocks that do not"
    between = padding.pop(None)
    expected.update(padding)
    # _start has no basic-block map; libc and the kernel are other objects.
    w.sample(BASE + syms["_start"] + 1, 42)
    w.sample(BASE + syms["_start"], 42)
    w.sample(0x7F0000030000, 42)
    w.sample(0xFFFFFFFF81000000, 42, user=False)
    path = tmp_path_factory.mktemp("perf") / "synthetic.data"
    path.write_bytes(w.to_bytes())
    return dict(path=path, expected=expected, gaps=len(gaps), between=between, padding=sum(padding.values()),
                blocks=blocks, total=t + len(gaps) + 4)


def test_block_counts_match_readobj(synthetic):
    prof = profile(str(LOOP), str(synthetic["path"]))
    got = Counter()
    for fp in prof.functions:
        assert fp.samples == sum(fp.blocks.values())
        for bid, c in fp.blocks.items():
            got[(fp.name, bid)] += c
    assert got == synthetic["expected"]
    assert prof.total_samples == synthetic["total"]
    assert prof.unmapped == {"between blocks": synthetic["between"], "no map for the function": 2, "other object": 2}
    assert prof.mapped_samples == sum(synthetic["expected"].values())
    assert prof.padding_samples == synthetic["padding"] == sum(sum(f.padding.values()) for f in prof.functions)
    assert prof.binary_samples == prof.mapped_samples + synthetic["between"] + 2
    # The hottest blocks come first, counts and addresses as readobj says.
    top = prof.hottest_blocks(5)
    assert [c for *_, c in top] == sorted((c for c in synthetic["expected"].values()), reverse=True)[:5]
    for fn, b, c in top:
        assert (b.address, b.address + b.size, fn.name, b.id) in synthetic["blocks"]
    assert {m["pid"] for m in prof.matched_mappings} == {42, 50}


def test_perf_script_text_gives_the_same_profile(synthetic, tmp_path):
    perf = need_tool("perf")
    text = subprocess.run([perf, "script", "-i", str(synthetic["path"]), "-F", "comm,pid,tid,time,ip,sym",
                           "--show-mmap-events", "--show-task-events"], capture_output=True, text=True)
    assert text.returncode == 0, text.stderr
    script = tmp_path / "script.txt"
    script.write_text(text.stdout)
    a = profile(str(LOOP), str(synthetic["path"]))
    b = profile(str(LOOP), perf_script=str(script))
    assert [(f.name, f.samples, f.blocks) for f in a.functions] == [(f.name, f.samples, f.blocks) for f in b.functions]
    assert a.unmapped == b.unmapped and a.total_samples == b.total_samples


def test_perf_script_text_errors(tmp_path):
    p = tmp_path / "bad.txt"
    p.write_text("this is not perf script output\n")
    with pytest.raises(ObjllvmError, match="perf script -F comm,pid,ip --show-mmap-events") as ei:
        collect_perfscript(str(p))
    assert ei.value.offset == 0
    p.write_text("  loop  42  555555555123\n")
    with pytest.raises(ObjllvmError, match="show-mmap-events"):
        collect_perfscript(str(p))


def test_build_id_mismatch_warns_with_both_ids(tmp_path):
    seg, _syms, bid = elf_info(LOOP)
    wrong = bytes(20 * [0xAB])
    w = PerfDataWriter()
    add_text_mapping(w, 7, BASE, seg, build_id=wrong)
    w.sample(BASE + seg["vaddr"] + 0x10, 7)
    path = tmp_path / "m.data"
    path.write_bytes(w.to_bytes())
    prof = profile(str(LOOP), str(path))
    assert prof.unmapped == {"build-id mismatch": 1} and not prof.functions
    assert any(wrong.hex() in m and bid.hex() in m for m in prof.warnings)
    # No sample in the binary: an error that says why (both build-ids), exit 1, no cluster file.
    code, out, err = run_objllvm("perf-map", LOOP, path, "--clusters", tmp_path / "c.txt")
    assert code == 1 and wrong.hex() in err and bid.hex() in err and "another build" in err, err
    assert "Traceback" not in err and not (tmp_path / "c.txt").exists() and out == ""


def test_path_match_without_build_ids(tmp_path):
    seg, syms, _ = elf_info(LOOP)
    blocks = readobj_blocks(LOOP)
    w = PerfDataWriter()
    add_text_mapping(w, 9, BASE, seg, path="/somewhere/else/loop.pie", record="mmap")   # same base name
    add_text_mapping(w, 9, OTHER_BASE, seg, path="/bin/unrelated", record="mmap")
    w.sample(BASE + blocks[0][0], 9)
    w.sample(OTHER_BASE + blocks[0][0], 9)
    path = tmp_path / "p.data"
    path.write_bytes(w.to_bytes())
    prof = profile(str(LOOP), str(path))
    assert [(f.name, f.blocks) for f in prof.functions] == [(blocks[0][2], {blocks[0][3]: 1})]
    assert prof.unmapped == {"other object": 1}


def test_branch_stacks_count_taken_edges_and_fall_through(tmp_path):
    blocks = readobj_blocks(LOOP)
    seg, _syms, bid = elf_info(LOOP)
    fn = [b for b in blocks if b[2] == "checksum"]
    by_id = {b[3]: b for b in fn}
    ordered = sorted(fn)
    # A loop: jump from the last byte of the 3rd block (in address order) back to the 2nd block's start, then
    # execution runs straight from there to the 3rd block's branch again.
    b1, b2 = ordered[1], ordered[2]
    w = PerfDataWriter(sample_type_bits("IP", "TID", "BRANCH_STACK"))
    add_text_mapping(w, 5, BASE, seg, build_id=bid)
    lbr = [(BASE + b2[1] - 1, BASE + b1[0]), (BASE + b2[1] - 1, BASE + b1[0]), (BASE + b2[1] - 1, BASE + b1[0])]
    for _ in range(4):
        w.sample(BASE + b1[0], 5, branches=lbr)
    w.sample(BASE + b1[0], 5, branches=[(0x7F0000001000, BASE + b1[0])])    # from another object
    path = tmp_path / "lbr.data"
    path.write_bytes(w.to_bytes())
    prof = profile(str(LOOP), str(path))
    assert prof.branch_samples == 5
    assert prof.taken_edges == {(prof.functions[0].function.address, b2[3], b1[3]): 12}
    # Two fall-through ranges per sample, b1.start .. b2.end: every consecutive pair of blocks in between.
    i, j = ordered.index(b1), ordered.index(b2)
    want = {(prof.functions[0].function.address, ordered[k][3], ordered[k + 1][3]): 8 for k in range(i, j)}
    assert prof.fallthrough_edges == want
    assert prof.branch_stats["taken_unmapped"] == 1
    # Clusters follow the measured edges: entry first, then the loop.
    c = cl.build_clusters(prof)
    assert c[0].edge_source == "branch stacks"
    assert c[0].block_ids[0] == ordered[0][3] == 0
    assert set(c[0].block_ids) == {0} | {ordered[k][3] for k in range(i, j + 1)}
    assert by_id


def test_no_map_is_a_clear_error(tmp_path):
    w = PerfDataWriter()
    w.sample(0x1000, 1)
    path = tmp_path / "x.data"
    path.write_bytes(w.to_bytes())
    code, out, err = run_objllvm("perf-map", NOMAP, path)
    assert code == 1 and "Traceback" not in err
    assert "-fbasic-block-sections=labels" in err and "-fbasic-block-address-map" in err and str(NOMAP) in err
    code, out, err = run_objllvm("cfg", NOMAP, "--function", "main", "-o", tmp_path / "x.dot")
    assert code == 1 and "-fbasic-block-address-map" in err


def test_cli_tables_and_json(synthetic, tmp_path):
    code, out, err = run_objllvm("perf-map", LOOP, synthetic["path"], "--top", "3")
    assert code == 0, err
    assert "Hottest blocks" in out and "unmapped: between blocks" in out
    code, out, err = run_objllvm("perf-map", LOOP, synthetic["path"], "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["schema"] == "objllvm-perf-map"
    assert d["samples"]["total"] == synthetic["total"]
    assert d["samples"]["mapped"] == sum(synthetic["expected"].values())
    assert sum(d["samples"]["unmapped"].values()) + d["samples"]["mapped"] == d["samples"]["total"]
    got = Counter({(f["name"], b["id"]): b["samples"] for f in d["functions"] for b in f["blocks"]})
    assert got == synthetic["expected"]
    assert len(d["hottest_blocks"]) == 20
    assert d["events"] == [{"name": "cpu-clock", "type": 1, "config": 0, "sample_type": ["IP", "TID", "TIME", "PERIOD"],
                            "read_format": 0, "sample_id_all": True, "branch_sample_type": 0, "ids": 1,
                            "samples": synthetic["total"]}]
    code, out, err = run_objllvm("perf-map", LOOP)
    assert code == 2 and "PERF.DATA" in err


def test_truncated_profile_cli(tmp_path, synthetic):
    data = synthetic["path"].read_bytes()
    p = tmp_path / "t.data"
    p.write_bytes(data[:len(data) - 30])
    code, out, err = run_objllvm("perf-map", LOOP, p)
    assert code == 1 and "Traceback" not in err and "offset 0x" in err and str(p) in err


# -- real recording: counts agree with an independent mapping of `perf script -F ip` ---------------------------
def test_real_recording_agrees_with_independent_mapping(tmp_path):
    perf = need_tool("perf")
    data = tmp_path / "perf.data"
    p = subprocess.run([perf, "record", "-q", "-e", "cpu-clock", "-F", "10000", "-o", str(data), "--", str(LOOP),
                        "6000"], capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip(f"perf record is not permitted here: {p.stderr.strip()[-200:]}")
    blocks = readobj_blocks(LOOP)
    seg, _syms, _bid = elf_info(LOOP)
    text = subprocess.run([perf, "script", "-i", str(data), "-F", "ip,dso", "--show-mmap-events"],
                          capture_output=True, text=True).stdout
    # The loader's mapping of the text segment, from perf's own MMAP2 line.
    start = pgoff = None
    expected = Counter()
    real = os.path.realpath(LOOP)
    for line in text.splitlines():
        if "PERF_RECORD_MMAP" in line and line.rstrip().endswith(real):
            inner = line.split("[", 1)[1]
            start = int(inner.split("(")[0], 16)
            pgoff = int(inner.split("@ ")[1].split()[0].rstrip("]:"), 16)
            continue
        toks = line.split()
        if len(toks) == 2 and toks[1] == f"({real})":
            vaddr = int(toks[0], 16) - start + pgoff - seg["offset"] + seg["vaddr"]
            hit = truth_block(blocks, vaddr)
            expected[hit] += 1
    prof = profile(str(LOOP), str(data))
    # Strict containment here: the samples on alignment padding (counted in the block before it) set apart.
    got = +Counter({(fp.name, bid): c - fp.padding.get(bid, 0)
                    for fp in prof.functions for bid, c in fp.blocks.items()})
    gaps = expected.pop(None, 0)
    assert got == expected and sum(got.values()) > 50
    assert prof.unmapped.get("between blocks", 0) + prof.unmapped.get("no map for the function", 0) \
        + prof.padding_samples == gaps
    # The hot loop is where the time goes.
    assert {f.name for f in prof.functions[:2]} == {"checksum", "mix"}


# -- cluster files: clang-19 rebuilds the program with them ---------------------------------------------------
def test_cluster_file_rebuilds_the_program(synthetic, tmp_path):
    clang = need_tool("clang-19")
    prof = profile(str(LOOP), str(synthetic["path"]))
    clusters = cl.build_clusters(prof, min_share=0.0)
    out = tmp_path / "clusters.txt"
    cl.write_clusters(str(out), clusters, comment="test")
    text = out.read_text()
    assert text.startswith("v1\n")
    parsed = cl.parse_cluster_text(text)
    assert set(parsed) == {f.name for f in prof.functions}
    exe = tmp_path / "loop-clustered"
    b = subprocess.run([clang, "-O2", "-fPIE", "-pie", f"-fbasic-block-sections=list={out}",
                        "-fbasic-block-address-map", str(SRC), "-o", str(exe)], capture_output=True, text=True)
    assert b.returncode == 0, b.stderr
    assert b.stderr == ""
    want = subprocess.run([str(LOOP), "77"], capture_output=True, text=True).stdout
    assert subprocess.run([str(exe), "77"], capture_output=True, text=True).stdout == want
    # clang honoured the file: each listed function's first range is exactly its cluster.
    ranges = readobj_ranges(exe)
    for name, cls in parsed.items():
        assert ranges[name][0] == cls[0], name


def test_layout_order_without_edges():
    from objllvm.sections.support.bb_index import BBIndex
    index = BBIndex.from_path(str(LOOP))
    fn = next(f for f in index.functions if f.name == "checksum")
    blocks = sorted(fn.blocks, key=lambda b: b.address)
    samples = {blocks[-1].id: 5, blocks[2].id: 9}
    edges, source = cl.function_edges(fn, None, samples)
    assert source == "layout"
    order = cl.order_blocks(fn, samples, edges)
    assert order == [fn.ranges[0].blocks[0].id, blocks[2].id, blocks[-1].id]


def test_clusters_cli(synthetic, tmp_path):
    out = tmp_path / "c.txt"
    code, stdout, err = run_objllvm("perf-map", LOOP, synthetic["path"], "--clusters", out, "--min-share", "0.2")
    assert code == 0, err
    parsed = cl.parse_cluster_text(out.read_text())
    prof = profile(str(LOOP), str(synthetic["path"]))
    want = {f.name for f in prof.functions if f.samples / prof.mapped_samples >= 0.2}
    assert set(parsed) == want and want
    assert f"Clusters written to {out}" in stdout
    assert os.path.dirname(ROOT / "x")  # the repo root exists (run_objllvm uses it)


def test_direct_index_equals_bbindex():
    """perf-map builds its index through the bb-addr-map codec alone (faster start): same functions and blocks
    as BBIndex.from_object, including a multi-range map written by clang-19 from a cluster file."""
    from objllvm.sections.support.bb_index import BBIndex
    from objllvm.formats import open_object
    from objllvm.perf.mapping import _index_direct

    def view(ix):
        return [(f.name, f.address, [(b.id, b.address, b.size) for b in f.blocks]) for f in ix.functions]

    for path in (LOOP, TESTDATA / "perf" / "loop-pgo.pie"):
        obj = open_object(str(path))
        assert view(_index_direct(obj)) == view(BBIndex.from_object(obj))


def test_samples_without_tid_use_every_mapping(tmp_path):
    """A recording without PERF_SAMPLE_TID has no process ids: the binary's mappings of any process apply."""
    blocks = readobj_blocks(LOOP)
    seg, _syms, bid = elf_info(LOOP)
    w = PerfDataWriter(sample_type_bits("IP", "PERIOD"))
    add_text_mapping(w, 11, BASE, seg, build_id=bid)
    start, _end, name, bid_ = blocks[3]
    w.sample(BASE + start, 11)
    w.sample(BASE + start, 11)
    path = tmp_path / "notid.data"
    path.write_bytes(w.to_bytes())
    prof = profile(str(LOOP), str(path))
    assert [(f.name, f.blocks) for f in prof.functions] == [(name, {bid_: 2})]


def test_perf_script_from_stdin(synthetic):
    perf = need_tool("perf")
    text = subprocess.run([perf, "script", "-i", str(synthetic["path"]), "-F", "comm,pid,ip", "--show-mmap-events",
                           "--show-task-events"], capture_output=True, text=True).stdout
    code, out, err = run_objllvm("perf-map", LOOP, "--perf-script", "-", "--json", input=text)
    assert code == 0, err
    d = json.loads(out)
    got = Counter({(f["name"], b["id"]): b["samples"] for f in d["functions"] for b in f["blocks"]})
    assert got == synthetic["expected"]


# -- every map version, shared objects ------------------------------------------------------------------------
BB = TESTDATA / "bb-addr-map"


def readobj14_blocks(path):
    """llvm-readobj-14 reads the V0 section type: [(start, end, function, index)] (IDs are the indices)."""
    tool = need_tool("llvm-readobj-14")
    j = json.loads(subprocess.check_output([tool, "--bb-addr-map", "--elf-output-style=JSON", str(path)]))
    (doc,) = j[0].values()
    out = []
    for f in doc["BBAddrMap"]:
        fn = f["Function"]
        for i, e in enumerate(fn["BB entries"]):
            s = fn["At"] + e["Offset"]
            out.append((s, s + e["Size"], fn["Name"], i))
    return sorted(out)


def _profile_at(tmp_path, path, vaddrs):
    """Samples at link-time addresses ``vaddrs`` of ``path`` loaded at BASE (every PT_LOAD mapped as the loader
    would), mapped by objllvm; returns the Profile."""
    from elftools.elf.elffile import ELFFile
    with open(path, "rb") as f:
        segs = [(s["p_vaddr"], s["p_offset"], s["p_memsz"]) for s in ELFFile(f).iter_segments()
                if s["p_type"] == "PT_LOAD" and s["p_flags"] & 1]
    base = BASE if ELFFile(open(path, "rb")).header["e_type"] == "ET_DYN" else 0
    w = PerfDataWriter()
    for vaddr, off, memsz in segs:
        start = base + (vaddr & ~0xFFF)
        w.mmap(3, 3, start, (vaddr + memsz - (vaddr & ~0xFFF) + 0xFFF) & ~0xFFF, off & ~0xFFF, str(path))
    for v in vaddrs:
        w.sample(base + v, 3)
    data = tmp_path / "v.data"
    data.write_bytes(w.to_bytes())
    return profile(str(path), str(data))


@pytest.mark.parametrize("name,truth", [("clang19-labels.so", readobj_blocks), ("clang19-pgo-profile.exe",
                                                                               readobj_blocks),
                                        ("llc14-v0.exe", readobj14_blocks)])
def test_other_producers_against_readobj(tmp_path, name, truth):
    path = BB / name
    if not path.exists():
        pytest.skip(f"{path} is made by the bb-addr-map fragment of scripts/make-testdata")
    blocks = truth(path)
    prof = _profile_at(tmp_path, path, [b[0] + (b[1] - b[0]) // 2 for b in blocks if b[1] > b[0]])
    # Strict containment here: the samples on alignment padding (counted in the block before it) set apart.
    got = +Counter({(fp.name, bid): c - fp.padding.get(bid, 0)
                    for fp in prof.functions for bid, c in fp.blocks.items()})
    assert got == Counter((b[2], b[3]) for b in blocks if b[1] > b[0])


@pytest.mark.parametrize("name", ["rustc-v5.exe", "rustc-v5-hash.exe", "mc-v5.exe"])
def test_version5_maps_against_the_symbol_table(tmp_path, name):
    """No tool here reads version-5 maps; the symbol table is the independent check: a sample at a function's
    symbol maps to that function's entry block, one at its last byte to the same function."""
    from elftools.elf.elffile import ELFFile
    path = BB / name
    if not path.exists():
        pytest.skip(f"{path} is made by the bb-addr-map fragment of scripts/make-testdata")
    with open(path, "rb") as f:
        syms = [(s.name, s["st_value"], s["st_size"]) for s in ELFFile(f).get_section_by_name(".symtab").iter_symbols()
                if s["st_info"]["type"] == "STT_FUNC" and s["st_size"] > 0 and s["st_shndx"] != "SHN_UNDEF"]
    prof = _profile_at(tmp_path, path, [v for _n, v, _s in syms] + [v + s - 1 for _n, v, s in syms])
    mapped = {fp.name: fp for fp in prof.functions}
    assert len(mapped) >= 2
    for n, v, s in syms:
        fp = mapped.get(n)
        if fp is None:
            continue
        entry = fp.function.ranges[0].blocks[0]
        assert fp.function.address == v and entry.address == v and entry.id in fp.blocks
        assert fp.samples == 2, n          # the entry and the last byte: both in this function
    assert prof.total_samples == 2 * len(syms)


def test_relocatable_object_is_refused(tmp_path):
    obj = TESTDATA / "bb-addr-map" / "clang19-labels.o"
    if not obj.exists():
        pytest.skip(f"{obj} is made by the bb-addr-map fragment of scripts/make-testdata")
    w = PerfDataWriter()
    w.sample(0x1000, 1)
    data = tmp_path / "r.data"
    data.write_bytes(w.to_bytes())
    code, out, err = run_objllvm("perf-map", obj, data)
    assert code == 1 and "linked ELF executable or shared object" in err and "Traceback" not in err


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(
    st.text(max_size=60),
    st.builds(lambda a, b, c, d: f" x {a} PERF_RECORD_MMAP2 {a}/{a}: [0x{b:x}(0x{c:x}) @ {d} 0 0 0 0]: r-xp /p",
              st.integers(-5, 99), st.integers(0, 2**64), st.integers(0, 2**40),
              st.sampled_from(["0", "0x1000", "0123", "zz"])),
    st.builds(lambda a, b: f" x {a} {b:x}", st.integers(-5, 2**31), st.integers(0, 2**64))), max_size=8))
def test_perf_script_parser_never_crashes(lines):
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(lines) + "\n")
    try:
        raw = collect_perfscript(f.name)
        assert raw.samples == sum(raw.ip_counts.values())
        if raw.samples:
            map_profile(raw, str(LOOP))
    except ObjllvmError as exc:
        assert exc.file == f.name or str(LOOP) in str(exc)
    finally:
        os.unlink(f.name)
