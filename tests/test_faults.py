"""Faults while writing: objllvm.atomicio.atomic_write and real `rewrite` calls leave the target as it was
(old contents, or absent) and no temporary file, whatever fails: a write half done, a full disk (patched
ENOSPC, and a real kernel refusal through RLIMIT_FSIZE), fsync, chmod, the rename, an interrupt before the
rename."""
from __future__ import annotations

import errno
import re
import os
import shutil
import subprocess
import sys

import pytest

from objllvm import atomicio
from objllvm.errors import ObjllvmError

from conftest import ROOT, TESTDATA

OLD = b"old contents\n" * 100
NEW = b"N" * 300_000


def _leftovers(d):
    return sorted(p.name for p in d.iterdir() if p.name.startswith(".objllvm-"))


@pytest.fixture(params=["existing", "absent"])
def target(request, tmp_path):
    p = tmp_path / "out.bin"
    if request.param == "existing":
        p.write_bytes(OLD)
    return p


def _intact(p, existed):
    if existed:
        assert p.read_bytes() == OLD
    else:
        assert not p.exists()
    assert _leftovers(p.parent) == []


def _patch_fdopen(monkeypatch, exc):
    """The write of the data writes half of its first buffer, then fails with ``exc`` (through writev(), which
    atomicio uses where there is one, else through the file object os.fdopen makes)."""
    def half(fd, bufs):
        b = bytes(bufs[0])
        os.write(fd, b[:len(b) // 2])
        raise exc
    if hasattr(os, "writev"):
        monkeypatch.setattr(os, "writev", half)
        return
    real = os.fdopen         # pragma: no cover - not on Linux

    class _HalfWriter:
        def __init__(self, f):
            self._f = f

        def write(self, b):
            half(self._f.fileno(), [b])

        def __getattr__(self, name):
            return getattr(self._f, name)

        def __enter__(self):
            return self

        def __exit__(self, *a):
            self._f.close()
    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: _HalfWriter(real(fd, *a, **k)))


def test_baseline_write_works(target):
    atomicio.atomic_write(target, NEW)
    assert target.read_bytes() == NEW and _leftovers(target.parent) == []


def test_exception_mid_write(target, monkeypatch):
    existed = target.exists()
    _patch_fdopen(monkeypatch, RuntimeError("boom"))
    with pytest.raises(RuntimeError, match="boom"):
        atomicio.atomic_write(target, NEW)
    _intact(target, existed)


def test_disk_full_mid_write(target, monkeypatch):
    existed = target.exists()
    _patch_fdopen(monkeypatch, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))
    with pytest.raises(ObjllvmError, match="cannot write: No space left on device"):
        atomicio.atomic_write(target, NEW)
    _intact(target, existed)


def test_disk_full_in_chunked_write(target, monkeypatch):
    """An iterable of chunks, each written by its own writev() call: the disk fills on the third."""
    if not hasattr(os, "writev"):
        pytest.skip("no writev() here: atomicio writes through a file object")
    existed = target.exists()
    real = os.writev
    calls = []

    def writev(fd, bufs):
        calls.append(sum(map(len, bufs)))
        if len(calls) == 3:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, bufs)
    monkeypatch.setattr(os, "writev", writev)
    monkeypatch.setattr(atomicio, "_IOV_BATCH", 1)
    with pytest.raises(ObjllvmError, match="No space left"):
        atomicio.atomic_write(target, (NEW[i:i + 1000] for i in range(0, 10_000, 1000)))
    assert calls == [1000, 1000, 1000]
    _intact(target, existed)


