"""Code layout from samples: ext-TSP block order, C3 function order, call arcs, the v1 profile lines of clang-22.

* ext-TSP and C3 are checked on crafted graphs against brute force (every order of a tiny graph).
* On testdata/perf-layout/interp (clang-22, PGO analysis map, relocations kept), an execution is simulated on
  the CFG that ``llvm-readobj-22`` reports, with branch probabilities of its own (not the compiler's): the
  samples (and, for path cloning, branch stacks) of a synthetic perf.data come from that walk, so the true edge
  counts are known and the layout is scored on them.
* Call arcs are compared with the calls ``llvm-objdump-22`` disassembles.
* clang-22 reads every line kind written (``c``, ``p``, ``g``): the program is rebuilt with the file, runs with
  the same output, and ``llvm-readobj-22 --bb-addr-map`` shows the clusters and the ``g`` counts as post-link
  frequencies.
"""
from __future__ import annotations

import itertools
import json
import random
import re
import subprocess
from collections import Counter

import pytest

from conftest import TESTDATA, need_tool, run_objllvm
from objllvm.perf import clusters as cl
from objllvm.perf import forked
from objllvm.perf import layout as lay
from objllvm.perf.mapping import profile
from objllvm.perf.writer import PerfDataWriter, sample_type_bits

INTERP = TESTDATA / "perf-layout" / "interp"
SRC = TESTDATA / "src" / "perf-layout" / "interp.c"
BASE = 0x555555554000


# -- ext-TSP on crafted graphs ----------------------------------------------------------------------------------
def random_graph(rng, n, m):
    sizes = {b: rng.choice([2, 5, 8, 16, 40, 100, 300, 700]) for b in range(n)}
    edges = [(rng.randrange(n), rng.randrange(n), rng.choice([1, 2, 5, 10, 50, 100])) for _ in range(m)]
    return sizes, edges


def test_score_counts_fall_throughs_and_near_jumps():
    sizes = {0: 10, 1: 20, 2: 30}
    # 0 falls through into 1; 1 -> 0 jumps back 30 bytes (from the end of 1 to the start of 0);
    # 0 -> 2 jumps forward over 1 (20 bytes).
    s = lay.ext_tsp_score([0, 1, 2], sizes, [(0, 1, 7), (1, 0, 3), (0, 2, 5)])
    want = 7 * 1.0 + 3 * 0.1 * (1 - 30 / 640) + 5 * 0.1 * (1 - 20 / 1024)
    assert s == pytest.approx(want)
    far = {0: 10, 1: 5000, 2: 10}
    assert lay.ext_tsp_score([0, 1, 2], far, [(0, 2, 5), (2, 0, 5)]) == 0.0


def test_ext_tsp_against_brute_force():
    rng = random.Random(20)
    ratios = []
    for _ in range(200):
        n = rng.randint(2, 7)
        sizes, edges = random_graph(rng, n, rng.randint(1, 2 * n))
        blocks = list(range(n))
        got = lay.ext_tsp_order(blocks, sizes, edges, 0)
        assert sorted(got) == blocks and got[0] == 0           # a permutation, the entry first
        s = lay.ext_tsp_score(got, sizes, edges)
        _best, opt = lay.best_order_brute_force(blocks, sizes, edges, 0)
        assert s <= opt + 1e-9
        assert s + 1e-9 >= lay.ext_tsp_score(blocks, sizes, edges)   # never worse than the input order
        ratios.append(s / opt if opt else 1.0)
    optimal = sum(r > 1 - 1e-9 for r in ratios) / len(ratios)
    assert optimal >= 0.9, optimal
    assert sum(ratios) / len(ratios) >= 0.98


def test_ext_tsp_recovers_a_hidden_path():
    """Blocks shuffled, heavy edges along a hidden path from the entry, light noise edges: every path edge
    becomes a fall-through."""
    rng = random.Random(7)
    for _ in range(50):
        n = rng.randint(3, 12)
        path = [0] + rng.sample(range(1, n), n - 1)
        sizes = {b: rng.randint(1, 200) for b in range(n)}
        heavy = [(a, b, rng.randint(100, 1000)) for a, b in zip(path, path[1:])]
        noise = [(rng.randrange(n), rng.randrange(n), rng.randint(1, 5)) for _ in range(n)]
        got = lay.ext_tsp_order(list(range(n)), sizes, heavy + noise, 0)
        assert got == path
        if n <= 7:
            _best, opt = lay.best_order_brute_force(list(range(n)), sizes, heavy + noise, 0)
            assert lay.ext_tsp_score(got, sizes, heavy + noise) >= sum(w for _, _, w in heavy) - 1e-9
            assert lay.ext_tsp_score(got, sizes, heavy + noise) <= opt + 1e-9


