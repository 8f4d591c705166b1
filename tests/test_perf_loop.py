"""The performance engineer's loop around perf-map, on real programs (testdata/perf-loop, made by
scripts/testdata.d/62-perf-loop.sh): demangled names, recordings with several events, GNU-stripped binaries with
their debug file, perf.data from a pipe, and a whole process (a program and its hot shared library).

Oracles: ``llvm-cxxfilt-22`` (at test time, one name per run on its command line) for every symbol of a real C++
binary and of a Rust program in both mangling schemes; ``perf script`` / ``perf report`` output saved when the
recordings were made (per event and per object); the unstripped binary for the stripped one.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import Counter

import pytest

from conftest import TESTDATA, need_tool, run_objllvm
from objllvm import demangle as dm

PL = TESTDATA / "perf-loop"
HOT, LIB, TWO, PIPE = PL / "hot", PL / "libhot.so", PL / "two-events.data", PL / "pipe.data"
SYMBOL_LISTS = ["symbols-cxx.txt", "symbols-rust-legacy.txt", "symbols-rust-v0.txt"]


# -- 1. demangling ---------------------------------------------------------------------------------------------
def _cxxfilt22(names):
    """llvm-cxxfilt-22's reading of the names in their given order, duplicates included (objllvm sends each new
    name once, sorted, and caches the results: a mix-up of the order would show)."""
    exe = need_tool("llvm-cxxfilt-22")
    lines = subprocess.run([exe], input="\n".join(names) + "\n", capture_output=True, text=True,
                           check=True).stdout.split("\n")
    assert len(lines) >= len(names)
    return lines[:len(names)]


@pytest.mark.parametrize("listing", SYMBOL_LISTS)
def test_every_symbol_demangled_as_llvm_cxxfilt_22(listing, monkeypatch):
    monkeypatch.setattr(dm, "_tool", [need_tool("llvm-cxxfilt-22")])
    monkeypatch.setattr(dm, "_cache", {})
    names = [n for n in (PL / listing).read_text().splitlines() if n]
    ours = dm.demangle_all(names)
    want = _cxxfilt22(names)
    mangled = [n for n in names if dm.is_mangled(n)]
    assert len(mangled) > (5 if listing == "symbols-cxx.txt" else 500)
    for n, w in zip(names, want):
        assert ours.get(n, n) == w, n
    # every mangled name of these real programs demangles (nothing left as it was)
    assert [n for n in mangled if ours[n] == n] == []
    kinds = Counter(n[:2] for n in mangled)
    if listing == "symbols-rust-legacy.txt":     # the program's names legacy (_ZN...17h<hash>E), std's v0
        assert kinds["_Z"] >= 10 and any(n.startswith("_ZN4demo4fold17h") for n in names)
    if listing == "symbols-rust-v0.txt":
        assert kinds["_R"] > 500 and any("4demo4fold" in n and n.startswith("_R") for n in names)


def test_libstdcxx_symbols_demangled_as_llvm_cxxfilt_22(monkeypatch):
    """Every dynamic symbol of the system's libstdc++ (versioned names included), when it is installed."""
    lib = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"
    if not os.path.exists(lib):
        pytest.skip(f"{lib} is not installed")
    monkeypatch.setattr(dm, "_tool", [need_tool("llvm-cxxfilt-22")])
    monkeypatch.setattr(dm, "_cache", {})
    nm = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    names = sorted({ln.split()[-1] for ln in nm.splitlines() if ln.strip()})
    ours = dm.demangle_all(names)
    want = _cxxfilt22(names)
    assert sum(1 for n in names if n.startswith("_Z")) > 3000
    assert [n for n, w in zip(names, want) if ours.get(n, n) != w] == []


def test_names_a_line_tool_cannot_take_stay_as_they_are():
    for bad in ["_ZN3app5checkEl\n_Z3foov", "_Z3foo v", "_Z3\x1bfoo", "_Z" + "1a" * 9000]:
        assert not dm.is_mangled(bad)
        assert dm.demangle(bad) == bad


def test_without_a_demangler_names_stay_mangled_with_a_warning(monkeypatch):
    monkeypatch.setattr(dm, "_tool", [None])
    monkeypatch.setattr(dm, "_cache", {})
    assert dm.demangle("_ZN3app5checkEl") == "_ZN3app5checkEl"
    assert "no demangler" in dm.demangler_warning()