def test_short_writes_go_on(target, monkeypatch):
    """writev() may write less than it was given: the rest follows, from where it stopped."""
    if not hasattr(os, "writev"):
        pytest.skip("no writev() here")
    real = os.writev

    def short(fd, bufs):
        return real(fd, [memoryview(bufs[0])[:max(1, len(bufs[0]) // 3)]])
    monkeypatch.setattr(os, "writev", short)
    chunks = [NEW[i:i + 777] for i in range(0, len(NEW), 777)]
    atomicio.atomic_write(target, chunks)
    assert target.read_bytes() == NEW and _leftovers(target.parent) == []


def test_unsynced_write(target, monkeypatch):
    """sync=False: no fsync(), the same file."""
    calls = []
    monkeypatch.setattr(os, "fsync", lambda fd: calls.append(fd))
    atomicio.atomic_write(target, NEW, sync=False)
    assert target.read_bytes() == NEW and calls == [] and _leftovers(target.parent) == []
    atomicio.atomic_write(target, NEW)
    assert len(calls) == 1


def test_generator_fails_mid_data(target):
    existed = target.exists()

    def chunks():
        yield b"a" * 1000
        raise ValueError("producer failed")
    with pytest.raises(ValueError, match="producer failed"):
        atomicio.atomic_write(target, chunks())
    _intact(target, existed)


def test_fsync_fails(target, monkeypatch):
    existed = target.exists()

    def bad_fsync(fd):
        raise OSError(errno.EIO, os.strerror(errno.EIO))
    monkeypatch.setattr(os, "fsync", bad_fsync)
    with pytest.raises(ObjllvmError, match="cannot write: Input/output error"):
        atomicio.atomic_write(target, NEW)
    _intact(target, existed)


@pytest.fixture(params=["unnamed", "named"])
def temporary(request, monkeypatch):
    """The kind of temporary file atomic_write uses: unnamed (O_TMPFILE, where this file system has it) or the
    named fallback."""
    if request.param == "named":
        monkeypatch.setattr(atomicio, "_unnamed_ok", False)
    elif not atomicio._unnamed_ok:
        pytest.skip("no unnamed temporary files (O_TMPFILE) here")
    return request.param


def test_chmod_fails(target, monkeypatch, temporary):
    existed = target.exists()

    def bad_chmod(*a, **k):
        raise PermissionError(errno.EPERM, os.strerror(errno.EPERM))
    monkeypatch.setattr(os, "fchmod", bad_chmod)
    with pytest.raises(ObjllvmError, match="cannot write"):
        atomicio.atomic_write(target, NEW)
    _intact(target, existed)


@pytest.mark.parametrize("exc", [KeyboardInterrupt(), OSError(errno.EXDEV, os.strerror(errno.EXDEV)),
                                 SystemExit(1)])
def test_interrupted_before_rename(target, monkeypatch, exc, temporary):
    """The data is written and synced, then the rename never happens."""
    existed = target.exists()
    seen = []

    def bad_replace(src, dst, src_dir_fd=None, dst_dir_fd=None):
        fd = os.open(src, os.O_RDONLY, dir_fd=src_dir_fd)
        with os.fdopen(fd, "rb") as f:
            seen.append(f.read() == NEW)   # the temporary file was complete
        raise exc
    monkeypatch.setattr(os, "replace", bad_replace)
    with pytest.raises((type(exc), ObjllvmError)):
        atomicio.atomic_write(target, NEW)
    assert seen == [True]
    _intact(target, existed)


def test_no_temporary_file_possible(target, monkeypatch):
    """The named fallback cannot create its file."""
    monkeypatch.setattr(atomicio, "_unnamed_ok", False)
    existed = target.exists()
    real = os.open

    def bad_open(path, *a, **k):
        if os.path.basename(path).startswith(".objllvm-"):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        return real(path, *a, **k)
    monkeypatch.setattr(os, "open", bad_open)
    with pytest.raises(ObjllvmError, match="cannot create a temporary file in .*: Permission denied"):
        atomicio.atomic_write(target, NEW)
    _intact(target, existed)


def _probed(directory) -> None:
    """Whether unnamed files can be named in ``directory`` worked out now (atomicio probes it once per file system,
    with a fresh temporary name), so that a test counting the names tried sees only those of its write."""
    fd = atomicio._create_unnamed(str(directory))
    if fd is not None:
        os.close(fd)


def test_temporary_file_is_new_private_and_not_followed(target, monkeypatch):
    """The named fallback: a name that exists (a file, a symbolic link) is never opened: another name is tried;
    the temporary file is 0o600 until the data is in, then gets the mode asked for."""
    monkeypatch.setattr(atomicio, "_unnamed_ok", False)
    existed = target.exists()
    d = target.parent
    victim = d / "victim"
    victim.write_bytes(b"victim")
    names = iter([b"\x01" * 8, b"\x02" * 8, b"\x03" * 8])
    monkeypatch.setattr(os, "urandom", lambda n: next(names))
    (d / f".objllvm-{'01' * 8}.tmp").write_bytes(b"other")
    os.symlink(victim, d / f".objllvm-{'02' * 8}.tmp")
    modes = []
    real_chmod = os.fchmod

    def chmod(fd, mode):
        name = os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))
        modes.append((name, os.fstat(fd).st_mode & 0o777, mode))
        return real_chmod(fd, mode)
    monkeypatch.setattr(os, "fchmod", chmod)
    atomicio.atomic_write(target, NEW, mode=0o640)
    assert target.read_bytes() == NEW and target.stat().st_mode & 0o777 == 0o640
    assert modes == [(f".objllvm-{'03' * 8}.tmp", 0o600, 0o640)]
    assert victim.read_bytes() == b"victim" and (d / f".objllvm-{'01' * 8}.tmp").read_bytes() == b"other"
    assert _leftovers(d) == [f".objllvm-{'01' * 8}.tmp", f".objllvm-{'02' * 8}.tmp"]
    del existed


def test_no_unused_temporary_name(target, monkeypatch, temporary):
    existed = target.exists()
    _probed(target.parent)
    monkeypatch.setattr(os, "urandom", lambda n: b"\x07" * n)
    clash = target.parent / f".objllvm-{'07' * 8}.tmp"
    clash.write_bytes(b"other")
    # (the named file is refused a name as it is created; the unnamed one, once written, as it is given one)
    with pytest.raises(ObjllvmError, match="cannot (create a temporary file in .*|write): no unused temporary file "
                                           "name"):
        atomicio.atomic_write(target, NEW)
    assert clash.read_bytes() == b"other"
    clash.unlink()
    _intact(target, existed)


def test_no_clobber(tmp_path):
    p = tmp_path / "out.bin"
    p.write_bytes(OLD)
    with pytest.raises(ObjllvmError, match="exists"):
        atomicio.atomic_write(p, NEW, force=False)
    _intact(p, True)


# -- a real kernel refusal: RLIMIT_FSIZE (no root, no tmpfs needed) ----------------------------------------------
_FSIZE = r"""
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)      # a write past the limit fails with EFBIG instead
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), int(sys.argv[1])))
from objllvm import cli
sys.exit(cli.main(sys.argv[2:]))
"""


def _limited(limit, *argv):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", _FSIZE, str(limit), *map(str, argv)], capture_output=True,
                          text=True, env=env)


def test_real_file_size_limit_rewrite(tmp_path):
    """`objllvm rewrite` with the kernel refusing bytes past 512: exit 1, one line, nothing left behind."""
    src = tmp_path / "in.o"
    shutil.copy(TESTDATA / "elf" / "deplibs.o", src)
    before = src.read_bytes()
    p = _limited(512, "rewrite", src, "-o", tmp_path / "out.o", "--drop-addrsig")
    assert p.returncode == 1, p.stderr
    assert p.stderr.count("\n") == 1 and "cannot write: File too large" in p.stderr and "Traceback" not in p.stderr
    assert not (tmp_path / "out.o").exists() and _leftovers(tmp_path) == []
    assert src.read_bytes() == before


def test_real_file_size_limit_in_place(tmp_path):
    src = tmp_path / "in.o"
    shutil.copy(TESTDATA / "elf" / "deplibs.o", src)
    before = src.read_bytes()
    p = _limited(512, "rewrite", src, "--in-place", "--drop-addrsig")
    assert p.returncode == 1 and "File too large" in p.stderr, p.stderr
    assert src.read_bytes() == before and _leftovers(tmp_path) == []


# -- real rewrite calls with injected faults ---------------------------------------------------------------------
def _rewrite_ops():
    rw = pytest.importorskip("objllvm.rewrite", reason="objllvm/rewrite/ (rewrite area) is not there yet")
    return rw, [rw.DropAddrsig()]


FAULTS = {
    "write-half-then-ENOSPC": lambda mp: _patch_fdopen(mp, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))),
    "write-half-then-crash": lambda mp: _patch_fdopen(mp, RuntimeError("crash")),
    "fsync-EIO": lambda mp: mp.setattr(os, "fsync", _raiser(OSError(errno.EIO, os.strerror(errno.EIO)))),
    "interrupt-before-rename": lambda mp: mp.setattr(os, "replace", _raiser(KeyboardInterrupt())),
    "rename-EXDEV": lambda mp: mp.setattr(os, "replace", _raiser(OSError(errno.EXDEV, os.strerror(errno.EXDEV)))),
}


