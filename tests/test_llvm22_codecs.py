"""The LLVM-specific sections LLVM 22 writes, decoded and checked against LLVM 22's own tools.

Corpus: testdata/llvm22/ (scripts/testdata.d/80-llvm22.sh, every file from clang-22, llc-22, llvm-mc-22 or
ld.lld-22).  Where an LLVM 22 tool dumps a section (llvm-readobj-22 --stackmap/--stack-sizes/--addrsig/
--cg-profile, llvm-objdump-22 --fault-map-section, llvm-xray-22 extract) the test compares field by field;
where none does (jump-table sizes, call graph, CFI jump table, offloading entries), the ground truth is the
assembly the same compiler writes (committed beside the object) or the relocations llvm-readobj-22 lists.
"""
from __future__ import annotations

import base64
import json
import re
import subprocess

import pytest

from conftest import TESTDATA, need_tool, run_objllvm
from objllvm import api
from objllvm.sections import registry

D = TESTDATA / "llvm22"


def ours(path, kind=None):
    """{kind: [section dict]} of objllvm's dump (one object)."""
    items = api.dump(str(path))
    doc = api.dump_to_dict(items)
    assert not doc["errors"], doc["errors"]
    (f,) = doc["files"]
    out = {}
    for s in f["sections"]:
        out.setdefault(s["kind"], []).append(s)
    return out[kind] if kind else out


def tool(*args) -> str:
    need_tool(args[0])
    return subprocess.run(list(args), capture_output=True, text=True, check=True).stdout


def relocs(path, section) -> list:
    """(offset, type, symbol, addend) of the relocations llvm-readobj-22 lists for ``section``."""
    text = tool("llvm-readobj-22", "-r", str(path))
    out, inside = [], False
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("Section ("):
            inside = line.split(") ", 1)[1].rstrip(" {") in (f".rela{section}", f".rel{section}")
            continue
        if inside and line.startswith("0x"):
            p = line.split()
            out.append((int(p[0], 16), p[1], p[2] if len(p) > 3 else "", int(p[-1], 16) if len(p) > 3 else 0))
    return out


# ---- stack maps: llvm-readobj-22 --stackmap ------------------------------------------------------------------

def _readobj_stackmap(path):
    text = tool("llvm-readobj-22", "--stackmap", str(path))
    fns, consts, recs = [], [], []
    for line in text.splitlines():
        s = line.strip()
        m = re.match(r"Function address: (\d+), stack size: (\d+), callsite record count: (\d+)", s)
        if m:
            fns.append(tuple(map(int, m.groups())))
        elif re.match(r"#\d+: \d+$", s) and not recs:
            consts.append(int(s.split(": ")[1]))
        elif s.startswith("Record ID:"):
            m = re.match(r"Record ID: (\d+), instruction offset: (\d+)", s)
            recs.append([int(m[1]), int(m[2]), [], None])
        elif recs and re.match(r"#\d+: ", s):
            recs[-1][2].append(s.split(": ", 1)[1])
        elif "live-outs:" in s:
            recs[-1][3] = re.findall(r"R#(\d+) \((\d+)-bytes\)", s)
    version = int(re.search(r"LLVM StackMap Version: (\d+)", text)[1])
    return version, fns, consts, recs


def _loc_text(loc, consts):
    k, reg, off, size = loc["kind"], loc["register"], loc["offset"], loc["size"]
    if k == "ConstantIndex":
        body = f"ConstantIndex #{off} ({consts[off]})"
    else:
        body = {"Register": f"Register R#{reg}", "Direct": f"Direct R#{reg} + {off}",
                "Indirect": f"Indirect [R#{reg} + {off}]", "Constant": f"Constant {off & 0xFFFFFFFF}"}[k]
    return f"{body}, size: {size}"


