"""formats/elfscan.py (the sections of given types and names, from the header and name tables alone) against the
ELF reader (formats/elf.py: each section's type and name) on every ELF object of testdata, the malformed, lit
and terminal inputs included, read from memory and by pread; and formats/archive.py's one-pass header walk
against the archive reader."""
from __future__ import annotations

import os

import pytest

from conftest import TESTDATA
from objllvm.errors import ObjllvmError
from objllvm.formats.archive import Archive, iter_headers
from objllvm.formats.elf import ElfFile, LLVM_SECTION_TYPES
from objllvm.formats.elfscan import SUFFIX_CLASSES, FileReader, InMemory, Wanted, section_indices

AUDIT_TYPES = (0x6FFF4C01, 0x6FFF4C04, 0x6FFF4C0C)


def _files():
    return [p for p in sorted(TESTDATA.rglob("*")) if p.is_file() and p.relative_to(TESTDATA).parts[0] != "src"]


def _elf_objects():
    """(path, ElfFile, buffer, start) of every ELF object that reads, archive members too (``buffer[start:]``
    holds the object: the archive's bytes for a member)."""
    out = []
    for p in _files():
        data = p.read_bytes()
        if data[:4] == b"\x7fELF":
            places = [(data, 0, len(data))]
        elif data[:8] == b"!<arch>\n":
            try:
                places = [(data, m.data_offset, m.size) for m in Archive(data, str(p)).members]
            except ObjllvmError:
                continue
        else:
            continue
        for buf, start, size in places:
            try:
                out.append((p, ElfFile(buf[start:start + size], str(p)), buf, start))
            except ObjllvmError:
                continue
    return out


def _expected(obj, types, names) -> list:
    """The indices by the reader: type in ``types`` or name in ``names`` (an empty name is no name)."""
    return [i for i in range(obj.section_count)
            if obj.header(i)[1] in types or (obj._names_at[1] and obj.section_name(i) in names - {""})]


def test_section_indices_are_the_readers_on_every_object():
    """Audit's types and names, every LLVM type, and each object's own section names (so every name, shared
    tails included, is looked for; and those as long as the byte classes the name pass checks first, so that
    check spans its whole width on them): the same indices as the reader's columns and names, wherever elfscan
    reads the headers plainly."""
    objs = _elf_objects()
    compared = none = 0
    audit_names = {".deplibs", ".linker-options", ".llvmbc", ".llvmcmd", "__llvm_prf_data", "__llvm_covmap"}
    for path, obj, data, start in objs:
        own = {obj.section_name(i) for i in range(obj.section_count)} if obj._names_at[1] else set()
        long_own = {n for n in own if len(n) >= SUFFIX_CLASSES}
        for types, names in ((AUDIT_TYPES, audit_names), (tuple(LLVM_SECTION_TYPES), set()),
                             ((), own), ((), long_own), ((1, 2, 3), {".text", ".rela.text", "x"})):
            got = section_indices(InMemory(data), start, len(obj.data), Wanted(types, names))
            if got is None:
                none += 1
                continue
            compared += 1
            assert got == _expected(obj, types, names), (path, obj.member, types, sorted(names)[:5])
    assert compared > 1000 and none < compared // 10, (compared, none)


def test_pread_and_memory_agree_on_every_file(tmp_path):
    """FileReader (pread, a map above MAPPED_ABOVE) gives what InMemory gives, for top-level ELF files."""
    from objllvm.formats import elfscan
    wanted = Wanted(AUDIT_TYPES, {".deplibs", ".llvmbc", "__llvm_prf_cnts", ".text"})
    n = 0
    for p in _files():
        data = p.read_bytes()
        if data[:4] != b"\x7fELF":
            continue
        want = section_indices(InMemory(data), 0, len(data), wanted)
        with open(p, "rb") as f:
            got = section_indices(FileReader(f), 0, len(data), wanted, data[:64])
            old = elfscan.MAPPED_ABOVE
            elfscan.MAPPED_ABOVE = 0               # every table from the memory map
            try:
                mapped = section_indices(FileReader(f), 0, len(data), wanted)
            finally:
                elfscan.MAPPED_ABOVE = old
        assert got == want == mapped, p
        n += 1
    assert n > 200


