"""Open files of any supported kind and yield the objects inside them.

``iter_objects(path)`` yields :class:`ObjectFile` instances (one per ELF file,
archive member, COFF/Mach-O file, ...) and, for parts that cannot be read,
:class:`~objllvm.errors.ObjllvmError` instances (yielded, not raised), so a
caller can report them and go on with the rest.
"""
import os

from ..errors import DecodeError, ObjllvmError
from .base import ObjectFile, Relocation, Section, Symbol  # noqa: F401  (re-exported)
from .elf import ElfFile
from .files import (AR_MAGIC, BITCODE_MAGIC, BITCODE_WRAPPER_MAGIC, SNIFF_BYTES, THIN_MAGIC,  # noqa: F401
                    NotRegularFile, open_regular, sniff)

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
        yield from elf.file_errors                  # (section names unknown: the rest is read all the same)
        yield from elf.section_errors.values()      # a broken section header costs that section only
        yield from elf.empty_past_end.values()      # an empty section placed past the end: reported, read as empty
    elif kind == "archive":
        if member is not None:
            raise DecodeError("nested archives are not supported", file=path, member=member, offset=0)
        from .archive import Archive
        ar = Archive(data, path)
        for m in ar.members:
            try:
                mdata = m.data()          # a view of the archive's bytes (the member file's, thin archives)
                mkind = sniff(mdata[:SNIFF_BYTES])
                if mkind is None or mkind == "archive":
                    continue          # not an object (e.g. an .rlib's lib.rmeta): nothing LLVM in it
                if mkind != "elf" and type(mdata) is memoryview:
                    mdata = mdata.tobytes()       # (the other containers read bytes)
                yield from open_data(mdata, path, m.name, kind=mkind)
            except ObjllvmError as exc:
                yield exc.located(file=path, member=m.name)
    elif kind in _OTHER_OPENERS:
        import importlib       # (here: it imports warnings, which ELF and archives need not)
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
    that cannot be mapped: empty files), and only its first bytes when they are no object's (nothing else of
    it is read: open_data names what they are).  ``f``: the file already open (binary, at its start), left
    open.

    The map is never closed explicitly: it is closed when the last object referring to it goes (the ELF
    reader, a section's bytes, a memoryview of it), so no view can outlive it.  OSError when unreadable;
    NotRegularFile (an ObjllvmError) for a device, a FIFO, a socket or a directory, found without reading
    or waiting for it."""
    if f is None:
        with open_regular(path) as f:
            return map_file(path, f)
    try:
        size = os.fstat(f.fileno()).st_size
        head = f.read(SNIFF_BYTES)
        kind = sniff(head)
        if kind is None:
            return head
        if size >= _MAP_AT_LEAST and kind in ("elf", "archive"):
            import mmap         # (here: a small file is read, and needs no mmap import)
            try:        # (Python >= 3.13: the map holds no file descriptor of its own)
                return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ, trackfd=False)
            except TypeError:
                return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError, OverflowError):
        pass
    f.seek(0)
    return f.read()


_MAP_AT_LEAST = 1 << 16        # smaller files are read: a map costs more than it saves there


def iter_objects(path: str):
    """Yield every object in the file at ``path``; unreadable parts come as ObjllvmError values."""
    try:
        data = map_file(path)
    except OSError as exc:
        yield ObjllvmError(f"cannot read: {exc.strerror}", file=path)
        return
    except NotRegularFile as exc:
        yield exc
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
