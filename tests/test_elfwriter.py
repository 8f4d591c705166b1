"""The ELF writer (objllvm/formats/elfwrite/) on every committed ELF file: no-op rewrites are byte-identical;
removing each LLVM section gives what llvm-objcopy-19 --remove-section gives (same sections, contents and
symbols; offsets may differ) and a file llvm-readobj-19 reads without a warning; indices, links, symbols,
groups, SHT_SYMTAB_SHNDX and extended numbering stay consistent; what cannot be done is refused."""
from __future__ import annotations

import re
import struct
import subprocess

import pytest

from conftest import TESTDATA, corpus_elf_objects, corpus_files, need_tool
from objllvm import api
from objllvm import rewrite as rw
from objllvm.formats import iter_objects, open_data, open_object
from objllvm.formats.elf import ElfFile
from objllvm.formats.elfwrite import ElfWriter
from objllvm.errors import ObjllvmError
from test_rewrite_support import RW, assert_same_except, expected_output, link_and_run, objs_with, readobj




def test_noop_rewrite_is_byte_identical_on_every_elf_file_and_member():
    objs = corpus_elf_objects()
    assert len(objs) > 40
    members = 0
    for o in objs:
        assert ElfWriter(o).write() == bytes(o.data), o.label     # (o.data: a map of a big file)
        members += o.member is not None
    assert members >= 3
    # The same through the public API and the files on disk.
    for p in corpus_files():
        data = p.read_bytes()
        if data[:4] == b"\x7fELF":
            assert rw.rewrite_bytes(data, [], str(p))[0] == data, p


# A section that defines a symbol other than its section symbol (an instrumented object's __llvm_covfun
# sections hold __covrec_*, each the signature of the COMDAT group around it): in a relocatable object the
# writer drops those symbols (and the groups left empty), as llvm-objcopy does, renumbering the symbol table.
# .llvm_addrsig: llvm-objcopy (19 and 22 alike) leaves its indices as they were (now stale) and sets its sh_link
# to 0 ("do not trust me"; lld's --icf=safe then ignores it).  The writer renumbers the list instead -- the
# dropped symbols leave it -- and keeps the link: compared by the symbols it names, not with objcopy's bytes.
SHT_LLVM_ADDRSIG = 0x6FFF4C03


def _writer(o) -> ElfWriter:
    """A writer of ``o`` whose sections that may hold symbol indices are renumbered by their codecs' hooks
    (renumber_symbols), as a rewrite sets them (objllvm/rewrite/session.py)."""
    from objllvm.sections import registry
    w = ElfWriter(o)
    for i in w.symbol_index_users():
        hook = getattr(registry.find_codec(o.sections[i], o, {}), "renumber_symbols", None)
        if hook is not None:
            ctx = registry.SectionContext.for_section(o, o.sections[i])
            w.set_symbol_renumberer(i, lambda data, mapping, hook=hook, ctx=ctx: hook(data, mapping, ctx))
    return w


def _cases():
    out = []
    for p in corpus_files():
        data = p.read_bytes()
        # (the sanitizer objects have COMDAT groups whose signature is a local symbol: llvm-objcopy-19 clears
        # their GRP_COMDAT flag on any rewrite, the writer keeps the input's flag word)
        if data[:4] != b"\x7fELF" or p.parent.name == "sanitizers":
            continue
        o = ElfFile(data, str(p))
        for s in api.llvm_sections(o):
            if not s.flags & 2:
                same_name = [t.index for t in o.sections if t.name == s.name]
                out.append(pytest.param(p, s.index, id=f"{p.parent.name}/{p.name}[{s.index}]{s.name}"))
    return out


def _view(path):
    o = open_object(str(path))
    # Section 0 (extended numbering) and the order of symbols are normalised by objcopy: not compared.
    # Relocations are compared by symbol name (objcopy may renumber symbols).
    def content(s):
        if s.type in (2, 3):
            return ()
        if s.type in (4, 9):
            return (s.size, [(r.offset, r.type, r.symbol.name if r.symbol else None, r.addend)
                             for r in o.read_relocations(s)])
        return (s.size, s.data())
    # objcopy drops an SHT_SYMTAB_SHNDX no longer needed and the section symbols of removed sections (we
    # keep the table, and turn those symbols into null local symbols so no symbol index moves).
    secs = [(s.name, s.type, s.flags, s.addr, s.link and o.sections[s.link].name, s.entsize) + content(s)
            if s.type != SHT_LLVM_ADDRSIG else (s.name, s.type, s.flags, s.addr, s.entsize)
            for s in o.sections[1:] if s.type != 18]
    syms = sorted((x.name, x.value, x.size, x.type, x.bind, x.other, x.shndx) for x in o.symbols
                  if (x.name, x.type, x.shndx) != ("", 0, 0))
    return secs, syms


def _uleb_list(b: bytes) -> list:
    out, x, shift = [], 0, 0
    for c in b:
        x |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            out.append(x)
            x, shift = 0, 0
    assert shift == 0, "truncated ULEB128"
    return out


def _addrsig_names(o) -> list | None:
    """(name, type, section name) of each symbol .llvm_addrsig lists, or None without one (or a stale one)."""
    sigs = [s for s in o.sections if s.type == SHT_LLVM_ADDRSIG]
    if not sigs:
        return None
    (s,) = sigs
    if not s.link:
        return None         # a stale table (after ld -r or objcopy): the writer leaves it as it is
    assert o.sections[s.link].type == 2, "sh_link is the symbol table"
    syms = o.symbols
    return [(syms[k].name, syms[k].type, o.sections[syms[k].shndx].name if 0 < syms[k].shndx < 0xFF00 else
             syms[k].shndx) for k in _uleb_list(s.data())]


