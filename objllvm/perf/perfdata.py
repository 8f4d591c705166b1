"""Read Linux ``perf.data`` files directly (no ``perf`` binary needed).

The layout is the one documented in the Linux sources
(tools/perf/Documentation/perf.data-file-format.txt and include/uapi/linux/perf_event.h):

* a file header (``PERFILE2`` magic, header size, attribute entry size, the attribute, data and event-type
  sections, and a 256-bit feature bitmap), or the 16-byte header of "pipe mode" files;
* the event attributes (``perf_event_attr`` + the section of sample ids that belong to it);
* the data section: records, each ``{u32 type, u16 misc, u16 size}`` + payload;
* after the data section, one ``{u64 offset, u64 size}`` per feature bit set (``HEADER_BUILD_ID`` is bit 2).

Records are read with ``struct.unpack_from`` over an ``mmap`` of the file, one at a time: memory does not grow with
the number of records.  Every count read from the file is checked against the bytes that hold it before anything is
allocated or sliced by it.  Unknown record types are skipped and counted.
"""
from __future__ import annotations

import mmap
import os
import struct
import sys

from ..errors import DecodeError, ObjllvmError
from .raw import RawProfile
from .perfrecords import (  # noqa: F401  (re-exported: the names of the perf.data format)
    MAGIC, RECORD_MMAP, RECORD_LOST, RECORD_COMM, RECORD_FORK, RECORD_SAMPLE, RECORD_MMAP2, RECORD_HEADER_ATTR,
    RECORD_HEADER_BUILD_ID, RECORD_AUXTRACE, RECORD_COMPRESSED, RECORD_COMPRESSED2, RECORD_LOST_SAMPLES,
    RECORD_NAMES, KNOWN_RECORD_TYPES, SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_ADDR, SAMPLE_READ,
    SAMPLE_CALLCHAIN, SAMPLE_ID, SAMPLE_CPU, SAMPLE_PERIOD, SAMPLE_STREAM_ID, SAMPLE_RAW, SAMPLE_BRANCH_STACK,
    SAMPLE_IDENTIFIER, READ_GROUP, BRANCH_HW_INDEX, ATTR_FLAG_SAMPLE_ID_ALL, MISC_COMM_EXEC, MISC_MMAP_DATA,
    MISC_MMAP_BUILD_ID, MISC_BUILD_ID_SIZE, PROT_EXEC, HEADER_BUILD_ID, HEADER_EVENT_DESC, RELEASE, ATTR_MIN_SIZE,
    FILE_HEADER_SIZE, PIPE_HEADER_SIZE, STREAM_CHUNK, MAX_DECOMPRESSED, _TooBig, _Sink, EventAttr, BuildIdEntry,
    Mmap, Sample, _SampleLayout, skipped_records, USED_RECORDS)
from .sampleruns import _SampleRuns