@pytest.mark.parametrize("name", ["stackmaps.o", "stackmaps-macho.o", "stackmaps-coff.obj", "stackmaps-faultmaps.exe"])
def test_stackmaps_agree_with_llvm_readobj(name):
    version, fns, consts, recs = _readobj_stackmap(D / name)
    (sec,) = ours(D / name, "stackmaps")
    c = sec["content"]
    assert c["version"] == version == 3
    assert [(f["address"]["value"], f["stack_size"], f["record_count"]) for f in c["functions"]] == fns
    assert c["constants"] == consts
    mine = [[r["id"], r["instruction_offset"], [_loc_text(x, c["constants"]) for x in r["locations"]],
             [(str(x["register"]), str(x["size"])) for x in r["live_outs"]]] for r in c["records"]]
    assert mine == [[a, b, locs, [tuple(x) for x in lo]] for a, b, locs, lo in recs]
    assert len(recs) == 3 and sum(len(r[2]) for r in recs) >= 8


def test_stackmap_functions_resolve_to_their_symbols():
    for name, want in (("stackmaps.o", ["f", "g"]), ("stackmaps-macho.o", ["_f", "_g"]),
                       ("stackmaps-coff.obj", ["f", "g"]), ("stackmaps-faultmaps.exe", ["f", "g"])):
        (sec,) = ours(D / name, "stackmaps")
        assert [f["address"]["symbol"] for f in sec["content"]["functions"]] == want, name


# ---- fault maps: llvm-objdump-22 --fault-map-section --------------------------------------------------------

@pytest.mark.parametrize("name,names", [("faultmaps.o", ["imp2", "imp_null_check_load"]),
                                        ("faultmaps-macho.o", ["_imp2", "_imp_null_check_load"]),
                                        ("stackmaps-faultmaps.exe", ["imp2", "imp_null_check_load"])])
def test_faultmaps_agree_with_llvm_objdump(name, names):
    text = tool("llvm-objdump-22", "--fault-map-section", str(D / name))
    theirs = []
    for line in text.splitlines():
        m = re.match(r"FunctionAddress: (0x[0-9a-f]+), NumFaultingPCs: (\d+)", line)
        if m:
            theirs.append([int(m[1], 16), int(m[2]), []])
        m = re.match(r"Fault kind: (\w+), faulting PC offset: (\d+), handling PC offset: (\d+)", line)
        if m:
            theirs[-1][2].append((m[1], int(m[2]), int(m[3])))
    assert re.search(r"Version: 0x1", text) and len(theirs) == 2
    (sec,) = ours(D / name, "faultmaps")
    mine = [[f["address"]["value"], len(f["faults"]),
             [(x["kind"], x["faulting_offset"], x["handler_offset"]) for x in f["faults"]]]
            for f in sec["content"]["functions"]]
    assert mine == theirs
    assert sorted(f["address"]["symbol"] for f in sec["content"]["functions"]) == names


# ---- XRay: llvm-xray-22 extract --------------------------------------------------------------------------------

def _xray_extract(path):
    text = tool("llvm-xray-22", "extract", "--no-demangle", str(path))
    out = []
    for m in re.finditer(r"\{ id: (\d+), address: (0x[0-9A-F]+), function: (0x[0-9A-F]+), kind: ([\w-]+), "
                         r"always-instrument: (\w+), function-name: '[^']*', version: (\d+) \}", text):
        out.append((int(m[1]), int(m[2], 16), int(m[3], 16), m[4], m[5] == "true", int(m[6])))
    return out


def test_xray_linked_agrees_with_llvm_xray():
    theirs = _xray_extract(D / "xray.exe")
    (sec,) = ours(D / "xray.exe", "xray-instr-map")
    mine = [(s["id"], s["address"], s["function"], s["kind"], s["always_instrument"], s["version"])
            for s in sec["content"]["sleds"]]
    assert mine == theirs and len(mine) == 9
    (idx,) = ours(D / "xray.exe", "xray-fn-idx")
    # the index: one entry per function, pointing at its first sled, with its sled count
    base = [e for e in idx["content"]["entries"]]
    counts = {}
    for s in mine:
        counts[s[0]] = counts.get(s[0], 0) + 1
    assert [e["count"] for e in base] == [counts[i] for i in sorted(counts)]
    assert {s["function_symbol"] for s in sec["content"]["sleds"]} == {"work", "other", "tiny", "main"}


