"""Mach-O files (32/64-bit, both byte orders) and fat (universal) files, read with ``struct`` only.

Sections are named ``SEGNAME,sectname`` (``__LLVM,__bitcode``) and numbered from 0 as
``llvm-readobj --sections`` numbers them (symbols keep Mach-O's own 1-based ``n_sect`` in ``shndx``).
Every load command is kept in ``load_commands``; each ``LC_LINKER_OPTION`` (cmd 0x2D) is also given as a
pseudo-section named ``LC_LINKER_OPTION`` (type None, data = the whole command, header included) so a
codec can decode it.  A fat file gives one object per slice, ``member`` = the slice's architecture name.
Every offset and count is checked against the file size before use.
"""
from __future__ import annotations

import struct

from .._model import dataclass
from ..errors import DecodeError, ObjllvmError
from .base import ObjectFile, Relocation, Section, Symbol

LC_SEGMENT = 0x1
LC_SYMTAB = 0x2
LC_SEGMENT_64 = 0x19
LC_LINKER_OPTION = 0x2D

FILE_TYPES = {1: "MH_OBJECT", 2: "MH_EXECUTE", 3: "MH_FVMLIB", 4: "MH_CORE", 5: "MH_PRELOAD", 6: "MH_DYLIB",
              7: "MH_DYLINKER", 8: "MH_BUNDLE", 9: "MH_DYLIB_STUB", 10: "MH_DSYM", 11: "MH_KEXT_BUNDLE",
              12: "MH_FILESET"}
CPU_ARCH_ABI64 = 0x01000000
CPU_ARCH_ABI64_32 = 0x02000000
CPU_NAMES = {7: "i386", 7 | CPU_ARCH_ABI64: "x86_64", 12: "arm", 12 | CPU_ARCH_ABI64: "arm64",
             12 | CPU_ARCH_ABI64_32: "arm64_32", 18: "ppc", 18 | CPU_ARCH_ABI64: "ppc64"}
# Section types whose contents are not in the file.
_ZEROFILL = {0x1, 0xC, 0x12}
SECTION_TYPE_MASK = 0xFF

_MAGICS = {b"\xfe\xed\xfa\xce": (">", False), b"\xce\xfa\xed\xfe": ("<", False),
           b"\xfe\xed\xfa\xcf": (">", True), b"\xcf\xfa\xed\xfe": ("<", True)}
FAT_MAGIC = b"\xca\xfe\xba\xbe"
FAT_MAGIC_64 = b"\xca\xfe\xba\xbf"


def arch_name(cputype: int, cpusubtype: int) -> str:
    sub = cpusubtype & 0x00FFFFFF
    if cputype == 12 | CPU_ARCH_ABI64 and sub == 2:
        return "arm64e"
    if cputype == 7 | CPU_ARCH_ABI64 and sub == 8:
        return "x86_64h"
    return CPU_NAMES.get(cputype, f"cpu{cputype:#x}")


@dataclass
class LoadCommand:
    cmd: int
    offset: int        # file offset of the command (within the slice)
    data: bytes        # the whole command, header included

    @property
    def cmdsize(self) -> int:
        return len(self.data)


def open_objects(data: bytes, path: str, member: str | None = None):
    """The object(s) in ``data``: one for a thin Mach-O file, one per slice for a fat file.  A bad slice
    is yielded as a DecodeError value; the other slices still come."""
    if data[:4] in (FAT_MAGIC, FAT_MAGIC_64):
        for slice_data, arch, hdr_off in fat_slices(data, path, member):
            m = arch if member is None else f"{member}:{arch}"
            try:
                yield MachOFile(slice_data, path, m)
            except ObjllvmError as exc:
                exc.located(file=path, member=m)
                if exc.offset is not None:
                    exc.message += f" (offset within the slice whose fat_arch entry is at {hdr_off:#x})"
                yield exc
    else:
        yield MachOFile(data, path, member)