@pytest.mark.parametrize("path,index", _cases())
def test_remove_each_llvm_section_like_objcopy(tmp_path, path, index):
    objcopy = need_tool("llvm-objcopy-19")
    o = ElfFile(path.read_bytes(), str(path))
    name = o.sections[index].name
    w = _writer(o)
    removed = []
    for s in o.sections:     # llvm-objcopy-19 --remove-section removes every section of that name
        if s.name == name:
            removed += w.remove(s.index)
    try:
        out = w.write()
    except ObjllvmError as exc:
        pytest.fail(f"refused: {exc}")
    dst = tmp_path / "ours"
    dst.write_bytes(out)
    new = ElfFile(out, str(dst))
    emptied = [i for i in range(len(o.sections)) if w.is_removed(i) and i not in removed]    # groups left empty
    assert all(o.sections[i].type == 17 for i in emptied)
    assert len(new.sections) == len(o.sections) - len(removed) - len(emptied)
    for s in new.sections:          # every section still reads (and decodes, for the LLVM ones)
        s.data()
    # The LLVM sections decode as they did in the input (an input error, e.g. SHT_CREL relocations, stays).
    status = {(d.section.name, d.status) for d in api.dump_object(o).sections}
    for d in api.dump_object(new).sections:
        assert (d.section.name, d.status) in status, d.error
    ref = tmp_path / "objcopy"
    p = subprocess.run([objcopy, f"--remove-section={name}", str(path), str(ref)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert _view(dst) == _view(ref)
    # .llvm_addrsig names what it named, less the symbols of the removed sections; LLVM reads it cleanly
    gone = {o.sections[i].name for i in removed}
    before = _addrsig_names(o)
    if before is not None and name != ".llvm_addrsig":
        assert _addrsig_names(new) == [x for x in before if x[2] not in gone]
        r = subprocess.run([need_tool("llvm-readobj-22"), "--addrsig", str(dst)], capture_output=True, text=True)
        assert r.returncode == 0 and "warning" not in r.stderr.lower(), r.stderr
    dropped = any(x.type != 3 and 0 < x.shndx < 0xFF00 and o.sections[x.shndx].name in gone for x in o.symbols)
    assert_same_except(readobj(path), readobj(dst), removed=gone, dropped_symbols=dropped, dropped_groups=len(emptied),
                       resized={s.name for s in o.sections if s.type in (17, SHT_LLVM_ADDRSIG)})  # groups lose members


def test_extended_numbering_and_symtab_shndx(tmp_path):
    src = RW / "xindex.o"
    o = open_object(str(src))
    raw_shnum = int.from_bytes(o.data[0x3C:0x3E], "little")
    assert raw_shnum == 0 and o.e_shstrndx == len(o.sections) - 1     # the input uses extended numbering
    out, _ = rw.rewrite_bytes(o.data, [rw.Remove("deplibs")], str(src))
    (tmp_path / "x.o").write_bytes(out)
    before, after = readobj(src), readobj(tmp_path / "x.o")
    assert_same_except(before, after, removed={".deplibs"})
    # Symbols in .data go through SHT_SYMTAB_SHNDX: their index moved from 3 to 2 there.
    new = open_object(str(tmp_path / "x.o"))
    data_sym = next(s for s in new.symbols if s.name == "data_sym")
    assert new.sections[data_sym.shndx].name == ".data"
    assert int.from_bytes(new.data[0x3C:0x3E], "little") == 0      # still extended, as the input was
    assert new.e_shnum == len(new.sections) == len(o.sections) - 1
    assert new.sections[new.e_shstrndx].name == ".shstrtab"


@pytest.mark.parametrize("name", ["tiny-mips32be.o", "tiny-arm32.o", "xindex.o"])
def test_noop_and_strip_small_32bit_be(tmp_path, name):
    src = RW / name
    data = src.read_bytes()
    assert rw.rewrite_bytes(data, [], str(src))[0] == data
    out, changes = rw.rewrite_bytes(data, [rw.StripLLVM()], str(src))
    (tmp_path / "o").write_bytes(out)
    removed = {c.name for c in changes if c.action == "removed"}
    assert removed and api.llvm_sections(open_object(str(tmp_path / "o"))) == []
    assert_same_except(readobj(src), readobj(tmp_path / "o"), removed=removed)


def test_section_symbols_of_removed_sections_become_null_and_program_links(tmp_path):
    """Removing the debug sections (they have section symbols, used only by their own relocations)."""
    want = expected_output(tmp_path)
    o = open_object(str(RW / "main.o"))
    debug = [s.name for s in o.sections if s.name.startswith(".debug")]
    assert any(s.is_section and o.sections[s.shndx].name.startswith(".debug") for s in o.symbols)
    out, changes = rw.rewrite_bytes(o.data, [rw.Remove(n) for n in debug], str(RW / "main.o"))
    dst = tmp_path / "main.o"
    dst.write_bytes(out)
    removed = {c.name for c in changes if c.action == "removed"}
    assert set(debug) <= removed
    assert_same_except(readobj(RW / "main.o"), readobj(dst), removed=removed)
    assert link_and_run(objs_with({"main.o": dst}), tmp_path / "p") == want


def test_untouched_compressed_sections_are_copied_as_they_are():
    o = open_object(str(RW / "main.o"))
    comp = [s for s in o.sections if s.flags & 0x800]
    assert comp
    out, _ = rw.rewrite_bytes(o.data, [rw.DropAddrsig(), rw.DropDeplib("m")], "main.o")
    new = ElfFile(out, "new")
    for s in comp:
        t = next(x for x in new.sections if x.name == s.name)
        assert t.flags == s.flags and new.data[t.offset:t.offset + t.size] == o.data[s.offset:s.offset + s.size]


def test_refusals():
    o = open_object(str(RW / "bbmap.o"))
    # An allocated section cannot change size.
    w = ElfWriter(o)
    text = next(s.index for s in o.sections if s.name.startswith(".text.hot.bb_mix"))
    with pytest.raises(ObjllvmError, match="allocated section"):
        w.set_content(text, b"\xc3")
    w.set_content(text, bytes(o.sections[text].size))       # same size: allowed
    # A section that symbols are defined in, or that a kept section links to.
    w = ElfWriter(o)
    w.remove(text)
    with pytest.raises(ObjllvmError, match="would be removed"):
        w.write()
    # The section name table and the symbol table.
    for name in (".strtab", ".symtab"):
        w = ElfWriter(o)
        w.remove(w.index_of(name))
        with pytest.raises(ObjllvmError):
            w.write()
    with pytest.raises(ObjllvmError, match="only ELF"):
        rw.rewrite_bytes((RW / "replacement.bc").read_bytes(), [rw.StripLLVM()], "x.bc")


def test_allocated_bytes_and_segments_stay_put_when_a_section_grows(tmp_path):
    """Growing a non-allocated section of an executable: it moves after the loadable data, nothing else."""
    src = RW / "prog.exe"
    o = open_object(str(src))
    w = ElfWriter(o)
    i = w.index_of(".comment")
    w.set_content(i, o.sections[i].data() + b"objllvm was here\0" * 100)
    out = w.write()
    new = ElfFile(out, "new")
    assert new.segments == o.segments
    assert out[:o.e_phoff + o.e_phnum * o.e_phentsize][64:] == o.data[64:o.e_phoff + o.e_phnum * o.e_phentsize]
    for seg in o.segments:      # (the first PT_LOAD holds the ELF header: e_shoff changed)
        assert out[max(seg["offset"], 64):seg["offset"] + seg["filesz"]] == \
            o.data[max(seg["offset"], 64):seg["offset"] + seg["filesz"]]
    assert new.sections[i].data().endswith(b"objllvm was here\0")
    dst = tmp_path / "p"
    dst.write_bytes(out)
    dst.chmod(0o755)
    assert_same_except(readobj(src), readobj(dst), resized={".comment"})
    want = expected_output(tmp_path)
    assert subprocess.run([str(dst), "500"], capture_output=True, text=True).stdout == want


def test_archive_members_rewrite_individually():
    """Archives are refused as a whole; their members go through the writer like any object."""
    for o in iter_objects(str(TESTDATA / "elf" / "libgnu.a")):
        out, changes = rw.rewrite_bytes(o.data, [rw.StripLLVM()], o.label)
        (new,) = list(open_data(out, "m"))
        assert api.llvm_sections(new) == []


# -- hostile input: the writer never allocates by an untrusted size (crashers found by scripts/fuzz) -----------
def _patched(path, **fields):
    """A copy of an ELF64 little-endian file with section header fields set: name=(section name, field, value)."""
    import struct
    o = open_object(str(path))
    data = bytearray(o.data)
    pos = {"offset": (24, "<Q"), "size": (32, "<Q"), "addralign": (48, "<Q"), "type": (4, "<I")}
    for _key, (name, fld, value) in fields.items():
        i = next(s.index for s in o.sections if s.name == name)
        off, fmt = pos[fld]
        struct.pack_into(fmt, data, o.e_shoff + i * 64 + off, value)
    return bytes(data), o


def _peak(fn):
    import tracemalloc
    was = tracemalloc.is_tracing()
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        return fn(), tracemalloc.get_traced_memory()[1]
    except ObjllvmError as exc:
        return exc, tracemalloc.get_traced_memory()[1]
    finally:
        if not was:
            tracemalloc.stop()


@pytest.mark.parametrize("align,why", [(0x3900D375, "is not a power of two"), (1 << 40, "is larger than the file")])
def test_alignment_of_a_moved_section_is_checked_before_placing(align, why):
    """A section that has to move (here .strtab, after .deplibs grows) is aligned only by a power of two the
    input could have honoured: sh_addralign 0x3900d375 made a 956 MB output of a 1233-byte input."""
    data, o = _patched(RW / "main.o", a=(".strtab", "addralign", align))
    err, peak = _peak(lambda: rw.rewrite_bytes(data, [rw.AddDeplib("pthread")], "a.o"))
    assert isinstance(err, ObjllvmError), "rewrite did not refuse"
    i = next(s.index for s in o.sections if s.name == ".strtab")
    assert err.section_index == i and err.offset == o.e_shoff + i * 64 + 48 and why in err.message
    assert peak < 4 << 20
    # Where nothing has to move, the alignment is not used: an edit of the same size still works.
    out, _ = rw.rewrite_bytes(data, [rw.ScaleCGWeights("2")], "a.o")
    assert len(out) == len(data) and out != data


def test_segments_and_program_headers_must_lie_inside_the_file():
    """A p_offset past the end (fuzz: 0x7fffffff) kept a 2 GB range fixed; a program header table past the end
    (e_phentsize 0xffff) did the same.  Both are refused at once, naming the program header."""
    import struct
    o = open_object(str(RW / "prog.exe"))
    k = next(k for k, s in enumerate(o.segments) if s["filesz"] and s["type"] != 1)    # not a PT_LOAD
    data = bytearray(o.data)
    struct.pack_into("<Q", data, o.e_phoff + k * 56 + 8, 0x7FFFFFFF)
    err, peak = _peak(lambda: rw.rewrite_bytes(bytes(data), [rw.StripLLVM()], "p"))
    assert isinstance(err, ObjllvmError) and err.offset == o.e_phoff + k * 56
    assert f"program header {k}: segment contents" in err.message and "past the end of the file" in err.message
    assert peak < 4 << 20
    data = bytearray(o.data)
    struct.pack_into("<H", data, 0x36, 0xFFFF)       # e_phentsize
    err, _ = _peak(lambda: rw.rewrite_bytes(bytes(data), [rw.StripLLVM()], "p"))
    assert isinstance(err, ObjllvmError) and err.offset == 0x20 and "program header table" in err.message


def test_an_empty_section_past_the_end_keeps_its_offset_and_moves_nothing():
    """An empty section at sh_offset 2^60 (fuzz: 0xa362cf675d851100 went past sys.maxsize) has no bytes: its
    header keeps the offset, nothing else goes there, and the output is the input's size plus the edit."""
    data, o = _patched(RW / "main.o", a=(".note.GNU-stack", "offset", 1 << 60))
    out, _ = rw.rewrite_bytes(data, [rw.AddDeplib("pthread")], "e.o")
    new = ElfFile(out, "e.o")
    assert len(data) < len(out) < len(data) + 64
    assert next(s for s in new.sections if s.name == ".note.GNU-stack").offset == 1 << 60
    assert next(s for s in new.sections if s.name == ".deplibs").data() == b"m\0pthread\0"


def test_overlapping_sections_cannot_blow_up_the_output():
    """Nine kept sections each claiming the same 4 KB would each be copied: refused before anything is
    allocated, past twice the input's size plus the new contents, padding and the header table."""
    import struct
    o = open_object(str(RW / "main.o"))
    data = bytearray(o.data)
    idx = [s.index for s in o.sections if s.name.startswith(".debug_")]
    for i in idx:
        struct.pack_into("<QQ", data, o.e_shoff + i * 64 + 24, 64, o.e_shoff - 64)
    err, peak = _peak(lambda: rw.rewrite_bytes(bytes(data), [rw.AddDeplib("x")], "o.o"))
    assert isinstance(err, ObjllvmError), "rewrite did not refuse"
    assert err.section_index in idx and err.offset == 64 and "the most a rewrite of this" in err.message
    assert peak < 4 << 20
    # Two sections sharing bytes stay within the bound: written (each copied once).
    data = bytearray(o.data)
    struct.pack_into("<QQ", data, o.e_shoff + idx[0] * 64 + 24, 64, 200)
    out, _ = rw.rewrite_bytes(bytes(data), [rw.AddDeplib("x")], "o.o")
    s = ElfFile(out, "o.o").sections[idx[0]]
    assert s.size == 200 and out[s.offset:s.offset + 200] == bytes(data[64:264])


def test_an_edited_section_the_writer_drops_is_refused_cleanly():
    """.deplibs retyped SHT_GROUP: after --add-deplib its bytes read as a member list of removed sections, the
    writer dropped it, and Session.verify raised KeyError looking up its new index."""
    data, o = _patched(RW / "main.o", a=(".deplibs", "type", 17))
    i = next(s.index for s in o.sections if s.name == ".deplibs")
    with pytest.raises(ObjllvmError) as ei:
        rw.rewrite_bytes(data, [rw.AddDeplib("pthread")], "g.o")
    e = ei.value
    assert e.section_index == i and e.offset == o.e_shoff + i * 64 + 4
    assert "would be dropped by the writer as an SHT_GROUP section" in e.message and "nothing written" in e.message


def test_section_zero_size_is_zero_without_extended_numbering():
    """Section 0 with a stray sh_size (fuzz: 0xcbf in a 0xcc0-byte file) kept it, and the smaller output no
    longer opened ("section [0]: contents run past the end of the file").  Its sh_size is 0 unless it holds
    the extended section count."""
    import struct
    o = open_object(str(RW / "main.o"))
    data = bytearray(o.data)
    struct.pack_into("<Q", data, o.e_shoff + 32, len(data) - 1)
    out, _ = rw.rewrite_bytes(bytes(data), [rw.StripLLVM()], "z.o")
    new = ElfFile(out, "z.o")
    assert len(out) < len(data) - 1 and new.sections[0].size == 0


def _with_compressed_symtab(data: bytes, really: bool = True) -> bytes:
    """``data`` (an ELF64 little-endian object) whose .symtab is SHF_COMPRESSED: its bytes zlib-compressed
    behind an Elf64_Chdr at the end of the file (``really``), or only flagged so."""
    import struct
    import zlib
    o = ElfFile(data, "x")
    st = next(s for s in o.sections if s.type == 2)
    out = bytearray(data)
    hdr_at = o.e_shoff + st.index * 64
    if really:
        body = struct.pack("<IIQQ", 1, 0, st.size, 8) + zlib.compress(st.data())
        off = len(out) + (-len(out) % 8)
        out += bytes(off - len(out)) + body
        struct.pack_into("<QQ", out, hdr_at + 24, off, len(body))
    struct.pack_into("<Q", out, hdr_at + 8, st.flags | 0x800)
    return bytes(out)


def test_a_compressed_symbol_table_is_renumbered_decompressed_and_written_plain(tmp_path):
    """Symbols are renumbered from the decompressed table (not from the compressed bytes), and the table is
    then stored uncompressed; llvm-readobj-19 sees the same symbols as in the rewrite of the plain input."""
    src = (RW / "bbmap.o").read_bytes()
    plain, _ = rw.rewrite_bytes(src, [rw.StripLLVM()], "bbmap.o")
    packed, changes = rw.rewrite_bytes(_with_compressed_symtab(src), [rw.StripLLVM()], "bbmap-z.o")
    new = ElfFile(packed, "new")
    st = next(s for s in new.sections if s.type == 2)
    assert not st.flags & 0x800
    assert any(c.name == ".symtab" and c.action == "resized" and c.new_size == st.size for c in changes)
    assert [vars_of(s) for s in new.symbols] == [vars_of(s) for s in ElfFile(plain, "plain").symbols]
    a, b = tmp_path / "plain.o", tmp_path / "packed.o"
    a.write_bytes(plain)
    b.write_bytes(packed)
    assert readobj(a)["symbols"] == readobj(b)["symbols"] and readobj(a)["relocations"] == readobj(b)["relocations"]


def vars_of(sym):
    return (sym.name, sym.value, sym.size, sym.type, sym.bind, sym.shndx)


def test_a_symbol_table_flagged_compressed_but_not_is_refused_when_it_must_change():
    src = _with_compressed_symtab((RW / "bbmap.o").read_bytes(), really=False)
    with pytest.raises(ObjllvmError) as e:
        rw.rewrite_bytes(src, [rw.StripLLVM()], "bad.o")
    assert "section [" in str(e.value) and ".symtab" in str(e.value) and "compression type" in str(e.value)
    assert rw.rewrite_bytes(src, [], "bad.o")[0] == src        # nothing to renumber: a no-op is still identity


def test_bulk_removal_is_the_same_as_one_by_one():
    """remove_many (what --strip-llvm uses) gives the same sections, bytes and errors as remove() in turn."""
    n = 0
    for o in corpus_elf_objects():
        llvm = [s.index for s in api.llvm_sections(o) if not s.flags & 2]
        if not llvm:
            continue
        one, bulk = ElfWriter(o), ElfWriter(o)
        gone = sorted({i for x in llvm for i in one.remove(x)})
        assert bulk.remove_many(llvm) == gone, o.label
        assert bytes(one.removed_flags) == bytes(bulk.removed_flags)
        try:
            a = one.write()
        except ObjllvmError as exc:
            a = str(exc)
        try:
            b = bulk.write()
        except ObjllvmError as exc:
            b = str(exc)
        assert a == b, o.label
        n += 1
    assert n > 30


def _write_or_error(w):
    try:
        return w.write()
    except ObjllvmError as exc:
        return str(exc)


def test_relocations_renumbered_a_few_at_a_time_give_the_same_file(monkeypatch):
    """Relocation sections are renumbered in batches of about BATCH_BYTES: with two RELA entries at a time, every
    corpus file from which its LLVM sections (and, in turn, every third section) are removed gives the same bytes,
    or the same refusal."""
    import objllvm.formats.elfwrite.fixups as fixups
    cases = []
    for o in corpus_elf_objects():
        n = o.section_count
        llvm = [s.index for s in api.llvm_sections(o) if not s.flags & 2]
        for sel in (llvm, list(range(1, n, 3)), list(range(2, n, 3))):
            if sel:
                cases.append((o, sel))
    assert len(cases) > 100

    def outputs():
        out = []
        for o, sel in cases:
            w = _writer(o)
            w.remove_many(sel)
            out.append(_write_or_error(w))
        return out
    whole = outputs()
    assert sum(isinstance(x, bytes) for x in whole) > 50
    monkeypatch.setattr(fixups, "BATCH_BYTES", 48)
    assert outputs() == whole


def test_section_views_read_and_write_the_header_columns(tmp_path):
    o = open_object(str(RW / "main.o"))
    w = ElfWriter(o)
    i = w.index_of(".note.GNU-stack")
    v = w.sections[i]
    s = o.sections[i]
    assert (v.name, v.type, v.flags, v.offset, v.size, v.link, v.info, v.addralign, v.entsize, v.orig) == \
        (s.name, s.type, s.flags, s.offset, s.size, s.link, s.info, s.addralign, s.entsize, i)
    v.entsize = 7                       # an edit through the view reaches the header table written
    assert o.columns[9][i] == s.entsize          # (the reader's columns are not changed)
    new = ElfFile(w.write(), "new")
    assert new.sections[i].entsize == 7 and new.sections[i].name == ".note.GNU-stack"
    assert [x.name for x in w.sections[-2:]] == [x.name for x in o.sections[-2:]]
    with pytest.raises(IndexError):
        w.sections[len(o.sections)]


def test_names_found_in_the_name_table_are_those_a_scan_finds():
    names = (".llvmbc", ".llvmcmd", ".llvm.lto", ".text", ".deplibs", ".symtab", "nope")
    for o in corpus_elf_objects():
        want = [s.index for s in o.sections if s.name in names]
        assert o.indices_named(names) == want, o.label
        # each way: a search of the name table per name (a table of more than twice as many sections as names),
        # and each name the table uses looked up (names padded to more than half the sections)
        n = len(o.columns[0])
        padded = names + tuple(f"absent{k}" for k in range(n // 2 + 1))
        assert o.indices_named(padded) == want, o.label
        many = [s.index for s in o.sections if s.name in names + (".rela.text", ".strtab", "")]
        assert o.indices_named(names + (".rela.text", ".strtab", "")) == [i for i in many if o.sections[i].name], \
            o.label



def test_name_offsets_are_found_at_word_starts_only():
    """The sh_name column is a view of the header table: an offset is searched for in its words' bytes, and a match
    that straddles two words (0x01 in the bytes of 0x100 then 0x10000) is not a section; more than 64 matches take
    one pass over the column.  Checked against a scan of the column."""
    import sys
    from array import array
    o = open_object(str(RW / "main.o"))
    words = [0x100, 0x10000, 1, 7, 0x100, 1] + [9] * 70 + [0x1000000, 1]
    o.columns[0] = memoryview(array("I", words))
    for found in ({1}, {0x100}, {9}, {1, 7, 9}, {0x10000, 2}, {5}):
        want = [i for i, x in enumerate(words) if x in found]
        assert o._indices_of_offsets(set(found)) == want, (found, sys.byteorder)

def test_assembly_by_join_is_the_same_as_placing_each_chunk():
    """ElfWriter._assemble joins non-overlapping chunks; the result must be what placing every chunk in a
    zeroed buffer (later ones winning) and packing the header fields gives, empty and overlapping chunks
    included."""
    import random
    import struct
    rnd = random.Random(6)
    joined = 0
    for case in range(400):
        chunks, pos = [(0, bytes(rnd.randrange(256) for _ in range(64)))], 64
        for _ in range(rnd.randrange(12)):
            pos += rnd.choice([0, 0, 1, 7, 100, 5000])
            body = bytes(rnd.randrange(256) for _ in range(rnd.choice([0, 1, 3, 40])))
            if rnd.random() < 0.1:                      # sometimes one that overlaps what is before it
                chunks.append((max(0, pos - rnd.randrange(1, 70)), body))
            else:
                chunks.append((pos, body))
                pos += len(body)
        rest = chunks[1:]
        rnd.shuffle(rest)
        chunks = chunks[:1] + rest
        total = max(o + len(b) for o, b in chunks) + rnd.choice([0, 0, 9])
        head = (("<Q", 0x28, rnd.randrange(1 << 40)), ("<HH", 0x3C, 5, 7))
        want = bytearray(total)
        for o, b in chunks:
            want[o:o + len(b)] = b
        for fmt, off, *values in head:
            struct.pack_into(fmt, want, off, *values)
        assert ElfWriter._assemble(list(chunks), total, head) == bytes(want), case
        order = sorted(chunks, key=lambda c: c[0])
        joined += all(o >= p + len(b) or not b2 for (p, b), (o, b2) in zip(order, order[1:]))
    assert 100 < joined < 400         # both ways taken


# -- symbols defined in removed sections (relocatable objects) -----------------------------------------------

@pytest.mark.parametrize("ops", [["--strip-llvm"], ["--remove", "coverage"]])
def test_instrumented_object_rewritten_links_and_counts_as_before(tmp_path, ops):
    """prog-clang22.o (-fprofile-instr-generate -fcoverage-mapping): its __llvm_covfun sections define the
    __covrec_* signatures of their COMDAT groups.  Rewritten, the object loses them and the groups; linked with
    the profile runtime by clang-22/ld.lld-22 and run, it counts what the original build counted."""
    from conftest import run_objllvm
    cc = need_tool("clang-22")
    need_tool("ld.lld-22")
    profdata = need_tool("llvm-profdata-22")
    src = TESTDATA / "profile" / "prog-clang22.o"
    out = tmp_path / "prog.o"
    rc, _out, err = run_objllvm("rewrite", *ops, str(src), "-o", str(out))
    assert rc == 0, err
    o, new = ElfFile(src.read_bytes(), str(src)), ElfFile(out.read_bytes(), str(out))
    covrec = [x.name for x in o.symbols if x.name.startswith("__covrec_")]
    assert len(covrec) == 8
    assert not [x for x in new.symbols if x.name.startswith("__covrec_")]
    assert not [s for s in new.sections if s.name.startswith("__llvm_cov")]
    assert sum(s.type == 17 for s in new.sections) == sum(s.type == 17 for s in o.sections) - len(covrec)
    # the kept symbols, in order, locals first (sh_info: the first global)
    keep = [(x.name, x.bind, x.type) for x in o.symbols if not x.name.startswith("__covrec_") and
            not (x.type == 3 and o.sections[x.shndx].name.startswith("__llvm_cov"))]
    assert [(x.name, x.bind, x.type) for x in new.symbols] == keep
    symtab = next(s for s in new.sections if s.type == 2)
    assert symtab.info == sum(x.bind == 0 for x in new.symbols) and all(x.bind == 0 for x in new.symbols[:symtab.info])
    p = subprocess.run([need_tool("llvm-readobj-22"), "--sections", "--symbols", "--relocations", "--section-groups",
                        "--addrsig", str(out)], capture_output=True, text=True)
    assert p.returncode == 0 and "warning" not in p.stderr.lower(), p.stderr
    exe = tmp_path / "prog"
    p = subprocess.run([cc, "-fprofile-instr-generate", "-fuse-ld=lld", f"--ld-path={need_tool('ld.lld-22')}",
                        str(out), "-o", str(exe)], capture_output=True, text=True)
    assert p.returncode == 0 and "warning" not in p.stderr, p.stderr
    raw = tmp_path / "prog.profraw"
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=30,
                         env={"LLVM_PROFILE_FILE": str(raw), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
    show = subprocess.run([profdata, "show", "--all-functions", "--counts", str(raw)], capture_output=True,
                          text=True)
    assert show.returncode == 0, show.stderr
    assert show.stdout == (TESTDATA / "profile" / "prog-clang22.profdata-show-22.txt").read_text()


_YAML = """--- !ELF
FileHeader: {Class: ELFCLASS64, Data: ELFDATA2LSB, Type: ET_REL, Machine: EM_X86_64}
Sections:
  - {Name: .text.a, Type: SHT_PROGBITS, Flags: [SHF_ALLOC, SHF_EXECINSTR, SHF_GROUP], Content: "c3"}
  - {Name: .data.a, Type: SHT_PROGBITS, Flags: [SHF_ALLOC, SHF_WRITE, SHF_GROUP], Content: "0000000000000000"}
  - {Name: .group, Type: SHT_GROUP, Link: .symtab, Info: a, Members: [{SectionOrType: GRP_COMDAT},
     {SectionOrType: .text.a}, {SectionOrType: .data.a}]}
  - {Name: .text.b, Type: SHT_PROGBITS, Flags: [SHF_ALLOC, SHF_EXECINSTR], Content: "c3"}
  - {Name: .text.c, Type: SHT_PROGBITS, Flags: [SHF_ALLOC, SHF_EXECINSTR], Content: "c3"}
  - {Name: .data, Type: SHT_PROGBITS, Flags: [SHF_ALLOC, SHF_WRITE], Content: "00000000000000000000000000000000"}
  - {Name: .rela.data, Type: %s, Flags: [SHF_INFO_LINK], Link: .symtab, Info: .data,
     Relocations: [{Offset: 0, Symbol: b, Type: R_X86_64_64}, {Offset: 8, Symbol: z, Type: R_X86_64_64}]}
  - {Name: .llvm_addrsig, Type: SHT_LLVM_ADDRSIG, Link: .symtab, Symbols: [c, b, z, a]}
Symbols:
  - {Name: lc, Section: .text.c, Binding: STB_LOCAL}
  - {Name: a, Section: .text.a, Binding: STB_WEAK}
  - {Name: b, Section: .text.b, Binding: STB_GLOBAL}
  - {Name: c, Section: .text.c, Binding: STB_GLOBAL}
  - {Name: z, Binding: STB_GLOBAL}
"""


def _yaml_obj(tmp_path, rel="SHT_RELA"):
    y = tmp_path / "in.yaml"
    y.write_text(_YAML % rel)
    out = tmp_path / "in.o"
    p = subprocess.run([need_tool("yaml2obj-22"), str(y), "-o", str(out)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return ElfFile(out.read_bytes(), str(out))


def test_dropping_symbols_renumbers_relocations_and_addrsig_and_refuses_what_still_uses_them(tmp_path):
    o = _yaml_obj(tmp_path)
    names = [x.name for x in o.symbols]
    # .text.c defines the local 'lc' and the global 'c' (in .llvm_addrsig): both go, the rest is renumbered
    w = _writer(o)
    w.remove(w.index_of(".text.c"))
    out = tmp_path / "out.o"
    out.write_bytes(w.write())
    new = ElfFile(out.read_bytes(), str(out))
    assert [x.name for x in new.symbols] == [n for n in names if n not in ("lc", "c")]
    assert next(s for s in new.sections if s.type == 2).info == 1        # no local left but the null symbol
    rela = next(s for s in new.sections if s.name == ".rela.data")
    assert [r.symbol.name for r in new.read_relocations(rela)] == ["b", "z"]
    assert _addrsig_names(new) == [("b", 0, ".text.b"), ("z", 0, 0), ("a", 0, ".text.a")]
    p = subprocess.run([need_tool("llvm-readobj-22"), "--section-groups", "--relocations", "--addrsig",
                        "--symbols", str(out)], capture_output=True, text=True)
    assert p.returncode == 0 and "warning" not in p.stderr.lower(), p.stderr
    assert "Signature: a" in p.stdout
    # 'b' is used by a kept relocation: refused, naming the symbol, its section and the relocation section
    w = _writer(o)
    w.remove(w.index_of(".text.b"))
    with pytest.raises(ObjllvmError, match=r"symbol 'b' \(index \d\) is defined in section \[\d\] \.text\.b, "
                                           r"which would be removed, but kept relocation section \[\d\] \.rela\.data"):
        w.write()
    # 'a' is the signature of a group that keeps .data.a
    w = _writer(o)
    w.remove(w.index_of(".text.a"))
    with pytest.raises(ObjllvmError, match=r"symbol 'a' .* the signature of kept group \[\d\] \.group"):
        w.write()
    # both members gone: the group goes with its signature
    w = _writer(o)
    w.remove_many([w.index_of(".text.a"), w.index_of(".data.a")])
    new = ElfFile(w.write(), "x")
    assert not [s for s in new.sections if s.type == 17] and "a" not in [x.name for x in new.symbols]


def test_dropping_symbols_keeps_a_relocation_symbol_index_past_the_table(tmp_path):
    """A relocation naming an index past the symbol table (a damaged object) keeps it; the others are renumbered."""
    o = _yaml_obj(tmp_path)
    rela = next(s for s in o.sections if s.name == ".rela.data")
    nsyms = len(o.symbols)
    data = bytearray(o.data)
    struct.pack_into("<I", data, rela.offset + 12, nsyms + 5)       # the first entry's r_sym
    o = ElfFile(bytes(data), "past.o")
    before = [struct.unpack_from("<I", data, rela.offset + 24 * k + 12)[0] for k in range(rela.size // 24)]
    w = _writer(o)
    w.remove(w.index_of(".text.c"))         # drops 'lc' and 'c': the symbols after them move down by two
    new = ElfFile(w.write(), "x")
    r = next(s for s in new.sections if s.name == ".rela.data")
    after = [struct.unpack_from("<I", new.data, r.offset + 24 * k + 12)[0] for k in range(r.size // 24)]
    names = [x.name for x in o.symbols]
    moved = [k - sum(1 for n in names[:k] if n in ("lc", "c")) for k in before[1:]]
    assert after == [nsyms + 5] + moved and moved != before[1:]


def test_dropping_symbols_with_crel_relocations_is_refused(tmp_path):
    o = _yaml_obj(tmp_path, "SHT_CREL")
    w = ElfWriter(o)
    w.remove(w.index_of(".text.c"))
    with pytest.raises(ObjllvmError, match="cannot renumber the symbols of SHT_CREL relocations"):
        w.write()


def test_an_executable_still_refuses_to_drop_a_symbol(tmp_path):
    o = _yaml_obj(tmp_path)
    data = bytearray(o.data)
    data[16:18] = (2).to_bytes(2, "little")          # ET_EXEC: symbols are not dropped there
    w = ElfWriter(ElfFile(bytes(data), "exec"))
    w.remove(w.index_of(".text.c"))
    with pytest.raises(ObjllvmError, match="the symbol would dangle"):
        w.write()


def test_dropping_symbols_keeps_extended_indices_right(tmp_path):
    """xindex.o: data_sym's section index is in SHT_SYMTAB_SHNDX, and comes before text_sym, defined in the
    removed .text: the table is renumbered from the indices as read, like llvm-objcopy-19 does it."""
    src = RW / "xindex.o"
    o = open_object(str(src))
    w = ElfWriter(o)
    w.remove(w.index_of(".text"))
    dst = tmp_path / "x.o"
    dst.write_bytes(w.write())
    new = open_object(str(dst))
    assert [x.name for x in new.symbols] == ["", "data_sym", "undef_sym"]
    assert new.sections[next(x for x in new.symbols if x.name == "data_sym").shndx].name == ".data"
    shndx = next(s for s in new.sections if s.type == 18)
    assert shndx.size == 4 * len(new.symbols)
    ref = tmp_path / "objcopy.o"
    p = subprocess.run([need_tool("llvm-objcopy-19"), "--remove-section=.text", str(src), str(ref)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert _view(dst)[1] == _view(ref)[1]
    readobj(dst)            # llvm-readobj-19 reads it without a warning


def test_dropping_symbols_renumbers_an_llvm12_call_graph_profile(tmp_path):
    """The LLVM <= 12 call-graph profile (type 0x6fff4c02) holds symbol indices itself: renumbered; an edge
    naming a dropped symbol is refused."""
    def obj(edges):
        y = tmp_path / "cg.yaml"
        # symbols: 1 lc (.text.c, local), 2 a, 3 b, 4 c (.text.c), 5 z
        content = b"".join(struct.pack("<IIQ", f, t, w) for f, t, w in edges).hex()
        y.write_text((_YAML % "SHT_RELA").replace(
            "Symbols:\n  - {Name: lc",
            f"  - {{Name: .llvm.call-graph-profile, Type: 0x6FFF4C02, Link: .symtab, EntSize: 16, "
            f"Content: \"{content}\"}}\nSymbols:\n  - {{Name: lc"))
        out = tmp_path / "cg.o"
        p = subprocess.run([need_tool("yaml2obj-22"), str(y), "-o", str(out)], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        return ElfFile(out.read_bytes(), str(out))
    o = obj([(3, 5, 7), (2, 3, 9)])           # b -> z, a -> b
    cg = next(s for s in o.sections if s.type == 0x6FFF4C02)
    assert cg.data()[:8] == bytes([3, 0, 0, 0, 5, 0, 0, 0])
    w = _writer(o)
    w.remove(w.index_of(".text.c"))           # lc (1) and c (4) go: a 2 -> 1, b 3 -> 2, z 5 -> 3
    new = ElfFile(w.write(), "x")
    assert [x.name for x in new.symbols] == ["", "a", "b", "z"]
    cg = next(s for s in new.sections if s.type == 0x6FFF4C02)
    assert [(f, t, wt) for f, t, wt in struct.iter_unpack("<IIQ", cg.data())] == [(2, 3, 7), (1, 2, 9)]
    o = obj([(4, 3, 1)])                       # c -> b: c cannot go
    w = _writer(o)
    w.remove(w.index_of(".text.c"))
    with pytest.raises(ObjllvmError, match=r"symbol 'c' .* call-graph profile edge in \[\d+\] \.llvm\.call-graph-profile"):
        w.write()


_COPIES: list = []          # (index, input offset) of every part a writer named as a run of its input, in _outcome


def _outcome(w):
    """What a write gives: the bytes, the size and header table offset it reports and the moves; or the refusal.
    Every part the writer names as a run of the input (``out_copies``, for the kernel to copy from the input
    file) holds those bytes of the input."""
    try:
        parts = w.write_parts()
    except ObjllvmError as exc:
        return str(exc)
    assert parts is w.out_parts
    copies = w.out_copies
    assert [i for i, _ in copies] == sorted({i for i, _ in copies}), copies
    for i, off in copies:
        n = len(parts[i])
        assert n and bytes(parts[i]) == bytes(w.data[off:off + n]), (i, off, n)
    _COPIES.extend(copies)
    return b"".join(parts), w.out_size, w.out_shoff, w.moves


def test_parts_named_as_runs_of_the_input_hold_its_bytes(monkeypatch):
    """Every corpus file with its LLVM sections, every third section, or a random set removed, some sections given new
    contents or a section added: each part the writer names as a run of the input (``out_copies``, for the kernel to
    copy from the input file) holds those bytes of the input (_outcome checks it), the ELF header's run (its first
    bytes patched) among them, and the output reads."""
    import random

    import objllvm.formats.elfwrite.common as common
    cases = []
    for o in corpus_elf_objects():
        n = o.section_count
        rnd = random.Random(o.label)
        llvm = [s.index for s in api.llvm_sections(o) if not s.flags & 2]
        sels = [llvm, list(range(1, n, 3)), list(range(2, n, 3))]
        if n > 2:
            sels.append(sorted(rnd.sample(range(1, n), rnd.randint(1, n - 1))))
        for k, sel in enumerate(sels):
            edits = []
            if k == 3:
                edits.append(("set", rnd.randrange(1, n), b"xyz" * rnd.randrange(0, 5)))
                edits.append(("add", rnd.randrange(1, 9), 1 << rnd.randrange(0, 5)))
            if sel or edits:
                cases.append((o, sel, edits))
    assert len(cases) > 150
    # every run of the input named as one (the committed files are small)
    monkeypatch.setattr(common, "SEND_MIN", 1)
    _COPIES.clear()
    written = 0
    for o, sel, edits in cases:
        w = _writer(o)
        try:
            for what, a, b in edits:
                if what == "set":
                    w.set_content(a, b)
                else:
                    w.add_section(f".added{a}", 1, b"q" * a, addralign=b)
            w.remove_many(sel)
        except ObjllvmError:
            continue
        got = _outcome(w)
        if not isinstance(got, str):
            ElfFile(got[0], "out")
            written += 1
    assert written > 100
    assert len(_COPIES) > 300 and any(i == 1 and off in (52, 64) for i, off in _COPIES), len(_COPIES)


def test_alignments_of_zero_or_out_of_range_when_placing(monkeypatch):
    """Placing a relocatable object's sections: a few or many sections of sh_addralign 0 are placed as alignment 1,
    one of 3 (not a power of two) or one past the file is refused; each kept section moved to a new offset sits at
    its alignment and holds its bytes."""
    data = (TESTDATA / "profile" / "rust.o").read_bytes()
    o = ElfFile(data, "rust.o")
    llvm = [s.index for s in api.llvm_sections(o) if not s.flags & 2]
    kept = [i for i in range(1, o.section_count) if i not in llvm and o.columns[5][i] and o.columns[1][i] != 8]
    assert o.section_count > 100 and kept
    every = range(1, o.section_count)
    variants = {"few zeros": [(i, 0) for i in every[:5]], "many zeros": [(i, 0) for i in every[:90]],
                "not a power of two": [(kept[-1], 3)], "past the file": [(kept[-1], 1 << 40)]}
    for what, aligns in variants.items():
        d = data
        for i, a in aligns:
            d = _with_alignment(d, i, a)
        src = ElfFile(d, "rust.o")
        w = ElfWriter(src)
        w.remove_many(llvm)
        got = _outcome(w)
        assert isinstance(got, str) == (what in ("not a power of two", "past the file")), (what, got)
        if isinstance(got, str):
            assert "sh_addralign" in got
            continue
        new = ElfFile(got[0], "out")
        by_name = {}
        for s in src.sections[1:]:
            if not w.is_removed(s.index) and s.type not in (2, 17) and s.type != 8:
                by_name.setdefault(s.name, []).append(s)
        moved = 0
        for s in new.sections[1:]:
            olds = by_name.get(s.name)
            if not olds or s.type in (4, 9):
                continue
            old = olds.pop(0)
            a = max(old.addralign, 1)
            assert s.offset % a == 0 and s.data() == old.data(), (what, s.name)
            moved += s.offset != old.offset
        assert moved > 10, what


def _with_alignment(data: bytes, index: int, align: int) -> bytes:
    """``data`` (an ELF file) with section ``index``'s sh_addralign set to ``align``."""
    o = ElfFile(data, "x")
    out = bytearray(data)
    at = o.e_shoff + index * o._shdr.size + (48 if o.is64 else 32)
    struct.pack_into(o.endian + ("Q" if o.is64 else "I"), out, at, align)
    return bytes(out)


def test_strip_llvm_of_an_instrumented_object_drops_its_symbols(tmp_path):
    """--strip-llvm of an instrumented object (ELF64 and ELF32, both byte orders): its __covrec_* symbols are dropped
    (relocations, groups' signatures and the symbol table renumbered); the result is what llvm-objcopy-19 makes when
    it removes the same sections (sections, relocations by symbol name, symbols), and llvm-readobj-22 reads it without
    a warning."""
    objcopy = need_tool("llvm-objcopy-19")
    for name in ("prog-clang22.o", "prog-clang19.o", "prog-nocompress.o", "rust.o", "prog-i386.o", "prog-ppc64be.o"):
        src = TESTDATA / "profile" / name
        data = src.read_bytes()
        out, changes = rw.rewrite_bytes(data, [rw.StripLLVM()], name)
        o = ElfFile(data, name)
        new = ElfFile(out, name)
        assert len(new.symbols) < len(o.symbols), name       # (symbols were dropped)
        assert not [x for x in new.symbols if x.name.startswith("__covrec_")], name
        dst = tmp_path / name
        dst.write_bytes(out)
        gone = sorted({s.name for s in api.llvm_sections(o) if not s.flags & 2})     # (objcopy drops emptied groups)
        ref = tmp_path / ("objcopy-" + name)
        p = subprocess.run([objcopy] + [f"--remove-section={g}" for g in gone] + [str(src), str(ref)],
                           capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        assert _view(dst) == _view(ref), name
        r = subprocess.run([need_tool("llvm-readobj-22"), "--relocations", "--symbols", "--section-groups", str(dst)],
                           capture_output=True, text=True)
        assert r.returncode == 0 and "warning" not in r.stderr.lower(), (name, r.stderr)


def _synthetic_object(specs, table_at, gaps, tail=0):
    """An ELF64 little-endian relocatable object: section 1 the name table, then one section per ``specs``
    ((sh_type, size, sh_addralign, misalign)) in the file in that order, ``gaps[k]`` bytes of padding (0xEE)
    before the k-th, each at an offset rounded up to its alignment unless ``misalign``; the section header table
    after the ``table_at``-th; ``tail`` bytes (0xAA) after everything."""
    n = len(specs) + 2
    names = b"\0.shstrtab\0" + b"".join(b".s%d\0" % k for k in range(len(specs)))
    out = bytearray(64)
    rows = [(0, 0, 0, 0, 0, 0, 0, 0, 0, 0)]
    shoff = None
    out += names
    rows.append((1, 3, 0, 0, 64, len(names), 0, 0, 1, 0))
    name_off = 11
    for k, (t, size, align, misalign) in enumerate(specs):
        if k == table_at:
            out += bytes(-len(out) % 8)
            shoff = len(out)
            out += bytes(64 * n)
        out += b"\xee" * gaps[k]
        if align > 1 and not misalign:
            out += b"\xee" * (-len(out) % align)
        off = len(out)
        if t != 8:
            out += bytes((k * 7 + j) % 251 + 1 for j in range(size))
        rows.append((name_off, t, 0, 0, off, size, 0, 0, align, 0))
        name_off += len(b".s%d\0" % k)
    if shoff is None:
        out += bytes(-len(out) % 8)
        shoff = len(out)
        out += bytes(64 * n)
    for k, r in enumerate(rows):
        struct.pack_into("<IIQQQQIIQQ", out, shoff + 64 * k, *r)
    struct.pack_into("<16sHHIQQQIHHHHHH", out, 0, b"\x7fELF\x02\x01\x01" + bytes(9), 1, 62, 1, 0, 0, shoff, 0, 64,
                     0, 0, 64, n, 1)
    return bytes(out) + b"\xaa" * tail


def _check_layout(src, w, got, bodies):
    """What any layout of a relocatable object must give: every kept section (in index order, less the removed) with
    its bytes (or its new contents), at an offset that honours its alignment, none overlapping another; the header
    table inside the file."""
    new = ElfFile(got[0], "out")
    kept = [s for s in src.sections[1:] if not w.is_removed(s.index)]
    assert [s.name for s in new.sections[1:]] == [s.name for s in kept]
    spans = []
    for s, t in zip(kept, new.sections[1:]):
        want = bodies.get(s.index, s.data() if s.type != 8 else b"")
        assert t.size == (len(want) if s.type != 8 else s.size)
        if s.type != 8:
            assert t.data() == want, s.name
            if t.size:
                spans.append((t.offset, t.offset + t.size))
        if t.offset != s.offset and s.addralign > 1:
            assert t.offset % s.addralign == 0, s.name
    spans.sort()
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])), spans
    assert new.e_shoff + len(new.sections) * 64 <= len(got[0])


def test_layout_of_synthetic_objects(monkeypatch):
    """The layout of a relocatable object on made-up inputs: sections of every size (none, SHT_NOBITS), alignment (0,
    1, powers of two, one that is not, one past the file) and padding, placed at their alignment or not, the header
    table anywhere among them, bytes after everything or not; random removals and new contents of any size.  Each
    output holds every kept section's bytes at its alignment, none overlapping (_check_layout), with every run the
    writer names holding the input's bytes (_outcome); a refusal names the alignment."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    import objllvm.formats.elfwrite.common as common

    spec = st.tuples(st.sampled_from([1, 1, 1, 8]), st.sampled_from([0, 0, 1, 3, 5, 8, 16, 21, 40]),
                     st.sampled_from([0, 1, 1, 2, 4, 8, 16, 16, 32, 3, 1 << 20]),
                     st.integers(0, 5).map(lambda x: x == 0))

    def run(o, removed, bodies):
        try:
            w = ElfWriter(o)
            for i, size in bodies:
                w.set_content(i, bytes([i]) * size)
            w.remove_many(removed)
            got = _outcome(w)
        except ObjllvmError as exc:
            got = str(exc)
        if isinstance(got, str):
            assert "sh_addralign" in got or "SHT_NOBITS section has no contents" in got, got
            return False
        _check_layout(o, w, got, {i: bytes([i]) * size for i, size in bodies})
        return True

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                        HealthCheck.function_scoped_fixture])
    @given(st.lists(spec, min_size=1, max_size=14), st.data())
    def check(specs, data):
        m = len(specs)
        table_at = data.draw(st.integers(0, m))
        gaps = data.draw(st.lists(st.sampled_from([0, 0, 0, 1, 3, 8, 17]), min_size=m, max_size=m))
        raw = _synthetic_object(specs, table_at, gaps, data.draw(st.sampled_from([0, 0, 5])))
        removed = data.draw(st.lists(st.integers(2, m + 1), max_size=m, unique=True))
        bodies = data.draw(st.lists(st.tuples(st.integers(2, m + 1), st.sampled_from([0, 1, 5, 16, 50])), max_size=4,
                                    unique_by=lambda x: x[0]))
        run(ElfFile(raw, "synthetic.o"), removed, bodies)
    monkeypatch.setattr(common, "SEND_MIN", 1)      # (every run of the input named: _outcome checks their bytes)
    # Made by hand: after a removed section, an empty one whose alignment moves the output on, then padding and
    # new contents (the padding is not part of the run before it); a section past its alignment; the table first.
    for specs, table_at, gaps, removed, bodies in (
            ([(1, 5, 1, False), (1, 16, 1, False), (1, 0, 16, False), (1, 8, 1, False)], 4, [0, 0, 0, 8], [2],
             [(5, 8)]),
            ([(1, 5, 1, False), (1, 16, 1, False), (1, 0, 16, False), (1, 8, 1, False)], 4, [0, 0, 0, 8], [2], []),
            ([(1, 7, 8, True), (1, 9, 16, False), (8, 4, 4, False), (1, 3, 32, True)], 0, [1, 3, 0, 17], [3], [])):
        assert run(ElfFile(_synthetic_object(specs, table_at, gaps), "made.o"), removed, bodies), specs
    check()


def test_extended_symbol_indices_move_with_their_sections():
    """A symbol whose section index is in SHT_SYMTAB_SHNDX (testdata/rewrite/xindex.o: data_sym, in .data through
    an extended index): removing a section before .data moves that word; removing .symtab_shndx is refused (data_sym
    would lose its section); every other single removal either is refused or leaves data_sym in .data."""
    data = (TESTDATA / "rewrite" / "xindex.o").read_bytes()
    o = ElfFile(data, "xindex.o")
    deplibs = o.section_by_name(".deplibs").index
    w = ElfWriter(o)
    w.remove_many([deplibs])
    new = ElfFile(w.write(), "out")
    sym = next(s for s in new.symbols if s.name == "data_sym")
    assert sym.shndx == new.section_by_name(".data").index == o.section_by_name(".data").index - 1
    w = ElfWriter(o)
    w.remove(o.section_by_name(".symtab_shndx").index)
    with pytest.raises(ObjllvmError, match=r"\.symtab_shndx: this SHT_SYMTAB_SHNDX table holds the section indices of symbols of section \[\d\] "
                                           r"\.symtab .* they would lose their sections \(refused\)"):
        w.write()
    written = 0
    for k in range(1, o.section_count):
        w = ElfWriter(o)
        try:
            w.remove_many([k])
            new = ElfFile(w.write(), "out")
        except ObjllvmError:
            continue
        if o.section_name(k) != ".data":
            sym = next(s for s in new.symbols if s.name == "data_sym")
            assert new.sections[sym.shndx].name == ".data", o.section_name(k)
            written += 1
    assert written == 2          # (.text and .deplibs)


def test_dropped_flags_answer_as_the_set():
    """Flagged (one flag byte per index) answers membership, isdisjoint, intersection and flags_of as a set of the
    flagged indices does, past-the-table and negative values included."""
    import random

    from objllvm.formats.elfwrite.common import Flagged
    rnd = random.Random(11)
    for trial in range(300):
        nsyms = rnd.randrange(2, 400)
        gone = bytearray(rnd.random() < rnd.choice([0.02, 0.2]) for _ in range(nsyms))
        gone[0] = 0
        dropped = {i for i in range(nsyms) if gone[i]}
        d = Flagged(bytes(gone))
        assert bool(d) == bool(dropped) and d.low == (min(dropped) if dropped else -1)
        values = [rnd.randrange(nsyms) for _ in range(rnd.choice([1, 3, nsyms // 2 + 1]))]
        probe = values + [nsyms, nsyms + 3, -1] * (trial % 2)
        assert [x in d for x in probe] == [x in dropped for x in probe]
        assert d.isdisjoint(probe) == dropped.isdisjoint(probe)
        assert d.isdisjoint(iter(values)) == dropped.isdisjoint(values)
        assert d.intersection(probe) == dropped.intersection(probe)
        assert list(d.flags_of(probe)) == [int(x in dropped) for x in probe]


def _many_sections_object(pairs, xindex_words_clean=True):
    """An ELF64 little-endian relocatable object of 7 + 2 * ``pairs`` sections (extended numbering past 65,279):
    .shstrtab, .strtab, .symtab, .symtab_shndx, .text and its .rela.text, then ``pairs`` times a "keep" and a "drop"
    section (unallocated PROGBITS), a global symbol k<i> in each keep and a weak one d<i> in each drop (through
    SHT_SYMTAB_SHNDX where the index is past SHN_LORESERVE), and relocations in .rela.text naming some k<i>.
    ``xindex_words_clean`` False: the SHT_SYMTAB_SHNDX word of one symbol without SHN_XINDEX is not 0."""
    n = 7 + 2 * pairs
    shstr = b"\0.shstrtab\0.strtab\0.symtab\0.symtab_shndx\0.text\0.rela.text\0keep\0drop\0"
    off = {name: shstr.index(name.encode() + b"\0") for name in
           (".shstrtab", ".strtab", ".symtab", ".symtab_shndx", ".text", ".rela.text", "keep", "drop")}
    strtab = bytearray(b"\0file\0")
    syms = [(0, 0, 0, 0), (1, 0x04, 0xFFF1, 0)]       # null, FILE (SHN_ABS)
    xwords = [0, 0]
    names = {}
    for i in range(pairs):
        for sec, nm, info in ((7 + 2 * i, f"k{i}", 0x12), (8 + 2 * i, f"d{i}", 0x21)):
            names[nm] = len(syms)
            syms.append((len(strtab), info, sec if sec < 0xFF00 else 0xFFFF, 0))
            xwords.append(sec if sec >= 0xFF00 else 0)
            strtab += nm.encode() + b"\0"
    if not xindex_words_clean:
        xwords[1] = 5
    symtab = b"".join(struct.pack("<IBBHQQ", nm, info, 0, shndx, v, 0) for nm, info, shndx, v in syms)
    shndx = struct.pack(f"<{len(xwords)}I", *xwords)
    used = [f"k{i}" for i in range(0, pairs, max(1, pairs // 40))] + [f"k{pairs - 1}"]
    rela = b"".join(struct.pack("<QQq", 4 * j, (names[u] << 32) | 1, j) for j, u in enumerate(used))
    text = bytes(range(16))
    body = bytearray(64)
    placed = {}
    for key, blob, align in (("shstr", shstr, 1), ("strtab", bytes(strtab), 1), ("text", text, 16),
                             ("keepdrop", bytes(range(8)) * 2 * pairs, 1), ("symtab", symtab, 8),
                             ("shndx", shndx, 4), ("rela", rela, 8)):
        body += bytes(-len(body) % align)
        placed[key] = len(body)
        body += blob
    body += bytes(-len(body) % 8)
    shoff = len(body)
    rows = [(0, 0, 0, 0, 0, n, 1, 0, 0, 0),
            (off[".shstrtab"], 3, 0, 0, placed["shstr"], len(shstr), 0, 0, 1, 0),
            (off[".strtab"], 3, 0, 0, placed["strtab"], len(strtab), 0, 0, 1, 0),
            (off[".symtab"], 2, 0, 0, placed["symtab"], len(symtab), 2, 2, 8, 24),
            (off[".symtab_shndx"], 18, 0, 0, placed["shndx"], len(shndx), 3, 0, 4, 4),
            (off[".text"], 1, 6, 0, placed["text"], 16, 0, 0, 16, 0),
            (off[".rela.text"], 4, 0x40, 0, placed["rela"], len(rela), 3, 5, 8, 24)]
    for i in range(pairs):
        rows.append((off["keep"], 1, 0, 0, placed["keepdrop"] + 16 * i, 8, 0, 0, 1, 0))
        rows.append((off["drop"], 1, 0, 0, placed["keepdrop"] + 16 * i + 8, 8, 0, 0, 1, 0))
    body += b"".join(struct.pack("<IIQQQQIIQQ", *r) for r in rows)
    struct.pack_into("<16sHHIQQQIHHHHHH", body, 0, b"\x7fELF\x02\x01\x01" + bytes(9), 1, 62, 1, 0, 0, shoff, 0,
                     64, 0, 0, 64, 0, 0xFFFF)
    return bytes(body), used


def test_dropping_symbols_of_an_object_with_extended_numbering():
    """An object of more than 65,279 sections whose symbols past SHN_LORESERVE are in SHT_SYMTAB_SHNDX: removing every
    "drop" section (or every third, or the last) drops their symbols (the table renumbered, relocations and
    SHT_SYMTAB_SHNDX words too); the reader finds each kept symbol in a "keep" section and each relocation naming the
    symbol it named.  Removing a "keep" section whose symbol a relocation uses is refused; so is nothing else, with a
    SHT_SYMTAB_SHNDX word that is not 0 where st_shndx is not SHN_XINDEX."""
    for clean in (True, False):
        data, used = _many_sections_object(32700, clean)
        o = ElfFile(data, "many.o")
        assert o.section_count == 7 + 2 * 32700 > 0xFF00
        drops = [i for i in range(7, o.section_count) if o.section_name(i) == "drop"]
        for sel in ((drops, drops[::3], [o.section_count - 1], [7]) if clean else (drops,)):
            w = ElfWriter(o)
            w.remove_many(sel)
            try:
                out = w.write()
            except ObjllvmError as exc:
                out = str(exc)
            if sel == [7]:          # (k0, used by a relocation, would dangle)
                assert "symbol 'k0' (index 2) is defined in section [7] keep" in out and "refused" in out
                continue
            new = ElfFile(out, "new.o")
            kept = [s for s in new.symbols if s.name.startswith(("k", "d"))]
            gone = {("k" if i % 2 else "d") + str((i - 7) // 2) for i in sel}
            assert {s.name for s in kept} == {s.name for s in o.symbols if s.name.startswith(("k", "d"))} - gone
            assert all(new.section_name(s.shndx) == ("keep" if s.name[0] == "k" else "drop") for s in kept)
            text = new.section_by_name(".text")
            assert [new.symbols[r.sym].name for r in new.relocations_for(text)] == [u for u in used if u not in gone]


RELRO_TAIL = TESTDATA / "rewrite-relro" / "relro-tail.pie"


def _functions(path) -> list:
    nm = need_tool("llvm-nm-22")
    out = subprocess.run([nm, "--defined-only", str(path)], capture_output=True, text=True, check=True).stdout
    return sorted(line.split()[-1] for line in out.splitlines() if " T fn_" in line)


@pytest.mark.parametrize("ops", [[], ["--remove", ".comment"], ["--strip-llvm"]])
def test_a_segment_ending_inside_a_section_keeps_the_whole_section(tmp_path, ops):
    """relro-tail.pie (scripts/testdata.d/72-rewrite-relro.sh): its PT_GNU_RELRO file range ends inside .symtab,
    as in rustup's rustc.  The whole symbol table is kept, at its offset: llvm-nm-22 lists the 100 functions."""
    from conftest import run_objllvm
    src = ElfFile(RELRO_TAIL.read_bytes(), str(RELRO_TAIL))
    relro = [s for s in src.segments if s["type"] == 0x6474E552][0]
    symtab = src.sections[[s.name for s in src.sections].index(".symtab")]
    assert symtab.offset < relro["offset"] + relro["filesz"] < symtab.offset + symtab.size
    assert len(_functions(RELRO_TAIL)) == 100
    out = tmp_path / "out"
    rc, _, err = run_objllvm("rewrite", RELRO_TAIL, "-o", out, *ops)
    assert rc == 0, err
    data = out.read_bytes()
    if not ops:
        assert data == src.data
    new = ElfFile(data, str(out))
    nsym = new.sections[[s.name for s in new.sections].index(".symtab")]
    assert (nsym.offset, nsym.data()) == (symtab.offset, symtab.data())
    assert _functions(out) == _functions(RELRO_TAIL)


def test_a_renumberer_is_given_the_contents_and_the_new_symbol_indices(tmp_path):
    """The writer never decodes a section's contents: a section that links to the symbol table gets what the caller's
    renumberer makes of its bytes when symbols are dropped (the mapping old -> new, -1 for a dropped one), and
    nothing else touches it; without a renumberer it is kept as it is.  A renumberer's LookupError refuses the
    rewrite, naming the symbol and the section; its DecodeError is located in the section."""
    from objllvm.errors import DecodeError
    o = _yaml_obj(tmp_path)
    sig = next(s for s in o.sections if s.type == SHT_LLVM_ADDRSIG)
    names = [x.name for x in o.symbols]
    w = ElfWriter(o)
    assert sig.index in w.symbol_index_users()
    seen = []
    w.set_symbol_renumberer(sig.index, lambda data, mapping: seen.append((bytes(data), list(mapping))) or b"new!")
    w.remove(w.index_of(".text.c"))
    new = ElfFile(w.write(), "x")
    (data, mapping), = seen
    assert data == sig.data()
    kept = [n for n in names if n not in ("lc", "c")]
    assert [names[i] for i in range(len(names)) if mapping[i] >= 0] == kept
    assert [mapping[i] for i in range(len(names)) if mapping[i] >= 0] == list(range(len(kept)))
    assert next(s for s in new.sections if s.type == SHT_LLVM_ADDRSIG).data() == b"new!"
    # no renumberer: the bytes as they were
    w = ElfWriter(o)
    w.remove(w.index_of(".text.c"))
    assert next(s for s in ElfFile(w.write(), "x").sections if s.type == SHT_LLVM_ADDRSIG).data() == sig.data()
    # a symbol the section cannot do without
    c = names.index("c")
    for exc, match in ((LookupError(c), rf"symbol 'c' \(index {c}\) .* but kept section \[{sig.index}\] "
                                         r"\.llvm_addrsig uses it"),
                       (LookupError(c, "an entry of"), rf"but an entry of \[{sig.index}\] \.llvm_addrsig uses it"),
                       (DecodeError("bad entry", offset=3), rf"section \[{sig.index}\] \.llvm_addrsig: offset 0x3: "
                                                            r"bad entry")):
        def refuse(data, mapping, exc=exc):
            raise exc
        w = ElfWriter(o)
        w.set_symbol_renumberer(sig.index, refuse)
        w.remove(w.index_of(".text.c"))
        with pytest.raises(ObjllvmError, match=match):
            w.write()


def test_codecs_renumber_their_symbol_indices():
    """The addrsig and call-graph profile codecs' renumber_symbols hooks: ULEB128 indices moved, dropped ones left out,
    past-the-table ones kept, a bad ULEB128 a DecodeError at its offset; the LLVM <= 12 profile's 16-byte entries moved
    (either byte order, a partial entry kept), an edge on a dropped symbol a LookupError naming it; the newer profile
    (symbols by relocations) kept as it is."""
    from types import SimpleNamespace

    from objllvm.errors import DecodeError
    from objllvm.sections.addrsig import AddrsigCodec
    from objllvm.sections.cg_profile import NEW_TYPE, OLD_TYPE, CGProfileCodec
    mapping = [0, -1, 1, 2, -1] + list(range(3, 300))      # symbols 1 and 4 dropped
    a = AddrsigCodec()
    assert a.renumber_symbols(bytes([2, 1, 4, 0x81, 0x02, 0x90, 0x4E]), mapping) == \
        bytes([1, 0xFF, 0x01, 0x90, 0x4E])      # 2 -> 1; 1 and 4 leave; 257 -> 255; 10000 (past the list) stays
    with pytest.raises(DecodeError) as e:
        a.renumber_symbols(bytes([2, 0x80]), mapping)
    assert e.value.offset == 1
    cg = CGProfileCodec()
    for endian in "<>":
        ctx = SimpleNamespace(endian=endian, section=SimpleNamespace(type=OLD_TYPE))
        data = struct.pack(endian + "IIQIIQ", 2, 3, 7, 400, 2, 9) + b"\1\2"
        assert cg.renumber_symbols(data, mapping, ctx) == struct.pack(endian + "IIQIIQ", 1, 2, 7, 400, 1, 9) + b"\1\2"
        with pytest.raises(LookupError) as e:
            cg.renumber_symbols(struct.pack(endian + "IIQIIQ", 2, 4, 7, 1, 2, 9), mapping, ctx)
        assert e.value.args[0] == 1
        new = SimpleNamespace(endian=endian, section=SimpleNamespace(type=NEW_TYPE))
        assert cg.renumber_symbols(struct.pack(endian + "Q", 5), mapping, new) == struct.pack(endian + "Q", 5)


def test_the_writer_holds_no_section_kind_of_its_own():
    """objllvm/formats/elfwrite knows no LLVM section type (it renumbers symbol indices only in relocations, groups and
    SHT_SYMTAB_SHNDX) and imports no CPython private module; each of its modules opens with a docstring."""
    import ast

    from conftest import ROOT
    pkg = ROOT / "objllvm" / "formats" / "elfwrite"
    paths = sorted(pkg.glob("*.py"))
    assert len(paths) >= 5
    for path in paths:
        text = path.read_text()
        tree = ast.parse(text)
        assert ast.get_docstring(tree), path.name
        assert not re.search(r"0x6fff4c0[0-9a-f]|SHT_LLVM|renumbered_addrsig", text, re.I), path.name
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                assert not any(x.name.startswith("_") for x in node.names), (path.name, ast.dump(node))
            elif isinstance(node, ast.ImportFrom) and not node.level:
                assert not node.module.startswith("_"), (path.name, node.module)
