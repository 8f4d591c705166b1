"""ELF container: both classes, both byte orders, ET_REL/ET_EXEC/ET_DYN."""
import struct
import sys
from itertools import accumulate, compress, repeat
from operator import add, and_

from ..errors import DecodeError
from .base import ObjectFile, Relocation, Section, Symbol

ELF_MAGIC = b"\x7fELF"

SHT_NULL, SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_RELA = 0, 1, 2, 3, 4
SHT_NOBITS, SHT_REL, SHT_DYNSYM, SHT_GROUP, SHT_SYMTAB_SHNDX = 8, 9, 11, 17, 18
SHT_CREL = 0x40000014
# The container's own tables (symbols, strings, relocations, hash, dynamic, groups, extended indices) and sections
# without bytes: never an LLVM section, whatever the name.
NEVER_LLVM_TYPES = frozenset((SHT_SYMTAB, SHT_STRTAB, SHT_RELA, 5, 6, SHT_NOBITS, SHT_REL, SHT_DYNSYM, SHT_GROUP,
                              SHT_SYMTAB_SHNDX, 19, SHT_CREL))
SHF_ALLOC = 0x2
SHF_COMPRESSED = 0x800
SHN_XINDEX = 0xFFFF
_IS_FUNC = bytes(1 if v & 0xF == 2 else 0 for v in range(256))      # st_info -> 1 for STT_FUNC
SHN_LORESERVE = 0xFF00

# LLVM-specific section types (docs/formats.md).
LLVM_SECTION_TYPES = {
    0x6FFF4C00: "SHT_LLVM_ODRTAB",
    0x6FFF4C01: "SHT_LLVM_LINKER_OPTIONS",
    0x6FFF4C02: "SHT_LLVM_CALL_GRAPH_PROFILE",   # LLVM <= 12 layout
    0x6FFF4C03: "SHT_LLVM_ADDRSIG",
    0x6FFF4C04: "SHT_LLVM_DEPENDENT_LIBRARIES",
    0x6FFF4C05: "SHT_LLVM_SYMPART",
    0x6FFF4C06: "SHT_LLVM_PART_EHDR",
    0x6FFF4C07: "SHT_LLVM_PART_PHDR",
    0x6FFF4C08: "SHT_LLVM_BB_ADDR_MAP_V0",
    0x6FFF4C09: "SHT_LLVM_CALL_GRAPH_PROFILE",
    0x6FFF4C0A: "SHT_LLVM_BB_ADDR_MAP",
    0x6FFF4C0B: "SHT_LLVM_OFFLOADING",
    0x6FFF4C0C: "SHT_LLVM_LTO",
    0x6FFF4C0D: "SHT_LLVM_JT_SIZES",
    0x6FFF4C0E: "SHT_LLVM_CFI_JUMP_TABLE",
    0x6FFF4C0F: "SHT_LLVM_CALL_GRAPH",
}
LLVM_TYPE_LO, LLVM_TYPE_HI = 0x6FFF4C00, 0x6FFF4CFF

SECTION_TYPE_NAMES = {
    0: "SHT_NULL", 1: "SHT_PROGBITS", 2: "SHT_SYMTAB", 3: "SHT_STRTAB", 4: "SHT_RELA",
    5: "SHT_HASH", 6: "SHT_DYNAMIC", 7: "SHT_NOTE", 8: "SHT_NOBITS", 9: "SHT_REL",
    10: "SHT_SHLIB", 11: "SHT_DYNSYM", 14: "SHT_INIT_ARRAY", 15: "SHT_FINI_ARRAY",
    16: "SHT_PREINIT_ARRAY", 17: "SHT_GROUP", 18: "SHT_SYMTAB_SHNDX", 19: "SHT_RELR",
    0x40000014: "SHT_CREL", 0x6FFFFFF5: "SHT_GNU_ATTRIBUTES", 0x6FFFFFF6: "SHT_GNU_HASH",
    0x6FFFFFFD: "SHT_GNU_verdef", 0x6FFFFFFE: "SHT_GNU_verneed", 0x6FFFFFFF: "SHT_GNU_versym",
    0x70000001: "SHT_X86_64_UNWIND", 0x70000003: "SHT_ARM_ATTRIBUTES",
    **LLVM_SECTION_TYPES,
}

ET_NAMES = {0: "ET_NONE", 1: "ET_REL", 2: "ET_EXEC", 3: "ET_DYN", 4: "ET_CORE"}
EM_NAMES = {3: "i386", 8: "mips", 20: "ppc", 21: "ppc64", 22: "s390x", 40: "arm", 62: "x86-64",
            183: "aarch64", 243: "riscv", 247: "bpf", 258: "loongarch", 224: "amdgpu", 190: "cuda"}


def section_type_name(t: int | None) -> str:
    if t is None:
        return ""
    n = SECTION_TYPE_NAMES.get(t)
    if n:
        return n
    if LLVM_TYPE_LO <= t <= LLVM_TYPE_HI:
        return f"SHT_LLVM_UNKNOWN({t:#x})"
    return f"{t:#x}"


