"""Counting runs of fixed-size ``perf.data`` samples at C speed (the fast path of
:func:`objllvm.perf.perfdata.collect_perfdata`)."""
from __future__ import annotations

import struct
import sys
from collections import Counter

from .perfrecords import (SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_ADDR, SAMPLE_READ, SAMPLE_CALLCHAIN, SAMPLE_ID, SAMPLE_CPU, SAMPLE_PERIOD, SAMPLE_STREAM_ID, SAMPLE_RAW, SAMPLE_BRANCH_STACK, SAMPLE_IDENTIFIER, READ_GROUP)


class _SampleRuns:
    """Count runs of fixed-size samples at C speed.

    ``Counter(struct.iter_unpack(...))`` counts the distinct ``(type, misc, size, ip, pid)`` tuples of a run of
    records read at a fixed stride (the other fields are padding in the format, so time and period do not make
    every tuple unique).  The run is valid when every tuple is a SAMPLE header of the expected size: then each
    record's header says the next one starts one stride later, so the stride walk is the real record chain.
    Otherwise the valid prefix is found, counted, and the run length halves (it doubles again on success).
    """

    MAX = 4096

    def __init__(self, pd, lay, counts):
        self.size = -1
        self.pd, self.counts = pd, counts
        self.samples = 0
        ip_off, tid_off = lay.ip_off, lay.tid_off
        if ip_off is None or tid_off is None or lay.st & (SAMPLE_CALLCHAIN | SAMPLE_RAW
                                                         | SAMPLE_BRANCH_STACK | (1 << 12) | (1 << 13)):
            return
        if lay.st & SAMPLE_READ and lay.attr.read_format & READ_GROUP:
            return
        size = self._fixed_size(lay)
        if size < 0:
            return
        fmt = pd.endian + "IHH" + (f"{ip_off - 8}x" if ip_off > 8 else "") + "Q"
        fmt += (f"{tid_off - ip_off - 8}x" if tid_off > ip_off + 8 else "") + "i"
        rest = size - tid_off - 4
        fmt += f"{rest}x" if rest else ""
        self.st = struct.Struct(fmt)
        assert self.st.size == size
        self.size = size
        self.n = 64
        self.native = (pd.endian == "<") == (sys.byteorder == "little") and size % 8 == 0 and ip_off % 8 == 0 \
            and tid_off % 8 == 0
        self.ip_col, self.pid_col = ip_off // 8, tid_off // 4
        head = struct.pack("=IHH", 9, 0, size)
        self.head_bytes = [head[j:j + 1] for j in range(8)]

    @staticmethod
    def _fixed_size(lay) -> int:
        st, n = lay.st, 8
        for bit in (SAMPLE_IDENTIFIER, SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_ADDR,
                    SAMPLE_ID, SAMPLE_STREAM_ID, SAMPLE_CPU, SAMPLE_PERIOD):
            if st & bit:
                n += 8
        if st & SAMPLE_READ:
            n += lay.read_single
        known = (SAMPLE_IDENTIFIER | SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_ADDR
                 | SAMPLE_ID | SAMPLE_STREAM_ID | SAMPLE_CPU | SAMPLE_PERIOD | SAMPLE_READ)
        return n if not st & ~known else -1      # later fields (weight, data_src, ...): no fixed size known

    def __call__(self, off: int, end: int) -> int:
        if self.native:
            return self._columns(off, end)
        return self._tuples(off, end)

    def _columns(self, off: int, end: int) -> int:
        """Native byte order: check the run's headers with strided byte slices (no Python object per record),
        then count the IP column through a memoryview cast."""
        size = self.size
        n = min(self.n, (end - off) // size)
        if n <= 0:
            return 0
        chunk = self.pd.buf[off:off + n * size]          # a copy: no export of the mmap outlives this call
        if not all(chunk[j::size] == self.head_bytes[j] * n for j in (0, 1, 2, 3, 6, 7)):
            good = 0
            for h in memoryview(chunk).cast("Q")[0::size // 8]:
                if h & 0xFFFFFFFF != 9 or h >> 48 != size:
                    break
                good += 1
            self.n = max(self.n // 2, 16)
            if not good:
                return 0
            n = good
            chunk = chunk[:n * size]
        else:
            self.n = min(self.n * 2, self.MAX)
        q = memoryview(chunk).cast("Q")
        ips = q[self.ip_col::size // 8]
        p = self.pid_col * 4
        counts = self.counts
        if all(chunk[p + j::size] == chunk[p + j:p + j + 1] * n for j in range(4)):
            pid = struct.unpack_from("=i", chunk, p)[0]
            for ip, k in Counter(ips).items():
                key = (pid, ip)
                counts[key] = counts.get(key, 0) + k
        else:
            pids = memoryview(chunk).cast("i")[self.pid_col::size // 4]
            for key, k in Counter(zip(pids, ips)).items():
                counts[key] = counts.get(key, 0) + k
        self.samples += n
        return n

    def _tuples(self, off: int, end: int) -> int:
        size, buf = self.size, self.pd.buf
        n = min(self.n, (end - off) // size)
        if n <= 0:
            return 0
        c = Counter(self.st.iter_unpack(buf[off:off + n * size]))
        if not all(k[0] == 9 and k[2] == size for k in c):
            good = 0
            for t in self.st.iter_unpack(buf[off:off + n * size]):
                if t[0] != 9 or t[2] != size:
                    break
                good += 1
            self.n = max(self.n // 2, 16)
            if not good:
                return 0
            n = good
            c = Counter(self.st.iter_unpack(buf[off:off + n * size]))
        else:
            self.n = min(self.n * 2, self.MAX)
        counts = self.counts
        for (_t, _m, _s, ip, pid), k in c.items():
            key = (pid, ip)
            counts[key] = counts.get(key, 0) + k
        self.samples += n
        return n
