"""Code layout from instruction-pointer samples: block counts, edge weights, ext-TSP block order, C3 function order.

No branch records are needed (this machine has no LBR): everything starts from the samples per block of a
:class:`~objllvm.perf.mapping.Profile` and the basic-block address map of the binary.

1. **Block counts.**  cpu-clock samples measure time, not executions: a block's estimated execution count is its
   samples divided by its length in (roughly) instructions, ``size / 4`` bytes, at least one.
2. **Edge weights** (:func:`estimate_edges`).  The CFG comes from the PGO analysis map's successor lists (built
   with ``-mllvm -pgo-analysis-map=bb-freq,br-prob``) when the map has them, else from the layout (a block that
   can fall through reaches the next one).  Branch stacks, when the profile has them, are used as they are.
   Otherwise each edge ``a -> s`` gets ``count(a) x q(a, s)`` where ``q`` is the static branch probability
   re-weighted by how hot each successor was seen to be, averaged with the symmetric estimate from the
   successor's side (``count(s)`` shared among its predecessors).  Blocks without samples on a heavy edge
   between hot blocks (short jumps, loop latches that skid hides) count as hot.
3. **Block order** (:func:`ext_tsp_order`): greedy chain merging that maximises the ext-TSP score (fall-throughs
   score 1 per execution, short forward and backward jumps a little, decreasing with distance), trying each split
   point of the smaller chains like LLVM's CodeLayout; the entry block stays first.  Blocks not hot go to the
   function's cold part.
4. **Function order** (:func:`c3_order`): call-chain clustering (C3, Ottoni and Chen 2017): functions in order of
   hotness join the cluster of their heaviest caller while the cluster stays small and dense; clusters then
   sorted by density.  Call arcs come from the call sites in the text (``call``/``jmp rel32`` bytes with a
   relocation kept by ``-Wl,--emit-relocs``), weighted by the estimated count of the calling block.
"""
from __future__ import annotations

import itertools

from .._model import dataclass, field

# ext-TSP parameters (the published model: fall-through 1, jumps 0.1 within the distance windows).
FALLTHROUGH_WEIGHT = 1.0
FORWARD_WEIGHT = 0.1
BACKWARD_WEIGHT = 0.1
FORWARD_DISTANCE = 1024
BACKWARD_DISTANCE = 640
SPLIT_LIMIT = 48            # try split points only for chains up to this many blocks
PROB_ONE = 0x80000000


# -- ext-TSP ---------------------------------------------------------------------------------------------------
def edge_score(src_end: int, dst_addr: int, weight: float) -> float:
    if dst_addr == src_end:
        return weight * FALLTHROUGH_WEIGHT
    if dst_addr > src_end:
        d = dst_addr - src_end
        return weight * FORWARD_WEIGHT * (1 - d / FORWARD_DISTANCE) if d < FORWARD_DISTANCE else 0.0
    d = src_end - dst_addr
    return weight * BACKWARD_WEIGHT * (1 - d / BACKWARD_DISTANCE) if d < BACKWARD_DISTANCE else 0.0


def ext_tsp_score(order, sizes: dict, edges) -> float:
    """The ext-TSP score of the blocks ``order`` laid out back to back; ``edges`` is ``[(src, dst, weight)]``
    (edges touching blocks not in ``order`` are ignored)."""
    addr, a = {}, 0
    for b in order:
        addr[b] = a
        a += sizes[b]
    s = 0.0
    for src, dst, w in edges:
        if src in addr and dst in addr and w > 0:
            s += edge_score(addr[src] + sizes[src], addr[dst], w)
    return s