def fat_slices(data: bytes, path: str = "", member: str | None = None):
    """(bytes, arch name, fat_arch entry offset) of every slice of a fat file."""
    n = len(data)
    is64 = data[:4] == FAT_MAGIC_64
    if n < 8:
        raise DecodeError(f"truncated fat header (expected 8 bytes, file has {n})", file=path, member=member,
                          offset=0)
    nfat = struct.unpack_from(">I", data, 4)[0]
    ent = struct.Struct(">iiQQII" if is64 else ">iiIII")
    if 8 + nfat * ent.size > n:
        raise DecodeError(f"fat header lists {nfat} architectures ({ent.size} bytes each), more than the file "
                          f"holds ({n} bytes)", file=path, member=member, offset=4)
    out = []
    for i in range(nfat):
        pos = 8 + i * ent.size
        cputype, cpusub, off, size = ent.unpack_from(data, pos)[:4]
        arch = arch_name(cputype & 0xFFFFFFFF, cpusub)
        if off + size > n or off < 8 + nfat * ent.size and size:
            raise DecodeError(f"slice {i} ({arch}): {size:#x} bytes at {off:#x} lie outside the file "
                              f"({n:#x} bytes) or over the fat header", file=path, member=member, offset=pos + 8)
        out.append((data[off:off + size], arch, pos))
    return out


