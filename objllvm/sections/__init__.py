"""Section codecs: one module per section kind, each registering itself (see objllvm.sections.registry); shared helpers in support/.

The package itself answers two questions from the codec index (``_index``) alone, without the registry: may any
codec claim a section (:func:`unclaimed`), and does one claim an ELF section by its name alone
(:func:`claimed_in_elf`)?  ``rewrite --strip-llvm`` asks them of the sections of an object that are not LLVM's
own types (``.comment``, ``.debug_*``; ``__llvm_covfun``), and needs the registry only for a section some codec
may claim, depending on more than its name.
"""
import sys

_claims = None      # ({ELF type: kind}, {(format, name)}, name substrings) of the index; False: out of date


def codec_modules() -> list:
    """The codec modules of this package, sorted: what ``objllvm._modules.module_names`` lists of its ``.py`` files,
    less the registry.  The registry and :func:`unclaimed` compare it with the index's ``MODULES``."""
    from .._modules import module_names
    return [m for m in module_names(sys.modules[__name__], packages=False) if m != "registry"]


def _index_claims():
    """What the codec index says the codecs claim: {ELF type: the kind claiming it, None where more than one do},
    every (format, name) claimed by name, and the substrings of the names codecs with their own matcher may claim;
    False when a codec module is missing from the index or a codec with its own matcher has no hint (then only the
    registry can tell).  Worked out once."""
    global _claims
    if _claims is not None:
        return _claims
    from . import _index as ix
    _claims = False
    if set(codec_modules()) != set(ix.MODULES):
        return _claims
    types: dict = {}
    names, hints = set(), []
    for kind, (_mod, sh_types, kind_names, formats, _priority, own_matcher, _options, kind_hints,
               _hint_options) in ix.KINDS.items():
        for t in sh_types:
            types[t] = kind if t not in types else None
        if own_matcher:
            if kind_hints is None:
                return _claims
            hints.extend(kind_hints)
        else:
            names.update((f, n) for f in formats for n in kind_names)
    _claims = (types, frozenset(names), tuple(hints))
    return _claims


def unclaimed(fmt: str, sh_type, name) -> bool:
    """True when no codec claims a section of an object of format ``fmt`` with this type and name, given no codec
    options (what ``registry.find_codec`` would answer: None), told by the codec index without importing the
    registry or any codec.  False: some codec may claim it (ask ``registry.find_codec``); always False once the
    registry is imported (codecs may be registered that the index does not list)."""
    if __name__ + ".registry" in sys.modules:
        return False
    return _unclaimed_by_index(fmt, sh_type, name)


def claimed_in_elf(name) -> bool:
    """True when some codec claims an ELF section named ``name`` whatever its type (but the container's own tables:
    formats.elf.NEVER_LLVM_TYPES), given no codec options, told by the codec index without importing the registry
    or any codec (its ``ELF_NAMES_CLAIMED``).  False: maybe not (ask ``registry.find_codec``); always False when
    the index is out of date."""
    from . import _index as ix
    return _index_claims() is not False and name in ix.ELF_NAMES_CLAIMED


def _unclaimed_by_index(fmt: str, sh_type, name) -> bool:
    claims = _index_claims()
    if not claims:
        return False
    types, names, hints = claims
    if fmt == "elf" and sh_type is not None and sh_type in types:
        return False
    if (fmt, name) in names:
        return False
    return name is None or not any(h in name for h in hints)


# LLVM-specific sections with no SHT_LLVM type, known by name, that no codec of this version decodes: the
# name (a trailing ``*``: a prefix) and why.  A codec that recognises one of these names takes precedence
# (find_codec is asked first), so adding a codec for a kind needs no change here.  Names are matched as
# ELF writes them, as Mach-O's section part (``__DATA,__llvm_prf_cnts`` -> ``__llvm_prf_cnts``) and as
# COFF's name before ``$`` (``.lprfc$M`` -> ``.lprfc``).
_PROFILE = ("instrumentation profile data (-fprofile-instr-generate) that the profile codec does not claim: read "
            "by llvm-profdata on the .profraw a run writes")
_COVERAGE = "coverage data (-fcoverage-mapping) that the coverage codec does not claim: read by llvm-cov"
NAME_ONLY = (
    ("__llvm_prf_*", _PROFILE), (".lprf*", _PROFILE), ("__llvm_orderfile", _PROFILE),
    ("__llvm_covmap", _COVERAGE), ("__llvm_covfun", _COVERAGE), ("__llvm_covinit", _COVERAGE),
    (".lcovmap", _COVERAGE), (".lcovfun", _COVERAGE), (".lcovinit", _COVERAGE),
    (".llvm.rodata.offloading", "names of the offloading entries: shown by the offload-entries codec"),
    (".pseudo_probe", "pseudo probes (-fpseudo-probe-for-profiling): read by llvm-profgen, not decoded"),
    (".pseudo_probe_desc", "pseudo probe descriptors (-fpseudo-probe-for-profiling): not decoded"),
    ("__sancov_*", "sanitizer coverage tables (-fsanitize-coverage): not decoded"),
    ("sancov_*", "sanitizer coverage tables (-fsanitize-coverage): not decoded"),
    (".sancov*", "sanitizer coverage tables (-fsanitize-coverage): not decoded"),
    ("asan_globals", "ASan global descriptors: not decoded"),
    ("__asan_globals", "ASan global descriptors: not decoded"),
    ("__llvm_fs_discriminator__", "flow-sensitive discriminator marker: not decoded"),
)
_NAME_EXACT = {n: why for n, why in NAME_ONLY if not n.endswith("*")}
_NAME_PREFIX = tuple((n[:-1], why) for n, why in NAME_ONLY if n.endswith("*"))


def name_only_reason(section, obj) -> str | None:
    """Why ``section`` is an LLVM section objllvm lists but does not decode (None: not such a section)."""
    name = section.name or ""
    if obj.format == "macho":
        name = name.partition(",")[2] or name
    elif obj.format == "coff":
        name = name.partition("$")[0]
    why = _NAME_EXACT.get(name)
    if why is not None:
        return why
    for prefix, why in _NAME_PREFIX:
        if name.startswith(prefix):
            return why
    return None


def kind_by_type(sh_type) -> str | None:
    """The kind of the one codec that claims ELF sections of type ``sh_type`` by their type (what
    ``registry.find_codec`` answers for them, whatever their name), told by the codec index without importing the
    registry or the codec; None: none does, or more than one, or the index cannot tell (ask the registry)."""
    if __name__ + ".registry" in sys.modules:
        return None
    claims = _index_claims()
    return claims[0].get(sh_type) if claims else None
