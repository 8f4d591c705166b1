"""objllvm perf-map: map perf samples to the basic blocks of a binary."""
from __future__ import annotations

NAME = "perf-map"
HELP = ("map the samples of perf.data files (or perf script text) to the functions and basic blocks of a binary "
        "with its basic-block address map; merge many recordings; carry a profile to the next build; optionally "
        "write a layout cluster file for clang")
INPUTS = ("binary", "perf_data", "perf_script", "recorded_on", "debug_file")  # (html: an output)  # paths read: missing = usage error (cli)


def add_arguments(p):
    from ._common import add_json_flag
    p.add_argument("binary", metavar="BINARY", help="the profiled executable or shared object (with a bb map)")
    p.add_argument("perf_data", metavar="PERF.DATA", nargs="*",
                   help="perf.data files (read directly, no perf needed; several: merged by build-id; '-': standard "
                        "input, perf record -o - too) and profiles saved by --save-profile (merged with them); more "
                        "ELF binaries here (shared libraries of the process) are mapped too, one section each")
    p.add_argument("--all", action="store_true",
                   help="map every object of the recordings that has a basic-block map and is found here (with "
                        "the recorded build-id), one section each, with each one's share of all samples")
    p.add_argument("--perf-script", metavar="FILE",
                   help="read the text of `perf script -F comm,pid,ip --show-mmap-events` instead ('-': stdin)")
    p.add_argument("--top", type=int, default=20, metavar="N", help="rows in the function and block tables (20)")
    p.add_argument("--clusters", metavar="OUT.txt",
                   help="write a basic-block cluster file for clang -fbasic-block-sections=list=OUT.txt")
    p.add_argument("--min-share", type=float, default=0.0, metavar="F",
                   help="functions with at least this share of the mapped samples get a cluster (0: every sampled "
                        "function, so that the cold blocks of all of them leave the hot code)")
    p.add_argument("--layout", choices=("ext-tsp", "heaviest-path"), default="ext-tsp",
                   help="block order in the clusters: ext-TSP on estimated edge counts (default), or the "
                        "heaviest path from the entry")
    p.add_argument("--cfg", action="store_true",
                   help="also write each function's estimated block and edge counts (v1 'g' lines, clang >= 22: "
                        "-mllvm -pgo-analysis-map-emit-bb-sections-cfg puts them in the rebuilt binary's map)")
    p.add_argument("--clone-paths", action="store_true",
                   help="with branch stacks: clone small join blocks along their second incoming edge "
                        "(v1 'p' lines, clang >= 22)")
    p.add_argument("--function-order", metavar="OUT.txt",
                   help="write a function order (C3 call-chain clustering) for lld --symbol-ordering-file=OUT.txt")
    p.add_argument("--order", choices=("cdsort", "c3", "hotness"), default="cdsort",
                   help="function order algorithm for --function-order: cache-directed sort (cdsort, the "
                        "default), call-chain clustering (c3), or by samples (hotness)")
    p.add_argument("--sample-profile", metavar="OUT.txt",
                   help="write an LLVM sample profile (text) for clang -fprofile-sample-use=OUT.txt, from the "
                        "samples and the binary's DWARF line tables (build with -gline-tables-only "
                        "-fdebug-info-for-profiling)")
    p.add_argument("--no-branches", action="store_true", help="ignore branch stacks (LBR)")
    p.add_argument("--debug-file", metavar="PATH",
                   help="names for a stripped BINARY from this file (the unstripped binary or its objcopy "
                        "--only-keep-debug file); found by build-id (/usr/lib/debug/.build-id, OBJLLVM_DEBUG_ROOT, "
                        "the debuginfod cache) or .gnu_debuglink without it")
    p.add_argument("--html", metavar="OUT.html",
                   help="also write a report page (one self-contained file): functions by share, a heat map of the "
                        "text, each hot function's CFG and hot blocks with their source lines")
    p.add_argument("--event", metavar="NAME",
                   help="only the samples of this event (as perf names it: cpu-clock, cycles, ...) when the "
                        "recordings hold several; a layout from several events needs it")
    g = p.add_argument_group("many recordings")
    g.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                   help="read the recordings in N processes (1); with --fleet: the local cluster's workers")
    g.add_argument("--fleet", action="store_true",
                   help="read them on a Dask cluster (a local one of --jobs workers unless --scheduler is given)")
    g.add_argument("--scheduler", metavar="ADDR", help="address of a running Dask scheduler (implies --fleet)")
    g.add_argument("--save-profile", metavar="OUT.json",
                   help="write the merged profile (JSON, every object sampled; its JSON Schema: objllvm schema perf-profile) "
                   "to merge again later")
    p.add_argument("--recorded-on", metavar="OLD_BINARY",
                   help="the recordings are of OLD_BINARY, an earlier build: map them there, then carry the samples "
                        "to BINARY by function name and block hash (both need bb-addr-map block hashes)")
    add_json_flag(p)
    from ._common import add_demangle_flag
    add_demangle_flag(p)