def test_ext_tsp_isolated_blocks_and_self_loops():
    sizes = {0: 4, 1: 4, 2: 4, 3: 4}
    got = lay.ext_tsp_order([0, 1, 2, 3], sizes, [(2, 2, 100), (0, 3, 10)], 0)
    assert sorted(got) == [0, 1, 2, 3] and got[:2] == [0, 3]


# -- C3 on crafted graphs ---------------------------------------------------------------------------------------
def test_c3_call_chain_is_contiguous():
    funcs = {"main": (10, 100), "a": (500, 200), "b": (400, 100), "c": (300, 50), "cold": (1, 3000)}
    arcs = {("main", "a"): 10, ("a", "b"): 400, ("b", "c"): 300, ("main", "cold"): 1}
    order = lay.c3_order(funcs, arcs)
    assert sorted(order) == sorted(funcs)
    i = order.index("a")
    assert order[i:i + 3] == ["a", "b", "c"]
    assert order[-1] == "cold"


def test_c3_respects_the_cluster_size_limit():
    funcs = {"a": (100, 3000), "b": (90, 3000)}
    assert lay.c3_order(funcs, {("a", "b"): 90}, max_cluster=4096) == ["a", "b"]   # by density, not merged
    assert lay.c3_order(funcs, {("b", "a"): 90}, max_cluster=4096) == ["a", "b"]
    assert lay.c3_order(funcs, {("b", "a"): 90}, max_cluster=1 << 20) == ["b", "a"]   # a joins its caller


def test_c3_against_brute_force_call_distance():
    """On tiny graphs whose call arcs form one chain from the hottest function down, C3's order is as short in
    total weighted call distance (caller's end to callee's start) as the best of all orders."""
    rng = random.Random(3)
    for _ in range(100):
        n = rng.randint(2, 6)
        names = [f"f{i}" for i in range(n)]
        funcs = {f: (rng.randint(1, 100), rng.randint(16, 400)) for f in names}
        hot = sorted(names, key=lambda f: (-funcs[f][0], f))
        # each function (but the hottest) called by the next hotter one
        arcs = {(hot[i - 1], hot[i]): rng.randint(1, 50) for i in range(1, n)}
        order = lay.c3_order(funcs, arcs)
        assert sorted(order) == sorted(names)
        best = min(lay.call_distance(p, funcs, arcs) for p in itertools.permutations(names))
        assert lay.call_distance(order, funcs, arcs) <= best + 1e-9


# -- the interp program: a simulated run on its real CFG ----------------------------------------------------------
def readobj_map(path):
    tool = need_tool("llvm-readobj-22")
    j = json.loads(subprocess.check_output([tool, "--bb-addr-map", "--elf-output-style=JSON", str(path)]))
    out = {}
    for f in j[0]["BBAddrMap"]:
        fn = f["Function"]
        blocks = []
        for r in fn["BB Ranges"]:
            for e in r["BB Entries"]:
                blocks.append(dict(id=e["ID"], start=r["Base Address"] + e["Offset"], size=e["Size"],
                                   ft=e["CanFallThrough"]))
        pgo = fn.get("PGO analyses", {}).get("PGO BB entries", [])
        succ = {b["id"]: [s["ID"] for s in p.get("Successors", [])] for b, p in zip(blocks, pgo)}
        post = {b["id"]: p.get("PostLink Frequency") for b, p in zip(blocks, pgo)}
        freq = {b["id"]: p.get("Frequency") for b, p in zip(blocks, pgo)}
        post_edges = {(b["id"], s["ID"]): s.get("PostLink Probability") for b, p in zip(blocks, pgo)
                      for s in p.get("Successors", [])}
        out[fn["Name"]] = dict(blocks=blocks, succ=succ, ranges=[[e["ID"] for e in r["BB Entries"]]
                                                                  for r in fn["BB Ranges"]],
                               post=post, post_edges=post_edges, freq=freq)
    return out


