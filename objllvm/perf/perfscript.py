"""Read the text of ``perf script`` for users who only have text, not the perf.data file.

Expected: ``perf script -F comm,pid,ip --show-mmap-events`` (``tid``, ``time``, ``cpu``, ``event``, ``sym``, ``dso``
and ``brstack`` fields may be added; ``--show-task-events`` adds the COMM exec and FORK lines that keep the
mappings of forked and exec'ed processes right).  Lines are read one at a time; samples are aggregated per unique
``(pid, ip)`` like :func:`objllvm.perf.mapping.collect_perfdata` does.
"""
from __future__ import annotations

import os
import re

from ..errors import DecodeError, ObjllvmError
from .perfrecords import Mmap
from .raw import RawProfile

_HEAD = re.compile(r"^\s*(?:(?P<comm>.*?)\s+)?(?P<pid>-?\d+)(?:/(?P<tid>-?\d+))?\s+(?:\[\d+\]\s+)?(?P<rest>.*)$")
_MMAP = re.compile(r"PERF_RECORD_(?P<rec>MMAP2?) (?P<pid>-?\d+)/(?P<tid>-?\d+): \[(?P<start>0x[0-9a-fA-F]+)"
                   r"\((?P<len>0x[0-9a-fA-F]+)\) @ (?P<pgoff>0x[0-9a-fA-F]+|\d+)(?P<extra>[^\]]*)\]: "
                   r"(?P<prot>\S+) (?P<file>.*)$")
_BUILD_ID = re.compile(r"<([0-9a-fA-F]+)>")
_COMM_EXEC = re.compile(r"PERF_RECORD_COMM exec: .*:(?P<pid>-?\d+)/(?P<tid>-?\d+)\s*$")
_FORK = re.compile(r"PERF_RECORD_FORK\((?P<pid>-?\d+):(?P<tid>-?\d+)\):\((?P<ppid>-?\d+):(?P<ptid>-?\d+)\)")
_HEX = re.compile(r"^[0-9a-fA-F]+$")
_BR = re.compile(r"^(0x[0-9a-fA-F]+)/(0x[0-9a-fA-F]+)/")

EXPECTED = "expected the output of `perf script -F comm,pid,ip --show-mmap-events`"


def collect_perfscript(path: str, *, with_branches: bool = True):
    """Aggregate the samples and mappings in ``perf script`` text (a file name, or '-' for standard input)."""
    import sys
    raw = RawProfile(source=os.fspath(path))
    counts, taken, ranges = raw.ip_counts, raw.taken, raw.ranges
    nsamples = nbranch = 0
    bad = 0
    first_bad = None
    offset = 0
    try:
        f = sys.stdin.buffer if path == "-" else open(path, "rb")
    except OSError as exc:
        raise ObjllvmError(f"cannot read: {exc.strerror}", file=path) from None
    records = {}
    try:
        for lineno, bline in enumerate(f, 1):
            line_offset = offset
            offset += len(bline)
            line = bline.decode("utf-8", "surrogateescape").rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if "PERF_RECORD_" in line:
                m = _MMAP.search(line)
                if m:
                    prot = m["prot"]
                    bid = _BUILD_ID.search(m["extra"])
                    build_id = bytes.fromhex(bid[1]) if bid and len(bid[1]) % 2 == 0 else None
                    mm = Mmap(int(m["pid"]), int(m["tid"]), int(m["start"], 16), int(m["len"], 16),
                              int(m["pgoff"], 16 if m["pgoff"].startswith("0x") else 10), m["file"], build_id,
                              None, m["rec"])
                    records[m["rec"]] = records.get(m["rec"], 0) + 1
                    if "x" in prot:
                        raw.add_mmap(mm)
                    continue
                m = _COMM_EXEC.search(line)
                if m:
                    records["COMM"] = records.get("COMM", 0) + 1
                    raw.exec_(int(m["pid"]))
                    continue
                m = _FORK.search(line)
                if m:
                    records["FORK"] = records.get("FORK", 0) + 1
                    pid, ppid = int(m["pid"]), int(m["ppid"])
                    if pid != ppid and pid not in raw.mmaps:
                        raw.parents[pid] = ppid
                    continue
                records["other"] = records.get("other", 0) + 1
                continue
            h = _HEAD.match(line)
            ip = None
            branches = []
            if h:
                for tok in h["rest"].split():
                    if ip is None:
                        if tok.endswith(":"):
                            continue          # time, event name
                        if _HEX.match(tok):
                            ip = int(tok, 16)
                            continue
                        break
                    b = _BR.match(tok)
                    if b:
                        branches.append((int(b[1], 16), int(b[2], 16)))
            if ip is None:
                bad += 1
                if first_bad is None:
                    first_bad = (lineno, line_offset, line.strip()[:80])
                continue
            pid = int(h["pid"])
            nsamples += 1
            key = (pid, ip)
            counts[key] = counts.get(key, 0) + 1
            if with_branches and branches:
                nbranch += 1
                for i, (frm, to) in enumerate(branches):
                    k = (pid, frm, to)
                    taken[k] = taken.get(k, 0) + 1
                    if i + 1 < len(branches):
                        r = (pid, branches[i + 1][1], frm)
                        ranges[r] = ranges.get(r, 0) + 1
    finally:
        if f is not sys.stdin.buffer:
            f.close()
    records["SAMPLE"] = nsamples
    raw.records = records
    raw.samples = nsamples
    raw.branch_samples = nbranch
    if nsamples == 0 and bad:
        lineno, off, text = first_bad
        raise DecodeError(f"line {lineno}: cannot read a sample from {text!r}: {EXPECTED}", file=path, offset=off)
    if nsamples and not raw.mmaps:
        raise DecodeError(f"no PERF_RECORD_MMAP/MMAP2 lines: {EXPECTED} (add --show-mmap-events)", file=path,
                          offset=0)
    if bad:
        lineno, off, text = first_bad
        raw.warnings.append(f"{path}: skipped {bad} lines that hold no sample (first: line {lineno}, {text!r})")
    return raw
