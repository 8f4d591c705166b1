"""Rewrite the LLVM-specific sections of an ELF file: the Python API behind ``objllvm rewrite``.

    >>> from objllvm import rewrite as rw
    >>> result = rw.rewrite_file("main.o", "main-stripped.o", [rw.DropDeplib("m"), rw.Remove("addrsig")])
    >>> [(c.name, c.action) for c in result.changes]
    [('.deplibs', 'changed'), ('.llvm_addrsig', 'removed')]

:mod:`.session` runs a rewrite (decode, edit, re-encode, verify, write atomically); :mod:`.operations` holds the
operations.
"""
from .operations import (AddDeplib, AddLinkerOption, DropAddrsig, DropCGEdge, DropDeplib, DropLinkerOption,
                         DropOffload, Operation, Remove, ReplaceBitcode, ScaleCGWeights, SetSection, StripBitcode,
                         StripLLVM, StripPGOAnalysis, check_bitcode)
from .session import (Change, RewriteResult, Session, describe_changes, rewrite_bytes, rewrite_file,
                      rewrite_object)

__all__ = ["rewrite_file", "rewrite_bytes", "rewrite_object", "describe_changes", "Change", "RewriteResult",
           "Remove", "StripLLVM", "DropLinkerOption", "AddLinkerOption", "DropDeplib", "AddDeplib", "DropAddrsig",
           "DropCGEdge", "ScaleCGWeights", "StripBitcode", "ReplaceBitcode", "DropOffload", "StripPGOAnalysis",
           "SetSection", "Session", "Operation", "check_bitcode"]
