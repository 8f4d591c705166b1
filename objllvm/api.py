"""The Python API behind the commands.

    >>> import objllvm
    >>> for item in objllvm.dump("testdata/elf/cg-profile.o"):
    ...     for d in item.sections:
    ...         print(d.section.name, d.codec.kind, d.model)

``dump`` returns :class:`ObjectDump` entries (one per object: a file, an
archive member) and :class:`~objllvm.errors.ObjllvmError` values for parts
that could not be read at all.  Decoding errors inside one section are kept
in that section's :class:`~objllvm.registry.Decoded` (``status == 'error'``),
so the other sections are still there.
"""
from __future__ import annotations

from ._model import dataclass, field
from .sections import registry
from .formats import iter_objects
from .formats.elf import section_type_name
from .errors import ObjllvmError

JSON_SCHEMA_VERSION = 1


@dataclass
class ObjectDump:
    obj: object                                   # containers.base.ObjectFile
    sections: list = field(default_factory=list)  # registry.Decoded

    @property
    def errors(self) -> list:
        return [d.error for d in self.sections if d.error is not None]


def llvm_sections(obj, options=None) -> list:
    """The LLVM-specific sections of an object, in section order."""
    return [s for s in obj.sections if registry.is_llvm_section(s, obj, options)]


def dump_object(obj, kinds=None, options=None) -> ObjectDump:
    """Decode the LLVM sections of one object (only those of ``kinds`` when given)."""
    kinds = set(kinds) if kinds else None
    if kinds:
        for k in kinds:
            registry.get(k)   # unknown kinds are a usage error
    out = ObjectDump(obj)
    for s in llvm_sections(obj, options):
        if kinds is not None:
            c = registry.find_codec(s, obj, options)
            if c is None or c.kind not in kinds:
                continue
        out.sections.append(registry.decode_section(obj, s, options))
    return out


def dump(path: str, kinds=None, options=None) -> list:
    """Decode the LLVM sections of every object in ``path`` (a file or an archive)."""
    out = []
    for o in iter_objects(path):
        if isinstance(o, ObjllvmError):
            out.append(o)
        else:
            out.append(dump_object(o, kinds, options))
    return out


def decode(path: str, kind: str, options=None) -> list:
    """The decoded models of every ``kind`` section in ``path``; raise on the first error."""
    return registry.decode_file(path, kind, options)


# -- views -------------------------------------------------------------------------------------
def section_info(s, obj, options=None) -> dict:
    c = registry.find_codec(s, obj, options)
    return {"index": s.index, "name": s.name, "type": section_type_name(s.type) if obj.format == "elf" else None,
            "type_value": s.type, "size": s.size, "flags": flag_string(s.flags) if obj.format == "elf" else "",
            "codec": c.kind if c else None}


def flag_string(flags: int) -> str:
    letters = [(0x1, "W"), (0x2, "A"), (0x4, "X"), (0x10, "M"), (0x20, "S"), (0x40, "I"), (0x80, "L"),
               (0x100, "O"), (0x200, "G"), (0x400, "T"), (0x800, "C"), (0x80000000, "E")]
    return "".join(ch for bit, ch in letters if flags & bit)


def object_header(obj) -> dict:
    return {"file": obj.path, "member": obj.member, "format": obj.format_name, "type": obj.file_type}


def dump_to_dict(items) -> dict:
    """The JSON document of ``objllvm dump --json`` (schema in README.md)."""
    return _dump_doc(items, False)


def dump_to_json_doc(items) -> dict:
    """``dump_to_dict(items)`` for ``render_json(doc, raw=True)``: a section content the codec can give
    as JSON text already (``Codec.to_json``) is a :class:`~objllvm.render.RawJSON` there (the same
    output, without building a dict per item of a big section)."""
    return _dump_doc(items, True)


def _dump_doc(items, raw: bool) -> dict:
    if raw:
        from .render import RawJSON
    files, errors = [], []
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
            content = None
            if d.codec and d.model is not None:
                text = d.codec.to_json(d.model) if raw else None
                if text is None:
                    content = d.codec.to_dict(d.model)
                else:
                    content = RawJSON(text, lambda c=d.codec, m=d.model: c.to_dict(m))
            e["content"] = content
            if d.error:
                errors.append(str(d.error))
            secs.append(e)
        files.append({**object_header(it.obj), "sections": secs})
    return {"schema": "objllvm-dump", "version": JSON_SCHEMA_VERSION, "files": files, "errors": errors}


def dump_to_text(items, options=None) -> list:
    """The render items of ``objllvm dump`` (text)."""
    from .render import Heading, Text
    options = options or {}
    out = []
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
            if d.model is not None:
                out.extend(d.codec.tables(d.model, options))
            if d.error is not None:
                at = f" at offset {d.error.offset:#x}" if d.error.offset is not None else ""
                out.append(Text(f"error{at}: {d.error.message}"))
            elif d.status == "undecoded":
                out.append(Text("known LLVM section type, not decoded"))
            elif d.status == "unknown":
                out.append(Text("unknown LLVM section type"))
    return out
