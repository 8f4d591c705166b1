"""objllvm: inspect and rewrite the LLVM-specific sections of object files.

Importing this package is cheap: the API functions load what they need.
"""
from __future__ import annotations

from ._version import __version__  # noqa: E402,F401

__all__ = ["dump", "decode", "iter_objects", "open_object", "ObjllvmError", "DecodeError", "__version__"]

from .errors import DecodeError, ObjllvmError  # noqa: E402
from ._compat import install as _install_old_paths  # noqa: E402

_install_old_paths()


def __getattr__(name: str) -> object:
    if name in ("dump", "decode", "dump_object", "llvm_sections", "dump_to_dict"):
        from . import api
        return getattr(api, name)
    if name in ("iter_objects", "open_object"):
        from . import formats
        return getattr(formats, name)
    raise AttributeError(f"module 'objllvm' has no attribute {name!r}")
