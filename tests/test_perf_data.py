"""The perf.data reader, checked against perf itself.

Synthetic files come from objllvm.perf.writer; ``perf script`` reading them back is the independent check of the
writer, and our reader must see what perf sees.  A short real recording (skipped where perf record is not
permitted) checks the reader against ``perf script`` on a file perf wrote.  Bad input must end in DecodeError
with a byte offset, never another exception.
"""
from __future__ import annotations

import os
import struct
import subprocess
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import TESTDATA, need_tool
from objllvm.errors import DecodeError, ObjllvmError
from objllvm.perf import perfdata as pdm
from objllvm.perf.mapping import collect_perfdata
from objllvm.perf.writer import PerfDataWriter, sample_type_bits

LOOP = TESTDATA / "perf" / "loop.pie"


def perf_script(path, fields, *extra):
    perf = need_tool("perf")
    p = subprocess.run([perf, "script", "-i", str(path), "-F", fields, *extra], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


def record(tmp_path, *cmd, freq=10000):
    """perf record -e cpu-clock a short run; skip (with perf's reason) where recording is not permitted."""
    perf = need_tool("perf")
    out = tmp_path / "perf.data"
    p = subprocess.run([perf, "record", "-q", "-e", "cpu-clock", "-F", str(freq), "-o", str(out), "--", *map(str, cmd)],
                       capture_output=True, text=True)
    if p.returncode != 0 or not out.exists():
        pytest.skip(f"perf record is not permitted here: {p.stderr.strip()[-200:]}")
    return out


def sample_writer(**kw):
    w = PerfDataWriter(sample_type_bits("IP", "TID", "TIME", "ADDR", "ID", "STREAM_ID", "CPU", "PERIOD",
                                        "BRANCH_STACK"), **kw)
    w.comm(42, 42, "prog", exec=True)
    w.mmap2(42, 42, 0x555555555000, 0x2000, 0x1000, "/opt/prog", build_id=bytes(range(1, 21)))
    w.mmap(42, 42, 0x7F0000001000, 0x1000, 0, "/lib/libx.so")
    w.sample(0x555555555123, 42, 43, time=100, addr=0xDEAD, cpu=1, period=250,
             branches=[(0x555555555200, 0x555555555300), (0x555555555100, 0x555555555180, 0)])
    w.sample(0x7F0000001010, 42, 42, time=101, cpu=0, period=251, branches=[])
    w.build_id(42, bytes(range(1, 21)), "/opt/prog")
    return w


def test_synthetic_fields_round_trip(tmp_path):
    path = tmp_path / "s.data"
    path.write_bytes(sample_writer().to_bytes())
    with pdm.PerfData(path) as pd:
        assert len(pd.attrs) == 1
        assert pd.attrs[0].sample_id_all
        assert "BRANCH_STACK" in pd.attrs[0].sample_type_names
        samples = list(pd.samples())
        assert pd.stats == {"MMAP": 1, "COMM": 1, "SAMPLE": 2, "MMAP2": 1}
        assert [(b.pid, b.build_id, b.filename) for b in pd.build_ids] == [(42, bytes(range(1, 21)), "/opt/prog")]
    s = samples[0]
    assert (s.ip, s.pid, s.tid, s.time, s.addr, s.cpu, s.period) == (0x555555555123, 42, 43, 100, 0xDEAD, 1, 250)
    assert s.id == 1000 and s.stream_id == 1000
    assert s.branches == [(0x555555555200, 0x555555555300, 0), (0x555555555100, 0x555555555180, 0)]
    assert samples[1].branches == []


def test_synthetic_file_agrees_with_perf_script(tmp_path):
    path = tmp_path / "s.data"
    path.write_bytes(sample_writer().to_bytes())
    text = perf_script(path, "pid,tid,ip,addr,brstack")
    theirs = []
    for line in text.splitlines():
        toks = line.split()
        pid, tid = toks[0].split("/") if "/" in toks[0] else (toks[0], toks[1])
        rest = toks[1:] if "/" in toks[0] else toks[2:]
        brs = [tuple(int(x, 16) for x in t.split("/")[:2]) for t in rest if t.startswith("0x") and "/" in t]
        hexes = [int(t, 16) for t in rest if "/" not in t]
        theirs.append((int(pid), int(tid), hexes, brs))
    with pdm.PerfData(path) as pd:
        ours = [(s.pid, s.tid, s.ip, s.addr, [(f, t) for f, t, _ in s.branches]) for s in pd.samples()]
    assert len(theirs) == len(ours) == 2
    for (pid, tid, hexes, brs), (opid, otid, ip, addr, obrs) in zip(theirs, ours):
        assert (pid, tid) == (opid, otid)
        assert ip in hexes and addr in hexes
        assert brs == obrs
    mm = perf_script(path, "pid,ip", "--show-mmap-events")
    assert "[0x555555555000(0x2000) @ 0x1000 <0102030405060708090a0b0c0d0e0f1011121314>]: r-xp /opt/prog" in mm
    ids = subprocess.run([need_tool("perf"), "buildid-list", "-i", str(path)], capture_output=True, text=True)
    assert ids.stdout.split() == [bytes(range(1, 21)).hex(), "/opt/prog"]


def test_unknown_records_are_skipped_and_counted(tmp_path):
    w = sample_writer()
    w.raw(200, b"\x01" * 16)
    w.raw(31337 & 0xFFFF, b"")
    w.sample(0x555555555124, 42, time=102)
    path = tmp_path / "u.data"
    path.write_bytes(w.to_bytes())
    with pdm.PerfData(path) as pd:
        ips = [s.ip for s in pd.samples()]
        assert pd.unknown_records == 2
    assert ips == [0x555555555123, 0x7F0000001010, 0x555555555124]
    raw = collect_perfdata(path)
    assert raw.unknown_records == 2 and raw.samples == 3


def test_events_with_different_layouts_use_the_identifier(tmp_path):
    w = PerfDataWriter(sample_type_bits("IDENTIFIER", "IP", "TID"))
    w.add_event(sample_type_bits("IDENTIFIER", "IP", "TID", "TIME", "PERIOD"), ids=[77])
    w.sample(0x1000, 5)
    w.sample(0x2000, 6, event=1, time=9, period=3)
    path = tmp_path / "m.data"
    path.write_bytes(w.to_bytes())
    with pdm.PerfData(path) as pd:
        got = [(s.id, s.ip, s.pid, s.time, s.period) for s in pd.samples()]
    assert got == [(1000, 0x1000, 5, None, None), (77, 0x2000, 6, 9, 3)]
    # Without an identifier the events cannot be told apart: a clear error, not a guess.
    w2 = PerfDataWriter(sample_type_bits("IP", "TID"))
    w2.add_event(sample_type_bits("IP", "TID", "TIME"), ids=[5])
    w2.sample(0x1000, 5)
    path.write_bytes(w2.to_bytes())
    with pytest.raises(DecodeError, match="IDENTIFIER"):
        collect_perfdata(path)


def test_real_recording_matches_perf_script(tmp_path):
    data = record(tmp_path, LOOP, 3000)
    theirs = Counter()
    for line in perf_script(data, "pid,ip").splitlines():
        pid, ip = line.split()
        theirs[(int(pid), int(ip, 16))] += 1
    raw = collect_perfdata(data)
    assert sum(theirs.values()) == raw.samples > 0
    assert raw.ip_counts == theirs
    # The build-id feature names the binary with the id its ELF note carries.
    from elftools.elf.elffile import ELFFile
    with open(LOOP, "rb") as f:
        note = ELFFile(f).get_section_by_name(".note.gnu.build-id")
        bid = next(iter(note.iter_notes()))["n_desc"]
    assert raw.build_ids[os.path.realpath(LOOP)].hex() == bid


def test_pipe_mode_recording(tmp_path):
    perf = need_tool("perf")
    out = tmp_path / "pipe.data"
    with open(out, "wb") as f:
        p = subprocess.run([perf, "record", "-q", "-e", "cpu-clock", "-F", "5000", "-o", "-", "--", str(LOOP), "2000"],
                           stdout=f, stderr=subprocess.PIPE, text=False)
    if p.returncode != 0:
        pytest.skip(f"perf record is not permitted here: {p.stderr.decode(errors='replace')[-200:]}")
    with pdm.PerfData(out) as pd:
        assert pd.pipe_mode
        n = sum(1 for _ in pd.samples())
        assert pd.attrs
    theirs = perf_script(out, "ip").split()
    assert n == len(theirs) > 0


# -- bad input ------------------------------------------------------------------------------------------------
def _bytes():
    return sample_writer().to_bytes()


@pytest.mark.parametrize("cut", [0, 7, 15, 60, 103, 110, 300, -40, -1])
def test_truncated_files_fail_cleanly(tmp_path, cut):
    data = _bytes()
    data = data[:cut] if cut >= 0 else data[:len(data) + cut]
    path = tmp_path / "t.data"
    path.write_bytes(data)
    with pytest.raises(DecodeError) as ei:
        collect_perfdata(path)
    assert ei.value.file == str(path) and ei.value.offset is not None
    assert str(ei.value).startswith(str(path))


def test_huge_counts_are_not_trusted(tmp_path):
    w = PerfDataWriter(sample_type_bits("IP", "TID", "BRANCH_STACK"))
    w.sample(0x1000, 1, branches=[(1, 2)])
    data = bytearray(w.to_bytes())
    # The branch count is the u64 after IP and TID in the only record of the data section.
    data_off = struct.unpack_from("<Q", data, 40)[0]
    struct.pack_into("<Q", data, data_off + 8 + 16, 1 << 60)
    path = tmp_path / "h.data"
    path.write_bytes(bytes(data))
    with pytest.raises(DecodeError, match="branch stack count") as ei:
        collect_perfdata(path)
    assert ei.value.offset == data_off + 24


def test_not_perf_data(tmp_path):
    p = tmp_path / "x.data"
    p.write_bytes(b"\x7fELF" + b"\0" * 200)
    with pytest.raises(DecodeError, match="PERFILE2"):
        pdm.PerfData(p)
    p.write_bytes(b"")
    with pytest.raises(DecodeError, match="empty"):
        pdm.PerfData(p)
    with pytest.raises(ObjllvmError, match="cannot read"):
        pdm.PerfData(tmp_path / "missing.data")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_mutated_files_never_crash(tmp_path, data):
    blob = bytearray(_bytes())
    for _ in range(data.draw(st.integers(1, 6))):
        i = data.draw(st.integers(0, len(blob) - 1))
        blob[i] = data.draw(st.integers(0, 255))
    if data.draw(st.booleans()):
        blob = blob[:data.draw(st.integers(0, len(blob)))]
    path = tmp_path / "f.data"
    path.write_bytes(bytes(blob))
    try:
        collect_perfdata(path)
    except ObjllvmError as exc:
        assert exc.file == str(path)