def _raiser(exc):
    def f(*a, **k):
        raise exc
    return f


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("mode", ["output", "output-exists", "in-place"])
def test_rewrite_with_fault(fault, mode, tmp_path, monkeypatch):
    rw, ops = _rewrite_ops()
    src = tmp_path / "in.o"
    shutil.copy(TESTDATA / "elf" / "deplibs.o", src)
    before = src.read_bytes()
    out = tmp_path / "out.o"
    if mode == "output-exists":
        out.write_bytes(OLD)
    # the same call without a fault writes a different file (so the fault is what kept it from happening)
    ok = tmp_path / "ok.o"
    rw.rewrite_file(str(src), str(ok), ops)
    assert ok.read_bytes() != before
    FAULTS[fault](monkeypatch)
    if fault == "fsync-EIO" and mode != "in-place":
        # a new output is not synced (as llvm-objcopy's is not): the fault is never met, the file is written whole
        rw.rewrite_file(str(src), str(out), ops)
        monkeypatch.undo()
        assert out.read_bytes() == ok.read_bytes() and src.read_bytes() == before
        assert _leftovers(tmp_path) == []
        return
    with pytest.raises((ObjllvmError, RuntimeError, KeyboardInterrupt)):
        if mode == "in-place":
            rw.rewrite_file(str(src), None, ops, in_place=True)
        else:
            rw.rewrite_file(str(src), str(out), ops)
    monkeypatch.undo()
    assert src.read_bytes() == before
    if mode == "output":
        assert not out.exists()
    elif mode == "output-exists":
        assert out.read_bytes() == OLD
    assert _leftovers(tmp_path) == []


