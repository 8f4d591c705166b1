"""LLVM 23's formats, checked against the facts in LLVM's sources and against inputs built to those layouts.

No LLVM 23 tool is installable here.  scripts/llvm23-layouts (run by scripts/testdata.d/47-llvm23.sh) turns
objects clang-22 wrote into LLVM 23's layouts with obj2yaml-22 / yaml2obj-22; the LLVM 22 originals and
llvm-readobj-22's view of them are the reference for everything the layout change does not touch.

Sources (llvm/llvm-project):
* raw-profile version 11: llvm/include/llvm/ProfileData/InstrProfData.inc (INSTR_PROF_DATA gains
  UniformCounterPtr after CounterPtr and OffloadDeviceWaveSize after NumValueSites; the raw header gains
  NumUniformCounters, PaddingBytesAfterUniformCounters, UniformCountersDelta), PR #190708;
  llvm/test/tools/llvm-profdata/malformed-uniform-counter-array.test at 23ab717af9dccf657de82f2c1f003c8e39990859
  (a version-11 raw profile written byte by byte: its one record is 72 bytes).
* BB address maps in x86 COFF objects: PR #191347 (llvm/lib/MC/MCObjectFileInfo.cpp: .llvm_bb_addr_map, an
  associative COMDAT of its function's text section), wire format unchanged (version 5).
"""
from __future__ import annotations

import hashlib
import json
import re
import struct

import pytest

from conftest import TESTDATA, run_objllvm
from objllvm.formats import open_data, open_object
from objllvm.sections import instr_profile
from objllvm.sections.registry import SectionContext, decode_section

D = TESTDATA / "llvm23"
P = TESTDATA / "profile"


def _sections(path, kind):
    obj = open_object(str(path))
    out = []
    for s in obj.sections:
        d = decode_section(obj, s)
        if d.codec is not None and d.codec.kind == kind:
            out.append((obj, s, d))
    return out


def _data_sections(path):
    return [(o, s, d) for o, s, d in _sections(path, "profile") if getattr(d.model, "role", None) == "data"]


# -- raw-profile version 11 ---------------------------------------------------------------------------------------
def test_v11_record_layout_is_llvm23s():
    """Field places of INSTR_PROF_DATA after PR #190708 (five pointers, then u32 NumCounters, u16
    NumValueSites[3], u16 OffloadDeviceWaveSize, u32 NumBitmapBytes; the struct 8-byte aligned)."""
    L = instr_profile.Layout
    v11 = L(11, 8)
    assert [v11.field(n) for n in v11.pointers] == [16, 24, 32, 40, 48]
    assert v11.pointers == ("counter", "uniform", "bitmap", "function", "values")
    assert (v11.sites_end, v11.bitmap_count, v11.size) == (68, 68, 72)   # no padding inside, none after
    v11_32 = L(11, 4)
    assert (v11_32.bitmap_count, v11_32.size) == (48, 56)                # 4 bytes of tail padding
    # version 10 unchanged: 2 bytes before NumBitmapBytes, 64 / 48 bytes
    assert (L(10, 8).bitmap_count, L(10, 8).size, L(10, 4).size) == (60, 64, 48)


@pytest.mark.parametrize("v10,v11", [("prog-clang22.o", "profile-v11.o"), ("prog-i386.o", "profile-v11-i386.o"),
                                     ("vt-irpgo.o", "profile-v11-irpgo.o"),
                                     ("prog-clang22-coff.obj", "profile-v11-coff.obj")])
def test_v11_objects_read_as_their_v10_originals(v10, v11):
    """Every record of the version-11 object is its LLVM 22 original's, read through the new layout: name,
    hashes, counters and bitmap found through the moved relocations, function, value sites; the new fields
    are what host code carries (no uniform counters, wave size 0); each section re-encodes byte for byte."""
    old = [r for _o, _s, d in _data_sections(P / v10) for r in d.model.records]
    new_secs = _data_sections(D / v11)
    new = [r for _o, _s, d in new_secs for r in d.model.records]
    assert old and len(new) == len(old)
    for _o, _s, d in new_secs:
        assert d.error is None and not d.warnings, (d.error, d.warnings)
        assert d.model.layout == 11
    key = lambda r: (r.name, r.name_hash, r.func_hash, r.num_counters, r.value_sites, r.num_bitmap_bytes,
                     r.function, r.counters.section_name if r.counters else None,
                     r.counters.offset if r.counters else None, r.bitmap.offset if r.bitmap else None)
    assert sorted(map(key, new)) == sorted(map(key, old))
    assert all(r.counters is not None for r in new)
    assert {(r.wave_size, r.uniform_counter_ptr, r.uniform_counters) for r in new} == {(0, 0, None)}
    from objllvm.sections.registry import find_codec
    for obj, s, d in new_secs:
        ctx = SectionContext.for_section(obj, s)
        assert find_codec(s, obj).encode(d.model, ctx) == bytes(s.data())


