"""Hostile input: a rewrite of a damaged ELF file either works (and reads back) or raises ObjllvmError --
never another exception -- and the command exits 1 with one line and writes nothing."""
from __future__ import annotations

import re
import struct

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import run_objllvm
from objllvm import rewrite as rw
from objllvm.formats.elf import ElfFile
from objllvm.errors import ObjllvmError
from test_rewrite_support import RW

BASE = (RW / "main.o").read_bytes()
SMALL = (RW / "linkopt.o").read_bytes()


def _try(data, ops):
    try:
        out, _ = rw.rewrite_bytes(data, ops, "fuzz.o")
    except ObjllvmError as exc:
        assert str(exc)
        return None
    ElfFile(out, "out")       # what was produced reads back
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([BASE, SMALL]), st.lists(st.tuples(st.integers(0, 4095), st.integers(0, 255)),
                                                 min_size=1, max_size=6),
       st.sampled_from(["none", "strip", "deplib", "cg"]))
def test_mutated_bytes_never_crash(base, muts, op):
    data = bytearray(base)
    for pos, val in muts:
        data[pos % len(data)] = val
    ops = {"none": [], "strip": [rw.StripLLVM()], "deplib": [rw.AddDeplib("x")],
           "cg": [rw.ScaleCGWeights("2")]}[op]
    _try(bytes(data), ops)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 40), st.sampled_from(["sh_offset", "sh_size", "sh_link", "sh_info", "sh_type"]),
       st.integers(0, 2**32 - 1))
def test_section_header_fields_never_crash(index, fld, value):
    o = ElfFile(BASE, "x")
    data = bytearray(BASE)
    i = index % len(o.sections)
    base = o.e_shoff + i * 64
    off, fmt = {"sh_type": (4, "<I"), "sh_offset": (24, "<Q"), "sh_size": (32, "<Q"), "sh_link": (40, "<I"),
                "sh_info": (44, "<I")}[fld]
    struct.pack_into(fmt, data, base + off, value)
    _try(bytes(data), [rw.StripLLVM()])


def test_truncated_file_cli(tmp_path):
    bad = tmp_path / "t.o"
    bad.write_bytes(BASE[:len(BASE) // 2])
    code, out, err = run_objllvm("rewrite", bad, "-o", tmp_path / "o.o", "--strip-llvm")
    assert code == 1 and err.startswith("objllvm: error: ") and err.count("\n") == 1, err
    assert not (tmp_path / "o.o").exists()


def test_edit_needing_crel_relocations_is_refused(tmp_path):
    """A call-graph profile whose relocations are SHT_CREL (cg-profile-crel.o, valid LLVM 19 output): the
    writer cannot re-encode them, so --drop-cg-edge, which must move them, is refused (it raised IndexError,
    found by the fuzz tools target).  --scale-cg-weights leaves every relocation where it is (the codec says
    so): the weights change, the CREL section is kept byte for byte, and llvm-readobj-22 reads the new weights;
    --strip-llvm still works."""
    import subprocess
    from conftest import TESTDATA, need_tool
    data = (TESTDATA / "elf" / "cg-profile-crel.o").read_bytes()
    o = ElfFile(data, "crel.o")
    rel = next(s for s in o.sections if s.type == 0x40000014)
    try:
        rw.rewrite_bytes(data, [rw.DropCGEdge("warm:cold")], "crel.o")
    except ObjllvmError as exc:
        assert exc.section_index == rel.index and exc.offset == 0
        assert "SHT_CREL relocations of the edited section" in exc.message and "refused" in exc.message
    else:
        raise AssertionError("the CREL edit was not refused")
    out, changes = rw.rewrite_bytes(data, [rw.ScaleCGWeights("2")], "crel.o")
    assert [(c.name, c.action) for c in changes] == [(".llvm.call-graph-profile", "changed")]
    new = ElfFile(out, "out")
    assert new.sections[rel.index].data() == rel.data()
    readobj = need_tool("llvm-readobj-22")

    def weights(b):
        path = tmp_path / "cg.o"
        path.write_bytes(b)
        text = subprocess.run([readobj, "--cg-profile", str(path)], capture_output=True, text=True).stdout
        return [int(w) for w in re.findall(r"Weight: (\d+)", text)]
    assert weights(out) == [2 * w for w in weights(data)] and weights(data)
    out, _ = rw.rewrite_bytes(data, [rw.StripLLVM()], "crel.o")
    assert ElfFile(out, "out").sections and len(out) < len(data)


def test_an_empty_program_header_table_past_the_new_end_is_written_as_none(tmp_path):
    """main.o with e_phoff near its end and e_phnum 0 (llvm-readobj-22 reads it without a word): --strip-llvm makes
    the file smaller, and an e_phoff past the new end would make llvm-readobj-22 reject the output ("program
    headers are longer than binary").  The output has e_phoff 0; a no-op keeps every byte."""
    import subprocess
    from conftest import need_tool
    readobj = need_tool("llvm-readobj-22")
    data = bytearray(BASE)
    struct.pack_into("<Q", data, 0x20, len(data) - 8)
    inp = tmp_path / "in.o"
    inp.write_bytes(data)

    def check(path):
        p = subprocess.run([readobj, "--file-headers", "--program-headers", "--sections", str(path)],
                           capture_output=True, text=True)
        assert p.returncode == 0 and not p.stderr, p.stderr
        return p.stdout
    check(inp)
    out = tmp_path / "out.o"
    rc, _, err = run_objllvm("rewrite", inp, "--strip-llvm", "-o", out)
    assert rc == 0, err
    assert len(out.read_bytes()) < len(data) - 8
    assert "ProgramHeaderOffset: 0x0\n" in check(out)
    rc, _, err = run_objllvm("rewrite", inp, "-o", out)
    assert rc == 0 and out.read_bytes() == bytes(data), err
