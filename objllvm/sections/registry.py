"""The section codec registry that ``dump``, ``rewrite`` and the API share.

A codec is a class registered with :func:`register`.  It says how a section is
recognised (ELF ``sh_type`` first, name second), decodes bytes plus a
:class:`SectionContext` to a model (record classes of its own, :mod:`objllvm._model`), encodes a model
back to exactly the same bytes, and gives a plain dict view (``to_dict``) and
text tables (``tables``).  Codec modules live in ``objllvm/sections/`` (one per
section kind) and are found there automatically.
"""
from __future__ import annotations

from .._model import dataclass, field
from .._modules import module_names
from ..errors import DecodeError, ObjllvmError
from ..render import Table  # noqa: F401  (codecs import Table from here)


@dataclass
class SectionContext:
    """What a codec may know beyond the bytes: never file headers, only these facts."""
    endian: str = "<"
    addr_size: int = 8
    is_relocatable: bool = False
    file_type: str = "ET_REL"
    machine: str = "x86-64"
    format: str = "elf"
    section: object = None           # containers.base.Section
    obj: object = None               # the ObjectFile (symbols, other sections: for codecs that need them)
    symbols: list = field(default_factory=list)
    relocations: list = field(default_factory=list)
    options: dict = field(default_factory=dict)   # codec options from the CLI / API

    @classmethod
    def for_section(cls, obj, section, options=None) -> "SectionContext":
        # symbols: obj.symbols; an object that can check them without reading them all (ELF) has them
        # read when a codec first asks (see symbols_pending), the errors still raised here
        check = getattr(obj, "check_symbols", None)
        if check is not None:
            check()
        return cls(endian=obj.endian, addr_size=obj.addr_size, is_relocatable=obj.is_relocatable,
                   file_type=obj.file_type, machine=obj.machine_name, format=obj.format, section=section,
                   obj=obj, symbols=_FROM_OBJ if check is not None else obj.symbols,
                   relocations=obj.relocations_for(section), options=dict(options or {}))

    @property
    def symbols_pending(self) -> bool:
        """True while ``symbols`` (the object's) has not been asked for: a codec that needs less than
        the whole table may ask the object for that part instead."""
        return self.__dict__.get("_symbols") is _FROM_OBJ


_FROM_OBJ = object()


def _get_symbols(self):
    syms = self.__dict__.get("_symbols")
    if syms is _FROM_OBJ:
        syms = self.__dict__["_symbols"] = self.obj.symbols
    return syms


def _set_symbols(self, value):
    self.__dict__["_symbols"] = value


SectionContext.symbols = property(_get_symbols, _set_symbols, doc="the object's symbols (a list of Symbol)")


class Codec:
    """Base class of every section codec.  Subclasses set the class attributes."""
    kind: str = ""                 # the name used by --section and in JSON
    description: str = ""
    sh_types: tuple = ()           # ELF section types recognised
    names: tuple = ()              # section names recognised when the type does not decide
    formats: tuple = ("elf",)      # containers the codec applies to
    priority: int = 0              # among name matches, the higher wins

    def matches_name(self, section, obj, options=None) -> bool:
        """Name-based recognition (after the type did not decide).  ``options`` are the dump options,
        for codecs whose section names are given by the user (e.g. PC sections)."""
        return obj.format in self.formats and section.name in self.names

    def decode(self, data: bytes, ctx: SectionContext):
        raise NotImplementedError

    def encode(self, model, ctx: SectionContext) -> bytes:
        raise NotImplementedError

    def to_dict(self, model):
        raise NotImplementedError

    def to_json(self, model):
        """Optional: ``to_dict(model)`` as compact JSON text (str or ASCII bytes, or a list of such pieces),
        exactly as ``json.dumps(..., separators=(",", ":"))`` writes it, for a faster ``dump --json``; None to
        use ``to_dict``."""
        return None

    def from_dict(self, d, ctx: SectionContext):
        """The inverse of ``to_dict`` (used by ``rewrite --set-section``)."""
        raise NotImplementedError(f"{self.kind}: editing from JSON is not supported")

    def tables(self, model, options: dict) -> list:
        raise NotImplementedError

    @classmethod
    def add_arguments(cls, parser) -> None:
        """Codec-specific options of ``objllvm dump`` (optional)."""


