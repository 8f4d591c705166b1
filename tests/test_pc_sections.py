"""PC sections (!pcsections): real clang-19 sanitizer metadata and llc-19 custom metadata (testdata/pc-sections,
made by scripts/testdata.d/35-pc-sections.sh).

No LLVM tool decodes these sections, so every decoded PC is checked against ground truth from other tools:
symbol values and sizes (pyelftools), relocations (pyelftools), instruction boundaries (objdump -d for x86-64,
llvm-objdump-19 -d for AArch64), and the metadata written in the IR source (custom.ll).
"""
from __future__ import annotations

import json
import re
import struct
import subprocess
from functools import lru_cache

import pytest
from elftools.elf.elffile import ELFFile
from elftools.elf.relocation import RelocationSection

from objllvm import _model, api
from objllvm.sections import registry
from objllvm.sections.support import pc_layouts as pcsections
from objllvm.formats import open_object
from objllvm.errors import DecodeError, UsageError

from conftest import TESTDATA, need_tool, run_objllvm

PCS = TESTDATA / "pc-sections"
SRC = TESTDATA / "src" / "pc-sections"
SANMD = sorted(PCS.glob("sanmd-*"))
CUSTOM = sorted(PCS.glob("custom-*"))


def custom_layouts():
    """The layouts written in custom.ll's header comment (one place for the IR and its layouts)."""
    text = (SRC / "custom.ll").read_text()
    return re.findall(r"(\w+:(?:func|insn)(?::C)?(?::aux=[\w/,]+)?)", text.split("target triple")[0])


# -- ground truth ------------------------------------------------------------------------------
class Truth:
    """What pyelftools and the disassembler say about one file."""

    def __init__(self, path):
        self.path = path
        with open(path, "rb") as f:
            elf = ELFFile(f)
            self.machine = elf["e_machine"]
            self.relocatable = elf["e_type"] == "ET_REL"
            self.sections = [s.name for s in elf.iter_sections()]
            symtab = elf.get_section_by_name(".symtab")
            self.funcs = []   # (section index, value, size, name)
            for s in symtab.iter_symbols():
                if s["st_info"]["type"] == "STT_FUNC" and isinstance(s["st_shndx"], int) and s["st_shndx"]:
                    self.funcs.append((s["st_shndx"], s["st_value"], s["st_size"], s.name))
            self.relocs = {}  # PC section name and index -> {offset: (target section name, addend, type)}
            syms = list(symtab.iter_symbols())
            self.endian = "<" if elf.little_endian else ">"
            for sec in elf.iter_sections():
                if isinstance(sec, RelocationSection) and self.relocatable:
                    tsection = elf.get_section(sec["sh_info"])
                    target = tsection.name
                    tdata = tsection.data()
                    by_name = self.relocs.setdefault(target, {})
                    by_index = self.relocs.setdefault(sec["sh_info"], {})
                    for r in sec.iter_relocations():
                        sym = syms[r["r_info_sym"]]
                        tsec = elf.get_section(sym["st_shndx"]).name if isinstance(sym["st_shndx"], int) else None
                        if sec.is_RELA():
                            addend = r["r_addend"]
                        else:   # REL: the addend is in the bytes (all 32-bit REL relocations here)
                            addend = struct.unpack_from(self.endian + "i", tdata, r["r_offset"])[0]
                        by_name[r["r_offset"]] = by_index[r["r_offset"]] = \
                            (tsec, sym["st_value"] + addend, r["r_info_type"])
            self.shdrs = {s.name: (s["sh_addr"], s["sh_size"], s["sh_flags"]) for s in elf.iter_sections()}
        self.insns = disassemble(str(path), self.machine)

    def func_at(self, pc, section=None):
        """The function symbol containing pc (in ``section`` for relocatable objects)."""
        best = None
        for shndx, value, size, name in self.funcs:
            if section is not None and self.sections[shndx] != section:
                continue
            if value <= pc < value + size and (best is None or value > best[1]):
                best = (shndx, value, size, name)
        return best

    def func_named(self, name):
        return [f for f in self.funcs if f[3] == name]

    def insn(self, pc, section=None):
        return self.insns.get((section if self.relocatable else None, pc))