def test_v11_ir_pgo_object_names_its_version_and_agrees_with_llvm_profdata():
    from test_profile_coverage import _ours_by_name, parse_profdata_show
    secs = _data_sections(D / "profile-v11-irpgo.o")
    assert {(d.model.raw_version, d.model.layout, tuple(d.model.variants)) for _o, _s, d in secs} == {(11, 11, ("ir",))}
    recs = [r for _o, _s, d in secs for r in d.model.records]
    text = (P / "vt-irpgo.profdata-show-22.txt").read_text()      # the same functions, run under LLVM 22
    assert _ours_by_name(recs) == parse_profdata_show(text)


def _with_raw_version(path, version):
    data = bytearray(path.read_bytes())
    obj = open_object(str(path))
    sym = next(s for s in obj.symbols if s.name == "__llvm_profile_raw_version")
    sec = next(s for s in obj.sections if s.index == sym.shndx)
    data[sec.offset + sym.value] = version
    return next(open_data(bytes(data), "new.o"))


def test_newer_raw_version_says_found_and_read_and_still_lists():
    """A version past 11 (LLVM main writes 12): a warning naming the version found and the one read, and the
    records read with version 11's layout."""
    obj = _with_raw_version(D / "profile-v11-irpgo.o", 12)
    ds = [decode_section(obj, s) for s in obj.sections if s.name == "__llvm_prf_data"]
    assert ds and all(d.status == "decoded" and d.model.layout == 11 for d in ds)
    for d in ds:
        assert len(d.warnings) == 1
        w = str(d.warnings[0])
        assert "raw-profile version 12" in w and "read with version 11's layout" in w and "[" in w
    rc, out, err = run_objllvm("dump", "--section", "profile", D / "profile-v11-irpgo.o")
    assert rc == 0 and "raw-profile version 11 records" in out


def test_v10_object_with_a_v11_variable_is_a_located_error():
    """A version-10 layout under a variable saying 11 does not fit: a located error, the section listed."""
    obj = _with_raw_version(P / "vt-irpgo.o", 11)
    d = next(decode_section(obj, s) for s in obj.sections if s.name == "__llvm_prf_data")
    assert d.status == "error" and "raw-profile version 11 layout" in str(d.error)


# llvm/test/tools/llvm-profdata/malformed-uniform-counter-array.test (23ab717a): three version-11 raw profiles
# that differ in the record's UniformCounterPtr; llvm-profdata reports the uniform counter offset as -1, 16 and
# (2 counters where 1 is left) too many.  The header and record values below are the test's printf bytes.
LIT_HEADER = [0xff6c70726f667281, 11, 0, 1, 0, 2, 0, 0, 0, 2, 0, 0x58, 8, 0x48, 0x58, 0x68, 0, 0, 2]
LIT_NAME_HASH = bytes([0o067, 0o265, 0o035, 0o031, 0o112, 0o165, 0o023, 0o344])


def _lit_profraw(uniform_ptr):
    rec = LIT_NAME_HASH + struct.pack("<QQQQQQ", 2, 0x48, uniform_ptr, 0x58, 0, 0) + b"\2" + bytes(7) + bytes(8)
    return struct.pack("<19Q", *LIT_HEADER) + rec + struct.pack("<4Q", 0x37, 0x41, 5, 6) + b"\3\0bar\0\0\0"