def test_xray_object_agrees_with_llvm_xray():
    # llvm-xray-22 extract reads the first xray_instr_map of an object (relocations applied)
    theirs = _xray_extract(D / "xray.o")
    secs = ours(D / "xray.o", "xray-instr-map")
    assert len(secs) == 4
    mine = [(s["id"], s["address"], s["function"], s["kind"], s["always_instrument"], s["version"])
            for s in secs[0]["content"]["sleds"]]
    assert mine == theirs and len(mine) == 3
    always = [s["always_instrument"] for sec in secs for s in sec["content"]["sleds"]]
    assert always.count(True) == 2                                   # tiny: xray_always_instrument


def test_xray_macho_object_agrees_with_llvm_xray():
    # llvm-xray-22 reads a Mach-O object's fields without its relocations (place + stored offset); objllvm gives
    # the same numbers and, from the SUBTRACTOR/UNSIGNED pairs, the function each sled is in
    theirs = _xray_extract(D / "xray-macho.o")
    (sec,) = ours(D / "xray-macho.o", "xray-instr-map")
    sleds = sec["content"]["sleds"]
    mine = [(s["id"], s["address"], s["function"], s["kind"], s["always_instrument"], s["version"]) for s in sleds]
    assert mine == theirs and len(mine) == 9
    assert [s["function_symbol"] for s in sleds] == ["_work"] * 3 + ["_other"] * 2 + ["_tiny"] * 2 + ["_main"] * 2
    assert all(s["function_offset"] == 0 for s in sleds)
    # enter sleds sit at the function's start, exit sleds inside it
    assert [s["address_offset"] == 0 for s in sleds] == [s["kind"] == "function-enter" for s in sleds]


# ---- .stack_sizes: llvm-readobj-22 --stack-sizes ---------------------------------------------------------------

@pytest.mark.parametrize("name", ["stack-sizes.o", "stack-sizes.exe"])
def test_stack_sizes_agree_with_llvm_readobj(name):
    doc = json.loads(tool("llvm-readobj-22", "--elf-output-style=JSON", "--stack-sizes", str(D / name)))
    theirs = [(e["Entry"]["Functions"], e["Entry"]["Size"]) for e in doc[0]["StackSizes"]]
    (sec,) = ours(D / name, "stack-sizes")
    mine = [([e["function"]["symbol"]], e["size"]) for e in sec["content"]["entries"]]
    assert mine == theirs and len(mine) == 4 and all(s > 0 for _, s in mine)


# ---- COFF / Mach-O address significance and call-graph profile: llvm-readobj-22 --------------------------------

def test_coff_addrsig_agrees_with_llvm_readobj():
    text = tool("llvm-readobj-22", "--addrsig", str(D / "addrsig-coff.obj"))
    theirs = [(m[1], int(m[2])) for m in re.finditer(r"Sym: (\S+) \((\d+)\)", text)]
    (sec,) = ours(D / "addrsig-coff.obj", "addrsig")
    assert [(s["name"], s["index"]) for s in sec["content"]["symbols"]] == theirs == [("a", 11), ("b", 13)]


def test_macho_addrsig_names_the_relocated_symbols():
    # no LLVM 22 tool dumps the Mach-O table: its symbols are the section's relocations (llvm-objdump-22 -r)
    text = tool("llvm-objdump-22", "-r", str(D / "addrsig-macho.o"))
    part = text.split("RELOCATION RECORDS FOR [__llvm_addrsig]:", 1)[1]
    theirs = re.findall(r"X86_64_RELOC_UNSIGNED\s+(\S+)", part)
    (sec,) = ours(D / "addrsig-macho.o", "addrsig")
    assert [s["name"] for s in sec["content"]["symbols"]] == theirs and sorted(theirs) == ["_a", "_b"]


