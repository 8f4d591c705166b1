"""From raw samples (runtime addresses) to functions and basic blocks of one binary.

Two steps:

1. :func:`collect_perfdata` / :func:`objllvm.perf.perfscript.collect_perfscript` read the samples and aggregate
   them per unique ``(pid, ip)`` (and, for branch stacks, per unique ``(pid, from, to)`` taken branch and
   ``(pid, start, end)`` fall-through range), keeping the executable mappings of every process.  Memory depends on
   the number of distinct addresses and mappings, not on the number of samples.
2. :func:`map_profile` matches mappings to the binary (build-id, else path), translates each unique runtime address
   to a file address (``ip - start + pgoff`` is a file offset; the ELF's PT_LOAD segments turn it into a virtual
   address, which works for PIE and shared objects under ASLR as well as fixed-address executables) and looks it up
   in the basic-block map index.
"""
from __future__ import annotations

import os
import struct
import sys
from collections import Counter

from .._model import dataclass, field
from ..errors import ObjllvmError
from . import perfdata as pdm
from .raw import RawProfile

UNMAPPED_REASONS = ("other object", "build-id mismatch", "outside the loaded segments",
                    "no map for the function", "between blocks")


# -- the binary ----------------------------------------------------------------------------------------------
def elf_build_id(obj) -> bytes | None:
    """The GNU build-id (NT_GNU_BUILD_ID note) of an ELF file, or None."""
    e = getattr(obj, "endian", "<")
    for s in getattr(obj, "sections", []):
        if s.type != 7:          # SHT_NOTE
            continue
        data = s.data()
        p = 0
        while p + 12 <= len(data):
            namesz, descsz, ntype = struct.unpack_from(e + "III", data, p)
            name_end = p + 12 + namesz
            desc = name_end + (-namesz % 4)
            if desc + descsz > len(data):
                break
            if ntype == 3 and data[p + 12:name_end].rstrip(b"\0") == b"GNU":
                return bytes(data[desc:desc + descsz])
            p = desc + descsz + (-descsz % 4)
    return None


def same_build_id(a: bytes, b: bytes) -> bool:
    """Equal, allowing for perf's zero padding of short ids to 20 bytes."""
    n = min(len(a), len(b))
    return a[:n] == b[:n] and not a[n:].strip(b"\0") and not b[n:].strip(b"\0")


@dataclass
class LoadSegments:
    """PT_LOAD segments of a linked ELF file: file offset -> virtual address."""
    segments: list      # (p_offset, p_filesz, p_vaddr)

    @classmethod
    def from_object(cls, obj):
        segs = [(s["offset"], s["filesz"], s["vaddr"]) for s in getattr(obj, "segments", []) if s["type"] == 1]
        return cls(sorted(segs))

    def file_offset_to_vaddr(self, off: int) -> int | None:
        for p_off, filesz, vaddr in self.segments:
            if p_off <= off < p_off + filesz:
                return off - p_off + vaddr
        return None


