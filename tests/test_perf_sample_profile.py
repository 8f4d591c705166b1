"""perf-map --sample-profile: an LLVM sample profile (text) from IP samples and the binary's DWARF line tables.

testdata/src/perf-layout/interp.c is built here with clang-22 (``-gline-tables-only -fdebug-info-for-profiling``,
the basic-block address map), samples are written for its blocks (objllvm.perf.writer), and the profile is
checked against LLVM's own tools: ``llvm-profdata-22 show --sample --json`` reads it, every sampled block's
location (``llvm-symbolizer-22 --inlining --verbose``: function, start line, line, discriminator, inline
frames) carries at least the block's count, and clang-22 rebuilds the program with ``-fprofile-sample-use``.
"""
from __future__ import annotations

import json
import random
import re
import subprocess

import pytest

from conftest import TESTDATA, need_tool, run_objllvm
from objllvm.perf import sample_profile as sp
from objllvm.perf.writer import PerfDataWriter

SRC = TESTDATA / "src" / "perf-layout" / "interp.c"
BASE = 0x555555554000


# -- discriminators: LLVM's encoding (llvm/include/llvm/Support/Discriminator.h) -------------------------------
def prefix_encode(u):
    """getPrefixEncodingFromUnsigned: up to 12 bits; bit 5 set when bits 6.. are used (shifted up by one)."""
    u &= 0xFFF
    return (((u & 0xFE0) << 1) | (u & 0x1F) | 0x20) if u > 0x1F else u


def encode_component(c):
    """encodeComponent: 1 for zero, else the prefix encoding shifted left by one (bit 0 clear)."""
    return 1 if c == 0 else prefix_encode(c) << 1


def encoding_bits(c):
    return 1 if c == 0 else (14 if c > 0x1F else 7)


@pytest.mark.parametrize("base", [0, 1, 2, 5, 31, 32, 33, 100, 4095])
@pytest.mark.parametrize("dup", [0, 3, 40])
def test_base_discriminator_of_llvm_encoding(base, dup):
    # DILocation::encodeDiscriminator(BD, DF, CI): the components one after the other, base first
    d = encode_component(base) | (encode_component(dup) << encoding_bits(base))
    assert sp.base_discriminator(d) == base


def test_base_discriminator_plain_small_values():
    # a discriminator written without components (bit 0 clear, small): its value shifted right by one
    assert sp.base_discriminator(4) == 2
    assert sp.base_discriminator(1) == 0


# -- a real build ------------------------------------------------------------------------------------------------
def readobj_blocks(path):
    tool = need_tool("llvm-readobj-22")
    j = json.loads(subprocess.check_output([tool, "--bb-addr-map", "--elf-output-style=JSON", str(path)]))
    out = {}
    for f in j[0]["BBAddrMap"]:
        fn = f["Function"]
        out[fn["Name"]] = [dict(id=e["ID"], start=r["Base Address"] + e["Offset"], size=e["Size"])
                           for r in fn["BB Ranges"] for e in r["BB Entries"]]
    return out


def text_segment(path):
    from elftools.elf.elffile import ELFFile
    with open(path, "rb") as f:
        e = ELFFile(f)
        text = [s for s in e.iter_segments() if s["p_type"] == "PT_LOAD" and s["p_flags"] & 1][0]
        bid = next(iter(e.get_section_by_name(".note.gnu.build-id").iter_notes()))["n_desc"]
        return text["p_vaddr"], text["p_offset"], text["p_memsz"], bytes.fromhex(bid)


