"""The Python API behind the commands.

    >>> import objllvm
    >>> for item in objllvm.dump("testdata/elf/cg-profile.o"):
    ...     for d in item.sections:
    ...         print(d.section.name, d.codec.kind, d.model)

``dump`` returns :class:`ObjectDump` entries (one per object: a file, an
archive member) and :class:`~objllvm.errors.ObjllvmError` values for parts
that could not be read at all.  Decoding errors inside one section are kept
in that section's :class:`~objllvm.sections.registry.Decoded` (``status == 'error'``),
so the other sections are still there.

The other jobs: :func:`perf_map` and :func:`layout` (perf samples to basic blocks, and a layout for clang and
the linker), :func:`rewrite_file`, :func:`extract` and :func:`audit_files`; each returns a typed result that the
commands only render.

The JSON documents of the commands' ``--json`` outputs are described by JSON Schemas shipped in the
package: :func:`json_schema` gives one (``objllvm schema NAME`` prints it).
"""
import os

from .formats import iter_objects
from .formats.elf import section_type_name
from ._model import dataclass
from .errors import ObjllvmError, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:                      # types only: `typing` costs start-up time, the CLI never needs it
    from collections.abc import Callable, Iterable
    from typing import Any, Mapping, TypeAlias, Union

    from .audit import AuditReport
    from .audit.policy import Policy
    from .formats.base import ObjectFile, Section
    from .perf.job import FunctionGraph, Layout, PerfDiffResult, PerfMapResult, cfg, layout, perf_diff, perf_map
    from .rewrite import Operation, RewriteResult
    from .sections.registry import Decoded

    Options: TypeAlias = Mapping[str, Any]
    """Codec options (``--pretty-pgo``, ``--pc-section`` layouts, ...): option name -> value."""
    JSONDict: TypeAlias = dict[str, Any]
    """A JSON object as Python data (what ``json.loads`` gives)."""
    DumpItem: TypeAlias = Union["ObjectDump", ObjllvmError]
    """What :func:`dump` gives per object: its dump, or the error that made it unreadable."""

JSON_SCHEMA_VERSION = 1
SCHEMA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schemas")



class ObjectDump:
    """The decoded LLVM sections of one object (a file, or one archive member)."""
    __slots__ = ("obj", "sections")

    def __init__(self, obj: "ObjectFile", sections: "list[Decoded] | None" = None) -> None:
        self.obj = obj
        #: one entry per LLVM-specific section, in section order
        self.sections: list[Decoded] = [] if sections is None else sections

    def __repr__(self) -> str:
        return f"ObjectDump(obj={self.obj!r}, sections={self.sections!r})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, ObjectDump)
        return (self.obj, self.sections) == (other.obj, other.sections)

    __hash__ = None  # type: ignore[assignment]

    @property
    def errors(self) -> list[ObjllvmError]:
        """The decoding errors of its sections."""
        return [d.error for d in self.sections if d.error is not None]

    @property
    def warnings(self) -> list[ObjllvmError]:
        """What cost a value but not a section (an unnamed symbol, an unpaired weight), in section order."""
        return [w for d in self.sections for w in d.warnings]

    @property
    def problems(self) -> list[tuple[str, ObjllvmError]]:
        """``("warning" | "error", ObjllvmError)`` in section order: each section's warnings, then its error."""
        out: list[tuple[str, ObjllvmError]] = []
        for d in self.sections:
            out.extend(("warning", w) for w in d.warnings)
            if d.error is not None:
                out.append(("error", d.error))
        return out


def llvm_sections(obj: "ObjectFile", options: "Options | None" = None) -> "list[Section]":
    """The LLVM-specific sections of an object, in section order."""
    from .sections import registry      # (here: `objllvm sections` lists from the codec index without it)
    return [s for s in obj.sections if registry.is_llvm_section(s, obj, options)]


def dump_object(obj: "ObjectFile", kinds: "Iterable[str] | None" = None,
                options: "Options | None" = None) -> ObjectDump:
    """Decode the LLVM sections of one object (only those of ``kinds`` when given).

    :raises ObjllvmError: a kind that no codec has (a usage error)."""
    from .sections import registry
    wanted = set(kinds) if kinds else None
    if wanted:
        for k in wanted:
            registry.get(k)   # unknown kinds are a usage error
    out = ObjectDump(obj)
    for s in llvm_sections(obj, options):
        if wanted is not None:
            c = registry.find_codec(s, obj, options)
            if c is None or c.kind not in wanted:
                continue
        out.sections.append(registry.decode_section(obj, s, options))
    return out