def elf_text(path):
    from elftools.elf.elffile import ELFFile
    with open(path, "rb") as f:
        e = ELFFile(f)
        text = [s for s in e.iter_segments() if s["p_type"] == "PT_LOAD" and s["p_flags"] & 1][0]
        seg = dict(vaddr=text["p_vaddr"], offset=text["p_offset"], memsz=text["p_memsz"])
        bid = next(iter(e.get_section_by_name(".note.gnu.build-id").iter_notes()))["n_desc"]
    return seg, bytes.fromhex(bid)


def simulate(fmap, name, rng, walks=300, max_steps=400):
    """Walk ``name``'s CFG with branch probabilities drawn here (skewed, not the compiler's); returns the
    visits per block, the true edge counts and the walks' block sequences."""
    f = fmap[name]
    probs = {}
    for b, ss in f["succ"].items():
        ws = [rng.random() ** 3 for _ in ss]
        t = sum(ws) or 1
        probs[b] = [w / t for w in ws]
    entry = f["ranges"][0][0]
    visits, edges, seqs = Counter(), Counter(), []
    for _ in range(walks):
        b, seq = entry, [entry]
        visits[b] += 1
        for _ in range(max_steps):
            ss = f["succ"].get(b) or []
            if not ss:
                break
            nxt = rng.choices(ss, probs[b])[0]
            edges[(b, nxt)] += 1
            visits[nxt] += 1
            seq.append(nxt)
            b = nxt
        seqs.append(seq)
    return visits, edges, seqs