def is_llvm_type(t: int | None) -> bool:
    return t is not None and LLVM_TYPE_LO <= t <= LLVM_TYPE_HI


_COMPRESSED_BIT = bytes(1 if b & (SHF_COMPRESSED >> 8) else 0 for b in range(256))     # sh_flags' second byte


def _word_starts(words: bytes, values, most: int):
    """The positions (in 32-bit words, this machine's byte order) of ``values`` in ``words``, each searched for in C and
    counted only where a match starts a word (0x01 in the bytes of 0x100 then 0x10000 is no match); None past
    ``most`` of them."""
    out = []
    for v in values:
        pat = v.to_bytes(4, sys.byteorder) if 0 <= v < 1 << 32 else b""
        i = words.find(pat) if pat else -1
        while i >= 0:
            if i & 3:
                i = words.find(pat, i + 1)
                continue
            out.append(i >> 2)
            if len(out) > most:
                return None
            i = words.find(pat, i + 4)
    return out


class ElfFile(ObjectFile):
    format = "elf"

    def __init__(self, data: bytes, path: str = "", member: str | None = None):
        self.data = data
        self.path = path
        self.member = member
        e_shnum, e_shstrndx = self._read_file_header()
        # The section header table as read, by columns: sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size,
        # sh_link, sh_info, sh_addralign, sh_entsize (one sequence each, one entry per section; read them by name:
        # section_types, section_sizes, ...).  The Section objects of ``sections`` are made from it when first
        # asked for (a writer removing 20,000 of 60,000 sections never needs them).
        self.columns = [[] for _ in range(10)]
        self._sections = []
        self._section_cache = {}
        self._names = {}          # sh_name offset -> name (many sections share one: .llvm_bb_addr_map, ...)
        self._compression = {}    # index -> 'zlib' / 'zstd' / 'unknown(N)' of each SHF_COMPRESSED section
        self._names_at = (0, 0)
        self._symbols = None
        self._symbols_checked = False
        self._relocs = None
        self._groups = None
        self._flag_bytes: dict = {}     # k -> byte k of every section's sh_flags (_flag_byte), read once
        self.section_errors = {}
        self.file_errors = []
        self.empty_past_end = {}
        if self.e_shoff == 0:
            self.e_shnum = 0
            self.e_shstrndx = 0
        else:
            self._read_section_table(e_shnum, e_shstrndx)
            self._find_name_table(e_shstrndx)
            self._check_sections()
        self._read_phdrs()

    def _read_file_header(self) -> tuple:
        """The ELF header's fields (class, byte order, type, machine, tables); returns the raw (e_shnum,
        e_shstrndx), which extended numbering may replace."""
        data, path, member = self.data, self.path, self.member
        if len(data) < 16 or data[:4] != ELF_MAGIC:
            raise DecodeError("not an ELF file (bad magic)", file=path, member=member, offset=0)
        ei_class, ei_data = data[4], data[5]
        if ei_class not in (1, 2):
            raise DecodeError(f"bad ELF class {ei_class} (expected 1 or 2)", file=path, member=member, offset=4)
        if ei_data not in (1, 2):
            raise DecodeError(f"bad ELF data encoding {ei_data} (expected 1 or 2)", file=path, member=member,
                              offset=5)
        self.is64 = ei_class == 2
        self.addr_size = 8 if self.is64 else 4
        self.endian = "<" if ei_data == 1 else ">"
        e = self.endian
        hdr = struct.Struct(e + ("HHIQQQIHHHHHH" if self.is64 else "HHIIIIIHHHHHH"))
        if len(data) < 16 + hdr.size:
            raise DecodeError(f"truncated ELF header (expected {16 + hdr.size} bytes)", file=path,
                              member=member, offset=len(data))
        (self.e_type, self.e_machine, _ver, self.e_entry, self.e_phoff, self.e_shoff, self.e_flags,
         _ehsize, self.e_phentsize, self.e_phnum, self.e_shentsize, e_shnum,
         e_shstrndx) = hdr.unpack_from(data, 16)
        self.file_type = ET_NAMES.get(self.e_type, f"ET_{self.e_type:#x}")
        self.is_relocatable = self.e_type == 1
        self.machine_name = EM_NAMES.get(self.e_machine, f"EM_{self.e_machine}")
        self._shdr = struct.Struct(e + ("IIQQQQIIQQ" if self.is64 else "IIIIIIIIII"))
        return e_shnum, e_shstrndx

    def _read_section_table(self, e_shnum: int, e_shstrndx: int) -> None:
        """The section header table as ``columns`` (e_shnum, e_shstrndx: the header's; section 0 holds the real
        ones under extended numbering)."""
        data, path, member = self.data, self.path, self.member
        if self.e_shentsize != self._shdr.size:
            raise DecodeError(f"bad e_shentsize {self.e_shentsize} (expected {self._shdr.size})",
                              file=path, member=member, offset=0x2E if self.is64 else 0x22)
        shnum, shstrndx = e_shnum, e_shstrndx
        if self.e_shoff + self._shdr.size > len(data):
            raise DecodeError(f"section header table at {self.e_shoff:#x} is past the end of the file "
                              f"({len(data):#x} bytes)", file=path, member=member, offset=self.e_shoff)
        s0 = self._shdr.unpack_from(data, self.e_shoff)
        if shnum == 0:
            shnum = s0[5]
        if shstrndx == SHN_XINDEX:
            shstrndx = s0[6]
        self.e_shnum, self.e_shstrndx = shnum, shstrndx
        if self.e_shoff + shnum * self._shdr.size > len(data):
            raise DecodeError(f"section header table ({shnum} entries at {self.e_shoff:#x}) runs past the end "
                              f"of the file ({len(data):#x} bytes)", file=path, member=member,
                              offset=self.e_shoff)
        self.columns = self._read_columns(memoryview(data)[self.e_shoff:self.e_shoff + shnum * self._shdr.size])
        self._sections = None

    def _find_name_table(self, e_shstrndx: int) -> None:
        """Where the section name table is (``_names_at``); an index that names none costs every section its name,
        said once for the file (``file_errors``)."""
        shnum, shstrndx = self.e_shnum, self.e_shstrndx
        names_off = names_size = 0
        at = 0x3E if self.is64 else 0x32
        if 0 < shstrndx < shnum:
            names_off, names_size = self.section_offsets[shstrndx], self.section_sizes[shstrndx]
            if names_off + names_size > len(self.data):    # (that section's own error says so)
                names_off = names_size = 0
        elif e_shstrndx == SHN_XINDEX:
            self.file_errors.append(DecodeError(
                f"e_shstrndx is SHN_XINDEX and section 0's sh_link (the real index) is {shstrndx}, "
                f"{'past the section table' if shstrndx else 'no section'} ({shnum} sections): section names "
                "unknown", file=self.path, member=self.member, offset=at))
        elif shstrndx:
            self.file_errors.append(DecodeError(
                f"e_shstrndx {shstrndx} is past the section table ({shnum} sections): section names unknown",
                file=self.path, member=self.member, offset=at))
        self._names_at = (names_off, names_size)

    def _check_sections(self) -> None:
        """``section_errors``: each section whose bytes cannot be read (past the end of the file, a relocation
        section that applies to no section, a compression header that cannot be read); ``empty_past_end``."""
        path, member, shnum, row = self.path, self.member, self.e_shnum, self._shdr.size
        types, flags, offs, sizes = self.section_types, self.section_flags, self.section_offsets, self.section_sizes
        # A section whose contents run past the end of the file costs that section, not the file: it is kept in
        # ``section_errors`` (index -> DecodeError, in index order), its data() raises that error, and the others
        # read as usual.  Checked by columns; walked only when there is one.
        size_in = len(self.data)
        # An empty section whose offset is past the end has no bytes to lose: it reads as empty, and the header
        # is reported (``empty_past_end``, given out by open_data as the section_errors are), as LLVM's reader does.
        if max(map(add, offs, sizes), default=0) > size_in:
            for i in range(shnum):
                if types[i] != SHT_NOBITS and offs[i] + sizes[i] > size_in:
                    (self.section_errors if sizes[i] else self.empty_past_end)[i] = DecodeError(
                        f"section header: contents ({sizes[i]:#x} bytes at {offs[i]:#x}) run past the end of the file "
                        f"({size_in:#x} bytes)", file=path, member=member, section_index=i,
                        section_name=self.section_name(i), offset=self.e_shoff + i * row)
        bad = self.section_errors
        # A relocation section whose sh_info names no section applies to nothing: that section's error (LLVM
        # warns too).  Checked by the column's maximum; walked only when it is past the table.
        infos = self.section_infos
        if max(infos, default=0) >= shnum:
            for i in range(shnum):
                if types[i] in (SHT_REL, SHT_RELA, SHT_CREL) and infos[i] >= shnum and i not in bad:
                    bad[i] = DecodeError(
                        f"relocation section: sh_info {infos[i]} names no section (the section table has {shnum}): "
                        f"its relocations apply to nothing", file=path, member=member, section_index=i,
                        section_name=self.section_name(i), offset=self.e_shoff + i * row)
            self.section_errors = dict(sorted(bad.items()))
            bad = self.section_errors
        if self.has_compressed():
            for i in range(shnum):
                if flags[i] & SHF_COMPRESSED and types[i] != SHT_NOBITS and i not in bad:
                    try:
                        self._compression[i] = self._compression_type(i)
                    except DecodeError as exc:
                        bad[i] = exc
            if len(bad) > 1:
                self.section_errors = dict(sorted(bad.items()))

    # -- the section header table by fields: one sequence per field, indexed by section -------------------------
    section_name_offsets = property(lambda self: self.columns[0], doc="sh_name of every section")
    section_types = property(lambda self: self.columns[1], doc="sh_type of every section")
    section_flags = property(lambda self: self.columns[2], doc="sh_flags of every section")
    section_addrs = property(lambda self: self.columns[3], doc="sh_addr of every section")
    section_offsets = property(lambda self: self.columns[4], doc="sh_offset of every section")
    section_sizes = property(lambda self: self.columns[5], doc="sh_size of every section (as the header says)")
    section_links = property(lambda self: self.columns[6], doc="sh_link of every section")
    section_infos = property(lambda self: self.columns[7], doc="sh_info of every section")
    section_aligns = property(lambda self: self.columns[8], doc="sh_addralign of every section")
    section_entsizes = property(lambda self: self.columns[9], doc="sh_entsize of every section")

    def section_type(self, i: int) -> int:
        """sh_type of section ``i`` (without making its Section)."""
        return self.columns[1][i]

    def section_size(self, i: int) -> int:
        """sh_size of section ``i`` as its header says (without making its Section)."""
        return self.columns[5][i]

    def _read_columns(self, table) -> list:
        """The header table (a memoryview) as ten columns, one per field, read as 32- and 64-bit words: cast in
        place when the file's byte order is the machine's, else from a byte-swapped copy.  No Python object
        per header.  Lists, but for sh_name, sh_flags, sh_addr, sh_addralign and sh_entsize: sequences (views) of
        the words."""
        native = (self.endian == "<") == (sys.byteorder == "little")

        def words(code):
            if native:
                return table.cast(code)
            from array import array       # here: array imports collections, which most runs do without
            a = array(code)
            a.frombytes(table)
            a.byteswap()
            return memoryview(a)
        u32 = words("I")
        # sh_name, sh_flags, sh_addr, sh_addralign and sh_entsize are kept as strided views of the table (read an
        # item at a time, as the others; no list made): most readers look at few of them (names are found in the
        # name table, flags mostly as flag_bytes), and a list is 8 bytes a section and an integer object for most
        # values past 256 (a 30,000-section object: megabytes of sh_name and sh_flags that the kernel has to find
        # pages for)
        if not self.is64:          # ten 32-bit fields
            return [u32[k::10] if k in (0, 2, 3, 8, 9) else u32[k::10].tolist() for k in range(10)]
        u64 = words("Q")           # sh_name, sh_type | flags addr offset size | sh_link, sh_info | align entsize
        return [u32[0::16], u32[1::16].tolist(), u64[1::8], u64[2::8],
                u64[3::8].tolist(), u64[4::8].tolist(), u32[10::16].tolist(), u32[11::16].tolist(),
                u64[6::8], u64[7::8]]

    def flag_bytes(self) -> bytes:
        """The low byte of every section's sh_flags (SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR, ..., SHF_INFO_LINK,
        SHF_LINK_ORDER), one byte per section as the header table has it: one strided copy, no list."""
        return self._flag_byte(0)

    def has_compressed(self) -> bool:
        """Whether any section has SHF_COMPRESSED (in sh_flags as the header table has it)."""
        return self._flag_byte(1).translate(_COMPRESSED_BIT).find(1) >= 0

    def _flag_byte(self, k: int) -> bytes:
        """Byte ``k`` (0: the lowest) of every section's sh_flags, one byte per section (a strided copy out of the
        header table, made once: at tens of thousands of sections each copy is a pass of cache misses, and a rewrite asks
        several times)."""
        got = self._flag_bytes.get(k)
        if got is None:
            n = self.section_count
            if not n:
                return b""
            row = self._shdr.size
            start = self.e_shoff + 8 + (k if self.endian == "<" else (7 - k if self.is64 else 3 - k))
            got = self._flag_bytes[k] = bytes(memoryview(self.data)[start:start + (n - 1) * row + 1:row])
        return got

    @property
    def section_count(self) -> int:
        return len(self.columns[0])

    def header(self, i: int) -> tuple:
        """Section ``i``'s header fields, in file order (sh_name, sh_type, ..., sh_entsize)."""
        return tuple(c[i] for c in self.columns)

    @property
    def sections(self) -> list:
        """The sections, in index order (made on first use from ``columns``)."""
        secs = self._sections
        if secs is None:
            secs = self._sections = [self.section(i) for i in range(self.section_count)]
            self._section_cache = None      # (after _sections is set: section() looks there when this is None)
        return secs

    def section(self, i: int) -> Section:
        """Section ``i`` (the same object ``sections[i]`` is), without making the others.  Threads may share the
        file: a section made by two at once is the first one's for both (``setdefault``), and one that finds
        the cache gone (``sections`` made meanwhile) finds the list."""
        cache = self._section_cache
        if cache is None:
            return self._sections[i]
        sec = cache.get(i)
        if sec is None:
            nm, t, fl, addr, off, size, link, info, align, entsize = self.header(i)
            sec = cache.setdefault(i, Section(i, self.section_name(i), t, fl, addr, off, size, link, info, align,
                                              entsize, self._compression.get(i), self._section_bytes()))
        return sec

    def section_name(self, i: int) -> str:
        """The name of section ``i`` (from the section name table)."""
        return self._name_at(self.section_name_offsets[i])

    def _name_at(self, nm: int) -> str:
        """The name at offset ``nm`` of the section name table (read once per offset)."""
        name = self._names.get(nm)
        if name is None:
            name = self._names[nm] = self._strtab_get(*self._names_at, nm)
        return name

    def indices_named(self, names) -> list:
        """The indices of the sections whose name is one of ``names`` (a collection), in index order: in a big
        table found in the section name table (each place a name occurs) rather than by decoding every
        section's name; in a small one, each name the table uses read once (they are kept) and looked up."""
        col = self.section_name_offsets
        if len(col) <= 2 * len(names):
            # a small table: each name it uses read once and looked up (fewer steps than a search per name)
            wanted = set(names)
            wanted.discard("")
            found = {nm for nm in set(col) if self._name_at(nm) in wanted}
            return self._indices_of_offsets(found)
        base, size = self._names_at
        data, at = self._name_table()
        found = set()
        for name in names:
            b = name.encode("utf-8", "surrogateescape")
            p = data.find(b, at, at + size) if b else -1
            while p >= 0:
                if self._strtab_get(base, size, p - at) == name:
                    found.add(p - at)
                p = data.find(b, p + 1, at + size)
        return self._indices_of_offsets(found)

    def _indices_of_offsets(self, found: set) -> list:
        """The indices of the sections whose sh_name is in ``found``, in index order: a few found in the sh_name
        words' bytes (:func:`_word_starts`), many (or a column that is a list) by one pass over the column."""
        if not found:
            return []
        names = self.section_name_offsets
        out = _word_starts(names.tobytes(), found, 64) if not isinstance(names, list) else None
        if out is None:
            return list(compress(range(len(names)), map(found.__contains__, names)))
        return sorted(out)

    # -- helpers -------------------------------------------------------------------------------
    def _name_table(self) -> tuple:
        """(bytes holding the section name table, where it starts in them): the file's bytes, or a copy of the
        table when they are a view (an archive member's: a memoryview has no ``find``)."""
        t = self.__dict__.get("_name_text")
        if t is None:
            base, size = self._names_at
            t = (self.data[base:base + size].tobytes(), 0) if type(self.data) is memoryview else (self.data, base)
            self._name_text = t
        return t

    def _strtab_get(self, base: int, size: int, off: int) -> str:
        """The name at ``off`` of the section name table (at ``base``, ``size`` bytes: ``_names_at``)."""
        if off >= size:
            return "" if off == 0 else f"<bad name offset {off:#x}>"
        data, at = self._name_table()
        end = data.find(b"\0", at + off, at + size)
        if end < 0:
            end = at + size
        return data[at + off:end].decode("utf-8", "surrogateescape")

    def _read_phdrs(self):
        self.segments = []
        if not self.e_phoff or not self.e_phnum:
            return
        st = struct.Struct(self.endian + ("IIQQQQQQ" if self.is64 else "IIIIIIII"))
        if self.e_phoff + self.e_phnum * st.size > len(self.data):
            return
        for i in range(self.e_phnum):
            v = st.unpack_from(self.data, self.e_phoff + i * st.size)
            if self.is64:
                p_type, p_flags, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align = v
            else:
                p_type, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_flags, p_align = v
            self.segments.append(dict(type=p_type, flags=p_flags, offset=p_offset, vaddr=p_vaddr,
                                      paddr=p_paddr, filesz=p_filesz, memsz=p_memsz, align=p_align))

    def _compression_type(self, i: int) -> str:
        off, size = self.section_offsets[i], self.section_sizes[i]
        if size < 4:
            raise DecodeError("compressed section too small for its header", file=self.path,
                              member=self.member, section_index=i, section_name=self.section_name(i), offset=off)
        ch_type = struct.unpack_from(self.endian + "I", self.data, off)[0]
        return {1: "zlib", 2: "zstd"}.get(ch_type, f"unknown({ch_type})")

    def _section_bytes(self):
        """The sections' loader (one per file, made with the first section)."""
        ld = self.__dict__.get("_bytes_loader")
        if ld is None:
            ld = self._bytes_loader = _SectionBytes(self)
        return ld

    # -- symbols and relocations ---------------------------------------------------------------
    @property
    def format_name(self) -> str:
        return f"elf{64 if self.is64 else 32}-{'little' if self.endian == '<' else 'big'}-{self.machine_name}"

    def _symtab_section(self):
        """The first SHT_SYMTAB section, else the first SHT_DYNSYM, else None (found once, from the header
        table: every relocation section asks)."""
        i = self.__dict__.get("_symtab_index", -1)
        if i == -1:
            types = self.section_types
            i = next((types.index(t) for t in (SHT_SYMTAB, SHT_DYNSYM) if t in types), None)
            self._symtab_index = i
        return None if i is None else self.section(i)

    def _shndx_sections(self, symtab_index: int) -> list:
        """The SHT_SYMTAB_SHNDX sections that extend symbol table ``symtab_index``, in index order."""
        types, links = self.section_types, self.section_links
        return [self.section(i) for i in range(self.section_count)
                if types[i] == SHT_SYMTAB_SHNDX and links[i] == symtab_index]

    @property
    def symbols(self) -> list:
        """The static symbol table (.symtab), else the dynamic one; index 0 is the null symbol."""
        if self._symbols is None:
            self._symbols = self.read_symbols(self._symtab_section())
        return self._symbols

    def read_symbols(self, symtab: Section | None) -> list:
        if symtab is None:
            return []
        loc = dict(file=self.path, member=self.member, section_index=symtab.index, section_name=symtab.name)
        data = symtab.data()
        st = struct.Struct(self.endian + ("IBBHQQ" if self.is64 else "IIIBBH"))
        n = len(data) // st.size
        strsec = self.section(symtab.link) if 0 < symtab.link < self.section_count else None
        strdata = strsec.data() if strsec is not None else b""
        shndx_data = None
        for s in self._shndx_sections(symtab.index):
            shndx_data = s.data()
        out = []
        bad = {}
        find = strdata.find
        for i, v in enumerate(st.iter_unpack(data[:n * st.size])):
            if self.is64:
                nm, info, other, shndx, value, size = v
            else:
                nm, value, size, info, other, shndx = v
            if nm:
                if nm >= len(strdata):
                    # costs the name, not the table: the symbol has none, symbol_name_errors says why
                    bad[i] = (f"the name offset {nm:#x} of symbol {i} is past the end of the string table "
                              f"[{symtab.link}] ({len(strdata):#x} bytes)")
                    out.append(Symbol(i, "", value, size, info & 0xF, info >> 4, other, shndx))
                    continue
                e = find(b"\0", nm)
                name = strdata[nm:e if e >= 0 else len(strdata)].decode("utf-8", "surrogateescape")
            else:
                name = ""
            if shndx == SHN_XINDEX and shndx_data is not None and 4 * i + 4 <= len(shndx_data):
                shndx = struct.unpack_from(self.endian + "I", shndx_data, 4 * i)[0]
            out.append(Symbol(i, name, value, size, info & 0xF, info >> 4, other, shndx))
        # A section symbol has no name of its own: use its section's name, as readelf does.
        for s in out:
            if s.type == 3 and not s.name and 0 < s.shndx < self.section_count:
                s.name = self.section_name(s.shndx)
        if bad:
            self.symbol_name_errors.setdefault(symtab.index, {}).update(bad)
        return out

    @property
    def symbol_name_errors(self) -> dict:
        """symbol table index -> {symbol index: why its name cannot be read} (names read as "")."""
        d = self.__dict__.get("_symbol_name_errors")
        if d is None:
            d = self.__dict__["_symbol_name_errors"] = {}
        return d

    def check_symbols(self) -> None:
        """Raise what reading ``symbols`` would raise, without making a Symbol per symbol (for a reader
        that reads them only when asked: the same errors, at the same point)."""
        if self._symbols is not None or getattr(self, "_symbols_checked", False):
            return
        try:
            ok = self._symbols_look_readable()
        except Exception:
            ok = False
        if not ok:
            self.symbols               # raises the exact error (or reads them after all)
        self._symbols_checked = True

    def _symbols_look_readable(self) -> bool:
        """The section reads of read_symbols, in its order, and every name offset inside the string table."""
        symtab = self._symtab_section()
        if symtab is None:
            return True
        data = symtab.data()
        strsec = self.section(symtab.link) if 0 < symtab.link < self.section_count else None
        strdata = strsec.data() if strsec is not None else b""
        for s in self._shndx_sections(symtab.index):
            s.data()
        st = struct.Struct(self.endian + ("IBBHQQ" if self.is64 else "IIIBBH"))
        n = len(data) // st.size
        if not n:
            return True
        if self.is64 and self.endian == "<" and sys.byteorder == "little":
            top = max(map(and_, memoryview(data[:n * st.size]).cast("Q")[0::3].tolist(), repeat(0xFFFFFFFF)))
        else:
            top = max(v[0] for v in st.iter_unpack(data[:n * st.size]))
        return top < len(strdata) or top == 0

    def function_names(self, shndx: int | None = None, thumb: bool = False) -> dict:
        """value -> name of the first STT_FUNC symbol (in table order) at each value, of ``symbols``; only
        those in section ``shndx`` when given; ``thumb``: the value with bit 0 cleared.  Reads only the
        function symbols when ``symbols`` has not been read yet."""
        index = getattr(self, "_function_index", None)
        if index is None:
            index = self._function_index = {}
            if self._symbols is None:     # the first call: maybe the only one (a linked file's map)
                names = self._function_names_raw(shndx, thumb)
                if names is not None:
                    return names
        # Later calls (an object with a map per text section): all sections' names at once, kept.
        groups = index.get(bool(thumb))
        if groups is None:
            every, by_section = {}, {}
            for s in self.symbols:
                if s.type != 2:
                    continue
                v = s.value & ~1 if thumb else s.value
                if v not in every:
                    every[v] = s.name
                g = by_section.get(s.shndx)
                if g is None:
                    g = by_section[s.shndx] = {}
                if v not in g:
                    g[v] = s.name
            groups = index[bool(thumb)] = (every, by_section)
        return dict(groups[0] if shndx is None else groups[1].get(shndx, ()))

    def _function_names_raw(self, shndx, thumb):
        """function_names straight from the table, or None where read_symbols must decide (it raises
        for a bad name offset; extended section indexes)."""
        symtab = self._symtab_section()
        if symtab is None:
            return {}
        data = symtab.data()
        st = struct.Struct(self.endian + ("IBBHQQ" if self.is64 else "IIIBBH"))
        n = len(data) // st.size
        strsec = self.section(symtab.link) if 0 < symtab.link < self.section_count else None
        strdata = strsec.data() if strsec is not None else b""
        if self.is64 and self.endian == "<" and sys.byteorder == "little" and strdata[:1] == b"\0" \
                and strdata[-1:] == b"\0" and strdata.isascii():
            return self._function_names_le64(data[:n * st.size], strdata, shndx, thumb)
        rows = list(st.iter_unpack(data[:n * st.size]))
        if self.is64:
            nms = [v[0] for v in rows]
            funcs = [(v[0], v[4], v[3]) for v in rows if v[1] & 0xF == 2]
        else:
            nms = [v[0] for v in rows]
            funcs = [(v[0], v[1], v[5]) for v in rows if v[3] & 0xF == 2]
        if nms and max(nms) >= len(strdata) and any(nm and nm >= len(strdata) for nm in nms):
            return None
        if shndx is not None and any(x == SHN_XINDEX for _, _, x in funcs):
            return None
        names = {}
        find = strdata.find
        for nm, value, x in funcs:
            if shndx is not None and x != shndx:
                continue
            v = value & ~1 if thumb else value
            if v in names:
                continue
            if nm:
                e = find(b"\0", nm)
                names[v] = strdata[nm:e if e >= 0 else len(strdata)].decode("utf-8", "surrogateescape")
            else:
                names[v] = ""
        return names

    @staticmethod
    def _function_names_le64(data, strdata, shndx, thumb):
        """_function_names_raw of a little-endian ELF64 table on a little-endian machine with an ASCII
        string table that starts and ends with NUL: by columns (no Python code per symbol): the fields
        as strides of the table (st_name, st_info, st_shndx, st_value), the names from the string table
        split at its NULs (a name that starts inside another string looked up by itself)."""
        mv = memoryview(data)
        name_off = mv.cast("I")[0::6]
        if len(name_off) and max(name_off) >= len(strdata):
            return None               # read_symbols says which one is bad
        sel = data[4::24].translate(_IS_FUNC)         # st_info: 1 for STT_FUNC
        starts = list(compress(name_off, sel))
        values = list(compress(mv.cast("Q")[1::3], sel))
        if shndx is not None:
            sections = list(compress(mv.cast("H")[3::12], sel))
            if SHN_XINDEX in sections:
                return None
            keep = bytes(map(shndx.__eq__, sections))
            starts, values = list(compress(starts, keep)), list(compress(values, keep))
        if thumb:
            values = list(map(and_, values, repeat(~1)))
        text = strdata.decode("ascii")
        parts = text.split("\0")
        at = dict(zip(accumulate(map((1).__add__, map(len, parts)), initial=0), parts))
        names = list(map(at.get, starts))
        if None in names:             # names that are the tail of another string
            names = [text[s:text.find("\0", s)] if n is None else n for n, s in zip(names, starts)]
        # the first symbol at a value wins: later pairs overwrite earlier ones, so go backwards
        return dict(zip(reversed(values), reversed(names)))

    def relocation_sections_for(self, section: Section) -> list:
        if self._relocs is None:
            self._relocs = {}
            types, infos = self.section_types, self.section_infos
            for i in range(self.section_count):
                if types[i] in (SHT_REL, SHT_RELA, SHT_CREL) and infos[i]:
                    self._relocs.setdefault(infos[i], []).append(i)
        return [self.section(i) for i in self._relocs.get(section.index, ())]

    def relocations_for(self, section: Section) -> list:
        """The relocations (REL and RELA) whose target is ``section``, in file order."""
        out = []
        for rs in self.relocation_sections_for(section):
            out.extend(self.read_relocations(rs))
        return out

    def read_relocations(self, rs: Section) -> list:
        loc = dict(file=self.path, member=self.member, section_index=rs.index, section_name=rs.name)
        if rs.type == SHT_CREL:
            return self._read_crel(rs, loc)
        rela = rs.type == SHT_RELA
        if self.is64:
            st = struct.Struct(self.endian + ("QQq" if rela else "QQ"))
        else:
            st = struct.Struct(self.endian + ("IIi" if rela else "II"))
        data = rs.data()
        if len(data) % st.size:
            raise DecodeError(f"size {len(data)} is not a multiple of the entry size {st.size}",
                              offset=len(data) - len(data) % st.size, **loc)
        syms = self._symbols_for(rs)   # the symbol table this relocation section links to
        nsyms = len(syms)
        out = []
        shift, mask = (32, 0xFFFFFFFF) if self.is64 else (8, 0xFF)
        for i, v in enumerate(st.iter_unpack(data)):
            off, info = v[0], v[1]
            sym, typ = info >> shift, info & mask
            # a symbol index past the table costs the symbol (None), not the relocation section
            out.append(Relocation(off, typ, sym, v[2] if rela else None, syms[sym] if 0 < sym < nsyms else None))
        return out

    def _symbols_for(self, rs: Section) -> list:
        symtab = self.section(rs.link) if 0 < rs.link < self.section_count else None
        return self.symbols if symtab is self._symtab_section() else self.read_symbols(symtab)

    def _read_crel(self, rs: Section, loc: dict) -> list:
        """SHT_CREL (LLVM >= 19, ``-Wa,--crel``): a ULEB128 header ``count * 8 | addend_bit * 4 | shift``, then
        per relocation a first byte holding offset-delta bits and flags (1: symbol delta, 2: type delta,
        4: addend delta, with explicit addends), the rest of a long offset delta as ULEB128, and the SLEB128
        deltas the flags announce."""
        from ..binary import Reader
        r = Reader(rs.data(), self.endian)
        try:
            hdr = r.uleb("CREL header")
        except DecodeError as exc:
            raise exc.located(**loc) from None
        count, explicit, shift = hdr >> 3, bool(hdr & 4), hdr & 3
        flag_bits = 3 if explicit else 2
        if count > r.remaining():   # every relocation takes at least one byte
            raise DecodeError(f"CREL header claims {count} relocations, only {r.remaining()} bytes follow",
                              offset=0, **loc)
        syms = self._symbols_for(rs)
        nsyms = len(syms)
        umask = (1 << (64 if self.is64 else 32)) - 1
        offset = addend = sym = typ = 0
        out = []
        try:
            for i in range(count):
                start = r.pos
                b = r.u8("CREL entry")
                offset += b >> flag_bits
                if b >= 0x80:
                    offset += (r.uleb("CREL offset delta") << (7 - flag_bits)) - (0x80 >> flag_bits)
                if b & 1:
                    sym = (sym + r.sleb("CREL symbol delta")) & 0xFFFFFFFF
                if b & 2:
                    typ = (typ + r.sleb("CREL type delta")) & 0xFFFFFFFF
                if b & 4 and explicit:
                    addend = (addend + r.sleb("CREL addend delta")) & umask
                signed = addend - (umask + 1) if addend > umask >> 1 else addend
                out.append(Relocation(((offset & umask) << shift) & umask, typ, sym, signed if explicit else None,
                                      syms[sym] if 0 < sym < nsyms else None))
        except DecodeError as exc:
            raise exc.located(**loc) from None
        return out

    def section_for_address(self, addr: int):
        """The allocated section containing ``addr`` (linked files)."""
        for s in self.sections:
            if s.flags & SHF_ALLOC and s.addr <= addr < s.addr + s.size and s.type != 0:
                return s
        return None

    def symbol_at(self, shndx: int | None, value: int):
        """Function/object symbols defined exactly at ``value`` (in section ``shndx`` when given)."""
        return [s for s in self.symbols
                if s.value == value and s.type in (1, 2) and (shndx is None or s.shndx == shndx)]