# -- the data written once; long runs copied by the kernel ---------------------------------------------------------

def test_the_data_is_written_once(target, monkeypatch):
    """Whatever temporary file is used, the data goes to it once: where an unnamed file cannot be given a name
    (EXDEV, as in some sandboxes), that is found on an empty file before any data is written, not by writing
    everything twice."""
    real = atomicio._write_all
    calls = []

    def spy(fd, data, copies=None):
        calls.append(fd)
        return real(fd, data, copies)
    monkeypatch.setattr(atomicio, "_write_all", spy)
    atomicio.atomic_write(target, NEW)
    assert target.read_bytes() == NEW and len(calls) == 1

    # a system that makes unnamed files but refuses to name them: found before the data, for this file system
    real_link = os.link
    links = []

    def refuse(src, dst, *a, **k):
        if str(src).startswith("/proc/self/fd/"):
            links.append(dst)
            raise OSError(errno.EXDEV, os.strerror(errno.EXDEV))
        return real_link(src, dst, *a, **k)
    monkeypatch.setattr(os, "link", refuse)
    monkeypatch.setattr(atomicio, "_linkable", {})
    monkeypatch.setattr(atomicio, "_unnamed_ok", atomicio._unnamed_ok)
    calls.clear()
    atomicio.atomic_write(target, NEW[::-1])
    assert target.read_bytes() == NEW[::-1] and len(calls) == 1 and _leftovers(target.parent) == []
    if atomicio._unnamed_ok:                 # (O_TMPFILE here: the probe ran once, and is remembered)
        assert len(links) == 1 and set(atomicio._linkable.values()) == {False}
        atomicio.atomic_write(target, NEW)
        assert len(links) == 1 and len(calls) == 2


