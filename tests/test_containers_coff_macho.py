"""COFF and Mach-O containers, .drectve and LC_LINKER_OPTION codecs, diffed against llvm-readobj-19.

Inputs: testdata/audit/tree/{coff,macho} (scripts/testdata.d/50-audit.sh: clang-19 / llc-19 / llvm-lipo-19).
"""
from __future__ import annotations

import re
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import TESTDATA, need_tool
from objllvm.sections import registry
from objllvm.sections.coff_directives import quote, split_tokens, unquote
from objllvm.formats import iter_objects, open_data, sniff
from objllvm.errors import ObjllvmError

TREE = TESTDATA / "audit" / "tree"
COFF_FILES = sorted((TREE / "coff").glob("*.obj"))
MACHO_FILES = sorted((TREE / "macho").glob("*.o"))
SRC = TESTDATA / "src" / "audit"


def readobj(*args) -> str:
    tool = need_tool("llvm-readobj-19")
    return subprocess.run([tool, *map(str, args)], capture_output=True, text=True, check=True).stdout


def readobj_sections(path) -> list:
    """Per file in the output (a fat file prints one per slice): list of section dicts from the text form."""
    files = []
    for block in readobj("--sections", path).split("\nFile: ")[1:]:
        secs = []
        for sb in re.findall(r"  Section \{\n(.*?)\n  \}", block, re.S):
            d = {}
            for line in sb.splitlines():
                m = re.match(r"\s+(\w+) \[ \((0x[0-9A-Fa-f]+)\)", line) or re.match(r"\s+(\w+): (\S+)", line)
                if m and m.group(1) not in d:
                    d[m.group(1)] = m.group(2)
            secs.append(d)
        files.append(secs)
    return files


def objects_of(path) -> list:
    objs = list(iter_objects(str(path)))
    assert objs and not [o for o in objs if isinstance(o, ObjllvmError)], objs
    return objs


def test_inputs_exist():
    assert len(COFF_FILES) >= 3 and len(MACHO_FILES) >= 3


@pytest.mark.parametrize("path", COFF_FILES, ids=lambda p: p.name)
def test_coff_sections_match_readobj(path):
    (expected,) = readobj_sections(path)
    (obj,) = objects_of(path)
    assert obj.format == "coff" and obj.file_type == "IMAGE_FILE (object)" and obj.machine_name == "x86-64"
    assert len(obj.sections) == len(expected)
    for s, e in zip(obj.sections, expected):
        assert s.index == int(e["Number"])
        assert s.name == e["Name"]            # long names (/4 -> .llvm_addrsig) resolved via the string table
        assert s.flags == int(e["Characteristics"], 16)
        assert s.offset == int(e["PointerToRawData"], 0)
        assert len(s.data()) == (0 if s.flags & 0x80 else int(e["RawDataSize"]))


@pytest.mark.parametrize("path", MACHO_FILES, ids=lambda p: p.name)
def test_macho_sections_match_readobj(path):
    expected = readobj_sections(path)
    objs = objects_of(path)
    assert len(objs) == len(expected)
    for obj, exp in zip(objs, expected):
        assert obj.format == "macho" and obj.file_type == "MH_OBJECT"
        real = [s for s in obj.sections if s.name != "LC_LINKER_OPTION"]
        assert len(real) == len(exp)
        for s, e in zip(real, exp):
            assert s.index == int(e["Index"])
            assert s.name == f"{e['Segment']},{e['Name']}"
            assert s.size == int(e["Size"], 16)
            assert s.offset == int(e["Offset"])
            assert s.flags >> 8 == int(e["Attributes"], 16)
            assert len(s.data()) == s.size


def test_fat_macho_members_are_arch_names():
    objs = objects_of(TREE / "macho" / "fat.o")
    assert [o.member for o in objs] == ["x86_64", "arm64"]
    assert [o.machine_name for o in objs] == ["x86_64", "arm64"]
    assert objs[0].label == f"{TREE / 'macho' / 'fat.o'}(x86_64)"


