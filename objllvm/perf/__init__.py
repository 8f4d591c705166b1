"""From perf samples to basic blocks: per-block profiles, layout clusters and CFG pictures.

    >>> from objllvm.perf import profile
    >>> prof = profile("zdrv", "perf.data")          # or profile("zdrv", perf_script="script.txt")
    >>> prof.functions[0].name, prof.functions[0].samples
    >>> for fn, block, n in prof.hottest_blocks(5): ...

Modules: ``perfdata`` (perf.data reader), ``perfscript`` (perf script text), ``mapping`` (runtime address ->
file address -> block), ``clusters`` (clang basic-block cluster files), ``cfg`` (DOT/SVG pictures), ``writer``
(small synthetic perf.data files for tests).
"""
from __future__ import annotations

from .mapping import Profile, RawProfile, collect_perfdata, map_profile, profile  # noqa: F401

__all__ = ["Profile", "RawProfile", "collect_perfdata", "map_profile", "profile"]
