"""What a rewrite keeps (docs/rewrite.md, "Safety"): a no-op rewrite is byte-identical, and any rewrite keeps every
byte outside the sections it changes -- on every ELF file of the corpus and on random layouts of segments and
sections (hypothesis), segments that end inside a section among them.

The check (``assert_kept``) reads both files with objllvm's reader and compares them independently of the writer:
the ELF header but for the section header table's fields, the program header table and every segment's file range
at their offsets (but for the bytes of the sections that changed), every section that is kept with its header and
bytes (symbol, relocation and group tables may be renumbered: their sizes are compared), and the bytes no section
describes past the last one."""
from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import corpus_elf_objects, corpus_files
from objllvm import api
from objllvm.errors import ObjllvmError
from objllvm.formats.elf import ElfFile
from objllvm.formats.elfwrite import ElfWriter

SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_RELA, SHT_NOBITS, SHT_REL = 1, 2, 3, 4, 8, 9
SHF_ALLOC = 2
# Tables whose words name sections or symbols: the writer renumbers them when sections go.
_RENUMBERED = {SHT_SYMTAB, SHT_RELA, SHT_REL, 11, 17, 18, 0x40000014, 0x6FFF4C03, 0x6FFF4C02}


def _headers(elf):
    return [elf.header(i) for i in range(elf.section_count)]


def _closure(elf, asked) -> set:
    """``asked`` and the relocation sections that target a section of it (what a removal takes along)."""
    gone = set(asked)
    for i, (nm, t, fl, addr, off, size, link, info, al, es) in enumerate(_headers(elf)):
        if t in (SHT_REL, SHT_RELA, 0x40000014) and info in gone:
            gone.add(i)
    return gone


def assert_kept(src: ElfFile, out: bytes, removed=(), changed=()) -> None:
    """``out`` keeps every byte of ``src`` outside the sections ``removed`` (indices in ``src``) and ``changed``."""
    data = bytes(src.data)
    new = ElfFile(out, "out")
    for exc in new.section_errors.values():
        raise exc
    is64 = src.is64
    # the ELF header, but e_shoff, e_shnum, e_shstrndx (and e_phoff when there is no program header table)
    skip = {range(0x28, 0x30) if is64 else range(0x20, 0x24), range(0x3C, 0x40) if is64 else range(0x30, 0x34)}
    if not src.e_phnum:
        skip.add(range(0x20, 0x28) if is64 else range(0x1C, 0x20))
    ehsize = 64 if is64 else 52
    for k in range(ehsize):
        if not any(k in r for r in skip):
            assert out[k] == data[k], f"ELF header byte {k:#x}"
    hdrs = _headers(src)
    touched = set(removed) | set(changed)
    mask = bytearray(len(data))          # 1: bytes of sections that may differ
    for i in touched:
        t, off, size = hdrs[i][1], hdrs[i][4], hdrs[i][5]
        if t != SHT_NOBITS:
            mask[off:off + size] = b"\1" * len(mask[off:off + size])
    for i, h in enumerate(hdrs):
        if h[1] in _RENUMBERED and h[1] != SHT_NOBITS:
            mask[h[4]:h[4] + h[5]] = b"\1" * len(mask[h[4]:h[4] + h[5]])
    mask[:ehsize] = b"\1" * ehsize       # (checked above)
    if src.e_shoff:                      # the section header table: rewritten whenever a section changes
        a = src.e_shoff
        mask[a:a + src.section_count * (64 if is64 else 40)] = b"\1" * len(mask[a:a + src.section_count *
                                                                                  (64 if is64 else 40)])
    if src.e_phnum:
        a = src.e_phoff
        b = a + src.e_phnum * src.e_phentsize
        assert out[a:b] == data[a:b], "program header table"
        for seg in src.segments:
            a, b = seg["offset"], seg["offset"] + seg["filesz"]
            got, want = out[a:b], data[a:b]
            if got != want:
                bad = next((k for k in range(b - a) if got[k:k + 1] != want[k:k + 1] and not mask[a + k]), None)
                assert bad is None, f"segment {seg} changed at file offset {a + bad:#x}"
    # kept sections: same headers (but offsets and renumbered links), same bytes
    kept = [i for i in range(src.section_count) if i not in removed]
    nh = _headers(new)
    assert len(nh) >= len(kept), "sections lost"
    for k, i in enumerate(kept):
        if i == 0:
            continue
        o, n = hdrs[i], nh[k]
        assert (o[0], o[1], o[2], o[3], o[8], o[9]) == (n[0], n[1], n[2], n[3], n[8], n[9]), f"section [{i}] header"
        if i in changed or o[1] in _RENUMBERED:
            continue
        assert o[5] == n[5], f"section [{i}] size"
        if o[1] != SHT_NOBITS:
            assert out[n[4]:n[4] + n[5]] == data[o[4]:o[4] + o[5]], f"section [{i}] {src.section_name(i)} bytes"
            if any(o[4] < s["offset"] + s["filesz"] and s["offset"] < o[4] + o[5] for s in src.segments):
                assert n[4] == o[4], f"section [{i}] overlaps a segment: moved"
    # bytes past everything the headers describe
    ends = [ehsize, src.e_phoff + src.e_phnum * src.e_phentsize]
    ends += [s["offset"] + s["filesz"] for s in src.segments]
    ends += [h[4] + h[5] for h in hdrs if h[1] != SHT_NOBITS and h[4] < len(data)]
    if src.e_shoff:
        ends.append(src.e_shoff + src.section_count * (64 if is64 else 40))
    tail = data[min(max(ends), len(data)):]
    if tail:
        assert out.endswith(tail), "the bytes after the last section"