def ext_tsp_order(blocks, sizes: dict, edges, entry=None) -> list:
    """Order ``blocks`` (ids, e.g. in address order) to maximise :func:`ext_tsp_score`; ``entry`` stays first.

    Greedy chain merging: every block starts as a chain; repeatedly merge the two chains connected by an edge
    whose best concatenation (``X Y``, ``Y X``, or with ``X`` split at any point: ``X1 Y X2``, ``Y X2 X1``,
    ``X2 X1 Y``) gains the most score; stop when no merge gains.  Chains are then concatenated by decreasing
    density (weight per byte).  Never returns a worse score than ``blocks`` in their given order."""
    blocks = list(blocks)
    if len(blocks) <= 1:
        return blocks
    entry = blocks[0] if entry is None else entry
    members = set(blocks)
    es = [(a, b, w) for a, b, w in edges if a in members and b in members and w > 0]
    chain_of = {b: i for i, b in enumerate(blocks)}
    chains = {i: [b] for i, b in enumerate(blocks)}
    out_edges = {}
    for a, b, w in es:
        out_edges.setdefault(a, []).append((b, w))
        out_edges.setdefault(b, []).append((a, w))
    inner = {i: 0.0 for i in chains}   # score of the edges inside each chain
    for a, b, w in es:
        if a == b:
            inner[chain_of[a]] += edge_score(sizes[a], 0, w)
    edges_by_chain = {i: [] for i in chains}
    for e in es:
        edges_by_chain[chain_of[e[0]]].append(e)
        if chain_of[e[1]] != chain_of[e[0]]:
            edges_by_chain[chain_of[e[1]]].append(e)

    def score_of(order, elist):
        return ext_tsp_score(order, sizes, elist)

    def candidates(x, y):
        """Merged orders of chains x and y (lists), entry first when present."""
        yield x + y
        yield y + x
        if len(x) <= SPLIT_LIMIT:
            for k in range(1, len(x)):
                x1, x2 = x[:k], x[k:]
                yield x1 + y + x2
                yield y + x2 + x1
                yield x2 + x1 + y

    gain_cache = {}

    def best_merge(i, j):
        key = (min(i, j), max(i, j))
        hit = gain_cache.get(key)
        if hit is not None:
            return hit
        x, y = chains[i], chains[j]
        elist = list({id(e): e for e in edges_by_chain[i] + edges_by_chain[j]
                      if chain_of[e[0]] in (i, j) and chain_of[e[1]] in (i, j)}.values())
        base = inner[i] + inner[j]
        best = (0.0, None, 0.0)
        for xs, ys in ((x, y), (y, x)):
            for cand in candidates(xs, ys):
                if entry in members and (entry in x or entry in y) and cand[0] != entry:
                    continue
                s = score_of(cand, elist)
                if s - base > best[0] + 1e-9:
                    best = (s - base, cand, s)
        gain_cache[key] = best
        return best

    while True:
        pairs = set()
        for a, b, _w in es:
            ca, cb = chain_of[a], chain_of[b]
            if ca != cb:
                pairs.add((min(ca, cb), max(ca, cb)))
        best = None
        for i, j in pairs:
            g, cand, s = best_merge(i, j)
            if cand is not None and (best is None or g > best[0] + 1e-12 or (abs(g - best[0]) <= 1e-12
                                                                           and (i, j) < best[1])):
                best = (g, (i, j), cand, s)
        if best is None:
            break
        _g, (i, j), cand, s = best
        chains[i] = cand
        for b in chains[j]:
            chain_of[b] = i
        del chains[j]
        inner[i] = s
        del inner[j]
        merged = edges_by_chain[i] + edges_by_chain.pop(j)
        edges_by_chain[i] = list({id(e): e for e in merged}.values())
        for k in list(gain_cache):
            if i in k or j in k:
                del gain_cache[k]

    weight = {i: 0.0 for i in chains}
    for a, b, w in es:
        weight[chain_of[a]] += w
    first = chain_of[entry] if entry in members else None
    rest = sorted((c for c in chains if c != first),
                  key=lambda c: (-weight[c] / max(1, sum(sizes[b] for b in chains[c])), c))
    order = ([] if first is None else chains[first]) + [b for c in rest for b in chains[c]]
    if ext_tsp_score(order, sizes, es) + 1e-9 < ext_tsp_score(blocks, sizes, es):
        return blocks
    return order