def dump(path: str, kinds: "Iterable[str] | None" = None, options: "Options | None" = None) -> "list[DumpItem]":
    """Decode the LLVM sections of every object in ``path`` (a file or an archive).

    Parts that cannot be read at all are :class:`~objllvm.errors.ObjllvmError` values in the list; errors
    inside one section stay in that section's :class:`~objllvm.sections.registry.Decoded`."""
    out: list[DumpItem] = []
    last: ObjectDump | None = None
    for o in iter_objects(path):
        if isinstance(o, ObjllvmError):
            # a broken section header of the object just dumped: said once, by that section's entry when it
            # is one of the dumped sections
            if last is not None and o.section_index is not None and any(
                    d.section.index == o.section_index and d.error is not None
                    for d in last.sections):
                continue
            out.append(o)
        else:
            last = dump_object(o, kinds, options)
            out.append(last)
    return out


def decode(path: str, kind: str, options: "Options | None" = None) -> "list[Any]":
    """The decoded models of every ``kind`` section in ``path`` (the codec's model classes).

    :raises ObjllvmError: on the first error."""
    from .sections import registry
    models: list[Any] = registry.decode_file(path, kind, options)
    return models


# -- the other jobs ----------------------------------------------------------------------------
_PERF_NAMES = ("perf_map", "layout", "perf_diff", "cfg", "PerfMapResult", "Layout", "PerfDiffResult",
               "FunctionGraph")


