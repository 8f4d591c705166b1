"""Fuzz targets and the property every target must hold.

The property: for any input, objllvm returns a result or raises :class:`~objllvm.errors.ObjllvmError`
carrying where the problem is (the file, and for a section the section and a byte offset).  Nothing else may
escape (IndexError, struct.error, RecursionError, MemoryError, UnicodeDecodeError, ValueError, OverflowError,
...); no input may run longer than a bounded time (a watchdog interrupts it); no input may allocate more than a
bounded amount of memory (tracemalloc peak, when the caller traces).

Each ``check_*`` function returns a list of :class:`Violation` (empty: the property held).

Targets:
* ``check_container(data)``: the whole pipeline a user runs: ``containers.open_data`` (ELF, ar, COFF, Mach-O,
  bitcode, by magic), every object's symbols and relocations, ``api.dump_object`` with every codec, the JSON
  document, the text tables and both renderers (``objllvm sections``/``dump``);
* ``check_codec(codec, data, ctx)``: one codec's ``decode`` on any bytes, then ``to_dict``/``tables``/``encode``
  of what it returned;
* ``check_bitstream(data)``: objllvm/formats/bitstream.py walked block by block and objllvm/sections/support/bitcode_summary.py's summary;
* ``check_perf(data, tmpdir)``: objllvm/perf/perfdata.py over a perf.data file (every record parsed).
"""
from __future__ import annotations

import contextlib
import copy
import io
import os
import signal
import time
import tracemalloc
import traceback
from dataclasses import dataclass

from objllvm import api
from objllvm.sections import registry
from objllvm.formats import open_data
from objllvm.errors import ObjllvmError, UsageError
from objllvm.sections.registry import SectionContext
from objllvm.render import render_json, render_text

HANG_SECONDS = 2.0          # the campaign's threshold for "slow" (an input < 64 KB)
WATCHDOG_SECONDS = 10.0     # interrupt an input after this long: a hang
MEMORY_LIMIT = 128 << 20    # tracemalloc peak per input (inputs are < 1 MB)


class Hang(BaseException):
    """Raised by the watchdog inside a target that runs too long (BaseException: no target catches it)."""


@dataclass
class Violation:
    kind: str          # 'escape', 'unlocated', 'hang', 'slow', 'memory'
    target: str        # e.g. 'container', 'codec:addrsig', 'bitstream', 'perf'
    detail: str        # exception type and message, or the figures
    trace: str = ""

    def key(self) -> tuple:
        """What identifies a distinct bug: kind, target, exception type and the innermost objllvm frame."""
        return (self.kind, self.target, self.detail.split(":", 1)[0], _innermost(self.trace))

    def __str__(self):
        return f"{self.kind} in {self.target}: {self.detail}"


def _innermost(trace: str) -> str:
    lines = [ln.strip() for ln in trace.splitlines() if ln.strip().startswith("File ") and "objllvm" in ln
             and "/tests/" not in ln]
    return lines[-1] if lines else ""


@contextlib.contextmanager
def watchdog(seconds: float):
    """Raise :class:`Hang` in the main thread after ``seconds`` (no-op off the main thread)."""
    def on_alarm(signum, frame):
        raise Hang(f"still running after {seconds:g} s")
    try:
        old = signal.signal(signal.SIGALRM, on_alarm)
    except ValueError:        # not the main thread
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def guarded(target: str, fn, *, size: int, watchdog_seconds: float = WATCHDOG_SECONDS,
            slow_seconds: float | None = None, memory_limit: int | None = MEMORY_LIMIT) -> list:
    """Run ``fn()`` (which returns a list of violations of its own) under the watchdog and the memory check;
    turn an escaping exception into a violation."""
    out = []
    tracing = tracemalloc.is_tracing()
    if tracing:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
    t0 = time.perf_counter()
    try:
        with watchdog(watchdog_seconds):
            out.extend(fn())
    except Hang as exc:
        out.append(Violation("hang", target, f"Hang: {exc} ({size} bytes of input)", traceback.format_exc()))
    except ObjllvmError as exc:   # a documented error raised straight out of a target: check its location
        out.extend(location_problems(exc, target, need_section=False))
    except Exception as exc:  # noqa: BLE001 - this is the point
        out.append(Violation("escape", target, f"{type(exc).__name__}: {exc}"[:300], traceback.format_exc()))
    elapsed = time.perf_counter() - t0
    if slow_seconds is not None and elapsed > slow_seconds and size < 64 * 1024:
        out.append(Violation("slow", target, f"{elapsed:.2f} s for {size} bytes"))
    if tracing and memory_limit is not None:
        peak = tracemalloc.get_traced_memory()[1] - base     # what this input added at its worst
        if peak > memory_limit:
            out.append(Violation("memory", target, f"peak {peak >> 20} MB for {size} bytes of input"))
    return out