def test_dump_demangle_text_and_json():
    code, out, err = run_objllvm("dump", "-C", HOT)
    assert code == 0, err
    assert "function app::check(long) at 0x" in out
    assert "app::Mixer<unsigned int, 7>::step(unsigned int, unsigned int) const" in out
    assert "_ZN3app5checkEl" not in out
    code, out, _ = run_objllvm("dump", HOT)
    assert "function _ZN3app5checkEl at 0x" in out                 # without -C: as the file has it
    code, out, err = run_objllvm("dump", "--demangle", "--json", HOT)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["demangled"]["_ZN3app5checkEl"] == "app::check(long)"
    assert "_ZN3app5checkEl" in json.dumps(doc["files"])           # the names themselves stay mangled


def test_perf_map_demangle_keeps_clusters_mangled(tmp_path):
    out_clusters = tmp_path / "c.txt"
    code, out, err = run_objllvm("perf-map", "-C", "--json", "--event", "cpu-clock", HOT, TWO,
                                 "--clusters", out_clusters)
    assert code == 0, err
    doc = json.loads(out)
    by_name = {f["name"]: f.get("demangled") for f in doc["functions"]}
    assert by_name["_ZNK3app5MixerIjLi7EE4stepEjj"] == "app::Mixer<unsigned int, 7>::step(unsigned int, unsigned int) const"
    clusters = out_clusters.read_text()
    assert "f _ZNK3app5MixerIjLi7EE4stepEjj\n" in clusters and "app::Mixer" not in clusters
    code, out, err = run_objllvm("perf-map", "-C", "--event", "cpu-clock", HOT, TWO)
    assert code == 0, err
    assert "app::Mixer<unsigned int, 7>::step(unsigned int, unsigned int) const" in out
    assert "_ZNK3app5Mixer" not in out


def test_cfg_demangle_and_readable_function_name():
    code, out, err = run_objllvm("cfg", "-C", HOT, "--function", "app::check(long)", "-o", "-")
    assert code == 0, err
    assert 'label="app::check(long) @ 0x' in out
    code, out, err = run_objllvm("cfg", HOT, "--function", "app::check(long)", "-o", "-")
    assert code == 0, err
    assert 'label="_ZN3app5checkEl @ 0x' in out


def test_audit_demangle_json_has_the_names_table():
    code, out, err = run_objllvm("audit", "-C", "--json", "--no-progress", "-j", "1", HOT)
    assert code in (0, 1), err
    assert isinstance(json.loads(out)["demangled"], dict)


# -- 2. events -------------------------------------------------------------------------------------------------
def perf_script_by_event():
    """{(event, object file name): samples} as ``perf script -F event,ip,dso`` printed them."""
    out = Counter()
    for line in (PL / "two-events.script.txt").read_text().splitlines():
        n, ev, dso = line.split()
        out[(ev.rstrip(":"), os.path.basename(dso.strip("()")))] += int(n)
    return out


def test_two_event_recording_counts_each_event_as_perf_does():
    from objllvm.perf.mapping import profile
    from objllvm.perf.perfdata import collect_perfdata
    want = perf_script_by_event()
    raw = collect_perfdata(str(TWO))
    assert raw.event_samples == {ev: sum(n for (e, _), n in want.items() if e == ev)
                                 for ev in ("cpu-clock", "task-clock")}
    for ev in ("cpu-clock", "task-clock"):
        for binary in (HOT, LIB):
            p = profile(str(binary), str(TWO), event=ev)
            assert p.event == ev
            assert p.total_samples == raw.event_samples[ev]
            assert p.binary_samples == want[(ev, binary.name)] > 50
    both = profile(str(HOT), str(TWO))
    assert both.binary_samples == want[("cpu-clock", "hot")] + want[("task-clock", "hot")]


def test_several_events_without_event_warn_and_show_each(tmp_path):
    code, out, err = run_objllvm("perf-map", "--json", HOT, TWO)
    assert code == 0, err
    assert "holds 2 events" in err and "--event NAME" in err
    doc = json.loads(out)
    assert doc["event"] is None
    assert [(e["name"], e["samples"]) for e in doc["events"]] == [
        ("cpu-clock", sum(n for (e, _), n in perf_script_by_event().items()
                                                              if e == "cpu-clock")),
        ("task-clock", sum(n for (e, _), n in perf_script_by_event().items() if e == "task-clock"))]
    by_event = {r["name"]: r["samples"] for r in doc["functions_by_event"]}
    for ev in ("cpu-clock", "task-clock"):
        code, out1, err = run_objllvm("perf-map", "--json", "--event", ev, HOT, TWO)
        assert code == 0, err
        one = {f["name"]: f["samples"] for f in json.loads(out1)["functions"]}
        assert one and all(by_event[name][ev] == n for name, n in one.items())
    summed = {f["name"]: f["samples"] for f in doc["functions"]}
    assert all(sum(by_event[n].values()) == c for n, c in summed.items())


