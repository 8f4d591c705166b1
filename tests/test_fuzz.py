"""Hostile input, short deterministic run (CI): every container, codec, the bitstream and perf.data readers
return a result or raise ObjllvmError saying where; nothing else escapes, nothing hangs, memory stays bounded.

A fixed-seed mutation loop with a fixed count (tests/fuzz/campaign.py, the same loop as ``scripts/fuzz``): the
same inputs on every run.  An input is named by its corpus file (or section) and its list of (mutation, seed)
steps, printed on failure, so ``mutators.apply(data, steps)`` rebuilds it exactly.  Why not hypothesis or
atheris: docs/testing.md, "Hostile input".  Long campaigns: ``scripts/fuzz``.
"""
from __future__ import annotations

import os
import resource
import struct
import tracemalloc

import pytest

from objllvm.sections import registry
from objllvm.errors import DecodeError

from conftest import TESTDATA
from fuzz import campaign, harness, mutators
from fuzz.known import known

# The budget: about a minute in total on a loaded 2-core machine (about 20 s of CPU).
SEED = 20261121
N_CONTAINER = 1500
N_CODEC = 100                 # per codec
N_BITSTREAM = 200
N_PERF = 300
N_TOOLS = 300                 # audit, the basic-block index (perf-map, cfg), rewrite + reopening its output

FILES = campaign.corpus()
SECTIONS = campaign.section_seeds(FILES)


@pytest.fixture(scope="module", autouse=True)
def traced():
    """tracemalloc on for this module: the harness flags any input whose peak passes harness.MEMORY_LIMIT.
    The address space is limited too (1.5 GB more than now), so an allocation by an untrusted count fails
    with MemoryError (an escape the harness reports) instead of taking the machine's memory."""
    was = tracemalloc.is_tracing()
    if not was:
        tracemalloc.start()
    old = resource.getrlimit(resource.RLIMIT_AS)
    try:
        with open("/proc/self/statm") as f:
            vsize = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        limit = vsize + (1536 << 20)
        if old[1] == resource.RLIM_INFINITY or limit < old[1]:
            resource.setrlimit(resource.RLIMIT_AS, (limit, old[1]))
    except (OSError, ValueError):
        pass        # no /proc or no permission: tracemalloc alone
    yield
    resource.setrlimit(resource.RLIMIT_AS, old)
    if not was:
        tracemalloc.stop()


def _fail_on(vs, what):
    vs = [v for v in vs if not known(v)]   # routed bugs: reproduced by strict xfail tests in test_malformed.py
    assert not vs, f"{what}:\n" + "\n".join(f"{v}\n{v.trace}" for v in vs)


def _run(tmp_path, targets, count, **kw):
    res = campaign.run(seed=SEED, count=count, targets=targets, tmpdir=str(tmp_path), log=None, slow_seconds=None,
                       files=FILES, secs=SECTIONS, **kw)
    assert res.inputs == count
    assert not res.found, "\n".join(f"{v}\n  input: {origin}\n{v.trace}" for v, _data, origin in res.found)
    return res


def test_corpus_is_there():
    assert len(FILES) > 20 and len(SECTIONS) > 40, "the fuzz tests need the committed testdata corpus"


CONTAINER_SHARDS = 3          # N_CONTAINER inputs in all, in shards that parallel workers share out


@pytest.mark.parametrize("shard", range(CONTAINER_SHARDS))
def test_containers(tmp_path, shard):
    """ELF, ar, COFF, Mach-O, bitcode files, mutated, through everything `sections` and `dump` do (shard 0 is
    the first N_CONTAINER / CONTAINER_SHARDS inputs of SEED; the others continue with their own seeds)."""
    res = campaign.run(seed=SEED + shard, count=N_CONTAINER // CONTAINER_SHARDS, targets=["container"],
                       tmpdir=str(tmp_path), log=None, slow_seconds=None, files=FILES, secs=SECTIONS)
    assert res.inputs == N_CONTAINER // CONTAINER_SHARDS
    assert not res.found, "\n".join(f"{v}\n  input: {origin}\n{v.trace}" for v, _data, origin in res.found)


@pytest.mark.parametrize("kind", sorted(registry.codecs()))
def test_codec(kind, tmp_path):
    """Every registered codec (new codecs come from the registry) on every corpus section's bytes, mutated,
    with the real context, an empty one, foreign relocations, and each of its section types."""
    _run(tmp_path, ["codec"], N_CODEC, kinds=[kind])


@pytest.mark.parametrize("kind", sorted(registry.codecs()))
def test_codecs_unmutated_cross_feed(kind):
    """Each codec on one section of every other kind, unmutated, in every context (one test per codec:
    parallel workers share them out)."""
    by_kind = {}
    for s in SECTIONS:
        c = registry.find_codec(s.section, s.obj)
        key = (c.kind if c else s.section.type, s.section.name)
        if key not in by_kind or len(s.data) < len(by_kind[key].data):
            by_kind[key] = s
    vs = []
    for codec in (registry.get(kind),):
        for s in by_kind.values():
            for name, ctx in harness.codec_contexts(s.obj, s.section, codec):
                vs += [v for v in harness.check_codec(codec, s.data, ctx) if not known(v)]
    _fail_on(vs, "cross-feed")


