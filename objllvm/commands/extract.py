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
    from .. import bitcode
    from ..render import Table, Text, render_json, render_text
    from ._common import report_errors
    doc, errors = bitcode.extract(args.files, args.output_dir, force=args.force, coverage=args.coverage)
    if args.json:
        render_json(doc)
    else:
        if not doc.get("written"):
            render_text([Text(f"nothing extracted, nothing written to {args.output_dir}")])
            return report_errors(errors)
        merged = doc.get("merged", 0)
        new = doc["payloads"][merged:]
        rows = [[d["path"], d["kind"], d["size"],
                 f"{d['file']}({d['member']})" if d["member"] else d["file"], d["section"]]
                for d in new]
        items = [Table(["written", "kind", "size", "from", "section"], rows)]
        if doc["skipped"]:
            items.append(Table(["skipped", "from", "section"],
                               [[d["reason"], f"{d['file']}({d['member']})" if d["member"] else d["file"],
                                 d["section"]] for d in doc["skipped"]]))
        more = f" (merged with {merged} listed by the earlier manifest)" if merged else ""
        items.append(Text(f"{len(rows)} files and manifest.json in {args.output_dir}{more}"))
        render_text(items)
    return report_errors(errors)
