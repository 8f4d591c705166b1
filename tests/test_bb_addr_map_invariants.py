"""Checks against ground truth where no LLVM tool reads the map (rustc's version 5, llvm-mc's 3-5):
on every real executable / shared object of the corpus, each function's blocks lie inside its
symbol [value, value + size) (symbols read with pyelftools, not our ELF reader), blocks do not
overlap, block starts and ends are instruction boundaries and call-site end offsets are the ends of
call instructions (or a tail-call jmp) in binutils `objdump -d`.  PGO data must point at blocks
of the same function with probabilities summing to at most one."""
from __future__ import annotations

import re
import subprocess

import pytest
from elftools.elf.elffile import ELFFile

from conftest import TESTDATA, need_tool
from objllvm.sections.support.bb_index import BBIndex

BB = TESTDATA / "bb-addr-map"
LINKED = sorted(p.name for p in BB.iterdir() if p.suffix in (".exe", ".so"))
CALLSITE_FILES = {"rustc-v5.exe", "rustc-v5-hash.exe", "rustc-v5-pgo.exe", "mc-v3.exe", "mc-v4.exe", "mc-v5.exe"}
_INSN = re.compile(r"^\s*([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*\t?(\S*)")


def test_corpus_has_linked_files():
    assert {"clang19-labels.exe", "clang19-labels.so", "clang19-pgo-profile.exe", "llc14-v0.exe"} <= set(LINKED)
    assert CALLSITE_FILES <= set(LINKED)


def ground_truth(path):
    with open(path, "rb") as f:
        elf = ELFFile(f)
        syms = {}
        for s in elf.get_section_by_name(".symtab").iter_symbols():
            if s["st_info"]["type"] == "STT_FUNC" and s["st_shndx"] != "SHN_UNDEF":
                syms.setdefault(s.name, (s["st_value"], s["st_size"]))
    out = subprocess.run([need_tool("objdump"), "-d", "-w", str(path)], capture_output=True, text=True,
                         check=True).stdout
    starts, ends, call_ends, jump_ends = set(), set(), set(), set()
    for line in out.splitlines():
        m = _INSN.match(line)
        if not m:
            continue
        a = int(m.group(1), 16)
        e = a + len(m.group(2).split())
        starts.add(a)
        ends.add(e)
        if m.group(3).startswith("call"):
            call_ends.add(e)
        elif m.group(3).startswith("jmp"):
            jump_ends.add(e)
    return syms, starts, ends, call_ends, jump_ends


@pytest.mark.parametrize("name", LINKED)
def test_blocks_match_symbols_and_instructions(name):
    path = BB / name
    syms, starts, ends, call_ends, jump_ends = ground_truth(path)
    index = BBIndex.from_path(path)
    assert index.functions, f"no map decoded in {name}"
    ncalls = nblocks = 0
    for fn in index.functions:
        assert fn.name in syms, f"{name}: {fn.name} is not a function symbol"
        value, size = syms[fn.name]
        assert fn.address == value
        blocks = sorted(fn.blocks, key=lambda b: b.address)
        for b in blocks:
            assert value <= b.address and b.address + b.size <= value + size, (name, fn.name, b)
            if b.size:
                assert b.address in starts, (name, fn.name, b, "block start is not an instruction start")
                assert b.address + b.size in ends, (name, fn.name, b, "block end is not an instruction end")
            for c in b.callsite_end_offsets:
                assert 0 < c <= b.size, (name, fn.name, b)
                assert b.address + c in call_ends | jump_ends, (name, fn.name, b, hex(b.address + c))
                ncalls += 1
            nblocks += 1
        for a, b in zip(blocks, blocks[1:]):
            assert a.address + a.size <= b.address, (name, fn.name, a, b, "blocks overlap")
        if fn.pgo_blocks is not None:
            assert len(fn.pgo_blocks) == len(fn.blocks)
            ids = {b.id for b in fn.blocks}
            for p in fn.pgo_blocks:
                assert {s.id for s in p.successors} <= ids
                # LLVM drops some edges from real profiles, so the sum may fall short of one.
                assert sum(s.probability for s in p.successors) <= 0x80000000 + len(p.successors)
    if name != "mc-omit.exe":
        assert nblocks > 0
    if name in CALLSITE_FILES:
        assert ncalls > 0, f"{name}: no call sites checked"


def test_rustc_maps_are_version_5_with_their_features():
    seen = {}
    for name, want in (("rustc-v5.exe", 0x20), ("rustc-v5-hash.exe", 0x60), ("rustc-v5-pgo.exe", 0x67)):
        index = BBIndex.from_path(BB / name)
        assert {f.version for f in index.functions} == {5}
        # Functions without calls leave CallsiteEndOffsets out.
        assert want in {f.feature for f in index.functions} <= {want, want & ~0x20}, name
        seen[name] = index
    hashed = [b.hash for f in seen["rustc-v5-hash.exe"].functions for b in f.blocks]
    assert all(h is not None for h in hashed) and len(set(hashed)) > 1
    # Same program, same blocks: the hash and PGO builds lay the code out the same way.
    lay = [[(b.id, b.offset, b.size) for b in f.blocks] for f in seen["rustc-v5-hash.exe"].functions]
    assert lay == [[(b.id, b.offset, b.size) for b in f.blocks] for f in seen["rustc-v5-pgo.exe"].functions]
    pgo = seen["rustc-v5-pgo.exe"].functions
    assert all(f.entry_count is not None and len(f.pgo_blocks) == len(f.blocks) for f in pgo)
    assert any(p.frequency for f in pgo for p in f.pgo_blocks)


OBJECTS = sorted(p.name for p in BB.iterdir() if p.suffix == ".o" and not p.name.startswith("yaml-")
                 and p.name != "clang19-eh.o")


@pytest.mark.parametrize("name", OBJECTS)
def test_object_functions_are_the_symbols_of_their_text_sections(name):
    """Relocated addresses (RELA addends, REL implicit addends) name every function symbol of each
    text section exactly once: wrong relocation handling puts functions at 0 or at a neighbour."""
    path = BB / name
    with open(path, "rb") as f:
        elf = ELFFile(f)
        want = sorted((s["st_shndx"], s["st_value"], s.name) for s in elf.get_section_by_name(".symtab").iter_symbols()
                      if s["st_info"]["type"] == "STT_FUNC" and isinstance(s["st_shndx"], int))
        rel_types = {s["sh_type"] for s in elf.iter_sections() if s.name.endswith("llvm_bb_addr_map")
                     and s["sh_type"] in ("SHT_REL", "SHT_RELA")}
    got = sorted((f.section_index, f.address, f.name) for f in BBIndex.from_path(path).functions)
    assert got == want
    if name == "clang19-i386-rel.o":
        assert rel_types == {"SHT_REL"} and len({a for _, a, _ in got}) == len(got) > 1