@pytest.mark.parametrize("name", ["cg-profile-coff.obj", "cg-profile-macho.o"])
def test_coff_macho_cg_profile_agree_with_llvm_readobj(name):
    text = tool("llvm-readobj-22", "--cg-profile", str(D / name))
    theirs = [(m[1], int(m[2]), m[3], int(m[4]), int(m[5])) for m in re.finditer(
        r"From: (\S+) \((\d+)\)\s+To: (\S+) \((\d+)\)\s+Weight: (\d+)", text)]
    (sec,) = ours(D / name, "cg-profile")
    mine = [(e["from"]["name"], e["from"]["index"], e["to"]["name"], e["to"]["index"], e["weight"])
            for e in sec["content"]["edges"]]
    assert mine == theirs and len(mine) == 4


# ---- call graph: the assembly clang-22 wrote for the same object ------------------------------------------------

def _asm_sections(path, section):
    """The directives of every ``section`` block of an assembly file, as (directive, operand) lists."""
    blocks, cur = [], None
    for line in path.read_text().splitlines():
        s = line.strip()
        if s.startswith(".section") or s in (".text", ".data"):
            cur = [] if s.startswith(f".section\t{section},") else None
            if cur is not None:
                blocks.append(cur)
            continue
        if cur is not None and s.startswith("."):
            d, _, op = s.partition("\t")
            cur.append((d, op))
    return blocks


def test_call_graph_agrees_with_the_compilers_assembly():
    blocks = _asm_sections(D / "callgraph.s", ".llvm.callgraph")
    want = []
    for b in blocks:
        it = iter(b)
        for d, op in it:
            assert d == ".byte" and op == "0"                           # version
            flags = int(next(it)[1])
            fn = next(it)[1]
            tid = int(next(it)[1]) & (2**64 - 1)
            direct, ind = [], []
            if flags & 2:
                direct = [next(it)[1] for _ in range(int(next(it)[1]))]
            if flags & 4:
                ind = [int(next(it)[1]) & (2**64 - 1) for _ in range(int(next(it)[1]))]
            want.append((fn, flags, tid, direct, ind))
    mine = [(f["function"]["symbol"], f["flags"], f["type_id"], [c["symbol"] for c in f["direct_callees"]],
             f["indirect_type_ids"]) for s in ours(D / "callgraph.o", "call-graph") for f in s["content"]["functions"]]
    assert mine == want and len(mine) == 4
    # the 32-bit object carries the same graph (callee order may differ, the set may not)
    m32 = [(f["function"]["symbol"], f["flags"], f["type_id"], sorted(c["symbol"] for c in f["direct_callees"]),
            f["indirect_type_ids"]) for s in ours(D / "callgraph-i386.o", "call-graph") for f in s["content"]["functions"]]
    assert m32 == [(a, b, c, sorted(d), e) for a, b, c, d, e in want]


def test_call_graph_linked_resolves_functions():
    funcs = [f for s in ours(D / "callgraph.exe", "call-graph") for f in s["content"]["functions"]]
    obj = [f for s in ours(D / "callgraph.o", "call-graph") for f in s["content"]["functions"]]
    assert [f["function"]["symbol"] for f in funcs] == [f["function"]["symbol"] for f in obj]
    assert [(f["flags"], f["type_id"], f["indirect_type_ids"]) for f in funcs] == \
        [(f["flags"], f["type_id"], f["indirect_type_ids"]) for f in obj]
    # the callees are undefined in this link (address 0); the functions' addresses are llvm-nm-22's
    nm = dict((n, int(a, 16)) for a, _, n in (line.split() for line in tool("llvm-nm-22", str(D / "callgraph.exe"))
                                              .splitlines() if len(line.split()) == 3))
    assert [f["function"]["value"] for f in funcs] == [nm[f["function"]["symbol"]] for f in funcs]


def test_call_graph_unknown_version_is_a_located_error(tmp_path):
    data = bytearray((D / "callgraph.o").read_bytes())
    (sec,) = ours(D / "callgraph.o", "call-graph")[:1]
    off = _section_offset(D / "callgraph.o", sec["index"])
    data[off] = 1
    p = tmp_path / "cg-v1.o"
    p.write_bytes(bytes(data))
    code, out, err = run_objllvm("dump", "-s", "call-graph", p)
    assert code == 1
    assert f"{p}: section [6] .llvm.callgraph: offset 0x0: record 0: unknown call graph record version 1 " \
           f"(expected 0)" in err


