"""objllvm perf-map: map perf samples to the basic blocks of a binary."""
from __future__ import annotations

import os

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
    from ..atomicio import atomic_write
    from ..errors import ObjllvmError, UsageError
    from ..perf import clusters as cl
    from ..perf.mapping import UNMAPPED_REASONS, map_profile, open_binary
    from ..render import Heading, Table, Text, render_json, render_text, report_warning
    if (bool(args.perf_data) or args.all) == (args.perf_script is not None) and not (args.all and args.perf_script):
        raise UsageError("give either PERF.DATA files or --perf-script FILE")
    if args.top < 0:
        raise UsageError("--top must be >= 0")
    if not 0.0 <= args.min_share <= 1.0:
        raise UsageError(f"--min-share must be between 0 and 1 (a share of the samples), not {args.min_share}")
    if args.jobs < 1:
        raise UsageError("--jobs must be >= 1")
    if args.perf_script is not None and (args.save_profile or args.fleet or args.scheduler):
        raise UsageError("--save-profile, --fleet and --scheduler read perf.data files, not --perf-script text")
    from ..perf.process import split_inputs
    extra, args.perf_data = split_inputs(args.perf_data)
    if args.all and args.perf_script is None and not args.perf_data and not extra:
        args.perf_data = [args.binary]           # --all PERF.DATA: the binaries come from the recording
        args.binary = None
    if extra or args.all:
        return _run_process(args, ([args.binary] if args.binary else []) + extra)
    if bool(args.perf_data) == (args.perf_script is not None):
        raise UsageError("give either PERF.DATA files or --perf-script FILE")
    target = args.recorded_on or args.binary
    obj, index = open_binary(target, debug_file=None if args.recorded_on else args.debug_file)
    if args.event is not None and args.perf_script is not None:
        raise UsageError("--event selects among the events of perf.data files (perf script text has one)")
    raw = _collect(args)
    prof = map_profile(raw, target, obj, index)
    if prof.ambiguous_events():
        if args.clusters or args.function_order:
            raise UsageError(f"{prof.source} holds {len(prof.event_names)} events: {prof.events_text()}; a layout "
                             f"is made from one: give --event NAME")
        prof.warnings.append(f"{prof.source} holds {len(prof.event_names)} events ({prof.events_text()}): the "
                             f"counts below add them up; --event NAME maps one")
        if not (args.fleet or args.scheduler):
            from ..perf.mapping import functions_by_event
            functions_by_event(args.perf_data, prof, obj, index, with_branches=not args.no_branches, jobs=args.jobs)
    reason = prof.no_sample_reason()
    if reason:
        raise ObjllvmError(reason + ("; no cluster file written" if args.clusters else ""))
    dsrc = index.debug_source
    nameless = [f for f in prof.functions if not f.name]
    if nameless and (args.clusters or args.function_order):
        raise ObjllvmError(dsrc.no_names_message() + "; no cluster or order file written")
    stale = None
    if args.recorded_on:
        from ..perf.stale import carry
        new_obj, new_index = open_binary(args.binary)
        from ..perf.mapping import elf_build_id
        nb = elf_build_id(new_obj)
        prof, stale = carry(prof, index, args.binary, new_index, nb.hex() if nb else None)
        if not stale.matched:
            raise ObjllvmError(f"none of the {stale.total} samples of {args.recorded_on} matches a block of "
                               f"{args.binary} (by function name and block hash): is it the same program?"
                               + ("; no cluster file written" if args.clusters else ""))
    if args.save_profile:
        atomic_write(args.save_profile, raw.dumps().encode())
    clusters = None
    if (args.cfg or args.clone_paths) and not args.clusters:
        raise UsageError("--cfg and --clone-paths add to the cluster file: give --clusters OUT.txt too")
    if args.clusters:
        clusters = cl.build_clusters(prof, min_share=args.min_share, layout=args.layout, cfg=args.cfg,
                                     clone_paths=args.clone_paths)
        cl.write_clusters(args.clusters, clusters,
                          comment=f"objllvm perf-map {args.binary} {prof.source}: {prof.mapped_samples} samples "
                                  f"mapped, {args.layout} layout\nuse: clang -fbasic-block-sections=list="
                                  f"{args.clusters}")
    order = None
    if args.function_order:
        from ..perf import layout as lay
        order, arcs, relocated = lay.order_for_binary(
            prof, args.binary, algorithm=args.order,
            hot_sizes=None if clusters is None else {c.function: c.hot_size for c in clusters},
            **({} if args.recorded_on else {"obj": obj, "index": index}))
        if args.order in ("c3", "cdsort") and not relocated:
            prof.warnings.append("no relocations for the text (link with -Wl,--emit-relocs): no call arcs, the "
                                 "function order is by density alone")
        atomic_write(args.function_order, lay.function_order_text(
            order, comment=f"objllvm perf-map {args.binary} {prof.source}: {args.order} order of "
                           f"{len(order)} sampled functions ({len(arcs)} call arcs)\nuse: ld.lld "
                           f"--symbol-ordering-file={args.function_order}").encode())
    sample_funcs = None
    if args.sample_profile:
        from ..perf import sample_profile as sp
        sample_funcs = sp.build_sample_profile(prof, args.binary)
        if not sample_funcs:
            raise ObjllvmError(f"{args.binary}: no sampled function has DWARF line information (build with "
                               f"-gline-tables-only -fdebug-info-for-profiling); no sample profile written")
        sp.write_sample_profile(args.sample_profile, sample_funcs)
    if args.html:
        from ..perf.report_html import write_report
        write_report(args.html, [prof], [obj], top=args.top or 20, demangle=args.demangle)
    if dsrc.debug_file:
        prof.warnings.append(f"{target} is stripped: " + (
            f"its basic-block map and names are taken from {dsrc.debug_file}" if dsrc.map_from_debug_file else
            f"names of {dsrc.named} functions taken from {dsrc.debug_file}") + f" (found by {dsrc.how})")
    status = 0
    if nameless:
        prof.warnings.append(dsrc.no_names_message())
        status = 1
    for w in prof.warnings:
        report_warning(w)
    if args.json:
        d = prof.to_dict(args.top, demangle=args.demangle)
        if stale is not None:
            d["stale"] = stale.to_dict()
        if clusters is not None:
            d["clusters"] = {"file": args.clusters, "functions": [
                {"function": c.function, "blocks": c.block_ids, "samples": c.samples, "edges": c.edge_source}
                for c in clusters]}
        if sample_funcs is not None:
            d["sample_profile"] = {"file": args.sample_profile, "functions": len(sample_funcs)}
        if order is not None:
            d["function_order"] = {"file": args.function_order, "algorithm": args.order, "functions": order}
        if dsrc.stripped or dsrc.debug_file:
            d["debug_file"] = dsrc.to_dict()
        render_json(d)
        return status
    pct = lambda n: f"{100 * prof.share(n):.2f}%"  # noqa: E731
    src = prof.source if len(prof.recordings) <= 1 else f"{len(prof.recordings)} recordings"
    items = [Heading(f"{args.binary}: {prof.total_samples} samples in {src}"
                     + (f" (build-id {prof.build_id})" if prof.build_id else ""))]
    rows = [["total", prof.total_samples, "100.00%" if prof.total_samples else "-"],
            ["in the binary", prof.binary_samples, pct(prof.binary_samples)],
            ["mapped to blocks", prof.mapped_samples, pct(prof.mapped_samples)],
            ["mapped, on alignment padding", prof.padding_samples, pct(prof.padding_samples)]]
    rows += [[f"unmapped: {r}", prof.unmapped.get(r, 0), pct(prof.unmapped.get(r, 0))] for r in UNMAPPED_REASONS
             if r != "not carried to the new build" or stale is not None]
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
    if clusters is not None:
        shown = "" if len(clusters) <= args.top else f" (the {args.top} hottest listed; --top N for more)"
        items.append(Heading(f"Clusters written to {args.clusters}: {len(clusters)} functions{shown}", 2))
        items.append(Table(["function", "samples", "hot blocks", "edges from"],
                           [[c.function, c.samples, len(c.block_ids), c.edge_source] for c in clusters[:args.top]]))
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
    if order is not None:
        items.append(Text(f"Function order ({args.order}) written to {args.function_order}: {len(order)} "
                          f"functions, first: {', '.join(order[:5])}"))
    if sample_funcs is not None:
        items.append(Text(f"Sample profile written to {args.sample_profile}: {len(sample_funcs)} functions "
                          f"(use: clang -fprofile-sample-use={args.sample_profile})"))
    if prof.unknown_records:
        items.append(Text(f"skipped {prof.unknown_records} records of unknown type"))
    from ._common import demangled
    render_text(demangled(items, args))
    return status


