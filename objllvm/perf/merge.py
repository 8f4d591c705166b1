"""Profiles that merge: samples per object (build-id) and file offset, from any number of recordings.

A recording's addresses are runtime addresses of one process (ASLR).  :func:`reduce_raw` turns them into
``(object, file offset)``: the object is the mapped file named by its build-id (by its path when perf recorded no
build-id), the offset is ``ip - mapping start + pgoff``.  Those are the same on every machine and every run of the
same build, so profiles of many recordings, hosts and days add up: :func:`merge` sums the counters exactly (integer
addition: associative and commutative), keeps the list of recordings, and :meth:`MergedProfile.to_dict` /
:func:`load` save and read the result (JSON, ``schema: objllvm-perf-profile``, ``version: 1``) so a merged profile
can be merged again.  :func:`objllvm.perf.mapping.map_profile` maps a merged profile to the blocks of a binary.

:func:`collect` reads many perf.data files in parallel processes (``concurrent.futures``, one reduced profile per
recording sent back, never the samples) and merges them; :mod:`.fleet` does the same on a Dask cluster.
"""
from __future__ import annotations

import os
from collections import Counter

from .._model import dataclass, field
from ..errors import DecodeError, ObjllvmError
from .perfdata import collect_perfdata
from .raw import RawProfile

SCHEMA, VERSION = "objllvm-perf-profile", 1
MAX_MAPPINGS = 64        # mappings kept per object (the first ones, in merge order): a fleet has one per process


@dataclass
class ObjectSamples:
    """The samples of one mapped file."""
    key: str                                              # "build-id:HEX" or "file:PATH"
    build_id: str | None = None
    names: set = field(default_factory=set)               # file names it was mapped from
    offsets: Counter = field(default_factory=Counter)     # file offset -> samples
    taken: Counter = field(default_factory=Counter)       # (from offset, to offset) -> taken branches
    ranges: Counter = field(default_factory=Counter)      # (start offset, end offset) -> fall-through runs
    mappings: list = field(default_factory=list)          # the first MAX_MAPPINGS mappings that had samples

    @property
    def samples(self) -> int:
        return sum(self.offsets.values())