# -- aggregated raw samples ----------------------------------------------------------------------------------
class _SampleRuns:
    """Count runs of fixed-size samples at C speed.

    ``Counter(struct.iter_unpack(...))`` counts the distinct ``(type, misc, size, ip, pid)`` tuples of a run of
    records read at a fixed stride (the other fields are padding in the format, so time and period do not make
    every tuple unique).  The run is valid when every tuple is a SAMPLE header of the expected size: then each
    record's header says the next one starts one stride later, so the stride walk is the real record chain.
    Otherwise the valid prefix is found, counted, and the run length halves (it doubles again on success).
    """

    MAX = 4096

    def __init__(self, pd, lay, counts):
        self.size = -1
        self.pd, self.counts = pd, counts
        self.samples = 0
        ip_off, tid_off = lay.ip_off, lay.tid_off
        if ip_off is None or tid_off is None or lay.st & (pdm.SAMPLE_CALLCHAIN | pdm.SAMPLE_RAW
                                                         | pdm.SAMPLE_BRANCH_STACK | (1 << 12) | (1 << 13)):
            return
        if lay.st & pdm.SAMPLE_READ and lay.attr.read_format & pdm.READ_GROUP:
            return
        size = self._fixed_size(lay)
        if size < 0:
            return
        fmt = pd.endian + "IHH" + (f"{ip_off - 8}x" if ip_off > 8 else "") + "Q"
        fmt += (f"{tid_off - ip_off - 8}x" if tid_off > ip_off + 8 else "") + "i"
        rest = size - tid_off - 4
        fmt += f"{rest}x" if rest else ""
        self.st = struct.Struct(fmt)
        assert self.st.size == size
        self.size = size
        self.n = 64
        self.native = (pd.endian == "<") == (sys.byteorder == "little") and size % 8 == 0 and ip_off % 8 == 0 \
            and tid_off % 8 == 0
        self.ip_col, self.pid_col = ip_off // 8, tid_off // 4
        head = struct.pack("=IHH", 9, 0, size)
        self.head_bytes = [head[j:j + 1] for j in range(8)]

    @staticmethod
    def _fixed_size(lay) -> int:
        st, n = lay.st, 8
        for bit in (pdm.SAMPLE_IDENTIFIER, pdm.SAMPLE_IP, pdm.SAMPLE_TID, pdm.SAMPLE_TIME, pdm.SAMPLE_ADDR,
                    pdm.SAMPLE_ID, pdm.SAMPLE_STREAM_ID, pdm.SAMPLE_CPU, pdm.SAMPLE_PERIOD):
            if st & bit:
                n += 8
        if st & pdm.SAMPLE_READ:
            n += lay.read_single
        known = (pdm.SAMPLE_IDENTIFIER | pdm.SAMPLE_IP | pdm.SAMPLE_TID | pdm.SAMPLE_TIME | pdm.SAMPLE_ADDR
                 | pdm.SAMPLE_ID | pdm.SAMPLE_STREAM_ID | pdm.SAMPLE_CPU | pdm.SAMPLE_PERIOD | pdm.SAMPLE_READ)
        return n if not st & ~known else -1      # later fields (weight, data_src, ...): no fixed size known

    def __call__(self, off: int, end: int) -> int:
        if self.native:
            return self._columns(off, end)
        return self._tuples(off, end)

    def _columns(self, off: int, end: int) -> int:
        """Native byte order: check the run's headers with strided byte slices (no Python object per record),
        then count the IP column through a memoryview cast."""
        size = self.size
        n = min(self.n, (end - off) // size)
        if n <= 0:
            return 0
        chunk = self.pd.buf[off:off + n * size]          # a copy: no export of the mmap outlives this call
        if not all(chunk[j::size] == self.head_bytes[j] * n for j in (0, 1, 2, 3, 6, 7)):
            good = 0
            for h in memoryview(chunk).cast("Q")[0::size // 8]:
                if h & 0xFFFFFFFF != 9 or h >> 48 != size:
                    break
                good += 1
            self.n = max(self.n // 2, 16)
            if not good:
                return 0
            n = good
            chunk = chunk[:n * size]
        else:
            self.n = min(self.n * 2, self.MAX)
        q = memoryview(chunk).cast("Q")
        ips = q[self.ip_col::size // 8]
        p = self.pid_col * 4
        counts = self.counts
        if all(chunk[p + j::size] == chunk[p + j:p + j + 1] * n for j in range(4)):
            pid = struct.unpack_from("=i", chunk, p)[0]
            for ip, k in Counter(ips).items():
                key = (pid, ip)
                counts[key] = counts.get(key, 0) + k
        else:
            pids = memoryview(chunk).cast("i")[self.pid_col::size // 4]
            for key, k in Counter(zip(pids, ips)).items():
                counts[key] = counts.get(key, 0) + k
        self.samples += n
        return n

    def _tuples(self, off: int, end: int) -> int:
        size, buf = self.size, self.pd.buf
        n = min(self.n, (end - off) // size)
        if n <= 0:
            return 0
        c = Counter(self.st.iter_unpack(buf[off:off + n * size]))
        if not all(k[0] == 9 and k[2] == size for k in c):
            good = 0
            for t in self.st.iter_unpack(buf[off:off + n * size]):
                if t[0] != 9 or t[2] != size:
                    break
                good += 1
            self.n = max(self.n // 2, 16)
            if not good:
                return 0
            n = good
            c = Counter(self.st.iter_unpack(buf[off:off + n * size]))
        else:
            self.n = min(self.n * 2, self.MAX)
        counts = self.counts
        for (_t, _m, _s, ip, pid), k in c.items():
            key = (pid, ip)
            counts[key] = counts.get(key, 0) + k
        self.samples += n
        return n


def collect_perfdata(path: str, *, with_branches: bool = True) -> RawProfile:
    """Read a perf.data file and aggregate its samples (one pass, streaming)."""
    with pdm.PerfData(path) as pd:
        raw = RawProfile(source=os.fspath(path))
        for b in pd.build_ids:
            raw.build_ids.setdefault(b.filename, b.build_id)
        counts = raw.ip_counts
        taken, ranges = raw.taken, raw.ranges
        nsamples = nbranch = 0
        runs = None
        single = None
        if pd.attrs:                       # file mode: the layout is known before the data
            single, _ = pd.layouts()
            if single is not None and not (with_branches and single.st & pdm.SAMPLE_BRANCH_STACK):
                runs = _SampleRuns(pd, single, counts)
        for typ, misc, off, size in pd.records(runs):
            if typ == 9:
                nsamples += 1
                s = pd.parse_sample(off, size, misc, single)
                if s.ip is None:
                    continue
                pid = s.pid if s.pid is not None else -1
                key = (pid, s.ip)
                counts[key] = counts.get(key, 0) + 1
                br = s.branches
                if with_branches and br:
                    nbranch += 1
                    for i, (frm, to, _fl) in enumerate(br):
                        k = (pid, frm, to)
                        taken[k] = taken.get(k, 0) + 1
                        if i + 1 < len(br):
                            r = (pid, br[i + 1][1], frm)
                            ranges[r] = ranges.get(r, 0) + 1
            elif typ == pdm.RECORD_MMAP or typ == pdm.RECORD_MMAP2:
                m = pd.parse_mmap(typ, misc, off, size)
                if pd.mmap_is_exec(m, misc):
                    raw.add_mmap(m)
            elif typ == pdm.RECORD_COMM:
                pid, _tid, comm = pd.parse_comm(off, size)
                if misc & pdm.MISC_COMM_EXEC:
                    raw.exec_(pid)
                raw.comms[pid] = comm
            elif typ == pdm.RECORD_FORK:
                pid, ppid, _tid, _ptid = pd.parse_fork(off, size)
                if pid != ppid and pid not in raw.mmaps:
                    raw.parents[pid] = ppid
            elif typ == pdm.RECORD_HEADER_ATTR:
                single = None                  # pipe mode: layouts are known once the attributes came
        raw.samples = nsamples + (runs.samples if runs is not None else 0)
        raw.branch_samples = nbranch
        raw.records = dict(pd.stats)
        raw.unknown_records = pd.unknown_records
        raw.attrs = [a.to_dict() for a in pd.attrs]
        for b in pd.build_ids:               # pipe mode: HEADER_BUILD_ID records arrive with the data
            raw.build_ids.setdefault(b.filename, b.build_id)
    return raw


# -- mapped profile ------------------------------------------------------------------------------------------
@dataclass
class FunctionProfile:
    function: object                 # FunctionMap
    samples: int = 0
    blocks: dict = field(default_factory=dict)      # block id -> samples

    @property
    def name(self) -> str:
        return self.function.name


@dataclass
class Profile:
    """Samples of one binary mapped to its functions and blocks."""
    binary: str
    source: str
    build_id: str | None
    total_samples: int
    binary_samples: int
    functions: list                                     # FunctionProfile, hottest first
    unmapped: dict                                      # reason -> samples
    taken_edges: dict = field(default_factory=dict)    # (function address, from id, to id) -> count
    fallthrough_edges: dict = field(default_factory=dict)
    branch_samples: int = 0
    branch_stats: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)
    records: dict = field(default_factory=dict)
    unknown_records: int = 0
    matched_mappings: list = field(default_factory=list)
    events: list = field(default_factory=list)                 # the event attributes (EventAttr.to_dict)

    @property
    def mapped_samples(self) -> int:
        return sum(f.samples for f in self.functions)

    def function(self, name: str):
        for f in self.functions:
            if f.function.name == name:
                return f
        return None

    def function_by_address(self, address: int):
        for f in self.functions:
            if f.function.address == address:
                return f
        return None

    def share(self, n: int) -> float:
        return n / self.total_samples if self.total_samples else 0.0

    def hottest_blocks(self, n: int | None = None) -> list:
        """``[(FunctionMap, Block, samples)]`` hottest first (ties by address)."""
        out = []
        for fp in self.functions:
            by_id = {b.id: b for b in fp.function.blocks}
            for bid, c in fp.blocks.items():
                out.append((fp.function, by_id[bid], c))
        out.sort(key=lambda t: (-t[2], t[1].address))
        return out if n is None else out[:n]

    def edges_of(self, fn) -> dict:
        """``{(from id, to id): (taken, fallthrough)}`` from branch stacks for one function."""
        out = {}
        for (fa, a, b), c in self.taken_edges.items():
            if fa == fn.address:
                t, f = out.get((a, b), (0, 0))
                out[(a, b)] = (t + c, f)
        for (fa, a, b), c in self.fallthrough_edges.items():
            if fa == fn.address:
                t, f = out.get((a, b), (0, 0))
                out[(a, b)] = (t, f + c)
        return out

    def to_dict(self, top: int = 20) -> dict:
        def blk(fn, b, c):
            return {"function": fn.name, "id": b.id, "address": b.address, "size": b.size, "samples": c,
                    "share": round(self.share(c), 6)}
        return {
            "schema": "objllvm-perf-map", "version": 1,
            "binary": self.binary, "profile": self.source, "build_id": self.build_id,
            "samples": {"total": self.total_samples, "in_binary": self.binary_samples,
                        "mapped": self.mapped_samples,
                        "unmapped": {r: self.unmapped.get(r, 0) for r in UNMAPPED_REASONS}},
            "functions": [
                {"name": fp.function.name, "address": fp.function.address, "samples": fp.samples,
                 "share": round(self.share(fp.samples), 6),
                 "blocks": [blk(fp.function, b, fp.blocks[b.id]) for b in fp.function.blocks if b.id in fp.blocks]}
                for fp in self.functions],
            "hottest_blocks": [blk(fn, b, c) for fn, b, c in self.hottest_blocks(top)],
            "branch_stacks": {
                "samples": self.branch_samples, **self.branch_stats,
                "taken_edges": [{"function": self._fname(fa), "from": a, "to": b, "count": c}
                                for (fa, a, b), c in sorted(self.taken_edges.items(), key=lambda t: -t[1])],
                "fallthrough_edges": [{"function": self._fname(fa), "from": a, "to": b, "count": c}
                                      for (fa, a, b), c in sorted(self.fallthrough_edges.items(),
                                                                  key=lambda t: -t[1])]},
            "events": self.events, "records": self.records, "unknown_records": self.unknown_records,
            "mappings": self.matched_mappings, "warnings": self.warnings,
        }

    def _fname(self, address: int) -> str:
        f = self.function_by_address(address)
        return f.function.name if f else hex(address)


class _Resolver:
    """Runtime address in a process -> (function, block) | reason, with caches per unique address."""

    def __init__(self, raw: RawProfile, binary_path: str, obj, index):
        self.raw = raw
        self.index = index
        self.segments = LoadSegments.from_object(obj)
        self.build_id = elf_build_id(obj)
        self.binary_path = os.path.realpath(binary_path)
        self.binary_base = os.path.basename(binary_path)
        self.mismatches = {}          # filename -> build-id seen
        self.matched = {}             # (filename, start, len, pgoff) -> info
        self._match_cache = {}
        self._pid_maps = {}
        self._vaddr_cache = {}

    def matches(self, m) -> str:
        """'yes', 'mismatch' or 'no' for a mapping."""
        key = (m.filename, m.build_id)
        r = self._match_cache.get(key)
        if r is not None:
            return r
        bid = m.build_id or self.raw.build_ids.get(m.filename)
        path_match = m.filename == self.binary_path or os.path.realpath(m.filename) == self.binary_path \
            or os.path.basename(m.filename) == self.binary_base
        if self.build_id and bid:
            if same_build_id(bid, self.build_id):
                r = "yes"
            elif path_match:
                r = "mismatch"
                self.mismatches[m.filename] = bid
            else:
                r = "no"
        else:
            r = "yes" if path_match else "no"
        self._match_cache[key] = r
        return r

    def maps(self, pid):
        ms = self._pid_maps.get(pid)
        if ms is None:
            if pid == -1:      # samples without PERF_SAMPLE_TID: any process's mappings
                found = [m for p in sorted(self.raw.mmaps) for m in reversed(self.raw.mmaps[p])]
            else:
                found = self.raw.mappings_of(pid)
            ms = [(m.start, m.start + m.length, m) for m in found]
            self._pid_maps[pid] = ms
        return ms

    def vaddr(self, pid, ip):
        """File virtual address of runtime ``ip`` in ``pid``, or (None, reason)."""
        for start, end, m in self.maps(pid):
            if start <= ip < end:
                r = self.matches(m)
                if r == "no":
                    return None, "other object"
                if r == "mismatch":
                    return None, "build-id mismatch"
                k = (m.filename, m.start, m.length, m.pgoff)
                if k not in self.matched:
                    self.matched[k] = {"file": m.filename, "pid": m.pid, "start": m.start, "length": m.length,
                                       "pgoff": m.pgoff,
                                       "build_id": (m.build_id or self.raw.build_ids.get(m.filename) or b"").hex()
                                       or None}
                va = self.segments.file_offset_to_vaddr(ip - start + m.pgoff)
                if va is None:
                    return None, "outside the loaded segments"
                return va, None
        return None, "other object"

    def block(self, va):
        r = self._vaddr_cache.get(va)
        if r is None:
            hit = self.index.lookup(va)
            if hit is not None:
                r = hit
            elif self.index.function_at(va) is not None:
                r = "between blocks"
            else:
                r = "no map for the function"
            self._vaddr_cache[va] = r
        return r

    def resolve(self, pid, ip):
        va, reason = self.vaddr(pid, ip)
        if va is None:
            return reason
        return self.block(va)


def map_profile(raw: RawProfile, binary_path: str, obj=None, index=None) -> Profile:
    """Map aggregated samples to the blocks of ``binary_path`` (its ObjectFile and BBIndex may be given)."""
    from ..formats import open_object
    if obj is None:
        obj = open_object(binary_path)
    if index is None:
        index = load_index(obj, binary_path)
    res = _Resolver(raw, binary_path, obj, index)
    per_fn = {}
    unmapped = Counter()
    in_binary = 0
    for (pid, ip), c in raw.ip_counts.items():
        r = res.resolve(pid, ip)
        if isinstance(r, str):
            unmapped[r] += c
            if r in ("no map for the function", "between blocks", "outside the loaded segments"):
                in_binary += c
            continue
        fn, blk = r
        in_binary += c
        fp = per_fn.get(fn.address)
        if fp is None:
            fp = per_fn[fn.address] = FunctionProfile(fn)
        fp.samples += c
        fp.blocks[blk.id] = fp.blocks.get(blk.id, 0) + c
    # Branch stacks.
    taken, fall = Counter(), Counter()
    bstats = Counter()
    for (pid, frm, to), c in raw.taken.items():
        a, b = res.resolve(pid, frm), res.resolve(pid, to)
        if isinstance(a, str) or isinstance(b, str):
            bstats["taken_unmapped"] += c
            continue
        if a[0] is not b[0] and a[0].address != b[0].address:
            bstats["taken_between_functions"] += c
            continue
        taken[(a[0].address, a[1].id, b[1].id)] += c
        bstats["taken_mapped"] += c
    order_cache = {}
    for (pid, start, end), c in raw.ranges.items():
        a, b = res.resolve(pid, start), res.resolve(pid, end)
        if isinstance(a, str) or isinstance(b, str) or a[0].address != b[0].address:
            bstats["ranges_unmapped"] += c
            continue
        fn = a[0]
        order = order_cache.get(fn.address)
        if order is None:
            blocks = sorted(fn.blocks, key=lambda x: x.address)
            order = order_cache[fn.address] = (blocks, {x.id: i for i, x in enumerate(blocks)})
        blocks, pos = order
        i, j = pos[a[1].id], pos[b[1].id]
        if i > j:
            bstats["ranges_backwards"] += c
            continue
        bstats["ranges_mapped"] += c
        for k in range(i, j):
            fall[(fn.address, blocks[k].id, blocks[k + 1].id)] += c
    warnings = list(raw.warnings)
    for fname, bid in res.mismatches.items():
        warnings.append(f"{fname}: build-id {bid.hex()} in the profile does not match {binary_path} "
                        f"(build-id {res.build_id.hex()}); its samples are not counted")
    if raw.unknown_records:
        warnings.append(f"{raw.source}: skipped {raw.unknown_records} records of unknown type")
    if raw.samples and not res.matched and not res.mismatches:
        names = sorted({m.filename for ms in raw.mmaps.values() for m in ms})
        warnings.append(f"no mapping of {binary_path} in {raw.source} (mapped files: "
                        f"{', '.join(names[:6]) or 'none'}{', ...' if len(names) > 6 else ''})")
    fns = sorted(per_fn.values(), key=lambda f: (-f.samples, f.function.address))
    return Profile(binary=binary_path, source=raw.source,
                   build_id=res.build_id.hex() if res.build_id else None,
                   total_samples=raw.samples, binary_samples=in_binary, functions=fns, unmapped=dict(unmapped),
                   taken_edges=dict(taken), fallthrough_edges=dict(fall), branch_samples=raw.branch_samples,
                   branch_stats=dict(bstats), warnings=warnings, records=raw.records,
                   unknown_records=raw.unknown_records, matched_mappings=list(res.matched.values()),
                   events=list(raw.attrs))


NO_MAP_HINT = ("rebuild it with clang -fbasic-block-sections=labels (clang <= 19) or -fbasic-block-address-map "
               "(clang >= 20), or rustc -C llvm-args=-basic-block-address-map")


def _index_direct(obj):
    """BBIndex of a linked ELF file through the bb-addr-map codec alone.

    Same result as ``BBIndex.from_object`` (which goes through the registry), without importing every other
    codec first: that import costs about 0.1 s of CPU, a third of a whole perf-map run (scripts/bench-perf-map).
    """
    from ..sections.support.bb_index import BBIndex
    from ..sections.bb_addr_map import TYPE_NAMES, BBAddrMapCodec
    from ..sections.registry import SectionContext
    codec = BBAddrMapCodec()
    functions = []
    for s in obj.sections:
        if s.type not in TYPE_NAMES:
            continue
        try:
            model = codec.decode(s.data(), SectionContext.for_section(obj, s))
        except ObjllvmError as exc:
            raise exc.located(file=obj.path, member=obj.member, section_index=s.index, section_name=s.name)
        functions.extend(model.functions)
    return BBIndex(functions, [], False)


def load_index(obj, path: str):
    """The basic-block map index of a binary, or an ObjllvmError telling how to build one."""
    from ..sections.support.bb_index import BBIndex
    if obj.format == "elf" and not obj.is_relocatable:
        index = _index_direct(obj)
    else:
        index = BBIndex.from_object(obj)
    if not index.functions:
        raise ObjllvmError(f"no basic-block address map (SHT_LLVM_BB_ADDR_MAP section) in this file: "
                           f"{NO_MAP_HINT}", file=path)
    return index


def profile(binary: str, perf_data: str | None = None, *, perf_script: str | None = None,
            with_branches: bool = True) -> Profile:
    """The Python API: map a perf.data file (or ``perf script`` text) to the blocks of ``binary``."""
    from ..formats import open_object
    obj = open_object(binary)
    if obj.is_relocatable or obj.format != "elf":
        raise ObjllvmError(f"{obj.describe()}: samples map to a linked ELF executable or shared object, not to "
                           f"this file", file=binary)
    index = load_index(obj, binary)
    if perf_script is not None:
        from .perfscript import collect_perfscript
        raw = collect_perfscript(perf_script)
    elif perf_data is not None:
        raw = collect_perfdata(perf_data, with_branches=with_branches)
    else:
        raise ObjllvmError("give a perf.data file or perf script text")
    return map_profile(raw, binary, obj, index)