def write_samples(path, fmap, name, visits, seqs=None):
    """IP samples: each visit of a block leaves size/4 samples spread over it (time ~ instructions); with
    ``seqs``, each walk also leaves one sample carrying its last 16 taken branches."""
    seg, bid = elf_text(INTERP)
    blocks = {b["id"]: b for b in fmap[name]["blocks"]}
    w = PerfDataWriter(sample_type_bits("IP", "TID", "BRANCH_STACK") if seqs else None)
    start = BASE + (seg["vaddr"] & ~0xFFF)
    length = (seg["vaddr"] + seg["memsz"] - (seg["vaddr"] & ~0xFFF) + 0xFFF) & ~0xFFF
    w.mmap2(7, 7, start, length, seg["offset"] & ~0xFFF, str(INTERP), build_id=bid)
    for b, n in sorted(visits.items()):
        blk = blocks[b]
        for k in range(n * max(1, blk["size"] // 4) // 8):
            w.sample(BASE + blk["start"] + (k * 4) % blk["size"], 7, branches=[] if seqs else None)
    by_addr = sorted(blocks.values(), key=lambda x: x["start"])
    nxt = {a["id"]: b["id"] for a, b in zip(by_addr, by_addr[1:]) if a["ft"]}
    for seq in seqs or ():
        taken = [(BASE + blocks[a]["start"] + blocks[a]["size"] - 1, BASE + blocks[b]["start"])
                 for a, b in zip(seq, seq[1:]) if nxt.get(a) != b]
        if taken:
            last = blocks[seq[-1]]
            w.sample(BASE + last["start"], 7, branches=list(reversed(taken[-16:])))
    path.write_bytes(w.to_bytes())


@pytest.fixture(scope="module")
def interp_run(tmp_path_factory):
    fmap = readobj_map(INTERP)
    visits, edges, seqs = simulate(fmap, "run", random.Random(11))
    path = tmp_path_factory.mktemp("layout") / "interp.data"
    write_samples(path, fmap, "run", visits)
    return dict(fmap=fmap, visits=visits, edges=edges, seqs=seqs, path=path)


def test_estimated_edges_follow_the_cfg_and_improve_the_true_score(interp_run):
    fmap, true_edges = interp_run["fmap"], interp_run["edges"]
    prof = profile(str(INTERP), str(interp_run["path"]))
    fp = prof.function("run")
    assert fp is not None and prof.functions[0].name == "run"
    fl = lay.layout_function(fp.function, fp.blocks, prof)
    assert fl.edge_source == "pgo analysis map"
    static = {(a, s) for a, ss in fmap["run"]["succ"].items() for s in ss}
    assert set(fl.weights) <= static                     # only edges of the compiler's CFG
    assert all(w >= 0 for w in fl.weights.values())
    # Every block the walk visited often is hot (in the cluster); the entry is first.
    top = max(interp_run["visits"].values())
    often = {b for b, v in interp_run["visits"].items() if v >= 0.05 * top}
    assert often <= set(fl.block_ids)
    assert fl.block_ids[0] == fmap["run"]["ranges"][0][0]
    # Scored on the true edge counts, the layout beats the compiler's order of the same hot blocks.
    sizes = {b["id"]: b["size"] for b in fmap["run"]["blocks"]}
    truth = [(a, b, w) for (a, b), w in true_edges.items()]
    by_addr = [b["id"] for b in sorted(fmap["run"]["blocks"], key=lambda b: b["start"]) if b["id"] in fl.block_ids]
    assert lay.ext_tsp_score(fl.block_ids, sizes, truth) > lay.ext_tsp_score(by_addr, sizes, truth)


def test_unsampled_blocks_the_compiler_expects_to_run_stay_in_the_hot_part(tmp_path):
    """Samples in the entry block of ``run`` only: every block whose frequency (llvm-readobj-22's PGO analysis
    map) is at least KEEP_STATIC_SHARE of the entry's stays in the cluster, the rarer ones go to the cold part."""
    fmap = readobj_map(INTERP)
    f = fmap["run"]
    entry = f["ranges"][0][0]
    path = tmp_path / "entry.data"
    write_samples(path, fmap, "run", {entry: 400})
    prof = profile(str(INTERP), str(path))
    fp = prof.function("run")
    assert set(fp.blocks) == {entry}
    fl = lay.layout_function(fp.function, fp.blocks, prof)
    share = {b: q / f["freq"][entry] for b, q in f["freq"].items()}
    expected = {b for b, x in share.items() if x >= lay.KEEP_STATIC_SHARE}
    assert len(expected) > 2 and expected != set(share)      # the test needs both kinds of blocks
    assert expected <= set(fl.block_ids)
    rare = {b for b, x in share.items() if x < lay.KEEP_STATIC_SHARE / 10}
    assert rare and not rare & set(fl.block_ids) - set(lay.hot_blocks(fp.function, fl.counts, fl.weights,
                                                                         keep_share=0))
    [c] = [c for c in cl.build_clusters(prof, min_share=0, layout="ext-tsp") if c.function == "run"]
    assert c.block_ids == fl.block_ids and c.block_ids[0] == entry


def objdump_calls(path):
    """{(caller, callee)} of the direct calls and jumps to functions llvm-objdump-22 disassembles."""
    tool = need_tool("llvm-objdump-22")
    out = subprocess.check_output([tool, "-d", "--no-show-raw-insn", str(path)], text=True)
    calls, cur = set(), None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            cur = m.group(1)
            continue
        m = re.search(r"\s(call|jmp)q?\s+(?:0x)?[0-9a-f]+ <([^+>@]+)>$", line)
        if m and cur and m.group(2) != cur:
            calls.add((cur, m.group(2)))
    return calls


def test_call_arcs_match_objdump(tmp_path):
    fmap = readobj_map(INTERP)
    # samples in every block of every function: every call site counts
    visits = Counter()
    seg, bid = elf_text(INTERP)
    w = PerfDataWriter()
    start = BASE + (seg["vaddr"] & ~0xFFF)
    length = (seg["vaddr"] + seg["memsz"] - (seg["vaddr"] & ~0xFFF) + 0xFFF) & ~0xFFF
    w.mmap2(7, 7, start, length, seg["offset"] & ~0xFFF, str(INTERP), build_id=bid)
    for f in fmap.values():
        for b in f["blocks"]:
            w.sample(BASE + b["start"], 7)
            visits[b["id"]] += 1
    path = tmp_path / "all.data"
    path.write_bytes(w.to_bytes())
    prof = profile(str(INTERP), str(path))
    order, arcs, relocated = lay.order_for_binary(prof, str(INTERP))
    assert relocated
    mapped = set(fmap)
    want = {(a, b) for a, b in objdump_calls(INTERP) if a in mapped and b in mapped}
    assert want and set(arcs) == want
    assert sorted(order) == sorted(f.name for f in prof.functions)


# -- clang-22 reads what objllvm writes ------------------------------------------------------------------------------
def rebuild(tmp_path, prof_file, *extra):
    clang = need_tool("clang-22")
    exe = tmp_path / "interp-laid-out"
    b = subprocess.run([clang, "-O2", "-fbasic-block-address-map", "-mllvm", "-pgo-analysis-map=bb-freq,br-prob",
                        "-ffunction-sections", f"-fbasic-block-sections=list={prof_file}", *extra,
                        "-fuse-ld=lld", "-Wl,--emit-relocs", str(SRC), "-o", str(exe)],
                       capture_output=True, text=True)
    assert b.returncode == 0, b.stderr
    want = subprocess.run([str(INTERP), "300"], capture_output=True, text=True).stdout
    assert want and subprocess.run([str(exe), "300"], capture_output=True, text=True).stdout == want
    return exe, b.stderr


def test_clang22_reads_clusters_and_cfg_lines(interp_run, tmp_path):
    prof = profile(str(INTERP), str(interp_run["path"]))
    clusters = cl.build_clusters(prof, min_share=0.0, layout="ext-tsp", cfg=True)
    path = tmp_path / "prof.txt"
    cl.write_clusters(str(path), clusters)
    parsed = cl.parse_profile_text(path.read_text())
    assert parsed["run"]["counts"] and parsed["run"]["edges"]
    exe, err = rebuild(tmp_path, path, "-mllvm", "-pgo-analysis-map-emit-bb-sections-cfg")
    assert "warning" not in err
    got = readobj_map(exe)
    for name, p in parsed.items():
        assert got[name]["ranges"][0] == p["clusters"][0], name       # the hot part is the cluster, in order
        # the g line's counts are the post-link frequencies of the rebuilt map
        for b, n in p["counts"].items():
            assert got[name]["post"][b] == n, (name, b)
        for e, n in p["edges"].items():
            if e in got[name]["post_edges"]:
                assert got[name]["post_edges"][e] == n, (name, e)
        assert set(p["edges"]) <= set(got[name]["post_edges"])
    # blocks without a count read back as zero
    run_post = got["run"]["post"]
    assert all(run_post[b] == 0 for b in run_post if b not in parsed["run"]["counts"])


def test_clang22_clones_paths_from_branch_stacks(tmp_path):
    fmap = readobj_map(INTERP)
    visits, _edges, seqs = simulate(fmap, "run", random.Random(5))
    path = tmp_path / "lbr.data"
    write_samples(path, fmap, "run", visits, seqs)
    prof = profile(str(INTERP), str(path))
    assert prof.branch_samples > 0
    clusters = cl.build_clusters(prof, min_share=0.0, layout="ext-tsp", clone_paths=True)
    run = next(c for c in clusters if c.function == "run")
    assert run.edge_source == "branch stacks"
    assert run.clone_paths, "the walk should give a join block two hot predecessors"
    for a, b in run.clone_paths:
        assert b in fmap["run"]["succ"][a]                        # a real edge of the CFG
        assert run.block_ids.index(f"{b}.1") == run.block_ids.index(a) + 1
    prof_file = tmp_path / "prof.txt"
    cl.write_clusters(str(prof_file), clusters)
    assert re.search(r"^p \d+ \d+$", prof_file.read_text(), re.M)
    exe, err = rebuild(tmp_path, prof_file)
    assert "warning" not in err                                    # clang applied every clone
    got = readobj_map(exe)
    hot = got["run"]["ranges"][0]
    # the hot part has one block per cluster entry: the clones are real blocks (same ID as their original)
    assert len(hot) == len(run.block_ids)
    for _a, b in run.clone_paths:
        assert hot.count(b) == 2


def test_cli_writes_function_order_lld_reads(interp_run, tmp_path):
    order_file = tmp_path / "order.txt"
    prof_file = tmp_path / "prof.txt"
    code, out, err = run_objllvm("perf-map", INTERP, interp_run["path"], "--clusters", prof_file, "--cfg",
                                 "--function-order", order_file, "--min-share", "0")
    assert code == 0, err
    assert f"written to {order_file}" in out and "emit-relocs" not in err
    names = [ln for ln in order_file.read_text().splitlines() if ln and not ln.startswith("#")]
    prof = profile(str(INTERP), str(interp_run["path"]))
    assert sorted(names) == sorted(f.name for f in prof.functions)
    code, out, err = run_objllvm("perf-map", INTERP, interp_run["path"], "--cfg")
    assert code != 0 and "--clusters" in err
    exe, err = rebuild(tmp_path, prof_file, f"-Wl,--symbol-ordering-file={order_file}",
                       "-Wl,--warn-symbol-ordering")
    assert "symbol ordering" not in err
    nm = need_tool("llvm-nm-22")
    addr = {}
    for line in subprocess.check_output([nm, str(exe)], text=True).splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tT":
            addr[parts[2]] = int(parts[0], 16)
    starts = [addr[n] for n in names]
    assert starts == sorted(starts)                               # lld placed them in that order


def test_function_order_without_relocations_says_so(tmp_path):
    """testdata/perf/loop.pie was linked without --emit-relocs: the order is written, with a warning."""
    loop = TESTDATA / "perf" / "loop.pie"
    from elftools.elf.elffile import ELFFile
    with open(loop, "rb") as f:
        e = ELFFile(f)
        text = [s for s in e.iter_segments() if s["p_type"] == "PT_LOAD" and s["p_flags"] & 1][0]
        funcs = [s for s in e.get_section_by_name(".symtab").iter_symbols()
                 if s["st_info"]["type"] == "STT_FUNC" and s.name in ("checksum", "mix")]
    w = PerfDataWriter()
    w.mmap2(3, 3, BASE + (text["p_vaddr"] & ~0xFFF), 0x10000, text["p_offset"] & ~0xFFF, str(loop))
    for s in funcs:
        w.sample(BASE + s["st_value"], 3)
    data = tmp_path / "loop.data"
    data.write_bytes(w.to_bytes())
    out = tmp_path / "order.txt"
    code, _out, err = run_objllvm("perf-map", loop, data, "--function-order", out)
    assert code == 0, err
    assert "--emit-relocs" in err
    names = [ln for ln in out.read_text().splitlines() if ln and not ln.startswith("#")]
    assert sorted(names) == sorted(s.name for s in funcs)


# -- the priority-queue ext-TSP against exhaustive greedy merging --------------------------------------------------
def exhaustive_ext_tsp(blocks, sizes, edges, entry):
    """Reference: greedy chain merging that rescans every pair of chains after each merge and scores every
    candidate order (``X Y``, ``Y X``, and ``X`` split anywhere: ``X1 Y X2``, ``Y X2 X1``, ``X2 X1 Y``) in full
    with ext_tsp_score; chains then by density, the entry's first."""
    es = [(a, b, w) for a, b, w in edges if w > 0]
    chains = [[b] for b in blocks]
    while True:
        best = (1e-9, None, None)
        for i, x in enumerate(chains):
            for j, y in enumerate(chains):
                if i >= j or not any((a in x and b in y) or (a in y and b in x) for a, b, _w in es):
                    continue
                base = lay.ext_tsp_score(x, sizes, es) + lay.ext_tsp_score(y, sizes, es)
                for p, q in ((x, y), (y, x)):
                    cands = [p + q] + [c for k in range(1, len(p))
                                       for c in (p[:k] + q + p[k:], q + p[k:] + p[:k], p[k:] + p[:k] + q)]
                    for c in cands:
                        if (entry in x or entry in y) and c[0] != entry:
                            continue
                        g = lay.ext_tsp_score(c, sizes, es) - base
                        if g > best[0] + 1e-9:
                            best = (g, (i, j), c)
        if best[1] is None:
            break
        i, j = best[1]
        chains = [c for k, c in enumerate(chains) if k not in (i, j)] + [best[2]]
    weight = lambda c: sum(w for a, _b, w in es if a in c) / max(1, sum(sizes[b] for b in c))  # noqa: E731
    first = [c for c in chains if entry in c]
    rest = sorted((c for c in chains if entry not in c), key=lambda c: -weight(c))
    order = [b for c in first + rest for b in c]
    return order if lay.ext_tsp_score(order, sizes, es) >= lay.ext_tsp_score(blocks, sizes, es) else blocks


def cfg_like(rng, n):
    """A random CFG: a spine of fall-through candidates, branches forward, a few loop back edges, and counts
    that flow (hot loops, cold exits)."""
    sizes = {b: rng.choice([3, 6, 9, 16, 24, 48, 120, 400]) for b in range(n)}
    edges = []
    for b in range(n - 1):
        edges.append((b, b + 1, rng.choice([1, 10, 100, 1000])))
        if rng.random() < 0.5:
            edges.append((b, rng.randrange(b + 1, n), rng.choice([1, 5, 50, 500])))
        if rng.random() < 0.2:
            edges.append((b, rng.randrange(0, b + 1), rng.choice([10, 100, 2000])))
    return sizes, edges


def test_priority_queue_ext_tsp_scores_at_least_as_high_as_exhaustive_merging():
    rng = random.Random(35)
    new_total = old_total = 0.0
    for t in range(120):
        n = rng.randint(2, 14)
        sizes, edges = cfg_like(rng, n) if t % 2 else random_graph(rng, n, rng.randint(1, 3 * n))
        blocks = list(range(n))
        rng.shuffle(blocks)
        entry = blocks[0]
        got = lay.ext_tsp_order(blocks, sizes, edges, entry)
        assert sorted(got) == sorted(blocks) and got[0] == entry
        new, old = (lay.ext_tsp_score(o, sizes, edges)
                    for o in (got, exhaustive_ext_tsp(blocks, sizes, edges, entry)))
        new_total += new
        old_total += old
        assert new + 1e-9 >= lay.ext_tsp_score(blocks, sizes, edges)
        assert new >= old - 1e-9, (t, new, old)
    assert new_total >= old_total - 1e-6


class _Audited(lay._ExtTSP):
    """The solver, recording the gain each merge was chosen by and the score change it made."""

    def __init__(self, *a):
        super().__init__(*a)
        self.claimed, self.seen = {}, []

    def best_merge(self, x, y):
        g, p, q, k, kind = super().best_merge(x, y)
        if p is not None:
            self.claimed[(p, q, tuple(lay._merge_nodes(self.nodes[p], self.nodes[q], k, kind)))] = g
        return g, p, q, k, kind

    def chain_score(self, c):
        """The ext-TSP score of the jumps inside chain ``c``."""
        return sum(lay.edge_score(self.off[a] + self.size[a], self.off[b], w)
                   for a, b, w in (self.edges[e] for e in self.intra[c]))

    def merge(self, x, y, order):
        before = self.chain_score(x) + self.chain_score(y)
        super().merge(x, y, order)
        self.seen.append((self.claimed[(x, y, tuple(order))], self.chain_score(x) - before))


def test_ext_tsp_merges_by_their_whole_gain(monkeypatch):
    """A merge inserting a chain between two nodes is chosen by its gain after the jumps across the split got
    longer, also when the jumps between the chains alone tie with another merge (here: block 2 after block 3,
    or between blocks 6 and 3 with a loss on the jump 3 -> 4)."""
    solvers = []
    monkeypatch.setattr(lay, "_ExtTSP", lambda *a: solvers.append(_Audited(*a)) or solvers[-1])
    cases = [([0, 7, 1, 2, 3, 4, 5, 6], {0: 13, 7: 5, 1: 9, 2: 9, 3: 14, 4: 12, 5: 18, 6: 5},
              [(0, 2, 0.5176), (0, 7, 6.4362), (7, 3, 2.5922), (1, 4, 0.6758), (2, 4, 0.6758), (3, 4, 9.5055),
               (4, 6, 0.5272), (4, 5, 10.0283)])]
    rng = random.Random(8)
    for _ in range(40):
        sizes, edges = cfg_like(rng, rng.randint(4, 30))
        cases.append((list(sizes), sizes, edges))
    for blocks, sizes, edges in cases:
        lay.ext_tsp_order(blocks, sizes, edges, blocks[0])
    assert sum(len(s.seen) for s in solvers) > 200
    for s in solvers:
        for claimed, made in s.seen:
            assert claimed == pytest.approx(made, abs=1e-9)


def test_ext_tsp_on_a_large_graph_stays_valid():
    rng = random.Random(3)
    sizes, edges = cfg_like(rng, 300)
    blocks = list(range(300))
    got = lay.ext_tsp_order(blocks, sizes, edges, 0)
    assert sorted(got) == blocks and got[0] == 0
    assert lay.ext_tsp_score(got, sizes, edges) > lay.ext_tsp_score(blocks, sizes, edges)


# -- cache-directed sort -----------------------------------------------------------------------------------------
def test_cdsort_puts_a_hot_call_chain_together_and_cold_functions_last():
    funcs = {"main": (100, 200), "a": (900, 300), "b": (800, 100), "c": (700, 120), "cold1": (0, 5000),
             "cold2": (1, 8000), "x": (50, 60)}
    arcs = {("main", "a"): 100, ("a", "b"): 800, ("b", "c"): 700, ("main", "x"): 5}
    order = lay.cdsort_order(funcs, arcs)
    assert sorted(order) == sorted(funcs)
    pos = {f: i for i, f in enumerate(order)}
    assert abs(pos["a"] - pos["b"]) == 1 and abs(pos["b"] - pos["c"]) == 1
    assert pos["cold1"] > pos["c"] and pos["cold2"] > pos["c"]


def test_cdsort_lowers_call_distance_against_hotness_order():
    rng = random.Random(9)
    better = 0
    for _ in range(30):
        n = rng.randint(6, 30)
        funcs = {f"f{i}": (rng.randint(1, 1000), rng.randint(16, 4000)) for i in range(n)}
        names = list(funcs)
        arcs = {}
        for _ in range(2 * n):
            a, b = rng.sample(names, 2)
            arcs[(a, b)] = arcs.get((a, b), 0) + rng.randint(1, 500)
        order = lay.cdsort_order(funcs, arcs)
        assert sorted(order) == sorted(funcs)
        hot = sorted(funcs, key=lambda f: -funcs[f][0])
        if lay.call_distance(order, funcs, arcs) <= lay.call_distance(hot, funcs, arcs):
            better += 1
    assert better >= 24, better


def test_default_clusters_cover_every_sampled_function_and_the_heading_says_what_is_listed(tmp_path):
    """A function with a sliver of the samples still gets a cluster by default (its cold blocks leave the hot
    code), and a table cut at --top says so."""
    fmap = readobj_map(INTERP)
    seg, bid = elf_text(INTERP)
    w = PerfDataWriter()
    start = BASE + (seg["vaddr"] & ~0xFFF)
    length = (seg["vaddr"] + seg["memsz"] - (seg["vaddr"] & ~0xFFF) + 0xFFF) & ~0xFFF
    w.mmap2(7, 7, start, length, seg["offset"] & ~0xFFF, str(INTERP), build_id=bid)
    shares = {"run": 5000, "helper_mix": 3, "helper_rare": 2, "main": 1}     # the helpers: < 0.1% each
    for name, n in shares.items():
        b = fmap[name]["blocks"][0]
        for k in range(n):
            w.sample(BASE + b["start"] + (k * 4) % max(1, b["size"]), 7)
    data = tmp_path / "d.data"
    data.write_bytes(w.to_bytes())
    out_file = tmp_path / "c.txt"
    code, out, err = run_objllvm("perf-map", INTERP, data, "--clusters", out_file, "--top", "2")
    assert code == 0, err
    assert set(cl.parse_cluster_text(out_file.read_text())) == set(shares)
    assert f"Clusters written to {out_file}: 4 functions (the 2 hottest listed; --top N for more)" in out
    code, out, err = run_objllvm("perf-map", INTERP, data, "--clusters", out_file, "--min-share", "0.01")
    assert code == 0, err
    assert set(cl.parse_cluster_text(out_file.read_text())) == {"run"}
    assert "hottest listed" not in out


def test_layouts_in_forked_processes_equal_those_of_one(interp_run, monkeypatch):
    prof = profile(str(INTERP), str(interp_run["path"]))
    fps = [fp for fp in prof.functions if fp.function.name] * 12      # shares for a parent and two children
    monkeypatch.setattr(forked, "PARALLEL_MIN_BLOCKS", 0)
    one = forked.layout_functions(fps, prof, jobs=1)
    made, real = [], forked._fork_layouts
    monkeypatch.setattr(forked, "_fork_layouts", lambda *a: made.append(real(*a)) or made[-1])
    many = forked.layout_functions(fps, prof, jobs=3)
    assert len(made) == 2 and None not in made                              # two children did their shares
    assert [f.block_ids for f in many] == [f.block_ids for f in one] and len(one) == len(fps)
    assert [(f.weights, f.counts, f.score_after) for f in many] == [(f.weights, f.counts, f.score_after)
                                                                   for f in one]
    # build_clusters through it: the cluster file's content is the same
    text = cl.cluster_text(cl.build_clusters(prof, min_share=0, layout="ext-tsp", jobs=1))
    assert cl.cluster_text(cl.build_clusters(prof, min_share=0, layout="ext-tsp", jobs=3)) == text


def test_a_failed_layout_process_leaves_its_share_to_the_parent(interp_run, monkeypatch):
    import os
    prof = profile(str(INTERP), str(interp_run["path"]))
    fps = [fp for fp in prof.functions if fp.function.name] * 12
    monkeypatch.setattr(forked, "PARALLEL_MIN_BLOCKS", 0)
    one = forked.layout_functions(fps, prof, jobs=1)
    parent, plain = os.getpid(), lay.layout_function

    def fails_in_a_child(*a, **k):
        if os.getpid() != parent:
            raise RuntimeError("a child fails")
        return plain(*a, **k)
    monkeypatch.setattr(lay, "layout_function", fails_in_a_child)
    got = []
    real = forked._child_layouts
    monkeypatch.setattr(forked, "_child_layouts", lambda child: got.append(real(child)) or got[-1])
    assert [f.block_ids for f in forked.layout_functions(fps, prof, jobs=2)] == [f.block_ids for f in one]
    assert got == [None]                # one child was made, and it failed
