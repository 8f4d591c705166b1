"""Shared helpers for sections that are runs of NUL-terminated strings."""
from ...binary import decode_text, encode_text
from ...errors import DecodeError


def split_nul_strings(data: bytes, what: str = "string") -> tuple[list, list]:
    """Split ``data`` into NUL-terminated strings; returns (strings, offsets).

    The last string must end with NUL: otherwise a DecodeError names its offset.
    """
    out, offs = [], []
    pos, n = 0, len(data)
    while pos < n:
        end = data.find(b"\0", pos)
        if end < 0:
            raise DecodeError(f"{what} has no terminating NUL (expected one before the end of the section)",
                              offset=pos)
        out.append(decode_text(data[pos:end]))
        offs.append(pos)
        pos = end + 1
    return out, offs


def join_nul_strings(strings) -> bytes:
    return b"".join(encode_text(s) + b"\0" for s in strings)