class PerfData:
    """A ``perf.data`` file opened for reading.

    ``attrs`` (list of :class:`EventAttr`), ``build_ids`` (from the HEADER_BUILD_ID feature and, in pipe mode,
    HEADER_BUILD_ID records), ``features`` (set bits), ``pipe_mode``.  Iterate the data section with
    :meth:`records` (raw) or :meth:`samples` (decoded).  ``stats`` counts records per type name after a pass, and
    ``unknown_records`` counts records of types objllvm does not know (skipped).
    """

    def __init__(self, path: str):
        """``path``: a perf.data file, or ``-`` for standard input.  A regular file is mapped; a pipe (``perf record
        -o - | ...``) in perf's pipe mode is read record by record, one record in memory at a time; a file-mode
        perf.data that comes through a pipe (its feature table is at the end) is first copied to a temporary
        file."""
        self.path = "<stdin>" if path == "-" else os.fspath(path)
        self._stream = None
        self._spool = None
        self._base = 0                   # stream mode: the offset in the stream of the record in self.buf
        try:
            if path == "-":
                self._f = os.fdopen(os.dup(sys.stdin.fileno()), "rb")
            else:
                self._f = open(self.path, "rb")
        except (OSError, ValueError) as exc:
            raise ObjllvmError(f"cannot read: {getattr(exc, 'strerror', None) or exc}", file=self.path) from None
        import stat
        st = os.fstat(self._f.fileno())
        self.attrs: list[EventAttr] = []
        self.build_ids: list[BuildIdEntry] = []
        self.features: set[int] = set()
        self.stats: dict[str, int] = {}
        self.unknown_records = 0
        self.compressed_records = 0
        self.decompressed_bytes = 0
        self._zstd = None
        self._in_compressed = None
        if not stat.S_ISREG(st.st_mode):
            if self._open_stream():
                return
        size = os.fstat(self._f.fileno()).st_size
        if size == 0:
            self._f.close()
            raise DecodeError("empty file (expected a perf.data header starting with 'PERFILE2')", file=self.path,
                              offset=0)
        self.buf = mmap.mmap(self._f.fileno(), 0, access=mmap.ACCESS_READ)
        self.size = size
        self._parse_header()

    def _open_stream(self) -> bool:
        """A pipe: read its header; True when it is in pipe mode (then read as a stream), else spool it to a
        temporary file and let the caller map that (False)."""
        head = self._read_exact(PIPE_HEADER_SIZE)
        if not head:
            self._f.close()
            raise DecodeError("empty input (expected a perf.data header starting with 'PERFILE2')", file=self.path,
                              offset=0)
        self.buf, self.size = head, len(head)
        if len(head) < PIPE_HEADER_SIZE:
            raise self._err(f"truncated perf.data header: {len(head)} bytes (expected at least 16)", 0)
        if head[:8] not in (MAGIC, MAGIC[::-1]):
            raise self._err(f"not a perf.data file: magic {head[:8]!r} (expected b'PERFILE2')", 0)
        e = "<" if head[:8] == MAGIC else ">"
        if struct.unpack_from(e + "Q", head, 8)[0] == PIPE_HEADER_SIZE:
            self.endian, self.pipe_mode = e, True
            self._u64 = struct.Struct(e + "Q")
            self._hdr = struct.Struct(e + "IHH")
            self._stream = self._f
            self.data_offset, self.data_size = PIPE_HEADER_SIZE, None
            return True
        import shutil
        import tempfile
        spool = tempfile.TemporaryFile(prefix="objllvm-perf-")
        spool.write(head)
        shutil.copyfileobj(self._f, spool, 1 << 20)
        spool.flush()
        self._f.close()
        self._f = self._spool = spool
        return False

    def _read_exact(self, n: int) -> bytes:
        """``n`` bytes of the stream, fewer only at its end."""
        out = self._f.read(n)
        if out is None:
            out = b""
        while len(out) < n:
            more = self._f.read(n - len(out))
            if not more:
                break
            out += more
        return out

    # -- errors ---------------------------------------------------------------------------------------------
    def _err(self, message: str, offset: int) -> DecodeError:
        if self._in_compressed is not None:       # an offset in decompressed data: locate its record
            message += (f" (byte {offset} of the data decompressed from the COMPRESSED record at "
                        f"{self._in_compressed:#x})")
            offset = self._in_compressed
        else:
            offset += self._base
        return DecodeError(message, file=self.path, offset=offset)

    def close(self):
        try:
            if self._stream is None:
                self.buf.close()
        finally:
            self._f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- header ---------------------------------------------------------------------------------------------
    def _parse_header(self):
        b = self.buf
        if self.size < PIPE_HEADER_SIZE:
            raise self._err(f"truncated perf.data header: {self.size} bytes (expected at least 16)", 0)
        magic = b[:8]
        if magic == MAGIC:
            self.endian = "<"
        elif magic == MAGIC[::-1]:
            self.endian = ">"
        else:
            raise self._err(f"not a perf.data file: magic {bytes(magic)!r} (expected b'PERFILE2')", 0)
        e = self.endian
        self._u64 = struct.Struct(e + "Q")
        self._hdr = struct.Struct(e + "IHH")
        hsize = self._u64.unpack_from(b, 8)[0]
        self.pipe_mode = hsize == PIPE_HEADER_SIZE
        if self.pipe_mode:
            self.data_offset, self.data_size = PIPE_HEADER_SIZE, self.size - PIPE_HEADER_SIZE
            return
        if hsize < FILE_HEADER_SIZE:
            raise self._err(f"bad header size {hsize} (expected 104, or 16 for a pipe-mode file)", 8)
        if self.size < FILE_HEADER_SIZE:
            raise self._err(f"truncated perf.data header: {self.size} bytes (expected 104)", self.size)
        (attr_size, attrs_off, attrs_size, data_off, data_size, _et_off, _et_size) = \
            struct.unpack_from(e + "7Q", b, 16)
        bits = struct.unpack_from(e + "4Q", b, 72)
        for w, word in enumerate(bits):
            for i in range(64):
                if word >> i & 1:
                    self.features.add(64 * w + i)
        self._check_range(attrs_off, attrs_size, "attribute section", 32)
        self._check_range(data_off, data_size, "data section", 48)
        self.data_offset, self.data_size = data_off, data_size
        if attr_size < ATTR_MIN_SIZE + 16:
            raise self._err(f"bad attribute entry size {attr_size} (expected at least {ATTR_MIN_SIZE + 16})", 16)
        if attrs_size % attr_size:
            raise self._err(f"attribute section size {attrs_size} is not a multiple of the entry size "
                            f"{attr_size}", 32)
        for i in range(attrs_size // attr_size):
            off = attrs_off + i * attr_size
            attr = self._parse_attr(off, attr_size - 16)
            ids_off, ids_size = struct.unpack_from(e + "QQ", b, off + attr_size - 16)
            self._check_range(ids_off, ids_size, f"id section of attribute {i}", off + attr_size - 16)
            n = ids_size // 8
            attr.ids = list(struct.unpack_from(f"{e}{n}Q", b, ids_off)) if n else []
            self.attrs.append(attr)
        if not self.attrs:
            raise self._err("no event attributes in the header (expected at least one)", 24)
        self._parse_features()

    def _check_range(self, off: int, size: int, what: str, where: int):
        if off + size > self.size:
            raise self._err(f"{what} ({size:#x} bytes at {off:#x}) runs past the end of the file "
                            f"({self.size:#x} bytes): truncated perf.data?", where)

    def _parse_attr(self, off: int, avail: int) -> EventAttr:
        e, b = self.endian, self.buf
        if avail < ATTR_MIN_SIZE or off + ATTR_MIN_SIZE > self.size:
            raise self._err(f"truncated perf_event_attr (expected at least {ATTR_MIN_SIZE} bytes)", off)
        typ, size, config, _period, sample_type, read_format, flags = struct.unpack_from(e + "IIQQQQQ", b, off)
        bst = 0
        if size >= 80 and avail >= 80:
            bst = self._u64.unpack_from(b, off + 72)[0]
        return EventAttr(typ, size, config, sample_type, read_format, flags, bst)

    def _feature_range(self, bit: int):
        """``(offset, size)`` of feature ``bit``'s section (the table after the data section holds one entry per
        set bit, in bit order)."""
        table = self.data_offset + self.data_size
        pos = table + 16 * sum(1 for f in self.features if f < bit)
        if pos + 16 > self.size:
            raise self._err("feature section table runs past the end of the file: truncated perf.data?", pos)
        off, size = struct.unpack_from(self.endian + "QQ", self.buf, pos)
        self._check_range(off, size, f"feature {bit} section", pos)
        return off, size

    def _parse_event_desc(self):
        """Event names from HEADER_EVENT_DESC: ``u32 nr, u32 attr_size``, then per event its attribute, ``u32
        nr_ids``, the name (``u32 len`` + text padded) and ``nr_ids`` u64 ids.  A malformed table costs the names
        only (the generic names stand in)."""
        off, size = self._feature_range(HEADER_EVENT_DESC)
        end, e, b = off + size, self.endian, self.buf
        if size < 8:
            return
        nr, attr_size = struct.unpack_from(e + "II", b, off)
        p = off + 8
        names = []
        for _ in range(min(nr, len(self.attrs))):
            if attr_size < ATTR_MIN_SIZE or p + attr_size + 8 > end:
                return
            p += attr_size
            nr_ids, slen = struct.unpack_from(e + "II", b, p)
            p += 8
            if slen > end - p or nr_ids > (end - p - slen) // 8:
                return
            names.append(bytes(b[p:p + slen]).split(b"\0", 1)[0].decode("utf-8", "replace"))
            p += slen + 8 * nr_ids
        for a, n in zip(self.attrs, names):
            a.desc = n or None

    def _parse_features(self):
        """Read the feature section table after the data section; decode HEADER_BUILD_ID and HEADER_EVENT_DESC."""
        if HEADER_EVENT_DESC in self.features:
            self._parse_event_desc()
        if HEADER_BUILD_ID not in self.features:
            return
        table = self.data_offset + self.data_size
        index = sorted(f for f in self.features if f < HEADER_BUILD_ID)
        pos = table + 16 * len(index)
        if pos + 16 > self.size:
            raise self._err("feature section table runs past the end of the file: truncated perf.data?", pos)
        off, size = struct.unpack_from(self.endian + "QQ", self.buf, pos)
        self._check_range(off, size, "HEADER_BUILD_ID feature", pos)
        end = off + size
        while off + 8 <= end:
            _t, misc, rsize = self._hdr.unpack_from(self.buf, off)
            if rsize < 36 or off + rsize > end:
                raise self._err(f"bad build-id entry size {rsize} (expected 36..{end - off})", off)
            self.build_ids.append(self._build_id_entry(off, rsize, misc))
            off += rsize

    def _build_id_entry(self, off: int, rsize: int, misc: int) -> BuildIdEntry:
        b = self.buf
        pid = struct.unpack_from(self.endian + "i", b, off + 8)[0]
        raw = bytes(b[off + 12:off + 32])
        if misc & MISC_BUILD_ID_SIZE:
            n = b[off + 32]
            bid = raw[:min(n, 20)]
        else:
            bid = raw.rstrip(b"\0") if raw[16:] == b"\0\0\0\0" else raw
        name = bytes(b[off + 36:off + rsize]).split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
        return BuildIdEntry(pid, bid, name)

    # -- records --------------------------------------------------------------------------------------------
    def records(self, sample_run=None):
        """Yield ``(type, misc, offset, size)`` for every record of the data section (file order).

        ``sample_run`` (optional) takes runs of same-size samples off the loop: when a SAMPLE record of
        ``sample_run.size`` bytes comes, ``sample_run(offset, end)`` consumes as many consecutive such samples as it
        can verify and returns how many (0: yield the record as usual).

        PERF_RECORD_COMPRESSED / COMPRESSED2 records (``perf record -z``) are decompressed (zstd, one stream over
        the whole file, as perf writes it) and the records they hold are yielded in their place; while they are,
        ``self.buf`` is the decompressed chunk and the offsets point into it (the parse methods read
        ``self.buf``, so they work unchanged).  ``stats`` counts the inner records by type;
        ``compressed_records`` / ``decompressed_bytes`` say how much came out of compressed records.
        """
        if self._stream is not None:
            yield from self._stream_records(sample_run)
            return
        hdr = self._hdr.unpack_from
        file_buf = self.buf
        off, end = self.data_offset, self.data_offset + self.data_size
        stats = {}
        self._unknown = 0
        run_size = sample_run.size if sample_run is not None else -1
        # Pages already read are given back (MADV_DONTNEED) every RELEASE bytes, so the resident memory of a
        # pass does not grow with the size of the file.
        released = 0
        next_release = off + RELEASE
        pending = b""                      # decompressed bytes of an inner record cut at the end of a chunk
        try:
            while off < end:
                if off >= next_release:
                    released = self._release(released, off)
                    next_release = off + RELEASE
                if off + 8 > end:
                    raise self._err(f"truncated record header ({end - off} bytes left, expected 8)", off)
                typ, misc, size = hdr(file_buf, off)
                if size < 8:
                    raise self._err(f"bad record size {size} (expected at least 8)", off + 6)
                if typ == RECORD_SAMPLE and size == run_size:
                    n = sample_run(off, end)
                    if n:
                        stats[typ] = stats.get(typ, 0) + n
                        off += n * size
                        continue
                step = size
                if typ == RECORD_AUXTRACE and size >= 16:        # the AUX data follows the record
                    step += self._u64.unpack_from(file_buf, off + 8)[0]
                if off + step > end:
                    raise self._err(f"record of type {RECORD_NAMES.get(typ, typ)} ({step} bytes) runs past the "
                                    f"end of the data section: truncated perf.data?", off)
                if typ == RECORD_COMPRESSED or typ == RECORD_COMPRESSED2:
                    chunk = pending + self._decompress(typ, off, size)
                    self.compressed_records += 1
                    stats[typ] = stats.get(typ, 0) + 1
                    self._in_compressed = off
                    self.buf = chunk
                    try:
                        used = yield from self._walk(chunk, 0, len(chunk), stats, sample_run, run_size, partial=True)
                    finally:
                        self.buf = file_buf
                        self._in_compressed = None
                    pending = chunk[used:]
                    off += step
                    continue
                self._count(typ, off, size, misc, stats)
                yield typ, misc, off, size
                off += step
            if pending:
                raise self._err(f"the compressed records end inside a record ({len(pending)} decompressed bytes "
                                f"left over): truncated perf.data?", end)
        finally:
            self.unknown_records = self._unknown
            self.stats = {RECORD_NAMES.get(t, f"unknown({t})"): n for t, n in sorted(stats.items())}

    def _stream_records(self, sample_run=None):
        """records() of a pipe: the stream is read in chunks of STREAM_CHUNK bytes (more for a longer record) and
        its records walked there (``self.buf`` is the chunk, ``_base`` its offset in the stream, for errors), so
        memory holds one chunk (and one decompressed record) whatever the length of the input."""
        hdr = self._hdr.unpack_from
        stats = {}
        self._unknown = 0
        run_size = sample_run.size if sample_run is not None else -1
        data, pos = b"", 0
        base = PIPE_HEADER_SIZE                      # stream offset of data[0]
        pending = b""

        def fill(n):                                 # at least n bytes at data[pos:] unless the input ends
            nonlocal data, pos, base
            have = len(data) - pos
            if have >= n:
                return True
            more = self._read_exact(max(STREAM_CHUNK, n - have))
            data, base, pos = data[pos:] + more, base + pos, 0
            self.buf, self.size, self._base = data, len(data), base
            return len(data) >= n

        try:
            while True:
                if not fill(8):
                    if len(data) - pos:
                        raise self._err(f"truncated record header ({len(data) - pos} bytes left, expected 8)", pos)
                    break
                typ, misc, size = hdr(data, pos)
                if size < 8:
                    raise self._err(f"bad record size {size} (expected at least 8)", pos + 6)
                if not fill(size):
                    raise self._err(f"record of type {RECORD_NAMES.get(typ, typ)} ({size} bytes) runs past the end "
                                    f"of the input: truncated perf.data?", pos)
                off = pos
                if typ == RECORD_AUXTRACE and size >= 16:        # the AUX data follows the record: skipped
                    left = self._u64.unpack_from(data, off + 8)[0]
                    inside = min(left, len(data) - pos - size)
                    pos += size + inside
                    left -= inside
                    while left:
                        got = len(self._read_exact(min(left, STREAM_CHUNK)))
                        if not got:
                            raise self._err("AUXTRACE data runs past the end of the input", off)
                        left -= got
                        base += got
                    self._count(typ, off, size, misc, stats)
                    yield typ, misc, off, size
                    continue
                pos += size
                if typ == RECORD_COMPRESSED or typ == RECORD_COMPRESSED2:
                    chunk = pending + self._decompress(typ, off, size)
                    self.compressed_records += 1
                    stats[typ] = stats.get(typ, 0) + 1
                    self._in_compressed = base + off
                    self.buf, self.size = chunk, len(chunk)
                    try:
                        used = yield from self._walk(chunk, 0, len(chunk), stats, sample_run, run_size,
                                                     partial=True)
                    finally:
                        self._in_compressed = None
                        self.buf, self.size = data, len(data)
                    pending = chunk[used:]
                    continue
                self._count(typ, off, size, misc, stats)
                yield typ, misc, off, size
            if pending:
                raise self._err(f"the compressed records end inside a record ({len(pending)} decompressed bytes "
                                f"left over): truncated perf.data?", pos)
        finally:
            self.unknown_records = self._unknown
            self.stats = {RECORD_NAMES.get(t, f"unknown({t})"): n for t, n in sorted(stats.items())}

    def _count(self, typ, off, size, misc, stats):
        stats[typ] = stats.get(typ, 0) + 1
        if typ not in KNOWN_RECORD_TYPES:
            self._unknown += 1
        elif typ == RECORD_HEADER_ATTR:
            self._pipe_attr(off, size)
        elif typ == RECORD_HEADER_BUILD_ID:
            if size >= 36:
                self.build_ids.append(self._build_id_entry(off, size, misc))

    def _walk(self, b, off, end, stats, sample_run, run_size, partial):
        """Records of ``b[off:end]`` (decompressed data); returns where the last complete record ends."""
        hdr = self._hdr.unpack_from
        while off + 8 <= end:
            typ, misc, size = hdr(b, off)
            if size < 8:
                raise self._err(f"bad record size {size} (expected at least 8)", off + 6)
            if off + size > end:
                break                        # continues in the next compressed record
            if typ == RECORD_SAMPLE and size == run_size:
                n = sample_run(off, end)
                if n:
                    stats[typ] = stats.get(typ, 0) + n
                    off += n * size
                    continue
            if typ in (RECORD_COMPRESSED, RECORD_COMPRESSED2, RECORD_AUXTRACE):
                raise self._err(f"a {RECORD_NAMES[typ]} record inside compressed data", off)
            self._count(typ, off, size, misc, stats)
            yield typ, misc, off, size
            off += size
        return off

    def _decompress(self, typ: int, off: int, size: int) -> bytes:
        """The bytes of one COMPRESSED(2) record, decompressed by the file's zstd stream (frames may span records)."""
        if typ == RECORD_COMPRESSED2:
            if size < 16:
                raise self._err(f"COMPRESSED2 record too short ({size} bytes, expected at least 16)", off)
            n = self._u64.unpack_from(self.buf, off + 8)[0]
            if n > size - 16:
                raise self._err(f"COMPRESSED2 data size {n} does not fit in the record ({size - 16} bytes)", off + 8)
            payload = self.buf[off + 16:off + 16 + n]
        else:
            payload = self.buf[off + 8:off + size]
        if self._zstd is None:
            try:
                import zstandard
            except ImportError:
                raise ObjllvmError("this perf.data holds zstd-compressed records (perf record -z): install the "
                                   "zstandard module to read it", file=self.path) from None
            self._sink = _Sink(MAX_DECOMPRESSED)
            self._zstd = zstandard.ZstdDecompressor().stream_writer(self._sink, write_return_read=True)
            self._zstd_error = zstandard.ZstdError
        self._sink.reset()
        try:
            self._zstd.write(payload)
        except _TooBig:
            raise self._err(f"COMPRESSED record decompresses to more than {MAX_DECOMPRESSED} bytes", off) from None
        except self._zstd_error as exc:
            raise self._err(f"bad zstd data in a COMPRESSED record: {exc}", off) from None
        self.decompressed_bytes += len(self._sink.data)
        return bytes(self._sink.data)

    def _release(self, start: int, upto: int) -> int:
        """Drop the mapped pages in [start, upto) (page aligned) from memory; return the new start."""
        upto &= ~(mmap.PAGESIZE - 1)
        if upto > start and hasattr(self.buf, "madvise") and hasattr(mmap, "MADV_DONTNEED"):
            try:
                self.buf.madvise(mmap.MADV_DONTNEED, start, upto - start)
            except (OSError, ValueError):
                return start
            return upto
        return start

    def _pipe_attr(self, off: int, size: int):
        if size < 8 + ATTR_MIN_SIZE:
            raise self._err(f"HEADER_ATTR record too small ({size} bytes)", off)
        attr_size = struct.unpack_from(self.endian + "I", self.buf, off + 12)[0]
        if attr_size < ATTR_MIN_SIZE or 8 + attr_size > size:
            raise self._err(f"HEADER_ATTR: bad attribute size {attr_size}", off + 12)
        attr = self._parse_attr(off + 8, attr_size)
        n = (size - 8 - attr_size) // 8
        attr.ids = list(struct.unpack_from(f"{self.endian}{n}Q", self.buf, off + 8 + attr_size)) if n else []
        self.attrs.append(attr)
        self._layouts = None

    # -- attribute of a record ------------------------------------------------------------------------------
    _layouts = None

    def layouts(self):
        """``(single_layout_or_None, {id: layout})``: one layout when every attribute lays samples out alike."""
        if self._layouts is None:
            if not self.attrs:
                raise self._err("a sample comes before any event attribute (HEADER_ATTR)", self.data_offset)
            lays = [_SampleLayout(a, self.endian) for a in self.attrs]
            same = all((a.sample_type, a.read_format, a.branch_sample_type, a.flags & ATTR_FLAG_SAMPLE_ID_ALL)
                       == (lays[0].attr.sample_type, lays[0].attr.read_format, lays[0].attr.branch_sample_type,
                           lays[0].attr.flags & ATTR_FLAG_SAMPLE_ID_ALL) for a in self.attrs)
            by_id = {i: lay for lay in lays for i in lay.attr.ids}
            self._layouts = (lays[0] if same else None, by_id)
        return self._layouts

    def layout_for_sample(self, off: int) -> _SampleLayout:
        single, by_id = self.layouts()
        if single is not None:
            return single
        # Different layouts: PERF_SAMPLE_IDENTIFIER (first u64 after the header) names the event.
        if off + 16 > len(self.buf):
            raise self._err("truncated sample (expected an identifier)", off)
        ident = self._u64.unpack_from(self.buf, off + 8)[0]
        lay = by_id.get(ident)
        if lay is None or not lay.st & SAMPLE_IDENTIFIER:
            raise self._err(f"sample id {ident} matches no event attribute (events with different sample "
                            f"types need PERF_SAMPLE_IDENTIFIER)", off + 8)
        return lay

    # -- samples --------------------------------------------------------------------------------------------
    def parse_sample(self, off: int, size: int, misc: int = 0, lay: _SampleLayout | None = None) -> Sample:
        """Decode the sample record at ``off`` (fields up to the branch stack; later fields are not read)."""
        lay = lay or self.layout_for_sample(off)
        b, e, st = self.buf, self.endian, lay.st
        end = off + size
        s = Sample(misc=misc)
        p = off + 8

        def need(n, what):
            if p + n > end:
                raise self._err(f"sample record too short for {what} (record of {size} bytes)", p)

        u64 = self._u64.unpack_from
        if st & SAMPLE_IDENTIFIER:
            need(8, "IDENTIFIER")
            s.id = u64(b, p)[0]
            p += 8
        if st & SAMPLE_IP:
            need(8, "IP")
            s.ip = u64(b, p)[0]
            p += 8
        if st & SAMPLE_TID:
            need(8, "TID")
            s.pid, s.tid = struct.unpack_from(e + "ii", b, p)
            p += 8
        if st & SAMPLE_TIME:
            need(8, "TIME")
            s.time = u64(b, p)[0]
            p += 8
        if st & SAMPLE_ADDR:
            need(8, "ADDR")
            s.addr = u64(b, p)[0]
            p += 8
        if st & SAMPLE_ID:
            need(8, "ID")
            s.id = u64(b, p)[0]
            p += 8
        if st & SAMPLE_STREAM_ID:
            need(8, "STREAM_ID")
            s.stream_id = u64(b, p)[0]
            p += 8
        if st & SAMPLE_CPU:
            need(8, "CPU")
            s.cpu = struct.unpack_from(e + "I", b, p)[0]
            p += 8
        if st & SAMPLE_PERIOD:
            need(8, "PERIOD")
            s.period = u64(b, p)[0]
            p += 8
        if not st & (SAMPLE_READ | SAMPLE_CALLCHAIN | SAMPLE_RAW | SAMPLE_BRANCH_STACK):
            return s
        if st & SAMPLE_READ:
            if lay.attr.read_format & READ_GROUP:
                need(8, "READ (group count)")
                nr = u64(b, p)[0]
                if nr > (end - p) // max(lay.read_group_entry, 1):
                    raise self._err(f"READ group count {nr} does not fit in the record", p)
                need(lay.read_group_head + nr * lay.read_group_entry, "READ group")
                p += lay.read_group_head + nr * lay.read_group_entry
            else:
                need(lay.read_single, "READ")
                p += lay.read_single
        if st & SAMPLE_CALLCHAIN:
            need(8, "CALLCHAIN count")
            nr = u64(b, p)[0]
            if nr > (end - p - 8) // 8:
                raise self._err(f"callchain count {nr} does not fit in the record ({end - p - 8} bytes left)", p)
            p += 8 + 8 * nr
        if st & SAMPLE_RAW:
            need(4, "RAW size")
            n = struct.unpack_from(e + "I", b, p)[0]
            need(4 + n, "RAW data")
            p += 4 + n
        if st & SAMPLE_BRANCH_STACK:
            need(8, "BRANCH_STACK count")
            nr = u64(b, p)[0]
            p += 8
            if lay.attr.branch_sample_type & BRANCH_HW_INDEX:
                need(8, "BRANCH_STACK hw_idx")
                p += 8
            if nr > (end - p) // 24:
                raise self._err(f"branch stack count {nr} does not fit in the record ({end - p} bytes left)",
                                p - 8)
            s.branches = list(struct.iter_unpack(e + "QQQ", b[p:p + 24 * nr])) if nr else []
        return s

    def samples(self):
        """Yield every PERF_RECORD_SAMPLE decoded as :class:`Sample`."""
        for typ, misc, off, size in self.records():
            if typ == RECORD_SAMPLE:
                yield self.parse_sample(off, size, misc)

    def parse_mmap(self, typ: int, misc: int, off: int, size: int) -> Mmap:
        """Decode an MMAP or MMAP2 record."""
        b, e = self.buf, self.endian
        end = off + size
        if typ == RECORD_MMAP:
            if off + 40 > end:
                raise self._err(f"MMAP record too short ({size} bytes, expected at least 40)", off)
            pid, tid, start, length, pgoff = struct.unpack_from(e + "iiQQQ", b, off + 8)
            name_off, bid, prot, rec = off + 40, None, None, "MMAP"
        else:
            if off + 72 > end:
                raise self._err(f"MMAP2 record too short ({size} bytes, expected at least 72)", off)
            pid, tid, start, length, pgoff = struct.unpack_from(e + "iiQQQ", b, off + 8)
            bid = None
            if misc & MISC_MMAP_BUILD_ID:
                n = min(b[off + 40], 20)
                bid = bytes(b[off + 44:off + 44 + n])
            prot = struct.unpack_from(e + "I", b, off + 64)[0]
            name_off, rec = off + 72, "MMAP2"
        nul = b.find(b"\0", name_off, end)
        name = bytes(b[name_off:nul if nul >= 0 else end]).decode("utf-8", "surrogateescape")
        return Mmap(pid, tid, start, length, pgoff, name, bid, prot, rec)

    def mmap_is_exec(self, m: Mmap, misc: int) -> bool:
        if m.prot is not None:
            return bool(m.prot & PROT_EXEC)
        return not misc & MISC_MMAP_DATA

    def parse_comm(self, off: int, size: int):
        if size < 17:
            raise self._err(f"COMM record too short ({size} bytes)", off)
        pid, tid = struct.unpack_from(self.endian + "ii", self.buf, off + 8)
        nul = self.buf.find(b"\0", off + 16, off + size)
        comm = bytes(self.buf[off + 16:nul if nul >= 0 else off + size]).decode("utf-8", "surrogateescape")
        return pid, tid, comm

    def parse_fork(self, off: int, size: int):
        if size < 24:
            raise self._err(f"FORK record too short ({size} bytes)", off)
        return struct.unpack_from(self.endian + "iiii", self.buf, off + 8)    # pid, ppid, tid, ptid


def _event_of_id(pd) -> dict | None:
    """``{sample id: event name}`` when the recording holds several events (None for one)."""
    if len(pd.attrs) <= 1:
        return None
    return {i: a.name for a in pd.attrs for i in a.ids}


def collect_perfdata(path: str, *, with_branches: bool = True, event: str | None = None) -> RawProfile:
    """Read a perf.data file and aggregate its samples (one pass, streaming).

    ``raw.event_samples`` counts the samples of each event; with ``event`` (a name as
    :attr:`EventAttr.name` gives it) only that event's samples are aggregated, and a name the recording does not
    hold is an error that lists the ones it does."""
    with PerfData(path) as pd:
        raw = RawProfile(source=pd.path)
        raw.event = event
        for b in pd.build_ids:
            raw.build_ids.setdefault(b.filename, b.build_id)
        counts = raw.ip_counts
        taken, ranges = raw.taken, raw.ranges
        nsamples = nbranch = lost = 0
        runs = None
        single = None
        ev_of = _event_of_id(pd)
        ev_counts = {}
        if pd.attrs:                       # file mode: the layout is known before the data
            single, _ = pd.layouts()
            if single is not None and ev_of is None and not (with_branches and single.st & SAMPLE_BRANCH_STACK):
                runs = _SampleRuns(pd, single, counts)
        for typ, misc, off, size in pd.records(runs):
            if typ == 9:
                nsamples += 1
                s = pd.parse_sample(off, size, misc, single)
                if ev_of is not None:
                    name = ev_of.get(s.id, "unknown event")
                    ev_counts[name] = ev_counts.get(name, 0) + 1
                    if event is not None and name != event:
                        continue
                if s.ip is None:
                    continue
                pid = s.pid if s.pid is not None else -1
                key = (pid, s.ip)
                counts[key] = counts.get(key, 0) + 1
                br = s.branches
                if with_branches and br:
                    nbranch += 1
                    for i, (frm, to, _fl) in enumerate(br):
                        k = (pid, frm, to)
                        taken[k] = taken.get(k, 0) + 1
                        if i + 1 < len(br):
                            r = (pid, br[i + 1][1], frm)
                            ranges[r] = ranges.get(r, 0) + 1
            elif typ == RECORD_MMAP or typ == RECORD_MMAP2:
                m = pd.parse_mmap(typ, misc, off, size)
                if pd.mmap_is_exec(m, misc):
                    raw.add_mmap(m)
            elif typ == RECORD_COMM:
                pid, _tid, comm = pd.parse_comm(off, size)
                if misc & MISC_COMM_EXEC:
                    raw.exec_(pid)
                raw.comms[pid] = comm
            elif typ == RECORD_FORK:
                pid, ppid, _tid, _ptid = pd.parse_fork(off, size)
                if pid != ppid and pid not in raw.mmaps:
                    raw.parents[pid] = ppid
            elif typ == RECORD_HEADER_ATTR:
                single = None                  # pipe mode: layouts are known once the attributes came
                ev_of = _event_of_id(pd)
            elif typ == RECORD_LOST and size >= 24:
                lost += pd._u64.unpack_from(pd.buf, off + 16)[0]
            elif typ == RECORD_LOST_SAMPLES and size >= 16:
                lost += pd._u64.unpack_from(pd.buf, off + 8)[0]
        if lost:
            raw.warnings.append(f"{raw.source}: perf lost {lost} samples while recording (LOST records): the "
                                f"counts cover the samples it kept")
        total = nsamples + (runs.samples if runs is not None else 0)
        names = [a.name for a in pd.attrs]
        if ev_of is None:
            ev_counts = {names[0]: total} if names else {}
        raw.event_samples = {n: ev_counts.get(n, 0) for n in names}
        if ev_counts.get("unknown event"):
            raw.event_samples["unknown event"] = ev_counts["unknown event"]
        if event is not None and event not in names:
            raise ObjllvmError(f"no event {event!r} in this recording (its events: {', '.join(names) or 'none'})",
                               file=raw.source)
        raw.samples = total if event is None or ev_of is None else ev_counts.get(event, 0)
        raw.branch_samples = nbranch
        raw.records = dict(pd.stats)
        raw.unknown_records = pd.unknown_records
        raw.attrs = [a.to_dict() for a in pd.attrs]
        for b in pd.build_ids:               # pipe mode: HEADER_BUILD_ID records arrive with the data
            raw.build_ids.setdefault(b.filename, b.build_id)
    return raw
