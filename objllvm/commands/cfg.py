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
    from ..perf.job import cfg
    from ..render import Text, render_text
    from ._common import demangled
    graph = cfg(args.binary, args.function, perf_data=args.perf, perf_script=args.perf_script)
    if args.output == "-":
        render_text([Text(graph.dot(demangle=args.demangle).rstrip("\n"))])
        return 0
    kind = graph.write(args.output, demangle=args.demangle)
    fn = graph.function
    render_text(demangled([Text(f"{args.output}: {kind.upper()} graph of {fn.name} ({len(fn.blocks)} blocks)")],
                          args))
    return 0
