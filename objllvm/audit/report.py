"""Views of an :class:`~objllvm.audit.AuditReport`: render items (text), the JSON document, SARIF 2.1.0."""
from __future__ import annotations

import os

from .._version import __version__
from ..render import Heading, Table, Text

JSON_SCHEMA = "objllvm-audit"
JSON_VERSION = 1
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SHOW = 3      # requesters named per library in the text table


def _label(r) -> str:
    return f"{r.file}({r.member})" if r.member else r.file


def library_rows(report) -> list:
    """One row per library: name, how it was requested, objects asking, who, worst finding."""
    worst = {}
    for f in report.findings:
        if f.request.kind == "library":
            cur = worst.get(f.request.library)
            if cur is None or _rank(f.severity) > _rank(cur[0]):
                worst[f.request.library] = (f.severity, f.rule)
    rows = []
    for name in sorted(report.libraries, key=lambda n: (n.lower(), n)):
        use = report.libraries[name]
        objs = sorted(use.objects)
        who = ", ".join(objs[:_SHOW]) + (f" (+{len(objs) - _SHOW} more)" if len(objs) > _SHOW else "")
        w = worst.get(name)
        rows.append([name, ", ".join(sorted(use.requested_as)), len(objs), who, f"{w[0]}: {w[1]}" if w else ""])
    return rows


def _rank(sev):
    return {"note": 1, "warning": 2, "error": 3}.get(sev, 0)


def report_to_text(report) -> list:
    items = [Heading("Libraries requested"),
             Table(["library", "requested as", "objects", "requested by", "finding"], library_rows(report))]
    others = [r for r in report.requests if r.kind in ("libpath", "option")]
    if others:
        items.append(Heading("Search paths and other options"))
        items.append(Table(["kind", "option", "value", "requested by"],
                           [[r.kind, r.key, r.value, _label(r)] for r in others]))
    emb = [r for r in report.requests if r.kind in ("bitcode", "cmdline", "instrumentation", "sanitizer")]
    if emb:
        items.append(Heading("Embedded bitcode, command lines and instrumentation"))
        items.append(Table(["kind", "section", "bytes", "object"],
                           [[r.kind, r.section, r.size, _label(r)] for r in emb]))
    items.append(Heading("Findings"))
    order = sorted(report.findings, key=lambda f: (-_rank(f.severity), f.rule, f.request.file,
                                                   f.request.member or ""))
    items.append(Table(["severity", "rule", "where", "message"],
                       [[f.severity, f.rule, f.location, f.message] for f in order]))
    c = report.counts()
    items.append(Text(f"\n{report.files} files ({report.skipped} skipped: not objects), {report.objects} objects, "
                      f"{len(report.requests)} requests; findings: {c['error']} errors, {c['warning']} warnings, "
                      f"{c['note']} notes (policy: {report.policy.source})"))
    return items


def report_to_dict(report) -> dict:
    libs = []
    for name in sorted(report.libraries, key=lambda n: (n.lower(), n)):
        use = report.libraries[name]
        libs.append({"library": name, "requested_as": sorted(use.requested_as), "objects": len(use.objects),
                     "requested_by": [{"file": r.file, "member": r.member, "section": r.section, "key": r.key,
                                       "value": r.value} for r in use.requests]})
    return {"schema": JSON_SCHEMA, "version": JSON_VERSION,
            "summary": {"files": report.files, "skipped": report.skipped, "objects": report.objects,
                        "requests": len(report.requests), "findings": report.counts()},
            "policy": {"source": report.policy.source, **report.policy.to_dict()},
            "libraries": libs,
            "requests": [r.to_dict() for r in report.requests],
            "findings": [f.to_dict() for f in report.findings]}


def artifact_uri(path: str) -> str:
    """A relative URI for paths under the current directory (as code-scanning tools expect), else file://."""
    from urllib.parse import quote          # (here: only SARIF output needs it)
    ap = os.path.abspath(path)
    cwd = os.getcwd()
    if ap == cwd or ap.startswith(cwd.rstrip(os.sep) + os.sep):
        return quote(os.path.relpath(ap, cwd).replace(os.sep, "/"))
    return "file://" + quote(ap.replace(os.sep, "/"))


def report_to_sarif(report) -> dict:
    from . import RULES
    rule_ids = list(RULES)
    rules = []
    for rid in rule_ids:
        sev = report.policy.severity_of(rid)
        rules.append({"id": rid, "name": "".join(w.capitalize() for w in rid.split("-")),
                      "shortDescription": {"text": RULES[rid]},
                      "defaultConfiguration": {"level": sev or "none", "enabled": sev is not None}})
    results = []
    for f in report.findings:
        r = f.request
        loc = {"physicalLocation": {"artifactLocation": {"uri": artifact_uri(r.file)}}}
        logical = []
        if r.member:
            logical.append({"name": r.member, "fullyQualifiedName": f"{r.file}({r.member})", "kind": "module"})
        if r.section:
            logical.append({"name": r.section, "fullyQualifiedName": f"{_label(r)}[{r.section}]",
                            "kind": "resource"})
        if logical:
            loc["logicalLocations"] = logical
        props = {"kind": r.kind, "value": r.value}
        if r.member:
            props["member"] = r.member
        if r.section:
            props["section"] = r.section
        results.append({"ruleId": f.rule, "ruleIndex": rule_ids.index(f.rule), "level": f.severity,
                        "message": {"text": f"{f.message} ({_label(r)})"}, "locations": [loc],
                        "partialFingerprints": {"objllvmRequest/v1": _fingerprint(f)},
                        "properties": props})
    return {"version": "2.1.0", "$schema": SARIF_SCHEMA,
            "runs": [{"tool": {"driver": {"name": "objllvm-audit", "version": __version__,
                                          "rules": rules}},
                      "results": results,
                      "columnKind": "unicodeCodePoints"}]}


def _fingerprint(f) -> str:
    import hashlib
    r = f.request
    h = hashlib.sha256("\0".join([f.rule, r.file, r.member or "", r.section or "", r.key, r.value]).encode(
        "utf-8", "surrogateescape"))
    return h.hexdigest()[:32]