def run(args) -> int:
    from ..errors import UsageError
    from ..perf.job import perf_map
    from ..render import report_warning
    if (bool(args.perf_data) or args.all) == (args.perf_script is not None) and not (args.all and args.perf_script):
        raise UsageError("give either PERF.DATA files or --perf-script FILE")
    if args.top < 0:
        raise UsageError("--top must be >= 0")
    res = perf_map(args.binary, args.perf_data, perf_script=args.perf_script, all_objects=args.all,
                   event=args.event, with_branches=not args.no_branches, jobs=args.jobs, fleet=args.fleet,
                   scheduler=args.scheduler, debug_file=args.debug_file, recorded_on=args.recorded_on,
                   save_profile=args.save_profile, clusters=args.clusters, min_share=args.min_share,
                   layout=args.layout, cfg=args.cfg, clone_paths=args.clone_paths,
                   function_order=args.function_order, order=args.order, sample_profile=args.sample_profile,
                   html=args.html, html_top=args.top or 20, demangle=args.demangle)
    for w in res.warnings:
        report_warning(w)
    if res.process is not None:
        _render_process(res, args)
    elif args.json:
        _render_json(res, args)
    else:
        from ..render import render_text
        from ._common import demangled
        render_text(demangled(_profile_items(res, args) + _result_items(res, args), args))
    return 1 if res.unnamed else 0


def _clusters_json(cf):
    return [{"function": c.function, "blocks": c.block_ids, "samples": c.samples, "edges": c.edge_source}
            for c in cf.clusters]


def _render_json(res, args) -> None:
    """The JSON document of one binary's perf-map."""
    from ..render import render_json
    prof = res.profile
    d = prof.to_dict(args.top, demangle=args.demangle)
    if res.stale is not None:
        d["stale"] = res.stale.to_dict()
    for cf in res.clusters:
        d["clusters"] = {"file": cf.path, "functions": _clusters_json(cf)}
    if res.sample_profile is not None:
        d["sample_profile"] = {"file": res.sample_profile.path, "functions": len(res.sample_profile.functions)}
    if res.function_order is not None:
        fo = res.function_order
        d["function_order"] = {"file": fo.path, "algorithm": fo.algorithm, "functions": fo.functions}
    dsrc = res.debug_source
    if dsrc is not None and (dsrc.stripped or dsrc.debug_file):
        d["debug_file"] = dsrc.to_dict()
    render_json(d)


def _profile_items(res, args) -> list:
    """The render items of one binary's samples: where they fell, by function, by block, by branch."""
    from ..perf.mapping import UNMAPPED_REASONS
    from ..render import Heading, Table, Text
    prof = res.profile
    pct = lambda n: f"{100 * prof.share(n):.2f}%"  # noqa: E731
    src = prof.source if len(prof.recordings) <= 1 else f"{len(prof.recordings)} recordings"
    items = [Heading(f"{args.binary}: {prof.total_samples} samples in {src}"
                     + (f" (build-id {prof.build_id})" if prof.build_id else ""))]
    rows = [["total", prof.total_samples, "100.00%" if prof.total_samples else "-"],
            ["in the binary", prof.binary_samples, pct(prof.binary_samples)],
            ["mapped to blocks", prof.mapped_samples, pct(prof.mapped_samples)],
            ["mapped, on alignment padding", prof.padding_samples, pct(prof.padding_samples)]]
    rows += [[f"unmapped: {r}", prof.unmapped.get(r, 0), pct(prof.unmapped.get(r, 0))] for r in UNMAPPED_REASONS
             if r != "not carried to the new build" or res.stale is not None]
    items.append(Table(["samples", "count", "share"], rows))
    for i, ev in enumerate(prof.events):
        name = ev.get("name")
        items.append(Text(f"event {i}: " + (f"{name}, {prof.event_samples.get(name, 0)} samples"
                                             + (" (mapped)" if name == prof.event else "") + ", " if name else "")
                          + f"type {ev['type']} config {ev['config']}, sample_type "
                          f"{'|'.join(ev['sample_type'])}, read_format {ev['read_format']:#x}, "
                          f"sample_id_all {int(ev['sample_id_all'])}"))
    items.append(Heading("Functions", 2))
    items.append(Table(["function", "address", "samples", "share", "blocks hit"],
                       [[f.name or "?", f"{f.function.address:#x}", f.samples, pct(f.samples),
                         f"{len(f.blocks)}/{len(f.function.blocks)}"] for f in prof.functions[:args.top]]))
    if prof.functions_by_event:
        evs = prof.event_names
        items.append(Heading("Functions by event", 2))
        items.append(Table(["function", *evs], [[r["name"], *(r["samples"][e] for e in evs)]
                                                for r in prof.functions_by_event[:args.top]]))
    items.append(Heading("Hottest blocks", 2))
    items.append(Table(["function", "block", "address", "size", "samples", "share"],
                       [[fn.name or "?", b.id, f"{b.address:#x}", b.size, c, pct(c)]
                        for fn, b, c in prof.hottest_blocks(args.top)]))
    if prof.branch_samples:
        items.append(Heading(f"Branch stacks: {prof.branch_samples} samples", 2))
        items.append(Table(["what", "count"], sorted(prof.branch_stats.items())))
        for title, edges in (("taken edges", prof.taken_edges), ("fall-through edges", prof.fallthrough_edges)):
            top = sorted(edges.items(), key=lambda t: (-t[1], t[0]))[:args.top]
            items.append(Table(["function", "from", "to", "count"],
                               [[prof._fname(fa), a, b, c] for (fa, a, b), c in top], title=title))
    return items


