"""The perf jobs as one call each: what ``objllvm perf-map``, ``perf-diff`` and ``cfg`` run (the commands only
parse their arguments and render the results).

:func:`perf_map` maps recordings to the blocks of one binary (or of every object of a process), then writes the
files asked for (layout clusters, function order, sample profile, saved profile, HTML report); :func:`layout`
lays out a profile already mapped, writing nothing; :func:`perf_diff` compares two profiles function by function;
:func:`cfg` gives one function's control-flow graph, shaded by samples.
"""
from __future__ import annotations

import os

from .._model import dataclass, field
from ..errors import ObjllvmError, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..formats.base import ObjectFile
    from ..sections.bb_addr_map import FunctionMap
    from .clusters import Cluster
    from .debuginfo import DebugSource
    from .diff import ProfileDiff
    from .mapping import Profile
    from .process import ProcessProfile
    from .sample_profile import FunctionSamples
    from .stale import StaleReport

LAYOUTS = ("ext-tsp", "heaviest-path")
ORDERS = ("cdsort", "c3", "hotness")


@dataclass
class ClusterFile:
    """A basic-block cluster file written for one binary (``clang -fbasic-block-sections=list=PATH``)."""
    binary: str
    path: str
    clusters: list[Cluster]


@dataclass
class OrderFile:
    """A function order written for the linker (``ld.lld --symbol-ordering-file=PATH``)."""
    path: str
    algorithm: str              # 'cdsort', 'c3' or 'hotness'
    functions: list[str]        # in the order written
    arcs: int                   # call arcs the order was made from


@dataclass
class SampleProfileFile:
    """An LLVM sample profile (text) written for ``clang -fprofile-sample-use=PATH``."""
    path: str
    functions: list[FunctionSamples]


@dataclass
class Layout:
    """A profile laid out: the clusters of its hot functions and, when asked for, a function order."""
    clusters: list[Cluster]
    function_order: list[str] | None = None

    def cluster_text(self, comment: str | None = None) -> str:
        """The clusters as a file for ``clang -fbasic-block-sections=list=``."""
        from .clusters import cluster_text
        text: str = cluster_text(self.clusters, comment=comment)
        return text


@dataclass
class PerfMapResult:
    """What :func:`perf_map` mapped and wrote."""
    profile: Profile                          # the binary's (several objects: the first one's)
    process: ProcessProfile | None = None     # several objects: every one's profile
    stale: StaleReport | None = None          # recorded_on: how the samples were carried to the new build
    clusters: list[ClusterFile] = field(default_factory=list)
    function_order: OrderFile | None = None
    sample_profile: SampleProfileFile | None = None
    warnings: list[str] = field(default_factory=list)
    unnamed: bool = False                     # sampled functions without a name (a stripped binary, no debug file)
    debug_source: DebugSource | None = None   # one binary: where a stripped binary's map and names came from

    @property
    def objects(self) -> list[Profile]:
        """Every object's profile (one, unless several were mapped)."""
        return list(self.process.objects) if self.process is not None else [self.profile]


