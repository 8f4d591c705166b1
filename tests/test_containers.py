"""Containers: ELF (both classes and byte orders, every file type) and ar archives, against
pyelftools and llvm-ar-19; malformed containers give one-line errors with offsets."""
import subprocess

import pytest
from elftools.elf.elffile import ELFFile

from objllvm.formats import iter_objects, open_object
from objllvm.formats.archive import Archive
from objllvm.errors import ObjllvmError

from conftest import TESTDATA, corpus_files, need_tool

ELF = TESTDATA / "elf"
ELF_FILES = [p for p in corpus_files() if p.read_bytes()[:4] == b"\x7fELF"]


@pytest.mark.parametrize("path", ELF_FILES, ids=lambda p: str(p.relative_to(TESTDATA)))
def test_sections_and_symbols_agree_with_pyelftools(path):
    ours = open_object(str(path))
    with open(path, "rb") as f:
        ref = ELFFile(f)
        assert ours.endian == ("<" if ref.little_endian else ">")
        assert ours.addr_size * 8 == ref.elfclass
        assert ours.file_type == ref["e_type"]
        ref_secs = list(ref.iter_sections())
        assert [s.name for s in ours.sections] == [s.name for s in ref_secs]
        for a, b in zip(ours.sections, ref_secs):
            assert (a.offset, a.size, a.flags, a.link, a.info) == (b["sh_offset"], b["sh_size"], b["sh_flags"],
                                                                    b["sh_link"], b["sh_info"])
            if not a.compression and b["sh_type"] != "SHT_NOBITS":
                assert a.data() == b.data()
        symtab = ref.get_section_by_name(".symtab") or ref.get_section_by_name(".dynsym")
        if symtab is not None:
            ref_syms = list(symtab.iter_symbols())
            assert len(ours.symbols) == len(ref_syms)
            for a, b in zip(ours.symbols, ref_syms):
                if b["st_info"]["type"] != "STT_SECTION":
                    assert a.name == b.name
                assert (a.value, a.size) == (b["st_value"], b["st_size"])


@pytest.mark.parametrize("name", ["cg-profile-asm.o", "cg-profile-i386.o", "cg-profile-ppc64be.o"])
def test_relocations_agree_with_pyelftools(name):
    path = ELF / name
    ours = open_object(str(path))
    with open(path, "rb") as f:
        ref = ELFFile(f)
        for sec in ours.sections:
            rels = ours.relocations_for(sec)
            refsec = [r for r in ref.iter_sections() if r["sh_type"] in ("SHT_REL", "SHT_RELA")
                      and r["sh_info"] == sec.index]
            want = [(r["r_offset"], r["r_info_type"], r["r_info_sym"], r["r_addend"] if r.is_RELA() else None)
                    for rs in refsec for r in rs.iter_relocations()]
            assert [(r.offset, r.type, r.sym, r.addend) for r in rels] == want


def test_i386_uses_rel_and_ppc64_is_big_endian():
    i386 = open_object(str(ELF / "cg-profile-i386.o"))
    assert i386.addr_size == 4 and i386.endian == "<"
    cg = [s for s in i386.sections if s.name == ".llvm.call-graph-profile"][0]
    assert all(r.addend is None for r in i386.relocations_for(cg))
    ppc = open_object(str(ELF / "portable-ppc64be.o"))
    assert ppc.endian == ">" and ppc.addr_size == 8


@pytest.mark.parametrize("archive", ["libgnu.a", "libbsd.a", "libthin.a"])
def test_archive_members_agree_with_llvm_ar(archive):
    path = ELF / archive
    listed = subprocess.run([need_tool("llvm-ar-19"), "t", str(path)], capture_output=True, text=True,
                            check=True).stdout.split()
    ar = Archive(path.read_bytes(), str(path))
    assert [m.name.split("/")[-1] for m in ar.members] == [n.split("/")[-1] for n in listed]
    objs = list(iter_objects(str(path)))
    assert all(not isinstance(o, ObjllvmError) for o in objs)
    assert [o.label for o in objs] == [f"{path}({m.name})" for m in ar.members]
    if archive != "libthin.a":
        # the member bytes are the original objects
        for m in ar.members:
            orig = ELF / ("deplibs.o" if m.name.startswith("a-member") else m.name)
            assert m.data() == orig.read_bytes()


