"""Bitcode as a container: raw bitcode files (``BC 0xC0DE``) and bitcode wrapper files (``0x0B17C0DE``).

The wrapper header (where the bitstream lies) is read here.  A bitcode file has no sections of its own: it is
shown as one pseudo-section named ``<bitcode>`` holding the whole file, which the ``bitcode`` codec decodes
(wrapper header included).
"""
import struct

from .._model import dataclass

from ..errors import DecodeError
from .base import ObjectFile, Section

BITCODE_MAGIC = b"BC\xc0\xde"
WRAPPER_MAGIC = 0x0B17C0DE
WRAPPER_MAGIC_BYTES = b"\xde\xc0\x17\x0b"
WRAPPER_SIZE = 20

@dataclass
class Wrapper:
    """The bitcode wrapper header (magic 0x0B17C0DE): where the bitstream is in the file."""
    version: int
    offset: int
    size: int
    cputype: int


def is_bitcode(data) -> bool:
    return data[:4] == BITCODE_MAGIC or data[:4] == WRAPPER_MAGIC_BYTES


def read_wrapper(data, base_offset: int = 0) -> Wrapper | None:
    """The wrapper header of ``data``, or None when it starts with the raw bitcode magic."""
    if data[:4] != WRAPPER_MAGIC_BYTES:
        return None
    if len(data) < WRAPPER_SIZE:
        raise DecodeError(f"truncated bitcode wrapper header ({len(data)} bytes, expected {WRAPPER_SIZE})",
                          offset=base_offset + len(data))
    _magic, version, off, size, cpu = struct.unpack_from("<5I", data, 0)
    if off < WRAPPER_SIZE or off + size > len(data):
        raise DecodeError(f"bitcode wrapper: bitstream at offset {off:#x}, {size} bytes, is outside the "
                          f"{len(data)}-byte payload (expected offset >= {WRAPPER_SIZE} and within the payload)",
                          offset=base_offset + 8)
    return Wrapper(version, off, size, cpu)


def bitstream_range(data, base_offset: int = 0):
    """(wrapper or None, start, end) of the bitstream in ``data``; checks the magic."""
    w = read_wrapper(data, base_offset)
    start, end = (w.offset, w.offset + w.size) if w else (0, len(data))
    if end - start < 4:
        raise DecodeError(f"truncated bitcode: {end - start} bytes (expected at least the 4-byte magic)",
                          offset=base_offset + start)
    if data[start:start + 4] != BITCODE_MAGIC:
        raise DecodeError(f"bad bitcode magic {bytes(data[start:start + 4]).hex(' ')} (expected 42 43 c0 de 'BC' "
                          "0xC0DE, or the wrapper de c0 17 0b)", offset=base_offset + start)
    return w, start, end


SECTION_NAME = "<bitcode>"

# Mach-O CPU types a wrapper header may carry.
_CPU_TYPES = {7: "i386", 0x01000007: "x86-64", 12: "arm", 0x0100000C: "aarch64", 18: "ppc", 0x01000012: "ppc64"}


class BitcodeFile(ObjectFile):
    format = "bitcode"

    def __init__(self, data: bytes, path: str = "", member: str | None = None):
        self.data = data
        self.path = path
        self.member = member
        head = data[:4]
        if head not in (BITCODE_MAGIC, WRAPPER_MAGIC_BYTES):
            raise DecodeError(f"not a bitcode file: magic {bytes(head).hex(' ') or '(empty)'} (expected 42 43 c0 de "
                              "or the wrapper de c0 17 0b)", file=path, member=member, offset=0)
        self.wrapper = None
        if head == WRAPPER_MAGIC_BYTES:
            self.wrapper = read_wrapper(data)        # raises DecodeError on a bad header
            self.file_type = "bitcode-wrapper"
            self.machine_name = _CPU_TYPES.get(self.wrapper.cputype, "")
        else:
            self.file_type = "bitcode"
            self.machine_name = ""
        self.sections = [Section(0, SECTION_NAME, None, 0, 0, 0, len(data), _data=data)]

    @property
    def format_name(self) -> str:
        return "bitcode"


def open_objects(data, path, member=None):
    """Yield the one object of a raw bitcode or wrapper file."""
    try:
        yield BitcodeFile(data, path, member)
    except DecodeError as exc:
        raise exc.located(file=path, member=member)


__all__ = ["BitcodeFile", "open_objects", "SECTION_NAME", "WRAPPER_SIZE"]
