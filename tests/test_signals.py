"""Nothing left behind: real `objllvm` processes killed while they write.

A small driver runs the command line in a child process with the write slowed down at one point (the data half
written), says so on stdout, and waits; the test then sends a real signal.  SIGTERM must remove a named temporary
file as Ctrl-C does; the unnamed temporary file (O_TMPFILE, Linux) has no name to leave behind, whatever ends the
process (SIGTERM, with its default action, or SIGKILL).  The
named fallback is run too: it shows the test can see a temporary file when there is one.  A full disk (a file
size limit, RLIMIT_FSIZE) during `extract` leaves no empty output directory."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT, TESTDATA

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="signals and O_TMPFILE as on Linux")

DRIVER = r"""
import os, sys, time
sys.path.insert(0, {root!r})
from objllvm import atomicio, cli
mode, stall = sys.argv[1], float(sys.argv[2])
if mode == "named":
    atomicio._unnamed_ok = False          # the fallback: a named temporary file
else:
    # the unnamed file, even where the system would refuse to name it (the signal comes before the name)
    atomicio._names_unnamed = lambda directory, flags: True
real = atomicio._write_all
def slow(fd, data, copies=None):
    os.write(fd, b"half written")
    print("WRITING", flush=True)
    time.sleep(stall)
    os.lseek(fd, 0, 0)
    real(fd, data, copies)