@lru_cache(maxsize=None)
def disassemble(path, machine):
    """{(section or None, address): instruction text} from the disassembler."""
    if machine in ("EM_X86_64", "EM_386"):
        tool = need_tool("objdump")
    else:
        tool = need_tool("llvm-objdump-19")
    out = subprocess.run([tool, "-d", "--no-show-raw-insn", path], capture_output=True, text=True,
                         check=True).stdout
    relocatable = ELFFile(open(path, "rb"))["e_type"] == "ET_REL"
    insns = {}
    section = None
    for line in out.splitlines():
        m = re.match(r"^Disassembly of section (.*):$", line)
        if m:
            section = m.group(1)
            continue
        m = re.match(r"^\s*([0-9a-f]+):\s+(\S.*)$", line)
        if m and section is not None:
            insns[(section if relocatable else None, int(m.group(1), 16))] = m.group(2).strip()
    assert insns, f"no instructions from {tool} -d {path}"
    return insns


def load_sections(path, layouts=(), pc_width=None):
    """(obj, [(section, model)]) with every PC section decoded (errors fail the test)."""
    obj = open_object(str(path))
    opts = pcsections.options(list(layouts), pc_width)
    out = []
    for d in api.dump_object(obj, ["pc-sections"], opts).sections:
        assert d.error is None, str(d.error)
        out.append((d.section, d.model))
    return obj, out


def load(path, layouts=(), pc_width=None):
    """(obj, {section name: model}); sections of the same name (-ffunction-sections) merged into one model."""
    obj, secs = load_sections(path, layouts, pc_width)
    out = {}
    for sec, m in secs:
        if sec.name in out:
            out[sec.name].entries.extend(m.entries)
        else:
            out[sec.name] = _model.replace(m, entries=list(m.entries))
    return obj, out


def pcs_of(model):
    return [p for e in model.entries for p in e.pcs]


def is_memory_access(machine, text):
    if machine in ("EM_X86_64", "EM_386"):
        return "(" in text                     # an AT&T memory operand
    mnemonic = text.split()[0]
    return mnemonic.startswith(("ld", "st", "cas", "swp", "prfm"))


def check_memory_accesses(truth, pcs_by_func, what):
    """x86-64: every PC is an instruction with a memory operand.  AArch64 expands atomic read-modify-write
    operations to load-exclusive/store-exclusive loops and the metadata goes on every instruction of the loop:
    there, each function's PCs include memory accesses."""
    for func, items in pcs_by_func.items():
        hits = [is_memory_access(truth.machine, text) for _, text in items]
        if truth.machine in ("EM_X86_64", "EM_386"):
            assert all(hits), f"{truth.path.name} {what}: {[(hex(a), t) for a, t in items]}"
        else:
            assert any(hits), f"{truth.path.name} {what}: {[(hex(a), t) for a, t in items]}"


# -- corpus ------------------------------------------------------------------------------------
def test_corpus_is_there():
    names = {p.name for p in PCS.iterdir()}
    for want in ("sanmd-x86_64.o", "sanmd-x86_64.so", "sanmd-x86_64.exe", "sanmd-aarch64.o", "sanmd-aarch64.so",
                 "sanmd-aarch64.exe", "sanmd-large-x86_64.o", "sanmd-large-aarch64.o", "sanmd-i386.o",
                 "sanmd-i386.so", "sanmd-aarch64_be.o", "custom-x86_64.o",
                 "custom-x86_64.so", "custom-aarch64.o", "custom-aarch64.so"):
        assert want in names, f"{want} missing: run scripts/make-testdata pc-sections"
    for p in PCS.iterdir():
        assert p.stat().st_size < 64 * 1024, f"{p.name} is not tiny"


