"""Basic-block layout clusters from a profile, in the file format clang reads with
``-fbasic-block-sections=list=FILE``.

clang-19 reads two versions of that file (llvm/lib/CodeGen/BasicBlockSectionsProfileReader.cpp): the old one
(``!function`` then ``!!id id ...``) and ``v1`` (a ``v1`` line, then ``f function`` and ``c id id ...``).
objllvm writes ``v1``; ``#`` lines are comments.  The blocks of one ``c`` line are placed together, in order, in
the function's hot section; blocks not listed go to the function's ``.cold`` part.

clang-22 reads two more ``v1`` line kinds, which objllvm writes when it has the data:

* ``p A B C ...``: clone the path ``B C ...`` along the edge ``A -> B``; the clones are then named ``B.1``,
  ``C.1`` (``.2`` for a block's second clone...) in the ``c`` lines.  Written from branch stacks only: samples of
  the instruction pointer say nothing about which path reached a block.
* ``g SRC:COUNT,SUCC:COUNT,... SRC:COUNT,...``: the function's CFG profile, a block count and its outgoing
  edge counts per source block.  With ``-mllvm -pgo-analysis-map-emit-bb-sections-cfg`` (and
  ``-mllvm -pgo-analysis-map=...``) clang-22 copies these counts into the PGO analysis map of the rebuilt
  binary as its post-link frequencies (``PostLinkCfg`` feature), where ``llvm-readobj-22 --bb-addr-map`` shows
  them.

Order of the hot blocks of a function: start at the entry block, then repeatedly follow the heaviest edge to a hot
block not yet placed (the heaviest path).  Edge weights come, in that order of preference, from branch stacks
(taken + fall-through counts), from the PGO analysis map (block frequency x branch probability), else from the
layout (a block that can fall through to the next one, weighted by the smaller of their sample counts).  When the
path ends, the next hot block after it in address order continues it.
"""
from __future__ import annotations

from .._model import dataclass, field


@dataclass
class Cluster:
    function: str
    block_ids: list           # ints, or "id.clone" strings for cloned blocks
    samples: int
    edge_source: str          # 'branch stacks' / 'pgo analysis map' / 'layout'
    counts: dict = field(default_factory=dict)        # block id -> count (the ``g`` line), optional
    edges: dict = field(default_factory=dict)         # (from id, to id) -> count (the ``g`` line), optional
    clone_paths: list = field(default_factory=list)   # [[from id, id, ...]] (``p`` lines), optional
    hot_size: int = 0         # bytes of the listed blocks (the function's hot part)


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


def build_clusters(profile, *, min_share: float = 0.005, min_samples: int = 1, layout: str = "heaviest-path",
                   cfg: bool = False, clone_paths: bool = False, jobs: int | None = None) -> list:
    """One :class:`Cluster` per hot function of ``profile`` (functions with at least ``min_share`` of the
    mapped samples and ``min_samples`` samples), hottest first.

    ``layout``: ``'heaviest-path'`` (this module: follow the heaviest edge from the entry) or ``'ext-tsp'``
    (:mod:`objllvm.perf.layout`: estimated edge counts, ext-TSP chain merging).  ``cfg``: keep the counts for a
    ``g`` line.  ``clone_paths``: with branch stacks, clone small join blocks along their second-heaviest
    incoming edge (``p`` lines).  ``jobs``: processes for the ext-TSP layouts (see
    :func:`objllvm.perf.forked.layout_functions`)."""
    if layout not in ("heaviest-path", "ext-tsp"):
        raise ValueError(f"unknown layout {layout!r}")
    if layout == "ext-tsp" or cfg or clone_paths:
        from . import layout as lay
        total = profile.mapped_samples or 1
        out = []
        fps = [fp for fp in profile.functions
               if fp.samples >= min_samples and fp.samples / total >= min_share and fp.function.name]
        from .forked import layout_functions
        fls = layout_functions(fps, profile, algorithm="ext-tsp" if layout == "ext-tsp" else "address",
                                   jobs=jobs)
        for fp, fl in zip(fps, fls):
            ids = fl.block_ids
            if layout == "heaviest-path":
                edges, _src = function_edges(fp.function, profile, fp.blocks)
                ids = order_blocks(fp.function, fp.blocks, edges, edges_are_counts=_src == "branch stacks")
            c = Cluster(fp.function.name, ids, fp.samples, fl.edge_source)
            sizes = {b.id: b.size for b in fp.function.blocks}
            c.hot_size = sum(sizes.get(i, 0) for i in ids)
            if cfg:
                c.counts, c.edges = cfg_counts(fl)
            if clone_paths and fl.edge_source == "branch stacks":
                add_clone_paths(c, fp.function, fl)
            out.append(c)
        return out
    total = profile.mapped_samples or 1
    out = []
    for fp in profile.functions:
        if fp.samples < min_samples or fp.samples / total < min_share or not fp.function.name:
            continue
        edges, source = function_edges(fp.function, profile, fp.blocks)
        ids = order_blocks(fp.function, fp.blocks, edges, edges_are_counts=source == "branch stacks")
        out.append(Cluster(fp.function.name, ids, fp.samples, source))
    return out