def symbolize(path, addrs):
    """``{addr: [frame, ...]}`` innermost first; a frame: (function, start line, line, discriminator)."""
    tool = need_tool("llvm-symbolizer-22")
    out = subprocess.run([tool, f"--obj={path}", "--inlining", "--verbose", *[hex(a) for a in addrs]],
                         capture_output=True, text=True, check=True).stdout
    res, cur, frames = {}, None, []
    it = iter(addrs)
    for block in out.strip().split("\n\n"):
        frames, cur = [], None
        for line in block.splitlines():
            if not line.startswith(" "):
                cur = dict(name=line.strip(), disc=0)
                frames.append(cur)
            else:
                k, _, v = line.strip().partition(": ")
                if k == "Function start line":
                    cur["start"] = int(v)
                elif k == "Line":
                    cur["line"] = int(v)
                elif k == "Discriminator":
                    cur["disc"] = int(v)
        res[next(it)] = frames
    return res


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    cc = need_tool("clang-22")
    need_tool("ld.lld-22")
    d = tmp_path_factory.mktemp("sample-profile")
    exe = d / "interp"
    flags = ["-O2", "-gline-tables-only", "-fdebug-info-for-profiling", "-fbasic-block-address-map",
             "-ffunction-sections"]
    subprocess.run([cc, *flags, "-fuse-ld=lld", "-Wl,--build-id=sha1", str(SRC), "-o", str(exe)], check=True)
    blocks = readobj_blocks(exe)
    vaddr, off, memsz, bid = text_segment(exe)
    rng = random.Random(5)
    counts = {}
    w = PerfDataWriter()
    start = BASE + (vaddr & ~0xFFF)
    w.mmap2(9, 9, start, (vaddr + memsz - (vaddr & ~0xFFF) + 0xFFF) & ~0xFFF, off & ~0xFFF, str(exe), build_id=bid)
    for name in ("run", "helper_mix", "helper_rare", "main"):
        for b in blocks.get(name, []):
            if b["size"] <= 0 or rng.random() < 0.3:
                continue
            n = rng.randint(1, 40) * max(1, b["size"] // 4)
            counts[(name, b["id"])] = (b, n)
            for k in range(n):
                w.sample(BASE + b["start"] + (k * 4) % b["size"], 9)
    data = d / "interp.data"
    data.write_bytes(w.to_bytes())
    prof = d / "prof.txt"
    rc, out, err = run_objllvm("perf-map", str(exe), str(data), "--sample-profile", str(prof))
    assert rc == 0, err
    return dict(dir=d, exe=exe, prof=prof, counts=counts, flags=flags, cc=cc, stdout=out)


def profdata_json(prof):
    tool = need_tool("llvm-profdata-22")
    p = subprocess.run([tool, "show", "--sample", "--json", str(prof)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def find_body(fs, path):
    """The samples at ``path`` (a list of (offset, disc) steps through inlined callees, then the body line)."""
    node = fs
    for (off, disc), callee in path[:-1]:
        subs = [c for c in node.get("callsites", []) if c["line"] == off and c.get("discriminator", 0) == disc]
        nxt = [s for c in subs for s in c["samples"] if s["name"] == callee]
        if not nxt:
            return None
        node = nxt[0]
    off, disc = path[-1]
    hits = [b["samples"] for b in node.get("body", []) if b["line"] == off and b.get("discriminator", 0) == disc]
    return hits[0] if hits else None


def test_llvm_profdata_reads_it_and_locations_match_the_symbolizer(built):
    funcs = {f["name"]: f for f in profdata_json(built["prof"])}
    assert {"run"} <= set(funcs)
    addrs = sorted({b["start"] for b, _n in built["counts"].values()})
    frames = symbolize(built["exe"], addrs)
    checked = 0
    for (name, _bid), (b, n) in built["counts"].items():
        fr = frames[b["start"]]
        if not fr or fr[0].get("line", 0) == 0:
            continue                 # no line for the block's first byte (compiler-generated code)
        outer = fr[-1]
        top = funcs.get(outer["name"])
        assert top is not None, outer["name"]
        path = []
        for caller, callee in zip(reversed(fr), list(reversed(fr))[1:]):
            path.append((((caller["line"] - caller["start"]) & 0xFFFF, sp.base_discriminator(caller["disc"])),
                         callee["name"]))
        leaf = fr[0]
        path.append(((leaf["line"] - leaf["start"]) & 0xFFFF, sp.base_discriminator(leaf["disc"])))
        got = find_body(top, path)
        want = round(n / max(1, b["size"] / 4) * sp.COUNT_SCALE)
        assert got is not None and got >= want, (name, b, path, got, want)
        checked += 1
    assert checked >= 10
    # a top-level total is the sum of its body and of its inlined callees' totals (the reader keeps the header's)
    for f in funcs.values():
        def total(node):
            return sum(x["samples"] for x in node.get("body", [])) + sum(
                total(s) for c in node.get("callsites", []) for s in c["samples"])
        assert f["total"] == total(f)


def test_clang22_rebuilds_with_the_profile(built):
    exe2 = built["dir"] / "interp.spgo"
    p = subprocess.run([built["cc"], *built["flags"], f"-fprofile-sample-use={built['prof']}",
                        "-Rpass=sample-profile", str(SRC), "-o", str(exe2)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    # the sample loader found the functions: it annotates their branches
    assert re.search(r"remark: .*\[-Rpass=sample-profile\]", p.stderr), p.stderr[-2000:]
    a = subprocess.run([str(built["exe"]), "20000"], capture_output=True, text=True)
    b = subprocess.run([str(exe2), "20000"], capture_output=True, text=True)
    assert a.returncode == b.returncode == 0 and a.stdout == b.stdout


def test_cli_says_where_it_wrote_and_refuses_a_binary_without_dwarf(built, tmp_path):
    assert "Sample profile written to" in built["stdout"]
    cc = built["cc"]
    exe = tmp_path / "nodwarf"
    subprocess.run([cc, "-O2", "-fbasic-block-address-map", "-ffunction-sections", "-fuse-ld=lld",
                    "-Wl,--build-id=sha1", str(SRC), "-o", str(exe)], check=True)
    blocks = readobj_blocks(exe)
    vaddr, off, memsz, bid = text_segment(exe)
    w = PerfDataWriter()
    w.mmap2(9, 9, BASE + (vaddr & ~0xFFF), (vaddr + memsz - (vaddr & ~0xFFF) + 0xFFF) & ~0xFFF, off & ~0xFFF,
            str(exe), build_id=bid)
    for b in blocks["run"][:5]:
        w.sample(BASE + b["start"], 9)
    data = tmp_path / "n.data"
    data.write_bytes(w.to_bytes())
    out = tmp_path / "p.txt"
    rc, _out, err = run_objllvm("perf-map", str(exe), str(data), "--sample-profile", str(out))
    assert rc != 0 and "DWARF" in err and "-gline-tables-only" in err and "Traceback" not in err
    assert not out.exists()
