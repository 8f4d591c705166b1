"""``ar`` archives: GNU and BSD name tables, thin archives (Rust .rlib files too)."""
import os

from ..errors import DecodeError

AR_MAGIC = b"!<arch>\n"
THIN_MAGIC = b"!<thin>\n"
HEADER_SIZE = 60


class Member:
    # ``_source``: the archive's bytes, path and thinness, not the Archive (which lists its members): no
    # reference cycle, so the archive's bytes (a memory map) go as soon as the last member does, not when
    # the cyclic collector next runs (see formats/base.py, FileSlice).
    __slots__ = ("name", "offset", "size", "data_offset", "_source", "_data")

    def __init__(self, name, offset, size, data_offset, archive, data=None):
        self.name = name            # member name as the archive gives it
        self.offset = offset        # header offset in the archive
        self.size = size
        self.data_offset = data_offset
        self._source = archive._source
        self._data = data

    def data(self):
        """The member's bytes (a memoryview of the archive's; see _member_bytes)."""
        if self._data is None:
            self._data = _member_bytes(*self._source, self)
        return self._data


class Archive:
    def __init__(self, data: bytes, path: str = ""):
        self.data = data
        self.path = path
        if data[:8] == THIN_MAGIC:
            self.thin = True
        elif data[:8] == AR_MAGIC:
            self.thin = False
        else:
            raise DecodeError("not an ar archive (bad magic)", file=path, offset=0)
        self.members = []
        self.symbol_tables = []
        self._source = (data, path, self.thin)
        self._parse()

    def _parse(self):
        data = self.data
        for name, pos, size, body, special, _ in iter_headers(lambda at, k: data[at:at + k], len(data), self.path,
                                                                self.thin):
            if special:
                self.symbol_tables.append(name)
            else:
                self.members.append(Member(name, pos, size, body, self))


SPECIAL = frozenset(("/", "/SYM64/", "__.SYMDEF", "__.SYMDEF SORTED", "__.SYMDEF_64", "__.SYMDEF_64 SORTED"))


def iter_headers(read, n: int, path: str = "", thin: bool = False, peek: int = 0):
    """``(name, offset, size, data_offset, special, first)`` for each member header of the archive of ``n``
    bytes (after the magic) that ``read(pos, k)`` gives (k bytes at pos, bytes): in one pass, each header read
    once.  ``special``: a symbol table (the GNU long-name table is read here and not yielded); ``first``: the
    member's first ``peek`` bytes (read with its header; b"" in a thin archive, whose members are elsewhere).
    DecodeError at the first bad header, after the members before it."""
    pos = 8
    longnames = b""
    while pos < n:
        if pos + 1 == n and read(pos, 1) == b"\n":          # trailing padding
            break
        if pos + HEADER_SIZE > n:
            raise DecodeError(f"truncated member header (expected {HEADER_SIZE} bytes)", file=path, offset=pos)
        hdr = read(pos, HEADER_SIZE + peek)
        if hdr[58:60] != b"`\n":
            raise DecodeError("bad member header terminator (expected '`\\n')", file=path, offset=pos + 58)
        raw_name = hdr[0:16].rstrip(b" ")
        size_field = hdr[48:58].strip()
        if size_field and not size_field.isdigit():   # int() would take '-60', '+5', '1_0': a loop
            raise DecodeError(f"bad member size field {size_field!r} (expected decimal digits)", file=path,
                              offset=pos + 48)
        size = int(size_field or b"0")
        body = pos + HEADER_SIZE
        name_len = 0
        if raw_name[:1] == b"/" and raw_name[1:].isdigit():     # GNU: the name at N in the long-name table
            off = int(raw_name[1:])
            if off >= len(longnames):
                raise DecodeError(f"long name offset {off} is past the name table ({len(longnames)} bytes)",
                                  file=path, offset=pos)
            end = longnames.find(b"\n", off)
            if end < 0:
                end = len(longnames)
            name = longnames[off:end].rstrip(b"/").decode("utf-8", "surrogateescape")
        elif raw_name.startswith(b"#1/"):           # BSD: name follows the header
            if not raw_name[3:].isdigit():
                raise DecodeError(f"bad BSD name length {raw_name!r}", file=path, offset=pos)
            name_len = int(raw_name[3:])
            if name_len > size or body + name_len > n:
                raise DecodeError(f"BSD member name ({name_len} bytes) runs past the member", file=path, offset=body)
            name = read(body, name_len).rstrip(b"\0").decode("utf-8", "surrogateescape")
        elif raw_name in (b"//", b"/", b"/SYM64/"):   # GNU long-name table, symbol tables
            name = raw_name.decode()
        else:
            name = raw_name.rstrip(b"/").decode("utf-8", "surrogateescape")
        special = name in SPECIAL
        stored = size if (not thin or special or name == "//") else 0
        if body + stored > n:
            raise DecodeError(f"member {name!r} ({stored} bytes) runs past the end of the archive ({n} bytes)",
                              file=path, offset=pos + 48)
        if name == "//":
            longnames = read(body, size)
        else:
            first = b""
            if peek and stored:
                k = min(peek, size - name_len)
                at = HEADER_SIZE + name_len
                first = hdr[at:at + k] if name_len + k <= peek else read(body + name_len, k)
            yield name, pos, size - name_len, body + name_len, special, first
        pos = body + stored
        pos += pos & 1


def _member_bytes(data, path: str, thin: bool, m: Member):
    """A member's bytes: a view of the archive's (no copy: a member of a mapped archive costs only the pages
    its reader touches), or the member file's own for a thin archive (thin_member_bytes)."""
    if thin:
        return thin_member_bytes(path, m.name, m.offset)
    return memoryview(data)[m.data_offset:m.data_offset + m.size]


def thin_member_bytes(path: str, name: str, offset: int) -> bytes:
    """The bytes of the member ``name`` (its header at ``offset``) of the thin archive at ``path``: the file it
    names, read (a device or FIFO named by the archive is refused, never read)."""
    from .files import NotRegularFile, open_regular
    target = os.path.join(os.path.dirname(path), name)
    try:
        with open_regular(target) as f:
            return f.read()
    except NotRegularFile as exc:
        raise DecodeError(f"thin archive member {name!r}: {target}: {exc.message}", file=path,
                          offset=offset) from None
    except (OSError, ValueError) as exc:   # ValueError: a NUL byte in the member name
        raise DecodeError(f"thin archive member {name!r}: cannot read {target}: "
                          f"{getattr(exc, 'strerror', None) or exc}", file=path, offset=offset) from None