@pytest.mark.parametrize("uniform_ptr,offset", [(0x57, -1), (0x68, 16), (0x60, 8)])
def test_lit_v11_raw_profile_records_decode(uniform_ptr, offset):
    raw = _lit_profraw(uniform_ptr)
    hdr = struct.unpack_from("<19Q", raw)
    ndata, ids = hdr[3], hdr[2]
    start = 19 * 8 + ids
    size = instr_profile.record_size(8, 11)
    data = raw[start:start + ndata * size]
    ctx = SectionContext(endian="<", addr_size=8, is_relocatable=False)
    m = instr_profile.decode_data(data, ctx)
    assert m.layout == 11 and len(m.records) == 1
    r = m.records[0]
    assert r.name_hash == int.from_bytes(hashlib.md5(b"bar").digest()[:8], "little")
    assert (r.func_hash, r.counter_ptr, r.bitmap_ptr, r.num_counters, r.wave_size) == (2, hdr[13], 0x58, 2, 0)
    # the uniform counters' place relative to the uniform-counter block, as llvm-profdata computes it
    assert r.uniform_counter_ptr - hdr[11] == offset
    assert instr_profile.encode_data(m, ctx) == data


def test_v10_records_still_read_as_v10():
    """LLVM 19 / 22 objects keep their layout (a section that fits both sizes is told apart by relocations)."""
    for name in ("prog-clang22.o", "prog-clang19.o", "prog-i386.o", "prog-clang22-coff.obj", "rust.o"):
        for _o, _s, d in _data_sections(P / name):
            assert d.model.layout == 10, name


def test_nine_v10_records_are_not_eight_v11_ones():
    """576 bytes are 9 records of 64 or 8 of 72: the relocations on the counter fields decide."""
    from objllvm.formats.base import Relocation, Section, Symbol
    cnts = Section(2, "__llvm_prf_cnts", 1, size=72)
    data_sec = Section(1, "__llvm_prf_data", 1, size=576)

    class Obj:
        format, is_relocatable = "elf", True
        sections = [data_sec, cnts]
        symbols = []
    csym = Symbol(1, "__llvm_prf_cnts", 0, shndx=2, type=3)
    rels = [Relocation(64 * i + 16, 24, 1, 16 + 8 * i, csym) for i in range(9)]
    ctx = SectionContext(endian="<", addr_size=8, is_relocatable=True, obj=Obj(), section=data_sec,
                         relocations=rels)
    m = instr_profile.decode_data(bytes(576), ctx)
    assert m.layout == 10 and len(m.records) == 9


# -- BB address maps in COFF objects ------------------------------------------------------------------------------
def _coff_symbols(text):
    """{name: (value, section number)} from llvm-readobj-22 --symbols."""
    out = {}
    for m in re.finditer(r"Symbol \{\s+Name: (\S+)\s+Value: (\d+)\s+Section: \S+ \((\d+)\)", text):
        out.setdefault(m.group(1), (int(m.group(2)), int(m.group(3))))
    return out


def _readobj_functions(path):
    out = {}
    maps = []
    json.loads(path.read_text(), object_pairs_hook=lambda kv: [maps.extend(v) for k, v in kv if k == "BBAddrMap"]
               and dict(kv) or dict(kv))
    for e in maps:
        f = e["Function"]
        blocks = [(b["ID"], b["Offset"], b["Size"], b["HasReturn"], b["HasTailCall"], b["IsEHPad"],
                   b["CanFallThrough"], b["HasIndirectBranch"]) for r in f["BB Ranges"] for b in r["BB Entries"]]
        out[f["Name"]] = blocks
    return out


FLAG_NAMES = ("HasReturn", "HasTailCall", "IsEHPad", "CanFallThrough", "HasIndirectBranch")