def _section_offset(path, index):
    from objllvm.formats import open_object
    o = open_object(str(path))
    return next(s.offset for s in o.sections if s.index == index)


# ---- jump-table sizes: the compiler's assembly and the relocations ---------------------------------------------

def test_jt_sizes_agree_with_assembly_and_relocations():
    asm = (D / "jt-sizes.s").read_text()
    # in the assembly each function's sizes section follows its body: (function, entry count)
    want = [(fn, int(n)) for fn, n in re.findall(
        r"^(\w+):\s+# @\w+.*?\.section\t\.llvm_jump_table_sizes.*?\n\t\.quad\t\.LJTI\d+_\d+\n\t\.quad\t(\d+)",
        asm, re.S | re.M)]
    secs = ours(D / "jt-sizes.o", "jt-sizes")
    mine = [(t["function"], t["entries"]) for s in secs for t in s["content"]["tables"]]
    assert mine == want == [("sw", 7), ("sw2", 5)]
    # each table address is the relocation llvm-readobj-22 lists for its section
    rl = relocs(D / "jt-sizes.o", ".llvm_jump_table_sizes")
    assert sorted((x[2], x[3]) for x in rl) == sorted(
        (t["address"]["symbol"], t["address"]["addend"]) for s in secs for t in s["content"]["tables"])
    # the entry count is the number of relocations in the table's range of .rela.rodata (one per entry)
    ro = relocs(D / "jt-sizes.o", ".rodata")
    starts = sorted(t["address"]["addend"] for s in secs for t in s["content"]["tables"])
    counts = [sum(1 for x in ro if a <= x[0] < b) for a, b in zip(starts, starts[1:] + [10**9])]
    assert counts == [t["entries"] for s in secs for t in s["content"]["tables"]]


def test_jt_sizes_coff_agrees_with_assembly():
    tables = [t for s in ours(D / "jt-sizes-coff.obj", "jt-sizes") for t in s["content"]["tables"]]
    assert [(t["function"], t["entries"]) for t in tables] == [("sw", 7), ("sw2", 5)]
    text = tool("llvm-objdump-22", "-r", str(D / "jt-sizes-coff.obj"))
    part = text.split("RELOCATION RECORDS FOR [.llvm_jump_table_sizes]:", 1)[1].split("\n\n")[0]
    theirs = re.findall(r"^([0-9a-f]+) IMAGE_REL_AMD64_ADDR64\s+(\S+)", part, re.M)
    assert [(int(o, 16), sym) for o, sym in theirs] == [(16 * i, t["address"]["symbol"]) for i, t in enumerate(tables)]


def test_jt_sizes_linked_and_ld_r():
    linked = ours(D / "jt-sizes.exe", "jt-sizes")[0]["content"]["tables"]
    assert [t["function"] for t in linked] == ["sw", "sw2"]
    ldr = ours(D / "jt-sizes-ld-r.o", "jt-sizes")[0]["content"]["tables"]
    assert [t["entries"] for t in linked] == [t["entries"] for t in ldr] == [7, 5]
    ro = next(s for s in __import__("objllvm.formats", fromlist=["x"]).open_object(str(D / "jt-sizes.exe")).sections
              if s.name == ".rodata")
    assert [t["address"]["value"] - ro.addr for t in linked] == [t["address"]["addend"] for t in ldr] == [0, 0x1c]


# ---- CFI jump table: relocations --------------------------------------------------------------------------------

def test_cfi_jump_table_targets_are_the_relocations():
    (sec,) = ours(D / "cfi-jump-table.o", "cfi-jump-table")
    assert sec["type"] == "SHT_LLVM_CFI_JUMP_TABLE"
    rl = relocs(D / "cfi-jump-table.o", ".text.cfi")
    c = sec["content"]
    assert c["entry_size"] == 8
    assert [(e["offset"] + 1, e["target"]["symbol"]) for e in c["entries"]] == [(x[0], x[2]) for x in rl]
    assert [e["name"] for e in c["entries"]][1:] == ["f2.cfi_jt", "f3.cfi_jt", "ext.cfi_jt"]