def best_order_brute_force(blocks, sizes, edges, entry=None):
    """The optimum of :func:`ext_tsp_score` over all orders with ``entry`` first (tests; tiny inputs only)."""
    blocks = list(blocks)
    entry = blocks[0] if entry is None else entry
    rest = [b for b in blocks if b != entry]
    best = (-1.0, None)
    for perm in itertools.permutations(rest):
        order = [entry, *perm]
        s = ext_tsp_score(order, sizes, edges)
        if s > best[0] + 1e-12:
            best = (s, order)
    return best[1], best[0]


# -- C3 function ordering --------------------------------------------------------------------------------------
def c3_order(functions, arcs, *, max_cluster: int = 1 << 16, max_density_drop: float = 8.0) -> list:
    """Order functions by call-chain clustering.

    ``functions``: ``{name: (samples, size)}``; ``arcs``: ``{(caller, callee): weight}``.  Functions, hottest
    first, are appended to the cluster of their heaviest caller when the merged cluster stays within
    ``max_cluster`` bytes and the caller's cluster does not get ``max_density_drop`` times sparser; clusters are
    then sorted by density (samples per byte), densest first.  Returns every name of ``functions`` once."""
    names = sorted(functions, key=lambda f: (-functions[f][0], f))
    cluster_of = {f: f for f in names}
    members = {f: [f] for f in names}
    size = {f: max(1, functions[f][1]) for f in names}
    samples = {f: functions[f][0] for f in names}
    callers = {}
    for (a, b), w in arcs.items():
        if a in functions and b in functions and a != b and w > 0:
            callers.setdefault(b, []).append((w, a))
    for f in names:
        if not callers.get(f):
            continue
        w, caller = max(callers[f], key=lambda t: (t[0], t[1]))
        cc, cf = cluster_of[caller], cluster_of[f]
        if cc == cf or cf != f and members[cf][0] != f:
            continue
        if size[cc] + size[cf] > max_cluster:
            continue
        d_old = samples[cc] / size[cc]
        d_new = (samples[cc] + samples[cf]) / (size[cc] + size[cf])
        if d_new * max_density_drop < d_old:
            continue
        members[cc].extend(members.pop(cf))
        for g in members[cc]:
            cluster_of[g] = cc
        size[cc] += size.pop(cf)
        samples[cc] += samples.pop(cf)
    order = sorted(members, key=lambda c: (-samples[c] / size[c], c))
    return [f for c in order for f in members[c]]


def call_distance(order, functions, arcs) -> float:
    """Sum over call arcs of weight x bytes from the caller's end to the callee's start (0 when the callee
    directly follows its caller; lower is better)."""
    pos, a = {}, 0
    for f in order:
        pos[f] = a
        a += max(1, functions[f][1])
    return sum(w * abs(pos[y] - (pos[x] + max(1, functions[x][1])))
               for (x, y), w in arcs.items() if x in pos and y in pos)


# -- from a profile --------------------------------------------------------------------------------------------
def block_counts(fn, block_samples: dict) -> dict:
    """Estimated executions per block: samples / max(1, size / 4)."""
    return {b.id: block_samples.get(b.id, 0) / max(1.0, b.size / 4.0) for b in fn.blocks}


def static_successors(fn) -> dict:
    """``{id: {succ: probability 0..1}}`` from the PGO analysis map, else from layout fall-through."""
    pgo = getattr(fn, "pgo_blocks", None)
    if pgo and any(getattr(p, "successors", None) for p in pgo):
        out = {}
        for blk, p in zip(fn.blocks, pgo):
            out[blk.id] = {s.id: (s.probability or 0) / PROB_ONE for s in p.successors or ()}
        return out
    blocks = sorted(fn.blocks, key=lambda b: b.address)
    out = {b.id: {} for b in blocks}
    for a, b in zip(blocks, blocks[1:]):
        if a.can_fall_through:
            out[a.id][b.id] = 1.0
    return out


