"""The record and attribute layouts of Linux ``perf.data`` files: the constants of
include/uapi/linux/perf_event.h and tools/perf/Documentation/perf.data-file-format.txt that objllvm reads, the
decoded record types, and where the fields of one event's samples live."""
from __future__ import annotations

from .._model import dataclass, field

MAGIC = b"PERFILE2"

# perf_event_header.type
RECORD_MMAP, RECORD_LOST, RECORD_COMM, RECORD_EXIT = 1, 2, 3, 4
RECORD_THROTTLE, RECORD_UNTHROTTLE, RECORD_FORK, RECORD_READ, RECORD_SAMPLE, RECORD_MMAP2 = 5, 6, 7, 8, 9, 10
RECORD_HEADER_ATTR, RECORD_HEADER_BUILD_ID, RECORD_FINISHED_ROUND = 64, 67, 68
RECORD_AUXTRACE, RECORD_COMPRESSED, RECORD_COMPRESSED2 = 71, 81, 83
RECORD_LOST_SAMPLES = 13
RECORD_NAMES = {
    1: "MMAP", 2: "LOST", 3: "COMM", 4: "EXIT", 5: "THROTTLE", 6: "UNTHROTTLE", 7: "FORK", 8: "READ",
    9: "SAMPLE", 10: "MMAP2", 11: "AUX", 12: "ITRACE_START", 13: "LOST_SAMPLES", 14: "SWITCH",
    15: "SWITCH_CPU_WIDE", 16: "NAMESPACES", 17: "KSYMBOL", 18: "BPF_EVENT", 19: "CGROUP", 20: "TEXT_POKE",
    21: "AUX_OUTPUT_HW_ID",
    64: "HEADER_ATTR", 65: "HEADER_EVENT_TYPE", 66: "HEADER_TRACING_DATA", 67: "HEADER_BUILD_ID",
    68: "FINISHED_ROUND", 69: "ID_INDEX", 70: "AUXTRACE_INFO", 71: "AUXTRACE", 72: "AUXTRACE_ERROR",
    73: "THREAD_MAP", 74: "CPU_MAP", 75: "STAT_CONFIG", 76: "STAT", 77: "STAT_ROUND", 78: "EVENT_UPDATE",
    79: "TIME_CONV", 80: "HEADER_FEATURE", 81: "COMPRESSED", 82: "FINISHED_INIT", 83: "COMPRESSED2",
}
KNOWN_RECORD_TYPES = frozenset(RECORD_NAMES)
# Records whose content perf-map uses (the rest is read past and counted as skipped); FINISHED_ROUND and
# FINISHED_INIT are markers with no content; COMPRESSED(2) are decompressed and their records counted instead.
USED_RECORDS = frozenset({"SAMPLE", "MMAP", "MMAP2", "COMM", "FORK", "HEADER_ATTR", "HEADER_BUILD_ID", "LOST",
                          "LOST_SAMPLES", "FINISHED_ROUND", "FINISHED_INIT", "COMPRESSED", "COMPRESSED2"})


def skipped_records(stats: dict) -> dict:
    """``{record type name: count}`` of the records in ``stats`` that perf-map reads past without using."""
    return {k: v for k, v in sorted(stats.items()) if k not in USED_RECORDS and k != "other"}

# perf_event_attr.sample_type bits
SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_ADDR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
SAMPLE_READ, SAMPLE_CALLCHAIN, SAMPLE_ID, SAMPLE_CPU = 1 << 4, 1 << 5, 1 << 6, 1 << 7
SAMPLE_PERIOD, SAMPLE_STREAM_ID, SAMPLE_RAW, SAMPLE_BRANCH_STACK = 1 << 8, 1 << 9, 1 << 10, 1 << 11
SAMPLE_IDENTIFIER = 1 << 16
SAMPLE_NAMES = ["IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD", "STREAM_ID", "RAW",
                "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT", "DATA_SRC", "IDENTIFIER", "TRANSACTION",
                "REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP", "DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT"]
# read_format bits
READ_TOTAL_TIME_ENABLED, READ_TOTAL_TIME_RUNNING, READ_ID, READ_GROUP, READ_LOST = 1, 2, 4, 8, 16
# branch_sample_type bit: the branch stack carries a u64 hw_idx before the entries
BRANCH_HW_INDEX = 1 << 17
# perf_event_attr flag bits (the u64 bit field at offset 40)
ATTR_FLAG_SAMPLE_ID_ALL = 1 << 18
# perf_event_header.misc bits
MISC_CPUMODE_MASK = 7
MISC_KERNEL, MISC_USER = 1, 2
MISC_COMM_EXEC = 1 << 13
MISC_MMAP_DATA = 1 << 13
MISC_MMAP_BUILD_ID = 1 << 14
MISC_BUILD_ID_SIZE = 1 << 15
PROT_EXEC = 4

HEADER_BUILD_ID = 2       # feature bit
HEADER_EVENT_DESC = 12    # feature bit: each event's name as perf record was given it
# perf's names of the generic events (include/uapi/linux/perf_event.h: PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE)
HARDWARE_EVENTS = ("cycles", "instructions", "cache-references", "cache-misses", "branch-instructions",
                   "branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles")