def test_layout_from_several_events_needs_event(tmp_path):
    out = tmp_path / "c.txt"
    code, _, err = run_objllvm("perf-map", HOT, TWO, "--clusters", out)
    assert code == 2 and "cpu-clock" in err and "task-clock" in err and "--event" in err
    assert not out.exists()
    code, _, err = run_objllvm("perf-map", HOT, TWO, "--clusters", out, "--event", "task-clock")
    assert code == 0, err
    assert "_ZNK3app5MixerIjLi7EE4stepEjj" in out.read_text()


def test_unknown_event_lists_the_recorded_ones():
    code, _, err = run_objllvm("perf-map", HOT, TWO, "--event", "cycles")
    assert code == 1
    assert "no event 'cycles'" in err and "cpu-clock, task-clock" in err and "Traceback" not in err


# -- 3. stripped binaries ----------------------------------------------------------------------------------------
def _functions(args, env=None):
    p = subprocess.run([os.sys.executable, "-m", "objllvm", "perf-map", "--json", "--event", "cpu-clock", *map(str, args)],
                       capture_output=True, text=True, env=env)
    return p.returncode, (json.loads(p.stdout) if p.stdout.strip() else None), p.stderr


def _env(**kw):
    from conftest import ROOT
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update({k: str(v) for k, v in kw.items()})
    return env


def _debug_file(dest):
    """The debug file of hot as the test data script splits it (objcopy --only-keep-debug, deterministic: the
    CRC in hot.stripped's .gnu_debuglink matches it)."""
    exe = need_tool("objcopy")
    dest.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([exe, "--only-keep-debug", str(HOT), str(dest)], check=True)
    return dest


def _build_id(path):
    from objllvm.formats import open_object
    from objllvm.perf.mapping import elf_build_id
    return elf_build_id(open_object(str(path))).hex()


def test_gnu_stripped_binary_named_from_build_id_tree(tmp_path):
    """The GNU-stripped binary alone (no debuglink target beside it) with its debug file in a build-id tree:
    the same functions and counts as the unstripped binary."""
    stripped = tmp_path / "bin" / "hot"
    stripped.parent.mkdir()
    shutil.copy(PL / "hot.stripped", stripped)
    bid = _build_id(stripped)
    root = tmp_path / "debug"
    (root / ".build-id" / bid[:2]).mkdir(parents=True)
    _debug_file(root / ".build-id" / bid[:2] / f"{bid[2:]}.debug")
    code, want, err = _functions([HOT, TWO], _env())
    assert code == 0, err
    code, got, err = _functions([stripped, TWO], _env(OBJLLVM_DEBUG_ROOT=root))
    assert code == 0, err
    assert [(f["name"], f["samples"]) for f in got["functions"]] == [(f["name"], f["samples"]) for f in want["functions"]]
    assert got["debug_file"]["how"] == "build-id" and got["debug_file"]["unnamed"] == 0
    assert "is stripped: names of 4 functions taken from" in err


def test_gnu_stripped_binary_named_by_debuglink_and_debug_file_option(tmp_path):
    beside = tmp_path / "beside"
    beside.mkdir()
    shutil.copy(PL / "hot.stripped", beside / "hot")
    _debug_file(beside / "hot.debug")
    code, got, err = _functions([beside / "hot", TWO], _env())        # hot.debug beside it: .gnu_debuglink
    assert code == 0, err
    assert got["debug_file"]["how"] == ".gnu_debuglink"
    assert "_ZNK3app5MixerIjLi7EE4stepEjj" in [f["name"] for f in got["functions"]]
    lone = tmp_path / "hot"
    shutil.copy(PL / "hot.stripped", lone)
    code, got, err = _functions([lone, TWO, "--debug-file", HOT], _env())    # the unstripped binary as the source
    assert code == 0, err
    assert got["debug_file"]["how"] == "--debug-file"
    assert "_ZNK3app5MixerIjLi7EE4stepEjj" in [f["name"] for f in got["functions"]]
    code, _, err = _functions([lone, TWO, "--debug-file", LIB], _env())       # another build
    assert code == 1 and "another build" in err


