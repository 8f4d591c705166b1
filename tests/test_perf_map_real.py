"""perf-map on real recordings (testdata/perf-map, made by scripts/testdata.d/61-perf-map.sh).

Oracles, all produced by other tools when the test data was made: ``perf script -F pid,ip`` (perf's own reading
of every recording, plain and zstd-compressed), ``perf2bolt-22 --ba`` (per-function sample attribution) and
``llvm-readobj-22 --bb-addr-map`` (block hashes, at test time).  Merges are checked against sums of the
separate recordings, and the fleet mode (Dask) against the local one.
"""
from __future__ import annotations

import json
import struct
import subprocess
from collections import Counter

import pytest

from conftest import TESTDATA, need_tool, run_objllvm
from objllvm.perf import merge as mg
from objllvm.perf.mapping import map_profile, profile
from objllvm.perf.perfdata import PerfData, collect_perfdata
from objllvm.perf.stale import carry

PM = TESTDATA / "perf-map"
OLD, NEW = PM / "loop.pie", PM / "loop-next.pie"
RUNS = [PM / "run-a.data", PM / "run-b.data", PM / "run-a-z.data"]


def perf_script_counts(data):
    """{(pid, ip): samples} as perf script printed them (committed with the recording)."""
    out = Counter()
    for line in (PM / (data.stem + ".perf-script.txt")).read_text().splitlines():
        n, pid, ip = line.split()
        out[(int(pid), int(ip, 16))] += int(n)
    return out


def fdata_functions(data):
    """{function: samples} from perf2bolt-22 --ba output (``1 name offset count`` lines)."""
    out = Counter()
    for line in (PM / (data.stem + ".fdata")).read_text().splitlines()[1:]:
        _, name, _off, n = line.split()
        out[name.split("/")[0]] += int(n)
    return out


# -- decoding: plain and zstd-compressed ---------------------------------------------------------------------
@pytest.mark.parametrize("data", RUNS + [PM / "run-c-pipe-z.data"], ids=lambda p: p.name)
def test_every_sample_read_as_perf_reads_it(data):
    raw = collect_perfdata(str(data))
    assert +raw.ip_counts == perf_script_counts(data)
    assert raw.samples == sum(perf_script_counts(data).values()) > 200
    assert raw.unknown_records == 0


def test_compressed_recording_is_decompressed():
    with PerfData(str(PM / "run-a-z.data")) as pd:
        recs = list(pd.records())
        assert pd.compressed_records >= 1 and pd.decompressed_bytes > 10 * 1024
        assert pd.stats["COMPRESSED"] == pd.compressed_records
        assert pd.stats["SAMPLE"] == sum(1 for r in recs if r[0] == 9) > 500
    with PerfData(str(PM / "run-a.data")) as pd:
        list(pd.records())
        assert pd.compressed_records == 0


def _repack_compressed(data: bytes, chunk: int, frame: int, typ: int = 81) -> bytes:
    """The same recording with its data section zstd-compressed into COMPRESSED records the way perf writes them:
    frames of ``frame`` input bytes (cut anywhere, so records straddle frames), each frame cut into records of
    at most ``chunk`` payload bytes (so frames straddle records).  The feature table is moved after it."""
    import zstandard
    data_off, data_size = struct.unpack_from("<QQ", data, 40)
    body = data[data_off:data_off + data_size]
    c = zstandard.ZstdCompressor(level=1)
    out = bytearray()
    for i in range(0, len(body), frame):
        z = c.compress(body[i:i + frame])
        for j in range(0, len(z), chunk):
            part = z[j:j + chunk]
            if typ == 81:
                out += struct.pack("<IHH", 81, 0, 8 + len(part)) + part
            else:                                  # COMPRESSED2: a data size, padded to 8 bytes
                pad = -len(part) % 8
                out += struct.pack("<IHHQ", 83, 0, 16 + len(part) + pad, len(part)) + part + b"\0" * pad
    delta = len(out) - data_size
    feats = sum(bin(w).count("1") for w in struct.unpack_from("<4Q", data, 72))
    table = bytearray(data[data_off + data_size:data_off + data_size + 16 * feats])
    for k in range(feats):
        off, size = struct.unpack_from("<QQ", table, 16 * k)
        struct.pack_into("<QQ", table, 16 * k, off + delta, size)
    head = bytearray(data[:data_off])
    struct.pack_into("<Q", head, 48, len(out))
    return bytes(head) + bytes(out) + bytes(table) + data[data_off + data_size + 16 * feats:]


