"""COFF object files (regular and /bigobj), read with ``struct`` only.

Sections are numbered from 1 as COFF (and ``llvm-readobj --sections``) number them.  Long section names
(``/123`` decimal or ``//BASE64`` offsets into the string table) are resolved.  The reader checks every
offset and count against the file size before it uses it, so a hostile file ends in a
:class:`~objllvm.errors.DecodeError` naming the byte offset, never in a large allocation.
"""
from __future__ import annotations

import struct

from ..errors import DecodeError
from .base import ObjectFile, Relocation, Section, Symbol

MACHINE_NAMES = {
    0x14C: "i386", 0x8664: "x86-64", 0xAA64: "arm64", 0x1C0: "arm", 0x1C4: "thumb",
    0xA641: "arm64ec", 0xA64E: "arm64x", 0x0: "unknown",
}
IMAGE_FILE_EXECUTABLE_IMAGE = 0x0002
IMAGE_FILE_DLL = 0x2000
IMAGE_SCN_CNT_UNINITIALIZED_DATA = 0x80
IMAGE_SCN_ALIGN_MASK = 0x00F00000
IMAGE_SYM_CLASS_STATIC = 3
IMAGE_COMDAT_SELECT_ASSOCIATIVE = 5
# /bigobj: sig1 = 0, sig2 = 0xFFFF, version >= 2, then this class GUID.
BIGOBJ_CLASS_ID = bytes.fromhex("c7a1bad1eebaa94baf20faf66aa4dcb8")

_HDR = struct.Struct("<HHIIIHH")            # 20 bytes
_BIGHDR = struct.Struct("<HHHHI16sIIIIIII")  # 56 bytes
_SHDR = struct.Struct("<8sIIIIIIHHI")       # 40 bytes
_SYM = struct.Struct("<8sIhHBB")            # 18 bytes
_BIGSYM = struct.Struct("<8sIiHBB")         # 20 bytes
_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def open_objects(data: bytes, path: str, member: str | None = None):
    """The one object in ``data`` (a generator, as every container opener)."""
    if data[:4] == b"\x00\x00\xff\xff" and data[12:28] != BIGOBJ_CLASS_ID and len(data) >= 20 and \
            struct.unpack_from("<H", data, 4)[0] == 0:
        yield CoffImportFile(data, path, member)     # a short import member of an import library
    else:
        yield CoffFile(data, path, member)


class CoffImportFile(ObjectFile):
    """A short import object (import libraries: ``IMPORT_OBJECT_HEADER`` then ``symbol\\0dll\\0``).
    It has no sections; ``import_name`` and ``dll_name`` say what it imports."""
    format = "coff"
    file_type = "IMPORT_OBJECT"
    endian = "<"

    def __init__(self, data: bytes, path: str = "", member: str | None = None):
        self.path, self.member = path, member
        _s1, _s2, _ver, machine, _ts, size = struct.unpack_from("<HHHHII", data, 0)
        self.machine_name = MACHINE_NAMES.get(machine, f"machine-{machine:#x}")
        self.addr_size = 4 if machine in (0x14C, 0x1C0, 0x1C4) else 8
        if 20 + size > len(data):
            raise DecodeError(f"import object data ({size} bytes) runs past the end ({len(data)} bytes)",
                              file=path, member=member, offset=12)
        parts = data[20:20 + size].split(b"\0")
        if len(parts) < 3:
            raise DecodeError("import object: expected 'symbol\\0dll\\0' after the header", file=path,
                              member=member, offset=20)
        self.import_name = parts[0].decode("utf-8", "surrogateescape")
        self.dll_name = parts[1].decode("utf-8", "surrogateescape")
        self.sections = []

    @property
    def format_name(self) -> str:
        return f"coff-import-{self.machine_name}"

    @property
    def symbols(self) -> list:
        return [Symbol(0, self.import_name, 0), Symbol(1, "__imp_" + self.import_name, 0)]


