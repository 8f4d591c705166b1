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
from bisect import bisect_right
from collections import Counter

from .._model import dataclass, field
from ..errors import ObjllvmError
from .debuginfo import elf_build_id, same_build_id  # noqa: F401  (re-exported)
from .merge import MergedProfile, collect, reduce_raw
from .perfdata import collect_perfdata, skipped_records
from .raw import RawProfile  # noqa: F401  (re-exported)

CAN_FALL_THROUGH = 1 << 3      # bb-addr-map block metadata bit

UNMAPPED_REASONS = ("other object", "build-id mismatch", "outside the loaded segments",
                    "no map for the function", "between blocks", "not carried to the new build")


# -- the binary ----------------------------------------------------------------------------------------------
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


# -- mapped profile ------------------------------------------------------------------------------------------
@dataclass
class FunctionProfile:
    function: object                 # FunctionMap
    samples: int = 0
    blocks: dict = field(default_factory=dict)      # block id -> samples (alignment padding after it included)
    padding: dict = field(default_factory=dict)     # block id -> samples on the padding after the block

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
    padding_samples: int = 0          # on alignment padding, counted in the block that falls into it
    recordings: list = field(default_factory=list)             # [{"source", "samples"}] merged
    mismatched_build_ids: list = field(default_factory=list)   # hex, of files named like the binary
    files: list = field(default_factory=list)       # [{"file", "build_id", "samples"}] objects sampled, most first
    event_samples: dict = field(default_factory=dict)          # event name -> samples recorded (every event)
    event: str | None = None                                   # the event mapped (None: every event, summed)
    functions_by_event: list = field(default_factory=list)     # see functions_by_event()
    address_samples: dict = field(default_factory=dict)        # link-time address -> samples (in the binary)

    @property
    def event_names(self) -> list:
        """The events of the recordings, by name (an event in one recording only counts too)."""
        return [n for n in self.event_samples if n != "unknown event"]

    def ambiguous_events(self) -> bool:
        """True when the samples are of several events summed (a layout needs one: perf-map --event)."""
        return self.event is None and len(self.event_names) > 1

    def events_text(self) -> str:
        return ", ".join(f"{n} ({c} samples)" for n, c in self.event_samples.items())

    def no_sample_reason(self) -> str | None:
        """Why no sample of the recordings fell in the binary (None when some did)."""
        if self.binary_samples:
            return None
        src = f"{len(self.recordings)} recordings" if len(self.recordings) > 1 else self.source
        if not self.total_samples:
            return f"{src} holds no samples"
        me = f"{self.binary} (build-id {self.build_id or 'none'})"
        if self.mismatched_build_ids:
            return (f"no sample of {me} in {src}: the file of that name there has build-id "
                    f"{', '.join(self.mismatched_build_ids)}: the recording is of another build")
        seen = ", ".join(f"{f['file']} ({f['samples']})" for f in self.files[:5]) or "no file mapping at all"
        return f"no sample of {me} in {src}: its {self.total_samples} samples fell in {seen}: wrong binary?"

    @property
    def skipped_records(self) -> dict:
        """Records read but not used for the mapping (type name -> count): see perfdata.USED_RECORDS."""
        return skipped_records(self.records)

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

    def to_dict(self, top: int = 20, *, demangle: bool = False) -> dict:
        """The JSON document of ``perf-map --json``; with ``demangle`` each function has its readable name in
        ``demangled`` beside its (mangled) ``name``."""
        readable = {}
        if demangle:
            from ..demangle import demangle_all
            readable = demangle_all([fp.function.name for fp in self.functions if fp.function.name])

        def fn_extra(name):
            return {"demangled": readable.get(name, name)} if demangle else {}

        def blk(fn, b, c):
            return {"function": fn.name, "id": b.id, "address": b.address, "size": b.size, "samples": c,
                    "share": round(self.share(c), 6)}
        return {
            "schema": "objllvm-perf-map", "version": 1,
            "binary": self.binary, "profile": self.source, "build_id": self.build_id,
            "recordings": self.recordings,
            "samples": {"total": self.total_samples, "in_binary": self.binary_samples,
                        "mapped": self.mapped_samples, "on_padding": self.padding_samples,
                        # JSON keys are identifiers: "between blocks" -> "between_blocks" (schema perf-map)
                        "unmapped": {r.replace(" ", "_").replace("-", "_"): self.unmapped.get(r, 0)
                                     for r in UNMAPPED_REASONS}},
            "functions": [
                {"name": fp.function.name, "address": fp.function.address, "samples": fp.samples,
                 **fn_extra(fp.function.name),
                 "share": round(self.share(fp.samples), 6), "on_padding": sum(fp.padding.values()),
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
            "events": [{**e, "samples": self.event_samples.get(e["name"], 0)} if "name" in e else e
                       for e in self.events],
            "event": self.event,
            **({"functions_by_event": self.functions_by_event} if self.functions_by_event else {}),
            "records": self.records, "unknown_records": self.unknown_records,
            "skipped_records": self.skipped_records,
            "mappings": self.matched_mappings, "files": self.files, "warnings": self.warnings,
        }

    def _fname(self, address: int) -> str:
        f = self.function_by_address(address)
        return f.function.name if f else hex(address)


class _Resolver:
    """(object, file offset) -> (function, block) | reason, with caches per object and per address."""

    def __init__(self, binary_path: str, obj, index):
        self.index = index
        self.segments = LoadSegments.from_object(obj)
        self.build_id = elf_build_id(obj)
        self.build_id_hex = self.build_id.hex() if self.build_id else None
        self.binary_path = os.path.realpath(binary_path)
        self.binary_base = os.path.basename(binary_path)
        self.mismatches = {}          # filename -> build-id seen
        self._vaddr_cache = {}
        self._order = {}              # function address -> ([block starts], [blocks]) in address order

    def matches(self, o) -> str:
        """'yes', 'mismatch' or 'no' for an object of a merged profile."""
        path_match = any(n == self.binary_path or os.path.basename(n) == self.binary_base
                         or os.path.realpath(n) == self.binary_path for n in o.names)
        if self.build_id and o.build_id:
            if same_build_id(bytes.fromhex(o.build_id), self.build_id):
                return "yes"
            if path_match:
                for n in o.names:
                    self.mismatches[n] = bytes.fromhex(o.build_id)
                return "mismatch"
            return "no"
        return "yes" if path_match else "no"

    def block(self, off):
        """(function, block, padding?) for a file offset of the binary, or a reason string."""
        r = self._vaddr_cache.get(off)
        if r is None:
            va = self.segments.file_offset_to_vaddr(off)
            if va is None:
                r = "outside the loaded segments"
            else:
                hit = self.index.lookup(va)
                if hit is not None:
                    r = (hit[0], hit[1], False)
                else:
                    fn = self.index.function_at(va)
                    r = "no map for the function" if fn is None else self._padding(fn, va)
            self._vaddr_cache[off] = r
        return r

    def _padding(self, fn, va):
        """A sample between two blocks of ``fn``: on the alignment padding (NOPs) before a block.  Execution
        reaches those bytes only by falling through from the block before them (nothing jumps to padding), so
        the sample belongs to that block when the map says it can fall through (metadata CanFallThrough);
        otherwise it stays unattributed ("between blocks")."""
        order = self._order.get(fn.address)
        if order is None:
            blocks = sorted((b for b in fn.blocks if b.size), key=lambda b: b.address)
            order = self._order[fn.address] = ([b.address for b in blocks], blocks)
        starts, blocks = order
        i = bisect_right(starts, va) - 1
        if i >= 0 and blocks[i].metadata & CAN_FALL_THROUGH:
            return (fn, blocks[i], True)
        return "between blocks"


def map_profile(raw, binary_path: str, obj=None, index=None) -> Profile:
    """Map samples to the blocks of ``binary_path`` (its ObjectFile and BBIndex may be given).

    ``raw`` is a :class:`RawProfile` (one recording) or a :class:`~objllvm.perf.merge.MergedProfile` (any number).
    """
    from ..formats import open_object
    if obj is None:
        obj = open_object(binary_path)
    if index is None:
        index = load_index(obj, binary_path)
    merged = raw if isinstance(raw, MergedProfile) else reduce_raw(raw)
    res = _Resolver(binary_path, obj, index)
    per_fn = {}
    unmapped = Counter({"other object": merged.unattributed}) if merged.unattributed else Counter()
    in_binary = padding = 0
    bstats = Counter()
    if merged.branches_outside:
        bstats["taken_unmapped"] += merged.branches_outside
    if merged.ranges_outside:
        bstats["ranges_unmapped"] += merged.ranges_outside
    taken, fall = Counter(), Counter()
    matched = []
    addresses = {}
    for o in merged.objects.values():
        status = res.matches(o)
        if status != "yes":
            unmapped["other object" if status == "no" else "build-id mismatch"] += o.samples
            bstats["taken_unmapped"] += sum(o.taken.values())
            bstats["ranges_unmapped"] += sum(o.ranges.values())
            continue
        matched.extend(o.mappings)
        for off, c in o.offsets.items():
            r = res.block(off)
            in_binary += c
            va = res.segments.file_offset_to_vaddr(off)
            if va is not None:
                addresses[va] = addresses.get(va, 0) + c
            if isinstance(r, str):
                unmapped[r] += c
                continue
            fn, blk, pad = r
            fp = per_fn.get(fn.address)
            if fp is None:
                fp = per_fn[fn.address] = FunctionProfile(fn)
            fp.samples += c
            fp.blocks[blk.id] = fp.blocks.get(blk.id, 0) + c
            if pad:
                fp.padding[blk.id] = fp.padding.get(blk.id, 0) + c
                padding += c
        _map_branches(res, o, taken, fall, bstats)
    warnings = list(merged.warnings)
    for fname, bid in res.mismatches.items():
        warnings.append(f"{fname}: build-id {bid.hex()} in the profile does not match {binary_path} "
                        f"(build-id {res.build_id.hex()}); its samples are not counted")
    if merged.unknown_records:
        warnings.append(f"{', '.join(merged.sources[:3])}: skipped {merged.unknown_records} records of unknown "
                        f"type")
    if merged.samples and not matched and not res.mismatches:
        names = sorted({n for o in merged.objects.values() for n in o.names})
        warnings.append(f"no mapping of {binary_path} in {', '.join(merged.sources[:3])} (mapped files: "
                        f"{', '.join(names[:6]) or 'none'}{', ...' if len(names) > 6 else ''})")
    fns = sorted(per_fn.values(), key=lambda f: (-f.samples, f.function.address))
    srcs = merged.sources
    source = ", ".join(srcs) if len(srcs) <= 3 else f"{len(srcs)} recordings ({', '.join(srcs[:3])}, ...)"
    return Profile(binary=binary_path, source=source, build_id=res.build_id_hex,
                   total_samples=merged.samples, binary_samples=in_binary, functions=fns, unmapped=dict(unmapped),
                   taken_edges=dict(taken), fallthrough_edges=dict(fall), branch_samples=merged.branch_samples,
                   branch_stats=dict(bstats), warnings=warnings, records=dict(merged.records),
                   unknown_records=merged.unknown_records, matched_mappings=matched, events=list(merged.attrs),
                   padding_samples=padding, recordings=list(merged.recordings), files=_files(merged),
                   event_samples=dict(merged.event_samples), event=merged.event, address_samples=addresses,
                   mismatched_build_ids=sorted({b.hex() for b in res.mismatches.values()}))


def functions_by_event(paths, prof: Profile, obj, index, *, with_branches: bool = True, jobs: int = 1) -> list:
    """``[{"name", "address", "samples": {event: n}}]``: each mapped function's samples per event of the
    recordings ``paths`` (one more pass over them per event), hottest in ``prof`` first.  Also kept in
    ``prof.functions_by_event``.  Empty when an input is standard input or another pipe (it cannot be read
    again)."""
    import stat
    for p in paths:
        if p == "-" or not stat.S_ISREG(os.stat(p).st_mode):
            return []
    per = {}
    for ev in prof.event_names:
        p = map_profile(collect(paths, jobs=jobs, with_branches=with_branches, event=ev), prof.binary, obj, index)
        for f in p.functions:
            per.setdefault(f.function.address, {})[ev] = f.samples
    out = [{"name": f.name, "address": f.function.address,
            "samples": {ev: per.get(f.function.address, {}).get(ev, 0) for ev in prof.event_names}}
           for f in prof.functions]
    prof.functions_by_event = out
    return out


def _files(merged) -> list:
    out = [{"file": sorted(o.names)[0] if o.names else o.key, "build_id": o.build_id, "samples": o.samples}
           for o in merged.objects.values()]
    out.sort(key=lambda d: (-d["samples"], d["file"]))
    if merged.unattributed:
        out.append({"file": "[kernel or anonymous memory]", "build_id": None, "samples": merged.unattributed})
    return out[:20]


def _map_branches(res, o, taken, fall, bstats):
    """Taken branches and fall-through runs of one matched object -> block edges."""
    def blk(off):
        r = res.block(off)
        return None if isinstance(r, str) else r

    for (a, b), c in o.taken.items():
        x, y = blk(a), blk(b)
        if x is None or y is None:
            bstats["taken_unmapped"] += c
            continue
        if x[0].address != y[0].address:
            bstats["taken_between_functions"] += c
            continue
        taken[(x[0].address, x[1].id, y[1].id)] += c
        bstats["taken_mapped"] += c
    order_cache = {}
    for (a, b), c in o.ranges.items():
        x, y = blk(a), blk(b)
        if x is None or y is None or x[0].address != y[0].address:
            bstats["ranges_unmapped"] += c
            continue
        fn = x[0]
        order = order_cache.get(fn.address)
        if order is None:
            blocks = sorted(fn.blocks, key=lambda q: q.address)
            order = order_cache[fn.address] = (blocks, {q.id: i for i, q in enumerate(blocks)})
        blocks, pos = order
        i, j = pos[x[1].id], pos[y[1].id]
        if i > j:
            bstats["ranges_backwards"] += c
            continue
        bstats["ranges_mapped"] += c
        for k in range(i, j):
            fall[(fn.address, blocks[k].id, blocks[k + 1].id)] += c


NO_MAP_HINT = ("rebuild it with clang -fbasic-block-sections=labels (clang <= 19) or -fbasic-block-address-map "
               "(clang >= 20), or rustc -C llvm-args=-basic-block-address-map")


def _index_direct(obj):
    """BBIndex of a linked ELF file through the bb-addr-map codec alone.

    Same result as ``BBIndex.from_object`` (which goes through the registry), without importing every other
    codec first: perf-map needs only this one (scripts/bench-perf-map measures the difference)."""
    from ..sections.support.bb_index import BBIndex
    from ..sections.bb_addr_map import TYPE_NAMES, decode_map
    from ..sections.registry import SectionContext
    functions = []
    for s in obj.sections:
        if s.type not in TYPE_NAMES:
            continue
        try:
            # (the PGO analysis of a function is read when the layout asks for it: that of the sampled ones)
            model = decode_map(s.data(), SectionContext.for_section(obj, s), pgo_later=True)
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


def open_binary(binary: str, *, debug_file: str | None = None):
    """``(ObjectFile, BBIndex)`` of a linked ELF file with a basic-block map, or an ObjllvmError saying why not.

    A stripped binary's functions are named from its debug file or unstripped copy (``debug_file``, else found
    by build-id or .gnu_debuglink: :mod:`.debuginfo`); a binary without a map (llvm-strip drops it) uses that
    file's map.  ``index.debug_source`` (:class:`~objllvm.perf.debuginfo.DebugSource`) says what was found."""
    from ..formats import open_object
    from .debuginfo import DebugSource, find_debug_file, has_symtab, name_functions
    obj = open_object(binary)
    if obj.is_relocatable or obj.format != "elf":
        raise ObjllvmError(f"{obj.describe()}: samples map to a linked ELF executable or shared object, not to "
                           f"this file", file=binary)
    src = DebugSource(binary, stripped=not has_symtab(obj))
    try:
        index = load_index(obj, binary)
    except ObjllvmError:
        if not (src.stripped or debug_file):
            raise
        dobj = find_debug_file(obj, binary, src, debug_file)
        if dobj is None:
            looked = "; ".join(src.looked) or "nowhere (no build-id, no .gnu_debuglink)"
            raise ObjllvmError(f"no basic-block address map in this file, and no symbols: it is stripped "
                               f"(llvm-strip removes the map with them): give the unstripped binary, or its debug "
                               f"file with --debug-file PATH (looked for one in: {looked})", file=binary) from None
        index = load_index(dobj, src.debug_file)
        src.map_from_debug_file = True
        name_functions(index, dobj)
    else:
        if (src.stripped or debug_file) and (debug_file or any(not f.name for f in index.functions)):
            dobj = find_debug_file(obj, binary, src, debug_file)
            if dobj is not None:
                src.named = name_functions(index, dobj)
    src.unnamed = sum(1 for f in index.functions if not f.name)
    index.debug_source = src
    return obj, index


def profile(binary: str, perf_data=None, *, perf_script: str | None = None, with_branches: bool = True,
            jobs: int = 1, event: str | None = None) -> Profile:
    """The Python API: map a perf.data file (or ``perf script`` text) to the blocks of ``binary``.

    ``perf_data`` may also be a list of perf.data files and saved profiles (merged, read in ``jobs`` processes),
    or a :class:`~objllvm.perf.merge.MergedProfile`."""
    obj, index = open_binary(binary)
    if perf_script is not None:
        from .perfscript import collect_perfscript      # (it imports re: only when text is read)
        raw = collect_perfscript(perf_script)
    elif isinstance(perf_data, (list, tuple)):
        raw = collect(perf_data, jobs=jobs, with_branches=with_branches, event=event)
    elif isinstance(perf_data, MergedProfile):
        raw = perf_data
    elif perf_data is not None:
        raw = collect_perfdata(perf_data, with_branches=with_branches, event=event)
    else:
        raise ObjllvmError("give a perf.data file or perf script text")
    return map_profile(raw, binary, obj, index)
