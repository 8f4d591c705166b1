"""objllvm audit: every request objects make of the linker, checked against a policy."""
from __future__ import annotations

NAME = "audit"
HELP = ("walk files, directories and archives; list every library, search path and option objects ask the "
        "linker for, plus embedded bitcode and command lines; check them against a policy")
INPUTS = ("paths",)  # paths read: one that does not exist is a usage error (cli)


def add_arguments(p):
    from ._common import add_demangle_flag, add_json_flag, add_limit_flags
    p.add_argument("paths", nargs="*", metavar="PATH", help="files or directories (directories are walked)")
    p.add_argument("--policy", metavar="FILE", help="TOML policy, applied on top of the default policy (--print-default-policy shows it, with every key explained)")
    add_json_flag(p)
    add_limit_flags(p)
    add_demangle_flag(p)
    p.add_argument("--sarif", metavar="OUT", help="also write the findings as SARIF 2.1.0 to OUT")
    p.add_argument("--fail-on", choices=("error", "warning", "note", "never"), default="error",
                   help="exit status 1 when a finding reaches this severity (default: error)")
    p.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                   help="worker processes (default: number of CPUs; 1: no workers)")
    p.add_argument("--no-progress", action="store_true", help="no progress line, even on a terminal")
    p.add_argument("--print-default-policy", action="store_true", help="print the default policy and exit")


def run(args) -> int:
    import sys

    from ..audit.job import audit_files
    from ..errors import UsageError
    from ..render import Text, render_json, render_text
    from ._common import demangled

    if args.print_default_policy:
        from ..audit.policy import default_policy_text
        render_text([Text(default_policy_text().rstrip("\n"))])
        return 0
    if not args.paths:
        raise UsageError("audit: give at least one PATH")
    progress = None
    if not args.no_progress and sys.stderr.isatty():
        from ..audit.progress import Progress
        progress = Progress(sys.stderr)
    try:
        report = audit_files(args.paths, args.policy, jobs=args.jobs, progress=progress, sarif=args.sarif)
    finally:
        if progress:
            progress.done()
    if args.json:
        doc = report.to_dict()
        if args.demangle:
            from ..api import with_demangled
            doc = with_demangled(doc)
        render_json(doc)
    else:
        from ..audit.report import report_to_text
        render_text(demangled(report_to_text(report), args))
    if report.objects == 0:
        # nothing audited is not a clean audit (a wrong directory would pass silently)
        from ..render import report_warning
        report_warning(f"audit: no object file or archive among the {report.files} file(s) found: nothing was "
                       f"audited")
        return 1
    return report.exit_status(args.fail_on)
