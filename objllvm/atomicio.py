"""Write files atomically: the data goes to a temporary file in the target directory, then takes the target's name.

A failure at any point leaves the target as it was (absent or old) and no temporary file behind:

* On Linux the temporary file is unnamed (``O_TMPFILE``): until its data is written (and synced, unless the
  caller says ``sync=False``) it has no name at all, so even a SIGKILL leaves nothing behind.  It is then
  given a name with ``linkat(AT_FDCWD, "/proc/self/fd/N", dirfd, name, AT_SYMLINK_FOLLOW)`` -- straight to the
  target when it must not be replaced (the link fails if the target exists), else to a fresh temporary name
  that is renamed over the target at once (a SIGKILL or SIGTERM between that link and the rename leaves the
  complete file under that temporary name).  (Python's ``os.link`` calls plain ``link(2)``, which does not
  follow the descriptor's link and fails with EXDEV, unless a directory descriptor is given: it is.)
* ``owner`` (uid, gid): the new file is given that owner and group before it takes its name, or the write is
  refused (:class:`OwnerError`) and the target is left as it was; ``xattrs_from`` (a file descriptor): the
  extended attributes of that file are copied to the new one, or the write is refused.  ``special_if``
  (uid, gid): the set-user-ID (set-group-ID) bit of ``mode`` is kept only when the new file's owner (group) is
  that one; :func:`atomic_write` returns what it dropped.
* Elsewhere, or where the file system refuses ``O_TMPFILE`` (or ``/proc`` is not mounted), a named temporary
  file ``.objllvm-RANDOM.tmp`` is used, and removed on any error (not on SIGKILL).  SIGTERM (and SIGHUP) while
  such a file is being written remove it, as Ctrl-C does (:func:`signals_raise` turns those signals into
  :class:`Terminated` in the main thread).  While an unnamed file is written they keep their default action:
  the process ends and the file, which has no name, goes with it (so ``signal``, which imports ``enum``, is not
  imported for it).
"""
import errno
import os

from .errors import ObjllvmError

# The temporary file: created, never opened (O_EXCL), not followed if a link (O_NOFOLLOW), not inherited by
# child processes (O_CLOEXEC), mode 0o600 until the data is in; as tempfile.mkstemp makes it, without
# importing tempfile (and shutil, random, bz2 and lzma with it) into every rewrite.
_TMP_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
              | getattr(os, "O_BINARY", 0))
_O_TMPFILE = getattr(os, "O_TMPFILE", 0)
_TMP_ATTEMPTS = 100
_unnamed_ok = bool(_O_TMPFILE) and os.path.isdir("/proc/self/fd")   # cleared when linking it fails once


class OwnerError(ObjllvmError):
    """The new file cannot be given the owner, group or extended attributes it must keep (nothing was written)."""


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived while objllvm was writing a file (a KeyboardInterrupt, so every cleanup that
    Ctrl-C runs runs for it too)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _raise_terminated(signum, frame):
    raise Terminated(signum)


class signals_raise:
    """Context manager: in the main thread, SIGTERM and SIGHUP raise :class:`Terminated` instead of ending the
    process at once (so ``finally`` blocks remove temporary files); the previous handlers come back on exit.
    Does nothing in other threads or where a handler other than the default one is installed."""

    def __enter__(self):
        self.saved = _install(_raise_terminated)
        return self

    def __exit__(self, *exc):
        import signal
        for s, old in self.saved:
            signal.signal(s, old)
        return False


def _install(handler) -> list:
    """Make ``handler`` the handler of SIGTERM and SIGHUP where theirs is the default one, in the main thread:
    [(signal, previous handler)] of those it replaced."""
    import signal               # (here: it imports enum, which the writes through an unnamed file do without)
    saved = []
    for name in ("SIGTERM", "SIGHUP"):
        s = getattr(signal, name, None)
        if s is None:
            continue
        try:
            if signal.getsignal(s) == signal.SIG_DFL:
                saved.append((s, signal.signal(s, handler)))
        except (ValueError, OSError):   # not the main thread (or interpreter): signal() refuses
            pass
    return saved


class signals_deferred(signals_raise):
    """Context manager: in the main thread, SIGTERM and SIGHUP are noted, not acted on, until :meth:`check` (or
    the end of the block) raises :class:`Terminated` -- for code that must not be interrupted half way (waiting
    on worker threads that write files: an exception there could leave a worker running past the clean-up)."""

    def __enter__(self):
        self.pending = None

        def note(signum, frame):
            if self.pending is None:
                self.pending = signum
        self.saved = _install(note)
        return self

    def check(self) -> None:
        if self.pending is not None:
            signum, self.pending = self.pending, None
            raise Terminated(signum)

    def __exit__(self, *exc):
        super().__exit__(*exc)
        if exc[0] is None:
            self.check()
        return False