# ---- offloading entries ----------------------------------------------------------------------------------------

def _hexdump(path, section) -> bytes:
    text = tool("llvm-objdump-22", "-s", "-j", section, str(path))
    return b"".join(bytes.fromhex("".join(line[6:41].split())) for line in text.splitlines()
                    if re.match(r" [0-9a-f]{4} ", line))


@pytest.mark.parametrize("name,section,size,addr_off,name_off,version", [
    ("offload-entries.o", "llvm_offload_entries", 56, 16, 24, 1),
    ("offload-entries-llvm19.o", "omp_offloading_entries", 32, 0, 8, 0)])
def test_offload_entries_agree_with_relocations_and_strings(name, section, size, addr_off, name_off, version):
    (sec,) = ours(D / name, "offload-entries")
    assert sec["content"]["layout"] == ("v1" if version else "legacy")
    entries = sec["content"]["entries"]
    rl = relocs(D / name, section)
    assert [x[0] for x in rl] == [size * i + off for i in range(len(entries)) for off in (addr_off, name_off)]
    assert [x[2] for x in rl if x[0] % size == addr_off] == [e["address"]["symbol"] for e in entries]
    # names: the strings llvm-objdump-22 shows in the section each name relocation points into, at its addend
    names = []
    for x in rl:
        if x[0] % size == name_off:
            raw = _hexdump(D / name, x[2])
            names.append(raw[x[3]:raw.index(b"\0", x[3])].decode())
    assert [e["name"] for e in entries] == names
    assert names[0] == "dev_var" and names[1].startswith("__omp_offloading_")
    assert [(e["kind"], e["version"], e["size"]) for e in entries] == [("openmp", version, 4), ("openmp", version, 0)]


# ---- HWASan globals note and .llvm_stats ----------------------------------------------------------------------

def test_hwasan_note_agrees_with_llvm_readelf():
    doc = json.loads(tool("llvm-readelf-22", "-n", "--elf-output-style=JSON", str(D / "hwasan-globals.o")))
    (note,) = doc[0]["NoteSections"][0]["NoteSection"]["Notes"]
    (sec,) = ours(D / "hwasan-globals.o", "hwasan-globals")
    (n,) = sec["content"]["notes"]
    assert n["owner"] == note["Owner"].rstrip("\0") == "LLVM" and note["Type"] == f"Unknown (0x{n['type']:08x})"
    assert bytes.fromhex(n["desc"])[:n["descsz"]] == bytes(note["Description data"]["Bytes"])
    rl = relocs(D / "hwasan-globals.o", ".note.hwasan.globals")
    assert [(n["begin_symbol"], n["begin"]), (n["end_symbol"], n["end"])] == [(x[2], 0) for x in rl]


def _readelf_symbols(path):
    """name -> (value, size) of the OBJECT symbols llvm-readelf-22 -s lists."""
    out = {}
    for line in tool("llvm-readelf-22", "-s", str(path)).splitlines():
        p = line.split()
        if len(p) >= 8 and p[3] == "OBJECT":
            out[p[7]] = (int(p[1], 16), int(p[2]))
    return out


@pytest.mark.parametrize("name", ["hwasan-globals.o", "hwasan-globals.so"])
def test_hwasan_descriptors_agree_with_the_symbols(name):
    syms = _readelf_symbols(D / name)
    descs = [d for s in ours(D / name, "hwasan-global-descriptors") for d in s["content"]["descriptors"]]
    assert sorted(d["global"] for d in descs) == ["gv", "sv"]
    for d in descs:
        value, size = syms[d["global"]]
        assert (d["size"], d["tag"]) == (size, value >> 56)          # the tag is the symbol value's top byte
        if d["address"] is not None:
            assert d["address"] == value & ((1 << 56) - 1)