class _SectionBytes:
    """A section's ``_loader`` in an ELF file: what reading its bytes needs (the file's bytes, its
    section errors, names, word size and byte order), not the ElfFile itself.  A bound method of the file
    would make the file and its sections a reference cycle, and the file's bytes (an archive's whole
    memory map, for its members) would then wait for the cyclic collector, which the command runs rarely
    (cli.run raises its threshold), raising the peak memory of an extract of many members."""
    __slots__ = ("data", "errors", "path", "member", "is64", "endian")

    def __init__(self, elf):
        self.data, self.errors, self.path, self.member = elf.data, elf.section_errors, elf.path, elf.member
        self.is64, self.endian = elf.is64, elf.endian

    def __call__(self, sec: Section) -> bytes:
        if sec.type == SHT_NOBITS:
            return b""
        bad = self.errors.get(sec.index)
        if bad is not None:
            raise bad
        raw = self.data[sec.offset:sec.offset + sec.size]
        if type(raw) is memoryview:       # (an archive member: a view of the archive's map) the section's bytes
            raw = raw.tobytes()
        if not sec.flags & SHF_COMPRESSED:
            return raw
        loc = dict(file=self.path, member=self.member, section_index=sec.index, section_name=sec.name)
        if self.is64:
            hsize = 24
            if len(raw) < hsize:
                raise DecodeError("truncated compression header (expected 24 bytes)", offset=0, **loc)
            ch_type, _res, ch_size, _al = struct.unpack_from(self.endian + "IIQQ", raw, 0)
        else:
            hsize = 12
            if len(raw) < hsize:
                raise DecodeError("truncated compression header (expected 12 bytes)", offset=0, **loc)
            ch_type, ch_size, _al = struct.unpack_from(self.endian + "III", raw, 0)
        if ch_type not in (1, 2):
            raise DecodeError(f"unknown compression type {ch_type} (expected 1 zlib or 2 zstd)", offset=0, **loc)
        from .compression import decompress
        try:
            return decompress("zlib" if ch_type == 1 else "zstd", raw[hsize:], ch_size, "ch_size", hsize)
        except DecodeError as exc:
            raise exc.located(**loc) from None
