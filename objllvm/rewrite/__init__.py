"""Rewrite the LLVM-specific sections of an ELF file: the Python API behind ``objllvm rewrite``.

    >>> from objllvm import rewrite as rw
    >>> result = rw.rewrite_file("main.o", "main-stripped.o", [rw.DropDeplib("m"), rw.Remove("addrsig")])
    >>> [(c.name, c.action) for c in result.changes]
    [('.deplibs', 'changed'), ('.llvm_addrsig', 'removed')]

:mod:`.session` runs a rewrite (decode, edit, re-encode, verify, write atomically); :mod:`.removal` holds the
removals (``Remove``, ``StripLLVM``), :mod:`.operations` the operations that edit contents (imported when one is
first asked for: a rewrite that only removes sections does without them).
"""
from .removal import Operation, Remove, StripLLVM
from .session import (Change, RewriteResult, Session, describe_changes, rewrite_bytes, rewrite_file,
                      rewrite_object)

__all__ = ["rewrite_file", "rewrite_bytes", "rewrite_object", "describe_changes", "Change", "RewriteResult",
           "Remove", "StripLLVM", "DropLinkerOption", "AddLinkerOption", "DropDeplib", "AddDeplib", "DropAddrsig",
           "DropCGEdge", "ScaleCGWeights", "StripBitcode", "ReplaceBitcode", "DropOffload", "StripPGOAnalysis",
           "SetSection", "Session", "Operation", "check_bitcode"]

# (from .operations, when first asked for)
_EDITS = frozenset(("AddDeplib", "AddLinkerOption", "DropAddrsig", "DropCGEdge", "DropDeplib", "DropLinkerOption",
                    "DropOffload", "ReplaceBitcode", "ScaleCGWeights", "SetSection", "StripBitcode",
                    "StripPGOAnalysis", "check_bitcode"))

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .operations import (AddDeplib, AddLinkerOption, DropAddrsig, DropCGEdge, DropDeplib,  # noqa: F401
                             DropLinkerOption, DropOffload, ReplaceBitcode, ScaleCGWeights, SetSection, StripBitcode,
                             StripPGOAnalysis, check_bitcode)


def __getattr__(name: str) -> object:
    if name in _EDITS:
        from . import operations
        value = getattr(operations, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
