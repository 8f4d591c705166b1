"""objllvm extract: write embedded bitcode, offloading images and command lines to files."""
NAME = "extract"
HELP = "write every embedded bitcode module, offloading image and command line to its own file"
INPUTS = ("files",)  # paths read: one that does not exist is a usage error (cli)


def add_arguments(p):
    from ._common import add_json_flag, add_limit_flags
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("-o", "--output-dir", required=True, metavar="DIR", help="directory for the files and "
                   "manifest.json (created if missing; its JSON Schema: objllvm schema extract)")
    p.add_argument("--force", action="store_true", help="overwrite existing files")
    p.add_argument("--coverage", action="store_true", help="also write each object's coverage mapping and names as "
                   "a .covmapping file llvm-cov reads in place of the binary, and its profile names as text")
    add_json_flag(p)
    add_limit_flags(p)


def run(args) -> int:
    from ..bitcode.job import extract
    from ..render import Table, Text, render_json, render_text
    from ._common import report_errors
    res = extract(args.files, args.output_dir, force=args.force, coverage=args.coverage)
    if args.json:
        render_json(res.manifest)
        return report_errors(res.errors)
    if not res.written:
        render_text([Text(f"nothing extracted, nothing written to {args.output_dir}")])
        return report_errors(res.errors)
    rows = [[f.path, f.kind, f.size, f"{f.file}({f.member})" if f.member else f.file, f.section] for f in res.files]
    items = [Table(["written", "kind", "size", "from", "section"], rows)]
    if res.skipped:
        items.append(Table(["skipped", "from", "section"],
                           [[s.reason, f"{s.file}({s.member})" if s.member else s.file, s.section]
                            for s in res.skipped]))
    more = f" (merged with {res.merged} listed by the earlier manifest)" if res.merged else ""
    items.append(Text(f"{len(rows)} files and manifest.json in {args.output_dir}{more}"))
    render_text(items)
    return report_errors(res.errors)
