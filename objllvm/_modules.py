"""The modules of a package, listed without ``pkgutil`` (which imports ``inspect``: a few ms of every
command's start-up).  Used for the command modules (objllvm.cli) and the codec modules (objllvm.registry)."""
from __future__ import annotations

import os


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
