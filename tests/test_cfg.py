"""objllvm cfg: the graph of a function's blocks, checked against llvm-readobj-19's view of the same map."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from conftest import ROOT, TESTDATA, need_tool, run_objllvm
from objllvm.perf.writer import PerfDataWriter, sample_type_bits

LOOP = TESTDATA / "perf" / "loop.pie"
PGO = TESTDATA / "perf" / "loop-pgo.pie"
NODE = re.compile(r'^\s*b(\d+) \[label="([^"]*)", fillcolor="(#[0-9a-f]{6})"\];$')
EDGE = re.compile(r"^\s*b(\d+) -> b(\d+) \[(.*)\];$")


def readobj_function(path, name):
    tool = need_tool("llvm-readobj-19")
    j = json.loads(subprocess.check_output([tool, "--bb-addr-map", "--elf-output-style=JSON", str(path)]))
    for f in j[0]["BBAddrMap"]:
        if f["Function"]["Name"] == name:
            return f["Function"]
    raise AssertionError(name)


def parse_dot(text):
    nodes, edges = {}, {}
    for line in text.splitlines():
        m = NODE.match(line)
        if m:
            nodes[int(m[1])] = (m[2].split("\\n"), m[3])
            continue
        m = EDGE.match(line)
        if m:
            edges[(int(m[1]), int(m[2]))] = m[3]
    return nodes, edges


def blocks_of(fn):
    out = []
    for r in fn["BB Ranges"]:
        for e in r["BB Entries"]:
            s = r["Base Address"] + e["Offset"]
            out.append((s, e))
    return sorted(out, key=lambda t: t[0])


def test_pgo_map_edges_and_labels():
    fn = readobj_function(PGO, "checksum")
    code, out, err = run_objllvm("cfg", PGO, "--function", "checksum", "-o", "-")
    assert code == 0, err
    nodes, edges = parse_dot(out)
    blocks = blocks_of(fn)
    assert set(nodes) == {e["ID"] for _, e in blocks}
    for start, e in blocks:
        label = nodes[e["ID"]][0]
        assert label[0] == f"#{e['ID']}"
        assert label[1] == f"{start:#x}-{start + e['Size']:#x}"
    want = {}
    entries = [e for r in fn["BB Ranges"] for e in r["BB Entries"]]
    for e, p in zip(entries, fn["PGO analyses"]["PGO BB entries"]):
        for s in p["Successors"]:
            want[(e["ID"], s["ID"])] = f'label="{s["Probability"] / 0x80000000:.0%}"'
    assert set(edges) == set(want)
    for k, v in want.items():
        assert v in edges[k]
    assert "edges: pgo analysis map" in out


def test_layout_edges_without_pgo_or_profile():
    fn = readobj_function(LOOP, "checksum")
    code, out, err = run_objllvm("cfg", LOOP, "--function", "checksum", "-o", "-")
    assert code == 0, err
    _nodes, edges = parse_dot(out)
    blocks = blocks_of(fn)
    want = {(a["ID"], b["ID"]) for (_, a), (_, b) in zip(blocks, blocks[1:]) if a["CanFallThrough"]}
    assert set(edges) == want and want
    assert all("dashed" in v for v in edges.values())


def _lbr_profile(tmp_path):
    fn = readobj_function(LOOP, "checksum")
    blocks = blocks_of(fn)
    from elftools.elf.elffile import ELFFile
    with open(LOOP, "rb") as f:
        e = ELFFile(f)
        seg = [s for s in e.iter_segments() if s["p_type"] == "PT_LOAD" and s["p_flags"] & 1][0]
        bid = bytes.fromhex(next(iter(e.get_section_by_name(".note.gnu.build-id").iter_notes()))["n_desc"])
    base = 0x555555554000
    w = PerfDataWriter(sample_type_bits("IP", "TID", "BRANCH_STACK"))
    w.mmap2(3, 3, base + (seg["p_vaddr"] & ~0xFFF), 0x2000, seg["p_offset"] & ~0xFFF, str(LOOP), build_id=bid)
    (s2, b2), (s3, b3) = blocks[2], blocks[3]
    for k in range(6):          # block 2 (address order) is sampled 6 times, block 3 twice
        w.sample(base + s2, 3, branches=[(base + s3 + b3["Size"] - 1, base + s2)])
    for k in range(2):
        w.sample(base + s3, 3)
    path = tmp_path / "lbr.data"
    path.write_bytes(w.to_bytes())
    return path, b2["ID"], b3["ID"], {e["ID"] for _, e in blocks}


def test_branch_stack_edges_and_shading(tmp_path):
    path, hot, warm, ids = _lbr_profile(tmp_path)
    code, out, err = run_objllvm("cfg", LOOP, "--function", "checksum", "--perf", path, "-o", "-")
    assert code == 0, err
    nodes, edges = parse_dot(out)
    assert edges == {(warm, hot): 'style=solid, penwidth=4.00, label="taken 6"'}
    assert nodes[hot][0][2] == "6 samples (75.0%)" and nodes[warm][0][2] == "2 samples (25.0%)"
    assert nodes[hot][1] != "#ffffff" and nodes[warm][1] != "#ffffff"
    # Redder (less green) for the hotter block; white for blocks without samples.
    assert int(nodes[hot][1][3:5], 16) < int(nodes[warm][1][3:5], 16)
    assert all(nodes[i][1] == "#ffffff" for i in ids - {hot, warm})


def test_svg_output(tmp_path):
    need_tool("dot")
    path, *_ = _lbr_profile(tmp_path)
    out = tmp_path / "checksum.svg"
    code, stdout, err = run_objllvm("cfg", LOOP, "--function", "checksum", "--perf", path, "-o", out)
    assert code == 0, err
    root = ET.fromstring(out.read_bytes())
    assert root.tag.endswith("svg")
    titles = {t.text for t in root.iter("{http://www.w3.org/2000/svg}title")}
    fn = readobj_function(LOOP, "checksum")
    assert {f"b{e['ID']}" for _, e in blocks_of(fn)} <= titles
    assert "SVG graph of checksum" in stdout


def test_svg_without_dot_says_why(tmp_path):
    env = dict(os.environ, PATH="/nonexistent", PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "objllvm", "cfg", str(LOOP), "--function", "mix", "-o",
                        str(tmp_path / "x.svg")], capture_output=True, text=True, env=env)
    assert p.returncode == 1 and "Graphviz 'dot' is not installed" in p.stderr and "Traceback" not in p.stderr
    assert not (tmp_path / "x.svg").exists()
    p = subprocess.run([sys.executable, "-m", "objllvm", "cfg", str(LOOP), "--function", "mix", "-o",
                        str(tmp_path / "x.dot")], capture_output=True, text=True, env=env)
    assert p.returncode == 0 and (tmp_path / "x.dot").read_text().startswith('digraph "mix"')


def test_unknown_function():
    code, out, err = run_objllvm("cfg", LOOP, "--function", "chksum", "-o", "-")
    assert code == 2 and "did you mean: checksum" in err
    fn = readobj_function(LOOP, "mix")
    inside = blocks_of(fn)[1][0] + 1          # an address inside mix's second block
    code, out, err = run_objllvm("cfg", LOOP, "--function", hex(inside), "-o", "-")
    assert code == 0 and out.startswith('digraph "mix"')


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__]))
