"""Structure-aware mutations of object files for the hostile-input tests and ``scripts/fuzz``.

Every mutator is ``f(data: bytes, rng: random.Random) -> bytes`` and is deterministic for a given ``rng``
state, so a (seed file, [(mutator name, int seed), ...]) list names an input exactly (hypothesis shrinks that
list; ``scripts/fuzz`` prints it).  The mutations are the ones that matter for these formats: truncation,
ULEB128 continuation runs, huge counts, offsets and sizes past the end, the other byte order or ELF class,
overlapping sections, relocation symbol indices past the symbol table, a section's ``sh_type`` changed to
another LLVM type (so each codec sees the bytes of the others), SHF_COMPRESSED on plain bytes, bad ``ar``
member headers, and splices of one LLVM section's bytes into another.

Field positions are computed here with ``struct`` from the ELF header (not with objllvm's reader, so a bug
there cannot hide a mutation).
"""
from __future__ import annotations

import random
import struct

LLVM_TYPES = list(range(0x6FFF4C00, 0x6FFF4C0E)) + [0x6FFF4C7F]
OTHER_TYPES = [0, 1, 2, 3, 4, 8, 9, 11, 17, 18, 0x40000014]
HUGE = [0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, 0xFFFFFFFFFFFFFFFF, 0x8000000000000000, 0x100000000, 0xFFFF,
        0x10000]
SHF_COMPRESSED = 0x800


# -- ELF layout (independent of objllvm) -------------------------------------------------------------
class ElfLayout:
    """Where the section headers and their fields are, or ``None`` when the header is unusable."""

    def __init__(self, data: bytes):
        self.ok = False
        if len(data) < 52 or data[:4] != b"\x7fELF" or data[4] not in (1, 2) or data[5] not in (1, 2):
            return
        self.is64 = data[4] == 2
        self.e = "<" if data[5] == 1 else ">"
        if self.is64:
            if len(data) < 64:
                return
            self.shoff = struct.unpack_from(self.e + "Q", data, 0x28)[0]
            self.shentsize, self.shnum, self.shstrndx = struct.unpack_from(self.e + "HHH", data, 0x3A)
            self.fields = {"name": (0, 4), "type": (4, 4), "flags": (8, 8), "addr": (16, 8), "offset": (24, 8),
                           "size": (32, 8), "link": (40, 4), "info": (44, 4), "addralign": (48, 8),
                           "entsize": (56, 8)}
            self.hdr_fields = {"e_shoff": (0x28, 8), "e_phoff": (0x20, 8), "e_shnum": (0x3C, 2),
                               "e_shstrndx": (0x3E, 2), "e_phnum": (0x38, 2), "e_shentsize": (0x3A, 2)}
        else:
            self.shoff = struct.unpack_from(self.e + "I", data, 0x20)[0]
            self.shentsize, self.shnum, self.shstrndx = struct.unpack_from(self.e + "HHH", data, 0x2E)
            self.fields = {"name": (0, 4), "type": (4, 4), "flags": (8, 4), "addr": (12, 4), "offset": (16, 4),
                           "size": (20, 4), "link": (24, 4), "info": (28, 4), "addralign": (32, 4),
                           "entsize": (36, 4)}
            self.hdr_fields = {"e_shoff": (0x20, 4), "e_phoff": (0x1C, 4), "e_shnum": (0x30, 2),
                               "e_shstrndx": (0x32, 2), "e_phnum": (0x2C, 2), "e_shentsize": (0x2E, 2)}
        if self.shentsize != (64 if self.is64 else 40) or not self.shnum:
            return
        if self.shoff + self.shnum * self.shentsize > len(data):
            return
        self.ok = True
        self.data = data

    def get(self, i: int, field: str) -> int:
        off, size = self.fields[field]
        return int.from_bytes(self.data[self.field_pos(i, field):self.field_pos(i, field) + size],
                              "little" if self.e == "<" else "big")

    def field_pos(self, i: int, field: str) -> int:
        return self.shoff + i * self.shentsize + self.fields[field][0]

    def sections(self):
        return range(self.shnum)

    def content(self, i: int):
        """(offset, size) of section i's bytes when they lie inside the file, else None."""
        off, size = self.get(i, "offset"), self.get(i, "size")
        if self.get(i, "type") == 8 or not size or off + size > len(self.data):
            return None
        return off, size

    def llvm_sections(self):
        return [i for i in self.sections() if 0x6FFF4C00 <= self.get(i, "type") <= 0x6FFF4CFF]

    def reloc_sections(self):
        return [i for i in self.sections() if self.get(i, "type") in (4, 9)]


