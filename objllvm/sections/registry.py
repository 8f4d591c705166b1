"""The section codec registry that ``dump``, ``rewrite`` and the API share.

A codec is a class registered with :func:`register`.  It says how a section is
recognised (ELF ``sh_type`` first, name second), decodes bytes plus a
:class:`SectionContext` to a model (record classes of its own, :mod:`objllvm._model`), encodes a model
back to exactly the same bytes, and gives a plain dict view (``to_dict``) and
text tables (``tables``).  Codec modules live in ``objllvm/sections/`` (one per
section kind) and are found there automatically.
"""
from . import NAME_ONLY, codec_modules, name_only_reason  # noqa: F401  (the codec modules; sections known by name only)
from .._model import dataclass, field
from .._modules import lazy_attributes
from ..errors import DecodeError, ObjllvmError


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
    # Problems that cost a value, not the section (an unnamed symbol, an unpaired weight): DecodeErrors
    # with the offset in the section; decode_section gives them the file and section (Decoded.warnings).
    warnings: list = field(default_factory=list)
    # Why ``symbols`` / ``relocations`` are empty when the object could not read them (None: read fine).
    symbols_error: object = None
    relocations_error: object = None

    def warn(self, message: str, offset: int | None = None) -> None:
        """Record a warning: the value is kept (shown as unknown), the section still decodes."""
        self.warnings.append(DecodeError(message, offset=offset))

    @classmethod
    def for_section(cls, obj, section, options=None) -> "SectionContext":
        # symbols: obj.symbols; an object that can check them without reading them all (ELF) has them
        # checked when a codec first asks about them (symbols, symbols_error or symbols_pending: most
        # codecs never do, deplibs and linker options among them) and read when it first asks for them.
        # A symbol table or relocation section that cannot be read costs the names and pairs, not the
        # section: the context has none, and says why (symbols_error, relocations_error).
        check = getattr(obj, "check_symbols", None)
        syms_error = rels_error = None
        symbols = _UNCHECKED if check is not None else None
        if check is None:
            try:
                symbols = obj.symbols
            except ObjllvmError as exc:
                syms_error, symbols = exc, []
        try:
            relocations = obj.relocations_for(section)
        except ObjllvmError as exc:
            rels_error, relocations = exc, []
        ctx = cls(endian=obj.endian, addr_size=obj.addr_size, is_relocatable=obj.is_relocatable,
                  file_type=obj.file_type, machine=obj.machine_name, format=obj.format, section=section,
                  obj=obj, symbols=symbols, relocations=relocations, options=dict(options or {}),
                  symbols_error=syms_error, relocations_error=rels_error)
        if relocations and obj.format == "elf":
            _check_relocation_entsize(ctx, obj, section)
        return ctx

    @property
    def symbols_pending(self) -> bool:
        """True while ``symbols`` (the object's) has not been asked for: a codec that needs less than
        the whole table may ask the object for that part instead."""
        return _checked(self).get("_symbols") is _FROM_OBJ


_FROM_OBJ = object()
_UNCHECKED = object()       # the object's symbols, not yet checked (for_section)


def _checked(ctx) -> dict:
    """``ctx.__dict__``, after the object's symbol table was checked if it had not been: a table that cannot
    be read leaves the context no symbols and says why (symbols_error), as if checked in for_section."""
    d = ctx.__dict__
    if d.get("_symbols") is _UNCHECKED:
        try:
            ctx.obj.check_symbols()
            d["_symbols"] = _FROM_OBJ
        except ObjllvmError as exc:
            d["_symbols"], d["_symbols_error"] = [], exc
    return d


def _check_relocation_entsize(ctx, obj, section) -> None:
    """A relocation section whose sh_entsize is not its type's entry size: read at the type's size (the
    relocations still pair), with a warning (llvm-readobj refuses such relocations)."""
    for rs in obj.relocation_sections_for(section):
        want = {9: 8, 4: 12}.get(rs.type)                   # SHT_REL, SHT_RELA (ELF32); doubled for ELF64
        if want is None:
            continue
        want *= 2 if obj.addr_size == 8 else 1
        if rs.entsize and rs.entsize != want:
            ctx.warn(f"relocation section [{rs.index}] {rs.name} has sh_entsize {rs.entsize}, expected {want}: "
                     f"read as {want}-byte entries")


def _get_symbols(self):
    d = _checked(self)
    syms = d.get("_symbols")
    if syms is _FROM_OBJ:
        syms = d["_symbols"] = self.obj.symbols
    return syms


def _set_symbols(self, value):
    self.__dict__["_symbols"] = value


def _get_symbols_error(self):
    return _checked(self).get("_symbols_error")


def _set_symbols_error(self, value):
    self.__dict__["_symbols_error"] = value


