"""The layouts of many functions, side by side in forked processes (:func:`layout_functions`).

Each function's layout (:func:`objllvm.perf.layout.layout_function`) depends on that function's profile alone:
shares of the functions go to forked processes, which send their layouts back through a pipe.
"""
from __future__ import annotations

import os

from . import layout as lay


# Below this many blocks in all the functions to lay out, one process does it: a second one costs more to start
# than it takes off.
PARALLEL_MIN_BLOCKS = 2000


def layout_jobs() -> int:
    """The processes :func:`layout_functions` uses by default: the CPUs this process may run on, at most 4."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    return max(1, min(4, n))


def layout_functions(fps, profile=None, *, algorithm: str = "ext-tsp", jobs: int | None = None) -> list:
    """:func:`~objllvm.perf.layout.layout_function` of each function profile of ``fps`` (``.function``,
    ``.blocks``), in order.

    With ``jobs`` > 1 (default :func:`layout_jobs`) and enough blocks, forked processes lay out shares of the
    functions (the biggest first, :func:`_cost`, to the least loaded share; this process lays out the first) and
    send their layouts back through a pipe; a share whose process fails is laid out here.  The layouts are
    those of one process: each function's is computed from the same input by the same code."""
    fps = list(fps)
    jobs = layout_jobs() if jobs is None else jobs
    out = [None] * len(fps)
    if jobs > 1 and _can_fork() and sum(len(fp.function.blocks) for fp in fps) >= PARALLEL_MIN_BLOCKS:
        shares = [[] for _ in range(min(jobs, len(fps)))]
        load = [0] + [FORK_COST] * (len(shares) - 1)
        for i in sorted(range(len(fps)), key=lambda i: -_cost(fps[i])):
            j = load.index(min(load))
            shares[j].append(i)
            load[j] += _cost(fps[i])
        children = [(_fork_layouts(fps, share, profile, algorithm), share) for share in shares[1:] if share]
        todo = shares[0]
    else:
        children, todo = [], range(len(fps))
    for i in todo:
        out[i] = lay.layout_function(fps[i].function, fps[i].blocks, profile, algorithm=algorithm)
    for child, share in children:
        got = _child_layouts(child)
        for n, i in enumerate(share):
            out[i] = (got[n] if got is not None and len(got) == len(share) else
                      lay.layout_function(fps[i].function, fps[i].blocks, profile, algorithm=algorithm))
    return out


def _can_fork() -> bool:
    """Whether forking is safe here: a platform with fork, and no other thread (a fork copies one thread alone, and
    a lock another one holds stays held in the child)."""
    import sys
    threading = sys.modules.get("threading")
    return hasattr(os, "fork") and (threading is None or threading.active_count() == 1)


def _cost(fp) -> int:
    """The work of laying out a function, roughly (fitted to the layout times of the functions of the benchmark
    programs of scripts/bench-layout): the square of its sampled blocks (the chains that merge), half its blocks
    (the edge estimates) and a part the same for every function."""
    return len(fp.blocks) ** 2 + len(fp.function.blocks) // 2 + FUNCTION_COST


# _cost's part the same for every function, and the cost of starting a forked process in the same units (its
# first writes copy the parent's pages): about that of a function of 25 sampled blocks.
FUNCTION_COST = 80
FORK_COST = 600


def _fork_layouts(fps, share, profile, algorithm):
    """``(pid, read end of a pipe)`` of a forked process writing the pickled layouts of ``share``; None when no
    process could be made."""
    import pickle
    try:
        r, w = os.pipe()
        pid = os.fork()
    except OSError:
        return None
    if pid == 0:                                # the child: its layouts into the pipe, then out
        code = 1
        try:
            os.close(r)
            data = pickle.dumps([lay.layout_function(fps[i].function, fps[i].blocks, profile, algorithm=algorithm)
                                 for i in share], protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(w, "wb") as f:
                f.write(data)
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    return pid, r


def _child_layouts(child):
    """The layouts a process of :func:`_fork_layouts` sent, or None when it failed."""
    import pickle
    if child is None:
        return None
    pid, r = child
    with os.fdopen(r, "rb") as f:
        data = f.read()
    _pid, status = os.waitpid(pid, 0)
    if status != 0:
        return None
    try:
        return pickle.loads(data)
    except Exception:       # a truncated or garbled pipe: lay the share out here
        return None
