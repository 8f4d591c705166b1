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
    import io
    import sys

    from ..audit import audit, load_policy
    from ..audit.policy import default_policy_text
    from ..audit.report import report_to_dict, report_to_sarif, report_to_text
    from ..errors import UsageError
    from ..render import Text, render_json, render_text

    if args.print_default_policy:
        render_text([Text(default_policy_text().rstrip("\n"))])
        return 0
    if not args.paths:
        raise UsageError("audit: give at least one PATH")
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("audit: --jobs must be at least 1")
    policy = load_policy(args.policy)
    progress = None
    if not args.no_progress and sys.stderr.isatty():
        from ..audit.progress import Progress
        progress = Progress(sys.stderr)
    try:
        report = audit(args.paths, policy=policy, jobs=args.jobs, progress=progress)
    finally:
        if progress:
            progress.done()
    if args.sarif:
        from ..atomicio import atomic_write
        buf = io.StringIO()
        render_json(report_to_sarif(report), buf)
        atomic_write(args.sarif, buf.getvalue().encode("utf-8", "surrogateescape"))
    from ._common import demangled
    if args.json:
        doc = report_to_dict(report)
        if args.demangle:
            from ..api import with_demangled
            doc = with_demangled(doc)
        render_json(doc)
    else:
        render_text(demangled(report_to_text(report), args))
    if report.objects == 0:
        # nothing audited is not a clean audit (a wrong directory would pass silently)
        from ..render import report_warning
        report_warning(f"audit: no object file or archive among the {report.files} file(s) found: nothing was "
                       f"audited")
        return 1
    return report.exit_status(args.fail_on)
