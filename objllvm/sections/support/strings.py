"""Shared helpers for sections that are runs of NUL-terminated strings, and for strings a section points to."""
import bisect
from itertools import accumulate

from ...binary import decode_text, encode_text
from ...errors import DecodeError


def split_nul_strings(data: bytes, what: str = "string") -> tuple[list, list]:
    """Split ``data`` into NUL-terminated strings; returns (strings, offsets).

    The last string must end with NUL: otherwise a DecodeError names its offset.
    """
    data = bytes(data)
    if not data:
        return [], []
    if data[-1]:
        last = data.rfind(b"\0") + 1
        raise DecodeError(f"{what} has no terminating NUL (expected one before the end of the section)",
                          offset=last)
    parts = data.split(b"\0")
    parts.pop()                               # (after the last NUL: nothing)
    # by passes in C: a section of 1 MiB of NULs is a million strings
    offs = list(accumulate(map((1).__add__, map(len, parts)), initial=0))
    offs.pop()
    return list(map(decode_text, parts)), offs


def join_nul_strings(strings) -> bytes:
    return b"".join(encode_text(s) + b"\0" for s in strings)


MAX_STRING = 4096          # a string pointed to is looked for within this many bytes of its start


class SectionStrings:
    """NUL-terminated strings of the object's sections, by section index (object) or by address (linked).
    A string is looked for within 4 KiB of its start."""

    def __init__(self, obj):
        self.obj = obj
        self._by_index = None
        self._by_addr = None

    def _sections(self):
        if self._by_index is None:
            secs = [s for s in getattr(self.obj, "sections", ()) if s.type != 8]       # not SHT_NOBITS
            self._by_index = {s.index: s for s in secs}
            self._by_addr = sorted(((s.addr, s.addr + s.size, s.index) for s in secs if s.addr and s.size))
        return self._by_index

    def at(self, index, offset):
        sec = self._sections().get(index)
        if sec is None:
            return None
        try:
            data = sec.data()
        except DecodeError:              # a section that cannot be read holds no string
            return None
        if not 0 <= offset < len(data):
            return None
        end = data.find(b"\0", offset, offset + MAX_STRING)
        if end < 0:
            return None
        return bytes(data[offset:end]).decode("utf-8", "surrogateescape")

    def at_address(self, address):
        self._sections()

        i = bisect.bisect_right(self._by_addr, (address, float("inf"), 0)) - 1
        if i >= 0 and self._by_addr[i][0] <= address < self._by_addr[i][1]:
            lo, _, index = self._by_addr[i]
            return self.at(index, address - lo)
        return None