@pytest.mark.parametrize("variant", ["comdat", "text"])
def test_coff_bb_maps_resolve_through_coff_relocations(variant):
    """The maps of a COFF object: the blocks llvm-readobj-22 reads from the same bytes in the ELF object, the
    function named by its COFF symbol, its address the symbol's value (a relocation against the function's
    symbol, or against the section symbol with the offset as the implicit addend); the map's text section is
    the one its COMDAT record is associative to, else the one its relocations point into."""
    want = _readobj_functions(D / f"bbmap-{variant}.readobj.json")
    syms = _coff_symbols((D / f"bbmap-{variant}.obj.readobj.txt").read_text())
    secs = _sections(D / f"bbmap-{variant}.obj", "bb-addr-map")
    assert len(secs) == (3 if variant == "comdat" else 1)
    got = {}
    for obj, s, d in secs:
        assert d.status == "decoded" and not d.warnings, (d.error, d.warnings)
        assert obj.associated_section(s) == (syms[d.model.functions[0].name][1] if variant == "comdat" else 0)
        for f in d.model.functions:
            value, secno = syms[f.name]
            assert f.address == value and f.section_index == secno
            got[f.name] = [(b.id, b.offset, b.size) + tuple(n in b.flags for n in FLAG_NAMES)
                           for r in f.ranges for b in r.blocks]
    assert got == want
    from objllvm.sections.registry import find_codec
    for obj, s, d in secs:
        assert find_codec(s, obj).encode(d.model, SectionContext.for_section(obj, s)) == bytes(s.data())


def test_coff_bb_map_without_its_relocation_is_an_error_at_its_offset():
    """As in ELF objects: an address word with no relocation is never taken for the address."""
    path = D / "bbmap-text.obj"
    data = bytearray(path.read_bytes())
    obj = open_object(str(path))
    s = next(s for s in obj.sections if s.name == ".llvm_bb_addr_map")
    # the section header's NumberOfRelocations (u16 at 32) set to 0
    struct.pack_into("<H", data, s.header_offset + 32, 0)
    bad = next(open_data(bytes(data), "bad.obj"))
    d = decode_section(bad, next(x for x in bad.sections if x.index == s.index))
    assert d.status == "error" and "no relocation for the function address at offset 0x3" in str(d.error)


def test_coff_bb_map_dump_and_json_cli():
    rc, out, err = run_objllvm("dump", "--section", "bb-addr-map", D / "bbmap-comdat.obj")
    assert rc == 0 and err == "" and "function helper at 0x0 (version 5)" in out
    rc, out, err = run_objllvm("dump", "--json", "--section", "bb-addr-map", D / "bbmap-text.obj")
    assert rc == 0
    doc = json.loads(out)
    names = [f["name"] for f in json.dumps(doc) and _walk_functions(doc)]
    assert names == ["classify", "entry", "helper"]


def _walk_functions(doc):
    out = []
    if isinstance(doc, dict):
        if "functions" in doc and isinstance(doc["functions"], list):
            out += [f for f in doc["functions"] if isinstance(f, dict) and "ranges" in f]
        for v in doc.values():
            out += _walk_functions(v)
    elif isinstance(doc, list):
        for v in doc:
            out += _walk_functions(v)
    return out


# -- call-graph sections: llvm-readobj --call-graph-info's lit inputs (LLVM 23) -----------------------------------
# testdata/src/llvm23/call-graph-info.yaml holds the YAML documents of call-graph-info.test (9f1a4ace); the
# expected values are that test's LLVM_* CHECK lines.
TID_A, TID_B = 0x3ECBEEF531F74424, 0x308E4B8159BC8654
CG_EXPECTED = {
    1: [("foo", 0x1790, True, TID_A, [], []), ("bar", 0x17A0, True, TID_A, [], []),
        ("baz", 0x17B0, True, TID_B, [], []),
        ("main", 0x17C0, True, 0xFA6809609A76AFCA, [("foo", 0x1790), ("bar", 0x17A0), ("baz", 0x17B0)],
         [TID_A, TID_B])],
    2: [("foo", None, True, 0xF85C699BB8EF20A2, [], []), ("bar", None, True, 0xF85C699BB8EF20A2, [], []),
        ("baz", None, True, TID_B, [], []),
        ("caller", None, True, 0xA9494DEF81A01DC, [("foo", None), ("bar", None), ("baz", None)],
         [0xF85C699BB8EF20A2, TID_B])],
    3: [("foo", None, False, 0x123456789ABCDEF0, [], [])],
}


def _cg_address(a, linked):
    """(name, address) as llvm-readobj --call-graph-info gives them: a linked file's address and the function
    there; an object's relocation target (symbol + addend: the Thumb entry's stored 1 is no part of it)."""
    if linked:
        return (a.symbol, a.value)
    assert a.addend == 0
    return (a.symbol, None)