SectionContext.symbols = property(_get_symbols, _set_symbols, doc="the object's symbols (a list of Symbol)")
SectionContext.symbols_error = property(_get_symbols_error, _set_symbols_error,
                                        doc="why ``symbols`` is empty when the object could not read them (None: "
                                            "read fine)")


class Codec:
    """Base class of every section codec.  Subclasses set the class attributes."""
    kind: str = ""                 # the name used by --section and in JSON
    description: str = ""
    sh_types: tuple = ()           # ELF section types recognised
    names: tuple = ()              # section names recognised when the type does not decide
    formats: tuple = ("elf",)      # containers the codec applies to
    priority: int = 0              # among name matches, the higher wins
    # ELF: the names are only meant with the types (LLVM writes them typed; lld and llvm-readobj look at the
    # type alone): a named section of another type is decoded, flagged (Decoded.mistyped) and warned about.
    typed_names: bool = False
    # A codec with its own ``matches_name``: substrings, one of which is in every name it claims, and the options
    # that make it claim other names.  The codec index records them, so that such a codec is imported only for a
    # section whose name admits it (tests/test_codec_index.py checks them against what the matcher claims).
    name_hints: tuple = ()
    hint_options: tuple = ()

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

    # -- rewrite hooks --------------------------------------------------------------------------------------------
    # What an edit or a removal means to a section of this kind, asked by objllvm.rewrite (which knows no kind by
    # name), in the spirit of llvm-objcopy's per-section removeSymbols / removeSectionReferences.  The defaults fit
    # a section that no relocation points into and that holds no symbol index.

    def relocations_after_edit(self, edit: "SectionEdit", relocations: list) -> list | None:
        """The relocations of the edited section's new encoding, in order, made from ``relocations`` (those of one
        of its relocation sections, as the input has them): each an ``(i, offset)`` pair, the input's ``i``-th
        relocation moved to ``offset`` (type, symbol and addend kept as stored), or a new
        :class:`~objllvm.formats.base.Relocation`.  None: this kind's relocations cannot follow an edit, and the
        rewrite refuses one that changes the bytes of a section with relocations."""
        return None

    def removed_after_edit(self, model, relocated: bool) -> bool:
        """True when the edited ``model`` leaves nothing worth a section (``relocated``: relocation sections
        target it): the rewrite removes the section, with its relocations, instead of writing it."""
        return False

    def new_section(self) -> dict | None:
        """How a section of this kind is made where a file has none (``rewrite --add-deplib`` on an object
        without ``.deplibs``): the ``name``, ``sh_type`` and any of ``flags``, ``entsize``, ``addralign`` the ELF
        writer's ``add_section`` takes, as LLVM writes the section.  None: the rewrite cannot add one."""
        return None

    def renumber_symbols(self, data: bytes, mapping, ctx: SectionContext) -> bytes | None:
        """``data`` with each symbol index ``i`` it holds made ``mapping[i]`` (-1: the symbol is gone, and leaves
        the section; an index past ``mapping`` stays as it is), when the symbol table its sh_link names is
        renumbered.  None: the section holds no symbol indices.  Raise LookupError(index) to refuse dropping a
        symbol the section cannot do without."""
        return None


class SectionEdit:
    """One section a rewrite has edited, as the codec's rewrite hooks see it: the input's ``section``, its
    ``ctx``, the edited ``model``, its new encoding ``data`` and the number of ``relocation_sections`` that target
    the section."""
    __slots__ = ("codec", "section", "ctx", "model", "data", "relocation_sections")

    def __init__(self, codec: Codec, section, ctx: SectionContext, model, data: bytes, relocation_sections: int):
        self.codec, self.section, self.ctx, self.model = codec, section, ctx, model
        self.data, self.relocation_sections = data, relocation_sections

    @property
    def old_data(self) -> bytes:
        """The section's bytes in the input."""
        return self.section.data()

    def old_model(self):
        """The section as the input has it, decoded again (``model`` is that decoding, edited in place)."""
        return self.codec.decode(self.section.data(), self.ctx)


_CODECS: dict = {}                 # kind -> codec, in the order registered
_BY_TYPE: dict = {}
_loaded = False

