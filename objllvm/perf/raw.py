"""The raw profile: samples aggregated per unique runtime address, with the mappings of every process, before
they are reduced (:mod:`.merge`) and mapped to a binary (:mod:`.mapping`).  Below both readers
(:func:`objllvm.perf.perfdata.collect_perfdata` and :mod:`.perfscript`), so neither imports the other."""
from __future__ import annotations

from collections import Counter

from .._model import dataclass, field


@dataclass
class RawProfile:
    """Samples aggregated per unique address, with the executable mappings of every process."""
    source: str                                        # the perf.data / perf script file
    ip_counts: Counter = field(default_factory=Counter)        # (pid, ip) -> samples
    taken: Counter = field(default_factory=Counter)            # (pid, from, to) -> count
    ranges: Counter = field(default_factory=Counter)           # (pid, start, end) -> count
    mmaps: dict = field(default_factory=dict)                  # pid -> [Mmap] (executable ones)
    parents: dict = field(default_factory=dict)                # pid -> parent pid (FORK before any own exec)
    comms: dict = field(default_factory=dict)                  # pid -> last command name
    build_ids: dict = field(default_factory=dict)              # filename -> build-id bytes (header feature)
    samples: int = 0
    branch_samples: int = 0
    records: dict = field(default_factory=dict)                # record type name -> count
    unknown_records: int = 0
    attrs: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    event_samples: dict = field(default_factory=dict)          # event name -> samples, every event recorded
    event: str | None = None                                   # the one event aggregated (None: all of them)

    def add_mmap(self, m):
        self.mmaps.setdefault(m.pid, []).append(m)

    def exec_(self, pid: int):
        """The process replaced its image: forget what it had mapped and inherited."""
        self.mmaps.pop(pid, None)
        self.parents.pop(pid, None)

    def mappings_of(self, pid: int) -> list:
        """Executable mappings visible in ``pid``: its own (latest first), then its parents'."""
        out, seen = [], set()
        while pid is not None and pid not in seen:
            seen.add(pid)
            out.extend(reversed(self.mmaps.get(pid, ())))
            pid = self.parents.get(pid)
        return out