def test_linked_files_have_segments():
    for name, ftype in (("pgo.exe", ("ET_DYN", "ET_EXEC")), ("portable.so", ("ET_DYN",))):
        obj = open_object(str(ELF / name))
        assert obj.file_type in ftype and obj.segments and not obj.is_relocatable


def test_compressed_sections_are_decompressed():
    plain = open_object(str(ELF / "deplibs.o")).section_by_name(".deplibs").data()
    z = open_object(str(ELF / "deplibs-zlib.o")).section_by_name(".deplibs")
    assert z.compression == "zlib" and z.data() == plain
    plain = open_object(str(ELF / "linker-options.o")).section_by_name(".linker-options").data()
    zs = open_object(str(ELF / "linker-options-zstd.o")).section_by_name(".linker-options")
    assert zs.compression == "zstd" and zs.data() == plain


# -- malformed containers ---------------------------------------------------------------------------
def _errors(tmp_path, data, name="bad.o"):
    p = tmp_path / name
    p.write_bytes(data)
    return [o for o in iter_objects(str(p)) if isinstance(o, ObjllvmError)], p


def test_not_an_object(tmp_path):
    (e,), p = _errors(tmp_path, b"hello world, not an object\n")
    assert "not an ELF file or archive" in str(e) and str(p) in str(e)


def test_truncated_elf_header(tmp_path):
    data = (ELF / "deplibs.o").read_bytes()[:40]
    (e,), _ = _errors(tmp_path, data)
    assert "truncated ELF header" in e.message


def test_section_table_past_the_end(tmp_path):
    data = (ELF / "deplibs.o").read_bytes()
    (e,), _ = _errors(tmp_path, data[: len(data) - 100])
    assert "section header table" in e.message and e.offset is not None


def test_section_contents_past_the_end(tmp_path):
    import struct
    data = bytearray((ELF / "deplibs.o").read_bytes())
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    # section 1's sh_size := huge
    struct.pack_into("<Q", data, shoff + 64 + 32, 1 << 40)
    (e,), _ = _errors(tmp_path, bytes(data))
    assert "run past the end" in e.message and e.offset == shoff + 64


def test_bad_compressed_section(tmp_path):
    data = bytearray((ELF / "deplibs-zlib.o").read_bytes())
    obj = open_object(str(ELF / "deplibs-zlib.o"))
    sec = obj.section_by_name(".deplibs")
    data[sec.offset + 24: sec.offset + 30] = b"garbag"
    p = tmp_path / "z.o"
    p.write_bytes(bytes(data))
    from objllvm import api
    (d,) = api.dump(str(p))
    bad = [x for x in d.sections if x.section.name == ".deplibs"][0]
    assert bad.status == "error" and "decompress" in bad.error.message
    # the other sections are still decoded
    assert any(x.status == "decoded" for x in d.sections)


def test_truncated_archive_member(tmp_path):
    data = (ELF / "libgnu.a").read_bytes()
    (e,), _ = _errors(tmp_path, data[:-100], "lib.a")
    assert "runs past the end of the archive" in e.message


def test_broken_member_does_not_stop_the_others(tmp_path):
    # A GNU archive whose second member is a truncated ELF file.
    good = (ELF / "deplibs.o").read_bytes()
    bad = good[:30]
    def member(name, body):
        hdr = f"{name + '/':<16}{0:<12}{0:<6}{0:<6}{644:<8}{len(body):<10}`\n".encode()
        return hdr + body + (b"\n" if len(body) % 2 else b"")
    data = b"!<arch>\n" + member("good.o", good) + member("bad.o", bad) + member("good2.o", good)
    p = tmp_path / "lib.a"
    p.write_bytes(data)
    objs = list(iter_objects(str(p)))
    kinds = [type(o).__name__ for o in objs]
    assert kinds == ["ElfFile", "DecodeError", "ElfFile"]
    assert objs[1].member == "bad.o" and "truncated ELF header" in str(objs[1])


