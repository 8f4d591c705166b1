"""What every container (ELF, COFF, Mach-O, bitcode file) gives the codecs.

A container parses file headers; codecs never do.  A codec sees a
:class:`Section` (name, type, flags, bytes), the object's symbols, and the
relocations that apply to that section.
"""
from .._model import dataclass, field


@dataclass(slots=True)
class Symbol:
    index: int
    name: str
    value: int
    size: int = 0
    type: int = 0          # STT_*
    bind: int = 0          # STB_*
    other: int = 0
    shndx: int = 0         # section index (SHN_* for special), SHT_SYMTAB_SHNDX applied

    @property
    def is_section(self) -> bool:
        return self.type == 3   # STT_SECTION


@dataclass(slots=True)
class Relocation:
    offset: int
    type: int
    sym: int               # symbol index (0: none)
    addend: int | None     # None for REL (implicit addend lives in the section bytes)
    symbol: Symbol | None = None


class FileSlice:
    """A section's ``_loader`` that reads ``data[offset:offset + size]`` of the file's bytes: it holds the
    bytes, not the file object, so the file and its sections make no reference cycle (the file's bytes go
    when the last reference does, not at the next cyclic collection)."""
    __slots__ = ("data",)

    def __init__(self, data):
        self.data = data

    def __call__(self, sec) -> bytes:
        return self.data[sec.offset:sec.offset + sec.size]


@dataclass                 # (not slotted: COFF and Mach-O sections carry fields of their own)
class Section:
    index: int
    name: str
    type: int | None       # sh_type for ELF; None where the format has no such field
    flags: int = 0
    addr: int = 0
    offset: int = 0        # file offset of the (possibly compressed) bytes
    size: int = 0          # size of the stored bytes
    link: int = 0
    info: int = 0
    addralign: int = 0
    entsize: int = 0
    compression: str | None = None   # 'zlib' / 'zstd' when SHF_COMPRESSED
    _loader: object = field(default=None, repr=False, compare=False)
    _data: bytes | None = field(default=None, repr=False, compare=False)

    def __init__(self, index: int, name: str, type: int | None, flags: int = 0, addr: int = 0, offset: int = 0,
                 size: int = 0, link: int = 0, info: int = 0, addralign: int = 0, entsize: int = 0,
                 compression: str | None = None, _loader: object = None, _data: bytes | None = None) -> None:
        # written out (the model's own __init__ is general): a container makes one per section, by the thousand
        self.index, self.name, self.type, self.flags, self.addr, self.offset = index, name, type, flags, addr, offset
        self.size, self.link, self.info, self.addralign, self.entsize = size, link, info, addralign, entsize
        self.compression, self._loader, self._data = compression, _loader, _data

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

    def _file_slice(self) -> FileSlice:
        """A loader for sections stored as they are (COFF, Mach-O), one per file: it holds the file's
        bytes, not this object (see FileSlice)."""
        fs = self.__dict__.get("_slice")
        if fs is None:
            fs = self._slice = FileSlice(self.data)   # (every subclass has the file's bytes as .data)
        return fs

    def section_by_name(self, name: str):
        for s in self.sections:
            if s.name == name:
                return s
        return None