def _source(tmp_path, n=300_000):
    src = tmp_path / "source.bin"
    src.write_bytes(bytes(range(256)) * (n // 256) + b"tail")
    return src, src.read_bytes()


def _split(data):
    """``data`` as buffers, some of them views of the source named as copies: [(index, source offset)]."""
    mv = memoryview(data)
    parts = [b"head", mv[100:70_000], b"x" * 10, mv[5:6], mv[70_000:200_000], mv[200_000:]]
    return parts, [(1, 100), (4, 70_000), (5, 200_000)]


def _write_copies(target, tmp_path, monkeypatch, sendfile) -> bytes:
    """atomic_write of _split's buffers, os.sendfile being ``sendfile(real, out, in, offset, count)``: the bytes
    the target should hold."""
    if not hasattr(os, "sendfile"):
        pytest.skip("no sendfile() here: every buffer is written")
    src, data = _source(tmp_path)
    parts, where = _split(data)
    real = os.sendfile
    monkeypatch.setattr(os, "sendfile", lambda *a: sendfile(real, *a))
    monkeypatch.setattr(atomicio, "_sendfile_ok", True)
    with open(src, "rb") as f:
        atomicio.atomic_write(target, parts, copies=(f.fileno(), where, str(src)))
    return b"".join(parts)


def test_copies_are_made_from_the_source_file(target, tmp_path, monkeypatch):
    """Buffers named as runs of a source file are copied from the file by the kernel (sendfile), the others
    written: the same bytes as writing them all."""
    sent = []

    def spy(real, out, in_, off, n):
        k = real(out, in_, off, n)
        sent.append((off, k))
        return k
    expected = _write_copies(target, tmp_path, monkeypatch, spy)
    assert target.read_bytes() == expected and _leftovers(target.parent) == []
    assert sorted({off for off, _ in sent} & {100, 70_000, 200_000}) == [100, 70_000, 200_000]


@pytest.mark.parametrize("after,err", [(0, errno.EINVAL), (1, errno.EINVAL), (0, errno.ENOTSOCK)])
def test_a_refused_sendfile_falls_back_to_writing(target, tmp_path, monkeypatch, after, err):
    """sendfile() refused (EINVAL: a file system that cannot; ENOTSOCK: a system whose sendfile writes only to
    sockets) at once or after a first piece: the rest of that buffer, and every later copy, is written from the
    buffer; the same bytes."""
    calls = []

    def flaky(real, out, in_, off, n):
        calls.append(off)
        if len(calls) > after:
            raise OSError(err, os.strerror(err))
        return real(out, in_, off, min(n, 1000))
    expected = _write_copies(target, tmp_path, monkeypatch, flaky)
    assert target.read_bytes() == expected
    assert len(calls) == after + 1 and atomicio._sendfile_ok is False


def test_a_full_disk_during_a_copy_is_an_error_and_leaves_nothing(target, tmp_path, monkeypatch):
    """sendfile() fails for want of space, and so does the write that follows it: the error, the target as it
    was, no temporary file."""
    if not hasattr(os, "sendfile") or not hasattr(os, "writev"):
        pytest.skip("no sendfile() or writev() here")
    existed = target.exists()
    src, data = _source(tmp_path)
    parts, where = _split(data)

    def full(*a):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(atomicio, "_sendfile_ok", True)
    monkeypatch.setattr(os, "sendfile", full)
    real = os.writev
    monkeypatch.setattr(os, "writev", lambda fd, bufs: full() if sum(map(len, bufs)) > 1000 else real(fd, bufs))
    with open(src, "rb") as f:
        with pytest.raises(ObjllvmError, match="No space left"):
            atomicio.atomic_write(target, parts, copies=(f.fileno(), where, str(src)))
    _intact(target, existed)


def test_a_source_that_shrank_is_an_error_and_leaves_nothing(target, tmp_path, monkeypatch):
    """The source ends before a run named as a copy of it (it changed during the rewrite): an error naming it,
    the target as it was, no temporary file."""
    if not hasattr(os, "sendfile"):
        pytest.skip("no sendfile() here")
    existed = target.exists()
    src, data = _source(tmp_path)
    parts, where = _split(data)
    monkeypatch.setattr(atomicio, "_sendfile_ok", True)
    with open(src, "rb") as f:
        os.truncate(src, 150_000)
        with pytest.raises(ObjllvmError, match=re.escape(f"{src}: the input file ended at byte 150000")):
            atomicio.atomic_write(target, parts, copies=(f.fileno(), where, str(src)))
    _intact(target, existed)


def test_a_rewrite_copies_long_runs_of_the_input_from_the_file(tmp_path, monkeypatch):
    """`rewrite` of a linked file whose sections are longer than SEND_MIN: those runs go to the output by
    sendfile(), from the input file; the output is the same bytes as with every run written from the map."""
    if not hasattr(os, "sendfile"):
        pytest.skip("no sendfile() here")
    from objllvm import rewrite as rw
    import objllvm.formats.elfwrite.common as ew
    inp = TESTDATA / "real-files" / "prog-appended.elf"
    import objllvm.formats as formats
    monkeypatch.setattr(ew, "SEND_MIN", 512)     # (the committed files are small: mapped, and runs this long
    monkeypatch.setattr(formats, "_MAP_AT_LEAST", 0)     # named as copies, as for big ones)
    real = os.sendfile
    sent = []

    def spy(out, in_, off, n):
        sent.append(n)
        return real(out, in_, off, n)
    monkeypatch.setattr(os, "sendfile", spy)
    outs = []
    for ok in (True, False):
        monkeypatch.setattr(atomicio, "_sendfile_ok", ok)
        out = tmp_path / f"out-{ok}"
        rw.rewrite_file(str(inp), str(out), [rw.Remove(".comment")])
        outs.append(out.read_bytes())
        if ok:
            assert sent and sum(sent) > len(outs[0]) // 2, (sent, len(outs[0]))
    assert outs[0] == outs[1] and outs[0] != inp.read_bytes()