def location_problems(err: ObjllvmError, target: str, *, need_section: bool) -> list:
    """An ObjllvmError must name the file; a section's error also the section and the byte offset."""
    missing = []
    if err.file is None:
        missing.append("file")
    if need_section and err.section_index is None and err.section_name is None:
        missing.append("section")
    if need_section and err.offset is None:
        missing.append("offset")
    if not missing:
        return []
    return [Violation("unlocated", target, f"{type(err).__name__} without {'/'.join(missing)}: {err}")]


def _one_line(err: ObjllvmError, target: str) -> list:
    s = str(err)
    if "\n" in s or "\r" in s:
        return [Violation("unlocated", target, f"error message is not one line: {s!r}"[:300])]
    return []


# -- containers: what `objllvm sections` and `objllvm dump` do --------------------------------------------------
def _dump_everything(data: bytes, path: str) -> list:
    out = []
    items = []
    for obj in open_data(data, path):
        if isinstance(obj, ObjllvmError):
            out += location_problems(obj, "container", need_section=False) + _one_line(obj, "container")
            items.append(obj)
            continue
        # what `objllvm sections --all` shows
        for s in obj.sections:
            api.section_info(s, obj)
        # symbols and relocations (codecs get them through SectionContext)
        for what in ("symbols", "relocations"):
            try:
                if what == "symbols":
                    obj.symbols
                else:
                    for s in obj.sections:
                        obj.relocations_for(s)
            except ObjllvmError as exc:
                out += location_problems(exc, "container", need_section=False)
        try:
            d = api.dump_object(obj)
        except ObjllvmError as exc:
            out += location_problems(exc, "container", need_section=False)
            continue
        for dec in d.sections:
            if dec.error is not None:
                out += location_problems(dec.error, f"codec:{dec.codec.kind if dec.codec else '?'}",
                                         need_section=True)
                out += _one_line(dec.error, f"codec:{dec.codec.kind if dec.codec else '?'}")
        items.append(d)
    sink = io.StringIO()
    render_json(api.dump_to_dict(items), sink)
    render_json(api.dump_to_dict(items), sink, indent=False)
    render_text(api.dump_to_text(items), sink)
    return out


def check_container(data: bytes, path: str = "fuzz-input", **kw) -> list:
    return guarded("container", lambda: _dump_everything(data, path), size=len(data), **kw)


# -- codecs ----------------------------------------------------------------------------------------------------
def codec_contexts(obj, section, codec):
    """SectionContexts for feeding ``codec`` bytes: the real one of ``section`` (its symbols and relocations),
    one with no symbols and no relocations, and one with the relocations of another section; the section is
    given the codec's own type and name so the codec takes its usual path."""
    sec = copy.copy(section)
    if codec.sh_types:
        sec.type = codec.sh_types[0]
    if codec.names:
        sec.name = codec.names[0]
    try:
        real = SectionContext.for_section(obj, section)
    except ObjllvmError:       # unreadable relocations (dump reports that): the codec still gets the bytes
        real = SectionContext(endian=obj.endian, addr_size=obj.addr_size, is_relocatable=obj.is_relocatable,
                              file_type=obj.file_type, machine=obj.machine_name, format=obj.format, obj=obj)
    real.section = sec
    yield "real", real
    empty = copy.copy(real)
    empty.symbols, empty.relocations = [], []
    yield "empty", empty
    for other in obj.sections:
        if other is not section:
            try:
                rel = obj.relocations_for(other)
            except ObjllvmError:
                continue
            if rel:
                foreign = copy.copy(real)
                foreign.relocations = rel
                yield "foreign-relocations", foreign
                break
    if len(codec.sh_types) > 1:          # the other layouts of a multi-type codec
        for t in codec.sh_types[1:]:
            alt = copy.copy(real)
            alt.section = copy.copy(sec)
            alt.section.type = t
            yield f"type-{t:#x}", alt
    for n in codec.names[1:]:            # a codec for several sections told apart by name (profile, coverage)
        alt = copy.copy(real)
        alt.section = copy.copy(sec)
        alt.section.name = n
        yield f"name-{n}", alt


