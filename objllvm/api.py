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

The other jobs live in their packages and are named here too, loaded when first used:
:func:`~objllvm.perf.job.perf_map` and :func:`~objllvm.perf.job.layout` (perf samples to basic blocks, and a
layout for clang and the linker), :func:`~objllvm.perf.job.perf_diff`, :func:`~objllvm.perf.job.cfg`,
:func:`~objllvm.rewrite.session.rewrite_file`, :func:`~objllvm.bitcode.job.extract` and
:func:`~objllvm.audit.job.audit_files`.  Each returns a typed result that the commands only render.

The JSON documents of the commands' ``--json`` outputs are described by JSON Schemas shipped in the
package: :func:`json_schema` gives one (``objllvm schema NAME`` prints it).
"""
import os

from .formats import iter_objects
from .formats.elf import section_type_name
from .errors import ObjllvmError, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:                      # types only: `typing` costs start-up time, the CLI never needs it
    from collections.abc import Iterable
    from typing import Any, Mapping, TypeAlias, Union

    from .audit import AuditReport
    from .audit.job import audit_files
    from .bitcode.job import ExtractedFile, ExtractResult, SkippedPayload, extract
    from .formats.base import ObjectFile, Section
    from .perf.job import FunctionGraph, Layout, PerfDiffResult, PerfMapResult, cfg, layout, perf_diff, perf_map
    from .rewrite import RewriteResult, rewrite_file
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
# The other jobs live in their packages (a command imports its job's module alone) and are imported from here
# when first asked for: `objllvm dump` imports this module and never maps samples or extracts.
_JOBS = {"perf_map": "perf.job", "layout": "perf.job", "perf_diff": "perf.job", "cfg": "perf.job",
         "PerfMapResult": "perf.job", "Layout": "perf.job", "PerfDiffResult": "perf.job",
         "FunctionGraph": "perf.job", "extract": "bitcode.job", "ExtractResult": "bitcode.job",
         "ExtractedFile": "bitcode.job", "SkippedPayload": "bitcode.job", "rewrite_file": "rewrite",
         "RewriteResult": "rewrite", "audit_files": "audit.job", "AuditReport": "audit"}


def __getattr__(name: str) -> object:
    home = _JOBS.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(__import__(f"objllvm.{home}", fromlist=[name]), name)


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