@dataclass
class MergedProfile:
    """Samples of any number of recordings per object and file offset (see the module doc)."""
    objects: dict = field(default_factory=dict)          # key -> ObjectSamples
    samples: int = 0                                      # every sample read
    unattributed: int = 0                                 # in no file mapping (kernel, anonymous memory, JIT)
    branch_samples: int = 0
    branches_outside: int = 0                             # taken branches not within one mapped file
    ranges_outside: int = 0                               # fall-through runs not within one mapped file
    records: Counter = field(default_factory=Counter)     # record type -> count, all recordings
    unknown_records: int = 0
    recordings: list = field(default_factory=list)        # [{"source", "samples"}] in merge order
    attrs: list = field(default_factory=list)             # event attributes (distinct)
    warnings: list = field(default_factory=list)
    event_samples: Counter = field(default_factory=Counter)   # event name -> samples recorded (every event)
    event: str | None = None                              # the one event whose samples these are (None: all)

    @property
    def sources(self) -> list:
        return [r["source"] for r in self.recordings]

    def object(self, key: str, build_id: str | None) -> ObjectSamples:
        o = self.objects.get(key)
        if o is None:
            o = self.objects[key] = ObjectSamples(key, build_id)
        return o

    # -- JSON ------------------------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {
            "schema": SCHEMA, "version": VERSION,
            "samples": self.samples, "unattributed": self.unattributed,
            "branch_samples": self.branch_samples, "branches_outside": self.branches_outside,
            "ranges_outside": self.ranges_outside,
            "records": dict(sorted(self.records.items())), "unknown_records": self.unknown_records,
            "recordings": self.recordings, "events": self.attrs, "warnings": self.warnings,
            "event_samples": dict(sorted(self.event_samples.items())), "event": self.event,
            "objects": [{
                "key": o.key, "build_id": o.build_id, "names": sorted(o.names), "samples": o.samples,
                "offsets": sorted([k, c] for k, c in o.offsets.items()),
                "taken": sorted([a, b, c] for (a, b), c in o.taken.items()),
                "ranges": sorted([a, b, c] for (a, b), c in o.ranges.items()),
                "mappings": o.mappings,
            } for o in sorted(self.objects.values(), key=lambda o: o.key)],
        }

    def dumps(self) -> str:
        import json
        return json.dumps(self.to_dict(), separators=(",", ":")) + "\n"

    @classmethod
    def from_dict(cls, d: dict, source: str = "<profile>") -> "MergedProfile":
        def bad(what):
            return DecodeError(f"not an objllvm merged profile: {what} (expected JSON with schema {SCHEMA!r}, "
                               f"version {VERSION}, written by perf-map --save-profile)", file=source, offset=0)
        if not isinstance(d, dict) or d.get("schema") != SCHEMA:
            raise bad("no schema field" if isinstance(d, dict) else "not a JSON object")
        if d.get("version") != VERSION:
            raise bad(f"version {d.get('version')!r}")
        try:
            m = cls(samples=_nat(d["samples"]), unattributed=_nat(d["unattributed"]),
                    branch_samples=_nat(d["branch_samples"]), branches_outside=_nat(d["branches_outside"]),
                    ranges_outside=_nat(d["ranges_outside"]),
                    records=Counter({str(k): _nat(v) for k, v in d["records"].items()}),
                    unknown_records=_nat(d["unknown_records"]),
                    recordings=[{"source": str(r["source"]), "samples": _nat(r["samples"])} for r in d["recordings"]],
                    attrs=list(d["events"]), warnings=[str(w) for w in d["warnings"]],
                    event_samples=Counter({str(k): _nat(v) for k, v in d.get("event_samples", {}).items()}),
                    event=None if d.get("event") is None else str(d["event"]))
            for od in d["objects"]:
                bid = od["build_id"]
                if bid is not None:
                    bid = bytes.fromhex(bid).hex()          # a hex string or a ValueError
                o = m.object(str(od["key"]), bid)
                o.names = {str(n) for n in od["names"]}
                o.offsets = Counter({_nat(k): _nat(c) for k, c in od["offsets"]})
                o.taken = Counter({(_nat(a), _nat(b)): _nat(c) for a, b, c in od["taken"]})
                o.ranges = Counter({(_nat(a), _nat(b)): _nat(c) for a, b, c in od["ranges"]})
                o.mappings = [dict(x) for x in od["mappings"][:MAX_MAPPINGS]]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise bad(f"bad or missing field ({type(exc).__name__}: {exc})") from None
        return m

    def __eq__(self, other):
        return isinstance(other, MergedProfile) and self.to_dict() == other.to_dict()


def _nat(v) -> int:
    if type(v) is not int or v < 0:
        raise ValueError(f"{v!r} is not a count")
    return v


def load(path: str) -> MergedProfile:
    """Read a profile saved by :meth:`MergedProfile.dumps` (``perf-map --save-profile``)."""
    try:
        with open(path, "rb") as f:
            text = f.read()
    except OSError as exc:
        raise ObjllvmError(f"cannot read: {exc.strerror}", file=path) from None
    import json
    try:
        d = json.loads(text)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise DecodeError(f"not JSON: {exc}", file=path, offset=getattr(exc, "pos", 0) or 0) from None
    return MergedProfile.from_dict(d, path)


def is_saved_profile(path: str) -> bool:
    """True when ``path`` starts like a saved JSON profile (perf.data files start with 'PERFILE2').  A pipe
    (``/dev/stdin``, a FIFO) is not sniffed, since reading would consume it: it is read as perf.data."""
    import stat
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as f:
            head = f.read(64)
    except OSError:
        return False
    return head.lstrip()[:1] == b"{"


