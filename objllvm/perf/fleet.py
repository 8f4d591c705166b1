"""Read and merge many recordings on a Dask cluster (``pip install objllvm[fleet]``: dask[distributed]).

The work is the one :func:`objllvm.perf.merge.collect` does in local processes: every recording is reduced to its
``(build-id, file offset)`` counts where it is read (:func:`objllvm.perf.merge.read_one`, on a worker), and the
reduced profiles are summed by a tree of merge tasks on the workers, so only one merged profile (a few KB to a few
MB: distinct addresses, not samples) comes back to the caller.  Dask does the scheduling, the data transfer and the
retries; objllvm only says what to compute.

The workers must be able to read the paths they are given (a shared or replicated file system, or the same
machine: the default is a :class:`distributed.LocalCluster` of ``workers`` processes, one thread each).  With
``scheduler="tcp://host:8786"`` the work goes to a running cluster instead.
"""
from __future__ import annotations

import os

from ..errors import ObjllvmError
from .merge import MergedProfile, merge, read_one

CONNECT_TIMEOUT = "20s"     # to reach a scheduler given by address
INSTALL_HINT = "the fleet mode needs Dask: pip install 'objllvm[fleet]' (or pip install 'dask[distributed]')"


def _client(scheduler: str | None, workers: int):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ObjllvmError(INSTALL_HINT) from None
    if scheduler:
        try:
            return Client(scheduler, timeout=CONNECT_TIMEOUT), None
        except OSError as exc:
            raise ObjllvmError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
    cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True,
                           dashboard_address=None, silence_logs=40)
    return Client(cluster), cluster


def _read(path: str, with_branches: bool):
    """read_one on a worker; a bad input comes back as its ObjllvmError (a value, not a failed task: the
    workers do not log a traceback for what is the user's input, and the caller raises it)."""
    try:
        return read_one(path, with_branches)
    except ObjllvmError as exc:
        return exc


def _merge(*parts):
    for p in parts:
        if isinstance(p, ObjllvmError):
            return p
    return merge(*parts)


def collect(paths, *, scheduler: str | None = None, workers: int = 2, with_branches: bool = True,
            fanin: int = 8) -> MergedProfile:
    """Read and merge ``paths`` (perf.data files or saved profiles) on a Dask cluster; merged in input order."""
    paths = [os.fspath(p) for p in paths]
    if not paths:
        raise ObjllvmError("no profile to read (give perf.data files or saved profiles)")
    client, cluster = _client(scheduler, workers)
    try:
        futs = client.map(_read, paths, with_branches=with_branches, pure=False)
        # Sum on the workers, fanin profiles per task, keeping the input order (merge is exact integer addition:
        # any order gives the same counts; the order only fixes the list of recordings).
        while len(futs) > 1:
            futs = [client.submit(_merge, *futs[i:i + fanin], pure=False) for i in range(0, len(futs), fanin)]
        out = futs[0].result()
        if isinstance(out, ObjllvmError):
            raise out
        return out
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