def test_hwasan_note_in_a_link_spans_the_descriptors():
    doc = json.loads(tool("llvm-readelf-22", "-n", "--elf-output-style=JSON", str(D / "hwasan-globals.so")))
    (note,) = doc[0]["NoteSections"][0]["NoteSection"]["Notes"]
    (sec,) = ours(D / "hwasan-globals.so", "hwasan-globals")
    (n,) = sec["content"]["notes"]
    assert bytes.fromhex(n["desc"])[:8] == bytes(note["Description data"]["Bytes"])
    heads = tool("llvm-readelf-22", "-S", "-W", str(D / "hwasan-globals.so"))
    rows = {p[1]: p for p in (line.replace("[ ", "[").split() for line in heads.splitlines()) if len(p) > 6}
    note_addr = int(rows[".note.hwasan.globals"][3], 16)
    start, size = int(rows["hwasan_globals"][3], 16), int(rows["hwasan_globals"][5], 16)
    assert (note_addr + n["begin"], note_addr + n["end"]) == (start, start + size)
    assert n["begin_symbol"] == f"{start:#x}"


def test_llvm_stats_values():
    (sec,) = ours(D / "llvm-stats.o", "llvm-stats")
    stats = {s["name"]: s["value"] for s in sec["content"]["stats"]}
    # the names the sample-profile loader writes (strings of libLLVM 22) and decimal values
    assert set(stats) == {"NumMismatchedCallsites", "NumRecoveredCallsites", "TotalProfiledCallsites",
                          "MismatchedCallsiteSamples", "RecoveredCallsiteSamples"}
    assert all(v.isdigit() for v in stats.values())
    assert int(stats["NumMismatchedCallsites"]) <= int(stats["TotalProfiledCallsites"])
    # the profile's only call site (other, line offset 3: 60 samples) is the mismatched one
    assert stats["MismatchedCallsiteSamples"] == "60"
    assert all(base64.b64decode(s["encoded"]).decode() == s["value"] for s in sec["content"]["stats"])


# ---- nothing LLVM-specific is invisible ------------------------------------------------------------------------

def test_every_llvm22_section_is_listed_with_a_codec():
    want = {"jt-sizes.o": "jt-sizes", "callgraph.o": "call-graph", "cfi-jump-table.o": "cfi-jump-table",
            "stackmaps.o": "stackmaps", "stackmaps-macho.o": "stackmaps", "stackmaps-coff.obj": "stackmaps",
            "faultmaps.o": "faultmaps", "xray.o": "xray-instr-map", "xray.exe": "xray-fn-idx",
            "faultmaps-macho.o": "faultmaps", "xray-macho.o": "xray-fn-idx", "jt-sizes-coff.obj": "jt-sizes",
            "callgraph.exe": "call-graph", "stackmaps-faultmaps.exe": "faultmaps",
            "stack-sizes.o": "stack-sizes", "offload-entries.o": "offload-entries",
            "hwasan-globals.o": "hwasan-global-descriptors", "hwasan-globals.so": "hwasan-globals", "llvm-stats.o": "llvm-stats", "addrsig-coff.obj": "addrsig",
            "addrsig-macho.o": "addrsig", "cg-profile-coff.obj": "cg-profile", "cg-profile-macho.o": "cg-profile"}
    for name, kind in want.items():
        code, out, err = run_objllvm("sections", "--json", D / name)
        assert code == 0, err
        doc = json.loads(out)
        kinds = [s["codec"] for f in doc["files"] for s in f["sections"]]
        assert kind in kinds, (name, kinds)


@pytest.mark.parametrize("name,sections", [
    ("instr-profile.o", ("__llvm_prf_cnts", "__llvm_prf_data", "__llvm_prf_names")),
    ("instr-profile-coff.obj", (".lprfc$M", ".lprfd$M", ".lprfn$M", ".lcovmap$M", ".lcovfun$M")),
    ("instr-profile-macho.o", ("__DATA,__llvm_prf_cnts", "__DATA,__llvm_prf_data", "__DATA,__llvm_prf_names",
                               "__LLVM_COV,__llvm_covmap", "__LLVM_COV,__llvm_covfun"))])