# -- real sanitizer metadata -------------------------------------------------------------------
@pytest.mark.parametrize("path", SANMD, ids=lambda p: p.name)
def test_sanitizer_metadata_pcs_match_symbols_and_disassembly(path):
    truth = Truth(path)
    obj, models = load(path)
    covered = [m for n, m in models.items() if n.startswith("sanmd_covered")]
    atomics = [m for n, m in models.items() if n.startswith("sanmd_atomics")]
    assert len(covered) == 1 and len(atomics) == 1, sorted(models)
    covered, atomics = covered[0], atomics[0]
    large = "large" in path.name
    assert covered.pc_width == atomics.pc_width == (8 if large else 4)
    assert covered.name.endswith("65538" if large else "2")

    # Function entries: the PC is the function's symbol value, the size its symbol size, exactly.
    by_func = {}
    for e in covered.entries:
        (p,) = e.pcs
        sec = p.section if truth.relocatable else None
        f = truth.func_at(p.address, sec)
        assert f is not None, f"{path.name}: covered PC {p.address:#x} is in no function"
        assert p.address == f[1], f"{path.name}: covered PC {p.address:#x} is not the start of {f[3]}"
        assert e.size == f[2], f"{path.name}: {f[3]} size {e.size} != symbol size {f[2]}"
        assert p.symbol == f[3] and p.symbol_offset == 0
        assert truth.insn(p.address, sec) is not None, f"{path.name}: no instruction at {p.address:#x}"
        feats = e.constants[0]
        assert feats.name == "features" and feats.encoding == "uleb"
        by_func[f[3]] = e

    # Instruction entries: inside a function, on an instruction boundary, an instruction that touches memory,
    # and that function is covered with the atomics feature (covered metadata is required to read atomics).
    assert atomics.entries
    by_func_pcs = {}
    for e in atomics.entries:
        assert not e.constants
        for p in e.pcs:
            sec = p.section if truth.relocatable else None
            f = truth.func_at(p.address, sec)
            assert f is not None, f"{path.name}: atomic PC {p.address:#x} is in no function"
            assert p.symbol == f[3] and p.symbol_offset == p.address - f[1]
            text = truth.insn(p.address, sec)
            assert text is not None, f"{path.name}: atomic PC {p.address:#x} is not on an instruction boundary"
            by_func_pcs.setdefault(f[3], []).append((p.address, text))
            assert "atomics" in by_func[f[3]].constants[0].flags
    check_memory_accesses(truth, by_func_pcs, "atomics")

    # What the source says each function gets (testdata/src/pc-sections/sanmd.c).
    assert "plain" not in by_func
    for name in ("load_acq", "bump", "spin"):
        assert "atomics" in by_func[name].constants[0].flags
    assert "uar" in by_func["uses_local"].constants[0].flags
    many = by_func["many"].constants
    assert [c.name for c in many] == ["features", "stack_args"]
    assert {"uar", "uar-has-size"} <= set(many[0].flags)
    # 9 long arguments: 3 on the stack on x86-64 (6 in registers), 1 on AArch64 (8 in registers), all 9 on i386.
    assert many[1].value >= {"EM_X86_64": 24, "EM_AARCH64": 8, "EM_386": 36}[truth.machine]
    for name, e in by_func.items():
        if name != "many":
            assert [c.name for c in e.constants] == ["features"], name


@pytest.mark.parametrize("path", [p for p in SANMD if p.suffix == ".o"], ids=lambda p: p.name)
def test_relocatable_pcs_are_the_relocations(path):
    truth = Truth(path)
    obj, secs = load_sections(path)
    for sec, m in secs:
        name = sec.name
        relocs = truth.relocs[sec.index]
        pcs = pcs_of(m)
        assert sorted(p.offset for p in pcs) == sorted(relocs), name
        for p in pcs:
            tsec, target, rtype = relocs[p.offset]
            assert (p.section, p.address) == (tsec, target)
            prefix = {"EM_X86_64": "R_X86_64_PC", "EM_AARCH64": "R_AARCH64_PREL", "EM_386": "R_386_PC"}
            assert p.relocation.startswith(prefix[truth.machine])
            assert p.relocation.endswith(str(8 * m.pc_width))
        assert m.pc_width_source == "name"