class MachOFile(ObjectFile):
    format = "macho"

    def __init__(self, data: bytes, path: str = "", member: str | None = None):
        self.data = data
        self.path = path
        self.member = member
        n = len(data)
        magic = data[:4]
        if magic not in _MAGICS:
            raise self._err(f"not a Mach-O file (bad magic {magic.hex(' ')})", 0)
        self.endian, self.is64 = _MAGICS[magic]
        e = self.endian
        hsize = 32 if self.is64 else 28
        if n < hsize:
            raise self._err(f"truncated Mach-O header (expected {hsize} bytes, file has {n})", n)
        cputype, cpusub, filetype, ncmds, sizeofcmds, self.flags = struct.unpack_from(e + "iiIIII", data, 4)
        self.cputype, self.cpusubtype, self.filetype = cputype & 0xFFFFFFFF, cpusub, filetype
        self.addr_size = 8 if self.is64 else 4
        self.machine_name = arch_name(self.cputype, cpusub)
        self.file_type = FILE_TYPES.get(filetype, f"MH_{filetype:#x}")
        self.is_relocatable = filetype == 1
        if hsize + sizeofcmds > n:
            raise self._err(f"load commands ({sizeofcmds} bytes) run past the end of the file ({n} bytes)", 20)
        end = hsize + sizeofcmds
        self.load_commands = []
        self.sections = []
        self._symtab = None
        pseudo = []
        pos = hsize
        u32x2 = struct.Struct(e + "II")
        for i in range(ncmds):
            if pos + 8 > end:
                raise self._err(f"load command {i} header at {pos:#x} runs past sizeofcmds ({sizeofcmds} bytes, "
                                f"{ncmds} commands)", pos)
            cmd, cmdsize = u32x2.unpack_from(data, pos)
            if cmdsize < 8 or pos + cmdsize > end:
                raise self._err(f"load command {i} (cmd {cmd:#x}) has cmdsize {cmdsize} (expected at least 8 and "
                                f"to end inside sizeofcmds)", pos + 4)
            lc = LoadCommand(cmd, pos, data[pos:pos + cmdsize])
            self.load_commands.append(lc)
            if cmd in (LC_SEGMENT, LC_SEGMENT_64):
                self._read_segment(lc, cmd == LC_SEGMENT_64)
            elif cmd == LC_SYMTAB:
                if cmdsize < 24:
                    raise self._err(f"LC_SYMTAB cmdsize {cmdsize} (expected 24)", pos + 4)
                self._symtab = struct.unpack_from(e + "IIII", data, pos + 8)
            elif cmd == LC_LINKER_OPTION:
                pseudo.append(lc)
            pos += cmdsize
        for lc in pseudo:
            self.sections.append(Section(len(self.sections), "LC_LINKER_OPTION", None, 0, 0, lc.offset,
                                         len(lc.data), _data=lc.data))
        self._symbols = None

    def _err(self, msg, off):
        return DecodeError(msg, file=self.path, member=self.member, offset=off)

    def _read_segment(self, lc: LoadCommand, is64: bool):
        e = self.endian
        seg = struct.Struct(e + ("16sQQQQiiII" if is64 else "16sIIIIiiII"))
        sect = struct.Struct(e + ("16s16sQQIIIIIIII" if is64 else "16s16sIIIIIIIII"))
        body = lc.data
        if len(body) < 8 + seg.size:
            raise self._err(f"segment command too small ({len(body)} bytes, expected at least {8 + seg.size})",
                            lc.offset + 4)
        _segname, _vmaddr, _vmsize, _fileoff, _filesz, _maxp, _initp, nsects, _fl = seg.unpack_from(body, 8)
        first = 8 + seg.size
        if first + nsects * sect.size > len(body):
            raise self._err(f"segment lists {nsects} sections ({sect.size} bytes each), more than its cmdsize "
                            f"({len(body)}) holds", lc.offset + 8 + seg.size - 8)
        n = len(self.data)
        for k in range(nsects):
            p = first + k * sect.size
            v = sect.unpack_from(body, p)
            sectname, segname, addr, size, offset, align, reloff, nreloc, flags = v[:9]
            name = (segname.rstrip(b"\0").decode("utf-8", "surrogateescape") + "," +
                    sectname.rstrip(b"\0").decode("utf-8", "surrogateescape"))
            stored = 0 if (flags & SECTION_TYPE_MASK) in _ZEROFILL else size
            if stored and offset + stored > n:
                raise self._err(f"section {name}: {stored:#x} bytes at {offset:#x} run past the end of the file "
                                f"({n:#x} bytes)", lc.offset + p + (40 if is64 else 36))
            s = Section(len(self.sections), name, None, flags, addr, offset, stored, 0, nreloc,
                        (1 << align) if align < 64 else 0, 0, _loader=self._file_slice())
            s.segment = segname.rstrip(b"\0").decode("utf-8", "surrogateescape")
            s.sectname = sectname.rstrip(b"\0").decode("utf-8", "surrogateescape")
            s.align_log2 = align
            s.relocations_offset = reloff
            s.memory_size = size
            s.relocations_offset = reloff
            s.reserved = v[9:]
            self.sections.append(s)

    @property
    def format_name(self) -> str:
        return f"mach-o{64 if self.is64 else 32}-{self.machine_name}"

    @property
    def symbols(self) -> list:
        """nlist entries from LC_SYMTAB; ``type`` = n_type, ``shndx`` = n_sect (1-based, 0 = NO_SECT),
        ``other`` = n_desc."""
        if self._symbols is None:
            out = []
            if self._symtab:
                symoff, nsyms, stroff, strsize = self._symtab
                st = struct.Struct(self.endian + ("IBBHQ" if self.is64 else "IBBHI"))
                n = len(self.data)
                if symoff + nsyms * st.size > n or stroff + strsize > n:
                    raise self._err(f"symbol table ({nsyms} entries at {symoff:#x}) or string table ({strsize} "
                                    f"bytes at {stroff:#x}) runs past the end of the file ({n:#x} bytes)", symoff)
                strtab = self.data[stroff:stroff + strsize]
                for i in range(nsyms):
                    strx, ntype, nsect, ndesc, value = st.unpack_from(self.data, symoff + i * st.size)
                    if strx and strx < len(strtab):
                        e = strtab.find(b"\0", strx)
                        name = strtab[strx:e if e >= 0 else len(strtab)].decode("utf-8", "surrogateescape")
                    else:
                        name = ""
                    out.append(Symbol(i, name, value, 0, ntype, 0, ndesc, nsect))
            self._symbols = out
        return self._symbols

    def relocations_for(self, section: Section) -> list:
        """The section's relocation_info records (8 bytes: r_address, then r_symbolnum:24, r_pcrel:1, r_length:2,
        r_extern:1, r_type:4).  An external relocation names a symbol; a local one a section (1-based ordinal),
        given as a section symbol (type 3) of that section.  Scattered relocations (32-bit) are skipped.  The
        addend is in the section's bytes (``addend`` None)."""
        n = section.info
        off = getattr(section, "relocations_offset", 0)
        if not n or not off:
            return []
        if off + 8 * n > len(self.data):
            raise self._err(f"section {section.index} {section.name}: {n} relocations at {off:#x} run past the "
                            f"end of the file ({len(self.data):#x} bytes)", off)
        syms = self.symbols
        out = []
        for i in range(n):
            addr, word = struct.unpack_from(self.endian + "iI", self.data, off + 8 * i)
            if addr < 0:                      # R_SCATTERED
                continue
            if self.endian == "<":
                num, ext, typ = word & 0xFFFFFF, (word >> 27) & 1, word >> 28
            else:
                num, ext, typ = word >> 8, (word >> 4) & 1, word & 0xF
            if ext:
                sym = syms[num] if num < len(syms) else None
            else:
                sec = self.sections[num - 1] if 0 < num <= len(self.sections) else None
                sym = Symbol(-1, sec.name if sec else "", sec.addr if sec else 0, 0, 3, 0, 0, num - 1) if sec else None
            out.append(Relocation(addr, typ, num if ext else -1, None, sym))
        return out