# -- one recording -> merged form ----------------------------------------------------------------------------
def reduce_raw(raw: RawProfile) -> MergedProfile:
    """Runtime addresses of one recording -> (object, file offset) counts."""
    m = MergedProfile(samples=raw.samples, branch_samples=raw.branch_samples, records=Counter(raw.records),
                      unknown_records=raw.unknown_records, attrs=list(raw.attrs), warnings=list(raw.warnings),
                      recordings=[{"source": raw.source, "samples": raw.samples}],
                      event_samples=Counter(raw.event_samples), event=raw.event)
    pid_maps = {}
    seen_maps = set()

    def maps(pid):
        ms = pid_maps.get(pid)
        if ms is None:
            if pid == -1:      # samples without PERF_SAMPLE_TID: any process's mappings
                found = [x for p in sorted(raw.mmaps) for x in reversed(raw.mmaps[p])]
            else:
                found = raw.mappings_of(pid)
            ms = pid_maps[pid] = [(x.start, x.start + x.length, x) for x in found]
        return ms

    def where(pid, ip):
        for start, end, mm in maps(pid):
            if start <= ip < end:
                bid = mm.build_id or raw.build_ids.get(mm.filename)
                bid = bid.rstrip(b"\0").hex() if bid else None
                key = f"build-id:{bid}" if bid else f"file:{mm.filename}"
                o = m.object(key, bid)
                if id(mm) not in seen_maps:
                    seen_maps.add(id(mm))
                    o.names.add(mm.filename)
                    if len(o.mappings) < MAX_MAPPINGS:
                        o.mappings.append({"file": mm.filename, "pid": mm.pid, "start": mm.start,
                                           "length": mm.length, "pgoff": mm.pgoff, "source": raw.source})
                return o, ip - start + mm.pgoff
        return None, None

    for (pid, ip), c in raw.ip_counts.items():
        o, off = where(pid, ip)
        if o is None:
            m.unattributed += c
        else:
            o.offsets[off] += c
    for (pid, a, b), c in raw.taken.items():
        oa, fa = where(pid, a)
        ob, fb = where(pid, b)
        if oa is None or oa is not ob:
            m.branches_outside += c
        else:
            oa.taken[(fa, fb)] += c
    for (pid, a, b), c in raw.ranges.items():
        oa, fa = where(pid, a)
        ob, fb = where(pid, b)
        if oa is None or oa is not ob:
            m.ranges_outside += c
        else:
            oa.ranges[(fa, fb)] += c
    return m


# -- merging ---------------------------------------------------------------------------------------------------
def merge(*profiles: MergedProfile) -> MergedProfile:
    """The sum of the profiles (new object; the inputs are not changed)."""
    out = MergedProfile()
    for p in profiles:
        merge_into(out, p)
    return out


def merge_into(out: MergedProfile, p: MergedProfile) -> MergedProfile:
    """Add ``p`` to ``out`` in place and return ``out``."""
    out.samples += p.samples
    out.unattributed += p.unattributed
    out.branch_samples += p.branch_samples
    out.branches_outside += p.branches_outside
    out.ranges_outside += p.ranges_outside
    out.records.update(p.records)
    out.event_samples.update(p.event_samples)
    if p.event is not None:
        out.event = p.event
    out.unknown_records += p.unknown_records
    out.recordings.extend(dict(r) for r in p.recordings)
    for a in p.attrs:
        if a not in out.attrs:
            out.attrs.append(a)
    out.warnings.extend(p.warnings)
    for key, o in p.objects.items():
        t = out.object(key, o.build_id)
        t.names |= o.names
        t.offsets.update(o.offsets)
        t.taken.update(o.taken)
        t.ranges.update(o.ranges)
        t.mappings.extend(dict(x) for x in o.mappings[:MAX_MAPPINGS - len(t.mappings)])
    return out


def read_one(path: str, with_branches: bool = True, event: str | None = None) -> MergedProfile:
    """One input -> its merged form: a perf.data file (reduced; only ``event``'s samples when given) or a saved
    profile (loaded; with ``event``, one saved for another event or for several is an error)."""
    if path != "-" and is_saved_profile(path):       # standard input: perf.data (read once, not sniffed)
        m = load(path)
        if event is not None and m.event != event and (m.event is not None or len(m.event_samples) > 1):
            raise ObjllvmError(f"this saved profile holds the samples of "
                               f"{m.event or ', '.join(sorted(m.event_samples))}, not of event {event!r} alone",
                               file=path)
        return m
    return reduce_raw(collect_perfdata(path, with_branches=with_branches, event=event))


def collect(paths, *, jobs: int = 1, with_branches: bool = True, event: str | None = None) -> MergedProfile:
    """Read and merge many inputs; ``jobs`` > 1 reads them in that many processes (merged in input order);
    ``event``: only the samples of that event."""
    paths = [os.fspath(p) for p in paths]
    if not paths:
        raise ObjllvmError("no profile to read (give perf.data files or saved profiles)")
    if paths.count("-") > 1:
        raise ObjllvmError("standard input ('-') can be read once: name it once")
    out = MergedProfile()
    if jobs <= 1 or len(paths) == 1 or "-" in paths:     # (standard input is this process's)
        for p in paths:
            merge_into(out, read_one(p, with_branches, event))
        return out
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(max_workers=min(jobs, len(paths))) as ex:
        for part in ex.map(read_one, paths, [with_branches] * len(paths), [event] * len(paths)):
            merge_into(out, part)
    return out
