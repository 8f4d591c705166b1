"""What every container (ELF, COFF, Mach-O, bitcode file) gives the codecs.

A container parses file headers; codecs never do.  A codec sees a
:class:`Section` (name, type, flags, bytes), the object's symbols, and the
relocations that apply to that section.
"""
from __future__ import annotations

class _Record:
    """A small record class: positional/keyword construction, ``==`` over the compared fields, a repr of the
    shown ones (what ``@dataclass`` would give), without importing ``dataclasses`` (its import costs more than
    a whole rewrite of a small binary) and with ``__slots__`` (a 60,000-section object makes one per section)."""
    __slots__ = ()
    _shown: tuple = ()         # fields in repr and ==

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self._shown)

    __hash__ = None            # mutable, compared by value: unhashable, as a dataclass with eq=True

    def __repr__(self):
        return f"{type(self).__name__}(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in self._shown) + ")"


class Symbol(_Record):
    __slots__ = _shown = ("index", "name", "value", "size", "type", "bind", "other", "shndx")

    def __init__(self, index: int, name: str, value: int, size: int = 0, type: int = 0, bind: int = 0,
                 other: int = 0, shndx: int = 0):
        self.index = index
        self.name = name
        self.value = value
        self.size = size
        self.type = type            # STT_*
        self.bind = bind            # STB_*
        self.other = other
        self.shndx = shndx          # section index (SHN_* for special), SHT_SYMTAB_SHNDX applied

    @property
    def is_section(self) -> bool:
        return self.type == 3   # STT_SECTION


class Relocation(_Record):
    __slots__ = _shown = ("offset", "type", "sym", "addend", "symbol")

    def __init__(self, offset: int, type: int, sym: int, addend: int | None, symbol: Symbol | None = None):
        self.offset = offset
        self.type = type
        self.sym = sym              # symbol index (0: none)
        self.addend = addend        # None for REL (implicit addend lives in the section bytes)
        self.symbol = symbol


class Section(_Record):
    _shown = ("index", "name", "type", "flags", "addr", "offset", "size", "link", "info", "addralign", "entsize",
              "compression")
    __slots__ = _shown + ("_loader", "_data", "__dict__")     # (COFF and Mach-O add fields of their own)

    def __init__(self, index: int, name: str, type: int | None, flags: int = 0, addr: int = 0, offset: int = 0,
                 size: int = 0, link: int = 0, info: int = 0, addralign: int = 0, entsize: int = 0,
                 compression: str | None = None, _loader=None, _data: bytes | None = None):
        self.index = index
        self.name = name
        self.type = type            # sh_type for ELF; None where the format has no such field
        self.flags = flags
        self.addr = addr
        self.offset = offset        # file offset of the (possibly compressed) bytes
        self.size = size            # size of the stored bytes
        self.link = link
        self.info = info
        self.addralign = addralign
        self.entsize = entsize
        self.compression = compression      # 'zlib' / 'zstd' when SHF_COMPRESSED
        self._loader = _loader
        self._data = _data

    def data(self) -> bytes:
        """The section's contents (decompressed when SHF_COMPRESSED)."""
        if self._data is None:
            self._data = self._loader(self) if self._loader else b""
        return self._data


class ObjectFile:
    """Base of every container.  Subclasses fill in the attributes below."""

    format = "unknown"       # 'elf', 'coff', 'macho', 'bitcode'
    path: str = ""           # file on disk
    member: str | None = None  # archive member name
    endian = "<"
    addr_size = 8
    machine_name = ""
    file_type = ""           # 'ET_REL', 'ET_EXEC', 'ET_DYN', ... or the format's own word
    is_relocatable = False
    sections: list

    @property
    def label(self) -> str:
        return f"{self.path}({self.member})" if self.member else self.path

    def describe(self) -> str:
        return f"{self.format_name} {self.file_type}".strip()

    @property
    def format_name(self) -> str:
        return self.format

    @property
    def symbols(self) -> list:
        return []

    def relocations_for(self, section: Section) -> list:
        return []

    def section_by_name(self, name: str):
        for s in self.sections:
            if s.name == name:
                return s
        return None
