"""Per-codec tests for the foundation kinds: real sections from the corpus and malformed bytes."""
import struct
import subprocess

import pytest

from objllvm.sections import registry
from objllvm.binary import Reader, uleb_encode
from objllvm.formats import open_object
from objllvm.formats.base import Relocation, Symbol
from objllvm.errors import DecodeError
from objllvm.sections.registry import SectionContext

from conftest import TESTDATA, need_tool

ELF = TESTDATA / "elf"


def decode_kind(path, kind):
    obj = open_object(str(path))
    out = []
    for s in obj.sections:
        c = registry.find_codec(s, obj)
        if c is not None and c.kind == kind:
            d = registry.decode_section(obj, s)
            assert d.error is None, str(d.error)
            out.append(d.model)
    return out


def ctx(symbols=(), relocations=(), section_type=None, addr_size=8, endian="<"):
    from objllvm.formats.base import Section
    return SectionContext(endian=endian, addr_size=addr_size, symbols=list(symbols), relocations=list(relocations),
                          section=Section(1, "s", section_type))


def syms(*names):
    return [Symbol(0, "", 0)] + [Symbol(i + 1, n, 0x10 * i, 4, 2, 1, 0, 1) for i, n in enumerate(names)]


# -- linker options -----------------------------------------------------------------------------
def test_linker_options_from_llc_match_the_ir():
    # The IR in testdata/src/foundation/linker-options.ll lists these four pairs.
    ir = (TESTDATA / "src/foundation/linker-options.ll").read_text()
    import re
    want = re.findall(r'!\{!"([^"]*)", !"([^"]*)"\}', ir)
    (m,) = decode_kind(ELF / "linker-options.o", "linker-options")
    assert [(o.key, o.value) for o in m.options] == want


@pytest.mark.parametrize("data,offset,words", [
    (b"lib\0z\0libpath\0", 6, "odd number of strings"),
    (b"lib\0z", 4, "no terminating NUL"),
])
def test_linker_options_malformed(data, offset, words):
    c = registry.get("linker-options")
    with pytest.raises(DecodeError) as ei:
        c.decode(data, ctx())
    assert ei.value.offset == offset and words in ei.value.message


def test_linker_options_odd_keeps_the_pairs_before():
    c = registry.get("linker-options")
    with pytest.raises(DecodeError) as ei:
        c.decode(b"lib\0z\0libpath\0", ctx())
    assert [(o.key, o.value) for o in ei.value.partial.options] == [("lib", "z")]


# -- deplibs ------------------------------------------------------------------------------------
def test_deplibs_match_the_pragmas():
    import re
    src = (TESTDATA / "src/foundation/deplibs.c").read_text()
    want = re.findall(r'#pragma comment\(lib, "([^"]*)"\)', src)
    (m,) = decode_kind(ELF / "deplibs.o", "deplibs")
    assert m.libraries == want and len(want) == 3
    (mz,) = decode_kind(ELF / "deplibs-zlib.o", "deplibs")
    assert mz.libraries == want


def test_deplibs_unterminated():
    with pytest.raises(DecodeError) as ei:
        registry.get("deplibs").decode(b"m\0pthr", ctx())
    assert ei.value.offset == 2


def test_non_utf8_library_names_survive_a_round_trip():
    c = registry.get("deplibs")
    data = b"caf\xe9\0ok\0"
    m = c.decode(data, ctx())
    assert c.encode(m, ctx()) == data


# -- addrsig ------------------------------------------------------------------------------------
def test_addrsig_names_the_address_taken_functions():
    (m,) = decode_kind(ELF / "deplibs.o", "addrsig")
    assert {s.name for s in m.symbols} == {"square", "twice"}
    obj = open_object(str(ELF / "deplibs.o"))
    for s in m.symbols:   # the indices point at those symbols in the real symbol table
        assert obj.symbols[s.index].name == s.name


def test_addrsig_index_past_symbol_table_costs_the_name():
    data = uleb_encode(1) + uleb_encode(300) + uleb_encode(2)
    c = ctx(syms("a", "b"))
    m = registry.get("addrsig").decode(data, c)
    assert [(s.index, s.name) for s in m.symbols] == [(1, "a"), (300, None), (2, "b")]
    assert registry.get("addrsig").encode(m, c) == data
    (w,) = c.warnings
    assert w.offset == 1 and "past the end of the symbol table (3 symbols)" in w.message


def test_addrsig_truncated_uleb():
    with pytest.raises(DecodeError) as ei:
        registry.get("addrsig").decode(b"\x01\x81", ctx(syms("a")))
    assert ei.value.offset == 1 and "truncated" in ei.value.message