def estimate_edges(fn, block_samples: dict, profile=None):
    """``({(a, b): weight}, counts, source)`` for one function (see the module docstring)."""
    if profile is not None:
        br = profile.edges_of(fn)
        if br:
            counts = {b.id: 0.0 for b in fn.blocks}
            w = {}
            for (a, b), (t, f) in br.items():
                w[(a, b)] = float(t + f)
                counts[a] = counts.get(a, 0) + t + f
            return w, counts, "branch stacks"
    counts = block_counts(fn, block_samples)
    succ = static_successors(fn)
    source = "pgo analysis map" if getattr(fn, "pgo_blocks", None) and any(
        getattr(p, "successors", None) for p in fn.pgo_blocks) else "layout"
    top = max(counts.values(), default=0.0)
    eps = 0.02 * top
    fwd = {}
    for a, ss in succ.items():
        tot = sum(p * (counts.get(s, 0) + eps) for s, p in ss.items())
        for s, p in ss.items():
            fwd[(a, s)] = counts.get(a, 0) * (p * (counts.get(s, 0) + eps) / tot if tot > 0 else 0)
    preds = {}
    for (a, s), _ in fwd.items():
        preds.setdefault(s, []).append(a)
    bwd = {}
    for s, ps in preds.items():
        tot = sum((counts.get(a, 0) + eps) * succ[a][s] for a in ps)
        for a in ps:
            bwd[(a, s)] = counts.get(s, 0) * ((counts.get(a, 0) + eps) * succ[a][s] / tot if tot > 0 else 0)
    w = {e: (fwd.get(e, 0) + bwd.get(e, 0)) / 2 for e in fwd}
    return w, counts, source


def hot_blocks(fn, counts: dict, weights: dict, *, edge_share: float = 0.01) -> set:
    """Blocks with samples, plus blocks on an edge carrying ``edge_share`` of the function's heaviest count."""
    top = max(counts.values(), default=0.0)
    hot = {b for b, c in counts.items() if c > 0}
    if top > 0:
        for (a, b), w in weights.items():
            if w >= edge_share * top:
                hot.add(a)
                hot.add(b)
    if fn.ranges and fn.ranges[0].blocks:
        hot.add(fn.ranges[0].blocks[0].id)
    return hot & {b.id for b in fn.blocks}


@dataclass
class FunctionLayout:
    function: str
    address: int
    block_ids: list                  # hot blocks in layout order (the entry first)
    samples: int
    hot_size: int                    # bytes of the hot blocks
    size: int                        # bytes of all blocks
    edge_source: str
    counts: dict = field(default_factory=dict)     # block id -> estimated count
    weights: dict = field(default_factory=dict)    # (a, b) -> estimated edge count
    score_before: float = 0.0        # ext-TSP score of the hot blocks in address order
    score_after: float = 0.0


def layout_function(fn, block_samples: dict, profile=None, *, algorithm: str = "ext-tsp") -> FunctionLayout:
    weights, counts, source = estimate_edges(fn, block_samples, profile)
    if not fn.blocks:
        return FunctionLayout(fn.name, fn.address, [], 0, 0, 0, source)
    hot = hot_blocks(fn, counts, weights)
    by_addr = [b for b in sorted(fn.blocks, key=lambda b: b.address) if b.id in hot]
    entry = fn.ranges[0].blocks[0].id if fn.ranges and fn.ranges[0].blocks else by_addr[0].id
    ids = [entry] + [b.id for b in by_addr if b.id != entry]
    sizes = {b.id: b.size for b in fn.blocks}
    elist = [(a, b, w) for (a, b), w in weights.items()]
    before = ext_tsp_score(ids, sizes, elist)
    if algorithm == "ext-tsp":
        ids = ext_tsp_order(ids, sizes, elist, entry)
    return FunctionLayout(fn.name, fn.address, ids, sum(block_samples.values()),
                          sum(sizes[i] for i in ids), sum(sizes.values()), source, counts, weights,
                          before, ext_tsp_score(ids, sizes, elist))