@pytest.mark.parametrize("doc", [1, 2, 3])
def test_call_graph_info_lit_inputs(doc):
    secs = _sections(D / f"call-graph-info-{doc}.o", "call-graph")
    assert len(secs) == 1
    obj, _s, d = secs[0]
    assert d.status == "decoded" and not d.warnings
    linked = not obj.is_relocatable
    got = []
    for f in d.model.functions:
        name, addr = _cg_address(f.function, linked)
        got.append((name, addr, f.is_indirect_target, f.type_id,
                    [_cg_address(c, linked) for c in f.direct_callees], list(f.indirect_type_ids)))
        assert f.version == 0
    assert got == CG_EXPECTED[doc]


def test_call_graph_undefined_flag_bits_are_warned_about():
    """call-graph-info-warn-invalid-flags.test's input (testdata/malformed/call-graph-undefined-flags.o): flags 0x08,
    the record cut after them; LLVM warns "Expected [0-7] but found [8]".  The warning is located at the flags
    byte; the cut record is then an error at its offset."""
    path = TESTDATA / "malformed" / "call-graph-undefined-flags.o"
    obj, s, d = _sections(path, "call-graph")[0]
    assert [w.offset for w in d.warnings] == [1]
    assert "flags 0x8 have bits LLVM does not define" in str(d.warnings[0])
    assert d.status == "error" and d.error.offset == 2
    rc, out, err = run_objllvm("dump", "--section", "call-graph", path)
    assert rc != 0 and "flags 0x8" in err


def test_call_graph_undefined_flag_bits_on_a_whole_record(tmp_path):
    """A whole record whose flags carry an undefined bit besides defined ones: warned, read by the defined bits,
    and written back with the flags as they were."""
    from objllvm.sections.registry import find_codec
    path = TESTDATA / "llvm22" / "callgraph.o"
    data = bytearray(path.read_bytes())
    obj = open_object(str(path))
    s = next(s for s in obj.sections if s.name == ".llvm.callgraph")
    data[s.offset + 1] |= 0x40
    bad = next(open_data(bytes(data), "cg.o"))
    sec = next(x for x in bad.sections if x.index == s.index)
    d = decode_section(bad, sec)
    assert d.status == "decoded" and [w.offset for w in d.warnings] == [1]
    assert d.model.functions[0].flags & 0x40
    good = decode_section(obj, s)
    assert [f.type_id for f in d.model.functions] == [f.type_id for f in good.model.functions]
    assert find_codec(sec, bad).encode(d.model, SectionContext.for_section(bad, sec)) == bytes(sec.data())


# -- OffloadBinary: nested images, a version newer than 3, COFF (llvm-objdump --offloading's LLVM 23 lit inputs) --
# testdata/src/llvm23/offload-*.yaml: the !Offload documents of llvm/test/tools/llvm-objdump/Offloading/
# (nested-offload-binary.test 0d5ced82, Inputs/inner.yaml 594c6ce3, nested-offload-binary-fails.test 8fd476b8,
# coff.test 85144d88, Inputs/binary.yaml fe26ceab), built by yaml2obj-22.  Expected: those tests' CHECK lines.
def _image_rows(model, prefix=""):
    from objllvm.sections import offloading as off
    out = []
    for i, e in enumerate(model.entries):
        out.append((f"{prefix}{i}", off.OBJDUMP_KIND.get(e.image_kind, "<none>"), e.arch, e.triple,
                    off.offload_kind_name(e.offload_kind), len(e.nested.entries) if e.nested is not None else None))
        if e.nested is not None:
            out += _image_rows(e.nested, f"{prefix}{i}.")
    return out


