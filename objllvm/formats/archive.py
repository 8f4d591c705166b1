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

    def _err(self, msg, off):
        return DecodeError(msg, file=self.path, offset=off)

    def _parse(self):
        data = self.data
        pos = 8
        longnames = b""
        n = len(data)
        while pos < n:
            if data[pos:pos + 1] == b"\n" and pos + 1 == n:   # trailing padding
                break
            if pos + HEADER_SIZE > n:
                raise self._err(f"truncated member header (expected {HEADER_SIZE} bytes)", pos)
            hdr = data[pos:pos + HEADER_SIZE]
            if hdr[58:60] != b"`\n":
                raise self._err("bad member header terminator (expected '`\\n')", pos + 58)
            raw_name = hdr[0:16].rstrip(b" ")
            size_field = hdr[48:58].strip()
            if size_field and not size_field.isdigit():   # int() would take '-60', '+5', '1_0': a loop
                raise self._err(f"bad member size field {size_field!r} (expected decimal digits)", pos + 48)
            size = int(size_field or b"0")
            body = pos + HEADER_SIZE
            name_len = 0
            if raw_name.startswith(b"#1/"):           # BSD: name follows the header
                if not raw_name[3:].isdigit():
                    raise self._err(f"bad BSD name length {raw_name!r}", pos)
                name_len = int(raw_name[3:])
                if name_len > size or body + name_len > n:
                    raise self._err(f"BSD member name ({name_len} bytes) runs past the member", body)
                name = data[body:body + name_len].rstrip(b"\0").decode("utf-8", "surrogateescape")
            elif raw_name == b"//":                   # GNU long-name table
                name = "//"
            elif raw_name in (b"/", b"/SYM64/"):       # GNU symbol tables
                name = raw_name.decode()
            elif raw_name.startswith(b"/") and raw_name[1:].isdigit():
                off = int(raw_name[1:])
                if off >= len(longnames):
                    raise self._err(f"long name offset {off} is past the name table ({len(longnames)} bytes)", pos)
                end = longnames.find(b"\n", off)
                if end < 0:
                    end = len(longnames)
                name = longnames[off:end].rstrip(b"/").decode("utf-8", "surrogateescape")
            else:
                name = raw_name.rstrip(b"/").decode("utf-8", "surrogateescape") if raw_name != b"/" else "/"
            is_special = name in ("/", "//", "/SYM64/", "__.SYMDEF", "__.SYMDEF SORTED",
                                  "__.SYMDEF_64", "__.SYMDEF_64 SORTED")
            stored = size if (not self.thin or is_special) else 0
            if body + stored > n:
                raise self._err(f"member {name!r} ({stored} bytes) runs past the end of the archive "
                                f"({n} bytes)", pos + 48)
            if name == "//":
                longnames = data[body:body + size]
            elif is_special:
                self.symbol_tables.append(name)
            else:
                self.members.append(Member(name, pos, size - name_len, body + name_len, self))
            pos = body + stored
            pos += pos & 1


def _member_bytes(data, path: str, thin: bool, m: Member):
    """A member's bytes: a view of the archive's (no copy: a member of a mapped archive costs only the pages
    its reader touches), or the member file's own for a thin archive (read; a device or FIFO named by the
    archive is refused, never read)."""
    if thin:
        from .files import NotRegularFile, open_regular
        target = os.path.join(os.path.dirname(path), m.name)
        try:
            with open_regular(target) as f:
                return f.read()
        except NotRegularFile as exc:
            raise DecodeError(f"thin archive member {m.name!r}: {target}: {exc.message}", file=path,
                              offset=m.offset) from None
        except (OSError, ValueError) as exc:   # ValueError: a NUL byte in the member name
            raise DecodeError(f"thin archive member {m.name!r}: cannot read {target}: "
                              f"{getattr(exc, 'strerror', None) or exc}", file=path, offset=m.offset) from None
    return memoryview(data)[m.data_offset:m.data_offset + m.size]