@pytest.mark.parametrize("path", [p for p in SANMD if p.suffix != ".o"], ids=lambda p: p.name)
def test_linked_pcs_are_entry_address_plus_stored_value(path):
    truth = Truth(path)
    obj, models = load(path)
    for name, m in models.items():
        addr, size, _ = truth.shdrs[name]
        data = obj.section_by_name(name).data()
        fmt = truth.endian + ("i" if m.pc_width == 4 else "q")
        for p in pcs_of(m):
            v = struct.unpack_from(fmt, data, p.offset)[0]
            assert p.stored == v and p.address == addr + p.offset + v
            assert p.relocation is None


def test_linked_width_is_probed_without_the_version_in_the_name():
    # The same large-model bytes under a user layout that does not fix the width: the probe must find 8.
    path = PCS / "sanmd-large-x86_64.exe"
    _, models = load(path, ["sanmd_atomics65538:insn"])
    m = models["sanmd_atomics65538"]
    assert (m.pc_width, m.pc_width_source) == (8, "probe")
    _, ref = load(path)
    assert [p.address for p in pcs_of(m)] == [p.address for p in pcs_of(ref["sanmd_atomics65538"])]
    # And the small-model file probes to 4.
    _, models = load(PCS / "sanmd-x86_64.so", ["sanmd_atomics2:insn"])
    assert (models["sanmd_atomics2"].pc_width, models["sanmd_atomics2"].pc_width_source) == (4, "probe")


def test_relocatable_width_comes_from_the_relocations():
    for name, width in (("sanmd-large-x86_64.o", 8), ("sanmd-large-aarch64.o", 8), ("sanmd-aarch64.o", 4)):
        _, models = load(PCS / name, ["sanmd_atomics65538:insn", "sanmd_atomics2:insn"])
        (m,) = [m for n, m in models.items() if n.startswith("sanmd_atomics")]
        assert (m.pc_width, m.pc_width_source) == (width, "relocations"), name


def test_wrong_width_is_a_clear_error():
    obj = open_object(str(PCS / "sanmd-x86_64.o"))
    (d,) = [d for d in api.dump_object(obj, ["pc-sections"], {"pc_width": 8}).sections
            if d.section.name == "sanmd_atomics2"]
    assert d.status == "error"
    assert "R_X86_64_PC32 is a 4-byte relocation but the PC width is 8" in d.error.message
    assert d.error.offset == 0 and d.error.section_name == "sanmd_atomics2"


# -- basic blocks ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["sanmd-bbmap-x86_64.exe", "sanmd-bbmap-x86_64.o", "sanmd-bbmap-fs-x86_64.o"])
def test_pcs_show_their_basic_block(name):
    try:
        from objllvm.sections.support import bb_index as bbindex  # noqa: F401
    except ImportError:
        pytest.skip("objllvm.sections.support.bb_index (the basic-block map index, another area) is not there yet")
    path = PCS / name
    truth = Truth(path)
    _, models = load(path)
    n = 0
    for m in models.values():
        assert m.blocks is None, m.blocks
        for p in pcs_of(m):
            b = p.block
            assert b is not None, f"{name}: {p.address:#x} has no block"
            assert b["function"] == p.symbol
            assert b["address"] <= p.address < b["address"] + b["size"]
            n += 1
            sec = p.section if truth.relocatable else None
            f = truth.func_at(p.address, sec)
            assert f[1] <= b["address"] < f[1] + f[2]
    assert n > 10


