"""LIEF as an independent oracle for objllvm's COFF and Mach-O readers (objllvm/formats/coff.py, macho.py).

For every COFF and Mach-O object of the corpus (archive members and each slice of a universal file
included): the section list (names in order), each section's file offset, size and contents, and the
LC_LINKER_OPTION load commands objllvm shows as pseudo-sections (offset, size, raw bytes) must be what LIEF
reads.  (LIEF gives COFF long names as "/N"; the test resolves them in the string table that LIEF's header
locates.)  Sections without contents in the file (COFF uninitialised data, Mach-O zero-fill) are empty in
objllvm (its size is the stored size) and must be all zeros or absent in LIEF.
"""
from __future__ import annotations

import pytest

from conftest import TESTDATA, corpus_files
from objllvm.errors import ObjllvmError
from objllvm.formats import iter_objects

lief = pytest.importorskip("lief", reason="LIEF is in the test extra: pip install -e '.[test]'")
lief.logging.disable()     # it warns about the LC_LINKER_OPTION commands it does not parse

COFF_UNINITIALIZED = 0x80          # IMAGE_SCN_CNT_UNINITIALIZED_DATA
MACHO_ZEROFILL = (0x1, 0xC, 0x12)  # S_ZEROFILL, S_GB_ZEROFILL, S_THREAD_LOCAL_ZEROFILL


def _objects():
    out = []
    for path in corpus_files():
        for o in iter_objects(str(path)):
            # (COFF short import objects have no sections and no header LIEF reads: left out)
            if not isinstance(o, ObjllvmError) and o.format in ("coff", "macho") and hasattr(o, "data"):
                out.append(o)
    return out


OBJECTS = _objects()


def _id(o):
    rel = o.path.replace(str(TESTDATA) + "/", "")
    return f"{rel}({o.member})" if o.member else f"{rel}[{o.machine_name}]"


def test_the_corpus_has_both_formats():
    formats = {o.format for o in OBJECTS}
    assert formats == {"coff", "macho"}, formats
    assert len(OBJECTS) >= 10
    assert any(o.member for o in OBJECTS if o.format == "coff")          # archive members too
    assert len({o.machine_name for o in OBJECTS if o.path.endswith("fat.o")}) == 2   # both slices


_KEEP = []   # LIEF frees a slice with its FatBinary: keep the FatBinary alive (else a use after free)


def _lief_macho(o):
    fat = lief.MachO.parse(bytes(o.data))
    _KEEP.append(fat)
    assert fat is not None, "LIEF cannot read it"
    slices = [b for b in fat if (b.header.cpu_type.value, b.header.cpu_subtype) == (o.cputype, o.cpusubtype)]
    assert len(slices) == 1, f"{len(slices)} slices of cputype {o.cputype:#x}"
    return slices[0]


def _coff_name(b, data: bytes, name: str) -> str:
    """LIEF gives a long section name as its string-table reference "/N" (and reads no string table for
    objects): look it up in the table after the symbols, as LIEF's header places them."""
    if not (name.startswith("/") and name[1:].isdigit()):
        return name
    start = b.header.pointerto_symbol_table + 18 * b.header.nb_symbols + int(name[1:])
    return data[start:data.index(b"\0", start)].decode()


@pytest.mark.parametrize("o", [o for o in OBJECTS if o.format == "coff"], ids=_id)
def test_coff_sections_as_lief_reads_them(o):
    data = bytes(o.data)
    b = lief.COFF.parse(data)
    assert b is not None, "LIEF cannot read it"
    theirs = list(b.sections)
    assert [s.name for s in o.sections] == [_coff_name(b, data, s.name) for s in theirs]
    for ours, t in zip(o.sections, theirs):
        if t.characteristics & COFF_UNINITIALIZED:
            assert ours.size == 0 and ours.data() == b"", ours.name
            continue
        assert (ours.offset, ours.size) == (t.pointerto_raw_data, t.sizeof_raw_data), ours.name
        assert ours.data() == bytes(t.content), ours.name


@pytest.mark.parametrize("o", [o for o in OBJECTS if o.format == "macho"], ids=_id)
def test_macho_sections_as_lief_reads_them(o):
    b = _lief_macho(o)
    sections = [s for s in o.sections if s.name != "LC_LINKER_OPTION"]
    assert [s.name for s in sections] == [f"{s.segment_name},{s.name}" for s in b.sections]
    for ours, t in zip(sections, b.sections):
        if t.type.value in MACHO_ZEROFILL:
            assert ours.size == 0 and ours.data() == b"", ours.name
            continue
        assert (ours.offset, ours.size) == (t.offset, t.size), ours.name
        assert ours.data() == bytes(t.content), ours.name


@pytest.mark.parametrize("o", [o for o in OBJECTS if o.format == "macho"], ids=_id)
def test_macho_linker_option_commands_as_lief_reads_them(o):
    b = _lief_macho(o)
    # LIEF 1.0 does not decode LC_LINKER_OPTION (0x2d): it lists it as an unknown command with its bytes
    theirs = [c for c in b.commands if getattr(c, "original_command", None) == 0x2D]
    ours = [s for s in o.sections if s.name == "LC_LINKER_OPTION"]
    assert len(ours) == len(theirs)
    for s, c in zip(ours, theirs):
        assert (s.offset, s.size) == (c.command_offset, c.size)
        assert s.data() == bytes(c.data)
