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


def report_error(message: str, err: "TextIO | None" = None) -> None:
    """One line on standard error, the only way commands report problems."""
    (err or sys.stderr).write(f"objllvm: error: {message}\n")


def report_warning(message: str, err: "TextIO | None" = None) -> None:
    (err or sys.stderr).write(f"objllvm: warning: {message}\n")