# -- custom layouts ----------------------------------------------------------------------------
def parse_ir_metadata():
    """From custom.ll: the expected entries per section as (function, number of PCs, constants)."""
    text = (SRC / "custom.ll").read_text()
    nodes = {}
    for m in re.finditer(r"^!(\d+) = !\{(.*)\}$", text, re.M):
        ops = []
        for op in re.findall(r'!"[^"]*"|!\d+|(?:i\d+|float|double) [-\d.e+]+', m.group(2)):
            ops.append(op)
        nodes[m.group(1)] = ops

    def walk(n):
        """[(section, [constants])] for a !pcsections node."""
        out = []
        for op in nodes[n]:
            if op.startswith('!"'):
                out.append((op[2:-1].split("!")[0], []))
            else:
                for c in nodes[op[1:]]:
                    t, v = c.split(" ")
                    out[-1][1].append((t, float(v) if t in ("float", "double") else int(v)))
        return out

    expect = {}
    for fm in re.finditer(r"^define .*? @(\w+)\(.*?\)(?: !pcsections !(\d+))? \{\n(.*?)^\}", text, re.M | re.S):
        fname, fmd, body = fm.group(1), fm.group(2), fm.group(3)
        if fmd:
            for sec, consts in walk(fmd):
                expect.setdefault(sec, []).append((fname, 1, consts))
        counts = {}
        for n in re.findall(r"!pcsections !(\d+)", body):
            counts[n] = counts.get(n, 0) + 1
        for n, k in counts.items():
            for sec, consts in walk(n):
                expect.setdefault(sec, []).append((fname, k, consts))
    return expect


def same_const(layout_type, ir, got):
    t, v = ir
    if t in ("float", "double"):
        return got.value == v
    bits = int(layout_type[1:])
    want = v % (1 << bits)                       # the IR literal as the layout's type says to read it
    if layout_type[0] == "i" and want >> (bits - 1):
        want -= 1 << bits
    return got.value == want


@pytest.mark.parametrize("path", CUSTOM, ids=lambda p: p.name)
def test_custom_layouts_decode_what_the_ir_says(path):
    truth = Truth(path)
    layouts = {pcsections.parse_layout(s).name: pcsections.parse_layout(s) for s in custom_layouts()}
    assert len(layouts) == 6
    _, models = load(path, layouts.values())
    expect = parse_ir_metadata()
    assert set(models) == set(layouts) == set(expect)
    for name, m in models.items():
        lay = layouts[name]
        got = []
        accesses = {}
        for e in m.entries:
            func = e.pcs[0].symbol
            got.append((func, len(e.pcs), e))
            for p in e.pcs:
                sec = p.section if truth.relocatable else None
                f = truth.func_at(p.address, sec)
                assert f is not None and f[3] == func == p.symbol
                assert truth.insn(p.address, sec) is not None, f"{path.name} {name}: {p.address:#x}"
                if lay.kind == "func":
                    assert p.address == f[1] and e.size == f[2]
                else:
                    accesses.setdefault(func, []).append((p.address, truth.insn(p.address, sec)))
        check_memory_accesses(truth, accesses, name)
        want = expect[name]
        if not lay.aux:
            # Without constants a group of PCs reads as single-PC entries (the bytes are the same).
            totals = {}
            for f, k, _ in want:
                totals[f] = totals.get(f, 0) + k
            want = [(f, 1, []) for f, k in totals.items() for _ in range(k)]
        want = sorted(want, key=lambda x: (x[0], x[1], repr(x[2])))
        got.sort(key=lambda x: (x[0], x[1], repr([c.value for c in x[2].constants])))
        assert [(f, k) for f, k, _ in got] == [(f, k) for f, k, _ in want], name
        for (_, _, e), (_, _, consts) in zip(got, want):
            assert len(e.constants) == len(consts) == len(lay.aux)
            for a, ir, c in zip(lay.aux, consts, e.constants):
                assert same_const(a.type, ir, c), (name, a, ir, c)
                small_int = a.type[0] in "ui" and a.size == 1
                assert c.encoding == ("uleb" if lay.compressed and not small_int and a.type[0] in "ui"
                                      else "fixed")


