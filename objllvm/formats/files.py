"""Reading input files: what kind of container a file holds (``sniff``, from its first bytes)
and the refusal of anything that is not a regular file (``open_regular``)."""
import os
import stat

from ..errors import ObjllvmError
from .elf import ELF_MAGIC

AR_MAGIC = b"!<arch>\n"            # (archive.py's; the module is imported for archives only)
THIN_MAGIC = b"!<thin>\n"
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
    if head[:4] == _FAT_MAGIC and len(data) >= 8 and int.from_bytes(data[4:8], "big") < 64:
        return "macho-fat"   # Java class files share the magic; they have a large version here
    if len(data) >= 20:
        machine = int.from_bytes(data[0:2], "little")
        if machine in _COFF_MACHINES and machine != 0:
            return "coff"
        # bigobj COFF: sig1=0, sig2=0xFFFF, version>=2, then a class GUID
        if data[:4] == b"\x00\x00\xff\xff" and len(data) >= 32:
            return "coff"
    return None


SNIFF_BYTES = 64               # the first bytes read to tell an object from anything else (sniff needs 32)


class NotRegularFile(ObjllvmError):
    """An input that is not a regular file (a device, a FIFO, a socket, a directory): never read."""


_NOT_REGULAR = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"))


def open_regular(path: str, buffering: int = -1):
    """``path`` opened for reading in binary, when it is a regular file; NotRegularFile otherwise (a FIFO is
    opened without waiting for a writer, and closed at once), OSError when it cannot be opened.  ``buffering``:
    as for :func:`open` (0: an unbuffered file, for a caller that reads by position)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            what = next((w for test, w in _NOT_REGULAR if test(mode)), "not a regular file")
            raise NotRegularFile(f"{what}, not a file: not read", file=path)
        if getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering=buffering)
    except BaseException:
        os.close(fd)
        raise
