"""Shared helpers for sections that are runs of NUL-terminated strings."""
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
