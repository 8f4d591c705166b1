"""The text of the codec index, ``objllvm/sections/_index.py``, made from the codecs: what scripts/gen-codec-index
writes and tests/test_codec_index.py compares (``registry.index_source`` is :func:`index_source`; a module of its
own, as no command needs it)."""
from . import codec_modules, registry
from .registry import Codec


class _NotPlain(Exception):
    pass


class _CallLog:
    """Stands for the parser when an ``add_arguments`` is recorded for the index."""

    def __init__(self, log: list, target: int):
        self._log, self._target = log, target

    def add_argument(self, *args, **kwargs):
        self._log.append((self._target, "add_argument", args, kwargs))

    def add_argument_group(self, *args, **kwargs):
        self._log.append((self._target, "add_argument_group", args, kwargs))
        return _CallLog(self._log, sum(m == "add_argument_group" for _, m, _, _ in self._log))

    def __getattr__(self, name):
        raise _NotPlain(name)


_PLAIN_TYPES = {int: "int", float: "float", str: "str"}


def _plain(v) -> str:
    """``repr(v)`` for a value the index can hold as text (raises _NotPlain for any other)."""
    if isinstance(v, type) and v in _PLAIN_TYPES:
        return _PLAIN_TYPES[v]
    if v is None or isinstance(v, (bool, int, float, str)):
        return repr(v)
    if isinstance(v, (tuple, list)):
        inner = ", ".join(map(_plain, v))
        return f"({inner},)" if isinstance(v, tuple) and len(v) == 1 else (
            f"({inner})" if isinstance(v, tuple) else f"[{inner}]")
    raise _NotPlain(repr(v))


def _recorded_options(cls) -> str:
    """The index's text of a codec's ``add_arguments`` calls: None (no options), a tuple of calls, or True
    (calls the index cannot hold: the codec is imported to add them)."""
    if cls.add_arguments.__func__ is Codec.add_arguments.__func__:
        return "None"
    log: list = []
    try:
        cls.add_arguments(_CallLog(log, 0))
        calls = [f"({t}, {m!r}, {_plain(tuple(a))}, {{{', '.join(f'{k!r}: {_plain(v)}' for k, v in kw.items())}}})"
                 for t, m, a, kw in log]
    except _NotPlain:
        return "True"
    return "(" + "".join(f"\n        {c}," for c in calls) + ")"


def _elf_names_claimed() -> list:
    """The names of the codecs (ELF spelling) that some codec claims (as ``registry.find_codec`` asks) under every ELF type
    that no codec claims by type and that is not one of the container's tables, at both word sizes, with no
    options: sorted."""
    from types import SimpleNamespace
    from ..formats.base import Section
    from ..formats.elf import NEVER_LLVM_TYPES, SECTION_TYPE_NAMES, is_llvm_type
    types = sorted({t for t in list(SECTION_TYPE_NAMES) + list(range(20)) if not is_llvm_type(t)} - NEVER_LLVM_TYPES)
    names = sorted({n for c in registry._CODECS.values() if "elf" in c.formats for n in c.names})
    codecs = list(registry._CODECS.values())        # (every one loaded; none claims these types by type)
    out = []
    for name in names:
        if all(any(c.matches_name(Section(1, name, t, 0, 0, 0, 0, 0, 0, 1, 0, _data=b""),
                                  SimpleNamespace(format="elf", addr_size=size), None) for c in codecs)
               for t in types for size in (4, 8)):
            out.append(name)
    return out


def index_source() -> str:
    """The text of ``objllvm/sections/_index.py`` made from the codecs (every module imported)."""
    from .. import sections as pkg
    registry._load_all()
    modules = codec_modules()
    lines = ['"""How each section kind is recognised, so that only the codecs of the sections present are imported.',
             "",
             "Generated from the codecs by scripts/gen-codec-index (objllvm.sections.registry.index_source): do not",
             "edit.  tests/test_codec_index.py fails when it no longer matches what the codec modules register.",
             '"""',
             "# kind: (module, ELF sh_types, names, formats, priority, has its own matches_name, its dump options: the",
             "# add_arguments calls as (0: the parser / n: the n-th group, method, args, kwargs); True: import it to ask;",
             "# with its own matches_name: its name hints (None: any name) and the options that widen them)",
             "KINDS = {"]
    for m in modules:
        for c in registry._CODECS.values():
            cls = type(c)
            if cls.__module__ != f"{pkg.__name__}.{m}":
                continue
            own = cls.matches_name is not Codec.matches_name
            opts = _recorded_options(cls)
            types = "(" + "".join(f"{t:#x}, " for t in c.sh_types).removesuffix(", ") + \
                ("," if len(c.sh_types) == 1 else "") + ")"
            hints = tuple(c.name_hints) or None if own else None
            lines.append(f"    {c.kind!r}: ({m!r}, {types}, {tuple(c.names)!r}, {tuple(c.formats)!r}, "
                         f"{c.priority!r}, {own!r}, {opts}, {hints!r}, {tuple(c.hint_options)!r}),")
    lines.append("}")
    lines.append("# the ELF section names some codec claims whatever the section's type (but the container's own tables,")
    lines.append("# formats.elf.NEVER_LLVM_TYPES), given no codec options")
    lines.append("ELF_NAMES_CLAIMED = frozenset((")
    lines.extend(f"    {n!r}," for n in _elf_names_claimed())
    lines.append("))")
    lines.append("# every codec module")
    lines.append("MODULES = (")
    lines.extend(f"    {m!r}," for m in modules)
    lines.append(")")
    return "\n".join(lines) + "\n"