def _codec_round(codec, data: bytes, ctx) -> list:
    target = f"codec:{codec.kind}"
    try:
        model = codec.decode(data, ctx)
    except UsageError:
        # e.g. pc-sections given a section it has no layout for: the harness fed it a section dump would not
        return []
    except ObjllvmError as exc:
        if exc.offset is None:
            return [Violation("unlocated", target, f"{type(exc).__name__} without offset: {exc}")]
        if exc.partial is not None:
            codec.to_dict(exc.partial)
            codec.tables(exc.partial, {})
        return _one_line(exc, target)
    # what dump does with a model, and what rewrite does (encode)
    d = codec.to_dict(model)
    render_json(d, io.StringIO())
    render_text(codec.tables(model, {}), io.StringIO())
    try:
        out = codec.encode(model, ctx)
        if not isinstance(out, (bytes, bytearray)):
            return [Violation("escape", target, f"encode returned {type(out).__name__}, not bytes")]
    except ObjllvmError:
        pass
    return []


def check_codec(codec, data: bytes, ctx, **kw) -> list:
    return guarded(f"codec:{codec.kind}", lambda: _codec_round(codec, data, ctx), size=len(data), **kw)


# -- bitstream / bitcode -------------------------------------------------------------------------------------
def _walk_bitstream(data: bytes) -> list:
    from objllvm import bitcode
    from objllvm.formats import bitstream
    try:
        _, start, end = bitcode.bitstream_range(data)
    except ObjllvmError:
        start, end = 0, len(data)
    else:
        start += 4
    cur = bitstream.BitstreamCursor(data, start, end, block_names=getattr(bitcode, "BLOCK_NAMES", None))
    steps = 0
    while True:
        steps += 1
        kind, val = cur.advance()
        if kind == bitstream.EOF:
            break
        if kind == bitstream.BLOCK:
            if val == bitstream.BLOCKINFO_BLOCK_ID:
                cur.enter_block()
                cur.read_blockinfo()
            elif steps % 3 == 0:
                cur.skip_block()
            else:
                cur.enter_block()
        elif kind == bitstream.RECORD:
            cur.read_record(val)
    return []


def _bitcode_views(data: bytes) -> list:
    from objllvm import bitcode
    s = bitcode.summarize(data)
    bitcode.summary_to_dict(s)
    bitcode.identify(data)
    return []


def check_bitstream(data: bytes, **kw) -> list:
    out = []
    for name, fn in (("bitstream", _walk_bitstream), ("bitcode", _bitcode_views)):
        out += guarded(name, lambda fn=fn: _raise_located(fn, data), size=len(data), **kw)
    return out


def _raise_located(fn, data):
    """Bitstream errors have no file (the caller adds it): check they carry an offset."""
    try:
        return fn(data)
    except ObjllvmError as exc:
        if exc.offset is None:
            return [Violation("unlocated", fn.__name__, f"{type(exc).__name__} without offset: {exc}")]
        return _one_line(exc, fn.__name__)