def test_nested_offload_binaries_as_llvm_objdump_shows_them():
    (obj, s, d), = _sections(D / "offload-nested.o", "offloading")
    assert d.status == "decoded" and not d.warnings
    inner = [("llvm ir", "arch1", "x-y-z", "openmp", None), ("llvm ir", "arch2", "x-y-z", "openmp", None)]
    want = []
    for i, triple in enumerate(("x-y-z", "a-b-c")):
        want.append((f"{i}", "elf", "none", triple, "openmp", 2))
        want += [(f"{i}.{j}",) + row for j, row in enumerate(inner)]
    assert _image_rows(d.model) == want
    from objllvm.sections.registry import find_codec
    assert find_codec(s, obj).encode(d.model, SectionContext.for_section(obj, s)) == bytes(s.data())
    rc, out, err = run_objllvm("dump", "--section", "offloading", D / "offload-nested.o")
    assert rc == 0 and "OFFLOADING IMAGE [1.1]" in out and "nested images  2" in out
    rc, out, err = run_objllvm("dump", "--json", "--section", "offloading", D / "offload-nested.o")
    e0 = json.loads(out)["files"][0]["sections"][0]["content"]["blobs"][0]["entries"][0]
    assert [x["arch"] for x in e0["nested"]["blobs"][0]["entries"] + e0["nested"]["blobs"][1]["entries"]] == \
        ["arch1", "arch2"]


def test_nested_offload_binary_that_fails_is_a_warning_and_the_image_stays():
    """LLVM: the outer image, then "failed to extract nested OffloadBinary"."""
    (obj, s, d), = _sections(D / "offload-nested-fails.o", "offloading")
    assert d.status == "decoded" and len(d.model.entries) == 1
    e = d.model.entries[0]
    assert e.image == b"\x10\xff\x10\xad" and e.nested is None and e.nested_error
    assert [w.offset for w in d.warnings] == [e.image_offset]
    assert "failed to extract nested OffloadBinary" in str(d.warnings[0])


def test_offloading_in_coff_agrees_with_llvm_objdump():
    # (two sections: the empty one of the YAML, the one llvm-objcopy added; LLVM reads every one by its name)
    rows = [r[1:5] for _o, _s, d in _sections(D / "offload-coff.obj", "offloading") for r in _image_rows(d.model)]
    want = [("llvm ir", "gfx908", "amdgcn-amd-amdhsa", "openmp"), ("llvm ir", "gfx90a", "amdgcn-amd-amdhsa", "openmp"),
            ("cubin", "sm_52", "nvptx64-nvidia-cuda", "openmp"), ("<none>", "sm_70", "nvptx64-nvidia-cuda", "none")]
    assert rows == want                                        # coff.test's CHECK lines
    text = (D / "offload-coff.objdump.txt").read_text()        # llvm-objdump-22 on the same file
    got = re.findall(r"kind +(.*)\narch +(.*)\ntriple +(.*)\nproducer +(.*)", text)
    assert [tuple(x) for x in got] == want


def test_offload_binary_newer_version_is_read_with_a_warning():
    """OffloadBinary.h (LLVM main, PR #222774): Version = 3, the header 40 bytes.  A version-4 blob: a warning
    naming 4 and 3, the images read with version 3's layout, the bytes kept."""
    from objllvm.sections import offloading as off
    blob = bytearray(off.write_offload_binary([{"image": b"\x7fELF" + bytes(12), "image_kind": 1, "offload_kind": 1,
                                                "strings": [("triple", "x86_64-pc-linux-gnu"), ("arch", "generic")]}],
                                              version=3))
    blob[4] = 4
    ctx = SectionContext()
    codec = off.OffloadingCodec()
    m = codec.decode(bytes(blob), ctx)
    assert [w.offset for w in ctx.warnings] == [4]
    assert "OffloadBinary version 4" in str(ctx.warnings[0]) and "version 3's layout" in str(ctx.warnings[0])
    assert m.entries[0].triple == "x86_64-pc-linux-gnu" and m.blobs[0].version == 4
    assert codec.encode(m, ctx) == bytes(blob)


def test_coff_bb_map_draws_its_cfg():
    """cfg reads a COFF object's maps as an ELF object's: the function's blocks, at its address."""
    rc, out, err = run_objllvm("cfg", "--function", "helper", "-o", "-", D / "bbmap-comdat.obj")
    assert rc == 0, err
    blocks = re.findall(r'b(\d+) \[label="#\d+\\n(0x[0-9a-f]+)-(0x[0-9a-f]+)', out)
    want = _readobj_functions(D / "bbmap-comdat.readobj.json")["helper"]
    assert [(int(b), int(s, 16), int(e, 16) - int(s, 16)) for b, s, e in blocks] == [w[:3] for w in want]
    rc, out, err = run_objllvm("cfg", "--function", "entry", "-o", "-", D / "bbmap-text.obj")
    assert rc == 0 and "entry @ 0x20" in out


