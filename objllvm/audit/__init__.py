"""Build audit: every request objects make of the linker, checked against a policy.

    >>> from objllvm.audit import audit, load_policy
    >>> report = audit(["build/"], policy=load_policy("audit.toml"))
    >>> for f in report.findings:
    ...     print(f.severity, f.rule, f.location, f.message)
    >>> report.exit_status("error")          # 1 when a finding is at least an error

Requests come from ELF ``.linker-options`` and ``.deplibs``, COFF ``.drectve``, Mach-O
``LC_LINKER_OPTION``; embedded bitcode, compiler command lines, profile instrumentation / coverage mapping and
sanitizer sections are findings of their own.  Files are
scanned in worker processes, a bounded number of chunks at a time, and the results are folded into the
report as they arrive: memory grows with the number of requests found, not with the bytes scanned.
"""
from __future__ import annotations

import os
from collections import deque

from .._model import dataclass, field
from .policy import Policy, default_policy, load_policy, parse_policy, severity_rank  # noqa: F401
from .scan import (BITCODE, CMDLINE, IGNORED, INSTRUMENTATION, LIBPATH, LIBRARY, OPTION, SANITIZER,  # noqa
                   UNREADABLE, library_name, scan_chunk, walk)

RULES = {
    "library-denied": "A library the policy denies is requested",
    "library-not-allowed": "A library outside the policy's allow list is requested",
    "libpath-outside-roots": "A library search path lies outside the allowed roots",
    "option-denied": "A linker option the policy forbids is requested",
    "embedded-bitcode": "Embedded LLVM bitcode ships the program's IR (and source paths) in the artifact",
    "embedded-cmdline": "An embedded compiler command line ships flags and paths in the artifact",
    "embedded-instrumentation": "Profile instrumentation or coverage mapping (-fprofile-instr-generate, "
                                "-fcoverage-mapping, -C instrument-coverage) is built into the artifact",
    "embedded-sanitizer": "Sanitizer instrumentation (AddressSanitizer global descriptors, SanitizerCoverage "
                          "tables: -fsanitize=address, -fsanitize-coverage) is built into the artifact",
    "unreadable": "A file, archive member or section could not be read",
    "mistyped-section": "A section named as linker requests has another type: linkers ignore it",
}


@dataclass
class Request:
    kind: str            # library / libpath / option / bitcode / cmdline / unreadable
    file: str
    member: str | None
    section: str | None
    key: str
    value: str
    library: str | None = None
    size: int = 0
    format: str = ""

    @property
    def location(self) -> str:
        loc = f"{self.file}({self.member})" if self.member else self.file
        return f"{loc} [{self.section}]" if self.section else loc

    def to_dict(self) -> dict:
        d = {"kind": self.kind, "file": self.file, "member": self.member, "section": self.section,
             "key": self.key, "value": self.value, "format": self.format}
        if self.kind == LIBRARY:
            d["library"] = self.library
        if self.kind in (BITCODE, CMDLINE, INSTRUMENTATION):
            d["size"] = self.size
        return d


@dataclass
class Finding:
    rule: str
    severity: str        # error / warning / note
    message: str
    request: Request

    @property
    def location(self) -> str:
        return self.request.location

    def to_dict(self) -> dict:
        r = self.request
        return {"rule": self.rule, "severity": self.severity, "message": self.message, "kind": r.kind,
                "file": r.file, "member": r.member, "section": r.section, "value": r.value}


@dataclass
class LibraryUse:
    library: str
    requested_as: set = field(default_factory=set)
    objects: set = field(default_factory=set)      # object labels asking for it
    requests: list = field(default_factory=list)