def test_addrsig_empty_means_no_symbol():
    assert registry.get("addrsig").decode(b"", ctx()).symbols == []


# -- call-graph profile -------------------------------------------------------------------------
def test_cg_profile_new_layout_from_assembler_directives():
    import re
    src = (TESTDATA / "src/foundation/cg-profile.s").read_text()
    want = [(a, b, int(w)) for a, b, w in re.findall(r"\.cg_profile (\w+), (\w+), (\d+)", src)]
    for name in ("cg-profile-asm.o", "cg-profile-i386.o", "cg-profile-ppc64be.o"):
        (m,) = decode_kind(ELF / name, "cg-profile")
        assert m.layout == "relocations"
        assert [(e.source.name, e.target.name, e.weight) for e in m.edges] == want, name


def test_cg_profile_old_layout_16_byte_entries():
    (m,) = decode_kind(ELF / "cg-profile-old.o", "cg-profile")
    assert m.layout == "symbol-indices"
    assert [(e.source.name, e.target.name, e.weight) for e in m.edges] == [
        ("old_a", "old_b", 100), ("old_b", "old_c", 7), ("old_c", "old_a", 0xFFFFFFFFFFFF0000)]


def test_cg_profile_from_a_real_pgo_build_has_the_hot_edge():
    (m,) = decode_kind(ELF / "cg-profile-pgo.o", "cg-profile")
    edges = {(e.source.name, e.target.name): e.weight for e in m.edges}
    # pgo.c: step calls mix far more often than rare (x % 97 == 0 picks rare).
    assert edges[("step", "mix")] > 50 * edges[("step", "rare")] > 0
    assert ("main", "step") in edges


def test_cg_profile_relocation_count_mismatch_keeps_what_pairs():
    c = registry.get("cg-profile")
    a, b = Symbol(1, "a", 0), Symbol(2, "b", 0)
    rel = [Relocation(0, 0, 1, 0, a), Relocation(0, 0, 2, 0, b), Relocation(8, 0, 1, 0, a)]
    cx = ctx(syms("a", "b"), rel, 0x6FFF4C09)
    m = c.decode(struct.pack("<QQ", 5, 6), cx)
    assert [(e.source.name, e.target.name, e.weight) for e in m.edges] == [("a", "b", 5), (None, None, 6)]
    (w,) = cx.warnings
    assert "2 weights need 4 relocations, the relocation section has 3: 1 edges paired" in w.message


def test_cg_profile_size_not_multiple_of_8():
    with pytest.raises(DecodeError) as ei:
        registry.get("cg-profile").decode(b"\0" * 12, ctx(section_type=0x6FFF4C09))
    assert ei.value.offset == 8


def test_cg_profile_old_truncated_entry_keeps_earlier_edges():
    data = struct.pack("<IIQ", 1, 2, 9) + struct.pack("<II", 2, 1)
    with pytest.raises(DecodeError) as ei:
        registry.get("cg-profile").decode(data, ctx(syms("a", "b"), section_type=0x6FFF4C02))
    assert ei.value.offset == 24 and len(ei.value.partial.edges) == 1


# -- sympart ------------------------------------------------------------------------------------
def test_sympart_object_symbol_comes_from_the_relocation():
    got = {(m.partition, m.symbol.name) for m in decode_kind(ELF / "sympart.o", "sympart")}
    assert got == {("libpart.so", "part_local"), ("libpart.so", "part_exported")}
    # Ground truth: llvm-readelf's view of the relocations of each .llvm_sympart.
    out = subprocess.run([need_tool("llvm-readelf-19"), "-r", str(ELF / "sympart.o")], capture_output=True,
                         text=True).stdout
    for _, name in got:
        assert f" {name} + 0" in out


def test_sympart_linked_file_uses_the_address():
    (m,) = decode_kind(ELF / "sympart-linked.so", "sympart")
    assert (m.partition, m.symbol.name, m.address) == ("libpart.so", "in_part", 0x1004)


def test_sympart_malformed():
    c = registry.get("sympart")
    with pytest.raises(DecodeError) as ei:
        c.decode(b"libpart.so\0\x01\x02", ctx())
    assert ei.value.offset == 11 and "8 bytes" in ei.value.message
    with pytest.raises(DecodeError):
        c.decode(b"no-nul-here", ctx())