def perf_map(binary: str | None, recordings: Sequence[str] = (), *, perf_script: str | None = None,
             all_objects: bool = False, event: str | None = None, with_branches: bool = True, jobs: int = 1,
             fleet: bool = False, scheduler: str | None = None, debug_file: str | None = None,
             recorded_on: str | None = None, save_profile: str | None = None, clusters: str | None = None,
             min_share: float = 0.0, layout: str = "ext-tsp", cfg: bool = False, clone_paths: bool = False,
             function_order: str | None = None, order: str = "cdsort", sample_profile: str | None = None,
             html: str | None = None, html_top: int = 20, demangle: bool = False) -> PerfMapResult:
    """Map the samples of ``recordings`` (perf.data files, profiles saved by ``save_profile``; or the text of
    ``perf script`` in ``perf_script``) to the functions and basic blocks of ``binary``, then write what is asked
    for: ``clusters`` (a cluster file laid out by ``layout`` for the functions with at least ``min_share`` of the
    samples; ``cfg`` and ``clone_paths`` add ``g`` and ``p`` lines), ``function_order`` (by ``order``),
    ``sample_profile``, ``save_profile`` (the merged recordings), ``html`` (a report page of ``html_top`` rows).

    More ELF files among ``recordings`` (the process's shared libraries), or ``all_objects`` (every sampled object
    with a basic-block map found beside the inputs), map several objects: :attr:`PerfMapResult.process`.
    ``recorded_on``: the recordings are of that earlier build, carried to ``binary`` by block hash.

    :raises UsageError: options that do not go together.
    :raises ObjllvmError: nothing to map (no sample in the binary, no block map, unnamed functions for a
        layout); no file is written then."""
    if (bool(recordings) or all_objects) == (perf_script is not None) and not (all_objects and perf_script):
        raise UsageError("give either PERF.DATA files or --perf-script FILE")
    if not 0.0 <= min_share <= 1.0:
        raise UsageError(f"--min-share must be between 0 and 1 (a share of the samples), not {min_share}")
    if jobs < 1:
        raise UsageError("--jobs must be >= 1")
    if perf_script is not None and (save_profile or fleet or scheduler):
        raise UsageError("--save-profile, --fleet and --scheduler read perf.data files, not --perf-script text")
    from .process import split_inputs
    extra, data = split_inputs(list(recordings))
    if all_objects and perf_script is None and not data and not extra:
        data, binary = [binary], None                # all_objects with a recording alone: the binaries are its
    o = _Options(data, perf_script, event, with_branches, jobs, fleet, scheduler, debug_file, recorded_on,
                 save_profile, clusters, min_share, layout, cfg, clone_paths, function_order, order, sample_profile,
                 html, html_top, demangle, all_objects)
    if extra or all_objects:
        return _map_process(o, ([binary] if binary else []) + extra)
    if bool(data) == (perf_script is not None):
        raise UsageError("give either PERF.DATA files or --perf-script FILE")
    assert binary is not None
    return _map_binary(o, binary)


def layout(profile: Profile, *, min_share: float = 0.0, algorithm: str = "ext-tsp", cfg: bool = False,
           clone_paths: bool = False, order: str | None = None, binary: str | None = None) -> Layout:
    """Lay out a mapped profile, writing nothing: the block order of each function with at least ``min_share``
    of the samples (``algorithm``: 'ext-tsp' or 'heaviest-path'), and with ``order`` ('cdsort', 'c3',
    'hotness') a function order too, from the call arcs of ``binary`` (default: the profile's binary)."""
    from .clusters import build_clusters
    cs: list[Cluster] = build_clusters(profile, min_share=min_share, layout=algorithm, cfg=cfg,
                                       clone_paths=clone_paths)
    names: list[str] | None = None
    if order is not None:
        from .layout import order_for_binary
        names, _arcs, _relocated = order_for_binary(profile, binary or profile.binary, algorithm=order,
                                                    hot_sizes={c.function: c.hot_size for c in cs})
    return Layout(cs, names)


@dataclass
class _Options:
    """perf_map's arguments, as the steps below read them."""
    data: list
    perf_script: str | None
    event: str | None
    with_branches: bool
    jobs: int
    fleet: bool
    scheduler: str | None
    debug_file: str | None
    recorded_on: str | None
    save_profile: str | None
    clusters: str | None
    min_share: float
    layout: str
    cfg: bool
    clone_paths: bool
    function_order: str | None
    order: str
    sample_profile: str | None
    html: str | None
    html_top: int
    demangle: bool
    all_objects: bool