def test_gnu_stripped_binary_without_names_is_no_silent_success(tmp_path):
    lone = tmp_path / "hot"
    shutil.copy(PL / "hot.stripped", lone)
    env = _env(OBJLLVM_DEBUG_ROOT=tmp_path / "empty", DEBUGINFOD_CACHE_PATH=tmp_path / "none")
    out = tmp_path / "c.txt"
    p = subprocess.run([os.sys.executable, "-m", "objllvm", "perf-map", "--event", "cpu-clock", str(lone), str(TWO),
                        "--clusters", str(out)], capture_output=True, text=True, env=env)
    assert p.returncode == 1 and not out.exists()
    assert "is stripped" in p.stderr and "--debug-file" in p.stderr and "no cluster or order file" in p.stderr
    assert str(tmp_path / "empty" / ".build-id") in p.stderr                  # where it looked
    code, doc, err = _functions([lone, TWO], env)                          # tables still shown, exit 1
    assert code == 1 and doc["debug_file"]["unnamed"] == 4 and "is stripped" in err


def test_llvm_stripped_binary_points_at_the_debug_file(tmp_path):
    exe = need_tool("llvm-strip-22")
    lone = tmp_path / "hot"
    subprocess.run([exe, "-o", str(lone), str(HOT)], check=True)
    env = _env(OBJLLVM_DEBUG_ROOT=tmp_path / "empty", DEBUGINFOD_CACHE_PATH=tmp_path / "none")
    code, _, err = _functions([lone, TWO], env)
    assert code == 1
    assert "stripped" in err and "--debug-file" in err and "rebuild" not in err
    # its debug file in a build-id tree: the map and the names come from it
    bid = _build_id(lone)
    root = tmp_path / "debug"
    (root / ".build-id" / bid[:2]).mkdir(parents=True)
    _debug_file(root / ".build-id" / bid[:2] / f"{bid[2:]}.debug")
    code, got, err = _functions([lone, TWO], _env(OBJLLVM_DEBUG_ROOT=root))
    assert code == 0, err
    code, want, _ = _functions([HOT, TWO], _env())
    assert got["debug_file"]["map_from_debug_file"] is True
    assert [(f["name"], f["samples"]) for f in got["functions"]] == [(f["name"], f["samples"]) for f in want["functions"]]


# -- 4. pipes ------------------------------------------------------------------------------------------------------
_RAW_COUNTS = """
import json, sys
from objllvm.perf.perfdata import collect_perfdata
raw = collect_perfdata(sys.argv[1])
print(json.dumps({"samples": raw.samples, "counts": sorted([p, ip, n] for (p, ip), n in raw.ip_counts.items())}))
"""


def _raw_counts_from(path_arg, data):
    p = subprocess.run([os.sys.executable, "-c", _RAW_COUNTS, path_arg], input=data, capture_output=True, env=_env())
    assert p.returncode == 0, p.stderr.decode()
    d = json.loads(p.stdout)
    return d["samples"], Counter({(pid, ip): n for pid, ip, n in d["counts"]})


def _perf_script(name):
    out = Counter()
    for line in (PL / name).read_text().splitlines():
        n, pid, ip = line.split()
        out[(int(pid), int(ip, 16))] += int(n)
    return out


def test_pipe_mode_recording_from_standard_input_read_as_perf_reads_it():
    """perf record -o - (pipe mode: a 16-byte header, the attributes in HEADER_ATTR records) through a pipe."""
    data = PIPE.read_bytes()
    assert data[8:16] == (16).to_bytes(8, "little")                  # really pipe mode
    want = _perf_script("pipe.perf-script.txt")
    for arg in ("-", "/dev/stdin"):
        samples, got = _raw_counts_from(arg, data)
        assert got == want and samples == sum(want.values()) > 100


def test_perf_map_reads_standard_input_as_it_reads_the_file():
    code, from_file, err = run_objllvm("perf-map", "--json", HOT, PIPE)
    assert code == 0, err
    p = subprocess.run([os.sys.executable, "-m", "objllvm", "perf-map", "--json", str(HOT), "-"],
                       input=PIPE.read_bytes(), capture_output=True, env=_env())
    assert p.returncode == 0, p.stderr.decode()
    a, b = json.loads(from_file), json.loads(p.stdout)
    assert b["profile"] == "<stdin>"
    assert a["functions"] == b["functions"] and a["samples"] == b["samples"] and a["samples"]["mapped"] > 100