@pytest.mark.parametrize("chunk,frame,typ", [(4000, 10**9, 81), (300, 5000, 81), (97, 1001, 83)])
def test_compressed_twin_gives_the_same_counts(tmp_path, chunk, frame, typ):
    """A real plain recording and its compressed twin (same records, zstd): the same profile, exactly."""
    src = PM / "run-a.data"
    twin = tmp_path / "twin.data"
    twin.write_bytes(_repack_compressed(src.read_bytes(), chunk, frame, typ))
    a, b = collect_perfdata(str(src)), collect_perfdata(str(twin))
    assert b.ip_counts == a.ip_counts and b.samples == a.samples and b.build_ids == a.build_ids
    assert {k: v for k, v in b.records.items() if not k.startswith("COMPRESSED")} == a.records
    assert b.records["COMPRESSED" if typ == 81 else "COMPRESSED2"] > (1 if frame < 10**9 else 0)
    pa, pb = profile(str(OLD), str(src)), profile(str(OLD), str(twin))
    assert [(f.name, f.blocks) for f in pa.functions] == [(f.name, f.blocks) for f in pb.functions]


def test_corrupt_compressed_record_is_a_located_error(tmp_path):
    from objllvm.errors import DecodeError
    data = bytearray(_repack_compressed((PM / "run-a.data").read_bytes(), 4000, 10**9))
    data_off = struct.unpack_from("<Q", data, 40)[0]
    data[data_off + 8 + 20:data_off + 8 + 40] = b"\xff" * 20           # inside the first compressed payload
    p = tmp_path / "bad.data"
    p.write_bytes(bytes(data))
    with pytest.raises(DecodeError) as ei:
        collect_perfdata(str(p))
    assert ei.value.offset is not None and ("COMPRESSED" in str(ei.value) or "zstd" in str(ei.value))
    code, _out, err = run_objllvm("perf-map", OLD, p)
    assert code == 1 and "Traceback" not in err and str(p) in err


def test_skipped_record_kinds_are_counted_and_reported():
    prof = profile(str(OLD), str(PM / "run-a-z.data"))
    with PerfData(str(PM / "run-a-z.data")) as pd:
        list(pd.records())
        stats = pd.stats
    assert prof.skipped_records and all(stats[k] == v for k, v in prof.skipped_records.items())
    assert "SAMPLE" not in prof.skipped_records and "MMAP2" not in prof.skipped_records
    code, out, err = run_objllvm("perf-map", OLD, PM / "run-a-z.data")
    assert code == 0, err
    assert "records read past" in out and all(f"{k} {v}" in out for k, v in prof.skipped_records.items())
    code, out, err = run_objllvm("perf-map", OLD, PM / "run-a-z.data", "--json")
    assert json.loads(out)["skipped_records"] == prof.skipped_records


# -- per-function attribution: perf2bolt -----------------------------------------------------------------------
@pytest.mark.parametrize("data", [RUNS[0], RUNS[2]], ids=lambda p: p.name)
def test_function_counts_equal_perf2bolt(data):
    """Every function with a block map gets exactly perf2bolt's count; what perf2bolt attributes to code without a
    map (PLT stubs, _start) is what perf-map counts as "no map for the function"."""
    prof = profile(str(OLD), str(data))
    bolt = fdata_functions(data)
    mapped = {f.name for f in prof.functions}
    assert Counter({f.name: f.samples for f in prof.functions}) == Counter({k: v for k, v in bolt.items()
                                                                            if k in mapped})
    from objllvm.perf.mapping import open_binary
    with_map = {f.name for f in open_binary(str(OLD))[1].functions}
    assert sum(v for k, v in bolt.items() if k not in with_map) == prof.unmapped.get("no map for the function", 0)
    assert not set(bolt) - mapped & with_map


# -- merging ---------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def parts():
    return [mg.read_one(str(p)) for p in RUNS]


def test_merge_is_the_sum(parts):
    a, b, c = parts
    ab = mg.merge(a, b)
    assert ab.samples == a.samples + b.samples and ab.unattributed == a.unattributed + b.unattributed
    for key in set(a.objects) | set(b.objects):
        oa, ob = a.objects.get(key), b.objects.get(key)
        want = (oa.offsets if oa else Counter()) + (ob.offsets if ob else Counter())
        assert ab.objects[key].offsets == want
    # Every run is of the same build: one object key for the binary, the build-id.
    assert len({k for p in parts for k in p.objects if "loop.pie" in str(p.objects[k].names)}) == 1
    assert mg.merge(mg.merge(a, b), c) == mg.merge(a, mg.merge(b, c))
    ba = mg.merge(b, a)                                                 # counts: the order does not matter
    assert {k: o.offsets for k, o in ab.objects.items()} == {k: o.offsets for k, o in ba.objects.items()}
    # Mapped: the merged profile's block counts are the sum of the separate ones.
    sep = [map_profile(p, str(OLD)) for p in parts]
    whole = map_profile(mg.merge(*parts), str(OLD))
    want = sum((Counter({(f.name, b): n for f in s.functions for b, n in f.blocks.items()}) for s in sep), Counter())
    assert Counter({(f.name, b): n for f in whole.functions for b, n in f.blocks.items()}) == want
    assert whole.total_samples == sum(s.total_samples for s in sep)