def _map_binary(o: _Options, binary: str) -> PerfMapResult:
    """The recordings mapped to one binary, and the files asked for written."""
    from ..atomicio import atomic_write
    from .mapping import open_binary
    target = o.recorded_on or binary
    obj, index = open_binary(target, debug_file=None if o.recorded_on else o.debug_file)
    if o.event is not None and o.perf_script is not None:
        raise UsageError("--event selects among the events of perf.data files (perf script text has one)")
    raw = _collect(o)
    prof = _profile_of(o, raw, target, obj, index)
    dsrc = index.debug_source
    nameless = [f for f in prof.functions if not f.name]
    if nameless and (o.clusters or o.function_order):
        raise ObjllvmError(dsrc.no_names_message() + "; no cluster or order file written")
    res = PerfMapResult(prof, debug_source=dsrc)
    if o.recorded_on:
        res.profile = prof = _carry(o, res, prof, index, binary)
    if o.save_profile:
        atomic_write(o.save_profile, raw.dumps().encode())
    if (o.cfg or o.clone_paths) and not o.clusters:
        raise UsageError("--cfg and --clone-paths add to the cluster file: give --clusters OUT.txt too")
    _write_layout(o, res, binary, obj, index)
    if o.sample_profile:
        from . import sample_profile as sp
        funcs = sp.build_sample_profile(prof, binary)
        if not funcs:
            raise ObjllvmError(f"{binary}: no sampled function has DWARF line information (build with "
                               f"-gline-tables-only -fdebug-info-for-profiling); no sample profile written")
        sp.write_sample_profile(o.sample_profile, funcs)
        res.sample_profile = SampleProfileFile(o.sample_profile, funcs)
    if o.html:
        from .report_html import write_report
        write_report(o.html, [prof], [obj], top=o.html_top, demangle=o.demangle)
    if dsrc.debug_file:
        prof.warnings.append(f"{target} is stripped: " + (
            f"its basic-block map and names are taken from {dsrc.debug_file}" if dsrc.map_from_debug_file else
            f"names of {dsrc.named} functions taken from {dsrc.debug_file}") + f" (found by {dsrc.how})")
    if nameless:
        prof.warnings.append(dsrc.no_names_message())
        res.unnamed = True
    res.warnings = list(prof.warnings)
    return res


def _profile_of(o: _Options, raw, target: str, obj: ObjectFile, index) -> Profile:
    """The recordings mapped to ``target``: an error when no sample fell in it or a layout would sum events."""
    from .mapping import map_profile
    prof = map_profile(raw, target, obj, index)
    if prof.ambiguous_events():
        if o.clusters or o.function_order:
            raise UsageError(f"{prof.source} holds {len(prof.event_names)} events: {prof.events_text()}; a layout "
                             f"is made from one: give --event NAME")
        prof.warnings.append(f"{prof.source} holds {len(prof.event_names)} events ({prof.events_text()}): the "
                             f"counts below add them up; --event NAME maps one")
        if not (o.fleet or o.scheduler):
            from .mapping import functions_by_event
            functions_by_event(o.data, prof, obj, index, with_branches=o.with_branches, jobs=o.jobs)
    reason = prof.no_sample_reason()
    if reason:
        raise ObjllvmError(reason + ("; no cluster file written" if o.clusters else ""))
    return prof


def _carry(o: _Options, res: PerfMapResult, prof: Profile, index, binary: str) -> Profile:
    """The profile of the earlier build carried to ``binary`` (its report in ``res.stale``)."""
    from .debuginfo import elf_build_id
    from .mapping import open_binary
    from .stale import carry
    new_obj, new_index = open_binary(binary)
    nb = elf_build_id(new_obj)
    carried, stale = carry(prof, index, binary, new_index, nb.hex() if nb else None)
    if not stale.matched:
        raise ObjllvmError(f"none of the {stale.total} samples of {o.recorded_on} matches a block of "
                           f"{binary} (by function name and block hash): is it the same program?"
                           + ("; no cluster file written" if o.clusters else ""))
    res.stale = stale
    return carried


def _write_layout(o: _Options, res: PerfMapResult, binary: str, obj: ObjectFile, index) -> None:
    """The cluster file and the function order of one binary, when asked for."""
    from ..atomicio import atomic_write
    from . import clusters as cl
    prof = res.profile
    cs = None
    if o.clusters:
        cs = cl.build_clusters(prof, min_share=o.min_share, layout=o.layout, cfg=o.cfg, clone_paths=o.clone_paths)
        cl.write_clusters(o.clusters, cs,
                          comment=f"objllvm perf-map {binary} {prof.source}: {prof.mapped_samples} samples "
                                  f"mapped, {o.layout} layout\nuse: clang -fbasic-block-sections=list="
                                  f"{o.clusters}")
        res.clusters.append(ClusterFile(binary, o.clusters, cs))
    if not o.function_order:
        return
    from . import layout as lay
    order, arcs, relocated = lay.order_for_binary(
        prof, binary, algorithm=o.order, hot_sizes=None if cs is None else {c.function: c.hot_size for c in cs},
        **({} if o.recorded_on else {"obj": obj, "index": index}))
    if o.order in ("c3", "cdsort") and not relocated:
        prof.warnings.append("no relocations for the text (link with -Wl,--emit-relocs): no call arcs, the "
                             "function order is by density alone")
    atomic_write(o.function_order, lay.function_order_text(
        order, comment=f"objllvm perf-map {binary} {prof.source}: {o.order} order of "
                       f"{len(order)} sampled functions ({len(arcs)} call arcs)\nuse: ld.lld "
                       f"--symbol-ordering-file={o.function_order}").encode())
    res.function_order = OrderFile(o.function_order, o.order, order, len(arcs))