def _temporary_names(directory: str):
    """Fresh names ``.objllvm-RANDOM.tmp`` in ``directory`` for the caller to try, _TMP_ATTEMPTS of them; then
    FileExistsError (no name was free)."""
    for _ in range(_TMP_ATTEMPTS):
        yield os.path.join(directory, f".objllvm-{os.urandom(8).hex()}.tmp")
    raise FileExistsError(errno.EEXIST, f"no unused temporary file name after {_TMP_ATTEMPTS} attempts")


def _create_temporary(directory: str):
    """(fd, path): a new file ``.objllvm-RANDOM.tmp`` in ``directory`` (another name when one exists)."""
    for tmp in _temporary_names(directory):
        try:
            return os.open(tmp, _TMP_FLAGS, 0o600), tmp
        except FileExistsError:
            continue


def _create_unnamed(directory: str):
    """An fd of a new unnamed file in ``directory`` (O_TMPFILE), or None where the system refuses it, or
    refuses to give such a file a name (found once per process and file system, see :func:`_names_unnamed`)."""
    if not _unnamed_ok:
        return None
    flags = _O_TMPFILE | os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(directory, flags, 0o600)
    except OSError as exc:
        if exc.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOTSUP):
            return None             # the file system (or kernel) has no O_TMPFILE: use a named file
        raise
    try:
        dev = os.fstat(fd).st_dev
        ok = _linkable.get(dev)
        if ok is None:
            ok = _linkable[dev] = _names_unnamed(directory, flags)
    except BaseException:
        os.close(fd)
        raise
    if not ok:
        os.close(fd)
        return None
    return fd


_linkable: dict = {}        # st_dev -> whether an unnamed file there can be given a name (_names_unnamed)


def _open_dir(directory: str) -> int:
    return os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))


def _name_fd(fd: int, dirfd: int, name: str) -> None:
    """linkat(AT_FDCWD, "/proc/self/fd/<fd>", dirfd, name, AT_SYMLINK_FOLLOW): give the open file ``fd`` the name
    ``name`` in the directory ``dirfd``.  (With a directory descriptor os.link calls linkat, with the flag that
    follows the descriptor's link to the file; without one it calls link(2), which links the /proc entry
    itself and fails with EXDEV.)"""
    os.link(f"/proc/self/fd/{fd}", name, dst_dir_fd=dirfd, follow_symlinks=True)


def _names_unnamed(directory: str, flags: int) -> bool:
    """Whether an unnamed file made in ``directory`` can be given a name there through /proc/self/fd: tried on
    an empty one, before any data is written.  Some systems make the file and then refuse the link (EXDEV in
    some sandboxes, gVisor's among them); learning that only after writing would write the data twice, once
    into a file that cannot be kept.  (The empty file has a name for the microseconds between link and
    unlink.)"""
    try:
        fd = os.open(directory, flags, 0o600)
    except OSError:
        return False
    try:
        dirfd = _open_dir(directory)
    except OSError:
        os.close(fd)
        return False
    try:
        tmp = _link_temporary(fd, dirfd)
    except OSError:
        return True         # (no free name, or another error: the write itself will say so)
    finally:
        os.close(fd)
        if tmp is not None:
            try:
                os.unlink(tmp, dir_fd=dirfd)
            except OSError:
                pass
        os.close(dirfd)
    return tmp is not None


# linkat's refusals to name an unnamed file: no /proc, another mount as the kernel sees it, not allowed, not supported
_NO_NAME = (errno.ENOENT, errno.EXDEV, errno.EPERM, errno.EOPNOTSUPP)


def _link_temporary(fd: int, dirfd: int) -> str | None:
    """Give the unnamed file ``fd`` a fresh temporary name ``.objllvm-RANDOM.tmp`` in the directory ``dirfd``: the
    name (relative to it), or None where the system refuses to name it (_NO_NAME).  FileExistsError when no name
    is free."""
    for tmp in _temporary_names(""):
        try:
            _name_fd(fd, dirfd, tmp)
        except FileExistsError:
            continue
        except OSError as exc:
            if exc.errno in _NO_NAME:
                return None
            raise
        return tmp


_IOV_BATCH = 1024         # buffers handed to one writev() (Linux's IOV_MAX)


