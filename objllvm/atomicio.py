"""Write files atomically: a temporary file in the target directory, then rename.

A failure at any point leaves the target as it was (absent or old) and no temporary file behind.
"""
from __future__ import annotations

import errno
import os

from .errors import ObjllvmError

# The temporary file: created, never opened (O_EXCL), not followed if a link (O_NOFOLLOW), not inherited by
# child processes (O_CLOEXEC), mode 0o600 until the data is in; as tempfile.mkstemp makes it, without
# importing tempfile (its imports, shutil, random, bz2 and lzma among them, take about 2.5 ms at start-up).
_TMP_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
              | getattr(os, "O_BINARY", 0))
_TMP_ATTEMPTS = 100


def _create_temporary(directory: str):
    """(fd, path): a new file ``.objllvm-RANDOM.tmp`` in ``directory`` (another name when one exists)."""
    for _ in range(_TMP_ATTEMPTS):
        tmp = os.path.join(directory, f".objllvm-{os.urandom(8).hex()}.tmp")
        try:
            return os.open(tmp, _TMP_FLAGS, 0o600), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, f"no unused temporary file name after {_TMP_ATTEMPTS} attempts")


def atomic_write(path: str, data, *, force: bool = True, mode: int | None = None) -> None:
    """Write ``data`` (bytes, or an iterable of bytes chunks) to ``path`` atomically.

    ``force=False`` refuses to replace an existing file.  ``mode`` sets the permissions (default: those of the
    file being replaced, else 0o666 & ~umask).
    """
    path = os.fspath(path)
    if not force and os.path.lexists(path):
        raise ObjllvmError(f"{path}: exists (use --force to overwrite)")
    directory = os.path.dirname(os.path.abspath(path))
    if mode is None:
        try:
            mode = os.stat(path).st_mode & 0o7777
        except OSError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
    try:
        fd, tmp = _create_temporary(directory)
    except OSError as exc:
        raise ObjllvmError(f"{path}: cannot create a temporary file in {directory}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            if isinstance(data, (bytes, bytearray, memoryview)):
                f.write(data)
            else:
                for chunk in data:
                    f.write(chunk)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        if not force and os.path.lexists(path):
            raise ObjllvmError(f"{path}: exists (use --force to overwrite)")
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise ObjllvmError(f"{path}: cannot write: {exc.strerror or exc}") from None
        raise
