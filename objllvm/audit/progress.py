"""A one-line progress display for terminals (the audit command uses it only when stderr is a terminal)."""
from __future__ import annotations

import time


class Progress:
    def __init__(self, stream, interval: float = 0.1):
        self.stream = stream
        self.interval = interval
        self.last = 0.0
        self.shown = False

    def __call__(self, report) -> None:
        now = time.monotonic()
        if now - self.last < self.interval:
            return
        self.last = now
        c = report.counts()
        self.stream.write(f"\r\x1b[Kaudit: {report.files} files, {report.objects} objects, "
                          f"{c['error']} errors, {c['warning']} warnings")
        self.stream.flush()
        self.shown = True

    def done(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