def test_name_only_sections_are_listed_with_the_reason(name, sections):
    code, out, err = run_objllvm("sections", D / name)
    assert code == 0, err
    claimed = {k for k in ("profile", "coverage") if k in registry.codecs()}
    for sec in sections:
        line = next((x for x in out.splitlines() if f" {sec} " in x), None)
        assert line is not None, f"{sec} is not listed:\n{out}"
        if not any(k in line for k in claimed):
            assert "- (" in line and ("llvm-profdata" in line or "llvm-cov" in line), line
    code, out, err = run_objllvm("dump", D / name)
    assert "read by llvm-profdata" in out or "profile" in out


def test_a_codec_claiming_a_name_only_section_wins():
    """NAME_ONLY lists __llvm_prf_* as a name-only kind; the profile codec (sections/instr_profile.py) claims
    those names, and it wins with no change to the list."""
    from objllvm.formats import open_object
    o = open_object(str(D / "instr-profile.o"))
    s = next(s for s in o.sections if s.name == "__llvm_prf_cnts")
    assert registry.is_llvm_section(s, o) and registry.name_only_reason(s, o) is not None
    assert registry.find_codec(s, o).kind == "profile"
    d = registry.decode_section(o, s)
    assert d.status == "decoded" and d.codec.kind == "profile" and not d.note


def test_unknown_llvm_types_still_listed():
    code, out, err = run_objllvm("sections", TESTDATA / "elf" / "unknown-types.o")
    assert code == 0 and "SHT_LLVM_UNKNOWN" in out and "- (" in out


# ---- the dict view is complete: from_dict(to_dict(model)) encodes to the same bytes ------------------------

KINDS = ("jt-sizes", "call-graph", "cfi-jump-table", "stackmaps", "faultmaps", "xray-instr-map", "xray-fn-idx",
         "stack-sizes", "offload-entries", "hwasan-globals", "hwasan-global-descriptors", "llvm-stats", "addrsig",
         "cg-profile")


@pytest.mark.parametrize("path", sorted(p for p in D.iterdir() if p.suffix != ".s"), ids=lambda p: p.name)
def test_from_dict_round_trip(path):
    from objllvm.formats import open_object
    from objllvm.sections.registry import SectionContext
    o = open_object(str(path))
    n = 0
    for s in o.sections:
        c = registry.find_codec(s, o)
        if c is None or c.kind not in KINDS:
            continue
        ctx = SectionContext.for_section(o, s)
        data = bytes(s.data())
        model = c.decode(data, ctx)
        d = json.loads(json.dumps(c.to_dict(model)))
        assert c.encode(c.from_dict(d, ctx), ctx) == data, (path.name, s.name)
        n += 1
    if path.name.startswith(("instr-profile",)):
        return
    assert n > 0, f"{path.name}: no section of the LLVM 22 kinds"


def test_set_section_edits_a_linked_stack_sizes_section(tmp_path):
    (sec,) = ours(D / "stack-sizes.exe", "stack-sizes")
    content = sec["content"]
    content["entries"][0]["size"] = 100                 # one ULEB byte still: nothing moves
    spec = tmp_path / "ss.json"
    spec.write_text(json.dumps(content))
    out = tmp_path / "edited.exe"
    code, _, err = run_objllvm("rewrite", D / "stack-sizes.exe", "-o", out, "--set-section", f"stack-sizes={spec}")
    assert code == 0, err
    doc = json.loads(tool("llvm-readobj-22", "--elf-output-style=JSON", "--stack-sizes", str(out)))
    assert [(e["Entry"]["Functions"], e["Entry"]["Size"]) for e in doc[0]["StackSizes"]] == \
        [(["work"], 100), (["other"], 24), (["tiny"], 8), (["main"], 24)]


def test_set_section_refuses_a_relocated_change(tmp_path):
    (sec,) = ours(D / "stackmaps.o", "stackmaps")
    content = sec["content"]
    content["records"][0]["id"] = 99
    spec = tmp_path / "sm.json"
    spec.write_text(json.dumps(content))
    code, _, err = run_objllvm("rewrite", D / "stackmaps.o", "-o", tmp_path / "x.o", "--set-section",
                               f"stackmaps={spec}")
    assert code == 1 and "cannot update" in err and "Traceback" not in err