# -- lazy loading ------------------------------------------------------------------------------------------
# A codec module is imported when a section needs it, not before: ``_index.KINDS`` (generated from the codecs
# by scripts/gen-codec-index; tests/test_codec_index.py fails when it no longer matches what the modules
# register) says, per kind, its module, its ELF types, its names and formats, and whether it has its own
# ``matches_name``.  Such a codec is imported for a section only when the section's name contains one of
# its ``name_hints`` (or one of its ``hint_options`` is given): its matcher is code, so the codec states its
# hints (the index records them; the package's __init__ answers from the index alone whether any codec may
# claim a section: objllvm.sections.unclaimed), and tests/test_codec_index.py checks that a codec never claims
# a name its hints do not admit.
# A codec module that the index does not list (a new one, until the index is generated again) makes the
# registry load every codec: slower, never wrong.
# Threads may load codecs at once without a lock of the registry's: the import system runs a module's code in one
# thread while any other thread importing it waits, so whoever returns from an import finds the module's codecs
# registered; the index is made from constants (two threads that make it at once make equal ones).
_index = None          # (kinds in order, {sh_type: module}, {(format, name): [(kind, module)]})
_pending: list = []    # [(kind, module, hints, options)]: the codecs with their own matcher not imported yet
_ordered = None        # the registered codecs in the index's order (None: to be made again)
_modules_loaded: set = set()


def _load_index():
    """The lookup tables made from ``_index`` (once)."""
    global _index
    if _index is None:
        _index = _make_index()
    return _index


def _make_index():
    from . import _index as ix
    if set(codec_modules()) != set(ix.MODULES):
        _load_all()                    # a codec module the index does not know: every codec
    by_type, by_name, pending = {}, {}, []
    for kind, (mod, sh_types, names, formats, _priority, own_matcher, _options, hints, opts) in ix.KINDS.items():
        for t in sh_types:
            by_type.setdefault(t, mod)
        if own_matcher:
            pending.append((kind, mod, hints, opts))
        else:
            for f in formats:
                for n in names:
                    by_name.setdefault((f, n), []).append((kind, mod))
    _pending[:] = pending
    return tuple(ix.KINDS), by_type, by_name


def _load_module(mod: str) -> None:
    """Import codec module ``mod`` (its codecs register themselves).  Marked loaded once imported: a thread
    that finds it marked finds its codecs registered."""
    if mod not in _modules_loaded:
        __import__(f"{__package__}.{mod}")      # (importlib.import_module: one more module to import)
        _modules_loaded.add(mod)


def register(cls):
    """Class decorator: add a codec to the registry."""
    inst = cls()
    if not inst.kind:
        raise ValueError(f"{cls.__name__} has no kind")
    if inst.kind in _CODECS:
        raise ValueError(f"codec kind {inst.kind!r} registered twice")
    _CODECS[inst.kind] = inst
    global _ordered
    _ordered = None
    for t in inst.sh_types:
        if t in _BY_TYPE:
            raise ValueError(f"section type {t:#x} claimed by {_BY_TYPE[t].kind} and {inst.kind}")
        _BY_TYPE[t] = inst
    return cls


def _load_all():
    global _loaded
    if _loaded:
        return
    for name in codec_modules():
        _load_module(name)
    _loaded = True


def _in_order() -> tuple:
    """The registered codecs in the index's order (the order of a load of every module), then any others."""
    global _ordered
    if _ordered is None:
        order = _load_index()[0]
        out = {k: _CODECS[k] for k in order if k in _CODECS}
        out.update((k, c) for k, c in _CODECS.items() if k not in out)
        _ordered = tuple(out.values())
    return _ordered


def codecs() -> dict:
    """All registered codecs by kind (every codec module imported)."""
    _load_all()
    return {c.kind: c for c in _in_order()}


def kinds() -> list:
    """The kinds of every codec, sorted, without importing the codecs (the index)."""
    return sorted(set(_load_index()[0]) | set(_CODECS))


def add_codec_arguments(parser) -> None:
    """The codecs' options of ``objllvm dump`` added to ``parser``, in the index's order, without importing the
    codecs: each codec's ``add_arguments`` calls, recorded in the index when they are plain values (the
    codec's own ``add_arguments`` is the one definition; the index is generated from it and checked); a codec
    whose calls are not (``True`` in the index) is imported and asked.  Then any codec registered from
    elsewhere that has options."""
    from . import _index as ix
    for kind, entry in ix.KINDS.items():
        calls = entry[6]
        if calls is True:
            get(kind).add_arguments(parser)
        elif calls:
            targets = [parser]
            for target, method, args, kwargs in calls:
                result = getattr(targets[target], method)(*args, **kwargs)
                if method == "add_argument_group":
                    targets.append(result)
    for c in list(_CODECS.values()):
        if c.kind not in ix.KINDS and type(c).add_arguments.__func__ is not Codec.add_arguments.__func__:
            c.add_arguments(parser)


def get(kind: str) -> Codec:
    c = _CODECS.get(kind)
    if c is not None:
        return c
    from . import _index as ix
    entry = ix.KINDS.get(kind)
    if entry is not None:
        _load_module(entry[0])
    else:
        _load_all()
    try:
        return _CODECS[kind]
    except KeyError:
        _load_all()
        raise ObjllvmError(f"unknown section kind {kind!r} (known: {', '.join(sorted(_CODECS))})") from None