@pytest.mark.parametrize("path", CUSTOM, ids=lambda p: p.name)
def test_custom_sections_round_trip(path):
    obj = open_object(str(path))
    opts = pcsections.options(custom_layouts())
    n = 0
    for s in obj.sections:
        c = registry.find_codec(s, obj, opts)
        if c is not None and c.kind == "pc-sections":
            d = registry.decode_section(obj, s, opts)
            assert d.error is None, str(d.error)
            ctx = registry.SectionContext.for_section(obj, s, opts)
            assert c.encode(d.model, ctx) == s.data()
            # and through the JSON view
            assert c.encode(c.from_dict(json.loads(json.dumps(c.to_dict(d.model))), ctx), ctx) == s.data()
            n += 1
    assert n == 6


def test_custom_sections_are_not_claimed_without_a_layout():
    obj = open_object(str(PCS / "custom-x86_64.o"))
    s = obj.section_by_name("insn_tagged")
    assert registry.find_codec(s, obj) is None
    assert registry.find_codec(s, obj, pcsections.options(["insn_tagged:insn:aux=i32"])).kind == "pc-sections"


def test_cli_custom_layout_text_and_json():
    layouts = [a for s in custom_layouts() for a in ("--pc-section", s)]
    path = PCS / "custom-x86_64.o"
    rc, out, err = run_objllvm("dump", "-s", "pc-sections", *layouts, path)
    assert rc == 0 and err == ""
    assert "insn_tagged" in out and "tag=-5" in out and "layout insn_c:insn:C:aux=" in out
    rc, out, err = run_objllvm("dump", "-s", "pc-sections", "--json", *layouts, path)
    assert rc == 0, err
    doc = json.loads(out)
    secs = {s["name"]: s for s in doc["files"][0]["sections"]}
    truth = Truth(path)
    for name, s in secs.items():
        assert s["kind"] == "pc-sections" and s["status"] == "decoded"
        c = s["content"]
        offsets = [p["offset"] for e in c["entries"] for p in e["pcs"]]
        assert sorted(offsets) == sorted(truth.relocs[name]), name
        for e in c["entries"]:
            assert ("size" in e) == (c["kind"] == "func")
            for p in e["pcs"]:
                assert p["section"] == ".text" and p["symbol"] in ("alpha", "beta", "gamma")


def test_api_read():
    models = pcsections.read(str(PCS / "custom-aarch64.so"), layouts=custom_layouts())
    assert sorted(m.name for m in models) == sorted(pcsections.parse_layout(s).name for s in custom_layouts())
    models = pcsections.read(str(PCS / "sanmd-aarch64.exe"))
    assert {m.name for m in models} == {"sanmd_covered2", "sanmd_atomics2"}
    with pytest.raises(UsageError):
        pcsections.read(str(PCS / "sanmd-aarch64.exe"), layouts=["nokind"])


@pytest.mark.parametrize("text,want", [
    ("foo:func", ("foo", "func", False, ())),
    ("foo:insn:C:aux=u8,u32", ("foo", "insn", True, ("u8", "u32"))),
    ("foo!C:insn:aux=flags/u64", ("foo", "insn", True, ("u64",))),
    ("a:b:insn", ("a:b", "insn", False, ())),
])
def test_layout_syntax(text, want):
    lay = pcsections.parse_layout(text)
    assert (lay.name, lay.kind, lay.compressed, tuple(a.type for a in lay.aux)) == want
    assert pcsections.parse_layout(lay.spec()) == lay


@pytest.mark.parametrize("text", ["foo", "foo:fn", ":insn", "foo:insn:aux=u7", "foo:insn:X", "foo!Z:insn"])
def test_bad_layouts_are_usage_errors(text):
    with pytest.raises(UsageError):
        pcsections.parse_layout(text)
    rc, out, err = run_objllvm("dump", "--pc-section", text, PCS / "custom-x86_64.o")
    assert rc == 2 and "Traceback" not in err and "layout" in err


