"""objllvm sections: list the LLVM-specific sections."""
NAME = "sections"
HELP = "list the LLVM-specific sections of each object (index, name, type, size, flags, codec)"
INPUTS = ("files",)  # paths read: one that does not exist is a usage error (cli)


def add_arguments(p):
    from ._common import add_json_flag, add_limit_flags
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--all", action="store_true", help="list every section, not only the LLVM ones")
    add_json_flag(p)
    add_limit_flags(p)


def run(args) -> int:
    from .. import api
    from ..formats import iter_objects
    from ..errors import ObjllvmError
    from ..render import Heading, Table, render_json, render_text
    from ._common import report_errors
    items, errors, files = [], [], []
    for path in args.files:
        for o in iter_objects(path):
            if isinstance(o, ObjllvmError):
                errors.append(o)
                continue
            infos = None if args.all else _listed_by_index(o)
            if infos is None:
                secs = o.sections if args.all else api.llvm_sections(o)
                infos = [api.section_info(s, o) for s in secs]
                for s, i in zip(secs, infos):
                    i["note"] = _note(s, o, i)
            files.append({**api.object_header(o), "sections": infos})
            items.append(Heading(f"{o.label}: {o.format_name} {o.file_type}"))
            items.append(Table(["index", "name", "type", "size", "flags", "codec"],
                               [[i["index"], i["name"], i["type"] or "", i["size"], i["flags"],
                                 i["codec"] or ("- (" + i["note"] + ")" if i["note"] else "-")]
                                for i in infos]))
    if args.json:
        render_json({"schema": "objllvm-sections", "version": 1, "files": files,
                     "errors": [str(e) for e in errors]})
    else:
        render_text(items)
    return report_errors(errors)


def _listed_by_index(o):
    """The LLVM sections of ELF object ``o`` as :func:`objllvm.api.section_info` gives them (with their notes), told
    by the codec index alone: each section no codec claims (``objllvm.sections.unclaimed``) or that one codec claims
    by its type (``kind_by_type``), without importing the registry and the codecs.  None
    where a section may be claimed otherwise (by name): the caller asks the registry."""
    if o.format != "elf":
        return None
    from .. import api
    from ..formats.elf import is_llvm_type
    from ..sections import kind_by_type, name_only_reason, unclaimed
    infos = []
    for s in o.sections:
        if unclaimed("elf", s.type, s.name):
            if not is_llvm_type(s.type) and name_only_reason(s, o) is None:
                continue
            kind = None
        else:
            kind = kind_by_type(s.type)
            if kind is None:
                return None
        info = api.section_info(s, o, kind=kind)
        info["note"] = _note(s, o, info)
        infos.append(info)
    return infos


def _note(s, o, info):
    """Why an LLVM section has no codec (None when it has one, or is not an LLVM section)."""
    if info["codec"]:
        return None
    from ..formats.elf import LLVM_SECTION_TYPES, is_llvm_type
    from ..sections import name_only_reason
    why = name_only_reason(s, o)
    if why is None and o.format == "elf" and is_llvm_type(s.type):
        why = ("known LLVM section type, not decoded" if s.type in LLVM_SECTION_TYPES
               else "LLVM section type unknown to this version")
    return why