def _map_process(o: _Options, binaries: list) -> PerfMapResult:
    """The recordings mapped to several objects (``binaries`` and, with all_objects, those found beside them)."""
    from . import clusters as cl
    from .process import cluster_paths, map_process
    if not o.data and o.perf_script is None:
        raise UsageError("give PERF.DATA files (or --perf-script FILE) with the binaries")
    if o.recorded_on or o.function_order:
        raise UsageError("--recorded-on and --function-order take one binary: give BINARY alone")
    if o.event is not None and o.perf_script is not None:
        raise UsageError("--event selects among the events of perf.data files (perf script text has one)")
    raw = _collect(o)
    skipped = _find_objects(o, raw, binaries) if o.all_objects else []
    proc = map_process(raw, binaries, debug_files={binaries[0]: o.debug_file} if o.debug_file else None)
    proc.skipped = skipped
    first = proc.objects[0]
    if first.ambiguous_events() and o.clusters:
        raise UsageError(f"{first.source} holds {len(first.event_names)} events: {first.events_text()}; a layout "
                         f"is made from one: give --event NAME")
    res = PerfMapResult(first, proc)
    warnings = list(first.warnings)
    if first.ambiguous_events():
        warnings.append(f"{first.source} holds {len(first.event_names)} events ({first.events_text()}): the "
                        f"counts below add them up; --event NAME maps one")
    for p in proc.objects:
        if any(not f.name for f in p.functions):
            if o.clusters:
                raise ObjllvmError(p.debug_source.no_names_message() + "; no cluster file written")
            warnings.append(p.debug_source.no_names_message())
            res.unnamed = True
    if o.clusters:
        for p, path in zip(proc.objects, cluster_paths(o.clusters, binaries)):
            if not p.functions:
                continue
            cs = cl.build_clusters(p, min_share=o.min_share, layout=o.layout, cfg=o.cfg, clone_paths=o.clone_paths)
            cl.write_clusters(path, cs, comment=f"objllvm perf-map {p.binary} {p.source}: {p.mapped_samples} "
                                                f"samples mapped, {o.layout} layout\nuse: clang "
                                                f"-fbasic-block-sections=list={path} (for {p.binary})")
            res.clusters.append(ClusterFile(p.binary, path, cs))
    if o.save_profile:
        from ..atomicio import atomic_write
        atomic_write(o.save_profile, raw.dumps().encode())
    if o.html:
        from ..formats import open_object
        from .report_html import write_report
        write_report(o.html, proc.objects, [open_object(p.binary) for p in proc.objects], top=o.html_top,
                     demangle=o.demangle)
    res.warnings = list(dict.fromkeys(warnings))
    return res


def _find_objects(o: _Options, raw, binaries: list) -> list:
    """Add to ``binaries`` every sampled object with a basic-block map found beside the inputs; return those
    sampled but not mapped (``[{"file", "reason"}]``)."""
    from .process import objects_with_maps
    search = list(dict.fromkeys(os.path.dirname(p) or "." for p in binaries + o.data if p != "-"))
    found, skipped = objects_with_maps(raw, search)
    seen = {os.path.realpath(b) for b in binaries}
    for f in found:
        if os.path.realpath(f) not in seen:
            seen.add(os.path.realpath(f))
            binaries.append(f)
    if not binaries:
        raise ObjllvmError(f"no object sampled in {', '.join(raw.sources[:3])} has a basic-block map here: "
                           + "; ".join(f"{s['file']}: {s['reason']}" for s in skipped[:6]))
    skipped_list: list = skipped
    return skipped_list


