"""The modules of a package, listed without ``pkgutil`` (which imports ``inspect``: a few ms of every
command's start-up).  Used for the command modules (objllvm.cli) and the codec modules (objllvm.registry).
And names a module re-exports from others that it imports when first asked for (:func:`lazy_attributes`)."""
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


def module_names(package, packages: bool = True) -> list:
    """The modules of ``package`` not starting with "_", sorted: what ``pkgutil.iter_modules`` lists (.py
    files and, unless ``packages`` is false, packages)."""
    names = set()
    for d in package.__path__:
        try:
            entries = os.scandir(d)
        except OSError:
            continue
        with entries:
            for e in entries:
                n = e.name
                if n.startswith("_"):
                    continue
                if n.endswith(".py"):
                    n = n[:-3]
                elif not packages or not (e.is_dir() and os.path.isfile(os.path.join(e.path, "__init__.py"))):
                    continue
                if n.isidentifier():
                    names.add(n)
    return sorted(names)


def lazy_attributes(namespace: dict, exports: dict) -> "Callable[[str], object]":
    """A module's ``__getattr__`` (PEP 562) for names it re-exports from other modules without importing them
    with it: ``exports`` maps each name to the absolute name of its module, which is imported when the name
    is first asked for; the value is then kept in ``namespace`` (the module's globals), so it is looked up
    once.  Any other name: AttributeError, as for a module without one."""
    def __getattr__(name: str) -> object:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value = getattr(__import__(module, fromlist=[name]), name)
        namespace[name] = value
        return value
    return __getattr__
