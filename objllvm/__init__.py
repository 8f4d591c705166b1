"""objllvm: inspect and rewrite the LLVM-specific sections of object files.

Importing this package is cheap: the API functions load what they need.  The finder of the old import
paths lives here, not in a module of its own: each module imported is ~0.1 ms of every command
(docs/architecture.md, "Start-up").
"""
__all__ = ["dump", "decode", "iter_objects", "open_object", "ObjllvmError", "DecodeError", "__version__"]

from .errors import DecodeError, ObjllvmError  # noqa: E402

TYPE_CHECKING = False
if TYPE_CHECKING:
    import types

    from ._version import __version__ as __version__

# -- objllvm 0.1's import paths, kept for one release with a DeprecationWarning ------------------------
# No file is left at the old places: _install_old_paths puts a finder on sys.meta_path that serves each old
# name in _MOVED as the module it moved to.

_MOVED = {
    "objllvm.containers": "objllvm.formats",
    "objllvm.containers.archive": "objllvm.formats.archive",
    "objllvm.containers.base": "objllvm.formats.base",
    "objllvm.containers.bitcode": "objllvm.formats.bitcode",
    "objllvm.containers.coff": "objllvm.formats.coff",
    "objllvm.containers.elf": "objllvm.formats.elf",
    "objllvm.containers.macho": "objllvm.formats.macho",
    "objllvm.elfwriter": "objllvm.formats.elf_writer",
    "objllvm.bitstream": "objllvm.formats.bitstream",
    "objllvm.registry": "objllvm.sections.registry",
    "objllvm.pcsections": "objllvm.sections.support.pc_layouts",
    "objllvm.bbindex": "objllvm.sections.support.bb_index",
    "objllvm.codecs": "objllvm.sections",
    "objllvm.codecs._strings": "objllvm.sections.support.strings",
    "objllvm.codecs._symbols": "objllvm.sections.support.symbols",
    **{f"objllvm.codecs.{n}": f"objllvm.sections.{n}" for n in (
        "addrsig", "bb_addr_map", "bitcode", "cg_profile", "coff_directives", "deplibs", "linker_options",
        "llvmcmd", "macho_linker_options", "offloading", "pc_sections", "sympart")},
}


class _MovedFinder:
    """A meta-path finder that answers only for the old names in _MOVED: the old name becomes the very module
    object of the new one (so classes and codec registrations stay one), with a DeprecationWarning."""

    @staticmethod
    def find_spec(fullname: str, path: object = None, target: object = None) -> object:
        if fullname not in _MOVED:
            return None
        from importlib.machinery import ModuleSpec
        return ModuleSpec(fullname, _MovedFinder,  # type: ignore[arg-type]
                          is_package=fullname in ("objllvm.containers", "objllvm.codecs"))

    @staticmethod
    def create_module(spec: object) -> None:
        return None

    @staticmethod
    def exec_module(module: "types.ModuleType") -> None:
        import importlib
        import sys
        import warnings
        old = module.__name__
        new = _MOVED[old]
        warnings.warn(f"{old} is deprecated and will be removed in the next release; import {new}",
                      DeprecationWarning, stacklevel=2)
        sys.modules[old] = importlib.import_module(new)


def _install_old_paths() -> None:
    """Put the finder first on ``sys.meta_path`` (once): before the path finder could load an old submodule
    from the new package's directory under its old name (a second copy)."""
    import sys
    # (the class itself is the finder and the loader: its methods are static; typeshed wants instances)
    if not any(f is _MovedFinder for f in sys.meta_path):  # type: ignore[comparison-overlap]
        sys.meta_path.insert(0, _MovedFinder)  # type: ignore[arg-type]


_install_old_paths()


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
