"""objllvm: inspect and rewrite the LLVM-specific sections of object files.

Every job is a function here (docs/api.md): :func:`dump` and :func:`decode` (the sections), :func:`perf_map` and
:func:`layout` (perf samples to basic blocks, and a layout for clang and the linker), :func:`perf_diff` and
:func:`cfg` (two profiles compared, one function's graph), :func:`rewrite_file`,
:func:`extract` and :func:`audit_files`; each returns a typed result.

Importing this package is cheap: the API functions are loaded when first used, so a command imports only
the modules it needs.
"""
__all__ = ["dump", "decode", "perf_map", "layout", "perf_diff", "cfg", "rewrite_file", "extract", "audit_files",
           "ObjectDump", "PerfMapResult", "Layout", "PerfDiffResult", "FunctionGraph", "RewriteResult",
           "ExtractResult", "ExtractedFile", "SkippedPayload", "AuditReport",
           "dump_object", "llvm_sections", "dump_to_dict", "json_schema", "iter_objects", "open_object",
           "ObjllvmError", "DecodeError", "UsageError", "__version__"]

from .errors import DecodeError, ObjllvmError, UsageError  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:                      # what the lazy names below are, for type checkers
    from ._version import __version__ as __version__
    from .api import ObjectDump as ObjectDump
    from .api import decode as decode, dump as dump, dump_object as dump_object, dump_to_dict as dump_to_dict
    from .api import json_schema as json_schema, llvm_sections as llvm_sections
    from .audit import AuditReport as AuditReport
    from .audit.job import audit_files as audit_files
    from .bitcode.job import ExtractedFile as ExtractedFile, ExtractResult as ExtractResult
    from .bitcode.job import SkippedPayload as SkippedPayload, extract as extract
    from .formats import iter_objects as iter_objects, open_object as open_object
    from .perf.job import FunctionGraph as FunctionGraph, Layout as Layout, PerfDiffResult as PerfDiffResult
    from .perf.job import PerfMapResult as PerfMapResult, cfg as cfg, layout as layout, perf_diff as perf_diff
    from .perf.job import perf_map as perf_map
    from .rewrite import RewriteResult as RewriteResult, rewrite_file as rewrite_file

# where each lazy name lives
_HOMES = {"api": ("dump", "decode", "dump_object", "llvm_sections", "dump_to_dict", "json_schema", "ObjectDump"),
          "bitcode.job": ("extract", "ExtractResult", "ExtractedFile", "SkippedPayload"),
          "perf.job": ("perf_map", "layout", "perf_diff", "cfg", "PerfMapResult", "Layout", "PerfDiffResult",
                       "FunctionGraph"),
          "formats": ("iter_objects", "open_object"),
          "rewrite": ("rewrite_file", "RewriteResult"),
          "audit.job": ("audit_files",),
          "audit": ("AuditReport",),
          "_version": ("__version__",)}


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def __getattr__(name: str) -> object:
    for home, names in _HOMES.items():
        if name in names:
            value = getattr(__import__(f"{__name__}.{home}", fromlist=[name]), name)
            globals()[name] = value
            return value
    raise AttributeError(f"module 'objllvm' has no attribute {name!r}")