# -- bad input ---------------------------------------------------------------------------------
def patched(tmp_path, src, section, *, size=None, at=None, data=None):
    """A copy of ``src`` with ``section``'s sh_size changed or bytes overwritten (a malformed file)."""
    raw = bytearray(src.read_bytes())
    with open(src, "rb") as f:
        elf = ELFFile(f)
        idx = [i for i, s in enumerate(elf.iter_sections()) if s.name == section][0]
        shoff, entsize = elf["e_shoff"], elf["e_shentsize"]
        off = elf.get_section(idx)["sh_offset"]
    if size is not None:
        struct.pack_into("<Q", raw, shoff + idx * entsize + 0x20, size)
    if data is not None:
        raw[off + at:off + at + len(data)] = data
    out = tmp_path / src.name
    out.write_bytes(bytes(raw))
    return out


def one_section(path, name, options=None):
    obj = open_object(str(path))
    (d,) = [d for d in api.dump_object(obj, ["pc-sections"], options).sections if d.section.name == name]
    return d


def test_size_not_a_whole_number_of_entries(tmp_path):
    bad = patched(tmp_path, PCS / "sanmd-x86_64.o", "sanmd_atomics2", size=10)
    d = one_section(bad, "sanmd_atomics2")
    assert d.status == "error"
    e = d.error
    assert e.offset == 8 and "entry 2" in e.message and "not a whole number of 4-byte entries" in e.message
    assert len(d.model.entries) == 2            # the entries before it are still there
    rc, out, err = run_objllvm("dump", "-s", "pc-sections", bad)
    assert rc == 1 and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and "sanmd_atomics2" in err and "offset 0x8" in err
    assert "bump" in out and "entry 2" in out


def test_uleb_running_off_the_end(tmp_path):
    src = PCS / "sanmd-x86_64.o"
    size = Truth(src).shdrs["sanmd_covered2"][1]
    bad = patched(tmp_path, src, "sanmd_covered2", size=size - 1)
    good = one_section(src, "sanmd_covered2").model.entries
    d = one_section(bad, "sanmd_covered2")
    assert d.status == "error"
    n = len(good) - 1
    last = good[-1].constants[-1]
    assert f"entry {n} " in d.error.message and f"truncated ULEB128 constant {last.name}" in d.error.message
    assert d.error.offset == size - 1 and last.length == 1
    assert [e.pcs[0].symbol for e in d.model.entries] == [e.pcs[0].symbol for e in good[:-1]]
    # A ULEB whose continuation bit runs into the end: the last byte of a custom !C section.
    rc, out, err = run_objllvm("dump", "--json", "--pc-section", "sanmd_covered2:func:C:aux=u64,u64", bad)
    assert rc == 1 and "Traceback" not in err


def test_pc_outside_any_section(tmp_path):
    src = PCS / "sanmd-x86_64.so"
    bad = patched(tmp_path, src, "sanmd_atomics2", at=8, data=struct.pack("<i", 0x7FFF0000))
    d = one_section(bad, "sanmd_atomics2")
    assert d.status == "error" and d.error.offset == 8
    assert "entry 2" in d.error.message and "outside any section" in d.error.message
    assert len(d.model.entries) == 2
    rc, out, err = run_objllvm("dump", "--json", "-s", "pc-sections", bad)
    assert rc == 1 and "Traceback" not in err
    doc = json.loads(out)
    (s,) = [s for s in doc["files"][0]["sections"] if s["name"] == "sanmd_atomics2"]
    assert s["status"] == "error" and len(s["content"]["entries"]) == 2


