"""objllvm perf-diff: two profiles compared function by function (before and after a change)."""
from __future__ import annotations

NAME = "perf-diff"
HELP = ("compare two profiles function by function: the share of samples, the hot-code footprint (bytes, 64-byte "
        "lines) and the blocks that moved; two recordings of one build, or one of the old build and one of the new")
INPUTS = ("old", "new", "binary", "old_binary", "new_binary")  # paths read: missing = usage error (cli)


def add_arguments(p):
    from ._common import add_demangle_flag, add_json_flag
    p.add_argument("old", metavar="OLD", help="the recording (perf.data, or a profile saved by perf-map) before")
    p.add_argument("new", metavar="NEW", help="the recording after")
    p.add_argument("--binary", metavar="BINARY", help="the binary both recordings are of")
    p.add_argument("--old-binary", metavar="BINARY", help="the binary OLD is of (with --new-binary: two builds)")
    p.add_argument("--new-binary", metavar="BINARY", help="the binary NEW is of")
    p.add_argument("--event", metavar="NAME", help="only the samples of this event (recordings of several)")
    p.add_argument("--top", type=int, default=20, metavar="N", help="rows in the function table (20)")
    add_json_flag(p)
    add_demangle_flag(p)


def run(args) -> int:
    from ..perf.job import perf_diff
    from ..errors import UsageError
    from ..perf.diff import LINE
    from ..render import Heading, Table, Text, render_json, render_text, report_warning
    from ._common import demangled
    if args.top < 0:
        raise UsageError("--top must be >= 0")
    res = perf_diff(args.old, args.new, binary=args.binary, old_binary=args.old_binary,
                    new_binary=args.new_binary, event=args.event)
    for w in res.warnings:
        report_warning(w)
    d, old, new = res.diff, res.old, res.new
    if args.json:
        render_json(d.to_dict(args.top or None, demangle=args.demangle))
        return 0
    pct = lambda x: f"{100 * x:.2f}%" if x is not None else "-"  # noqa: E731
    sides = [f"old: {old.binary}, {old.source}: {old.total_samples} samples; hot code {d.old_hot[0]} bytes in "
             f"{d.old_hot[1]} lines of {LINE} bytes",
             f"new: {new.binary}, {new.source}: {new.total_samples} samples; hot code {d.new_hot[0]} bytes in "
             f"{d.new_hot[1]} lines of {LINE} bytes"]
    items = [Heading("perf-diff" + (" (one build)" if d.same_build else " (two builds)")),
             *(Text(s) for s in sides)]
    rows = []
    for f in d.functions[:args.top]:
        o, n = f.old or {}, f.new or {}
        rows.append([f.name, pct(o.get("share")), pct(n.get("share")), f"{100 * f.share_change:+.2f}",
                     o.get("hot_bytes", "-"), n.get("hot_bytes", "-"), o.get("hot_lines", "-"),
                     n.get("hot_lines", "-"), len(f.moved) if f.matched_by else "-"])
    items.append(Table(["function", "old share", "new share", "change (points)", "old hot bytes", "new hot bytes",
                        "old lines", "new lines", "moved blocks"], rows))
    moved = [(f, m) for f in d.functions[:args.top] for m in f.moved]
    if moved:
        items.append(Table(["function", "old block", "new block", "old offset", "new offset", "old samples",
                            "new samples"],
                           [[f.name, m["old_id"], m["new_id"], f"{m['old_offset']:#x}", f"{m['new_offset']:#x}",
                             m["old_samples"], m["new_samples"]] for f, m in moved[:4 * max(args.top, 1)]],
                           title="Hot blocks that moved (offset from the function's entry)"))
    render_text(demangled(items, args))
    return 0
