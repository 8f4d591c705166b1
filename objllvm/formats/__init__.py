"""Open files of any supported kind and yield the objects inside them.

``iter_objects(path)`` yields :class:`ObjectFile` instances (one per ELF file,
archive member, COFF/Mach-O file, ...) and, for parts that cannot be read,
:class:`~objllvm.errors.ObjllvmError` instances (yielded, not raised), so a
caller can report them and go on with the rest.
"""
import os
import _struct as struct  # (struct.py only re-exports it: one module fewer to import)

from ..errors import DecodeError, ObjllvmError
AR_MAGIC = b"!<arch>\n"            # (archive.py's; the module is imported for archives only)
THIN_MAGIC = b"!<thin>\n"
from .base import ObjectFile, Relocation, Section, Symbol  # noqa: F401  (re-exported)
from .elf import ELF_MAGIC, ElfFile

# COFF machine values of the targets LLVM emits objects for.
_COFF_MACHINES = {0x14C, 0x8664, 0xAA64, 0x1C4, 0xA641, 0xA64E, 0x1C0, 0x0}
_MACHO_MAGICS = {b"\xfe\xed\xfa\xce", b"\xce\xfa\xed\xfe", b"\xfe\xed\xfa\xcf", b"\xcf\xfa\xed\xfe"}
_FAT_MAGIC = b"\xca\xfe\xba\xbe"
BITCODE_MAGIC = b"BC\xc0\xde"
BITCODE_WRAPPER_MAGIC = b"\xde\xc0\x17\x0b"


def sniff(data: bytes) -> str | None:
    """Name the container kind from the first bytes, or None."""
    head = data[:8]
    if head[:4] == ELF_MAGIC:
        return "elf"
    if head in (AR_MAGIC, THIN_MAGIC):
        return "archive"
    if head[:4] == BITCODE_MAGIC or head[:4] == BITCODE_WRAPPER_MAGIC:
        return "bitcode"
    if head[:4] in _MACHO_MAGICS:
        return "macho"
    if head[:4] == _FAT_MAGIC and len(data) >= 8 and struct.unpack(">I", data[4:8])[0] < 64:
        return "macho-fat"   # Java class files share the magic; they have a large version here
    if len(data) >= 20:
        machine = struct.unpack_from("<H", data, 0)[0]
        if machine in _COFF_MACHINES and machine != 0:
            return "coff"
        # bigobj COFF: sig1=0, sig2=0xFFFF, version>=2, then a class GUID
        if data[:4] == b"\x00\x00\xff\xff" and len(data) >= 32:
            return "coff"
    return None


# Openers of the other container kinds, imported only when such a file shows up.
# Each module provides ``open_objects(data, path, member) -> iterable of ObjectFile | ObjllvmError``.
_OTHER_OPENERS = {
    "coff": "objllvm.formats.coff",
    "macho": "objllvm.formats.macho",
    "macho-fat": "objllvm.formats.macho",
    "bitcode": "objllvm.formats.bitcode",
}


def open_data(data: bytes, path: str, member: str | None = None, *, kind: str | None = None):
    """Yield the objects in ``data`` (already read from ``path``)."""
    kind = kind or sniff(data)
    if kind == "elf":
        elf = ElfFile(data, path, member)
        yield elf
        yield from elf.section_errors.values()      # a broken section header costs that section only
        yield from elf.empty_past_end.values()      # an empty section placed past the end: reported, read as empty
    elif kind == "archive":
        if member is not None:
            raise DecodeError("nested archives are not supported", file=path, member=member, offset=0)
        from .archive import Archive
        ar = Archive(data, path)
        for m in ar.members:
            try:
                mdata = m.data()
                mkind = sniff(mdata)
                if mkind is None or mkind == "archive":
                    continue          # not an object (e.g. an .rlib's lib.rmeta): nothing LLVM in it
                yield from open_data(mdata, path, m.name, kind=mkind)
            except ObjllvmError as exc:
                yield exc.located(file=path, member=m.name)
    elif kind in _OTHER_OPENERS:
        import importlib       # here: it imports warnings (start-up time)
        try:
            mod = importlib.import_module(_OTHER_OPENERS[kind])
        except ImportError:
            raise DecodeError(f"{kind} files are not supported yet", file=path, member=member, offset=0) from None
        yield from mod.open_objects(data, path, member)
    else:
        raise DecodeError("not an ELF file or archive (nor COFF, Mach-O or bitcode): unrecognised magic "
                          f"{data[:4].hex(' ') or '(empty file)'}", file=path, member=member, offset=0)


def map_file(path: str, f=None):
    """The bytes of the file at ``path``: a read-only memory map of an ELF file or archive (only the pages
    that are read cost memory and time), the file's contents otherwise (small files, other containers, files
    that cannot be mapped: pipes, empty files).  ``f``: the file already open (binary, at its start), left
    open.

    The map is never closed explicitly: it is closed when the last object referring to it goes (the ELF
    reader, a section's bytes, a memoryview of it), so no view can outlive it.  OSError when unreadable."""
    if f is None:
        with open(path, "rb") as f:
            return map_file(path, f)
    try:
        size = os.fstat(f.fileno()).st_size
        head = f.read(8)
        if size >= _MAP_AT_LEAST and sniff(head + b"\0" * 24) in ("elf", "archive"):
            import mmap         # (here: a small file is read, and mmap's import is 0.3 ms of its run)
            try:        # (Python >= 3.13: the map holds no file descriptor of its own)
                return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ, trackfd=False)
            except TypeError:
                return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError, OverflowError):
        f.seek(0)
        return f.read()
    return head + f.read()


_MAP_AT_LEAST = 1 << 16        # smaller files are read: a map costs more than it saves there


def iter_objects(path: str):
    """Yield every object in the file at ``path``; unreadable parts come as ObjllvmError values."""
    try:
        data = map_file(path)
    except OSError as exc:
        yield ObjllvmError(f"cannot read: {exc.strerror}", file=path)
        return
    try:
        yield from open_data(data, path)
    except ObjllvmError as exc:
        yield exc.located(file=path)


def open_object(path: str) -> ObjectFile:
    """Open a file holding exactly one object (raise ObjllvmError otherwise)."""
    objs = list(iter_objects(path))
    for o in objs:
        if isinstance(o, ObjllvmError):
            raise o
    if len(objs) != 1:
        raise ObjllvmError(f"expected one object, found {len(objs)}", file=path)
    return objs[0]