def find_codec(section, obj, options=None) -> Codec | None:
    """The codec for ``section`` of ``obj``: by type first, then by name."""
    _order, by_type, by_name = _index or _load_index()
    fmt = obj.format
    if fmt == "elf" and section.type is not None:
        c = _BY_TYPE.get(section.type)
        if c is None:
            mod = by_type.get(section.type)
            if mod is not None:
                _load_module(mod)
                c = _BY_TYPE.get(section.type)
        if c is not None:
            return c
    name = section.name
    if not _loaded:                      # import the codecs that may claim the name
        for _kind, mod in by_name.get((fmt, name), ()):
            _load_module(mod)
        if _pending and name is not None:
            _load_hinted(name, options)
    best = None
    for c in _ordered or _in_order():
        if c.matches_name(section, obj, options) and (best is None or c.priority > best.priority):
            best = c
    return best


def _load_hinted(name: str, options) -> None:
    """Import the codecs with their own matcher whose hint admits ``name`` (or whose option is given)."""
    for entry in list(_pending):
        _kind, mod, hints, opts = entry
        if (mod in _modules_loaded or hints is None or any(h in name for h in hints)
                or (options and any(options.get(o) for o in opts))):
            _load_module(mod)
            try:
                _pending.remove(entry)
            except ValueError:           # another thread took it off
                pass


@dataclass
class Decoded:
    """One section as dump sees it."""
    section: "Section"
    codec: Codec | None
    status: str                    # 'decoded', 'error', 'undecoded' (known type), 'unknown' (unknown LLVM type)
    model: object = None
    error: ObjllvmError | None = None
    warnings: list = field(default_factory=list)   # located ObjllvmErrors: values lost, section kept
    mistyped: bool = False         # recognised by name, but its ELF type contradicts the name (Codec.typed_names)
    note: str = ""                 # why an LLVM section is not decoded (status 'undecoded')


def decode_section(obj, section, options=None) -> Decoded:
    """Decode ``section`` with its codec; errors become a Decoded with status 'error'
    (and the partial model when the codec had one)."""
    from ..formats.elf import LLVM_SECTION_TYPES, is_llvm_type
    codec = find_codec(section, obj, options)
    if codec is None:
        why = name_only_reason(section, obj)
        if why is not None:
            return Decoded(section, None, "undecoded", note=why)
        if is_llvm_type(section.type):
            return Decoded(section, None, "undecoded" if section.type in LLVM_SECTION_TYPES else "unknown")
        return Decoded(section, None, "unknown")
    loc = dict(file=obj.path, member=obj.member, section_index=section.index, section_name=section.name)
    ctx = None
    try:
        ctx = SectionContext.for_section(obj, section, options)
        data = section.data()
        model = codec.decode(data, ctx)
        d = Decoded(section, codec, "decoded", model)
    except ObjllvmError as exc:
        d = Decoded(section, codec, "error", exc.partial, exc.located(**loc))
    except RecursionError:
        d = Decoded(section, codec, "error", None, DecodeError("input nests too deeply", **loc))
    if ctx is not None:
        d.warnings = [w.located(**loc) for w in ctx.warnings]
    if codec.typed_names and obj.format == "elf" and codec.sh_types and section.type not in codec.sh_types:
        from ..formats.elf import section_type_name
        d.mistyped = True
        d.warnings.insert(0, DecodeError(
            f"section type {section_type_name(section.type)} contradicts the name {section.name} (expected "
            f"{' or '.join(section_type_name(t) for t in codec.sh_types)}): decoded by its name, but linkers and "
            f"llvm-readobj ignore it", **loc))
    return d


def is_llvm_section(section, obj, options=None) -> bool:
    """LLVM-specific: an LLVM section type, a section a codec recognises, or one of the LLVM sections known by
    name (:data:`NAME_ONLY`) that no codec decodes."""
    from ..formats.elf import is_llvm_type
    return (is_llvm_type(section.type) or find_codec(section, obj, options) is not None
            or name_only_reason(section, obj) is not None)


# LLVM-specific sections known by name that no codec decodes (NAME_ONLY, name_only_reason): in the package, which
# lists them without importing the registry (`objllvm sections`); re-exported here.


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
            c = find_codec(s, obj, options)      # (a section a codec recognises is an LLVM section)
            if c is None or c.kind != kind:
                continue
            d = decode_section(obj, s, options)
            if d.error is not None:
                raise d.error
            models.append(d.model)
    return models


TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..formats.base import Section  # noqa: F401
    from ..render import Table  # noqa: F401


# Codecs import Table from here; the renderer is imported when the first one does (a rewrite that only asks
# which kinds exist never needs it).  index_source (scripts/gen-codec-index) is in
# a module of its own: no command needs it.
__getattr__ = lazy_attributes(globals(), {"Table": "objllvm.render", "index_source": "objllvm.sections._index_source"})