def _collect(o: _Options):
    """The recordings, merged (MergedProfile), or the RawProfile of the perf script text."""
    if o.perf_script is not None:
        from .merge import reduce_raw
        from .perfscript import collect_perfscript
        return reduce_raw(collect_perfscript(o.perf_script, with_branches=o.with_branches))
    if o.fleet or o.scheduler:
        from . import fleet
        if o.event is not None:
            raise UsageError("--event reads the recordings here, not on a --fleet cluster")
        return fleet.collect(o.data, scheduler=o.scheduler, workers=o.jobs, with_branches=o.with_branches)
    from .merge import collect
    return collect(o.data, jobs=o.jobs, with_branches=o.with_branches, event=o.event)


@dataclass
class PerfDiffResult:
    """What :func:`perf_diff` compared: the two profiles and their differences."""
    diff: ProfileDiff
    old: Profile
    new: Profile
    warnings: list[str] = field(default_factory=list)


def perf_diff(old: str, new: str, *, binary: str | None = None, old_binary: str | None = None,
              new_binary: str | None = None, event: str | None = None) -> PerfDiffResult:
    """Compare the recording ``old`` (a perf.data file or a saved profile) with ``new``, function by function: the
    share of samples, the hot-code footprint and the blocks that moved.  Both of ``binary``, or of two builds:
    ``old_binary`` and ``new_binary`` (blocks matched by hash).  ``event``: the samples of one event only.

    :raises UsageError: the binaries not given as one or two builds; recordings of several events without
        ``event``.
    :raises ObjllvmError: no sample of a recording fell in its binary."""
    from .diff import diff_profiles
    from .mapping import map_profile, open_binary
    from .merge import collect
    if binary and (old_binary or new_binary):
        raise UsageError("give --binary (one build), or --old-binary and --new-binary (two builds)")
    old_bin, new_bin = old_binary or binary, new_binary or binary
    if not old_bin or not new_bin:
        raise UsageError("give --binary BINARY, or --old-binary and --new-binary")
    sides = []
    warnings: list[str] = []
    for path, bin_path in ((old, old_bin), (new, new_bin)):
        obj, index = open_binary(bin_path)
        prof = map_profile(collect([path], event=event), bin_path, obj, index)
        if prof.ambiguous_events():
            raise UsageError(f"{path} holds {len(prof.event_names)} events: {prof.events_text()}; the comparison "
                             f"is of one: give --event NAME")
        reason = prof.no_sample_reason()
        if reason:
            raise ObjllvmError(reason)
        warnings.extend(prof.warnings)
        sides.append((prof, index))
    (old_prof, old_index), (new_prof, new_index) = sides
    return PerfDiffResult(diff_profiles(old_prof, new_prof, old_index, new_index), old_prof, new_prof, warnings)


@dataclass
class FunctionGraph:
    """One function's basic blocks and the edges between them, shaded by samples when a profile was given."""
    binary: str
    function: FunctionMap            # the function's blocks, from the basic-block address map
    profile: Profile | None = None

    def dot(self, *, demangle: bool = False) -> str:
        """The graph as Graphviz DOT text."""
        from .cfg import cfg_dot
        text: str = cfg_dot(self.function, self.profile, demangle=demangle)
        return text

    def write(self, path: str, *, demangle: bool = False) -> str:
        """Write the graph to ``path``: SVG (through Graphviz dot) for a ``.svg`` name, DOT text for any other;
        return the format written ('svg' or 'dot')."""
        from .cfg import write_cfg
        kind: str = write_cfg(path, self.function, self.profile, demangle=demangle)
        return kind


def cfg(binary: str, function: str, *, perf_data: str | None = None, perf_script: str | None = None) -> FunctionGraph:
    """The control-flow graph of ``function`` (its name, mangled or readable, or an address in it) from the
    basic-block map of ``binary``, shaded by the samples of ``perf_data`` (or of ``perf script`` text).

    :raises ObjllvmError: no basic-block map, or no such function."""
    from ..formats import open_object
    from .cfg import find_function
    from .mapping import collect_perfdata, load_index, map_profile
    obj = open_object(binary)
    index = load_index(obj, binary)
    fn = find_function(index, function)
    prof = None
    if perf_data or perf_script:
        if perf_script:
            from .perfscript import collect_perfscript
            raw = collect_perfscript(perf_script)
        else:
            raw = collect_perfdata(perf_data)
        prof = map_profile(raw, binary, obj, index)
    return FunctionGraph(binary, fn, prof)