def test_saved_profile_round_trip_and_merge_again(parts, tmp_path):
    a, b, c = parts
    for p in parts:
        assert mg.MergedProfile.from_dict(json.loads(p.dumps())) == p
    code, out, err = run_objllvm("perf-map", OLD, RUNS[0], RUNS[1], "--save-profile", tmp_path / "ab.json",
                                 "--json")
    assert code == 0, err
    saved = mg.load(str(tmp_path / "ab.json"))
    assert saved == mg.merge(a, b) and json.loads((tmp_path / "ab.json").read_text())["version"] == 1
    # Merge the saved profile again with the third recording: same as all three at once, -j 2 as -j 1.
    code, out1, err = run_objllvm("perf-map", OLD, tmp_path / "ab.json", RUNS[2], "--json")
    assert code == 0, err
    code, out2, err = run_objllvm("perf-map", OLD, *RUNS, "--json", "-j", "2")
    assert code == 0, err
    d1, d2 = json.loads(out1), json.loads(out2)
    assert d1["functions"] == d2["functions"] and d1["samples"] == d2["samples"]
    assert d2["samples"]["total"] == sum(p.samples for p in parts)
    assert [r["samples"] for r in d2["recordings"]] == [p.samples for p in parts]


def test_bad_saved_profile_is_an_error(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"schema": "objllvm-perf-profile", "version": 99}')
    code, _out, err = run_objllvm("perf-map", OLD, p)
    assert code == 1 and "version 99" in err and "Traceback" not in err
    p.write_text('{"schema": "objllvm-perf-profile", "version": 1, "samples": -3}')
    code, _out, err = run_objllvm("perf-map", OLD, p)
    assert code == 1 and "Traceback" not in err


def test_fleet_on_a_local_dask_cluster(parts):
    pytest.importorskip("distributed", reason="dask[distributed] is not installed (the optional extra 'fleet')")
    from distributed import LocalCluster

    from objllvm.perf import fleet
    got = fleet.collect([str(p) for p in RUNS], workers=3, fanin=2)          # its own LocalCluster
    assert got == mg.merge(*parts)
    # A running cluster, by its scheduler's address: the library and the command line.
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=40) as cluster:
        addr = cluster.scheduler_address
        assert fleet.collect([str(p) for p in RUNS * 3], scheduler=addr, fanin=2) == mg.merge(*parts * 3)
        code, out, err = run_objllvm("perf-map", OLD, *RUNS, "--scheduler", addr, "--json")
        assert code == 0, err
        code, out1, err = run_objllvm("perf-map", OLD, *RUNS, "--json")
        assert json.loads(out)["functions"] == json.loads(out1)["functions"]
        # A bad recording among good ones: the error of the file, no traceback from the workers either.  (An ELF
        # file there would be one more binary of the process: the bad recording is text.)
        bad = PM / "run-a.perf-script.txt"
        code, out, err = run_objllvm("perf-map", OLD, RUNS[0], bad, "--scheduler", addr)
        assert code == 1 and str(bad) in err and "PERFILE2" in err and "Traceback" not in err, err