# -- perf.data -------------------------------------------------------------------------------------------------
def _read_perf(path: str) -> list:
    from objllvm.perf import perfdata as P
    with P.PerfData(path) as pd:
        for typ, misc, off, size in pd.records():
            if typ == P.RECORD_SAMPLE:
                pd.parse_sample(off, size, misc)
            elif typ in (P.RECORD_MMAP, P.RECORD_MMAP2):
                m = pd.parse_mmap(typ, misc, off, size)
                pd.mmap_is_exec(m, misc)
            elif typ == P.RECORD_COMM:
                pd.parse_comm(off, size)
            elif typ == P.RECORD_FORK:
                pd.parse_fork(off, size)
        for a in pd.attrs:
            a.to_dict()
    return []


def check_perf(data: bytes, tmpdir: str, **kw) -> list:
    path = os.path.join(tmpdir, "perf.data")
    with open(path, "wb") as f:
        f.write(data)
    return guarded("perf", lambda: _read_perf(path), size=len(data), **kw)


def perf_seeds() -> list:
    """Small perf.data files made with objllvm's own writer (file mode, several record kinds)."""
    try:
        from objllvm.perf import writer as W
    except ImportError:
        return []
    seeds = []
    w = W.PerfDataWriter()
    w.comm(1, 1, "prog", exec=True)
    w.mmap2(1, 1, 0x400000, 0x1000, 0, "/bin/prog", build_id=b"\x11" * 20)
    w.mmap(1, 1, 0x500000, 0x1000, 0, "/lib/x.so")
    w.fork(2, 1, 2, 1)
    for i in range(4):
        w.sample(0x401000 + 16 * i, time=i)
    w.build_id(1, b"\x22" * 20, "/bin/prog")
    seeds.append(w.to_bytes())
    bst = W.sample_type_bits("IP", "TID", "TIME", "PERIOD", "BRANCH_STACK", "IDENTIFIER")
    w = W.PerfDataWriter(bst, events=2)
    w.mmap2(1, 1, 0x400000, 0x1000, 0, "/bin/prog")
    w.sample(0x401000, branches=[(0x401010, 0x401100, 0)] * 3)
    w.sample(0x401020, event=1, branches=[])
    seeds.append(w.to_bytes())
    return seeds


# -- the tools built on the decoders: audit, the basic-block index (perf-map, cfg), rewrite ---------------------
def _audit(path: str) -> list:
    from objllvm.audit import scan
    _status, _n, reqs = scan.scan_file(path)
    # scan_file turns an unexpected exception into an "internal error" request instead of raising
    return [Violation("escape", "audit", str(r[5])[:300]) for r in reqs if "internal error" in str(r[5])]


def _bbindex(data: bytes, path: str) -> list:
    from objllvm.sections.support.bb_index import BBIndex
    for obj in open_data(data, path):
        if isinstance(obj, ObjllvmError) or obj.format != "elf":
            continue
        idx = BBIndex.from_object(obj, strict=False)
        for f in idx.functions[:4]:
            for a in (f.address, f.address + 1, f.address + 0x10):
                idx.lookup(a)
                idx.function_at(a)
        len(idx)
    return []


def _rewrite(data: bytes, path: str) -> list:
    from objllvm import rewrite as rw
    from objllvm.formats.elf import ElfFile
    out = []
    for ops in ([rw.StripLLVM()], [rw.DropAddrsig(), rw.AddDeplib("fuzz")], [rw.ScaleCGWeights("2")]):
        try:
            new, _changes = rw.rewrite_bytes(data, ops, path)
        except ObjllvmError as exc:
            out += location_problems(exc, "rewrite", need_section=False)
            continue
        try:    # what rewrite writes, objllvm itself must be able to open
            ElfFile(new, path)
        except ObjllvmError as exc:
            out.append(Violation("bad-output", "rewrite", f"{ops}: the output does not open: {exc}"[:300]))
    return out


def check_tools(data: bytes, tmpdir: str, **kw) -> list:
    path = os.path.join(tmpdir, "fuzz-input.o")
    with open(path, "wb") as f:
        f.write(data)
    out = guarded("audit", lambda: _audit(path), size=len(data), **kw)
    out += guarded("bbindex", lambda: _bbindex(data, path), size=len(data), **kw)
    if data[:4] == b"\x7fELF":
        out += guarded("rewrite", lambda: _rewrite(data, path), size=len(data), **kw)
    return out
