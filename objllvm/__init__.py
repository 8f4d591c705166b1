"""objllvm: inspect and rewrite the LLVM-specific sections of object files.

Importing this package is cheap: the API functions are loaded when first used, so a command imports only
the modules it needs.
"""
__all__ = ["dump", "decode", "dump_object", "llvm_sections", "dump_to_dict", "iter_objects", "open_object",
           "ObjllvmError", "DecodeError", "__version__"]

from .errors import DecodeError, ObjllvmError  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:                      # what the lazy names below are, for type checkers
    from ._version import __version__ as __version__
    from .api import decode as decode, dump as dump, dump_object as dump_object, dump_to_dict as dump_to_dict
    from .api import llvm_sections as llvm_sections
    from .formats import iter_objects as iter_objects, open_object as open_object


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def __getattr__(name: str) -> object:
    if name == "__version__":           # (imported when first asked for: a command needs it for --version only)
        from ._version import __version__
        globals()["__version__"] = __version__
        return __version__
    if name in ("dump", "decode", "dump_object", "llvm_sections", "dump_to_dict"):
        from . import api
        return getattr(api, name)
    if name in ("iter_objects", "open_object"):
        from . import formats
        return getattr(formats, name)
    raise AttributeError(f"module 'objllvm' has no attribute {name!r}")