def _put(data: bytearray, pos: int, size: int, value: int, endian: str) -> None:
    if pos < 0 or pos + size > len(data):
        return
    data[pos:pos + size] = (value & ((1 << (8 * size)) - 1)).to_bytes(size, "little" if endian == "<" else "big")


def _set_field(data: bytes, lay: ElfLayout, i: int, field: str, value: int) -> bytes:
    b = bytearray(data)
    _put(b, lay.field_pos(i, field), lay.fields[field][1], value, lay.e)
    return bytes(b)


def _pick_region(data: bytes, rng: random.Random):
    """(offset, size) of a region worth mutating: mostly an LLVM section's bytes, else anywhere."""
    lay = ElfLayout(data)
    if lay.ok and rng.random() < 0.8:
        cands = [c for c in (lay.content(i) for i in lay.llvm_sections() + lay.reloc_sections()) if c]
        if cands:
            return rng.choice(cands)
    return 0, len(data)


# -- generic byte mutations -----------------------------------------------------------------------------
def truncate(data, rng):
    if not data:
        return data
    lay = ElfLayout(data)
    points = [rng.randrange(len(data) + 1)]
    if lay.ok:  # cut right at or inside a section, or inside the header tables
        for i in lay.sections():
            c = lay.content(i)
            if c:
                points += [c[0], c[0] + c[1] // 2, c[0] + c[1] - 1]
        points += [lay.shoff, lay.shoff + lay.shentsize // 2, 16, 40]
    for magic_end in (8, 68, 128):          # archive header, first member header
        points.append(magic_end)
    return data[:min(max(rng.choice(points), 0), len(data))]


def flip_bytes(data, rng):
    if not data:
        return data
    b = bytearray(data)
    off, size = _pick_region(data, rng)
    for _ in range(rng.randint(1, 4)):
        p = off + rng.randrange(max(size, 1))
        if p < len(b):
            b[p] = rng.choice((0, 0xFF, 0x80, 0x7F, rng.randrange(256), b[p] ^ (1 << rng.randrange(8))))
    return bytes(b)


def uleb_run(data, rng):
    """Overwrite part of a section with a run of ULEB128 continuation bytes (optionally left unterminated)."""
    if not data:
        return data
    b = bytearray(data)
    off, size = _pick_region(data, rng)
    p = off + rng.randrange(max(size, 1))
    n = rng.choice((1, 2, 9, 10, 11, 16, 64, size))
    run = bytes([rng.choice((0x80, 0xFF, 0x81))]) * n
    if rng.random() < 0.5:
        run += b"\x01"
    b[p:p + len(run)] = run[:max(len(b) - p, 0)]
    return bytes(b[:len(data)])


def huge_count(data, rng):
    """Write a huge u16/u32/u64 or a huge ULEB128 where a count, size or index is likely."""
    if not data:
        return data
    b = bytearray(data)
    off, size = _pick_region(data, rng)
    endian = "<" if not data.startswith(b"\x7fELF") or len(data) < 6 or data[5] != 2 else ">"
    width = rng.choice((2, 4, 8, "uleb"))
    p = off + rng.randrange(max(size, 1))
    if width != "uleb":
        p -= p % width
    v = rng.choice(HUGE)
    if width == "uleb":
        enc = bytearray()
        while True:
            c = v & 0x7F
            v >>= 7
            enc.append(c | (0x80 if v else 0))
            if not v:
                break
        b[p:p + len(enc)] = enc[:max(len(b) - p, 0)]
        return bytes(b[:len(data)])
    _put(b, p, width, v, endian)
    return bytes(b)


def insert_bytes(data, rng):
    if not data:
        return bytes([rng.randrange(256)])
    p = rng.randrange(len(data))
    return data[:p] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 16))) + data[p:]


