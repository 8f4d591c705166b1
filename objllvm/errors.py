"""The one error type objllvm raises for bad input, and its one-line form (and how commands print it)."""
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:                      # no typing import at run time (start-up time)
    from typing import Any, TextIO


class ObjllvmError(Exception):
    """Bad input or bad usage.  Carries where the problem is.

    ``str(err)`` is one line: ``FILE[(MEMBER)]: section [N] NAME: offset 0xOFF: MESSAGE``
    with the parts that are known.  ``partial`` may hold whatever was decoded
    before the problem (a model of the codec's own type), so callers can still
    show it.
    """

    def __init__(self, message: str, *, file: str | None = None, member: str | None = None,
                 section_index: int | None = None, section_name: str | None = None,
                 offset: int | None = None, partial: "Any" = None) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.member = member
        self.section_index = section_index
        self.section_name = section_name
        self.offset = offset
        self.partial = partial

    def located(self, *, file: str | None = None, member: str | None = None, section_index: int | None = None,
                section_name: str | None = None, offset_base: int = 0) -> "ObjllvmError":
        """Fill in location parts not yet known (in place) and return self."""
        if self.file is None and file is not None:
            self.file = file
        if self.member is None and member is not None:
            self.member = member
        if self.section_index is None and section_index is not None:
            self.section_index = section_index
            self.section_name = section_name
        if self.offset is not None and offset_base:
            self.offset += offset_base
        return self

    @property
    def where(self) -> str:
        parts = []
        if self.file is not None:
            parts.append(f"{self.file}({self.member})" if self.member else self.file)
        if self.section_index is not None or self.section_name is not None:
            idx = f"[{self.section_index}] " if self.section_index is not None else ""
            parts.append(f"section {idx}{self.section_name or ''}".rstrip())
        if self.offset is not None:
            parts.append(f"offset {self.offset:#x}")
        return ": ".join(parts)

    def __str__(self) -> str:
        w = self.where
        return f"{w}: {self.message}" if w else self.message

    def to_dict(self) -> "dict[str, object]":
        return {"file": self.file, "member": self.member, "section_index": self.section_index,
                "section": self.section_name, "offset": self.offset, "message": self.message}


class DecodeError(ObjllvmError):
    """Malformed bytes inside a section or container."""


class UsageError(ObjllvmError):
    """Bad command-line usage or API arguments (exit status 2)."""


def _escape_char(c: str) -> str:
    o = ord(c)
    if 0xDC80 <= o <= 0xDCFF:          # a byte that was not UTF-8 (decoded with surrogateescape): that byte
        return f"\\x{o - 0xDC00:02x}"
    if o < 0x100:
        return f"\\x{o:02x}"
    return f"\\u{o:04x}" if o < 0x10000 else f"\\U{o:08x}"


def terminal_text(s: str, keep: str = "") -> str:
    """``s`` safe to write to a terminal: every character Python does not count as printable (C0 controls,
    DEL, C1 controls, bidirectional overrides and other format characters, line and paragraph separators,
    unassigned code points, lone surrogates) written as an escape -- ``\\x1b``, ``\\u202e`` -- and a byte
    that was not UTF-8 as ``\\xff``; the characters of ``keep`` (``"\\n"`` for text of several lines) stay.
    Backslashes are written as they are.  Printable text is returned as it is."""
    if s.isprintable():
        return s
    return "".join(c if c.isprintable() or c in keep else _escape_char(c) for c in s)


def report_error(message: str, err: "TextIO | None" = None) -> None:
    """One line on standard error, the only way commands report problems.  Anything in ``message`` that a
    terminal would act on (an escape sequence, a newline that would start a second ``objllvm: error:`` line)
    is escaped: the line is one line, whatever names the file holds."""
    (err or sys.stderr).write(f"objllvm: error: {terminal_text(message)}\n")


def report_warning(message: str, err: "TextIO | None" = None) -> None:
    """As :func:`report_error`, for a warning."""
    (err or sys.stderr).write(f"objllvm: warning: {terminal_text(message)}\n")