# -- .debug_llvm_dyndbg (LLVM main: SHT_LLVM_DYNDBG_ELF, PRs #208803, #214188) ----------------------------------
def test_dyndbg_inner_object_is_read():
    """The embedded object's functions are what llvm-nm-22 lists in it; the section re-encodes byte for byte."""
    (obj, s, d), = _sections(D / "dyndbg.o", "dyndbg-elf")
    assert d.status == "decoded" and not d.warnings
    m = d.model
    assert (m.format_name, m.file_type, m.machine) == ("elf64-little-x86-64", "ET_REL", "x86-64")
    nm = [ln.split() for ln in (D / "dyndbg-inner.nm.txt").read_text().splitlines()]
    want = sorted((name, int(v, 16), int(z, 16)) for v, z, t, name in nm if t.lower() == "t")
    assert sorted((n, v, z) for n, _i, v, z in m.functions) == want
    assert any(x.name == ".text" for x in m.sections)
    from objllvm.sections.registry import find_codec
    assert find_codec(s, obj).encode(m, SectionContext.for_section(obj, s)) == bytes(s.data())


@pytest.mark.parametrize("cut,where", [(4, None), (40, None), (None, 0)])
def test_dyndbg_bad_image_is_located_and_listed(cut, where):
    """A cut image or one that is not ELF: a located error, the section still listed, exit non-zero."""
    path = D / "dyndbg.o"
    obj = open_object(str(path))
    s = next(x for x in obj.sections if x.name == ".debug_llvm_dyndbg")
    data = bytearray(path.read_bytes())
    if cut is None:
        data[s.offset:s.offset + 4] = b"JUNK"
        bad = next(open_data(bytes(data), "bad.o"))
    else:
        # the section header's sh_size (u64 at 32 in the 64-byte header at e_shoff + 64 * index) made smaller
        hdr = struct.unpack_from("<Q", data, 0x28)[0] + 64 * s.index
        struct.pack_into("<Q", data, hdr + 32, cut)
        bad = next(open_data(bytes(data), "bad.o"))
    d = decode_section(bad, next(x for x in bad.sections if x.index == s.index))
    assert d.status == "error" and d.error.offset is not None
    if where is not None:
        assert d.error.offset == where and "not an ELF image" in str(d.error)


# -- where the counters are: every record's counters, together, fill the counters sections exactly ------------
@pytest.mark.parametrize("path", [P / "prog-clang22.o", P / "prog-clang19.o", P / "prog-i386.o",
                                  P / "prog-clang22-coff.obj", P / "prog-clang19-coff.obj",
                                  P / "prog-clang22-macho.o", D / "profile-v11.o", D / "profile-v11-i386.o",
                                  D / "profile-v11-coff.obj"], ids=lambda p: p.name)
def test_counters_of_the_records_fill_the_counters_sections(path):
    """Each function's counters are its own run of the counters section(s): located through the relocations
    (a COFF IMAGE_REL_AMD64_REL32 counts from the end of its 4 bytes), the runs neither overlap nor leave a gap."""
    obj = open_object(str(path))
    sizes = {s.index: s.size for s in obj.sections}
    runs = {}
    for _o, _s, d in _data_sections(path):
        for r in d.model.records:
            assert r.counters is not None, r.name
            runs.setdefault(r.counters.section_index, []).append((r.counters.offset, r.num_counters * 8))
    assert runs
    for index, rs in runs.items():
        at = 0
        for off, n in sorted(rs):
            assert off == at, (index, sorted(rs))
            at += n
        assert at == sizes[index]
    # the MC/DC bitmaps: inside their section, one run per function, no two overlapping
    bits = sorted((r.bitmap.section_index, r.bitmap.offset, r.num_bitmap_bytes)
                  for _o, _s, d in _data_sections(path) for r in d.model.records if r.num_bitmap_bytes)
    assert bits and all(r.bitmap is not None for _o, _s, d in _data_sections(path) for r in d.model.records
                        if r.num_bitmap_bytes)
    for (i1, o1, n1), (i2, o2, n2) in zip(bits, bits[1:]):
        assert i1 != i2 or o1 + n1 <= o2
    assert all(o + n <= sizes[i] for i, o, n in bits)