@pytest.mark.parametrize("change, why", [
    (lambda b: b.__setitem__(4, 3), "class"),
    (lambda b: b.__setitem__(5, 0), "encoding"),
    (lambda b: b.__setitem__(slice(0x3A, 0x3C), (63).to_bytes(2, "little")), "e_shentsize"),
    (lambda b: b.__setitem__(slice(0x3C, 0x3E), (0).to_bytes(2, "little")), "extended numbering"),
    (lambda b: b.__setitem__(slice(0x3C, 0x3E), (0xFFF).to_bytes(2, "little")), "table past the end"),
    (lambda b: b.__setitem__(slice(0x3E, 0x40), (0xFFFF).to_bytes(2, "little")), "shstrndx SHN_XINDEX"),
    (lambda b: b.__setitem__(slice(0x3E, 0x40), (0xFFF).to_bytes(2, "little")), "shstrndx past the table"),
    (lambda b: b.__setitem__(slice(0x28, 0x30), (2 ** 63).to_bytes(8, "little")), "e_shoff huge"),
])
def test_headers_that_are_not_plain_go_to_the_reader(change, why):
    """Each header the reader complains about (or reads in another way) gives None, never a guess."""
    data = bytearray((TESTDATA / "elf" / "deplibs.o").read_bytes())
    assert section_indices(InMemory(bytes(data)), 0, len(data), Wanted(AUDIT_TYPES, {".deplibs"})) != []
    change(data)
    assert section_indices(InMemory(bytes(data)), 0, len(data), Wanted(AUDIT_TYPES, {".deplibs"})) is None, why


def test_name_table_out_of_bounds_or_unterminated_goes_to_the_reader():
    src = (TESTDATA / "elf" / "deplibs.o").read_bytes()
    obj = ElfFile(src)
    shstr = obj.e_shoff + obj.e_shstrndx * 64
    wanted = Wanted(AUDIT_TYPES, {".deplibs"})
    for field, value in ((24, len(src)), (32, len(src))):         # sh_offset, then sh_size, past the end
        data = bytearray(src)
        data[shstr + field:shstr + field + 8] = value.to_bytes(8, "little")
        assert section_indices(InMemory(bytes(data)), 0, len(data), wanted) is None
    data = bytearray(src)
    off, size = obj.columns[4][obj.e_shstrndx], obj.columns[5][obj.e_shstrndx]
    data[off + size - 1] = ord("x")
    assert section_indices(InMemory(bytes(data)), 0, len(data), wanted) is None
    # cut short: the table is past the end of what is there
    assert section_indices(InMemory(src[:obj.e_shoff + 10]), 0, obj.e_shoff + 10, wanted) is None
    assert section_indices(InMemory(src[:10]), 0, 10, wanted) is None


def test_archive_header_walk_is_the_archive_reader():
    """iter_headers (one pass, pread-able) gives the members Archive lists, with their first bytes."""
    n = 0
    for p in _files():
        data = p.read_bytes()
        if data[:8] not in (b"!<arch>\n", b"!<thin>\n"):
            continue
        thin = data[:8] == b"!<thin>\n"
        try:
            ar = Archive(data, str(p))
        except ObjllvmError as exc:
            got = []
            with pytest.raises(ObjllvmError) as err:
                for h in iter_headers(lambda a, k: data[a:a + k], len(data), str(p), thin, 64):
                    got.append(h)
            assert err.value.message == exc.message and err.value.offset == exc.offset
            continue
        with open(p, "rb") as f:
            r = FileReader(f)
            heads = list(iter_headers(r.read, os.fstat(f.fileno()).st_size, str(p), thin, 64))
        members = [h for h in heads if not h[4]]
        assert [(m.name, m.offset, m.size, m.data_offset) for m in ar.members] == [h[:4] for h in members]
        assert ar.symbol_tables == [h[0] for h in heads if h[4]]
        for m, h in zip(ar.members, members):
            assert h[5] == (b"" if thin else bytes(m.data()[:64]))
        n += 1
    assert n > 10