_CODECS: dict = {}
_BY_TYPE: dict = {}
_loaded = False


def register(cls):
    """Class decorator: add a codec to the registry."""
    inst = cls()
    if not inst.kind:
        raise ValueError(f"{cls.__name__} has no kind")
    if inst.kind in _CODECS:
        raise ValueError(f"codec kind {inst.kind!r} registered twice")
    _CODECS[inst.kind] = inst
    for t in inst.sh_types:
        if t in _BY_TYPE:
            raise ValueError(f"section type {t:#x} claimed by {_BY_TYPE[t].kind} and {inst.kind}")
        _BY_TYPE[t] = inst
    return cls


def _load_all():
    global _loaded
    if _loaded:
        return
    _loaded = True
    from .. import sections as pkg
    for name in module_names(pkg, packages=False):
        if name != "registry":
            __import__(f"{pkg.__name__}.{name}")      # (importlib.import_module: one more module to import)


def codecs() -> dict:
    """All registered codecs by kind."""
    _load_all()
    return dict(_CODECS)


def get(kind: str) -> Codec:
    _load_all()
    try:
        return _CODECS[kind]
    except KeyError:
        raise ObjllvmError(f"unknown section kind {kind!r} (known: {', '.join(sorted(_CODECS))})") from None


def find_codec(section, obj, options=None) -> Codec | None:
    """The codec for ``section`` of ``obj``: by type first, then by name."""
    _load_all()
    if obj.format == "elf" and section.type is not None:
        c = _BY_TYPE.get(section.type)
        if c is not None:
            return c
    best = None
    for c in _CODECS.values():
        if c.matches_name(section, obj, options) and (best is None or c.priority > best.priority):
            best = c
    return best


@dataclass
class Decoded:
    """One section as dump sees it."""
    section: object
    codec: Codec | None
    status: str                    # 'decoded', 'error', 'undecoded' (known type), 'unknown' (unknown LLVM type)
    model: object = None
    error: ObjllvmError | None = None


def decode_section(obj, section, options=None) -> Decoded:
    """Decode ``section`` with its codec; errors become a Decoded with status 'error'
    (and the partial model when the codec had one)."""
    from ..formats.elf import LLVM_SECTION_TYPES, is_llvm_type
    codec = find_codec(section, obj, options)
    if codec is None:
        if is_llvm_type(section.type):
            return Decoded(section, None, "undecoded" if section.type in LLVM_SECTION_TYPES else "unknown")
        return Decoded(section, None, "unknown")
    loc = dict(file=obj.path, member=obj.member, section_index=section.index, section_name=section.name)
    try:
        ctx = SectionContext.for_section(obj, section, options)
        data = section.data()
        model = codec.decode(data, ctx)
        return Decoded(section, codec, "decoded", model)
    except ObjllvmError as exc:
        return Decoded(section, codec, "error", exc.partial, exc.located(**loc))
    except RecursionError:
        return Decoded(section, codec, "error", None,
                       DecodeError("input nests too deeply", **loc))


def is_llvm_section(section, obj, options=None) -> bool:
    """LLVM-specific: an LLVM section type, or a section a codec recognises."""
    from ..formats.elf import is_llvm_type
    return is_llvm_type(section.type) or find_codec(section, obj, options) is not None


def decode_file(path: str, kind: str, options=None) -> list:
    """The decoded models of every ``kind`` section of every object in ``path`` (a file or an archive); raise the
    first error (an unreadable object or a section that does not decode).  ``objllvm.api.decode`` is this."""
    from ..formats import iter_objects
    get(kind)                                   # an unknown kind is a usage error
    models = []
    for obj in iter_objects(path):
        if isinstance(obj, ObjllvmError):
            raise obj
        for s in obj.sections:
            if not is_llvm_section(s, obj, options):
                continue
            c = find_codec(s, obj, options)
            if c is None or c.kind != kind:
                continue
            d = decode_section(obj, s, options)
            if d.error is not None:
                raise d.error
            models.append(d.model)
    return models
