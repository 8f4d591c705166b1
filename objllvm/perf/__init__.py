"""From perf samples to basic blocks: per-block profiles, layout clusters and CFG pictures.

    >>> from objllvm.perf import profile
    >>> prof = profile("zdrv", "perf.data")          # or profile("zdrv", perf_script="script.txt")
    >>> prof = profile("zdrv", ["a.data", "b.data"], jobs=2)      # merged by build-id
    >>> prof.functions[0].name, prof.functions[0].samples
    >>> for fn, block, n in prof.hottest_blocks(5): ...

Modules: ``raw`` (samples per runtime address), ``perfdata`` (perf.data reader, zstd-compressed records
included), ``perfscript`` (perf script text), ``merge`` (per build-id and file offset: merged, saved, merged again),
``fleet`` (the same on a Dask cluster), ``mapping`` (file offset -> block), ``stale`` (a profile carried to the next
build by block hash), ``clusters`` (clang basic-block cluster files), ``cfg`` (DOT/SVG pictures), ``debuginfo``
(names for stripped binaries from their debug files), ``process`` (every object of a process), ``diff`` (two
profiles compared), ``report_html`` (the report page), ``writer`` (small synthetic perf.data files for tests).  See docs/perf-map.md.
"""
from __future__ import annotations

from .mapping import Profile, RawProfile, collect_perfdata, map_profile, profile  # noqa: F401

__all__ = ["Profile", "RawProfile", "collect_perfdata", "map_profile", "profile"]