def delete_bytes(data, rng):
    if len(data) < 2:
        return data
    p = rng.randrange(len(data))
    return data[:p] + data[p + rng.randint(1, 32):]


# -- ELF-aware mutations --------------------------------------------------------------------------------
def _elf_or_generic(fn):
    def wrapper(data, rng):
        lay = ElfLayout(data)
        if not lay.ok:
            return flip_bytes(data, rng)
        return fn(data, rng, lay)
    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper


@_elf_or_generic
def retype(data, rng, lay):
    """Give a section another LLVM type (or a structural type): each codec sees the others' bytes."""
    cands = lay.llvm_sections() or list(lay.sections())
    if rng.random() < 0.3:
        cands = list(lay.sections())
    i = rng.choice(cands)
    t = rng.choice(LLVM_TYPES if rng.random() < 0.8 else OTHER_TYPES)
    return _set_field(data, lay, i, "type", t)


@_elf_or_generic
def offset_past_end(data, rng, lay):
    i = rng.randrange(lay.shnum)
    field = rng.choice(("offset", "size", "name", "link", "info", "entsize"))
    n = len(data)
    v = rng.choice((n, n + 1, n - 1, n + rng.randrange(1, 4096), lay.shnum, lay.shnum + 1, 0xFFFFFFFF,
                    0xFFFFFFFFFFFFFFFF, 1 << 32))
    return _set_field(data, lay, i, field, v)


@_elf_or_generic
def header_field(data, rng, lay):
    name = rng.choice(list(lay.hdr_fields))
    pos, size = lay.hdr_fields[name]
    b = bytearray(data)
    n = len(data)
    _put(b, pos, size, rng.choice((0, 1, n, n - 8, n + 64, 0xFFFF, 0xFF00, 0xFFFFFFFF, lay.shnum + 1,
                                   lay.shnum - 1)), lay.e)
    return bytes(b)


@_elf_or_generic
def overlap(data, rng, lay):
    """Make one section's bytes overlap another's (same offset or straddling)."""
    secs = [i for i in lay.sections() if lay.content(i)]
    if len(secs) < 2:
        return data
    a, b_ = rng.sample(secs, 2)
    if rng.random() < 0.5 and lay.llvm_sections():
        a = rng.choice(lay.llvm_sections())
    off_b, size_b = lay.content(b_)
    new_off = off_b + (rng.randrange(size_b) if rng.random() < 0.5 else 0)
    out = _set_field(data, lay, a, "offset", new_off)
    if rng.random() < 0.5:
        out = _set_field(out, ElfLayout(out), a, "size", max(size_b - (new_off - off_b), 0))
    return out


