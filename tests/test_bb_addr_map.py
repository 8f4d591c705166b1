"""bb-addr-map codec: exact round trips (corpus, every version x feature combination), bad input,
the text view and --pretty-pgo, and the BBIndex lookup API."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import TESTDATA, need_tool, run_objllvm
from objllvm import render
from objllvm.sections import registry
from objllvm.sections.support.bb_index import BBIndex
from objllvm.binary import uleb_encode
from objllvm.sections import bb_addr_map as M
from objllvm.formats import iter_objects, open_object
from objllvm.errors import DecodeError
from objllvm.sections.registry import SectionContext

BB = TESTDATA / "bb-addr-map"
CODEC = registry.get("bb-addr-map")


def map_sections(path):
    for obj in iter_objects(str(path)):
        for s in obj.sections:
            if s.type in M.TYPE_NAMES:
                yield obj, s


ALL = [(p.name, obj, s) for p in sorted(BB.iterdir()) for obj, s in map_sections(p)]


def test_corpus_covers_every_version_and_feature():
    versions, features, types = set(), 0, set()
    for _, obj, s in ALL:
        m = CODEC.decode(s.data(), SectionContext.for_section(obj, s))
        types.add(m.section_type)
        for f in m.functions:
            versions.add(f.version)
            features |= f.feature
    assert versions == {None, 0, 1, 2, 3, 4, 5}
    assert features == 0xFF
    assert types == {M.SHT_LLVM_BB_ADDR_MAP, M.SHT_LLVM_BB_ADDR_MAP_V0}


@pytest.mark.parametrize("name,obj,section", ALL, ids=[f"{n}[{s.index}]" for n, _, s in ALL])
def test_corpus_round_trip(name, obj, section):
    ctx = SectionContext.for_section(obj, section)
    data = section.data()
    m = CODEC.decode(data, ctx)
    assert CODEC.encode(m, ctx) == data                       # lazy columns
    for f in m.functions:
        f.blocks                                              # materialised Block objects
    assert CODEC.encode(m, ctx) == data
    d = json.loads(json.dumps(CODEC.to_dict(m)))
    m2 = CODEC.from_dict(d, ctx)
    assert m2 == m
    if all(f._raw is None for f in m.functions):
        assert CODEC.encode(m2, ctx) == data                  # JSON keeps everything but non-minimal ULEBs
    else:
        # Canonical form of the same content (one byte shorter).  In an object the later address
        # words move with it, so only the first function still meets its relocation: the next one's
        # address has none, an error there (never its placeholder word as an address).
        out = CODEC.encode(m2, ctx)
        assert len(out) == len(data) - 1
        if ctx.is_relocatable:
            with pytest.raises(DecodeError) as ei:
                CODEC.decode(out, ctx)
            assert "no relocation for the function address" in ei.value.message
            assert ei.value.partial.functions[0] == m.functions[0]
        else:
            assert CODEC.decode(out, ctx).functions[0] == m.functions[0]


def test_non_minimal_uleb_kept_until_edited():
    obj = open_object(str(BB / "mc-v5.o"))
    s = next(x for x in obj.sections if x.type == M.SHT_LLVM_BB_ADDR_MAP)
    ctx = SectionContext.for_section(obj, s)
    m = CODEC.decode(s.data(), ctx)
    start = m.functions[0]
    assert start._raw is not None and m.functions[1]._raw is None
    assert CODEC.encode(m, ctx) == s.data()
    start.blocks[2].size += 1            # an edit: the function is re-encoded canonically
    out = CODEC.encode(m, ctx)
    assert len(out) == len(s.data()) - 1      # the 2-byte offset 0 became 1 byte
    # the later address words moved by one byte: their relocations no longer meet them (an error there);
    # the edited function itself decodes as edited
    with pytest.raises(DecodeError) as ei:
        CODEC.decode(out, ctx)
    again = ei.value.partial
    assert "no relocation for the function address" in ei.value.message
    assert again.functions[0].blocks[2].size == start.blocks[2].size
    assert again.functions[0].blocks[0].offset == 0


def test_relocatable_addresses_come_from_relocations():
    # -ffunction-sections: one map per text section, each function at offset 0 of its own section.
    obj = open_object(str(BB / "clang19-labels-fs.o"))
    idx = BBIndex.from_object(obj)
    assert [f.name for f in idx.functions] == ["leaf", "loop", "jump", "tail", "main"]
    for f in idx.functions:
        assert obj.sections[f.section_index].name == f".text.{f.name}"
        assert f.address == 0
    # One text section: addresses are the section offsets of the symbols.
    obj = open_object(str(BB / "mc-v4.o"))
    idx = BBIndex.from_object(obj)
    syms = {s.name: s.value for s in obj.symbols}
    assert [(f.name, f.address) for f in idx.functions] == [("_start", 0), ("helper", syms["helper"])]
    helper = idx.functions[1]
    assert len(helper.ranges) == 2 and helper.ranges[1].base_address == syms["helper"] + 0x10
    assert all(r.stored_address == 0 for r in helper.ranges)


def test_linked_and_object_agree():
    for o, e in (("mc-v5.o", "mc-v5.exe"), ("clang19-labels.o", "clang19-labels.exe")):
        fo, fe = BBIndex.from_path(BB / o).functions, BBIndex.from_path(BB / e).functions
        assert [f.name for f in fo] == [f.name for f in fe]
        delta = fe[0].address - fo[0].address
        for a, b in zip(fo, fe):
            assert b.address - a.address == delta
            assert [(x.id, x.offset, x.size, x.metadata, x.callsite_end_offsets, x.hash) for x in a.blocks] == \
                [(x.id, x.offset, x.size, x.metadata, x.callsite_end_offsets, x.hash) for x in b.blocks]
            assert a.pgo_blocks == b.pgo_blocks and a.entry_count == b.entry_count


def test_model_contract():
    idx = BBIndex.from_path(BB / "mc-v5.exe")
    f = idx.functions[0]
    assert (f.name, f.version, f.feature, f.entry_count) == ("_start", 5, 0xE7, 1000)
    b = f.blocks[1]
    assert (b.id, b.offset, b.address) == (1, 0xB, f.address + 0xB)
    assert b.callsite_end_offsets == [0xA, 0x12] and b.hash == 0x5A5A5A5A5A5A5A5A
    assert b.can_fall_through and not (b.has_return or b.has_tail_call or b.is_eh_pad or b.has_indirect_branch)
    assert f.blocks[2].has_tail_call
    p = f.pgo_blocks[0]
    assert (p.frequency, p.post_link_frequency) == (1000, 990)
    assert [(s.id, s.probability, s.post_link_frequency) for s in p.successors] == [(1, 0x70000000, 800),
                                                                                     (2, 0x10000000, 190)]
    assert idx.functions[1].entry_count is None
    eh = BBIndex.from_path(BB / "clang19-eh.o").functions[0]
    assert any(b.is_eh_pad for b in eh.blocks)
    jump = next(f for f in BBIndex.from_path(BB / "clang19-labels.exe").functions if f.name == "jump")
    assert any(b.has_indirect_branch for b in jump.blocks)
    assert BBIndex.from_path(BB / "clang19-labels.exe").functions[0].pgo_blocks is None


# -- every version x feature combination, generated ---------------------------------------------
U32 = st.integers(0, 0xFFFFFFFF)


class _Sec:
    """The parts of a Section the codec reads."""
    link = 0

    def __init__(self, stype):
        self.type = stype


@st.composite
def function_maps(draw, legacy=False):
    if legacy:
        version, feature = None, 0
    else:
        version = draw(st.integers(0, 5))
        feature = 0
        if version >= 2:
            feature = draw(st.integers(0, 0x1F))
        if version >= 3 and draw(st.booleans()):
            feature |= M.CALLSITE_END_OFFSETS
        if version >= 4 and draw(st.booleans()):
            feature |= M.BB_HASH
        if version >= 5 and draw(st.booleans()):
            feature |= M.POST_LINK_CFG
        if feature & M.OMIT_BB_ENTRIES:
            feature &= ~(M.CALLSITE_END_OFFSETS | M.BB_HASH)
    nranges = draw(st.integers(1, 3)) if feature & M.MULTI_BB_RANGE else 1
    ranges, total = [], 0
    for _ in range(nranges):
        base = draw(st.integers(0, 0xFFFFFFFF))
        if feature & M.OMIT_BB_ENTRIES:
            ranges.append(M.BBRange(base, [], num_blocks=draw(st.integers(0, 300))))
            continue
        blocks, pos = [], 0
        for i in range(draw(st.integers(0, 5))):
            gap = draw(st.sampled_from([0, 0, 1, 130, 20000]))
            off = pos + gap if (version is not None and version >= 1) else draw(st.integers(0, 70000))
            size = draw(st.sampled_from([0, 1, 5, 127, 128, 300, 70000]))
            cs = []
            if feature & M.CALLSITE_END_OFFSETS:
                cs = sorted(draw(st.lists(st.integers(0, size), max_size=3)))
            bid = draw(st.integers(0, 0x10000)) if (version is not None and version >= 2) else i
            blocks.append(M.Block(bid, off, size, draw(st.integers(0, 31)), base + off, cs,
                                  draw(st.integers(0, 2 ** 64 - 1)) if feature & M.BB_HASH else None))
            pos = off + size
        total += len(blocks)
        ranges.append(M.BBRange(base, blocks))
    fn = M.FunctionMap(None, version, feature, ranges)
    if feature & M.FUNC_ENTRY_COUNT:
        fn.entry_count = draw(st.integers(0, 2 ** 64 - 1))
    if feature & (M.BB_FREQ | M.BR_PROB):
        pl = feature & M.POST_LINK_CFG
        fn.pgo_blocks = [M.PGOBlock(draw(st.integers(0, 2 ** 64 - 1)) if feature & M.BB_FREQ else None,
                                    draw(U32) if pl else None,
                                    [M.Successor(draw(U32), draw(U32), draw(U32) if pl else None)
                                     for _ in range(draw(st.integers(0, 3)))] if feature & M.BR_PROB else [])
                         for _ in range(total)]
    return fn


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_generated_round_trip_every_version_and_feature(data):
    legacy = data.draw(st.booleans())
    endian = data.draw(st.sampled_from("<>"))
    asz = data.draw(st.sampled_from([4, 8]))
    fns = data.draw(st.lists(function_maps(legacy), min_size=1, max_size=4))
    stype = M.SHT_LLVM_BB_ADDR_MAP_V0 if legacy else M.SHT_LLVM_BB_ADDR_MAP
    model = M.BBAddrMap(fns, stype)
    ctx = SectionContext(endian=endian, addr_size=asz, is_relocatable=False, file_type="ET_EXEC",
                         section=_Sec(stype))
    raw = M.encode_map(model, endian, asz)
    back = M.decode_map(raw, ctx)
    assert back.functions == fns
    assert M.encode_map(back, endian, asz) == raw
    # Whole-range fast path and per-block path agree.
    for f in back.functions:
        f.blocks
    assert M.encode_map(back, endian, asz) == raw


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=80), st.sampled_from([0x6FFF4C08, 0x6FFF4C0A]))
def test_random_bytes_only_decode_errors(blob, stype):
    class Sec:
        type = stype
        link = 0
    ctx = SectionContext(section=Sec())
    try:
        m = M.decode_map(blob, ctx)
    except DecodeError as e:
        assert e.offset is not None and 0 <= e.offset <= len(blob)
        assert isinstance(e.partial, M.BBAddrMap)
    else:
        assert M.encode_map(m) == blob or M.decode_map(M.encode_map(m), ctx) == m


# -- bad input --------------------------------------------------------------------------------
def _fn(version=2, feature=0, blocks=((0, 0, 4, 8), (1, 4, 200, 1)), base=0x1000):
    return M.FunctionMap(None, version, feature,
                         [M.BBRange(base, [M.Block(i, o, s, md) for i, o, s, md in blocks])])


GOOD = M.encode_map(M.BBAddrMap([_fn()]))        # 8-byte address, 2 blocks; block 1 size is 2 bytes


def decode_error(blob, stype=M.SHT_LLVM_BB_ADDR_MAP):
    class Sec:
        type = stype
        link = 0
    with pytest.raises(DecodeError) as ei:
        M.decode_map(blob, SectionContext(section=Sec()))
    return ei.value


def test_truncated_uleb_keeps_previous_functions():
    f = _fn(feature=M.FUNC_ENTRY_COUNT)
    f.entry_count = 1000                          # 2-byte ULEB128 at the very end
    second = M.encode_map(M.BBAddrMap([f]))
    e = decode_error(GOOD + second[:-1])
    assert "truncated ULEB128 function entry count" in e.message and e.offset == len(GOOD) + len(second) - 2
    assert len(e.partial.functions) == 1 and e.partial.functions[0].blocks[1].size == 200


def test_uleb_over_32_bits():
    f = _fn(blocks=((0, 0, 4, 8),))
    raw = bytearray(M.encode_map(M.BBAddrMap([f])))
    # version, feature, address(8), count, id, offset, size, md: replace the size with 2**32.
    blob = GOOD + bytes(raw[:13]) + uleb_encode(1 << 32) + bytes(raw[14:])
    e = decode_error(blob)
    assert "does not fit in 32 bits" in e.message and e.offset == len(GOOD) + 13
    assert len(e.partial.functions) == 1


def test_unknown_version():
    e = decode_error(GOOD + bytes([6, 0]) + GOOD[2:])
    assert "unsupported version 6" in e.message and e.offset == len(GOOD)
    assert len(e.partial.functions) == 1


@pytest.mark.parametrize("version,feature,need", [(1, 0x1, "version 2"), (2, 0x20, "version 3"),
                                                  (3, 0x40, "version 4"), (4, 0x80, "version 5")])
def test_feature_needs_a_higher_version(version, feature, need):
    e = decode_error(GOOD + bytes([version, feature]) + GOOD[2:])
    assert need in e.message and e.offset == len(GOOD)


def test_unknown_feature_bits_in_version_5():
    e = decode_error(GOOD + bytes([5, 0x00, 0x01]) + GOOD[2:])
    assert "unknown feature bits 0x100" in e.message and e.offset == len(GOOD) + 1


def test_zero_ranges():
    e = decode_error(GOOD + bytes([2, M.MULTI_BB_RANGE, 0]))
    assert "zero ranges" in e.message and e.offset == len(GOOD) + 2


def test_block_count_larger_than_the_bytes_left():
    blob = GOOD + bytes([2, 0]) + bytes(8) + uleb_encode(0xFFFFFFF) + bytes(10)
    e = decode_error(blob)
    assert "block count 268435455" in e.message and e.offset == len(GOOD) + 10
    e = decode_error(GOOD + bytes([2, M.MULTI_BB_RANGE]) + uleb_encode(0xFFFFFFFF) + bytes(9))
    assert "range count" in e.message


def test_unknown_metadata_bits():
    f = _fn(blocks=((0, 0, 4, 8), (5, 4, 3, 0x21)))
    raw = bytearray(M.encode_map(M.BBAddrMap([f])))
    e = decode_error(GOOD + bytes(raw))
    assert "unknown metadata bits 0x20" in e.message and "ID 5" in e.message
    assert e.offset == len(GOOD) + len(raw) - 1


def test_unencodable_models_are_errors():
    with pytest.raises(DecodeError, match="goes back before the end of block"):
        CODEC.encode(M.BBAddrMap([_fn(blocks=((0, 8, 4, 8), (1, 0, 4, 1)))]), SectionContext())
    with pytest.raises(DecodeError, match="version 7"):
        CODEC.encode(M.BBAddrMap([_fn(version=7)]), SectionContext())
    with pytest.raises(DecodeError, match="no version byte"):
        CODEC.encode(M.BBAddrMap([_fn()], M.SHT_LLVM_BB_ADDR_MAP_V0), SectionContext())
    with pytest.raises(DecodeError, match="not a known flag|HasNothing"):
        CODEC.from_dict({"functions": [{"version": 2, "ranges": [{"base_address": 0, "blocks": [
            {"id": 0, "offset": 0, "size": 1, "flags": ["HasNothing"]}]}]}]}, SectionContext())
    m = CODEC.from_dict({"functions": [{"version": 2, "ranges": [{"base_address": 16, "blocks": [
        {"id": 0, "offset": 0, "size": 1, "flags": ["HasReturn", "IsEHPad"]}]}]}]}, SectionContext())
    assert m.functions[0].blocks[0].metadata == 5 and m.functions[0].blocks[0].address == 16
    with pytest.raises(DecodeError, match="2 blocks but 0 PGO entries"):
        CODEC.encode(M.BBAddrMap([_fn(feature=M.BB_FREQ)]), SectionContext())
    with pytest.raises(DecodeError, match="call-site end"):
        CODEC.encode(M.BBAddrMap([M.FunctionMap(None, 3, M.CALLSITE_END_OFFSETS, [M.BBRange(0, [
            M.Block(0, 0, 4, 0, 0, [9])])])]), SectionContext())


def test_other_truncations():
    assert "8-byte address" in decode_error(GOOD + bytes([2, 0, 0, 0])).message
    assert "16-bit feature" in decode_error(GOOD + bytes([5, 0])).message
    hashed = M.encode_map(M.BBAddrMap([M.FunctionMap(None, 4, M.BB_HASH, [M.BBRange(0, [
        M.Block(0, 0, 0x4000, 1, 0, [], 7)])])]))
    assert "block count 1 needs at least 12 bytes" in decode_error(hashed[:-3]).message
    e = decode_error(hashed[:-2])
    assert "8-byte hash" in e.message and e.offset == len(hashed) - 8
    f = _fn(feature=M.BR_PROB)
    f.pgo_blocks = [M.PGOBlock(), M.PGOBlock()]
    pgo = M.encode_map(M.BBAddrMap([f]))
    # first block's successor count replaced by a huge one
    e = decode_error(pgo[:-2] + uleb_encode(1 << 40) + bytes(3))
    assert "successor count" in e.message
    v0 = M.encode_map(M.BBAddrMap([_fn(version=None)], M.SHT_LLVM_BB_ADDR_MAP_V0))
    e = decode_error(v0 + v0[:-1], M.SHT_LLVM_BB_ADDR_MAP_V0)
    assert "truncated ULEB128 block metadata" in e.message
    assert e.offset == 2 * len(v0) - 1 and len(e.partial.functions) == 1


def test_cli_bad_map_is_one_line_and_shows_the_rest(tmp_path):
    src = BB / "clang19-labels.exe"
    obj = open_object(str(src))
    sec = next(s for s in obj.sections if s.type == M.SHT_LLVM_BB_ADDR_MAP)
    third = CODEC.decode(sec.data(), SectionContext.for_section(obj, sec)).functions[2].offset
    data = bytearray(src.read_bytes())
    data[sec.offset + third] = 9
    bad = tmp_path / "bad.exe"
    bad.write_bytes(bytes(data))
    code, out, err = run_objllvm("dump", "--section", "bb-addr-map", bad)
    assert code == 1
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"offset {third:#x}" in err and "unsupported version 9" in err
    assert "function leaf" in out and "function loop" in out and "function jump" not in out
    code, out, err = run_objllvm("dump", "--section", "bb-addr-map", "--json", bad)
    assert code == 1
    sec_json = json.loads(out)["files"][0]["sections"][0]
    assert sec_json["status"] == "error"
    assert [f["name"] for f in sec_json["content"]["functions"]] == ["leaf", "loop"]
    idx = BBIndex.from_path(bad, strict=False)
    assert len(idx.functions) == 2 and len(idx.errors) == 1
    with pytest.raises(DecodeError):
        BBIndex.from_path(bad)


# -- views ------------------------------------------------------------------------------------
def test_text_tables_and_pretty_pgo():
    code, out, err = run_objllvm("dump", "--section", "bb-addr-map", BB / "mc-v5.exe")
    assert code == 0, err
    assert "function _start at 0x201120 (version 5, FuncEntryCount, BBFreq, BrProb, CallsiteEndOffsets, BBHash, " \
           "PostLinkCfg), entry count 1000" in out
    assert "1:0x70000000:800, 2:0x10000000:190" in out
    code, out, err = run_objllvm("dump", "--section", "bb-addr-map", "--pretty-pgo", BB / "mc-v5.exe")
    assert code == 0, err
    assert "1:87.50%:800, 2:12.50%:190" in out and "rel. freq" in out and "0.875" in out
    code, out, _ = run_objllvm("dump", "--section", "bb-addr-map", "--json", "--pretty-pgo", BB / "mc-v5.exe")
    fn = json.loads(out)["files"][0]["sections"][0]["content"]["functions"][0]
    assert fn["pgo_blocks"][1]["relative_frequency"] == 0.875
    assert fn["pgo_blocks"][0]["successors"][0]["probability_percent"] == 87.5
    code, out, _ = run_objllvm("dump", "--section", "bb-addr-map", BB / "mc-omit.exe")
    assert "(3 blocks omitted)" in out and "entry count 42" in out


# -- BBIndex ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["clang19-labels.exe", "rustc-v5-pgo.exe", "mc-v4.exe", "yaml-multirange.o",
                                  "yaml-versions.o"])
def test_lookup_agrees_with_a_linear_scan(name):
    idx = BBIndex.from_path(BB / name)
    allb = [(f, b) for f in idx.functions for b in f.blocks]
    assert idx.functions == sorted(idx.functions, key=lambda f: f.address)
    lo = min(b.address for _, b in allb) - 3
    hi = max(b.address + b.size for _, b in allb) + 3
    step = max(1, (hi - lo) // 3000)
    for a in list(range(lo, hi, step)) + [b.address for _, b in allb] + [b.address + b.size - 1 for _, b in allb]:
        want = [(f, b) for f, b in allb if b.address <= a < b.address + b.size]
        got = idx.lookup(a)
        if want:
            assert got is not None and got[0] is want[0][0] and got[1] is want[0][1], hex(a)
        else:
            assert got is None, hex(a)
        fa = idx.function_at(a)
        inside = [f for f in idx.functions for r in f.ranges if r.blocks and
                  r.blocks[0].address <= a < max(b.address + b.size for b in r.blocks)]
        assert (fa is None and not inside) or fa is inside[0]


def test_function_at_covers_padding_between_ranges_and_objects_by_section():
    idx = BBIndex.from_path(BB / "mc-v4.exe")
    helper = idx.functions[1]
    gap = helper.ranges[0].blocks[-1].end          # padding before the second range
    assert idx.lookup(gap) is None and idx.function_at(gap) is None
    pad = helper.blocks[1].end
    assert idx.lookup(helper.ranges[1].base_address)[1].id == 2
    assert pad < helper.ranges[1].base_address
    fs = BBIndex.from_path(BB / "clang19-labels-fs.o")
    loop = next(f for f in fs.functions if f.name == "loop")
    assert fs.lookup(0x20, section=loop.section_index)[0] is loop
    assert fs.lookup(0, section=999) is None
    assert fs.lookup(0)[0].name == "leaf"


def test_index_of_an_object_without_a_map(tmp_path):
    mc = need_tool("llvm-mc-19")
    src = tmp_path / "plain.s"
    src.write_text(".text\n.globl f\nf:\n ret\n")
    import subprocess
    subprocess.run([mc, "-filetype=obj", "-triple=x86_64-linux-gnu", str(src), "-o", str(tmp_path / "p.o")],
                   check=True)
    idx = BBIndex.from_path(tmp_path / "p.o")
    assert idx.functions == [] and idx.lookup(0) is None and idx.function_at(0) is None


def test_importing_objllvm_does_not_import_the_codec():
    import subprocess
    import sys
    code = ("import sys, objllvm; import objllvm.cli; "
            "print(any(m.endswith('bb_addr_map') or m == 'objllvm.sections.support.bb_index' for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(TESTDATA.parent))
    assert out.stdout.strip() == "False", out.stderr


def test_corpus_files_are_tiny():
    for p in BB.iterdir():
        assert p.stat().st_size < 16 * 1024, p


def test_render_json_same_text_and_compact_when_big(monkeypatch):
    """render_json: json's exact text, compact only past BIG_JSON."""
    import io

    from objllvm import render
    small = {"a": [1, {"b": None, "c": "x"}], "e": [], "f": {}, 1: 2, "t": (1, 2), "h": b"\x01", "fl": 0.875,
             "u": "\u00e9", "s": "bad\udcff", "big": 1 << 70}
    for indent in (True, False):
        o = io.StringIO()
        render.render_json(small, o, indent=indent)
        # (a byte that is not UTF-8 is written as the text \xff, not as json's lone surrogate: docs/schemas.md)
        want = json.dumps(dict(small, s="bad\\xff"), indent=2 if indent else None,
                          separators=None if indent else (",", ":"), default=render._default) + "\n"
        assert o.getvalue() == want
    monkeypatch.setattr(render, "BIG_JSON", 1000)
    big = {"x": list(range(1000))}
    o = io.StringIO()
    render.render_json(big, o)
    assert o.getvalue() == json.dumps(big, separators=(",", ":")) + "\n"


@pytest.mark.parametrize("name", ["clang19-labels.exe", "yaml-versions.o", "mc-v5.o"])
def test_views_same_from_columns_and_from_blocks(name):
    """The fast views of entries still in columns equal the views of materialised Block objects."""
    obj = open_object(str(BB / name))
    s = next(x for x in obj.sections if x.type in M.TYPE_NAMES)
    ctx = SectionContext.for_section(obj, s)
    lazy, full = CODEC.decode(s.data(), ctx), CODEC.decode(s.data(), ctx)
    for f in full.functions:
        f.blocks
    assert [(t.title, t.headers, t.rows) for t in render.expand(CODEC.tables(lazy, {}))] == \
        [(t.title, t.headers, t.rows) for t in CODEC.tables(full, {})]
    assert CODEC.to_dict(lazy) == CODEC.to_dict(full)
    assert all(r._blocks is None for f in lazy.functions for r in f.ranges if f.feature & M.CALLSITE_END_OFFSETS == 0
               and name == "clang19-labels.exe")