def test_truncated_crel_header_is_located(tmp_path):
    """An empty SHT_CREL section (no header) is an error naming the file, the section and the offset
    (found by scripts/fuzz: the header read escaped without a location)."""
    import struct
    from objllvm.errors import DecodeError
    path = ELF / "portable-crel.o"
    obj = open_object(str(path))
    crel = [s for s in obj.sections if s.type == 0x40000014][0]
    data = bytearray(path.read_bytes())
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    struct.pack_into("<Q", data, shoff + crel.index * 64 + 32, 0)     # sh_size := 0
    p = tmp_path / "crel-empty.o"
    p.write_bytes(bytes(data))
    bad = open_object(str(p))
    with pytest.raises(DecodeError) as ei:
        bad.read_relocations(bad.sections[crel.index])
    e = ei.value
    assert e.file == str(p) and e.section_index == crel.index and e.offset == 0
    assert "truncated CREL header" in e.message


def test_archive_magics_in_formats_are_the_archive_modules():
    """formats keeps its own copy of the archive magics (archive.py is imported for archives only)."""
    from objllvm import formats
    from objllvm.formats import archive
    assert (formats.AR_MAGIC, formats.THIN_MAGIC) == (archive.AR_MAGIC, archive.THIN_MAGIC)


@pytest.mark.parametrize("name", ["bitcode/libbc.a", "elf/libgnu.a", "elf/libthin.a", "bitcode/embed-coff.obj",
                                  "bitcode/embed-macho.o"])
def test_archives_and_objects_make_no_reference_cycles(name):
    """An archive's members and an object's sections do not point back at the archive or the object
    (their bytes would otherwise wait for the cyclic collector, which the command runs rarely): once
    dropped, nothing of them is left for the collector to find."""
    import gc
    gc.collect()
    was = gc.get_debug()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        n = 0
        for obj in iter_objects(str(TESTDATA / name)):
            for s in obj.sections:
                s.data()
            n += 1
        del obj, s
        assert n >= (2 if name.endswith(".a") else 1)
        gc.collect()
        left = [type(o).__name__ for o in gc.garbage
                if type(o).__name__ in ("Archive", "Member", "ElfFile", "CoffFile", "MachOFile", "Section", "mmap")]
    finally:
        gc.set_debug(was)
        gc.garbage.clear()
    assert not left, left


def test_threads_sharing_an_elf_file_get_the_same_sections():
    """Eight threads asking one fresh ElfFile for its sections at once, one by one and as the list, with the
    interpreter switching threads every microsecond: no error, and every thread gets the very same objects."""
    import random
    import sys
    import threading
    from objllvm.formats import open_object
    path = str(TESTDATA / "profile" / "rust.o")          # (154 sections)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for rnd in range(20):
            o = open_object(path)
            n = o.section_count
            got, errors = [None] * 8, []

            def work(k):
                try:
                    order = list(range(n))
                    random.Random(rnd * 8 + k).shuffle(order)
                    if k % 2:           # half make the list first, half take sections one by one first
                        every = list(o.sections)
                        one = {i: o.section(i) for i in order}
                    else:
                        one = {i: o.section(i) for i in order}
                        every = list(o.sections)
                    got[k] = ([one[i] for i in range(n)], every)
                except Exception as exc:           # noqa: BLE001  (reported below)
                    errors.append(exc)
            ts = [threading.Thread(target=work, args=(k,)) for k in range(8)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            assert not errors, errors
            ref = o.sections
            assert n > 10
            for one, every in got:
                assert all(a is r for a, r in zip(one, ref)) and all(b is r for b, r in zip(every, ref))
    finally:
        sys.setswitchinterval(old)