atomicio._write_all = slow
sys.exit(cli.main(sys.argv[3:]))
"""


def _start(tmp_path, mode, args, stall=60.0):
    drv = tmp_path / "driver.py"
    drv.write_text(DRIVER.format(root=str(ROOT)))
    p = subprocess.Popen([sys.executable, str(drv), mode, str(stall), *map(str, args)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    line = p.stdout.readline()
    assert line.startswith("WRITING"), (line, p.stderr.read() if p.poll() is not None else "")
    return p


def _temporaries(d):
    return sorted(n for n in os.listdir(d) if n.startswith(".objllvm-"))


def _unnamed_supported(d) -> bool:
    """Whether the system makes unnamed files (O_TMPFILE) in ``d``.  (Where it refuses to name them, EXDEV in some
    sandboxes, atomicio writes a named file from the start; the driver's unnamed mode uses one all the same: the
    signals come while the data is written, before the name.)"""
    try:
        fd = os.open(d, getattr(os, "O_TMPFILE", 0) | os.O_WRONLY, 0o600)
    except (OSError, AttributeError):
        return False
    os.close(fd)
    return bool(getattr(os, "O_TMPFILE", 0))


def _input(tmp_path):
    src = TESTDATA / "real-files" / "prog-appended.elf"
    inp = tmp_path / "in.elf"
    inp.write_bytes(src.read_bytes())
    return inp


@pytest.mark.parametrize("mode", ["unnamed", "named"])
def test_sigterm_during_rewrite_removes_the_temporary_file(tmp_path, mode):
    if mode == "unnamed" and not _unnamed_supported(tmp_path):
        pytest.skip("this file system refuses O_TMPFILE")
    out = tmp_path / "out"
    out.mkdir()
    p = _start(tmp_path, mode, ["rewrite", _input(tmp_path), "-o", out / "o.elf"])
    try:
        during = _temporaries(out)
        # the named fallback has a visible temporary file now; the unnamed one has none at all
        assert (len(during) == 1) == (mode == "named"), during
        p.send_signal(signal.SIGTERM)
        rc = p.wait(timeout=30)
    finally:
        p.kill()
    err = p.stderr.read()
    if mode == "named":
        # the handler turns the signal into an interruption, whose clean-up removes the named file
        assert rc == 130 and "interrupted" in err, (rc, err)
    else:
        # no handler: the signal's default action ends the process, and the unnamed file goes with it
        assert rc == -signal.SIGTERM and err == "", (rc, err)
    assert os.listdir(out) == [], "temporary file or output left behind"


def test_sigkill_during_rewrite_leaves_no_named_file(tmp_path):
    if not _unnamed_supported(tmp_path):
        pytest.skip("this file system refuses O_TMPFILE: the named fallback cannot survive SIGKILL")
    out = tmp_path / "out"
    out.mkdir()
    p = _start(tmp_path, "unnamed", ["rewrite", _input(tmp_path), "-o", out / "o.elf"])
    p.send_signal(signal.SIGKILL)
    assert p.wait(timeout=30) == -signal.SIGKILL
    assert os.listdir(out) == []


def test_sigkill_in_place_keeps_the_input(tmp_path):
    if not _unnamed_supported(tmp_path):
        pytest.skip("this file system refuses O_TMPFILE")
    inp = _input(tmp_path)
    before = inp.read_bytes()
    p = _start(tmp_path, "unnamed", ["rewrite", "--in-place", "--remove", ".comment", inp])
    p.send_signal(signal.SIGKILL)
    p.wait(timeout=30)
    assert inp.read_bytes() == before and _temporaries(tmp_path) == []


def test_rewrite_finishes_normally_through_the_unnamed_file(tmp_path):
    """The same driver without a signal: the output is complete (the write goes on after the pause)."""
    out = tmp_path / "o.elf"
    p = _start(tmp_path, "unnamed", ["rewrite", _input(tmp_path), "-o", out], stall=0.1)
    assert p.wait(timeout=60) == 0, p.stderr.read()
    assert out.read_bytes() == (TESTDATA / "real-files" / "prog-appended.elf").read_bytes()
    assert _temporaries(tmp_path) == []


def test_the_unnamed_file_is_named_without_falling_back(tmp_path, monkeypatch):
    """Nothing patched but the fallback, which must not be reached: O_TMPFILE, then linkat(AT_SYMLINK_FOLLOW)
    through /proc/self/fd names the file, to a temporary name renamed over the target, or straight to the target
    (``force=False``)."""
    from objllvm import atomicio
    if not _unnamed_supported(tmp_path):
        pytest.skip("this file system refuses O_TMPFILE")

    def fallback(*args, **kwargs):
        raise AssertionError("the named temporary file was used")
    monkeypatch.setattr(atomicio, "_atomic_write_named", fallback)
    monkeypatch.setattr(atomicio, "_linkable", {})
    monkeypatch.setattr(atomicio, "_unnamed_ok", True)
    target = tmp_path / "t"
    atomicio.atomic_write(str(target), b"first", force=False, mode=0o640)
    atomicio.atomic_write(str(target), [b"sec", b"ond"], mode=0o640)
    assert target.read_bytes() == b"second" and (target.stat().st_mode & 0o777) == 0o640
    assert os.listdir(tmp_path) == ["t"]
    assert list(atomicio._linkable.values()) == [True]


def _big_elf(d):
    """A 48 MB ELF file: relro-tail.pie with a 48 MB section of random bytes (llvm-objcopy-22), made in ``d``."""
    from conftest import need_tool
    objcopy = need_tool("llvm-objcopy-22")
    blob = d / "blob"
    blob.write_bytes(os.urandom(48 << 20))
    big = d / "big.elf"
    subprocess.run([objcopy, "--add-section", f".big={blob}", "--set-section-flags", ".big=readonly",
                    str(TESTDATA / "rewrite-relro" / "relro-tail.pie"), str(big)], check=True)
    blob.unlink()
    return big


@pytest.mark.parametrize("how", ["-o", "--in-place"])
def test_sigkill_at_random_points_leaves_the_old_or_the_new_file_and_nothing_else(tmp_path, how):
    """Real rewrites of a 48 MB file (``--remove .comment``), nothing patched, killed with SIGKILL at random times
    over a whole run: the target is the old file or the complete new one, and the directory holds nothing else."""
    import random
    if not _unnamed_supported(tmp_path):
        pytest.skip("this file system refuses O_TMPFILE: the named fallback cannot survive SIGKILL")
    src = tmp_path / "src"
    src.mkdir()
    old = _big_elf(src).read_bytes()
    d = tmp_path / "d"
    d.mkdir()
    inp = src / "big.elf" if how == "-o" else d / "big.elf"
    target = d / "out.elf" if how == "-o" else inp
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "objllvm", "rewrite", str(inp), "--remove", ".comment"]
    cmd += ["-o", str(target)] if how == "-o" else ["--in-place"]

    def reset():
        target.write_bytes(old)
    reset()
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, env=env, capture_output=True)
    whole = time.monotonic() - t0
    new = target.read_bytes()
    assert new != old and os.listdir(d) == [target.name]
    rnd = random.Random(30)
    seen = {"old": 0, "new": 0}
    for _ in range(12):
        reset()
        p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rnd.uniform(0, 1.1 * whole))
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=60)
        got = target.read_bytes()
        assert got in (old, new), "the target is neither the old nor the new file"
        seen["old" if got == old else "new"] += 1
        assert os.listdir(d) == [target.name], os.listdir(d)


@pytest.mark.parametrize("mode", ["unnamed", "named"])
def test_sigterm_during_extract_leaves_nothing(tmp_path, mode):
    if mode == "unnamed" and not _unnamed_supported(tmp_path):
        pytest.skip("this file system refuses O_TMPFILE")
    out = tmp_path / "x"
    # the writes run in worker threads: the pause is short, the main thread takes the signal and cleans up once
    # the workers are done
    p = _start(tmp_path, mode, ["extract", TESTDATA / "elf" / "embed.o", "-o", out], stall=2.0)
    try:
        p.send_signal(signal.SIGTERM)
        rc = p.wait(timeout=60)
    finally:
        p.kill()
    err = p.stderr.read()
    assert rc == 130 and "interrupted" in err, (rc, err)
    assert not out.exists(), os.listdir(out)


def _limit_file_size():
    import resource
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)     # a write past the limit fails (EFBIG) instead
    resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))


def test_extract_on_a_full_disk_leaves_no_output_directory(tmp_path):
    out = tmp_path / "x"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "objllvm", "extract", str(TESTDATA / "elf" / "embed.o"), "-o", str(out)],
                       capture_output=True, text=True, env=env, preexec_fn=_limit_file_size, timeout=60)
    assert p.returncode == 1 and "cannot write" in p.stderr, p.stderr
    assert not out.exists()
    assert [n for n in os.listdir(tmp_path) if n.startswith(".objllvm-")] == []
    # an existing directory is left where it was, emptied of what this call wrote
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    p = subprocess.run([sys.executable, "-m", "objllvm", "extract", str(TESTDATA / "elf" / "embed.o"), "-o", str(out)],
                       capture_output=True, text=True, env=env, preexec_fn=_limit_file_size, timeout=60)
    assert p.returncode == 1 and sorted(os.listdir(out)) == ["keep.txt"]


@pytest.mark.parametrize("unnamed", [True, False])
def test_signal_handlers_come_back(tmp_path, monkeypatch, unnamed):
    from objllvm import atomicio
    monkeypatch.setattr(atomicio, "_unnamed_ok", unnamed and atomicio._unnamed_ok)
    before = signal.getsignal(signal.SIGTERM)
    atomicio.atomic_write(str(tmp_path / "f"), b"x")
    assert signal.getsignal(signal.SIGTERM) is before and (tmp_path / "f").read_bytes() == b"x"


# -- atomicio.run_in_threads: the extract writers' pool (in place of concurrent.futures) ------------------
@pytest.mark.parametrize("n,workers", [(0, 4), (1, 1), (4, 1), (0, 1), (5, 3), (50, 16), (7, 7)])
def test_run_in_threads_runs_every_job_once(n, workers):
    import threading

    from objllvm.atomicio import run_in_threads
    done, lock, where = [], threading.Lock(), set()

    def fn(job):
        with lock:
            done.append(job)
            where.add(threading.get_ident())
    run_in_threads(fn, range(n), workers)
    assert sorted(done) == list(range(n))
    if workers == 1 and n:
        assert where == {threading.get_ident()}, "one worker: the jobs run in the calling thread, in order"
        assert done == list(range(n))


def test_run_in_threads_runs_them_side_by_side():
    """Four jobs that each wait for the other three: only four threads at once get past the barrier."""
    import threading

    from objllvm.atomicio import run_in_threads
    barrier = threading.Barrier(4, timeout=10)
    run_in_threads(lambda job: barrier.wait(), range(8), 4)
    assert not barrier.broken


def test_run_in_threads_raises_the_first_error_after_every_thread_stopped():
    import threading

    from objllvm.atomicio import run_in_threads
    lock, state = threading.Lock(), {"running": 0, "started": []}

    def fn(job):
        with lock:
            state["running"] += 1
            state["started"].append(job)
        time.sleep(0.01)
        with lock:
            state["running"] -= 1
        if job == 3:
            raise OSError(28, "No space left on device")
    with pytest.raises(OSError, match="No space"):
        run_in_threads(fn, range(100), 4)
    assert state["running"] == 0, "a job was still running when the error was raised"
    assert len(state["started"]) < 100, "jobs kept starting after the error"


_INTERRUPTED = r"""
import _thread, sys, threading, time
sys.path.insert(0, %r)
from objllvm.atomicio import run_in_threads
lock, state = threading.Lock(), {"running": 0, "started": 0}
%s
def fn(job):
    with lock:
        state["running"] += 1
        state["started"] += 1
    if job == 0 and INTERRUPT_IN_JOB:
        _thread.interrupt_main()
    time.sleep(0.3)
    with lock:
        state["running"] -= 1
