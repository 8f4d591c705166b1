"""objllvm cfg: draw a function's basic blocks as a graph, shaded by perf samples."""
from __future__ import annotations

NAME = "cfg"
HELP = ("draw a function's basic blocks (from the basic-block address map) as a graph, shaded by perf samples: "
        "SVG through Graphviz dot, or DOT text")
INPUTS = ("binary", "perf", "perf_script")  # paths read: one that does not exist is a usage error (cli)


def add_arguments(p):
    p.add_argument("binary", metavar="BINARY")
    p.add_argument("--function", required=True, metavar="NAME", help="function name (or an address in it)")
    p.add_argument("--perf", metavar="PERF.DATA", help="shade blocks by the samples of this perf.data file")
    p.add_argument("--perf-script", metavar="FILE", help="... or of this `perf script` text")
    p.add_argument("-o", "--output", required=True, metavar="OUT.svg|OUT.dot",
                   help="output file: .svg (needs Graphviz dot) or DOT text for any other name ('-': stdout)")
    from ._common import add_demangle_flag
    add_demangle_flag(p)


def run(args) -> int:
    from ..formats import open_object
    from ..perf import cfg
    from ..perf.mapping import collect_perfdata, load_index, map_profile
    from ..render import Text, render_text
    obj = open_object(args.binary)
    index = load_index(obj, args.binary)
    fn = cfg.find_function(index, args.function)
    prof = None
    if args.perf or args.perf_script:
        if args.perf_script:
            from ..perf.perfscript import collect_perfscript
            raw = collect_perfscript(args.perf_script)
        else:
            raw = collect_perfdata(args.perf)
        prof = map_profile(raw, args.binary, obj, index)
    if args.output == "-":
        render_text([Text(cfg.cfg_dot(fn, prof, demangle=args.demangle).rstrip("\n"))])
        return 0
    kind = cfg.write_cfg(args.output, fn, prof, demangle=args.demangle)
    from ._common import demangled
    render_text(demangled([Text(f"{args.output}: {kind.upper()} graph of {fn.name} ({len(fn.blocks)} blocks)")],
                          args))
    return 0