# -- the corpus -----------------------------------------------------------------------------------------------


def test_noop_is_byte_identical_and_strip_keeps_the_rest_on_every_elf_file_of_the_corpus():
    objs = corpus_elf_objects()
    assert len(objs) > 40
    stripped = 0
    for o in objs:
        assert ElfWriter(o).write() == bytes(o.data), o.label
        llvm = [s.index for s in api.llvm_sections(o) if not s.flags & SHF_ALLOC]
        if not llvm:
            continue
        w = ElfWriter(o)
        try:
            w.remove_many(llvm)
            out = w.write()
        except ObjllvmError:
            continue            # (refused with a located error: a symbol still used, say)
        stripped += 1
        assert_kept(o, out, removed=_closure(o, llvm) | {i for i in range(len(w.removed_flags))
                                                          if w.removed_flags[i]})
    assert stripped > 20


@pytest.mark.parametrize("path", [p for p in corpus_files() if p.read_bytes()[:4] == b"\x7fELF"
                                  and ElfFile(p.read_bytes(), str(p)).e_phnum], ids=lambda p: p.name)
def test_removing_or_growing_each_unallocated_section_of_a_linked_file_keeps_the_rest(path):
    o = ElfFile(path.read_bytes(), str(path))
    hdrs = _headers(o)
    done = 0
    for i, h in enumerate(hdrs):
        if not i or h[2] & SHF_ALLOC or i == o.e_shstrndx or h[1] in _RENUMBERED or h[1] == SHT_STRTAB:
            continue
        w = ElfWriter(o)
        try:
            w.remove(i)
            out = w.write()
        except ObjllvmError:
            continue
        assert_kept(o, out, removed={j for j in range(o.section_count) if w.removed_flags[j]})
        done += 1
        w = ElfWriter(o)
        try:
            w.set_content(i, bytes(o.data[h[4]:h[4] + h[5]]) + b"grown")
            out = w.write()
        except ObjllvmError as exc:
            assert "size cannot change" in str(exc)     # (a section inside a segment)
            continue
        assert_kept(o, out, changed={i})
        done += 1
    assert done