try:
    run_in_threads(fn, range(1000), 3)
except KeyboardInterrupt:
    print("interrupted", state["running"], state["started"])
"""


def _assert_interrupted_after_the_running_jobs(setup: str) -> None:
    """Run run_in_threads in a child process (the interruption goes to the main thread, which under xdist is not
    the test's), ``setup`` saying where it is interrupted: no writer still running when the interruption was
    raised, and no job started after it."""
    code = _INTERRUPTED % (str(ROOT), setup)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60).stdout.split()
    assert out[:2] == ["interrupted", "0"], out
    assert int(out[2]) < 20, "jobs kept starting after the interruption"


def test_run_in_threads_interrupted_while_starting_waits_for_the_running_jobs():
    """Ctrl-C while the workers are still being started (the first already running a job): the same as while
    waiting, no job starts any more and the running one finishes before it is raised.  (The interruption is
    made to come in the second start, deterministically; a real one came there under load.)"""
    _assert_interrupted_after_the_running_jobs("""
INTERRUPT_IN_JOB = False
real, calls = threading.Thread.start, []
def start(self):
    calls.append(1)
    if len(calls) == 2:
        time.sleep(0.05)                 # (the first worker is in its job by now)
        raise KeyboardInterrupt
    return real(self)
threading.Thread.start = start
""")


def test_run_in_threads_interrupted_waits_for_the_running_jobs():
    """Ctrl-C while the caller waits (the first job interrupts the main thread): no job starts any more, the
    running ones finish, then it is raised."""
    _assert_interrupted_after_the_running_jobs("INTERRUPT_IN_JOB = True")