SOFTWARE_EVENTS = ("cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations", "minor-faults",
                   "major-faults", "alignment-faults", "emulation-faults", "dummy", "bpf-output", "cgroup-switches")
RELEASE = 4 << 20         # give back read pages of the mapping every 4 MB
ATTR_MIN_SIZE = 64        # PERF_ATTR_SIZE_VER0
FILE_HEADER_SIZE = 104
PIPE_HEADER_SIZE = 16
STREAM_CHUNK = 1 << 20       # bytes read from a pipe at a time
MAX_DECOMPRESSED = 64 << 20   # bytes out of one COMPRESSED record (perf writes at most its mmap size, <= a few MB)


class _TooBig(Exception):
    pass


class _Sink:
    """Output of the zstd stream for one record, bounded: a corrupt record cannot make it allocate gigabytes."""

    def __init__(self, limit: int):
        self.limit = limit
        self.data = bytearray()

    def reset(self):
        self.data = bytearray()

    def write(self, b) -> int:
        if len(self.data) + len(b) > self.limit:
            raise _TooBig
        self.data += b
        return len(b)


@dataclass
class EventAttr:
    """One event's ``perf_event_attr`` (the fields objllvm needs) and the sample ids that belong to it."""
    type: int
    size: int
    config: int
    sample_type: int
    read_format: int
    flags: int
    branch_sample_type: int = 0
    ids: list = field(default_factory=list)
    desc: str | None = None          # the name in the HEADER_EVENT_DESC feature, when the file has it

    @property
    def name(self) -> str:
        """The event's name as perf shows it: the recorded description, else the generic event's name, else
        ``type:config``."""
        if self.desc:
            return self.desc
        table = HARDWARE_EVENTS if self.type == 0 else SOFTWARE_EVENTS if self.type == 1 else ()
        if self.config < len(table):
            return table[self.config]
        return f"type{self.type}:{self.config:#x}"

    @property
    def sample_id_all(self) -> bool:
        return bool(self.flags & ATTR_FLAG_SAMPLE_ID_ALL)

    @property
    def sample_type_names(self) -> list:
        return [n for i, n in enumerate(SAMPLE_NAMES) if self.sample_type >> i & 1] + \
            [f"bit{i}" for i in range(len(SAMPLE_NAMES), 64) if self.sample_type >> i & 1]

    def to_dict(self) -> dict:
        return {"name": self.name, "type": self.type, "config": self.config, "sample_type": self.sample_type_names,
                "read_format": self.read_format, "sample_id_all": self.sample_id_all,
                "branch_sample_type": self.branch_sample_type, "ids": len(self.ids)}


@dataclass
class BuildIdEntry:
    pid: int
    build_id: bytes
    filename: str


@dataclass
class Mmap:
    """An executable mapping: ``filename`` mapped at ``start`` for ``length`` bytes from file offset ``pgoff``."""
    pid: int
    tid: int
    start: int
    length: int
    pgoff: int
    filename: str
    build_id: bytes | None = None     # MMAP2 with the build-id flag
    prot: int | None = None           # MMAP2 only
    record: str = "MMAP"


@dataclass
class Sample:
    """The fields of a PERF_RECORD_SAMPLE that are present (None otherwise)."""
    ip: int | None = None
    pid: int | None = None
    tid: int | None = None
    time: int | None = None
    addr: int | None = None
    id: int | None = None
    stream_id: int | None = None
    cpu: int | None = None
    period: int | None = None
    branches: list | None = None     # [(from, to, flags)], most recent first
    misc: int = 0


class _SampleLayout:
    """Where the fields of a sample of one attribute live; built once per attribute."""

    def __init__(self, attr: EventAttr, endian: str):
        st = attr.sample_type
        self.attr = attr
        self.st = st
        self.endian = endian
        off = 8                                   # after perf_event_header
        self.identifier_off = None
        if st & SAMPLE_IDENTIFIER:
            self.identifier_off = off
            off += 8
        self.ip_off = None
        if st & SAMPLE_IP:
            self.ip_off = off
            off += 8
        self.tid_off = None
        if st & SAMPLE_TID:
            self.tid_off = off
            off += 8
        # Size of the sample_id trailer of non-sample records (sample_id_all).
        n = 0
        for bit in (SAMPLE_TID, SAMPLE_TIME, SAMPLE_ID, SAMPLE_STREAM_ID, SAMPLE_CPU, SAMPLE_IDENTIFIER):
            if st & bit:
                n += 8
        self.trailer_size = n if attr.sample_id_all else 0
        rf = attr.read_format
        self.read_single = 8 * (1 + bool(rf & READ_TOTAL_TIME_ENABLED) + bool(rf & READ_TOTAL_TIME_RUNNING)
                                + bool(rf & READ_ID) + bool(rf & READ_LOST))
        self.read_group_head = 8 * (1 + bool(rf & READ_TOTAL_TIME_ENABLED) + bool(rf & READ_TOTAL_TIME_RUNNING))
        self.read_group_entry = 8 * (1 + bool(rf & READ_ID) + bool(rf & READ_LOST))