def _result_items(res, args) -> list:
    """The render items of what one binary's perf-map wrote and carried, and what it read past."""
    from ..render import Heading, Table, Text
    prof = res.profile
    items = []
    for cf in res.clusters:                       # (one binary: one cluster file at most)
        shown = "" if len(cf.clusters) <= args.top else f" (the {args.top} hottest listed; --top N for more)"
        items.append(Heading(f"Clusters written to {cf.path}: {len(cf.clusters)} functions{shown}", 2))
        items.append(Table(["function", "samples", "hot blocks", "edges from"],
                           [[c.function, c.samples, len(c.block_ids), c.edge_source] for c in cf.clusters[:args.top]]))
    stale = res.stale
    if stale is not None:
        items.append(Heading(f"Carried from {stale.old_binary} (build-id {stale.old_build_id}) to {args.binary}: "
                             f"{stale.matched} of {stale.total} samples matched "
                             f"({100 * stale.matched / stale.total if stale.total else 0:.2f}%)", 2))
        items.append(Table(["match", "samples", "blocks"],
                           [[k, stale.samples.get(k, 0), stale.blocks.get(k, 0)] for k in STALE_OUTCOMES]))
        items.append(Table(["function", "samples", "exact hash", "nearest hash", "lost"],
                           [[r["function"], r["samples"], r["exact"], r["nearest"], r["lost"]]
                            for r in stale.functions[:args.top]]))
    if len(prof.recordings) > 1:
        items.append(Text(f"merged {len(prof.recordings)} recordings: "
                          + ", ".join(f"{r['source']} ({r['samples']})" for r in prof.recordings[:args.top or 1])
                          + (", ..." if len(prof.recordings) > (args.top or 1) else "")))
    skipped = prof.skipped_records
    if skipped:
        items.append(Text("records read past (not needed for the mapping): "
                          + ", ".join(f"{k} {v}" for k, v in skipped.items())))
    fo = res.function_order
    if fo is not None:
        items.append(Text(f"Function order ({fo.algorithm}) written to {fo.path}: {len(fo.functions)} "
                          f"functions, first: {', '.join(fo.functions[:5])}"))
    sp = res.sample_profile
    if sp is not None:
        items.append(Text(f"Sample profile written to {sp.path}: {len(sp.functions)} functions "
                          f"(use: clang -fprofile-sample-use={sp.path})"))
    if prof.unknown_records:
        items.append(Text(f"skipped {prof.unknown_records} records of unknown type"))
    return items

STALE_OUTCOMES = ("exact hash", "same opcodes, nearest hash", "block not matched", "function not in the new build")


def _render_process(res, args) -> None:
    """The JSON document or the text of a perf-map of several objects."""
    from ..render import Heading, Table, Text, render_json, render_text
    from ._common import demangled
    proc, first = res.process, res.profile
    if args.json:
        d = proc.to_dict(args.top, demangle=args.demangle)
        if res.clusters:
            d["clusters"] = {"files": [{"binary": cf.binary, "file": cf.path, "functions": _clusters_json(cf)}
                                       for cf in res.clusters]}
        render_json(d)
        return
    pct = lambda n: f"{100 * proc.share(n):.2f}%"  # noqa: E731
    items = [Heading(f"{proc.total_samples} samples in {first.source}: {len(proc.objects)} objects with "
                     f"basic-block maps")]
    rows = [[s["binary"], s["build_id"] or "-", s["samples"], pct(s["samples"]), s["mapped"]] for s in proc.summary()]
    rows += [[s["file"], "-", s["samples"], pct(s["samples"]), f"- ({s['reason']})"]
             for s in proc.skipped[:args.top]]
    items.append(Table(["object", "build-id", "samples", "share of all", "mapped to blocks"], rows))
    for p in proc.objects:
        items.append(Heading(f"{p.binary}: {p.binary_samples} samples ({pct(p.binary_samples)} of all)", 2))
        items.append(Table(["function", "address", "samples", "share of all", "blocks hit"],
                           [[f.name or "?", f"{f.function.address:#x}", f.samples, pct(f.samples),
                             f"{len(f.blocks)}/{len(f.function.blocks)}"] for f in p.functions[:args.top]],
                           title="Functions"))
        items.append(Table(["function", "block", "address", "size", "samples", "share of all"],
                           [[fn.name or "?", b.id, f"{b.address:#x}", b.size, c, pct(c)]
                            for fn, b, c in p.hottest_blocks(args.top)], title="Hottest blocks"))
    for cf in res.clusters:
        items.append(Text(f"Clusters of {cf.binary} written to {cf.path}: {len(cf.clusters)} functions"))
    render_text(demangled(items, args))