@_elf_or_generic
def reloc_symbol_past_end(data, rng, lay):
    """Point a relocation at a symbol index past the symbol table, or retarget a relocation section."""
    rels = lay.reloc_sections()
    if not rels:
        return offset_past_end(data, rng)
    i = rng.choice(rels)
    if rng.random() < 0.3:   # retarget: sh_info / sh_link elsewhere
        return _set_field(data, lay, i, rng.choice(("info", "link")), rng.randrange(lay.shnum + 2))
    c = lay.content(i)
    if not c:
        return data
    off, size = c
    rela = lay.get(i, "type") == 4
    ent = (24 if rela else 16) if lay.is64 else (12 if rela else 8)
    if size < ent:
        return data
    k = rng.randrange(size // ent)
    b = bytearray(data)
    sym = rng.choice((0xFFFFFF, 0xFFFFFFFF, 1000, 17, 0xFF))
    if lay.is64:
        pos = off + k * ent + 8
        info = int.from_bytes(b[pos:pos + 8], "little" if lay.e == "<" else "big")
        _put(b, pos, 8, (sym << 32) | (info & 0xFFFFFFFF), lay.e)
    else:
        pos = off + k * ent + 4
        info = int.from_bytes(b[pos:pos + 4], "little" if lay.e == "<" else "big")
        _put(b, pos, 4, ((sym & 0xFFFFFF) << 8) | (info & 0xFF), lay.e)
    return bytes(b)


@_elf_or_generic
def compress_flag(data, rng, lay):
    """Set SHF_COMPRESSED on a section (its bytes become a bogus compression header), or damage ch_size."""
    i = rng.choice(lay.llvm_sections() or list(lay.sections()))
    flags = lay.get(i, "flags")
    if flags & SHF_COMPRESSED and lay.content(i):
        off, _ = lay.content(i)
        b = bytearray(data)
        pos = off + (8 if lay.is64 else 4)
        _put(b, pos, 8 if lay.is64 else 4, rng.choice(HUGE + [0, 1]), lay.e)
        return bytes(b)
    return _set_field(data, lay, i, "flags", flags | SHF_COMPRESSED)


@_elf_or_generic
def splice_llvm(data, rng, lay):
    """Copy one LLVM section's bytes over another's (as much as fits)."""
    cands = [c for c in (lay.content(i) for i in lay.llvm_sections()) if c]
    if len(cands) < 2:
        return data
    (so, ss), (do, ds) = rng.sample(cands, 2)
    b = bytearray(data)
    n = min(ss, ds)
    b[do:do + n] = data[so:so + n]
    return bytes(b)


def byte_order(data, rng):
    """The other byte order (ELF EI_DATA, Mach-O magic), or the other ELF class."""
    b = bytearray(data)
    if data[:4] == b"\x7fELF" and len(b) > 5:
        if rng.random() < 0.7:
            b[5] = 3 - b[5] if b[5] in (1, 2) else 1
        else:
            b[4] = 3 - b[4] if b[4] in (1, 2) else 2
    elif len(b) >= 4 and data[:4] in (b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"\xfe\xed\xfa\xcf",
                                      b"\xfe\xed\xfa\xce"):
        b[:4] = data[3::-1][:4]
    elif len(b) >= 2:
        b[0], b[1] = b[1], b[0]
    return bytes(b)


# -- ar archives --------------------------------------------------------------------------------------------
def _ar_headers(data):
    pos, out = 8, []
    while pos + 60 <= len(data) and data[pos + 58:pos + 60] == b"`\n":
        out.append(pos)
        try:
            size = int(data[pos + 48:pos + 58].strip() or b"0")
        except ValueError:
            break
        if size < 0:
            break
        pos += 60 + size
        pos += pos & 1
    return out


def ar_member(data, rng):
    """Damage an ar member header: size, name, long-name offset, terminator."""
    if data[:8] not in (b"!<arch>\n", b"!<thin>\n"):
        return flip_bytes(data, rng)
    hs = _ar_headers(data)
    if not hs:
        return truncate(data, rng)
    h = rng.choice(hs)
    b = bytearray(data)
    what = rng.randrange(5)
    if what == 0:
        size = rng.choice((b"-60", b"-1", b"0", b"99999999", b"4294967296", b"1_0", b"abc", b"+5", b" 7"))
        b[h + 48:h + 58] = size.ljust(10)[:10]
    elif what == 1:
        b[h:h + 16] = rng.choice((b"/99999", b"/", b"//", b"#1/999", b"#1/-5", b"#1/abc", b"/SYM64/",
                                  b"__.SYMDEF", b"/0")).ljust(16)[:16]
    elif what == 2:
        b[h + 58:h + 60] = b"xx"
    elif what == 3:
        return data[:h + rng.randrange(60 + 64)]
    else:
        return flip_bytes(data, rng)
    return bytes(b)


MUTATORS = {f.__name__: f for f in (truncate, flip_bytes, uleb_run, huge_count, insert_bytes, delete_bytes,
                                     retype, offset_past_end, header_field, overlap, reloc_symbol_past_end,
                                     compress_flag, splice_llvm, byte_order, ar_member)}
NAMES = sorted(MUTATORS)


def apply(data: bytes, steps) -> bytes:
    """Apply ``[(mutator name, seed), ...]`` in order."""
    for name, seed in steps:
        data = MUTATORS[name](data, random.Random(seed))
    return data


def random_steps(rng: random.Random, max_steps: int = 3) -> list:
    return [(rng.choice(NAMES), rng.getrandbits(32)) for _ in range(rng.randint(1, max_steps))]