# -- llvmcmd ------------------------------------------------------------------------------------
def test_llvmcmd_matches_the_raw_section():
    (m,) = decode_kind(ELF / "embed.o", "llvmcmd")
    raw = subprocess.run([need_tool("llvm-objcopy-19"), "--dump-section=.llvmcmd=/dev/stdout",
                          str(ELF / "embed.o"), "/dev/null"], capture_output=True).stdout
    assert m.arguments == raw.rstrip(b"\0").decode().split("\0")
    assert "-fembed-bitcode=all" in m.arguments or any(a.startswith("-triple") for a in m.arguments)


# -- unknown types ------------------------------------------------------------------------------
def test_unknown_llvm_types_are_listed_not_errors():
    from objllvm import api
    (d,) = api.dump(str(ELF / "unknown-types.o"))
    status = {x.section.name: x.status for x in d.sections}
    assert status == {".llvm.odrtab": "undecoded", ".llvm.part.ehdr": "undecoded", ".llvm.future": "unknown",
                      ".deplibs": "decoded"}


# -- the byte reader ----------------------------------------------------------------------------
def test_reader_uleb_limits():
    assert Reader(uleb_encode(2**32 - 1)).uleb(max_bits=32) == 2**32 - 1
    with pytest.raises(DecodeError) as ei:
        Reader(uleb_encode(2**32)).uleb("block count", max_bits=32)
    assert "does not fit in 32 bits" in ei.value.message
    with pytest.raises(DecodeError):
        Reader(b"\x80" * 11 + b"\x00").uleb()
    r = Reader(b"\x7f\x80\x7f")
    assert r.sleb() == -1 and r.sleb() == -128
    assert Reader(b"\x80" * 10 + b"\x00").uleb() == 0          # eleven bytes: the Reader's own limit
    with pytest.raises(DecodeError, match="ran off the end"):
        Reader(b"\x80\x80").uleb()


def test_read_uleb_the_shared_loop():
    """binary.read_uleb, under the Reader, the bb-addr-map and coverage decoders and the writer's addrsig renumbering:
    value, position after it, minimal encoding; a bound on its length; truncation; both at their start."""
    from objllvm.binary import ULEBError, read_uleb
    for v in (0, 1, 127, 128, 300, 2**32, 2**63 + 5):
        enc = uleb_encode(v)
        assert read_uleb(b"\xff" + enc + b"\x01", 1, 1 + len(enc)) == (v, 1 + len(enc), True)
    assert read_uleb(b"\x81\x80\x00", 0, 3) == (1, 3, False)         # padded: not minimal
    assert read_uleb(b"\x00", 0, 1) == (0, 1, True)
    assert read_uleb(b"\x80" * 9 + b"\x01", 0, 10) == (1 << 63, 10, True)
    with pytest.raises(ULEBError) as ei:
        read_uleb(b"\x00" + b"\x80" * 10 + b"\x01", 1, 12)
    assert not ei.value.truncated and ei.value.start == 1
    with pytest.raises(ULEBError) as ei:
        read_uleb(b"\x80\x80\x80", 1, 3)
    assert ei.value.truncated and ei.value.start == 1
    assert read_uleb(b"\x80" * 5 + b"\x01", 0, 6, 6)[0] == 1 << 35
    with pytest.raises(ULEBError):
        read_uleb(b"\x80" * 6 + b"\x01", 0, 7, 6)


def test_symbols_are_checked_only_for_a_codec_that_asks():
    """decode_section's context checks the object's symbol table when a codec first asks about symbols: a
    deplibs section (no symbols) costs no check, an addrsig section (symbol names) one; the results are those
    of an object checked up front."""
    from objllvm.formats import open_object
    from objllvm.sections import registry
    obj = open_object(str(TESTDATA / "elf" / "deplibs.o"))
    calls = []
    check = obj.check_symbols
    obj.check_symbols = lambda: calls.append(1) or check()
    by_kind = {}
    for s in obj.sections:
        d = registry.decode_section(obj, s)
        if d.codec is not None:
            by_kind[d.codec.kind] = (d, len(calls))
    assert {"deplibs", "addrsig"} <= set(by_kind)
    order = sorted(by_kind, key=lambda k: by_kind[k][0].section.index)
    seen = 0
    for k in order:
        d, n = by_kind[k]
        assert n == seen + (k == "addrsig"), (k, n, seen)
        seen = n
    fresh = open_object(str(TESTDATA / "elf" / "deplibs.o"))
    fresh.check_symbols()
    for k, (d, _) in by_kind.items():
        again = registry.decode_section(fresh, fresh.section(d.section.index))
        assert again.status == d.status and again.codec.to_dict(again.model) == d.codec.to_dict(d.model)