@dataclass
class AuditReport:
    policy: Policy
    files: int = 0           # files looked at
    skipped: int = 0         # not objects (by their first bytes)
    objects: int = 0         # objects read (files and archive members)
    requests: list = field(default_factory=list)
    findings: list = field(default_factory=list)
    libraries: dict = field(default_factory=dict)   # name -> LibraryUse

    def add(self, req: Request) -> None:
        if req.kind == IGNORED and self.policy.mistyped_count and ":" in req.key:
            kind, key = req.key.split(":", 1)        # the policy counts them as what they would be
            req = Request(kind, req.file, req.member, req.section, key, req.value, req.library, req.size,
                          req.format)
        self.requests.append(req)
        if req.kind == LIBRARY:
            use = self.libraries.get(req.library)
            if use is None:
                use = self.libraries[req.library] = LibraryUse(req.library)
            use.requested_as.add(req.value)
            use.objects.add(f"{req.file}({req.member})" if req.member else req.file)
            use.requests.append(req)
        for rule, message in self._verdicts(req):
            sev = self.policy.severity_of(rule)
            if sev is not None:
                self.findings.append(Finding(rule, sev, message, req))

    def _verdicts(self, req: Request):
        p = self.policy
        if req.kind == LIBRARY:
            v = p.library_verdict(req.library, req.value, req.format == "coff")
        elif req.kind == LIBPATH:
            v = p.libpath_verdict(req.value)
        elif req.kind == OPTION:
            v = p.option_verdict(req.key)
        elif req.kind == BITCODE:
            v = ("embedded-bitcode", f"embedded bitcode ({req.size} bytes) in {req.section}")
        elif req.kind == INSTRUMENTATION:
            v = ("embedded-instrumentation", f"profile instrumentation / coverage mapping: {req.size} bytes "
                                             f"({req.value})")
        elif req.kind == SANITIZER:
            v = ("embedded-sanitizer", f"sanitizer instrumentation: {req.size} bytes ({req.value})")
        elif req.kind == CMDLINE:
            v = ("embedded-cmdline", f"embedded compiler command line in {req.section}: {_shorten(req.value)}")
        elif req.kind == IGNORED:
            what = f" '{req.value}'" if req.value else ""
            v = ("mistyped-section", f"{req.section}: its section type contradicts its name, so linkers ignore "
                 f"it: request{what} not counted ([mistyped] count = true counts it)")
        else:
            v = ("unreadable", req.value)
        return [v] if v else []

    def counts(self) -> dict:
        c = {"error": 0, "warning": 0, "note": 0}
        for f in self.findings:
            c[f.severity] += 1
        return c

    def exit_status(self, fail_on: str = "error") -> int:
        """1 when any finding's severity reaches ``fail_on`` ('error', 'warning', 'note'; 'never': 0)."""
        if fail_on == "never":
            return 0
        limit = severity_rank(fail_on)
        return 1 if any(severity_rank(f.severity) >= limit for f in self.findings) else 0

    def to_dict(self) -> dict:
        from .report import report_to_dict
        return report_to_dict(self)

    def to_sarif(self) -> dict:
        from .report import report_to_sarif
        return report_to_sarif(self)


def _shorten(s: str, n: int = 72) -> str:
    return s if len(s) <= n else s[:n - 3] + "..."


SERIAL_SECONDS = 0.5       # audit(): the CPU time scanned in-process, with workers, until they are started


def audit(paths, policy: Policy | None = None, jobs: int | None = None, progress=None,
          chunk_size: int = 64, serial_for: float | None = None) -> AuditReport:
    """Audit the files and directories in ``paths``.  ``jobs``: worker processes (default: CPUs; 1 = in
    this process).  With workers, the files are first scanned in this process, until that has taken
    ``serial_for`` seconds of CPU time (default SERIAL_SECONDS), and the rest by the workers: a tree that takes
    less costs no worker start-up.  ``progress(report)`` is called as results arrive."""
    policy = policy or default_policy()
    report = AuditReport(policy)

    def walk_error(path, reason):
        report.add(Request(UNREADABLE, path, None, None, "", reason))

    files = walk(paths, on_error=walk_error)
    jobs = jobs or os.cpu_count() or 1
    if jobs > 1:
        import time
        until = time.process_time() + (SERIAL_SECONDS if serial_for is None else serial_for)
        files = iter(files)
        for path in files:
            _fold(report, [scan_chunk([path])], progress)
            if time.process_time() >= until:
                break
        else:
            return report
    chunks = _chunks(files, chunk_size)
    if jobs <= 1:
        _fold(report, map(scan_chunk, chunks), progress)
        return report
    from concurrent.futures import ProcessPoolExecutor
    import multiprocessing
    ctx = multiprocessing.get_context("fork") if hasattr(os, "fork") else None
    ex = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_worker_init)
    try:
        _fold(report, _bounded_map(ex, chunks, 4 * jobs), progress)
    except BaseException:
        # interrupted (KeyboardInterrupt) or failed: do not wait for the chunks in flight, stop the workers
        _stop(ex)
        raise
    ex.shutdown(wait=True)
    return report


def _worker_init():
    """Workers leave SIGINT to the parent (a terminal's Ctrl-C reaches the whole group): the parent stops
    them, so an interrupt prints one line, not a traceback per worker."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _stop(ex) -> None:
    """Cancel what has not started and end the workers now (an interrupted audit stops within a second)."""
    procs = list((getattr(ex, "_processes", None) or {}).values())
    ex.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        try:
            p.terminate()
        except Exception:       # noqa: BLE001  (already gone)
            pass
    for p in procs:
        p.join(1)


def _chunks(it, n):
    buf = []
    for x in it:
        buf.append(x)
        if len(buf) >= n:
            yield buf
            buf = []
    if buf:
        yield buf


def _bounded_map(ex, chunks, window):
    """Results of scan_chunk over ``chunks`` in order, with at most ``window`` chunks in flight."""
    pending = deque()
    for c in chunks:
        pending.append(ex.submit(scan_chunk, c))
        if len(pending) >= window:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


def _fold(report, results, progress):
    for chunk in results:
        for path, status, nobj, reqs in chunk:
            report.files += 1
            if status == "skipped":
                report.skipped += 1
            report.objects += nobj
            for r in reqs:
                report.add(Request(*r))
        if progress:
            progress(report)
