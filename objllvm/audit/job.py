"""The audit job as one call: what ``objllvm audit`` runs (the command only parses its arguments and renders the
:class:`~objllvm.audit.AuditReport`).  The files are walked and scanned by :func:`objllvm.audit.audit`."""
from __future__ import annotations

from ..errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from . import AuditReport
    from .policy import Policy


def audit_files(paths: Iterable[str], policy: str | Policy | None = None, *, jobs: int | None = None,
                progress: Callable[[AuditReport], None] | None = None,
                sarif: str | None = None) -> AuditReport:
    """Audit the files, directories (walked) and archives of ``paths``: every library, search path and option
    their objects ask the linker for, embedded bitcode and command lines, checked against ``policy`` (a TOML
    file applied on top of the default policy, a :class:`~objllvm.audit.policy.Policy`, or None: the default).
    ``jobs``: worker processes (None: one per CPU; 1: none); ``progress(report)`` is called as files are done;
    ``sarif``: also write the findings there as SARIF 2.1.0 (atomically).

    :raises UsageError: ``jobs`` below 1.
    :raises ObjllvmError: the policy cannot be read."""
    from . import audit as run_audit
    from .policy import load_policy
    if jobs is not None and jobs < 1:
        raise UsageError("audit: --jobs must be at least 1")
    pol = load_policy(policy) if policy is None or isinstance(policy, str) else policy
    report: AuditReport = run_audit(list(paths), policy=pol, jobs=jobs, progress=progress)
    if sarif:
        import io

        from ..atomicio import atomic_write
        from ..render import render_json
        from .report import report_to_sarif
        buf = io.StringIO()
        render_json(report_to_sarif(report), buf)
        atomic_write(sarif, buf.getvalue().encode("utf-8", "surrogateescape"))
    return report
