"""objllvm rewrite: edit the LLVM-specific sections of an ELF file (a thin layer over objllvm.rewrite)."""
NAME = "rewrite"
HELP = "remove or edit LLVM-specific sections of an ELF file (operations apply in command-line order)"
INPUTS = ("input",)  # paths read: one that does not exist is a usage error (cli)

# (option, metavar, operation class name, help)
_OPS = [
    ("--remove", "KIND|NAME", "Remove", "remove every section of this kind (see `objllvm dump -h`) or with this "
     "name, and the relocation sections that target it"),
    ("--strip-llvm", None, "StripLLVM", "remove every LLVM-specific section that is not allocated"),
    ("--drop-linker-option", "KEY=GLOB", "DropLinkerOption", "drop linker options whose key and value match"),
    ("--add-linker-option", "KEY=VALUE", "AddLinkerOption", "add a linker option (creates .linker-options if "
     "needed)"),
    ("--drop-deplib", "GLOB", "DropDeplib", "drop dependent libraries matching GLOB"),
    ("--add-deplib", "NAME", "AddDeplib", "add a dependent library (creates .deplibs if needed)"),
    ("--drop-addrsig", None, "DropAddrsig", "remove the address-significance table"),
    ("--drop-cg-edge", "FROM:TO", "DropCGEdge", "drop call-graph profile edges (symbol names or globs); the "
     "relocation pairs are rewritten to match"),
    ("--scale-cg-weights", "FACTOR", "ScaleCGWeights", "multiply every call-graph profile weight (rounded)"),
    ("--strip-bitcode", None, "StripBitcode", "remove embedded bitcode: .llvmbc, .llvmcmd, .llvm.lto"),
    ("--replace-bitcode", "FILE", "ReplaceBitcode", "replace .llvmbc / .llvm.lto with FILE (must be bitcode)"),
    ("--drop-offload", "TRIPLE[:ARCH]", "DropOffload", "drop offloading images for this target"),
    ("--strip-pgo-analysis", None, "StripPGOAnalysis", "re-encode basic-block address maps without PGO data"),
    ("--set-section", "KIND=FILE.json", "SetSection", "replace a section with edited `objllvm dump --json` "
     "output (its \"content\" object, or the whole document with one section of that kind)"),
]


def _operation(cls: str):
    """The ``type`` of an operation's option: its value as (operation class name, value), appended to
    ``operations`` with the flags' (name, []) in command-line order (plain argparse actions, so the command
    line is parsed without argparse when it is a plain one: cli.parse_fast)."""
    def value(text):
        return (cls, text)
    value.__name__ = cls
    return value


def add_arguments(p):
    p.add_argument("input", metavar="IN")
    p.add_argument("-o", "--output", metavar="OUT", help="output file (written atomically)")
    p.add_argument("--in-place", action="store_true", help="replace IN (atomically)")
    p.add_argument("--dry-run", "-n", action="store_true",
                   help="print what would change (sections and decoded differences); write nothing")
    p.add_argument("--no-clobber", action="store_true", help="refuse to replace an existing OUT (by default it is "
                   "replaced)")
    p.add_argument("--json", action="store_true", help="print the changes as JSON (its JSON Schema: objllvm schema rewrite)")
    p.set_defaults(operations=[])
    g = p.add_argument_group("operations (repeatable, applied in order)")
    for opt, metavar, cls, hlp in _OPS:
        if metavar is None:
            g.add_argument(opt, action="append_const", dest="operations", const=(cls, []), help=hlp)
        else:
            g.add_argument(opt, metavar=metavar, action="append", dest="operations", type=_operation(cls), help=hlp)


def run(args) -> int:
    from .. import rewrite as rw
    ops = []
    for cls, value in args.operations:
        klass = getattr(rw, cls)
        ops.append(klass() if value == [] else klass(value))
    res = rw.rewrite_file(args.input, args.output, ops, in_place=args.in_place, dry_run=args.dry_run,
                          force=not args.no_clobber)
    # (the renderer imported only for what prints: a plain rewrite prints nothing)
    if res.dropped_bits:
        from ..render import report_warning
        report_warning(f"{res.output}: written without the {' and '.join(res.dropped_bits)} bit of {args.input}: "
                       f"the new file does not have its owner or group (see docs/rewrite.md, \"Owner and mode\")")
    if args.json:
        from ..render import render_json
        render_json({"schema": "objllvm-rewrite", "version": 1, "input": res.input, "output": res.output,
                     "written": res.written, "unchanged": not ops,
                     "changes": [c.to_dict() for c in res.changes]})
    elif args.dry_run:
        from ..render import render_text
        render_text(rw.describe_changes(res))
    elif not ops:
        # no operation: a copy; say so rather than print nothing, as if something had been done
        from ..render import Text, render_text
        where = res.output or args.input
        render_text([Text(f"no operation given: {args.input} copied to {where} unchanged"
                          if res.written else f"no operation given: {args.input} unchanged, nothing written")])
    return 0