COUNT_SCALE = 100   # g-line counts: estimated executions per block x 100, rounded


def cfg_counts(fl) -> tuple:
    """``(counts, edges)`` as integers for a ``g`` line from a :class:`~objllvm.perf.layout.FunctionLayout`."""
    edges = {e: int(round(w * COUNT_SCALE)) for e, w in fl.weights.items() if w > 0}
    edges = {e: w for e, w in edges.items() if w > 0}
    out_sum, in_sum = {}, {}
    for (a, b), w in edges.items():
        out_sum[a] = out_sum.get(a, 0) + w
        in_sum[b] = in_sum.get(b, 0) + w
    # a block runs at least as often as its edges say (the estimates of both sides are averaged)
    counts = {b: max(int(round(c * COUNT_SCALE)), out_sum.get(b, 0), in_sum.get(b, 0))
              for b, c in fl.counts.items()}
    return {b: c for b, c in counts.items() if c > 0}, edges


def add_clone_paths(c: Cluster, fn, fl, *, max_size: int = 64, min_share: float = 0.2) -> None:
    """Clone each small join block ``J`` of ``c`` along its second-heaviest measured incoming edge ``P -> J``
    (when that edge carries ``min_share`` of ``J``'s inflow and ``P`` is in the hot layout), and place the
    clone ``J.1`` right after ``P``: ``P`` then falls through into its own copy of ``J``."""
    by_id = {b.id: b for b in fn.blocks}
    entry = fn.ranges[0].blocks[0].id if fn.ranges and fn.ranges[0].blocks else None
    preds = {}
    for (a, b), w in fl.weights.items():
        if a != b:
            preds.setdefault(b, []).append((w, a))
    order = list(c.block_ids)
    cloned = set()
    for j, ps in sorted(preds.items()):
        blk = by_id.get(j)
        if (blk is None or j == entry or blk.size > max_size or blk.is_eh_pad or blk.has_indirect_branch
                or len(ps) < 2 or j not in order):
            continue
        ps.sort(reverse=True)
        w2, p2 = ps[1]
        if w2 < min_share * sum(w for w, _ in ps) or p2 not in order or p2 in cloned or j in cloned:
            continue
        # the clone only helps if P does not already fall through into J
        if order.index(p2) + 1 < len(order) and order[order.index(p2) + 1] == j:
            continue
        c.clone_paths.append([p2, j])
        order.insert(order.index(p2) + 1, f"{j}.1")
        cloned.update((p2, j))
    c.block_ids = order


def cluster_text(clusters, *, comment: str | None = None) -> str:
    """The v1 cluster file clang accepts with ``-fbasic-block-sections=list=FILE`` (``p`` and ``g`` lines
    only when the clusters carry clone paths or counts: clang-19 rejects ``g``)."""
    lines = ["v1"]
    if comment:
        lines.extend(f"# {c}" for c in comment.splitlines())
    for c in clusters:
        lines.append(f"f {c.function}")
        for path in c.clone_paths:
            lines.append("p " + " ".join(str(i) for i in path))
        lines.append("c " + " ".join(str(i) for i in c.block_ids))
        if c.counts or c.edges:
            succ = {}
            for (a, b), w in sorted(c.edges.items()):
                succ.setdefault(a, []).append(f"{b}:{w}")
            nodes = sorted(set(c.counts) | set(succ))
            lines.append("g " + " ".join(",".join([f"{a}:{c.counts.get(a, 0)}", *succ.get(a, [])])
                                         for a in nodes))
    return "\n".join(lines) + "\n"


def write_clusters(path: str, clusters, *, comment: str | None = None, force: bool = True) -> None:
    from ..atomicio import atomic_write
    atomic_write(path, cluster_text(clusters, comment=comment).encode(), force=force)


def _bbid(s: str):
    return int(s) if "." not in s else s


def parse_profile_text(text: str) -> dict:
    """``{function: {"clusters": [[ids]], "paths": [[ids]], "counts": {id: n}, "edges": {(a, b): n}}}`` from a
    v1 file (ids are ints, cloned blocks ``"id.clone"`` strings)."""
    out, cur = {}, None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or line == "v1":
            continue
        kind, _, rest = line.partition(" ")
        if kind == "f":
            cur = out.setdefault(rest.split()[0], {"clusters": [], "paths": [], "counts": {}, "edges": {}})
        elif kind == "c":
            cur["clusters"].append([_bbid(x) for x in rest.split()])
        elif kind == "p":
            cur["paths"].append([int(x) for x in rest.split()])
        elif kind == "g":
            for node in rest.split():
                parts = [p.split(":") for p in node.split(",")]
                src = _bbid(parts[0][0])
                cur["counts"][src] = int(parts[0][1])
                for b, n in parts[1:]:
                    cur["edges"][(src, _bbid(b))] = int(n)
    return out


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
            out[cur].append([_bbid(x) for x in line[2:].split()])
    return out