def test_embedded_bitcode_sections_present():
    (coff,) = objects_of(TREE / "coff" / "embed.obj")
    (macho,) = objects_of(TREE / "macho" / "embed.o")
    for obj, bc, cmd in ((coff, ".llvmbc", ".llvmcmd"), (macho, "__LLVM,__bitcode", "__LLVM,__cmdline")):
        assert obj.section_by_name(bc).data()[:4] in (b"BC\xc0\xde", b"\xde\xc0\x17\x0b")
        assert b"-cc1" in obj.section_by_name(cmd).data()


@pytest.mark.parametrize("path", COFF_FILES + MACHO_FILES, ids=lambda p: p.name)
def test_symbol_names_match_nm(path):
    nm = need_tool("llvm-nm-19")
    out = subprocess.run([nm, "--defined-only", "-j", str(path)], capture_output=True, text=True, check=True).stdout
    expected = {ln for ln in out.splitlines() if ln and not ln.endswith(":")}
    got = set()
    for obj in objects_of(path):
        got |= {s.name for s in obj.symbols if s.shndx not in (0,) and s.name}
    assert expected <= got


def test_import_library_members(tmp_path):
    """llvm-dlltool-19's import library: short import members are objects without sections (not errors)."""
    lib = TREE / "lib" / "import.lib"
    text = readobj("--file-headers", lib)
    formats = re.findall(r"^Format: (.*)$", text, re.M)
    objs = objects_of(lib)
    assert len(objs) == len(formats) == 5
    for o, fmt in zip(objs, formats):
        assert (o.file_type == "IMPORT_OBJECT") == (fmt == "COFF-import-file-x86-64")
    nm = need_tool("llvm-nm-19")
    out = subprocess.run([nm, "--defined-only", "-j", str(lib)], capture_output=True, text=True, check=True).stdout
    imports = {s.name for o in objs if o.file_type == "IMPORT_OBJECT" for s in o.symbols}
    assert {"vendor_open", "__imp_vendor_open", "vendor_close", "__imp_vendor_close"} == imports
    assert imports <= set(out.split())
    assert {o.dll_name for o in objs if o.file_type == "IMPORT_OBJECT"} == {"vendor.dll"}


# -- .drectve ---------------------------------------------------------------------------------
@pytest.mark.parametrize("path", COFF_FILES, ids=lambda p: p.name)
def test_coff_directives_match_readobj(path):
    text = readobj("--coff-directives", path)
    m = re.search(r"^Directive\(s\): (.*)$", text, re.M)
    (obj,) = objects_of(path)
    sec = obj.section_by_name(".drectve")
    if m is None:
        assert sec is None
        return
    d = registry.decode_section(obj, sec)
    assert d.status == "decoded" and d.codec.kind == "coff-directives"
    ctx = registry.SectionContext.for_section(obj, sec)
    assert d.codec.encode(d.model, ctx) == sec.data()
    assert d.codec.encode(d.codec.from_dict(d.codec.to_dict(d.model), ctx), ctx) == sec.data()
    assert "".join(x.separator + x.raw for x in d.model.directives) + d.model.trailing == m.group(1)


def test_coff_pragmas_decoded():
    (obj,) = objects_of(TREE / "coff" / "coff-pragma.obj")
    model = registry.decode_section(obj, obj.section_by_name(".drectve")).model
    got = [(x.option, x.value) for x in model.directives]
    # every #pragma comment of the source, as link.exe reads it (names case-insensitive, quotes removed)
    src = (SRC / "coff-pragma.c").read_text()
    libs = re.findall(r'comment\(lib, "([^"]+)"\)', src)
    for lib in libs:
        assert ("DEFAULTLIB", lib if lib.endswith(".lib") else lib + ".lib") in got
    for opt in re.findall(r'comment\(linker, "(.*)"\)', src):
        opt = opt.encode().decode("unicode_escape")
        name, _, value = opt[1:].partition(":")
        assert (name.upper(), value.strip('"')) in got


def test_coff_directive_edit_writes_quoted_value():
    (obj,) = objects_of(TREE / "coff" / "coff-lib.obj")
    sec = obj.section_by_name(".drectve")
    c = registry.get("coff-directives")
    ctx = registry.SectionContext.for_section(obj, sec)
    d = c.to_dict(c.decode(sec.data(), ctx))
    d["directives"][0]["value"] = 'C:\\Program Files\\x "y".lib'
    data = c.encode(c.from_dict(d, ctx), ctx)
    back = c.decode(data, ctx)
    assert back.directives[0].value == 'C:\\Program Files\\x "y".lib' and back.directives[0].option == "DEFAULTLIB"