def test_file_mode_recording_through_a_pipe_is_spooled():
    data = TWO.read_bytes()
    samples, got = _raw_counts_from("-", data)
    from objllvm.perf.perfdata import collect_perfdata
    raw = collect_perfdata(str(TWO))
    assert samples == raw.samples and got == raw.ip_counts


@pytest.mark.parametrize("cut", [10, 16 + 5, 16 + 152 + 40, -7])
def test_truncated_stream_is_a_located_error(cut):
    data = PIPE.read_bytes()[:cut]
    p = subprocess.run([os.sys.executable, "-m", "objllvm", "perf-map", str(HOT), "-"], input=data,
                       capture_output=True, env=_env())
    err = p.stderr.decode()
    assert p.returncode == 1 and "Traceback" not in err
    assert err.count("\n") == 1 and "<stdin>: offset 0x" in err and "truncated" in err


_RSS = """
import resource, sys
from objllvm.perf.perfdata import collect_perfdata
raw = collect_perfdata("-")
print(raw.samples, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def test_stream_memory_does_not_grow_with_the_input():
    """The samples of pipe.data repeated to a stream of about 12 MB: the reader's peak memory stays within a few MB
    of what it needs for the short stream (a reader that kept the input would need 12 MB more)."""
    from objllvm.perf.perfdata import PerfData, RECORD_SAMPLE
    data = PIPE.read_bytes()
    head, samples, tail = bytearray(data[:16]), bytearray(), bytearray()
    with PerfData(str(PIPE)) as pd:
        for typ, _m, off, size in pd.records():
            (samples if typ == RECORD_SAMPLE else head if not samples else tail).extend(pd.buf[off:off + size])
    big = bytes(head) + bytes(samples) * max(1, (12 << 20) // len(samples)) + bytes(tail)

    def run(stream):
        p = subprocess.Popen([os.sys.executable, "-c", _RSS], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             env=_env())
        out, _ = p.communicate(stream)
        assert p.returncode == 0
        n, rss_kb = map(int, out.split())
        return n, rss_kb

    n_small, rss_small = run(bytes(head) + bytes(samples) + bytes(tail))
    n_big, rss_big = run(big)
    assert n_big > 50 * n_small
    assert rss_big - rss_small < 6 * 1024, (rss_small, rss_big)


# -- 5. whole processes ------------------------------------------------------------------------------------------
def test_program_and_its_shared_library_one_section_each(tmp_path):
    want = perf_script_by_event()
    total = sum(n for (e, _), n in want.items() if e == "cpu-clock")
    out = tmp_path / "c.txt"
    code, text, err = run_objllvm("perf-map", "--json", "--event", "cpu-clock", HOT, LIB, TWO, "--clusters", out)
    assert code == 0, err
    doc = json.loads(text)
    objs = {os.path.basename(o["binary"]): o for o in doc["process"]["objects"]}
    assert doc["process"]["total"] == total
    for name in ("hot", "libhot.so"):
        assert objs[name]["samples"] == want[("cpu-clock", name)] > 50
        assert objs[name]["share"] == pytest.approx(want[("cpu-clock", name)] / total, abs=1e-6)
    # each object's section is what perf-map gives for that binary alone
    for o in doc["objects"]:
        code, alone, err = run_objllvm("perf-map", "--json", "--event", "cpu-clock", o["binary"], TWO)
        assert code == 0, err
        assert json.loads(alone)["functions"] == o["functions"]
    lib_fns = [f["name"] for f in doc["objects"][1]["functions"]]
    assert lib_fns == ["_ZN3lib4spinERKSt6vectorIjSaIjEEj"]
    # two links: two cluster files, each naming only its own functions
    files = {os.path.basename(f["binary"]): f["file"] for f in doc["clusters"]["files"]}
    assert files == {"hot": str(tmp_path / "c.hot.txt"), "libhot.so": str(tmp_path / "c.libhot.so.txt")}
    lib_clusters = (tmp_path / "c.libhot.so.txt").read_text()
    assert "f _ZN3lib4spinERKSt6vectorIjSaIjEEj" in lib_clusters and "3app" not in lib_clusters
    assert "f _ZNK3app5MixerIjLi7EE4stepEjj" in (tmp_path / "c.hot.txt").read_text()
    assert not out.exists()


def test_all_finds_every_object_with_a_map(tmp_path):
    """--all with the recording alone: the objects come from its mappings (found at the recorded path, or by name
    beside the recording), those without a map are listed with the reason."""
    for f in (HOT, LIB, TWO):
        shutil.copy(f, tmp_path / f.name)
    code, text, err = run_objllvm("perf-map", "--all", "--json", "--event", "cpu-clock", tmp_path / TWO.name)
    assert code == 0, err
    doc = json.loads(text)
    assert [os.path.basename(o["binary"]) for o in doc["process"]["objects"]] == ["hot", "libhot.so"]
    assert all(s["reason"] for s in doc["process"]["skipped"])
    code, text, err = run_objllvm("perf-map", "--all", "-C", "--event", "cpu-clock", tmp_path / TWO.name)
    assert code == 0, err
    assert "lib::spin(std::vector<unsigned int, std::allocator<unsigned int>> const&, unsigned int)" in text
    assert "share of all" in text and "2 objects with basic-block maps" in text


# -- 6. perf-diff ------------------------------------------------------------------------------------------------
def _perf_symbol_counts(name, dso):
    """{symbol: samples} of the cpu-clock samples in ``dso`` as perf script printed them (``sym+off``)."""
    out = Counter()
    for line in (PL / name).read_text().splitlines():
        n, ev, symoff, obj = line.split()
        if ev == "cpu-clock:" and os.path.basename(obj.strip("()")) == dso:
            out[symoff.rsplit("+", 1)[0]] += int(n)
    return out


def _perf_block_footprint(name, dso, binary, function):
    """(bytes, 64-byte lines) of the blocks of ``function`` that perf's samples fall in: the sample addresses
    from perf script (symbol + offset, the symbol's address from nm), the blocks from llvm-readobj-22."""
    syms = {}
    for ln in subprocess.run(["nm", str(binary)], capture_output=True, text=True, check=True).stdout.splitlines():
        parts = ln.split()
        if len(parts) == 3:
            syms[parts[2]] = int(parts[0], 16)
    addrs = set()
    for line in (PL / name).read_text().splitlines():
        n, ev, symoff, obj = line.split()
        if ev == "cpu-clock:" and os.path.basename(obj.strip("()")) == dso:
            sym, off = symoff.rsplit("+", 1)
            if sym.split(".cold")[0] == function and sym in syms:
                addrs.add(syms[sym] + int(off, 16))
    exe = need_tool("llvm-readobj-22")
    doc = json.loads(subprocess.run([exe, "--bb-addr-map", "--elf-output-style=JSON", str(binary)],
                                    capture_output=True, text=True, check=True).stdout)
    blocks = []
    for fn in doc[0]["BBAddrMap"]:
        e = fn["Function"]
        if e["Name"] != function:
            continue
        for r in e["BB Ranges"]:
            for b in r["BB Entries"]:
                blocks.append((r["Base Address"] + b["Offset"], b["Size"]))
    hot = {(a, s) for a, s in blocks for x in addrs if a <= x < a + s}
    lines = {ln for a, s in hot for ln in range(a // 64, (a + s - 1) // 64 + 1)}
    return sum(s for _, s in hot), len(lines)


def test_perf_diff_of_two_builds_against_perf_and_llvm_readobj():
    """The program before and after its layout (rebuilt with the clusters perf-map wrote): per function the shares
    perf itself gives, the hot footprint from llvm-readobj-22's blocks and perf's sample addresses, and hot blocks
    that moved."""
    code, out, err = run_objllvm("perf-diff", "--json", "--event", "cpu-clock", TWO, PL / "layout.data",
                                 "--old-binary", HOT, "--new-binary", PL / "hot-layout")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["same_build"] is False
    old_syms = _perf_symbol_counts("two-events.sym.txt", "hot")
    new_syms = _perf_symbol_counts("layout.sym.txt", "hot-layout")
    by = {f["name"]: f for f in doc["functions"]}
    for fn in ("_ZN3app4foldIjEET_RKSt6vectorIS1_SaIS1_EEj", "_ZNK3app5MixerIjLi7EE4stepEjj"):
        f = by[fn]
        assert f["old"]["samples"] == old_syms[fn] > 20
        assert f["new"]["samples"] == new_syms[fn] + new_syms[fn + ".cold"] > 20
        assert f["old"]["share"] == pytest.approx(f["old"]["samples"] / doc["old"]["samples"], abs=1e-6)
        assert (f["old"]["hot_bytes"], f["old"]["hot_lines"]) == \
            _perf_block_footprint("two-events.sym.txt", "hot", HOT, fn)
        assert (f["new"]["hot_bytes"], f["new"]["hot_lines"]) == \
            _perf_block_footprint("layout.sym.txt", "hot-layout", PL / "hot-layout", fn)
        assert f["matched_by"] == "hash" and f["matched_blocks"] == f["new"]["blocks"]
        assert all(m["old_offset"] != m["new_offset"] for m in f["moved_blocks"])
    # Moved blocks against llvm-readobj-22's block addresses of both builds: every block of a cluster of
    # hot.clusters.txt (the layout hot-layout was built with) whose offset from the entry changed and that holds
    # samples is listed, with both offsets.
    clusters, fn = {}, None
    for line in (PL / "hot.clusters.txt").read_text().splitlines():
        if line.startswith("f "):
            fn = line[2:]
        elif line.startswith("c ") and fn:
            clusters[fn] = [int(x) for x in line[2:].split()]
    old_off, new_off = _readobj_offsets(HOT), _readobj_offsets(PL / "hot-layout")
    code, out, err = run_objllvm("perf-map", "--json", "--event", "cpu-clock", HOT, TWO)
    old_hot = {f["name"]: {b["id"] for b in f["blocks"]} for f in json.loads(out)["functions"]}
    for fn, ids in clusters.items():
        moved = by[fn]["moved_blocks"]
        for m in moved:
            assert (m["old_offset"], m["new_offset"]) == (old_off[fn][m["old_id"]], new_off[fn][m["new_id"]])
        assert {m["old_id"] for m in moved} >= {i for i in ids if i in old_hot[fn] and old_off[fn][i] != new_off[fn][i]}
        assert [new_off[fn][i] for i in ids] == sorted(new_off[fn][i] for i in ids)     # laid out in order
    assert any(m["old_samples"] for m in by["_ZN3app4foldIjEET_RKSt6vectorIS1_SaIS1_EEj"]["moved_blocks"])


def _readobj_offsets(binary):
    """{function: {block id: offset from the function's entry}} from llvm-readobj-22 --bb-addr-map."""
    exe = need_tool("llvm-readobj-22")
    doc = json.loads(subprocess.run([exe, "--bb-addr-map", "--elf-output-style=JSON", str(binary)],
                                    capture_output=True, text=True, check=True).stdout)
    out = {}
    for fn in doc[0]["BBAddrMap"]:
        e = fn["Function"]
        ranges = e["BB Ranges"]
        entry = ranges[0]["Base Address"]
        out[e["Name"]] = {b["ID"]: r["Base Address"] + b["Offset"] - entry for r in ranges for b in r["BB Entries"]}
    return out


def test_perf_diff_of_one_build_moves_nothing():
    code, out, err = run_objllvm("perf-diff", "--json", "--event", "task-clock", TWO, TWO, "--binary", HOT)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["same_build"] is True
    assert all(f["share_change"] == 0 and f["moved_blocks"] == [] for f in doc["functions"])
    code, out, err = run_objllvm("perf-diff", "-C", "--event", "cpu-clock", TWO, PL / "layout.data",
                                 "--old-binary", HOT, "--new-binary", PL / "hot-layout")
    assert code == 0, err
    assert "app::Mixer<unsigned int, 7>::step(unsigned int, unsigned int) const" in out and "moved" in out
    code, _, err = run_objllvm("perf-diff", TWO, TWO, "--binary", HOT)
    assert code == 2 and "--event" in err


# -- 7. the HTML report --------------------------------------------------------------------------------------------
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--enable-logging=stderr",
                  "--v=0"]


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no Chromium (CI installs Debian's chromium: see .ci/run)")


def test_html_report_renders_in_headless_chromium(tmp_path):
    out = tmp_path / "report.html"
    code, _, err = run_objllvm("perf-map", "-C", "--event", "cpu-clock", HOT, LIB, TWO, "--html", out)
    assert code == 0, err
    page = out.read_text()
    # self-contained: no URL to load anything from
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "").replace(
        'xmlns:xlink="http://www.w3.org/1999/xlink"', "").replace('"http://www.w3.org/', "")
    assert "https://" not in page and "src=" not in page and "<link" not in page
    exe = _chromium()
    p = subprocess.run([exe, *CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
                        out.as_uri()], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    dom = p.stdout
    # the script ran (it counts the function rows) and reported no error
    assert '<body data-rendered="3">' in dom and '<div id="errors"></div>' in dom
    assert "Uncaught" not in p.stderr and "SyntaxError" not in p.stderr
    # the functions of both objects, demangled, with their shares as perf-map gives them
    code, js, _ = run_objllvm("perf-map", "--json", "--event", "cpu-clock", HOT, LIB, TWO)
    doc = json.loads(js)
    for o in doc["objects"]:
        for f in o["functions"]:
            assert f"{100 * f['share']:.2f}%" in dom
    assert "app::Mixer&lt;unsigned int, 7&gt;::step(unsigned int, unsigned int) const" in dom
    assert "lib::spin(std::vector&lt;unsigned int" in dom
    # the heat map (one cell per sampled 64-byte line), the CFGs (Graphviz SVG) and source lines (DWARF)
    assert dom.count('class="heat"') == 2 and "samples (" in dom
    if shutil.which("dot"):
        assert dom.count('class="graph"') >= 3
    assert "hot.cpp:" in dom and "libhot.cpp:" in dom


def _pyelftools_line_at(path, address):
    """``file:line`` of the DWARF line-table row in effect at ``address`` (pyelftools, an independent reader)."""
    elffile = pytest.importorskip("elftools.elf.elffile", reason="pyelftools is in the test extra")
    rows = []
    with open(path, "rb") as f:
        dwarf = elffile.ELFFile(f).get_dwarf_info()
        for cu in dwarf.iter_CUs():
            lp = dwarf.line_program_for_CU(cu)
            files, base = lp["file_entry"], (0 if lp.header.version >= 5 else 1)
            seq = []
            for e in lp.get_entries():
                st = e.state
                if st is None:
                    continue
                if st.end_sequence:
                    rows.extend((a, b_, n, st.address) for a, b_, n in seq)
                    seq = []
                    continue
                seq.append((st.address, os.path.basename(files[st.file - base].name.decode()), st.line))
    best = None
    for a, name, line, seq_end in rows:
        if a <= address < seq_end and (best is None or a >= best[0]) and line:
            best = (a, f"{name}:{line}")
    return best[1] if best else None


def test_html_report_source_lines_match_the_dwarf_line_table(tmp_path):
    """The first source line the report gives each hot block is the line-table row in effect at the block's
    first address, as pyelftools reads the table."""
    from objllvm.perf.mapping import profile
    from objllvm.perf.report_html import SourceLines, _block_addresses
    need_tool("llvm-symbolizer-22")
    prof = profile(str(HOT), str(TWO), event="cpu-clock")
    blocks = [b for fn, b, c in prof.hottest_blocks(6)]
    lines = SourceLines(str(HOT), [a for b in blocks for a in _block_addresses(b, prof)])
    assert lines.note is None and lines.where
    for b in blocks:
        got = lines.lines_of(_block_addresses(b, prof))
        assert got and got[0] == _pyelftools_line_at(str(HOT), b.address), (hex(b.address), got)


def test_rust_recording_mapped_with_readable_names_and_perfs_counts(tmp_path):
    """A real Rust program (v0 mangling, a basic-block map) and a real recording of it: perf-map -C counts per
    function what `perf report` counts per symbol, names each as llvm-cxxfilt-22 does, keeps the mangled name in
    JSON, and writes the cluster file with the mangled names clang and lld need."""
    need_tool("llvm-cxxfilt-22")
    binary, data = PL / "rust-demo", PL / "rust-demo.data"
    perf_counts = {}
    for line in (PL / "rust-demo.report.txt").read_text().splitlines():
        count, dso, _, sym = line.split(None, 3)
        if dso == "rust-demo":
            perf_counts[sym] = int(count)
    assert len(perf_counts) >= 2
    rc, out, err = run_objllvm("perf-map", "-C", binary, data, "--json", "--top", "50")
    assert rc == 0, err
    funcs = {f["name"]: f for f in json.loads(out)["functions"]}
    assert {n: f["samples"] for n, f in funcs.items()} == perf_counts
    readable = _cxxfilt22(list(funcs))
    assert [funcs[n]["demangled"] for n in funcs] == readable
    assert any("demo::fold" in r for r in readable) and all(n.startswith("_R") for n in funcs)
    rc, out, err = run_objllvm("perf-map", "-C", binary, data)
    assert rc == 0 and all(r in out for r in readable), err
    rc, _, err = run_objllvm("perf-map", "-C", binary, data, "--clusters", tmp_path / "c.txt")
    assert rc == 0, err
    text = (tmp_path / "c.txt").read_text()
    assert all(f"f {n}" in text for n in funcs if funcs[n]["samples"] > 100), text
