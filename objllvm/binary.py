"""Bounds-checked reading and writing of the primitive encodings LLVM uses.

Every read raises :class:`DecodeError` with the byte offset and what was
expected; nothing here allocates by a count read from the input.
"""
import struct

from .errors import DecodeError

_U16 = {"<": struct.Struct("<H"), ">": struct.Struct(">H")}
_U32 = {"<": struct.Struct("<I"), ">": struct.Struct(">I")}
_U64 = {"<": struct.Struct("<Q"), ">": struct.Struct(">Q")}
_I32 = {"<": struct.Struct("<i"), ">": struct.Struct(">i")}
_I64 = {"<": struct.Struct("<q"), ">": struct.Struct(">q")}


class Reader:
    """A cursor over ``data`` (bytes or memoryview).  ``endian`` is '<' or '>'."""

    __slots__ = ("data", "pos", "end", "endian")

    def __init__(self, data, endian: str = "<", pos: int = 0, end: int | None = None):
        self.data = data
        self.pos = pos
        self.end = len(data) if end is None else end
        self.endian = endian

    def remaining(self) -> int:
        return self.end - self.pos

    def at_end(self) -> bool:
        return self.pos >= self.end

    def need(self, n: int, what: str) -> None:
        if n < 0 or self.pos + n > self.end:
            raise DecodeError(f"expected {what} ({n} bytes), only {max(self.end - self.pos, 0)} left",
                              offset=self.pos)

    def bytes(self, n: int, what: str = "bytes") -> bytes:
        self.need(n, what)
        p = self.pos
        self.pos = p + n
        return bytes(self.data[p:p + n])

    def u8(self, what: str = "u8") -> int:
        if self.pos >= self.end:
            raise DecodeError(f"expected {what} (1 byte), none left", offset=self.pos)
        v = self.data[self.pos]
        self.pos += 1
        return v

    def _fixed(self, table, size: int, what: str) -> int:
        self.need(size, what)
        v = table[self.endian].unpack_from(self.data, self.pos)[0]
        self.pos += size
        return v

    def u16(self, what: str = "u16") -> int:
        return self._fixed(_U16, 2, what)

    def u32(self, what: str = "u32") -> int:
        return self._fixed(_U32, 4, what)

    def u64(self, what: str = "u64") -> int:
        return self._fixed(_U64, 8, what)

    def i32(self, what: str = "i32") -> int:
        return self._fixed(_I32, 4, what)

    def i64(self, what: str = "i64") -> int:
        return self._fixed(_I64, 8, what)

    def uint(self, size: int, what: str = "word") -> int:
        if size == 8:
            return self.u64(what)
        if size == 4:
            return self.u32(what)
        if size == 2:
            return self.u16(what)
        if size == 1:
            return self.u8(what)
        raise ValueError(size)

    def uleb(self, what: str = "ULEB128", max_bits: int = 64) -> int:
        """Read a ULEB128.  A value over ``max_bits`` bits is an error."""
        data, pos, end = self.data, self.pos, self.end
        start = pos
        if pos < end:
            b = data[pos]
            if b < 0x80:
                self.pos = pos + 1
                return b
        try:
            result, pos, _ = read_uleb(data, pos, end, 11)
        except ULEBError as exc:
            raise DecodeError(f"truncated {what}: ran off the end" if exc.truncated
                              else f"{what} is too long (over 10 bytes)", offset=start) from None
        if result >> max_bits:
            raise DecodeError(f"{what} {result:#x} does not fit in {max_bits} bits", offset=start)
        self.pos = pos
        return result

    def sleb(self, what: str = "SLEB128") -> int:
        data, pos, end = self.data, self.pos, self.end
        start = pos
        result = 0
        shift = 0
        while True:
            if pos >= end:
                raise DecodeError(f"truncated {what}: ran off the end", offset=start)
            b = data[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
            if shift > 70:
                raise DecodeError(f"{what} is too long (over 10 bytes)", offset=start)
        if b & 0x40:
            result -= 1 << shift
        self.pos = pos
        return result

    def cstring(self, what: str = "NUL-terminated string") -> bytes:
        i = self.data.find(b"\0", self.pos, self.end) if isinstance(self.data, (bytes, bytearray)) \
            else bytes(self.data[self.pos:self.end]).find(b"\0") 
        if i < 0:
            raise DecodeError(f"expected {what}: no terminating NUL before the end", offset=self.pos)
        if not isinstance(self.data, (bytes, bytearray)):
            i += self.pos
        s = bytes(self.data[self.pos:i])
        self.pos = i + 1
        return s


class ULEBError(ValueError):
    """A ULEB128 that runs off the end of its data (``truncated``) or is longer than allowed; ``start``: where
    it begins.  Callers turn it into their own located error."""

    def __init__(self, truncated: bool, start: int):
        super().__init__("truncated ULEB128" if truncated else "ULEB128 too long")
        self.truncated = truncated
        self.start = start


def read_uleb(data, pos: int, end: int, max_bytes: int = 10) -> tuple:
    """(value, position after it, minimal) of the ULEB128 at ``pos``, read before ``end``: ``minimal`` is False
    when it ends in a padding byte (a zero after a continuation: not the shortest encoding).  At most
    ``max_bytes`` bytes; raises :class:`ULEBError` otherwise, or when it runs past ``end``."""
    start = pos
    result = shift = 0
    limit = 7 * max_bytes
    while True:
        if pos >= end:
            raise ULEBError(True, start)
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return result, pos, b != 0 or shift == 7
        if shift >= limit:
            raise ULEBError(False, start)


def uleb_encode(value: int) -> bytes:
    if value < 0:
        raise ValueError("ULEB128 of a negative value")
    if value < 0x80:
        return bytes((value,))
    out = bytearray()
    while True:
        b = value & 0x7F
        value >>= 7
        if value:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def sleb_encode(value: int) -> bytes:
    out = bytearray()
    while True:
        b = value & 0x7F
        value >>= 7
        if (value == 0 and not b & 0x40) or (value == -1 and b & 0x40):
            out.append(b)
            return bytes(out)
        out.append(b | 0x80)


def pack_uint(value: int, size: int, endian: str) -> bytes:
    return value.to_bytes(size, "little" if endian == "<" else "big")


def decode_text(b: bytes) -> str:
    """Bytes from an object file as text: UTF-8, undecodable bytes kept as surrogates."""
    return b.decode("utf-8", "surrogateescape")


def encode_text(s: str) -> bytes:
    return s.encode("utf-8", "surrogateescape")


def nul_separated(data: bytes) -> tuple:
    """NUL-separated strings (an embedded command line: .llvmcmd): (the strings as text, whether the last one ends
    with a NUL)."""
    if not data:
        return [], False
    trailing = data.endswith(b"\0")
    body = data[:-1] if trailing else data
    return [decode_text(a) for a in body.split(b"\0")], trailing