# -- random layouts ----------------------------------------------------------------------------------------------
@st.composite
def layouts(draw):
    """An ELF64 ET_DYN file: sections (allocated ones among them) with random sizes, alignments and gaps of random
    bytes, in a random order; a .shstrtab; the section header table somewhere among them; segments over random
    ranges (a PT_LOAD over the allocated sections, others from a section's start to any offset of the file,
    which may fall inside a section); random bytes after everything."""
    n = draw(st.integers(1, 7))
    specs = []
    for k in range(n):
        alloc = draw(st.booleans())
        nobits = alloc and draw(st.integers(0, 5)) == 0
        specs.append(dict(name=f".s{k}", alloc=alloc, nobits=nobits, size=draw(st.integers(0, 200)),
                          align=draw(st.sampled_from([1, 2, 4, 8, 16])),
                          gap=draw(st.binary(max_size=24)), fill=draw(st.integers(0, 255))))
    order = draw(st.permutations(range(n)))
    names = b"\0.shstrtab\0" + b"".join(s["name"].encode() + b"\0" for s in specs)
    shstr = dict(name=".shstrtab", alloc=False, nobits=False, size=len(names), align=1,
                 gap=draw(st.binary(max_size=8)), fill=0, body=names)
    seq = [specs[i] for i in order]
    seq.insert(draw(st.integers(0, len(seq))), shstr)
    table_at = draw(st.integers(0, len(seq)))           # the section header table before seq[table_at]
    nph = draw(st.integers(1, 4))
    body = bytearray(64 + 56 * nph)
    pos = len(body)
    shoff = None
    for k, s in enumerate(seq + [None]):
        if k == table_at:
            pos = (pos + 7) & ~7
            body += bytes(pos - len(body))
            shoff = pos
            pos += 64 * (len(seq) + 1)
            body += bytes(64 * (len(seq) + 1))
        if s is None:
            break
        body += s["gap"]
        pos += len(s["gap"])
        pad = -pos % s["align"]
        body += bytes(pad)
        pos += pad
        s["offset"] = pos
        if not s["nobits"]:
            b = s.get("body") or bytes((s["fill"] + j) & 0xFF for j in range(s["size"]))
            body += b
            pos += len(b)
    body += draw(st.binary(max_size=40))
    size = len(body)
    # segments
    allocs = [s for s in seq if s["alloc"] and not s["nobits"] and s["size"]]
    segs = []
    if allocs:
        a = min(s["offset"] for s in allocs)
        b = max(s["offset"] + s["size"] for s in allocs)
        segs.append((1, a, b - a))                       # PT_LOAD
    for _ in range(nph - len(segs)):
        starts = [s["offset"] for s in seq if not s["nobits"]] + [0]
        a = draw(st.sampled_from(starts))
        b = draw(st.integers(a, size))
        segs.append((draw(st.sampled_from([0x6474E552, 4, 1])), a, b - a))     # GNU_RELRO, NOTE, LOAD
    segs = segs[:nph] + [(0x6474E551, 0, 0)] * (nph - len(segs))              # GNU_STACK
    struct.pack_into("<4sBBBB8xHHIQQQIHHHHHH", body, 0, b"\x7fELF", 2, 1, 1, 0, 3, 62, 1, 0, 64, shoff, 0, 64,
                     56, nph, 64, len(seq) + 1, seq.index(shstr) + 1)
    for k, (t, off, fsz) in enumerate(segs):
        struct.pack_into("<IIQQQQQQ", body, 64 + 56 * k, t, 4, off, off, off, fsz, fsz, 1)
    name_at = {s["name"]: names.index(b"\0" + s["name"].encode() + b"\0") + 1 for s in seq}
    for k, s in enumerate(seq):
        struct.pack_into("<IIQQQQIIQQ", body, shoff + 64 * (k + 1), name_at[s["name"]],
                         SHT_NOBITS if s["nobits"] else (SHT_STRTAB if s is shstr else SHT_PROGBITS),
                         SHF_ALLOC if s["alloc"] else 0, s["offset"] if s["alloc"] else 0, s["offset"], s["size"],
                         0, 0, s["align"], 0)
    return bytes(body), draw(st.randoms(use_true_random=False))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layouts())
def test_random_layouts_noop_identical_and_rewrites_keep_the_rest(case):
    data, rnd = case
    src = ElfFile(data, "random.so")
    assert not src.section_errors
    assert ElfWriter(src).write() == data
    hdrs = _headers(src)
    plain = [i for i, h in enumerate(hdrs) if i and i != src.e_shstrndx and not h[2] & SHF_ALLOC]
    if not plain:
        return
    # remove some of the unallocated sections
    gone = set(rnd.sample(plain, rnd.randint(1, len(plain))))
    w = ElfWriter(src)
    w.remove_many(sorted(gone))
    assert_kept(src, w.write(), removed=gone)
    # give one new contents of another size
    i = rnd.choice(plain)
    w = ElfWriter(src)
    w.set_content(i, bytes(rnd.randrange(256) for _ in range(rnd.randrange(300))))
    try:
        out = w.write()
    except ObjllvmError as exc:
        assert "size cannot change" in str(exc)
        o, z = hdrs[i][4], hdrs[i][5]
        assert any(o < s["offset"] + s["filesz"] and s["offset"] < o + z for s in src.segments)
        return
    assert_kept(src, out, changed={i})


def test_noop_rewrite_of_every_readable_elf_input_is_byte_identical(tmp_path):
    """A rewrite with no operation gives the input's bytes, also for the malformed, lit and hostile-name inputs: a
    relocatable object with bytes between its sections is not repacked."""
    from conftest import TESTDATA, run_objllvm
    files = [p for p in sorted(TESTDATA.rglob("*.o")) + sorted(TESTDATA.rglob("*.pie"))
             if p.read_bytes()[:4] == b"\x7fELF"]
    assert len(files) > 100
    written = 0
    for p in files:
        out = tmp_path / "out"
        rc, _, err = run_objllvm("rewrite", p, "-o", out)
        if rc == 0:
            assert out.read_bytes() == p.read_bytes(), p
            written += 1
        else:
            assert "Traceback" not in err and not out.exists(), (p, err)
        out.unlink(missing_ok=True)
    assert written > 100