@pytest.mark.skipif(not campaign._importable("objllvm.formats.bitstream") or not campaign.bitstream_seeds(SECTIONS),
                    reason="objllvm/formats/bitstream.py or bitcode payloads in testdata are not there yet")
def test_bitstream(tmp_path):
    _run(tmp_path, ["bitstream"], N_BITSTREAM)


@pytest.mark.skipif(not campaign._importable("objllvm.perf.perfdata"),
                    reason="objllvm/perf/ (reader and writer) is not there yet")
def test_perf(tmp_path):
    _run(tmp_path, ["perf"], N_PERF)


def test_tools(tmp_path):
    _run(tmp_path, ["tools"], N_TOOLS)


# -- inputs that claim 2^32 of something ------------------------------------------------------------------
def _elf_with(tmp_name, patch):
    data = bytearray((TESTDATA / "elf" / tmp_name).read_bytes())
    patch(data, mutators.ElfLayout(bytes(data)))
    return bytes(data)


def _huge_claims():
    out = []
    # extended section numbering: e_shnum = 0, section 0's sh_size claims 2^32 - 1 sections
    def shnum(d, lay):
        struct.pack_into("<H", d, 0x3C, 0)
        struct.pack_into("<Q", d, lay.field_pos(0, "size"), 0xFFFFFFFF)
    out.append(("e_shnum 0, sh_size of section 0 = 2^32-1", _elf_with("deplibs.o", shnum)))

    def symtab(d, lay):   # a symbol table claiming 2^32 bytes
        i = [i for i in lay.sections() if lay.get(i, "type") == 2][0]
        struct.pack_into("<Q", d, lay.field_pos(i, "size"), 1 << 32)
    out.append(("symtab sh_size 2^32", _elf_with("deplibs.o", symtab)))

    def reloc(d, lay):    # a relocation section claiming 2^32 entries
        i = lay.reloc_sections()[0]
        struct.pack_into("<Q", d, lay.field_pos(i, "size"), 24 << 32)
    out.append(("relocations 2^32 entries", _elf_with("cg-profile-asm.o", reloc)))

    def chsize(d, lay):   # a zlib section whose header claims 2^32 bytes
        i = [i for i in lay.sections() if lay.get(i, "flags") & 0x800][0]
        off, _ = lay.content(i)
        struct.pack_into("<Q", d, off + 8, 1 << 32)
    out.append(("SHF_COMPRESSED ch_size 2^32", _elf_with("deplibs-zlib.o", chsize)))
    ar = bytearray((TESTDATA / "elf" / "libgnu.a").read_bytes())
    ar[8 + 48:8 + 58] = b"4294967296"
    out.append(("ar member size 2^32", bytes(ar)))
    # every LLVM section of deplibs.o / cg-profile-asm.o / linker-options.o filled with ULEB128 2^32 and u32 ~0
    for name in ("deplibs.o", "cg-profile-asm.o", "linker-options.o", "sympart.o"):
        for fill in (b"\x80\x80\x80\x80\x10", b"\xff\xff\xff\xff"):
            def llvm(d, lay, fill=fill):
                for i in lay.llvm_sections():
                    c = lay.content(i)
                    if c:
                        d[c[0]:c[0] + c[1]] = (fill * (c[1] // len(fill) + 1))[:c[1]]
            out.append((f"{name}: LLVM sections filled with {fill.hex()}", _elf_with(name, llvm)))
    return out


@pytest.mark.parametrize("what,data", _huge_claims(), ids=lambda x: x if isinstance(x, str) else "")
def test_huge_claims_bounded(what, data):
    _fail_on(harness.check_container(data), what)


def test_huge_counts_in_every_codec():
    """A ULEB128 2^32 or u32/u64 ~0 at the start of every codec's input (where counts and sizes live)."""
    s = next(x for x in SECTIONS if x.section.name == ".deplibs")
    vs = []
    for codec in registry.codecs().values():
        for head in (b"\x80\x80\x80\x80\x10", b"\xff" * 8, b"\x00\x00\x00\x80" * 4, b"\x01\x00\x00\x00\xff\xff\xff\xff"):
            data = head + s.data
            for _n, ctx in harness.codec_contexts(s.obj, s.section, codec):
                vs += harness.check_codec(codec, data, ctx)
    _fail_on(vs, "huge counts")


# -- the harness itself can fail ---------------------------------------------------------------------------------
class _Fake(registry.Codec):
    kind = "fake"

    def __init__(self, decode):
        self._decode = decode

    def decode(self, data, ctx):
        return self._decode(data)

    def to_dict(self, model):
        return {}

    def tables(self, model, options):
        return []

    def encode(self, model, ctx):
        return b""


def _ctx():
    s = SECTIONS[0]
    return next(iter(harness.codec_contexts(s.obj, s.section, _Fake(None))))[1]


def test_harness_reports_escape():
    vs = harness.check_codec(_Fake(lambda d: d[len(d) + 5]), b"abc", _ctx())
    assert [v.kind for v in vs] == ["escape"] and "IndexError" in vs[0].detail


def test_harness_reports_error_without_offset():
    def bad(d):
        raise DecodeError("no offset here")
    vs = harness.check_codec(_Fake(bad), b"abc", _ctx())
    assert [v.kind for v in vs] == ["unlocated"]


def test_harness_reports_hang():
    def spin(d):
        while True:
            pass
    vs = harness.check_codec(_Fake(spin), b"abc", _ctx(), watchdog_seconds=0.3)
    assert [v.kind for v in vs] == ["hang"]


def test_harness_reports_large_allocation():
    vs = harness.check_codec(_Fake(lambda d: len(bytearray(harness.MEMORY_LIMIT + (1 << 20)))), b"abc", _ctx())
    assert [v.kind for v in vs] == ["memory"]


def test_harness_reports_slow_input():
    import time
    vs = harness.check_codec(_Fake(lambda d: time.sleep(0.2)), b"abc", _ctx(), slow_seconds=0.1)
    assert [v.kind for v in vs] == ["slow"]


def test_mutators_are_deterministic_and_change_inputs():
    rel, data = next(x for x in FILES if x[0].endswith("elf/cg-profile-asm.o"))
    for name in mutators.NAMES:
        outs = [mutators.apply(data, [(name, seed)]) for seed in range(20)]
        assert outs == [mutators.apply(data, [(name, seed)]) for seed in range(20)], name
        assert any(o != data for o in outs), f"{name} never changed {rel}"


def test_fixed_seed_loop_is_reproducible(tmp_path):
    """The loop behind scripts/fuzz and these tests: the same seed and count give the same inputs."""
    seen = []

    def spy(data, path="fuzz-input", **kw):
        seen[-1].append(data)
        return []
    import fuzz.harness as h
    real = h.check_container
    try:
        h.check_container = spy
        for _ in range(2):
            seen.append([])
            campaign.run(seed=7, count=40, targets=["container"], tmpdir=str(tmp_path), log=None, files=FILES,
                         secs=SECTIONS)
    finally:
        h.check_container = real
    assert len(seen[0]) == 40 and seen[0] == seen[1]
    assert sum(d not in {f[1] for f in FILES} for d in seen[0]) > 30     # nearly all were mutated


def test_loop_reports_a_violation(tmp_path, monkeypatch):
    """A codec that crashes on some input is found by the loop, with the input that shows it."""
    codec = registry.get("deplibs")
    monkeypatch.setattr(codec, "decode", lambda data, ctx: data[10 ** 6])
    res = campaign.run(seed=1, count=30, targets=["codec"], kinds=["deplibs"], tmpdir=str(tmp_path), log=None,
                       files=FILES, secs=SECTIONS)
    assert res.found and res.found[0][0].kind == "escape" and "IndexError" in res.found[0][0].detail
    assert "-> codec deplibs" in res.found[0][2]


def test_scripts_fuzz_runs_a_budget_and_replays(tmp_path):
    """scripts/fuzz: a 3-second campaign reports its figures; --replay passes a malformed file objllvm handles
    (test_replay_reports_a_violation shows it failing).  The campaign runs without its "slow" report, a time
    limit that depends on the machine's load (test_harness_reports_slow_input checks that report); the
    watchdog still stops a hang."""
    import subprocess
    import sys
    from conftest import ROOT
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "fuzz"), "--time", "3", "--seed", "5", "--targets",
                        "codec,container", "--slow-seconds", "0", "--quiet"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "fuzz: seed 5, budget 3 s" in p.stdout and " inputs in " in p.stdout and "0 distinct new" in p.stdout
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "fuzz"), "--replay",
                        str(TESTDATA / "malformed" / "deplibs-no-nul.o")], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "1 file(s): 0 violation(s)" in p.stdout, p.stdout + p.stderr


def test_replay_reports_a_violation(tmp_path, monkeypatch):
    """What --replay runs (campaign.replay) reports a file that makes objllvm crash, naming the file (the
    recorded crashers used to show this; they are fixed now)."""
    codec = registry.get("deplibs")
    monkeypatch.setattr(codec, "decode", lambda data, ctx: data[10 ** 6])
    path = str(TESTDATA / "elf" / "deplibs.o")
    found = campaign.replay([path], str(tmp_path))
    assert found and all(p == path for p, _v in found)
    assert any(v.kind == "escape" and "IndexError" in v.detail for _p, v in found)