def _write_all(fd: int, data, copies=None) -> None:
    """Write ``data`` (a buffer, or an iterable of buffers: bytes-like, one byte per item) to ``fd``: with writev()
    where there is one, the buffers ``_IOV_BATCH`` at a time (a rewrite's output is tens of thousands of slices of
    the input: one system call per thousand of them, no copy in this process), else through a buffered file.

    ``copies`` (``data`` a list): (source file descriptor, [(index, offset)], its name): the buffers at those indices
    (in order) hold the source file's bytes from that offset on; the kernel copies them from the file (sendfile),
    without their pages entering this process, where it can (else they are written as the others)."""
    if copies and isinstance(data, list) and hasattr(os, "writev"):
        src, where, name = copies
        prev = 0
        for i, off in where:
            _write_buffers(fd, data[prev:i])
            _copy_range(fd, src, off, data[i], name)
            prev = i + 1
        data = data[prev:]
    _write_buffers(fd, data)


def _write_buffers(fd: int, data) -> None:
    """:func:`_write_all` without ``copies``."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        data = (data,)
    writev = getattr(os, "writev", None)
    if writev is None:          # pragma: no cover - not on Linux
        with os.fdopen(fd, "wb", closefd=False) as f:
            for chunk in data:
                f.write(chunk)
        return
    if isinstance(data, (list, tuple)):
        for k in range(0, len(data), _IOV_BATCH):
            _writev_all(writev, fd, list(data[k:k + _IOV_BATCH]))
        return
    batch: list = []
    for chunk in data:
        batch.append(chunk)
        if len(batch) >= _IOV_BATCH:
            _writev_all(writev, fd, batch)
            batch = []
    if batch:
        _writev_all(writev, fd, batch)


_sendfile_ok = hasattr(os, "sendfile")      # cleared when the system refuses it for a regular file


def _copy_range(fd: int, src: int, off: int, buf, name: str) -> None:
    """Append to ``fd`` the ``len(buf)`` bytes of file ``src`` (named ``name``) from ``off`` on, which ``buf`` holds
    too: copied by the kernel (sendfile) while it can, the rest written from ``buf``.  OSError (EIO) when ``src``
    ends sooner (the input shrank while it was being rewritten)."""
    global _sendfile_ok
    n = len(buf)
    done = 0
    while _sendfile_ok and done < n:
        try:
            k = os.sendfile(fd, src, off + done, n - done)
        except OSError:
            # Refused (EINVAL on Linux for some file systems, ENOTSOCK where the output must be a socket, ...): the
            # rest, and later copies, are written from the buffer, which says so again if the error was the disk's.
            _sendfile_ok = False
            break
        if k <= 0:
            raise OSError(errno.EIO, f"{name}: the input file ended at byte {off + done} while it was being copied "
                                     f"(it changed during the rewrite)")
        done += k
    if done < n:
        _writev_all(os.writev, fd, [memoryview(buf)[done:]])


def _writev_all(writev, fd: int, bufs: list) -> None:
    """writev() until every byte of ``bufs`` is written (a short write goes on from where it stopped)."""
    total = sum(map(len, bufs))
    while total:
        n = writev(fd, bufs)
        if n == total:
            return
        if n <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        total -= n
        k = 0
        while k < len(bufs) and n >= len(bufs[k]):
            n -= len(bufs[k])
            k += 1
        bufs = bufs[k:]
        if bufs and n:
            bufs[0] = memoryview(bufs[0])[n:]


def _link_unnamed(fd: int, directory: str, path: str, force: bool, exists: str) -> bool:
    """Give the unnamed file ``fd`` the name ``path`` (in ``directory``); False when the system cannot link it (the
    caller falls back to a named temporary file)."""
    global _unnamed_ok
    dirfd = _open_dir(directory)
    try:
        name = os.path.basename(path)
        if not force:
            try:
                _name_fd(fd, dirfd, name)        # fails if ``path`` exists
                return True
            except FileExistsError:
                raise ObjllvmError(f"{path}: exists ({exists})") from None
            except OSError as exc:
                if exc.errno in _NO_NAME:
                    _unnamed_ok = False
                    return False
                raise
        tmp = _link_temporary(fd, dirfd)
        if tmp is None:
            _unnamed_ok = False
            return False
        # Named only from here to the rename (a few microseconds); an error or Ctrl-C removes the name.
        try:
            os.replace(tmp, name, src_dir_fd=dirfd, dst_dir_fd=dirfd)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=dirfd)
            except OSError:
                pass
            raise
        return True
    finally:
        os.close(dirfd)


def _metadata(fd: int, path: str, mode: int, owner, xattrs_from, special_if) -> list:
    """Give the new file ``fd`` (to be named ``path``) its owner, extended attributes and mode, in that order:
    changing the owner clears the set-user-ID and set-group-ID bits and file capabilities, so the mode and the
    attributes come after it.  Returns the names of the bits dropped by ``special_if``."""
    dropped = []
    if owner is not None:
        st = os.fstat(fd)
        if (st.st_uid, st.st_gid) != tuple(owner):
            try:
                os.fchown(fd, *owner)
            except OSError as exc:
                raise OwnerError(f"{path}: cannot keep its owner and group (uid {owner[0]}, gid {owner[1]}): "
                                 f"{exc.strerror}; the file is left as it was (rewrite it as its owner, or as root)"
                                 ) from None
    if xattrs_from is not None:
        _copy_xattrs(xattrs_from, fd, path)
    if special_if is not None:
        st = os.fstat(fd)
        if mode & 0o4000 and st.st_uid != special_if[0]:
            mode &= ~0o4000
            dropped.append("set-user-ID")
        if mode & 0o2000 and st.st_gid != special_if[1]:
            mode &= ~0o2000
            dropped.append("set-group-ID")
    os.fchmod(fd, mode)
    return dropped


def _copy_xattrs(src: int, dst: int, path: str) -> None:
    """Copy every extended attribute of the file ``src`` to ``dst`` (the kernel bounds each value at 64 KiB);
    OwnerError when one cannot be set."""
    if not hasattr(os, "listxattr"):            # pragma: no cover - not on Linux
        return
    try:
        names = os.listxattr(src)
    except OSError as exc:
        if exc.errno in (errno.ENOTSUP, errno.EOPNOTSUPP):
            return              # no extended attributes on this file system
        raise
    for name in names:
        try:
            value = os.getxattr(src, name)
            os.setxattr(dst, name, value)
        except OSError as exc:
            raise OwnerError(f"{path}: cannot keep its extended attribute {name}: {exc.strerror}; the file is left "
                             f"as it was") from None


def atomic_write(path: str, data, *, force: bool = True, mode: int | None = None, check=None,
                 sync: bool = True, copies=None, owner=None, xattrs_from: int | None = None, special_if=None,
                 exists: str = "use --force to overwrite") -> list:
    """Write ``data`` (bytes, or an iterable of bytes chunks) to ``path`` atomically.

    ``force=False`` refuses to replace an existing file.  ``mode`` sets the permissions (default: those of the
    file being replaced, else 0o666 & ~umask).  ``check(buf)``, when given, is called with the written bytes (a
    read-only map of the temporary file) before the file takes its name; whatever it raises leaves nothing.
    ``sync=False`` leaves out the fsync() before the file takes its name: the file still appears whole or not at
    all to every reader, but a power cut soon after may leave it empty (as for the output of a compiler or
    linker); for an output written beside an input, never for a file replacing the only copy of something.
    ``copies`` (``data`` a list of buffers): (file descriptor, [(index, offset)], the file's name): buffers that hold
    that file's bytes from that offset on, for the kernel to copy from the file (see :func:`_write_all`).
    ``owner``, ``xattrs_from``, ``special_if``: see the module's documentation.  ``exists``: what the error for an
    existing target says to do (``force=False``).  Returns the names of the mode bits ``special_if`` dropped.
    """
    path = os.fspath(path)
    if not force and os.path.lexists(path):
        raise ObjllvmError(f"{path}: exists ({exists})")
    directory = os.path.dirname(os.path.abspath(path))
    if mode is None:
        try:
            mode = os.stat(path).st_mode & 0o7777
        except OSError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
    if not isinstance(data, (bytes, bytearray, memoryview)):
        data = list(data)           # (chunks: written a second time if linking the unnamed file fails)
    try:
        fd = _create_unnamed(directory)
    except OSError as exc:
        raise ObjllvmError(f"{path}: cannot create a temporary file in {directory}: {exc.strerror}") from None
    meta = (owner, xattrs_from, special_if)
    if fd is not None:
        # (no signal handler: a SIGTERM here ends the process, and the file, unnamed, with it)
        try:
            try:
                _write_all(fd, data, copies)
                if sync:
                    os.fsync(fd)
                dropped = _metadata(fd, path, mode, *meta)
                _check(fd, check)
                if _link_unnamed(fd, directory, path, force, exists):
                    return dropped
            finally:
                os.close(fd)
        except OSError as exc:
            raise ObjllvmError(f"{path}: cannot write: {exc.strerror or exc}") from None
    with signals_raise():           # a named file: SIGTERM removes it, as Ctrl-C does
        return _atomic_write_named(path, directory, data, force, mode, check, sync, copies, meta, exists)


def _check(fd: int, check, path: str | None = None) -> None:
    """Run ``check`` on the bytes written to ``fd`` (mapped read-only through a new descriptor -- ``path``, else
    /proc/self/fd -- so that nothing keeps the file open for writing, which would stop it from being run: the
    bytes are read back from the page cache, not copied).  The map is closed afterwards unless ``check`` kept a
    view of it (closing then would be refused: it goes with the last view)."""
    if check is None:
        return
    import mmap
    size = os.fstat(fd).st_size
    if not size:
        check(b"")
        return
    rfd = os.open(path or f"/proc/self/fd/{fd}", os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        m = mmap.mmap(rfd, size, access=mmap.ACCESS_READ)
    finally:
        os.close(rfd)
    check(m)
    try:
        m.close()
    except BufferError:
        pass


def _atomic_write_named(path, directory, data, force, mode, check=None, sync=True, copies=None,
                        meta=(None, None, None), exists="use --force to overwrite") -> list:
    try:
        fd, tmp = _create_temporary(directory)
    except OSError as exc:
        raise ObjllvmError(f"{path}: cannot create a temporary file in {directory}: {exc.strerror}") from None
    try:
        try:
            _write_all(fd, data, copies)
            if sync:
                os.fsync(fd)
            dropped = _metadata(fd, path, mode, *meta)
            _check(fd, check, tmp)
        finally:
            os.close(fd)
        if not force and os.path.lexists(path):
            raise ObjllvmError(f"{path}: exists ({exists})")
        os.replace(tmp, path)
        return dropped
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise ObjllvmError(f"{path}: cannot write: {exc.strerror or exc}") from None
        raise


_NO_JOB = object()


def run_in_threads(fn, jobs, workers: int) -> None:
    """``fn(job)`` for each of ``jobs`` in up to ``workers`` threads, this thread waiting until every one
    has finished: what ``ThreadPoolExecutor(workers).map`` does for the writers of many small files, whose
    fsyncs the file system then commits together, without importing concurrent.futures (and logging with it)
    into a small ``extract``.

    The first exception ``fn`` raises is raised here once every thread has stopped; no job starts after
    it.  If this thread is interrupted while it waits (KeyboardInterrupt, or Terminated from
    signals_raise), no job starts any more, the running ones finish, and then the interruption is raised:
    no thread is left writing behind the caller's clean-up.  With one worker the jobs run in this thread,
    one after the other (no thread to start or wait for)."""
    if workers <= 1:
        for job in jobs:
            fn(job)
        return
    import threading                     # (here: only the writers of many files run threads)
    it = iter(jobs)
    lock = threading.Lock()
    finished = threading.Lock()
    state = {"running": 0, "stop": False, "error": None}

    def worker(claim):
        # ``claim`` decides, under the lock, who counts this worker down: the worker, once it runs, or the
        # starting thread, when the start was interrupted before the worker ran (Thread.start can be
        # interrupted after the thread began: then the worker finds it claimed and runs no job)
        with lock:
            if claim[0]:
                return
            claim[0] = True
        try:
            while True:
                with lock:
                    job = _NO_JOB if state["stop"] else next(it, _NO_JOB)
                if job is _NO_JOB:
                    return
                try:
                    fn(job)
                except BaseException as exc:       # noqa: BLE001  (raised in the waiting thread)
                    with lock:
                        if state["error"] is None:
                            state["error"] = exc
                        state["stop"] = True
        finally:
            with lock:
                state["running"] -= 1
                if not state["running"]:
                    finished.release()

    finished.acquire()
    with lock:
        state["running"] = 1             # (this thread's share, given up once every worker has started)
    try:
        # (an interruption while the workers start, which the first job's may already be, is waited out as
        # one while they run: below)
        try:
            for _ in range(workers):
                claim = [False]
                with lock:
                    state["running"] += 1
                try:
                    threading.Thread(target=worker, args=(claim,), daemon=True).start()
                except BaseException:
                    with lock:
                        if not claim[0]:
                            claim[0] = True
                            state["running"] -= 1
                        state["stop"] = True
                    raise
        finally:
            with lock:
                state["running"] -= 1
                if not state["running"]:
                    finished.release()
        # (with a timeout: a blocked acquire would notice a signal only when it is really delivered, not one
        # simulated by interrupt_main, nor one that arrives between two acquires)
        while not finished.acquire(timeout=0.05):
            pass
    except BaseException:
        while True:                      # no job starts any more; the running ones finish, then it goes on
            try:
                with lock:
                    state["stop"] = True
                    if not state["running"]:
                        break
                finished.acquire(timeout=0.05)
            except BaseException:        # noqa: BLE001  (a second interruption: still wait for the writers)
                continue
        raise
    if state["error"] is not None:
        raise state["error"]
