"""The extract job as one call: what ``objllvm extract`` runs (the command only parses its arguments and renders
the :class:`ExtractResult`).  The payloads are found and written by :mod:`.payloads`."""
from .._model import dataclass
from ..errors import ObjllvmError

TYPE_CHECKING = False
if TYPE_CHECKING:                      # (types only: `typing` is not imported to run a command)
    from collections.abc import Iterable
    from typing import Any


@dataclass
class ExtractedFile:
    """One file :func:`extract` wrote (an entry of its manifest)."""
    path: str                        # its name in the output directory
    kind: str                        # 'bitcode', 'offload-image', 'offload-compressed', 'cmdline', 'coverage', ...
    file: str                        # the input it came from
    member: str | None               # the archive member, if any
    section: str
    section_index: int
    offset: int                      # in the section
    file_offset: int | None          # in the file or member (None when the section is compressed)
    size: int
    sha256: str
    info: "dict[str, Any]"           # more, per kind: an offload image's triple and arch, ...


@dataclass
class SkippedPayload:
    """A payload :func:`extract` found and did not write (an empty one), and why."""
    kind: str
    file: str
    member: str | None
    section: str
    section_index: int
    reason: str


@dataclass
class ExtractResult:
    """What :func:`extract` wrote and found."""
    output_dir: str
    manifest: "dict[str, Any]"       # manifest.json as written (its schema: ``json_schema("extract")``)
    files: list[ExtractedFile]       # written by this call, in manifest order
    skipped: list[SkippedPayload]
    errors: list[ObjllvmError]       # inputs or sections that could not be read
    merged: int = 0                  # entries kept from the manifest of an earlier extract (``force``)
    written: bool = False            # False: nothing found and errors: nothing written, not even a manifest


_PAYLOAD_KEYS = ("path", "kind", "file", "member", "section", "section_index", "offset", "file_offset", "size",
                 "sha256")


def extract(paths: "Iterable[str]", output_dir: str, *, force: bool = False,
            coverage: bool = False) -> ExtractResult:
    """Write every embedded bitcode module, offloading image and compiler command line of ``paths`` (objects,
    archives, bitcode files) to its own file in ``output_dir``, with ``manifest.json`` listing them; with
    ``coverage`` also each object's coverage mapping (a file llvm-cov reads) and profile names.

    Every name is checked first: without ``force`` nothing is written when one exists.  Each file is written
    atomically, and a failed write removes what this call wrote.

    :raises ObjllvmError: a file exists (without ``force``), or the directory cannot be made or written."""
    from .payloads import extract as run_extract
    doc: "dict[str, Any]"
    doc, errors = run_extract(list(paths), output_dir, force=force, coverage=coverage)
    merged: int = doc.get("merged", 0)
    files = [ExtractedFile(d["path"], d["kind"], d["file"], d["member"], d["section"], d["section_index"],
                           d["offset"], d["file_offset"], d["size"], d["sha256"],
                           {k: v for k, v in d.items() if k not in _PAYLOAD_KEYS})
             for d in doc["payloads"][merged:]]
    skipped = [SkippedPayload(d["kind"], d["file"], d["member"], d["section"], d["section_index"], d["reason"])
               for d in doc["skipped"]]
    return ExtractResult(output_dir, doc, files, skipped, list(errors), merged, bool(doc.get("written")))