def build_layouts(profile, *, min_share: float = 0.0005, min_samples: int = 1, algorithm: str = "ext-tsp") -> list:
    """A :class:`FunctionLayout` per sampled, named function with at least ``min_share`` of the mapped samples."""
    total = profile.mapped_samples or 1
    out = []
    for fp in profile.functions:
        if fp.samples < min_samples or fp.samples / total < min_share or not fp.function.name:
            continue
        out.append(layout_function(fp.function, fp.blocks, profile, algorithm=algorithm))
    return out


CALL_REL32, JMP_REL32 = 0xE8, 0xE9
_PC_RELOCS = {2, 4}     # R_X86_64_PC32, R_X86_64_PLT32


def call_arcs(obj, index, profile) -> dict:
    """``{(caller, callee): weight}`` from the direct calls and tail jumps of a linked x86-64 ELF file whose
    relocations were kept (``-Wl,--emit-relocs``); weight: the estimated count of the calling block.

    A call site is a ``call``/``jmp rel32`` whose displacement has a PC-relative relocation: the relocation
    says the four bytes are a displacement (no guessing where instructions start), the linked displacement
    gives the target; targets that are not the start of a mapped function (PLT entries) are left out."""
    counts = {}
    for fp in profile.functions:
        counts[fp.function.address] = block_counts(fp.function, fp.blocks)
    func_at = {}
    for f in index.functions:
        func_at[f.address] = f
    arcs = {}
    for sec in obj.sections:
        if not (sec.flags & 4) or sec.type != 1:      # SHF_EXECINSTR, SHT_PROGBITS
            continue
        relocs = obj.relocations_for(sec)
        if not relocs:
            continue
        data = sec.data()
        for r in relocs:
            if r.type not in _PC_RELOCS:
                continue
            off = r.offset - sec.addr
            if off < 1 or off + 4 > len(data) or data[off - 1] not in (CALL_REL32, JMP_REL32):
                continue
            # the linked displacement (the relocation may name a section symbol: static functions)
            callee = func_at.get(r.offset + 4 + int.from_bytes(data[off:off + 4], "little", signed=True))
            if callee is None or not callee.name:
                continue
            hit = index.lookup(r.offset)
            if hit is None:
                continue
            caller, block = hit
            c = counts.get(caller.address, {}).get(block.id, 0)
            if c > 0 and caller.name and caller.name != callee.name:
                arcs[(caller.name, callee.name)] = arcs.get((caller.name, callee.name), 0) + c
    return arcs


def function_order(profile, layouts, arcs, *, algorithm: str = "c3") -> list:
    """Names of the sampled functions in C3 order (``algorithm='hotness'``: by samples)."""
    hot_size = {lay.function: lay.hot_size for lay in layouts}
    funcs = {}
    for fp in profile.functions:
        name = fp.function.name
        if not name or fp.samples <= 0:
            continue
        funcs[name] = (fp.samples, hot_size.get(name, sum(b.size for b in fp.function.blocks)))
    if algorithm == "hotness":
        return sorted(funcs, key=lambda f: (-funcs[f][0], f))
    return c3_order(funcs, arcs)


def function_order_text(names, *, comment: str | None = None) -> str:
    lines = [f"# {c}" for c in (comment or "").splitlines() if c]
    return "\n".join(lines + list(names)) + "\n"


def has_text_relocations(obj) -> bool:
    """Whether a linked file kept relocations for its executable sections (``-Wl,--emit-relocs``)."""
    return any(s.flags & 4 and s.type == 1 and obj.relocation_sections_for(s) for s in obj.sections)


def order_for_binary(profile, binary: str, *, algorithm: str = "c3", min_share: float = 0.0) -> tuple:
    """``(function names in order, call arcs, whether the text has relocations)`` for the binary ``profile``
    was mapped to."""
    from .mapping import load_index
    from ..formats import open_object
    obj = open_object(binary)
    index = load_index(obj, binary)
    layouts = build_layouts(profile, min_share=min_share, algorithm="address")
    arcs = call_arcs(obj, index, profile) if algorithm == "c3" else {}
    return function_order(profile, layouts, arcs, algorithm=algorithm), arcs, has_text_relocations(obj)
