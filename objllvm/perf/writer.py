"""Write small ``perf.data`` files (file mode, little-endian) from Python.

For tests and examples: this machine has no LBR, so branch-stack profiles are built here, and ``perf script``
itself reads the result (the tests check that), which makes the writer an independent check of the reader.
Only what objllvm reads is supported: one or more events, MMAP/MMAP2/COMM/FORK/SAMPLE records (with IP, TID,
TIME, ADDR, ID, STREAM_ID, CPU, PERIOD, BRANCH_STACK, IDENTIFIER), arbitrary raw records, and the
HEADER_BUILD_ID feature.
"""
from __future__ import annotations

import struct

PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK = 1, 0
_ST = {"IP": 0, "TID": 1, "TIME": 2, "ADDR": 3, "ID": 6, "CPU": 7, "PERIOD": 8, "STREAM_ID": 9,
       "BRANCH_STACK": 11, "IDENTIFIER": 16}


def sample_type_bits(*names: str) -> int:
    v = 0
    for n in names:
        v |= 1 << _ST[n]
    return v


def _pad8(b: bytes) -> bytes:
    return b + b"\0" * (-len(b) % 8)


class PerfDataWriter:
    ATTR_SIZE = 128   # PERF_ATTR_SIZE_VER7

    def __init__(self, sample_type: int | None = None, *, sample_id_all: bool = True, branch_sample_type: int = 0,
                 events: int = 1, freq: int = 4000):
        if sample_type is None:
            sample_type = sample_type_bits("IP", "TID", "TIME", "PERIOD")
        self.events = []
        for i in range(events):
            self.add_event(sample_type, sample_id_all=sample_id_all, branch_sample_type=branch_sample_type,
                           freq=freq, ids=[1000 + i])
        self.records = []
        self.build_ids = []

    def add_event(self, sample_type, *, sample_id_all=True, branch_sample_type=0, freq=4000, ids=()):
        self.events.append(dict(sample_type=sample_type, sample_id_all=sample_id_all,
                                branch_sample_type=branch_sample_type, freq=freq, ids=list(ids)))
        return len(self.events) - 1

    # -- records ----------------------------------------------------------------------------------------
    def _trailer(self, ev: int = 0, pid=0, tid=0, time=0, cpu=0) -> bytes:
        e = self.events[ev]
        if not e["sample_id_all"]:
            return b""
        st = e["sample_type"]
        ident = e["ids"][0] if e["ids"] else 0
        out = b""
        if st & 1 << 1:
            out += struct.pack("<ii", pid, tid)
        if st & 1 << 2:
            out += struct.pack("<Q", time)
        if st & 1 << 6:
            out += struct.pack("<Q", ident)
        if st & 1 << 9:
            out += struct.pack("<Q", ident)
        if st & 1 << 7:
            out += struct.pack("<II", cpu, 0)
        if st & 1 << 16:
            out += struct.pack("<Q", ident)
        return out

    def raw(self, typ: int, payload: bytes, misc: int = 0):
        body = payload
        self.records.append(struct.pack("<IHH", typ, misc, 8 + len(body)) + body)

    def mmap(self, pid, tid, start, length, pgoff, filename, *, data=False, time=0):
        body = struct.pack("<iiQQQ", pid, tid, start, length, pgoff) + _pad8(filename.encode() + b"\0")
        self.raw(1, body + self._trailer(0, pid, tid, time), misc=2 | ((1 << 13) if data else 0))

    def mmap2(self, pid, tid, start, length, pgoff, filename, *, build_id: bytes | None = None, prot=5,
              flags=2, time=0):
        if build_id is not None:
            mid = struct.pack("<BBH", len(build_id), 0, 0) + build_id.ljust(20, b"\0")
            misc = 2 | (1 << 14)
        else:
            mid = struct.pack("<IIQQ", 0xFE, 0, 1234, 0)
            misc = 2
        body = struct.pack("<iiQQQ", pid, tid, start, length, pgoff) + mid + struct.pack("<II", prot, flags)
        body += _pad8(filename.encode() + b"\0")
        self.raw(10, body + self._trailer(0, pid, tid, time), misc=misc)

    def comm(self, pid, tid, comm, *, exec=False, time=0):
        body = struct.pack("<ii", pid, tid) + _pad8(comm.encode() + b"\0")
        self.raw(3, body + self._trailer(0, pid, tid, time), misc=(1 << 13) if exec else 0)

    def fork(self, pid, ppid, tid, ptid, time=0):
        self.raw(7, struct.pack("<iiiiQ", pid, ppid, tid, ptid, time) + self._trailer(0, pid, tid, time))

    def sample(self, ip, pid=1, tid=None, *, time=0, addr=0, cpu=0, period=1, branches=None, event=0,
               stream_id=None, user=True):
        e = self.events[event]
        st = e["sample_type"]
        ident = e["ids"][0] if e["ids"] else 0
        tid = pid if tid is None else tid
        out = b""
        if st & 1 << 16:
            out += struct.pack("<Q", ident)
        if st & 1 << 0:
            out += struct.pack("<Q", ip)
        if st & 1 << 1:
            out += struct.pack("<ii", pid, tid)
        if st & 1 << 2:
            out += struct.pack("<Q", time)
        if st & 1 << 3:
            out += struct.pack("<Q", addr)
        if st & 1 << 6:
            out += struct.pack("<Q", ident)
        if st & 1 << 9:
            out += struct.pack("<Q", ident if stream_id is None else stream_id)
        if st & 1 << 7:
            out += struct.pack("<II", cpu, 0)
        if st & 1 << 8:
            out += struct.pack("<Q", period)
        if st & 1 << 11:
            br = branches or []
            out += struct.pack("<Q", len(br))
            if e["branch_sample_type"] & (1 << 17):
                out += struct.pack("<Q", 0xFFFFFFFFFFFFFFFF)
            for b in br:
                frm, to = b[0], b[1]
                fl = b[2] if len(b) > 2 else 0
                out += struct.pack("<QQQ", frm, to, fl)
        self.raw(9, out, misc=2 if user else 1)

    def build_id(self, pid: int, build_id: bytes, filename: str):
        self.build_ids.append((pid, build_id, filename))

    # -- file -------------------------------------------------------------------------------------------
    def _attr(self, e) -> bytes:
        flags = (1 << 0) | (1 << 1) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 12)   # disabled inherit mmap comm
        if e["sample_id_all"]:                                                      # freq enable_on_exec
            flags |= 1 << 18
        flags |= 1 << 23   # mmap2
        a = struct.pack("<IIQQQQQ", PERF_TYPE_SOFTWARE, self.ATTR_SIZE, PERF_COUNT_SW_CPU_CLOCK, e["freq"],
                        e["sample_type"], 0, flags)
        a += struct.pack("<IIQQQ", 0, 0, 0, 0, e["branch_sample_type"])
        return a.ljust(self.ATTR_SIZE, b"\0")

    def to_bytes(self) -> bytes:
        hdr_size = 104
        nev = len(self.events)
        attr_entry = self.ATTR_SIZE + 16
        ids_off = hdr_size
        ids_blob = b"".join(struct.pack(f"<{len(e['ids'])}Q", *e["ids"]) for e in self.events)
        attrs_off = ids_off + len(ids_blob)
        attrs = b""
        pos = ids_off
        for e in self.events:
            attrs += self._attr(e) + struct.pack("<QQ", pos, 8 * len(e["ids"]))
            pos += 8 * len(e["ids"])
        data_off = attrs_off + len(attrs)
        data = b"".join(self.records)
        features = 0
        feat_table = b""
        feat_data = b""
        if self.build_ids:
            features |= 1 << 2
            for pid, bid, name in self.build_ids:
                body = struct.pack("<i", pid) + bid.ljust(20, b"\0") + struct.pack("<BBH", len(bid), 0, 0)
                body += _pad8(name.encode() + b"\0")
                feat_data += struct.pack("<IHH", 67, (1 << 15) | 2, 8 + len(body)) + body
            feat_off = data_off + len(data) + 16
            feat_table = struct.pack("<QQ", feat_off, len(feat_data))
        header = b"PERFILE2" + struct.pack("<QQ", hdr_size, attr_entry)
        header += struct.pack("<QQQQQQ", attrs_off, len(attrs), data_off, len(data), 0, 0)
        header += struct.pack("<4Q", features, 0, 0, 0)
        assert len(header) == hdr_size and nev >= 1
        return header + ids_blob + attrs + data + feat_table + feat_data