class CoffFile(ObjectFile):
    format = "coff"
    endian = "<"

    def __init__(self, data: bytes, path: str = "", member: str | None = None):
        self.data = data
        self.path = path
        self.member = member
        n = len(data)
        if n >= _BIGHDR.size and data[:4] == b"\x00\x00\xff\xff" and data[12:28] == BIGOBJ_CLASS_ID:
            (_s1, _s2, version, machine, _ts, _cls, _sz, _fl, _mds, _mdo, nsects, symptr,
             nsyms) = _BIGHDR.unpack_from(data, 0)
            self.bigobj = True
            self.characteristics = 0
            hdr_end = _BIGHDR.size
            self._sym = _BIGSYM
        else:
            if n < _HDR.size:
                raise self._err(f"truncated COFF header (expected {_HDR.size} bytes, file has {n})", n)
            if data[:4] == b"\x00\x00\xff\xff":
                raise self._err("anonymous object (sig1=0, sig2=0xFFFF) that is neither /bigobj (class GUID) "
                                "nor a short import object (version 0): not an object with sections", 12)
            machine, nsects, _ts, symptr, nsyms, opt_size, self.characteristics = _HDR.unpack_from(data, 0)
            self.bigobj = False
            hdr_end = _HDR.size + opt_size
            self._sym = _SYM
        self.machine = machine
        self.machine_name = MACHINE_NAMES.get(machine, f"machine-{machine:#x}")
        self.addr_size = 4 if machine in (0x14C, 0x1C0, 0x1C4) else 8
        if self.characteristics & IMAGE_FILE_DLL:
            self.file_type = "IMAGE_FILE_DLL"
        elif self.characteristics & IMAGE_FILE_EXECUTABLE_IMAGE:
            self.file_type = "IMAGE_FILE_EXECUTABLE_IMAGE"
        else:
            self.file_type = "IMAGE_FILE (object)"
        self.is_relocatable = self.file_type == "IMAGE_FILE (object)"
        self.symbol_table_offset = symptr
        self.number_of_symbols = nsyms
        # The string table follows the symbol table; its first u32 is its size (including that u32).
        self._strtab = b""
        if symptr:
            strpos = symptr + nsyms * self._sym.size
            if strpos > n:
                raise self._err(f"symbol table ({nsyms} symbols at {symptr:#x}) runs past the end of the "
                                f"file ({n:#x} bytes)", 8 if not self.bigobj else 48)
            if strpos + 4 <= n:
                strsize = struct.unpack_from("<I", data, strpos)[0]
                if strsize < 4 or strpos + strsize > n:
                    raise self._err(f"string table size {strsize} at {strpos:#x} is bad (expected at least "
                                    f"4 and to end inside the file, {n:#x} bytes)", strpos)
                self._strtab = data[strpos:strpos + strsize]
        if hdr_end + nsects * _SHDR.size > n:
            raise self._err(f"section table ({nsects} sections at {hdr_end:#x}) runs past the end of the "
                            f"file ({n:#x} bytes)", hdr_end)
        self.sections = []
        for i in range(nsects):
            pos = hdr_end + i * _SHDR.size
            (raw_name, vsize, vaddr, rsize, rptr, relptr, _lnptr, nrel, _nln,
             chars) = _SHDR.unpack_from(data, pos)
            name = self._section_name(raw_name, pos)
            if chars & IMAGE_SCN_CNT_UNINITIALIZED_DATA or rptr == 0:
                stored = 0
            else:
                stored = rsize
                if rptr + rsize > n:
                    raise self._err(f"section {i + 1} {name}: raw data ({rsize:#x} bytes at {rptr:#x}) runs past "
                                    f"the end of the file ({n:#x} bytes)", pos + 16)
            align_code = (chars & IMAGE_SCN_ALIGN_MASK) >> 20
            sec = Section(i + 1, name, None, chars, vaddr, rptr, stored, 0, nrel,
                          (1 << (align_code - 1)) if align_code else 0, 0, _loader=self._file_slice())
            sec.virtual_size = vsize
            sec.relocations_offset = relptr
            sec.header_offset = pos
            self.sections.append(sec)
        self._symbols = None
        self._associated = None

    def _err(self, msg, off):
        return DecodeError(msg, file=self.path, member=self.member, offset=off)

    def _string_at(self, off: int, where: int) -> str:
        if off < 4 or off >= len(self._strtab):
            raise self._err(f"name offset {off} is outside the string table ({len(self._strtab)} bytes)", where)
        end = self._strtab.find(b"\0", off)
        if end < 0:
            end = len(self._strtab)
        return self._strtab[off:end].decode("utf-8", "surrogateescape")

    def _section_name(self, raw: bytes, pos: int) -> str:
        if raw[:2] == b"//":             # base64 offset (very large string tables)
            off = 0
            for ch in raw[2:].rstrip(b"\0").decode("latin-1"):
                k = _B64.find(ch)
                if k < 0:
                    raise self._err(f"bad base64 section name {raw!r}", pos)
                off = off * 64 + k
            return self._string_at(off, pos)
        if raw[:1] == b"/" and raw[1:].rstrip(b"\0").isdigit():
            return self._string_at(int(raw[1:].rstrip(b"\0")), pos)
        return raw.rstrip(b"\0").decode("utf-8", "surrogateescape")

    @property
    def format_name(self) -> str:
        return f"coff-{self.machine_name}" + ("-bigobj" if self.bigobj else "")

    @property
    def symbols(self) -> list:
        """Symbol table entries (auxiliary records skipped; ``index`` is the COFF symbol index).

        ``shndx`` is the COFF section number (1-based; 0 undefined, -1 absolute, -2 debug), ``type`` the
        COFF type word, ``bind`` the storage class."""
        if self._symbols is None:
            out = []
            st = self._sym
            base, n = self.symbol_table_offset, self.number_of_symbols
            i = 0
            if base:
                while i < n:
                    name8, value, secno, typ, sclass, naux = st.unpack_from(self.data, base + i * st.size)
                    if name8[:4] == b"\0\0\0\0":
                        off = struct.unpack_from("<I", name8, 4)[0]
                        try:
                            name = self._string_at(off, base + i * st.size)
                        except DecodeError:
                            name = f"<bad name offset {off:#x}>"
                    else:
                        name = name8.rstrip(b"\0").decode("utf-8", "surrogateescape")
                    out.append(Symbol(i, name, value, 0, typ, sclass, 0, secno))
                    i += 1 + naux
            self._symbols = out
        return self._symbols

    def associated_section(self, section: Section) -> int:
        """The section number a COMDAT ``section`` is associative to (IMAGE_COMDAT_SELECT_ASSOCIATIVE in the
        section-definition record after its section symbol), the COFF counterpart of an ELF sh_link; 0 for a
        section that is not.  LLVM writes a function's BB address map this way (PR #191347)."""
        if self._associated is None:
            self._associated = self._read_associations()
        return self._associated.get(section.index, 0)

    def _read_associations(self) -> dict:
        """{section number: associated section number} from the auxiliary section-definition records (static
        symbols of the section's number followed by one record: u32 length, u16 relocations, u16 line
        numbers, u32 checksum, u16 number, u8 selection, and in /bigobj a u16 high half of the number at 16)."""
        out = {}
        st = self._sym
        base, n = self.symbol_table_offset, self.number_of_symbols
        if not base:
            return out
        end = min(n, (len(self.data) - base) // st.size)
        i = 0
        while i < end:
            _name8, value, secno, _typ, sclass, naux = st.unpack_from(self.data, base + i * st.size)
            if sclass == IMAGE_SYM_CLASS_STATIC and naux >= 1 and value == 0 and secno > 0 and i + 1 < end:
                aux = base + (i + 1) * st.size
                number, selection = struct.unpack_from("<HB", self.data, aux + 12)
                if self.bigobj:
                    number |= struct.unpack_from("<H", self.data, aux + 16)[0] << 16
                if selection == IMAGE_COMDAT_SELECT_ASSOCIATIVE and number:
                    out.setdefault(secno, number)
            i += 1 + naux
        return out

    def relocations_for(self, section: Section) -> list:
        """The section's relocations (10-byte records: offset, COFF symbol index, type); the addend is implicit
        (in the section's bytes), so ``addend`` is None.  A table past the end of the file is an error."""
        n = section.info
        off = getattr(section, "relocations_offset", 0)
        if not n or not off:
            return []
        if off + 10 * n > len(self.data):
            raise self._err(f"section {section.index} {section.name}: {n} relocations at {off:#x} run past the "
                            f"end of the file ({len(self.data):#x} bytes)", off)
        by_index = {sym.index: sym for sym in self.symbols}
        out = []
        for i in range(n):
            va, symi, typ = struct.unpack_from("<IIH", self.data, off + 10 * i)
            out.append(Relocation(va, typ, symi, None, by_index.get(symi)))
        return out