STALE_OUTCOMES = ("exact hash", "same opcodes, nearest hash", "block not matched", "function not in the new build")


def _run_process(args, binaries) -> int:
    """perf-map of several objects (BINARY and more ELF files among the inputs, or --all)."""
    from ..errors import ObjllvmError, UsageError
    from ..perf import clusters as cl
    from ..perf.process import cluster_paths, map_process, objects_with_maps
    from ..render import Heading, Table, Text, render_json, render_text, report_warning
    from ._common import demangled
    if not args.perf_data and args.perf_script is None:
        raise UsageError("give PERF.DATA files (or --perf-script FILE) with the binaries")
    if args.recorded_on or args.function_order:
        raise UsageError("--recorded-on and --function-order take one binary: give BINARY alone")
    if args.event is not None and args.perf_script is not None:
        raise UsageError("--event selects among the events of perf.data files (perf script text has one)")
    raw = _collect(args)
    skipped = []
    if args.all:
        search = list(dict.fromkeys(os.path.dirname(p) or "." for p in binaries + args.perf_data if p != "-"))
        found, skipped = objects_with_maps(raw, search)
        seen = {os.path.realpath(b) for b in binaries}
        for f in found:
            if os.path.realpath(f) not in seen:
                seen.add(os.path.realpath(f))
                binaries.append(f)
        if not binaries:
            raise ObjllvmError(f"no object sampled in {', '.join(raw.sources[:3])} has a basic-block map here: "
                               + "; ".join(f"{s['file']}: {s['reason']}" for s in skipped[:6]))
    proc = map_process(raw, binaries, debug_files={binaries[0]: args.debug_file} if args.debug_file else None)
    proc.skipped = skipped
    first = proc.objects[0]
    if first.ambiguous_events() and args.clusters:
        raise UsageError(f"{first.source} holds {len(first.event_names)} events: {first.events_text()}; a layout "
                         f"is made from one: give --event NAME")
    warnings = list(first.warnings)
    if first.ambiguous_events():
        warnings.append(f"{first.source} holds {len(first.event_names)} events ({first.events_text()}): the "
                        f"counts below add them up; --event NAME maps one")
    status = 0
    nameless = [p for p in proc.objects if any(not f.name for f in p.functions)]
    for p in nameless:
        if args.clusters:
            raise ObjllvmError(p.debug_source.no_names_message() + "; no cluster file written")
        warnings.append(p.debug_source.no_names_message())
        status = 1
    written = []
    if args.clusters:
        for p, path in zip(proc.objects, cluster_paths(args.clusters, binaries)):
            if not p.functions:
                continue
            cs = cl.build_clusters(p, min_share=args.min_share, layout=args.layout, cfg=args.cfg,
                                   clone_paths=args.clone_paths)
            cl.write_clusters(path, cs, comment=f"objllvm perf-map {p.binary} {p.source}: {p.mapped_samples} "
                                                f"samples mapped, {args.layout} layout\nuse: clang "
                                                f"-fbasic-block-sections=list={path} (for {p.binary})")
            written.append((p, path, cs))
    if args.save_profile:
        from ..atomicio import atomic_write
        atomic_write(args.save_profile, raw.dumps().encode())
    if args.html:
        from ..formats import open_object
        from ..perf.report_html import write_report
        write_report(args.html, proc.objects, [open_object(p.binary) for p in proc.objects], top=args.top or 20,
                     demangle=args.demangle)
    for w in dict.fromkeys(warnings):
        report_warning(w)
    if args.json:
        d = proc.to_dict(args.top, demangle=args.demangle)
        if written:
            d["clusters"] = {"files": [{"binary": p.binary, "file": path, "functions": [
                {"function": c.function, "blocks": c.block_ids, "samples": c.samples, "edges": c.edge_source}
                for c in cs]} for p, path, cs in written]}
        render_json(d)
        return status
    pct = lambda n: f"{100 * proc.share(n):.2f}%"  # noqa: E731
    items = [Heading(f"{proc.total_samples} samples in {first.source}: {len(proc.objects)} objects with "
                     f"basic-block maps")]
    rows = [[s["binary"], s["build_id"] or "-", s["samples"], pct(s["samples"]), s["mapped"]] for s in proc.summary()]
    rows += [[s["file"], "-", s["samples"], pct(s["samples"]), f"- ({s['reason']})"] for s in skipped[:args.top]]
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
    for p, path, cs in written:
        items.append(Text(f"Clusters of {p.binary} written to {path}: {len(cs)} functions"))
    render_text(demangled(items, args))
    return status


def _collect(args):
    """The recordings of the command line, merged (MergedProfile), or the RawProfile of --perf-script text."""
    from ..errors import UsageError
    with_branches = not args.no_branches
    if args.perf_script is not None:
        from ..perf.merge import reduce_raw
        from ..perf.perfscript import collect_perfscript
        return reduce_raw(collect_perfscript(args.perf_script, with_branches=with_branches))
    if args.fleet or args.scheduler:
        from ..perf import fleet
        if args.event is not None:
            raise UsageError("--event reads the recordings here, not on a --fleet cluster")
        return fleet.collect(args.perf_data, scheduler=args.scheduler, workers=args.jobs, with_branches=with_branches)
    from ..perf.merge import collect
    return collect(args.perf_data, jobs=args.jobs, with_branches=with_branches, event=args.event)