def test_unreachable_scheduler_is_an_error(monkeypatch):
    pytest.importorskip("distributed", reason="dask[distributed] is not installed (the optional extra 'fleet')")
    from objllvm.errors import ObjllvmError
    from objllvm.perf import fleet
    monkeypatch.setattr(fleet, "CONNECT_TIMEOUT", "1s")
    with pytest.raises(ObjllvmError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        fleet.collect([str(RUNS[0])], scheduler="tcp://127.0.0.1:9")


# -- no sample in the binary, usage errors ---------------------------------------------------------------------
def test_wrong_binary_is_an_error_and_writes_nothing(tmp_path):
    out_c = tmp_path / "c.txt"
    code, out, err = run_objllvm("perf-map", NEW, RUNS[0], "--clusters", out_c)
    assert code == 1 and out == "" and "Traceback" not in err
    assert "no sample of" in err and "wrong binary" in err and "loop.pie" in err and "no cluster file" in err
    assert not out_c.exists()


@pytest.mark.parametrize("share", ["1.5", "-0.1", "nan"])
def test_min_share_outside_0_1_is_a_usage_error(share):
    code, _out, err = run_objllvm("perf-map", OLD, RUNS[0], "--min-share", share)
    assert code == 2 and "--min-share" in err


# -- stale profiles: build N -> build N+1 ---------------------------------------------------------------------
def readobj_hashes(path):
    """{function: {block id: hash}} from llvm-readobj-22 (the LLVM 22 reader of version-5 maps with hashes)."""
    tool = need_tool("llvm-readobj-22")
    text = subprocess.check_output([tool, "--bb-addr-map", str(path)], text=True)
    out, fn, bid = {}, None, None
    for line in text.splitlines():
        t = line.strip()
        if t.startswith("Name:"):
            fn = t.split(":", 1)[1].strip()
            out[fn] = {}
        elif t.startswith("ID:"):
            bid = int(t.split(":", 1)[1])
        elif t.startswith("Hash:"):
            out[fn][bid] = int(t.split(":", 1)[1], 16)
    return out


def test_profile_carried_to_the_next_build():
    old_h, new_h = readobj_hashes(OLD), readobj_hashes(NEW)
    assert old_h["mix"] != new_h["mix"], "the source change should change some block hashes"
    prof = profile(str(OLD), [str(p) for p in RUNS])
    from objllvm.perf.mapping import open_binary
    _, oi = open_binary(str(OLD))
    _, ni = open_binary(str(NEW))
    new, rep = carry(prof, oi, str(NEW), ni)
    assert rep.total == prof.mapped_samples and rep.matched == new.mapped_samples
    assert rep.matched + rep.samples["block not matched"] + rep.samples["function not in the new build"] == rep.total
    assert rep.samples["exact hash"] > 0 and rep.samples["same opcodes, nearest hash"] > 0
    # Check every carried block against readobj's hashes: an exact match has the very same hash; a nearest one
    # the same opcode hash (bits 16-31); an unmatched block's opcode hash is in no block of the new function.
    kinds = Counter()
    for f in prof.functions:
        for bid, n in f.blocks.items():
            h = old_h[f.name][bid]
            same = [b for b, x in new_h[f.name].items() if x == h]
            ops = [b for b, x in new_h[f.name].items() if (x >> 16) & 0xFFFF == (h >> 16) & 0xFFFF]
            if same:
                kinds["exact hash"] += n
                assert new.function(f.name).blocks[same[0]] >= n
            elif ops:
                kinds["same opcodes, nearest hash"] += n
                assert any(b in new.function(f.name).blocks for b in ops)
            else:
                kinds["block not matched"] += n
    assert kinds == +rep.samples
    # checksum's code did not change: all its samples come along.
    row = next(r for r in rep.functions if r["function"] == "checksum")
    assert row["lost"] == 0 and row["matched"] == prof.function("checksum").samples


def test_stale_cli_text_and_json(tmp_path):
    code, out, err = run_objllvm("perf-map", NEW, *RUNS, "--recorded-on", OLD, "--json",
                                 "--clusters", tmp_path / "c.txt")
    assert code == 0, err
    d = json.loads(out)
    s = d["stale"]["samples"]
    assert s["total"] == s["matched"] + s["block_not_matched"] + s["function_not_in_the_new_build"]
    assert d["samples"]["mapped"] == s["matched"] and d["build_id"] != d["stale"]["old_build_id"]
    assert "f checksum" in (tmp_path / "c.txt").read_text()
    code, out, err = run_objllvm("perf-map", NEW, *RUNS, "--recorded-on", OLD)
    assert code == 0, err
    assert f"{s['matched']} of {s['total']} samples matched" in out and "exact hash" in out
    # Another program (with hashes): nothing matches, an error, no cluster file.
    other = TESTDATA / "bb-addr-map" / "rustc-v5-hash.exe"
    code, out, err = run_objllvm("perf-map", other, *RUNS, "--recorded-on", OLD, "--clusters", tmp_path / "d.txt")
    assert code == 1 and "none of the" in err and "same program" in err and not (tmp_path / "d.txt").exists()
    # A build without hashes cannot be carried to: the error says how to get them.
    code, out, err = run_objllvm("perf-map", TESTDATA / "perf" / "loop.pie", *RUNS, "--recorded-on", OLD)
    assert code == 1 and "-emit-bb-hash" in err


# -- hostile input ---------------------------------------------------------------------------------------------
def test_mutated_compressed_recordings_give_located_errors_only(tmp_path):
    """Bytes changed, cut and inserted in compressed recordings (real and repacked): an ObjllvmError or a result,
    never another exception."""
    import random

    from objllvm.errors import ObjllvmError
    seeds = [(PM / "run-a-z.data").read_bytes(),
             _repack_compressed((PM / "run-a.data").read_bytes(), 300, 5000),
             _repack_compressed((PM / "run-a.data").read_bytes(), 97, 1001, 83)]
    rng = random.Random(7)
    p = tmp_path / "m.data"
    errors = 0
    for _ in range(300):
        d = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(d))
            k = rng.random()
            if k < 0.6:
                d[at] = rng.randrange(256)
            elif k < 0.8:
                del d[at:at + rng.randint(1, 64)]
            else:
                d[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        p.write_bytes(bytes(d))
        try:
            mg.reduce_raw(collect_perfdata(str(p)))
        except ObjllvmError as exc:
            errors += 1
            assert exc.file == str(p) and exc.offset is not None, exc
    assert errors > 50


def test_mutated_saved_profiles_give_errors_only():
    import copy
    import random

    from objllvm.errors import ObjllvmError
    base = json.loads(mg.read_one(str(RUNS[0])).dumps())
    values = [None, 5, -1, True, "x", "zz", [], {}, [[1]], [[1, 2, 3, 4]], [["a", 1]], [{"a": 1}], 1.5]

    def paths(o, pre=()):
        yield pre
        items = o.items() if isinstance(o, dict) else enumerate(o[:3]) if isinstance(o, list) else ()
        for k, v in items:
            yield from paths(v, pre + (k,))
    where = [p for p in paths(base) if p]
    rng = random.Random(3)
    rejected = 0
    for _ in range(400):
        d = copy.deepcopy(base)
        path = rng.choice(where)
        t = d
        for k in path[:-1]:
            t = t[k]
        t[path[-1]] = rng.choice(values)
        try:
            map_profile(mg.MergedProfile.from_dict(d), str(OLD))
        except ObjllvmError:
            rejected += 1
    assert rejected > 100


# -- branch stacks: merged and carried ---------------------------------------------------------------------------
def test_branch_stacks_merge_and_carry(tmp_path):
    """Synthetic LBR samples on build N (taken edge + fall-through run inside checksum): merging two recordings
    doubles every edge; carrying to build N+1 moves the edges whose both ends match, ids as readobj-22 says."""
    from test_perf_map import BASE, add_text_mapping, elf_info

    from objllvm.perf.mapping import open_binary
    from objllvm.perf.writer import PerfDataWriter, sample_type_bits
    seg, _syms, bid = elf_info(OLD)
    old_obj, oi = open_binary(str(OLD))
    fn = next(f for f in oi.functions if f.name == "checksum")
    blocks = sorted(fn.blocks, key=lambda b: b.address)
    b1, b2 = blocks[1], blocks[2]
    w = PerfDataWriter(sample_type_bits("IP", "TID", "BRANCH_STACK"))
    add_text_mapping(w, 5, BASE, seg, path=str(OLD), build_id=bid)
    lbr = [(BASE + b2.address + b2.size - 1, BASE + b1.address)] * 3
    for _ in range(4):
        w.sample(BASE + b1.address, 5, branches=lbr)
    path = tmp_path / "lbr.data"
    path.write_bytes(w.to_bytes())
    one = profile(str(OLD), str(path))
    two = profile(str(OLD), [str(path), str(path)])
    assert one.taken_edges == {(fn.address, b2.id, b1.id): 12}
    assert two.taken_edges == {k: 2 * v for k, v in one.taken_edges.items()}
    assert two.fallthrough_edges == {k: 2 * v for k, v in one.fallthrough_edges.items()} != {}
    _, ni = open_binary(str(NEW))
    new, rep = carry(two, oi, str(NEW), ni)
    old_h, new_h = readobj_hashes(OLD), readobj_hashes(NEW)
    by_hash = {h: i for i, h in new_h["checksum"].items()}
    nfn = next(f for f in ni.functions if f.name == "checksum")
    # checksum did not change and these two blocks hold no call: their hashes are the same in both builds.
    assert old_h["checksum"][b1.id] in by_hash and old_h["checksum"][b2.id] in by_hash
    assert new.taken_edges == {(nfn.address, by_hash[old_h["checksum"][b2.id]], by_hash[old_h["checksum"][b1.id]]): 24}
    assert sum(new.fallthrough_edges.values()) <= sum(two.fallthrough_edges.values())
