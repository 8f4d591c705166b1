"""objllvm dump: decode the LLVM-specific sections."""
NAME = "dump"
HELP = "decode the LLVM-specific sections of each object"
INPUTS = ("files",)  # paths read: one that does not exist is a usage error (cli)


def add_arguments(p):
    from ..sections import registry
    from ._common import add_demangle_flag, add_json_flag, add_limit_flags
    p.add_argument("files", nargs="+", metavar="FILE")
    kinds = registry.kinds()                      # (from the index: no codec imported)
    p.add_argument("--section", "-s", action="append", metavar="KIND", choices=kinds,
                   help=f"only sections of this kind (repeatable): {', '.join(kinds)}")
    add_json_flag(p)
    add_limit_flags(p)
    add_demangle_flag(p)
    registry.add_codec_arguments(p)               # the codecs' own options (from the index: none imported)


def run(args) -> int:
    from .. import api
    from ..render import render_json, render_text
    from ._common import demangled, report_problems, split_items
    options = {k: v for k, v in vars(args).items()
               if k not in ("files", "section", "json", "_run", "command", "demangle")}
    items = []
    for path in args.files:
        items.extend(api.dump(path, args.section, options))
    if args.json and args.demangle:
        render_json(api.with_demangled(api.dump_to_dict(items)))
    elif args.json:
        render_json(api.dump_to_json_doc(items), raw=True)
    else:
        render_text(demangled(api.dump_to_text(items, options), args))
    dumps, errors = split_items(items)
    return report_problems(errors, dumps)
