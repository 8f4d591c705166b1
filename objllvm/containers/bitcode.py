"""Raw bitcode files (``BC 0xC0DE``) and bitcode wrapper files (``0x0B17C0DE``) as an ObjectFile.

The file has no sections of its own: it is shown as one pseudo-section named ``<bitcode>`` holding the whole file,
which the ``bitcode`` codec decodes (wrapper header included).
"""
from __future__ import annotations

from ..bitcode import BITCODE_MAGIC, WRAPPER_MAGIC_BYTES, WRAPPER_SIZE, read_wrapper
from ..errors import DecodeError
from .base import ObjectFile, Section

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