_value = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), max_size=20)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["DEFAULTLIB", "include", "Export", "merge"]), _value), max_size=6))
def test_quote_unquote_roundtrip(pairs):
    text = " ".join(f"/{n}:{quote(v)}" for n, v in pairs)
    spans = split_tokens(text)
    assert len(spans) == len(pairs)
    for (s, e), (n, v) in zip(spans, pairs):
        assert unquote(text[s:e]) == f"/{n}:{v}"


# -- LC_LINKER_OPTION ----------------------------------------------------------------------------
@pytest.mark.parametrize("path", MACHO_FILES, ids=lambda p: p.name)
def test_macho_linker_options_match_readobj(path):
    text = readobj("--macho-linker-options", path)
    expected = []
    for block in text.split("\nFile: ")[1:]:
        expected.append([(int(size), re.findall(r"Value: (.*)", body))
                         for size, body in re.findall(r"Linker Options \{\n\s+Size: (\d+)\n(.*?)\n\}", block, re.S)])
    got = []
    for obj in objects_of(path):
        cur = []
        for s in obj.sections:
            if s.name != "LC_LINKER_OPTION":
                continue
            d = registry.decode_section(obj, s)
            assert d.status == "decoded" and d.codec.kind == "macho-linker-options"
            ctx = registry.SectionContext.for_section(obj, s)
            assert d.codec.encode(d.model, ctx) == s.data()
            assert d.codec.encode(d.codec.from_dict(d.codec.to_dict(d.model), ctx), ctx) == s.data()
            cur.append((s.size, d.model.strings))
        got.append(cur)
    assert got == expected


def test_macho_linker_option_load_command_listed():
    (obj, _arm) = objects_of(TREE / "macho" / "fat.o")
    cmds = [lc for lc in obj.load_commands if lc.cmd == 0x2D]
    assert len(cmds) == 4
    assert [s.data() for s in obj.sections if s.name == "LC_LINKER_OPTION"] == [lc.data for lc in cmds]


# -- hostile input -------------------------------------------------------------------------------
def _exercise(data, name):
    """Open and decode everything; only ObjllvmError may come out."""
    try:
        for o in open_data(data, name):
            if isinstance(o, ObjllvmError):
                assert o.offset is not None or o.message
                continue
            for s in o.sections:
                s.data()
                registry.decode_section(o, s)
            o.symbols
    except ObjllvmError as exc:
        assert exc.file == name and exc.offset is not None, str(exc)


@pytest.mark.parametrize("path", COFF_FILES + MACHO_FILES, ids=lambda p: p.name)
def test_truncations_give_decode_errors(path):
    data = path.read_bytes()
    step = max(1, len(data) // 400)
    for n in range(0, len(data), step):
        if sniff(data[:n]) not in (None,):
            _exercise(data[:n], path.name)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(COFF_FILES + MACHO_FILES), st.lists(st.tuples(st.integers(0, 4095), st.integers(0, 255)),
                                                           min_size=1, max_size=8))
def test_corrupted_headers_give_decode_errors(path, patches):
    data = bytearray(path.read_bytes())
    for off, val in patches:
        if off < len(data) and off >= 4:     # keep the magic so the container is chosen
            data[off] = val
    if sniff(bytes(data)):
        _exercise(bytes(data), path.name)


def test_bad_header_message_names_offset():
    data = bytearray((TREE / "macho" / "macho-linker-options.o").read_bytes())
    data[20:24] = (0xFFFF).to_bytes(4, "little")      # sizeofcmds past the end
    with pytest.raises(ObjllvmError) as ei:
        list(open_data(bytes(data), "x.o"))
    assert ei.value.offset == 20 and "load commands" in ei.value.message
    data = bytearray((TREE / "coff" / "coff-lib.obj").read_bytes())
    data[2:4] = (5000).to_bytes(2, "little")          # NumberOfSections
    with pytest.raises(ObjllvmError) as ei:
        list(open_data(bytes(data), "x.obj"))
    assert ei.value.offset == 20 and "section table" in ei.value.message