def test_wrong_layout_in_an_object_names_the_entry():
    # sanmd_covered2 read as bare instruction PCs: the second "PC" is the size and features, without relocation.
    d = one_section(PCS / "sanmd-x86_64.o", "sanmd_covered2", pcsections.options(["sanmd_covered2:insn"]))
    assert d.status == "error" and "entry 1" in d.error.message and "no relocation" in d.error.message
    assert d.error.offset == 4 and len(d.model.entries) == 1


def test_codec_on_random_bytes_never_raises_anything_else():
    from hypothesis import given, settings, strategies as st
    from objllvm.sections.registry import SectionContext
    from objllvm.formats.base import Section
    c = registry.get("pc-sections")
    obj = open_object(str(PCS / "sanmd-x86_64.so"))
    sec = obj.section_by_name("sanmd_covered2")

    @settings(max_examples=150, deadline=None)
    @given(st.binary(max_size=40), st.sampled_from(custom_layouts() + ["sanmd_covered2:func:C:aux=u64"]))
    def run(data, layout):
        lay = pcsections.parse_layout(layout)
        s = Section(sec.index, lay.name, 1, sec.flags, sec.addr, sec.offset, len(data))
        ctx = SectionContext.for_section(obj, s, pcsections.options([layout]))
        try:
            m = c.decode(data, ctx)
        except DecodeError as exc:
            assert exc.offset is not None and exc.message.startswith("entry ")
            return
        assert c.encode(m, ctx) == data
    run()


def test_version1_sanitizer_metadata_fixed_size_layout():
    # LLVM 16's form (testdata/src/pc-sections/sanmd-v1.ll): 12-byte function entries, 4-byte instruction PCs.
    path = PCS / "v1-x86_64.o"
    truth = Truth(path)
    _, models = load(path)
    cov, atom = models["sanmd_covered"], models["sanmd_atomics"]
    assert cov.layout.fixed_entry_size(4) == 12 and len(cov.entries) * 12 == truth.shdrs["sanmd_covered"][1]
    assert len(atom.entries) * 4 == truth.shdrs["sanmd_atomics"][1]
    feats = {}
    for e in cov.entries:
        f = truth.func_at(e.pcs[0].address, ".text")
        assert (e.pcs[0].address, e.size, e.pcs[0].symbol) == (f[1], f[2], f[3])
        assert e.size_length == 4 and e.constants[0].encoding == "fixed"
        feats[f[3]] = e.constants[0].flags
    assert feats == {"load_acq": ["atomics"], "bump": ["atomics"], "covered_only": []}
    for p in pcs_of(atom):
        assert truth.insn(p.address, ".text") is not None
        assert p.symbol in ("load_acq", "bump")


def test_relocated_pc_outside_its_section(tmp_path):
    # The third relocation of .relasanmd_atomics2 pointed far past the end of .text.
    src = PCS / "sanmd-x86_64.o"
    with open(src, "rb") as f:
        elf = ELFFile(f)
        rs = elf.get_section_by_name(".relasanmd_atomics2")
        at = rs["sh_offset"] + 2 * rs["sh_entsize"] + 16
    raw = bytearray(src.read_bytes())
    struct.pack_into("<q", raw, at, 0x100000)
    bad = tmp_path / "bad.o"
    bad.write_bytes(bytes(raw))
    d = one_section(bad, "sanmd_atomics2")
    assert d.status == "error" and d.error.offset == 8
    assert "entry 2" in d.error.message and "outside its section" in d.error.message
    assert len(d.model.entries) == 2


def test_from_dict_rejects_bad_json_cleanly():
    obj = open_object(str(PCS / "sanmd-x86_64.o"))
    s = obj.section_by_name("sanmd_atomics2")
    ctx = registry.SectionContext.for_section(obj, s)
    c = registry.get("pc-sections")
    for bad in ({}, {"pc_width": 4, "entries": [{"pcs": [{}]}]}, {"pc_width": "x", "entries": []}):
        with pytest.raises(UsageError):
            c.from_dict(bad, ctx)
