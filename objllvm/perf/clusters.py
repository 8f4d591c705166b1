"""Basic-block layout clusters from a profile, in the file format clang reads with
``-fbasic-block-sections=list=FILE``.

clang-19 reads two versions of that file (llvm/lib/CodeGen/BasicBlockSectionsProfileReader.cpp): the old one
(``!function`` then ``!!id id ...``) and ``v1`` (a ``v1`` line, then ``f function`` and ``c id id ...``).
objllvm writes ``v1``; ``#`` lines are comments.  The blocks of one ``c`` line are placed together, in order, in
the function's hot section; blocks not listed go to the function's ``.cold`` part.

Order of the hot blocks of a function: start at the entry block, then repeatedly follow the heaviest edge to a hot
block not yet placed (the heaviest path).  Edge weights come, in that order of preference, from branch stacks
(taken + fall-through counts), from the PGO analysis map (block frequency x branch probability), else from the
layout (a block that can fall through to the next one, weighted by the smaller of their sample counts).  When the
path ends, the next hot block after it in address order continues it.
"""
from __future__ import annotations

from .._model import dataclass


@dataclass
class Cluster:
    function: str
    block_ids: list
    samples: int
    edge_source: str          # 'branch stacks' / 'pgo analysis map' / 'layout'


def function_edges(fn, profile=None, block_samples=None):
    """``({id: {succ id: weight}}, source)`` for one function, from the best source available."""
    if profile is not None:
        br = profile.edges_of(fn)
        if br:
            out = {}
            for (a, b), (t, f) in br.items():
                out.setdefault(a, {})[b] = out.get(a, {}).get(b, 0) + t + f
            return out, "branch stacks"
    pgo = getattr(fn, "pgo_blocks", None)
    if pgo and any(getattr(p, "successors", None) for p in pgo):
        out = {}
        for blk, p in zip(fn.blocks, pgo):
            freq = getattr(p, "frequency", None) or 1
            for s in p.successors or ():
                prob = (s.probability or 0) / 0x80000000
                out.setdefault(blk.id, {})[s.id] = freq * prob
        return out, "pgo analysis map"
    samples = block_samples or {}
    blocks = sorted(fn.blocks, key=lambda b: b.address)
    out = {}
    for a, b in zip(blocks, blocks[1:]):
        if a.can_fall_through:
            out.setdefault(a.id, {})[b.id] = min(samples.get(a.id, 0), samples.get(b.id, 0))
    return out, "layout"


def order_blocks(fn, block_samples: dict, edges: dict, *, edges_are_counts: bool = False) -> list:
    """Hot block ids of ``fn`` along the heaviest path from the entry block.  Hot: sampled, or (when
    ``edges_are_counts``: edges from branch stacks) on an edge that was taken."""
    blocks = sorted(fn.blocks, key=lambda b: b.address)
    if not blocks:
        return []
    entry = fn.ranges[0].blocks[0].id if fn.ranges and fn.ranges[0].blocks else blocks[0].id
    hot = {bid for bid, c in block_samples.items() if c > 0}
    if edges_are_counts:
        for a, succ in edges.items():
            for b, w in succ.items():
                if w > 0:
                    hot.add(a)
                    hot.add(b)
    valid = {b.id for b in blocks}
    hot &= valid
    hot.add(entry)
    pos = {b.id: i for i, b in enumerate(blocks)}
    placed = [entry]
    done = {entry}
    cur = entry
    while len(placed) < len(hot):
        cands = [(w, -pos[b], b) for b, w in edges.get(cur, {}).items() if b in hot and b not in done and w > 0]
        if cands:
            nxt = max(cands)[2]
        else:
            rest = sorted((pos[b], b) for b in hot if b not in done)
            after = [b for p, b in rest if p > pos[cur]]
            nxt = after[0] if after else rest[0][1]
        placed.append(nxt)
        done.add(nxt)
        cur = nxt
    return placed


def build_clusters(profile, *, min_share: float = 0.005, min_samples: int = 1) -> list:
    """One :class:`Cluster` per hot function of ``profile`` (functions with at least ``min_share`` of the
    mapped samples and ``min_samples`` samples), hottest first."""
    total = profile.mapped_samples or 1
    out = []
    for fp in profile.functions:
        if fp.samples < min_samples or fp.samples / total < min_share or not fp.function.name:
            continue
        edges, source = function_edges(fp.function, profile, fp.blocks)
        ids = order_blocks(fp.function, fp.blocks, edges, edges_are_counts=source == "branch stacks")
        out.append(Cluster(fp.function.name, ids, fp.samples, source))
    return out


def cluster_text(clusters, *, comment: str | None = None) -> str:
    """The v1 cluster file clang-19 accepts with ``-fbasic-block-sections=list=FILE``."""
    lines = ["v1"]
    if comment:
        lines.extend(f"# {c}" for c in comment.splitlines())
    for c in clusters:
        lines.append(f"f {c.function}")
        lines.append("c " + " ".join(str(i) for i in c.block_ids))
    return "\n".join(lines) + "\n"


def write_clusters(path: str, clusters, *, comment: str | None = None, force: bool = True) -> None:
    from ..atomicio import atomic_write
    atomic_write(path, cluster_text(clusters, comment=comment).encode(), force=force)


def parse_cluster_text(text: str) -> dict:
    """``{function: [[ids], ...]}`` from a cluster file of either version (for checks and tests)."""
    out, cur = {}, None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or line == "v1":
            continue
        if line.startswith("!!"):
            out[cur].append([int(x) for x in line[2:].split()])
        elif line.startswith("!"):
            cur = line[1:].split("/")[0].strip()
            out[cur] = []
        elif line.startswith("f "):
            cur = line[2:].split()[0]
            out[cur] = []
        elif line.startswith("c "):
            out[cur].append([int(x) for x in line[2:].split()])
    return out