def __getattr__(name: str) -> object:
    # (the perf job's names, imported when first asked for: `objllvm dump` never maps samples)
    if name in _PERF_NAMES:
        from .perf import job
        return getattr(job, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def rewrite_file(path: str, output: "str | None" = None, operations: "Iterable[Operation]" = (), *,
                 in_place: bool = False, dry_run: bool = False, force: bool = True) -> "RewriteResult":
    """Apply ``operations`` (:mod:`objllvm.rewrite`: ``Remove("addrsig")``, ``DropDeplib("m")``, ...), in order,
    to the ELF file ``path`` and write the result to ``output`` (or over ``path`` with ``in_place``), atomically,
    with the input's owner and mode; every byte outside what the operations change is kept.  ``dry_run``: work
    out the changes (:attr:`RewriteResult.changes`) and write nothing; ``force=False``: refuse to replace an
    existing ``output``.

    :raises UsageError: no output and neither ``in_place`` nor ``dry_run``; ``output`` is ``path``.
    :raises ObjllvmError: the file cannot be read or the operations cannot be applied; nothing is written."""
    from . import rewrite
    result: "RewriteResult" = rewrite.rewrite_file(path, output, list(operations), in_place=in_place,
                                                 dry_run=dry_run, force=force)
    return result


@dataclass
class ExtractedFile:
    """One file :func:`extract` wrote (an entry of its manifest)."""
    path: str                    # its name in the output directory
    kind: str                    # 'bitcode', 'offload-image', 'offload-compressed', 'cmdline', 'coverage', ...
    file: str                    # the input it came from
    member: "str | None"         # the archive member, if any
    section: str
    section_index: int
    offset: int                  # in the section
    file_offset: "int | None"    # in the file or member (None when the section is compressed)
    size: int
    sha256: str
    info: "JSONDict"             # more, per kind: an offload image's triple and arch, ...


@dataclass
class SkippedPayload:
    """A payload :func:`extract` found and did not write (an empty one), and why."""
    kind: str
    file: str
    member: "str | None"
    section: str
    section_index: int
    reason: str


@dataclass
class ExtractResult:
    """What :func:`extract` wrote and found."""
    output_dir: str
    manifest: "JSONDict"               # manifest.json as written (its schema: ``json_schema("extract")``)
    files: "list[ExtractedFile]"       # written by this call, in manifest order
    skipped: "list[SkippedPayload]"
    errors: "list[ObjllvmError]"       # inputs or sections that could not be read
    merged: int = 0                    # entries kept from the manifest of an earlier extract (``force``)
    written: bool = False              # False: nothing found and errors: nothing written, not even a manifest


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
    from .bitcode.payloads import extract as run_extract
    doc: "JSONDict"
    doc, errors = run_extract(list(paths), output_dir, force=force, coverage=coverage)
    merged: int = doc.get("merged", 0)
    files = [ExtractedFile(d["path"], d["kind"], d["file"], d["member"], d["section"], d["section_index"],
                           d["offset"], d["file_offset"], d["size"], d["sha256"],
                           {k: v for k, v in d.items() if k not in _PAYLOAD_KEYS})
             for d in doc["payloads"][merged:]]
    skipped = [SkippedPayload(d["kind"], d["file"], d["member"], d["section"], d["section_index"], d["reason"])
               for d in doc["skipped"]]
    return ExtractResult(output_dir, doc, files, skipped, list(errors), merged, bool(doc.get("written")))


def audit_files(paths: "Iterable[str]", policy: "str | Policy | None" = None, *, jobs: "int | None" = None,
                progress: "Callable[[AuditReport], None] | None" = None,
                sarif: "str | None" = None) -> "AuditReport":
    """Audit the files, directories (walked) and archives of ``paths``: every library, search path and option
    their objects ask the linker for, embedded bitcode and command lines, checked against ``policy`` (a TOML
    file applied on top of the default policy, a :class:`~objllvm.audit.policy.Policy`, or None: the default).
    ``jobs``: worker processes (None: one per CPU; 1: none); ``progress(report)`` is called as files are done;
    ``sarif``: also write the findings there as SARIF 2.1.0 (atomically).

    :raises UsageError: ``jobs`` below 1.
    :raises ObjllvmError: the policy cannot be read."""
    from .audit import audit
    from .audit.policy import load_policy
    if jobs is not None and jobs < 1:
        raise UsageError("audit: --jobs must be at least 1")
    pol = load_policy(policy) if policy is None or isinstance(policy, str) else policy
    report: "AuditReport" = audit(list(paths), policy=pol, jobs=jobs, progress=progress)
    if sarif:
        import io

        from .atomicio import atomic_write
        from .audit.report import report_to_sarif
        from .render import render_json
        buf = io.StringIO()
        render_json(report_to_sarif(report), buf)
        atomic_write(sarif, buf.getvalue().encode("utf-8", "surrogateescape"))
    return report


def with_demangled(doc: "JSONDict") -> "JSONDict":
    """A command's JSON document with a ``demangled`` member: ``{mangled name: readable name}`` for every mangled
    C++ or Rust name the document holds (the names themselves stay as they are)."""
    from .demangle import demangled_names
    return {**doc, "demangled": demangled_names(doc)}


# -- JSON schemas ------------------------------------------------------------------------------
def schema_names() -> list[str]:
    """The names of the shipped JSON Schemas (``dump``, ``sections``, ``perf-map``, ``audit``, ...)."""
    return sorted(n[:-5] for n in os.listdir(SCHEMA_DIR) if n.endswith(".json"))


def json_schema(name: str) -> "JSONDict":
    """The JSON Schema (draft 2020-12) of a command's JSON output, by command name.

    :raises UsageError: no schema of that name."""
    import json
    if name not in schema_names():
        raise UsageError(f"no JSON schema named {name!r} (expected one of {', '.join(schema_names())})")
    with open(os.path.join(SCHEMA_DIR, name + ".json"), encoding="utf-8") as f:
        doc: JSONDict = json.load(f)
    return doc


# -- views -------------------------------------------------------------------------------------
_FIND = object()     # (section_info: the codec asked of the registry)


def section_info(s: "Section", obj: "ObjectFile", options: "Options | None" = None, *,
                 kind: "str | None | object" = _FIND) -> "JSONDict":
    """One section as ``objllvm sections --json`` lists it; ``kind``: its codec's kind (None: no codec) where the
    caller knows it, else asked of the registry."""
    if kind is _FIND:
        from .sections import registry
        c = registry.find_codec(s, obj, options)
        kind = c.kind if c else None
    return {"index": s.index, "name": s.name, "type": section_type_name(s.type) if obj.format == "elf" else None,
            "type_value": s.type, "size": s.size, "flags": flag_string(s.flags) if obj.format == "elf" else "",
            "codec": kind}


def flag_string(flags: int) -> str:
    """readelf's letters for ELF section flags (``"AX"``, ``"MS"``...)."""
    letters = [(0x1, "W"), (0x2, "A"), (0x4, "X"), (0x10, "M"), (0x20, "S"), (0x40, "I"), (0x80, "L"),
               (0x100, "O"), (0x200, "G"), (0x400, "T"), (0x800, "C"), (0x80000000, "E")]
    return "".join(ch for bit, ch in letters if flags & bit)


def object_header(obj: "ObjectFile") -> "JSONDict":
    """The fields that name an object in the JSON documents."""
    return {"file": obj.path, "member": obj.member, "format": obj.format_name, "type": obj.file_type}


def dump_to_dict(items: "Iterable[DumpItem]") -> "JSONDict":
    """The JSON document of ``objllvm dump --json`` (its schema: ``json_schema("dump")``)."""
    return _dump_doc(items, False)


def dump_to_json_doc(items: "Iterable[DumpItem]") -> "JSONDict":
    """``dump_to_dict(items)`` for ``render_json(doc, raw=True)``: a section content the codec can give
    as JSON text already (``Codec.to_json``) is a :class:`~objllvm.render.RawJSON` there (the same
    output, without building a dict per item of a big section)."""
    return _dump_doc(items, True)


def _dump_doc(items: "Iterable[DumpItem]", raw: bool) -> "JSONDict":
    from .render import RawJSON
    files: list[JSONDict] = []
    errors: list[str] = []
    warnings: list[str] = []
    for it in items:
        if isinstance(it, ObjllvmError):
            errors.append(str(it))
            continue
        secs = []
        for d in it.sections:
            e = section_info(d.section, it.obj)
            del e["codec"]
            e["kind"] = d.codec.kind if d.codec else None
            e["status"] = d.status
            e["error"] = str(d.error) if d.error else None
            e["warnings"] = [str(w) for w in d.warnings]
            warnings.extend(e["warnings"])
            content: Any = None
            if d.codec and d.model is not None:
                text = d.codec.to_json(d.model) if raw else None
                if text is None:
                    content = d.codec.to_dict(d.model)
                else:
                    codec, model = d.codec, d.model
                    content = RawJSON(text, lambda c=codec, m=model: c.to_dict(m))
            e["content"] = content
            if d.error:
                errors.append(str(d.error))
            secs.append(e)
        files.append({**object_header(it.obj), "sections": secs})
    return {"schema": "objllvm-dump", "version": JSON_SCHEMA_VERSION, "files": files,
            "errors": list(dict.fromkeys(errors)), "warnings": warnings}


def dump_to_text(items: "Iterable[DumpItem]", options: "Options | None" = None) -> "list[Any]":
    """The render items of ``objllvm dump`` (text): :class:`~objllvm.render.Heading`,
    :class:`~objllvm.render.Text` and the codecs' :class:`~objllvm.render.Table` items."""
    from .render import Heading, Text
    options = options or {}
    out: list[Any] = []
    for it in items:
        if isinstance(it, ObjllvmError):
            continue
        obj = it.obj
        out.append(Heading(f"{obj.label}: {obj.format_name} {obj.file_type}"))
        if not it.sections:
            out.append(Text("  (no LLVM sections)"))
        for d in it.sections:
            s = d.section
            tname = section_type_name(s.type) if obj.format == "elf" else ""
            kind = d.codec.kind if d.codec else d.status
            out.append(Heading(f"[{s.index}] {s.name} {tname} ({kind}, {s.size} bytes)".replace("  ", " "), 2))
            if d.model is not None and d.codec is not None:
                out.extend(d.codec.tables(d.model, dict(options)))
            for w in d.warnings:
                at = f" at offset {w.offset:#x}" if w.offset is not None else ""
                out.append(Text(f"warning{at}: {w.message}", one_line=True))
            if d.error is not None:
                at = f" at offset {d.error.offset:#x}" if d.error.offset is not None else ""
                out.append(Text(f"error{at}: {d.error.message}", one_line=True))
            elif d.status == "undecoded":
                out.append(Text(d.note or "known LLVM section type, not decoded"))
            elif d.status == "unknown":
                out.append(Text("unknown LLVM section type"))
    return out
