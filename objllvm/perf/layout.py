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

import bisect
import heapq
import itertools

from .._model import dataclass, field

# ext-TSP parameters (the published model: fall-through 1, jumps 0.1 within the distance windows).
FALLTHROUGH_WEIGHT = 1.0
FORWARD_WEIGHT = 0.1
BACKWARD_WEIGHT = 0.1
FORWARD_DISTANCE = 1024
BACKWARD_DISTANCE = 640
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


# Merge kinds of two chains X (split at node index k into X1 = X[:k], X2 = X[k:]) and Y.
X_Y, X1_Y_X2, Y_X2_X1, X2_X1_Y = range(4)
SPLIT_THRESHOLD = 128        # split points are tried only in chains of at most this many blocks
EPS = 1e-8


def _merge_nodes(x, y, k, kind):
    if kind == X_Y:
        return x + y
    if kind == X1_Y_X2:
        return x[:k] + y + x[k:]
    if kind == Y_X2_X1:
        return y + x[k:] + x[:k]
    return x[k:] + x[:k] + y


class _Chains:
    """Chains of nodes with their sizes, the jumps inside each chain and between each pair of chains."""

    def __init__(self, sizes, edges):
        n = len(sizes)
        self.size = sizes                       # node -> bytes
        self.edges = edges                      # [(src, dst, weight)], src != dst, weight > 0
        self.nodes = {c: [c] for c in range(n)}
        self.chain = list(range(n))             # node -> chain id
        self.index = [0] * n                    # node -> index in its chain
        self.off = [0] * n                      # node -> byte offset in its chain
        self.csize = {c: max(0, sizes[c]) for c in range(n)}
        self.intra = {c: [] for c in range(n)}  # chain -> edge indices inside it
        self.nbr = {c: {} for c in range(n)}    # chain -> {other chain: edge indices between them}
        for i, (a, b, _w) in enumerate(edges):
            self.nbr[a].setdefault(b, []).append(i)
            self.nbr[b].setdefault(a, []).append(i)

    def merge(self, x, y, order):
        """Chain ``y`` joins ``x``; the nodes of both in ``order``."""
        self.nodes[x] = order
        a = 0
        for i, b in enumerate(order):
            self.chain[b] = x
            self.index[b] = i
            self.off[b] = a
            a += self.size[b]
        self.csize[x] += self.csize.pop(y)
        del self.nodes[y]
        self.intra[x] += self.intra.pop(y) + self.nbr[x].pop(y)
        del self.nbr[y][x]
        for o, es in self.nbr.pop(y).items():
            self.nbr[x].setdefault(o, []).extend(es)
            self.nbr[o].setdefault(x, []).extend(self.nbr[o].pop(y))


class _ExtTSP(_Chains):
    def __init__(self, sizes, edges, entry):
        super().__init__(sizes, edges)
        self.entry = entry
        self.cache = {}                          # chain -> _split_deltas()
        self.pairs = {}                          # (x, y) -> _pair(x, y), until x or y changes
        self.succ = [set() for _ in sizes]
        for a, b, _w in edges:
            self.succ[a].add(b)

    def best_merge(self, x, y):
        """``(gain, pred, succ, k, kind)`` of the best merge of the two chains, ``pred`` the one split."""
        best = (0.0, None, None, 0, X_Y)
        for p, q in ((x, y), (y, x)):
            g, k, kind = self._best_split(p, q)
            if kind is not None and g > EPS and g > best[0] + EPS:
                best = (g, p, q, k, kind)
        return best

    def _allowed(self, x, y):
        """The merge kinds of ``x`` (split) and ``y`` that keep the entry node first."""
        entry_chain = self.chain[self.entry]
        if entry_chain == x:
            return (X_Y, X1_Y_X2)
        if entry_chain == y:
            return (Y_X2_X1,)
        return (X_Y, X1_Y_X2, Y_X2_X1, X2_X1_Y)

    def _best_split(self, x, y):
        """``(gain, k, kind)`` of the best merge of ``x`` (split at ``k``) and ``y`` (kind None: none gains).

        The candidates are LLVM's CodeLayout set: plain concatenation, splits next to the jumps into ``y``'s
        first and out of its last node, and every split point of a short chain that does not break a CFG edge;
        the entry node stays first.  They are searched by branch and bound: a jump between the chains becomes
        a fall-through only at a seam of the merge and scores at most a near jump's weight elsewhere, and the
        chain's own jumps change by :meth:`_split_deltas` (``X2`` before ``X1``) or lose (``X1 Y X2``: they
        get longer), so a candidate is scored only when that bound beats the best gain found."""
        off = self.off
        xn = self.nodes[x]
        nx, xs, ys = len(xn), self.csize[x], self.csize[y]
        inter, near_total, allowed, split, ranked = self._pair(x, y)
        ft_w, fwd_w, bwd_w, fwd_d, bwd_d = (FALLTHROUGH_WEIGHT, FORWARD_WEIGHT, BACKWARD_WEIGHT, FORWARD_DISTANCE,
                                            BACKWARD_DISTANCE)
        best = [EPS, 0, None]
        done = set()

        def score(k, kind, d):
            done.add((k, kind))
            s = off[xn[k]] if k < nx else xs
            if kind == X_Y:
                bx1, bx2, by = 0, 0, xs
            elif kind == X1_Y_X2:
                bx1, bx2, by = 0, ys, s
            elif kind == Y_X2_X1:
                bx1, bx2, by = ys + xs - s, ys - s, 0
            else:
                bx1, bx2, by = xs - s, -s, xs
            g = d
            for sx, si, se, dx, di, do, w in inter:       # edge_score, inlined: the innermost loop
                dist = (do + ((bx1 if di < k else bx2) if dx else by)
                        - se - ((bx1 if si < k else bx2) if sx else by))
                if dist == 0:
                    g += w * ft_w
                elif dist > 0:
                    if dist < fwd_d:
                        g += w * fwd_w * (1 - dist / fwd_d)
                elif -dist < bwd_d:
                    g += w * bwd_w * (1 + dist / bwd_d)
            if kind == X1_Y_X2 and split and g > best[0] - EPS:
                # every term is a loss (the jumps get longer): stop when the merge can no longer win
                for dist, sign, w, old in self._across(split, k):
                    dist += sign * ys                   # edge_score, inlined
                    if dist == 0:
                        g += w * ft_w - old
                    elif dist > 0:
                        g += (w * fwd_w * (1 - dist / fwd_d) if dist < fwd_d else 0.0) - old
                    else:
                        g += (w * bwd_w * (1 + dist / bwd_d) if -dist < bwd_d else 0.0) - old
                    if g <= best[0] - EPS:
                        break
            if g > best[0] + EPS or (g > best[0] - EPS and best[2] is not None and (k, kind) < (best[1], best[2])):
                best[:] = [g, k, kind]

        for neg_ub, k, kind, d in ranked:
            if -neg_ub <= best[0] - EPS:        # nor within EPS, where the tie rule may pick it
                break
            score(k, kind, d)
        if split and nx <= SPLIT_THRESHOLD:
            # the other split points: no seam fall-through, the jumps between the chains score at most
            # near_total
            eligible, by_delta = self._split_points(x, split)
            if X1_Y_X2 in allowed:
                for k in eligible:
                    if near_total <= best[0]:
                        break
                    if (k, X1_Y_X2) not in done:
                        score(k, X1_Y_X2, 0.0)
            for kind in (Y_X2_X1, X2_X1_Y):
                if kind not in allowed:
                    continue
                for d, k in by_delta:
                    if near_total + d <= best[0]:
                        break
                    if (k, kind) not in done:
                        score(k, kind, d)
        return best[0], best[1], best[2]

    def _pair(self, x, y):
        """``(jumps between x and y, near_total, allowed kinds, x's split deltas, _seam_candidates)`` of the chains as
        they are: what :meth:`_upper` and :meth:`_best_split` of ``(x, y)`` both read, kept until either changes.
        A jump: ``(source in x, its index, its end, target in x, its index, its offset, weight)``."""
        hit = self.pairs.get((x, y))
        if hit is not None:
            return hit
        size, off, chain, index, edges = self.size, self.off, self.chain, self.index, self.edges
        allowed = self._allowed(x, y)
        split = self._split_deltas(x) if len(self.nodes[x]) > 1 else None
        inter, seam, total = [], {}, 0.0
        for e in self.nbr[x][y]:
            a, b, w = edges[e]
            inter.append((chain[a] == x, index[a], off[a] + size[a], chain[b] == x, index[b], off[b], w))
            seam[(a, b)] = seam.get((a, b), 0.0) + w
            total += w
        near_total = max(FORWARD_WEIGHT, BACKWARD_WEIGHT) * total
        hit = self.pairs[(x, y)] = (inter, near_total, allowed, split,
                                    self._seam_candidates(x, y, seam, allowed, split, total, near_total))
        return hit

    def _seam_candidates(self, x, y, seam, allowed, split, total, near_total):
        """The merges of ``x`` and ``y`` that may turn a jump between them into a fall-through at a seam, as
        ``(-upper bound of the gain, k, kind, split delta)``, the most promising first."""
        chain, index = self.chain, self.index
        xn, yn = self.nodes[x], self.nodes[y]
        nx, y0, y1 = len(xn), yn[0], yn[-1]
        deltas = split[0] if split else ()

        def seam_weight(k, kind):
            if kind == X_Y:
                return seam.get((xn[-1], y0), 0.0)
            if kind == X1_Y_X2:
                return seam.get((xn[k - 1], y0), 0.0) + seam.get((y1, xn[k]), 0.0)
            if kind == Y_X2_X1:
                return seam.get((y1, xn[k]), 0.0)
            return seam.get((xn[k - 1], y0), 0.0)
        # the candidates with a possible fall-through at a seam, the most promising first
        cands = {(nx, X_Y)} if X_Y in allowed else set()
        for (a, b) in seam:
            if b == y0 and chain[a] == x and 0 < index[a] + 1 < nx:
                cands.update((index[a] + 1, kd) for kd in (X1_Y_X2, X2_X1_Y) if kd in allowed)
            if a == y1 and chain[b] == x and 0 < index[b] < nx:
                cands.update((index[b], kd) for kd in (X1_Y_X2, Y_X2_X1) if kd in allowed)
        ranked = []
        ft = self._fallthroughs(split) if split else {}
        ys = self.csize[y]
        for k, kind in cands:
            d = deltas[k] if kind in (Y_X2_X1, X2_X1_Y) else 0.0
            f = seam_weight(k, kind)
            # X1 Y X2 loses at least the fall-through from X1's last node into X2's first (this tighter bound
            # spares most gain evaluations of Lua's luaV_execute, a long chain with many one-block neighbours)
            lost = ft[k] - edge_score(0, ys, ft[k]) if kind == X1_Y_X2 and k in ft else 0.0
            ranked.append((-(f * FALLTHROUGH_WEIGHT + near_total * (1 - f / total if total else 1) + d - lost),
                           k, kind, d))
        ranked.sort()
        return ranked

    @staticmethod
    def _fallthroughs(split):
        """``{k: weight of the jump from node k - 1 to node k}`` of a chain (its fall-throughs)."""
        cache = split[2]
        hit = cache.get("ft")
        if hit is None:
            hit = cache["ft"] = {hi: w for lo, hi, dist, sign, w, _old in split[1]
                                 if hi == lo + 1 and sign > 0 and dist == 0}
        return hit

    def _split_points(self, x, split):
        """``(split points not breaking a CFG edge, [(delta, k)] of them by decreasing delta)``, kept with the
        chain's split deltas."""
        cache = split[2]
        hit = cache.get("points")
        if hit is None:
            xn, succ = self.nodes[x], self.succ
            eligible = [k for k in range(1, len(xn)) if xn[k] not in succ[xn[k - 1]]]
            by_delta = sorted(((split[0][k], k) for k in eligible), key=lambda t: (-t[0], t[1]))
            hit = cache["points"] = (eligible, by_delta)
        return hit

    def _split_deltas(self, x):
        """``([change of the score of x's own jumps at split point k], rows, {})`` for the kinds ``Y X2 X1`` and
        ``X2 X1 Y`` (the same for both) at every split point ``k`` from 1 to ``len(x) - 1``.  Placing ``X2`` before ``X1`` changes a jump across the split by
        the chain's size whatever ``k`` is (``X1 -> X2`` gets ``|X|`` shorter, ``X2 -> X1`` ``|X|`` longer in
        the other direction), so each jump adds one constant change to the split points it crosses: a
        difference array over the split points.  ``rows``: the jumps inside ``x`` that score, the biggest scores
        first; the last element caches the jumps across each split point (:meth:`_across`)."""
        hit = self.cache.get(x)
        if hit is not None:
            return hit
        size, off, index = self.size, self.off, self.index
        xn, xs = self.nodes[x], self.csize[x]
        nx = len(xn)
        rows = []
        diff = [0.0] * (nx + 1)
        for e in self.intra[x]:
            a, b, w = self.edges[e]
            ia, ib = index[a], index[b]
            se, do = off[a] + size[a], off[b]
            old = edge_score(se, do, w)
            new = edge_score(se + xs, do, w) if ia < ib else edge_score(se, do + xs, w)
            lo, hi = (ia, ib) if ia < ib else (ib, ia)
            diff[lo + 1] += new - old
            diff[hi + 1] -= new - old
            if old > 0:     # a jump scoring nothing scores nothing longer: fewer rows (Lua's luaV_execute)
                rows.append((lo, hi, do - se, 1 if ia < ib else -1, w, old))
        deltas = [0.0] * (nx + 1)
        acc = 0.0
        for k in range(1, nx):
            acc += diff[k]
            deltas[k] = acc
        rows.sort(key=lambda r: -r[5])
        out = self.cache[x] = (deltas, rows, {})
        return out

    @staticmethod
    def _across(split, k):
        """The jumps of a chain across split point ``k`` that score, the biggest scores (possible losses) first."""
        _deltas, rows, cache = split
        hit = cache.get(k)
        if hit is None:
            hit = cache[k] = [r[2:] for r in rows if r[0] < k <= r[1]]
        return hit

    def rough_bound(self, x, y):
        """A quick upper bound of :meth:`best_merge` (looser than :meth:`bound`).  A jump between the chains
        becomes a fall-through only into the first node of the chain kept whole or out of its last one (at most
        one of each), the others score at most a near jump's weight; the chains' own jumps gain at most the best
        split change of either chain."""
        nodes, edges = self.nodes, self.edges
        x0, x1, y0, y1 = nodes[x][0], nodes[x][-1], nodes[y][0], nodes[y][-1]
        into_y = out_y = into_x = out_x = total = 0.0
        for e in self.nbr[x][y]:
            a, b, w = edges[e]
            total += w
            if b == y0 and w > into_y:
                into_y = w
            if a == y1 and w > out_y:
                out_y = w
            if b == x0 and w > into_x:
                into_x = w
            if a == x1 and w > out_x:
                out_x = w
        f = max(into_y + out_y, into_x + out_x)
        ub = f * FALLTHROUGH_WEIGHT + max(FORWARD_WEIGHT, BACKWARD_WEIGHT) * (total - f)
        extra = 0.0
        for c in (x, y):
            if len(nodes[c]) > 1:
                extra = max(extra, self._max_delta(c))
        return ub + extra

    def bound(self, x, y):
        """An upper bound of :meth:`best_merge`: the best of :meth:`_best_split`'s bounds in either direction."""
        return max(self._upper(x, y), self._upper(y, x))

    def _upper(self, x, y):
        """An upper bound of :meth:`_best_split` ``(x, y)``: the bound of its best candidate at a seam, and a near
        jump's weight for every jump between the chains (plus the best split delta) at the other split points."""
        nx = len(self.nodes[x])
        _inter, near_total, allowed, split, ranked = self._pair(x, y)
        ub = -ranked[0][0] if ranked else 0.0
        if split and nx <= SPLIT_THRESHOLD:
            eligible, by_delta = self._split_points(x, split)
            if eligible and X1_Y_X2 in allowed:
                ub = max(ub, near_total)
            if by_delta and (Y_X2_X1 in allowed or X2_X1_Y in allowed):
                ub = max(ub, near_total + by_delta[0][0])
        return ub

    def _max_delta(self, x):
        split = self._split_deltas(x)
        hit = split[2].get("max")
        if hit is None:
            hit = split[2]["max"] = max(split[0][1:-1])
        return hit

    def run(self):
        """Merge chains, the best gain first.  The queue holds upper bounds of the gains, refined when they reach
        the top: :meth:`rough_bound`, then :meth:`bound`, then the exact gain, each queued again: the merges are
        those of exact greedy merging, for far fewer gain evaluations."""
        heap, version = [], {c: 0 for c in self.nodes}

        def push(x, y):
            ub = self.rough_bound(x, y)
            if ub > EPS:
                a, b = min(x, y), max(x, y)
                heapq.heappush(heap, (-ub, a, b, 2, version[a], version[b], None))
        for x in list(self.nodes):
            for y in self.nbr[x]:
                if x < y:
                    push(x, y)
        while heap:
            _g, a, b, level, va, vb, merge = heapq.heappop(heap)
            if a not in self.nodes or b not in self.nodes or version[a] != va or version[b] != vb:
                continue
            if level == 2:
                ub = self.bound(a, b)
                if ub > EPS:
                    heapq.heappush(heap, (-ub, a, b, 1, va, vb, None))
                continue
            if level:
                g, p, q, k, kind = self.best_merge(a, b)
                if p is not None:
                    heapq.heappush(heap, (-g, a, b, 0, va, vb, (p, q, k, kind)))
                continue
            p, q, k, kind = merge
            self.merge(p, q, _merge_nodes(self.nodes[p], self.nodes[q], k, kind))
            for c in (p, q):
                self.cache.pop(c, None)
            for o in self.nbr[p]:
                self.pairs.pop((p, o), None)
                self.pairs.pop((o, p), None)
            del version[q]
            version[p] += 1
            for o in list(self.nbr[p]):
                push(p, o)
        return self.nodes


def ext_tsp_order(blocks, sizes: dict, edges, entry=None) -> list:
    """Order ``blocks`` (ids, e.g. in address order) to maximise :func:`ext_tsp_score`; ``entry`` stays first.

    Greedy chain merging (Newell and Pupyrev's ext-TSP heuristic, the algorithm of LLVM's CodeLayout): every
    block starts as a chain; a priority queue holds, for each pair of chains joined by an edge, the best gain
    of merging them (``X Y``, or ``X`` split into ``X1 X2``: ``X1 Y X2``, ``Y X2 X1``, ``X2 X1 Y``, each chain
    in turn as ``X``); the best merge is applied and the gains of the merged chain's neighbours recomputed,
    until no merge gains.  Chains are then concatenated by decreasing density (edge weight per byte), the
    entry's chain first.  Never returns a worse score than ``blocks`` in their given order."""
    blocks = list(blocks)
    if len(blocks) <= 1:
        return blocks
    entry = blocks[0] if entry is None else entry
    idx = {b: i for i, b in enumerate(blocks)}
    agg = {}
    for a, b, w in edges:
        if a in idx and b in idx and w > 0 and a != b:
            agg[(idx[a], idx[b])] = agg.get((idx[a], idx[b]), 0) + w
    elist = [(a, b, w) for (a, b), w in agg.items()]
    e = idx.get(entry, 0)
    solver = _ExtTSP([sizes[b] for b in blocks], elist, e)
    chains = solver.run()
    weight = {c: 0.0 for c in chains}
    for a, _b, w in elist:
        weight[solver.chain[a]] += w
    first = solver.chain[e]
    rest = sorted((c for c in chains if c != first),
                  key=lambda c: (-weight[c] / max(1, solver.csize[c]), c))
    order = [blocks[i] for c in [first, *rest] for i in chains[c]]
    es = [(a, b, w) for a, b, w in edges if a in idx and b in idx and w > 0]
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


# Cache-directed sort (CDSort, Lavaee et al.; LLVM's CodeLayout ``computeCacheDirectedLayout``): parameters of
# its cache model (an i-TLB-like cache of 16 entries of 2 KB, distance power 0.25, frequency scale 0.25).
CDS_CACHE_ENTRIES = 16
CDS_CACHE_SIZE = 2048
CDS_DISTANCE_POWER = 0.25
CDS_FREQUENCY_SCALE = 0.25


def cdsort_order(functions, arcs, offsets=None) -> list:
    """Order functions by cache-directed sort.

    ``functions``: ``{name: (count, size)}``; ``arcs``: ``{(caller, callee): weight}``; ``offsets``:
    ``{(caller, callee): byte offset of the call in the caller}`` (default: the caller's middle).  Chains of
    functions are merged, the pair of best gain first (a priority queue), while the gain is positive: the gain
    of putting ``Y`` after ``X`` (or ``X`` after ``Y``) is the gain in distance locality of their calls
    (``weight x distance^-0.25``, against the calls spanning the whole hot code) plus a quarter of the gain in
    frequency locality (the expected misses of a 16-entry cache of 2 KB lines holding the chain), divided by
    the smaller chain's size.  Chains are then sorted by density (count per byte).  Returns every name once."""
    names = sorted(functions, key=lambda f: (-functions[f][0], f))
    ids = {f: i for i, f in enumerate(names)}
    n = len(names)
    size = [max(1, functions[f][1]) for f in names]
    count = [max(0.0, float(functions[f][0])) for f in names]
    jumps = []                                    # (src, dst, weight, offset)
    out_w, in_w = [0.0] * n, [0.0] * n
    for (a, b), w in sorted(arcs.items()):
        if a in ids and b in ids and a != b and w > 0:
            ia, ib = ids[a], ids[b]
            off = (offsets or {}).get((a, b), size[ia] // 2)
            jumps.append((ia, ib, float(w), min(max(0, off), size[ia] - 1)))
            out_w[ia] += w
            in_w[ib] += w
    for i in range(n):
        count[i] = max(count[i], in_w[i], out_w[i])
    total = sum(count) or 1.0
    total_size = sum(size[i] for i in range(n) if count[i] > 0) or 1
    nodes = {i: [i] for i in range(n)}
    chain = list(range(n))
    csize, ccount = list(size), list(count)
    nbr = {i: {} for i in range(n)}
    for j, (a, b, _w, _o) in enumerate(jumps):
        nbr[a].setdefault(b, []).append(j)
        nbr[b].setdefault(a, []).append(j)

    def miss(density):
        p = density * CDS_CACHE_SIZE / total
        return 0.0 if p >= 1 else (1.0 - p) ** CDS_CACHE_ENTRIES

    def dist(d, w):
        return w * (0.1 if d == 0 else float(d)) ** -CDS_DISTANCE_POWER

    def gain(x, y):
        """(gain, first, second): the better of ``x y`` and ``y x``."""
        merged = ccount[x] + ccount[y]
        freq = (ccount[x] * miss(ccount[x] / csize[x]) + ccount[y] * miss(ccount[y] / csize[y])
                - merged * miss(merged / (csize[x] + csize[y])))
        best = (-1.0, None, None)
        for p, q in ((x, y), (y, x)):
            addr, a = {}, 0
            for c in (p, q):
                for f in nodes[c]:
                    addr[f] = a
                    a += size[f]
            d = 0.0
            for j in nbr[x][y]:
                s, t, w, o = jumps[j]
                d += dist(abs(addr[t] - (addr[s] + o)), w) - dist(total_size, w)
            g = d + CDS_FREQUENCY_SCALE * freq
            if g >= 0:
                g /= min(csize[x], csize[y])
            # equal gains: keep the chains in their order of hotness
            if g > best[0] + EPS or (abs(g - best[0]) < EPS and p < q):
                best = (g, p, q)
        return best
    heap, version = [], [0] * n

    def push(x, y):
        g, p, q = gain(x, y)
        if p is not None and g > EPS:
            a, b = min(x, y), max(x, y)
            heapq.heappush(heap, (-g, a, b, version[a], version[b], p, q))
    for x in range(n):
        if count[x] > 0:
            for y in nbr[x]:
                if x < y and count[y] > 0:
                    push(x, y)
    while heap:
        _g, a, b, va, vb, p, q = heapq.heappop(heap)
        if a not in nodes or b not in nodes or version[a] != va or version[b] != vb:
            continue
        nodes[p] = nodes[p] + nodes.pop(q)
        for f in nodes[p]:
            chain[f] = p
        csize[p] += csize[q]
        ccount[p] += ccount[q]
        version[p] += 1
        nbr[p].pop(q)
        del nbr[q][p]
        for o, js in nbr.pop(q).items():
            nbr[p].setdefault(o, []).extend(js)
            nbr[o].setdefault(p, []).extend(nbr[o].pop(q))
        for o in list(nbr[p]):
            push(p, o)
    order = sorted(nodes, key=lambda c: (-ccount[c] / csize[c], c))
    return [names[f] for c in order for f in nodes[c]]


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


def static_frequencies(fn) -> dict:
    """``{id: the compiler's frequency estimate of the block relative to the entry block}`` from the PGO
    analysis map's block frequencies (empty without them)."""
    pgo = getattr(fn, "pgo_blocks", None)
    if not pgo or not fn.blocks or len(pgo) != len(fn.blocks):
        return {}
    entry = fn.ranges[0].blocks[0].id if fn.ranges and fn.ranges[0].blocks else fn.blocks[0].id
    freq = {b.id: p.frequency for b, p in zip(fn.blocks, pgo) if p.frequency is not None}
    base = freq.get(entry)
    if not base:
        return {}
    return {b: f / base for b, f in freq.items()}


# Edges lighter than this share of the function's heaviest are left out of the block order: they change its
# score by a fraction of a per cent and, between the many blocks kept on the compiler's word, make most of the
# chain merging's work.
MIN_EDGE_SHARE = 0.01

# An unsampled block the compiler expects to run on at least this share of the function's calls stays in the
# hot part: IP samples miss blocks that run often but briefly, and such a block moved to the cold part costs an
# instruction-cache line there (and a jump there and back) each time it runs.
KEEP_STATIC_SHARE = 0.01


def hot_blocks(fn, counts: dict, weights: dict, *, edge_share: float = 0.01,
               keep_share: float | None = None) -> set:
    """Blocks with samples, blocks on an edge carrying ``edge_share`` of the function's heaviest count, and
    blocks whose static frequency is at least ``keep_share`` of the entry block's."""
    keep_share = KEEP_STATIC_SHARE if keep_share is None else keep_share
    top = max(counts.values(), default=0.0)
    hot = {b for b, c in counts.items() if c > 0}
    if top > 0:
        for (a, b), w in weights.items():
            if w >= edge_share * top:
                hot.add(a)
                hot.add(b)
    if fn.ranges and fn.ranges[0].blocks:
        hot.add(fn.ranges[0].blocks[0].id)
    if keep_share > 0:
        hot.update(b for b, f in static_frequencies(fn).items() if f >= keep_share)
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


def ext_tsp_input(fn, hot: set, weights: dict) -> tuple:
    """``(blocks, sizes, edges, entry)``: what :func:`layout_function` gives :func:`ext_tsp_order` for ``fn``: its
    ``hot`` blocks in address order (the entry first), and the edges of ``weights`` carrying at least
    ``MIN_EDGE_SHARE`` of the heaviest."""
    by_addr = [b for b in sorted(fn.blocks, key=lambda b: b.address) if b.id in hot]
    entry = fn.ranges[0].blocks[0].id if fn.ranges and fn.ranges[0].blocks else by_addr[0].id
    ids = [entry] + [b.id for b in by_addr if b.id != entry]
    floor = MIN_EDGE_SHARE * max(weights.values(), default=0.0)
    return ids, {b.id: b.size for b in fn.blocks}, [(a, b, w) for (a, b), w in weights.items() if w >= floor], entry


def layout_function(fn, block_samples: dict, profile=None, *, algorithm: str = "ext-tsp") -> FunctionLayout:
    weights, counts, source = estimate_edges(fn, block_samples, profile)
    if not fn.blocks:
        return FunctionLayout(fn.name, fn.address, [], 0, 0, 0, source)
    ids, sizes, kept, entry = ext_tsp_input(fn, hot_blocks(fn, counts, weights), weights)
    elist = [(a, b, w) for (a, b), w in weights.items()]
    before = ext_tsp_score(ids, sizes, elist)
    if algorithm == "ext-tsp":
        ids = ext_tsp_order(ids, sizes, kept, entry)
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


def call_arcs(obj, index, profile, offsets=None) -> dict:
    """``{(caller, callee): weight}`` from the direct calls and tail jumps of a linked x86-64 ELF file whose
    relocations were kept (``-Wl,--emit-relocs``); weight: the estimated count of the calling block.
    ``offsets``, a dict, receives ``{(caller, callee): offset of the heaviest call site in the caller}``;

    A call site is a ``call``/``jmp rel32`` whose displacement has a PC-relative relocation: the relocation
    says the four bytes are a displacement (no guessing where instructions start), the linked displacement
    gives the target; targets that are not the start of a mapped function (PLT entries) are left out."""
    sampled = {}
    for fp in profile.functions:
        sampled[fp.function.address] = (fp.function, block_counts(fp.function, fp.blocks))
    # the blocks that ran, by address: a call site elsewhere adds nothing (no lookup in the whole map, which
    # would make the blocks of every function with a call in it: most of call_arcs' work on Lua)
    spans = sorted(((b.address, b.address + b.size, fn, cs[b.id])
                    for fn, cs in sampled.values() for b in fn.blocks if cs.get(b.id, 0) > 0), key=lambda t: t[0])
    starts = [t[0] for t in spans]
    func_at = {}
    for f in index.functions:
        func_at[f.address] = f
    arcs, heaviest = {}, {}
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
            i = bisect.bisect_right(starts, r.offset) - 1
            if i < 0 or r.offset >= spans[i][1]:
                continue
            _start, _end, caller, c = spans[i]
            if caller.name and caller.name != callee.name:
                key = (caller.name, callee.name)
                if offsets is not None and c > heaviest.get(key, 0):
                    heaviest[key] = c
                    offsets[key] = r.offset - caller.address
                arcs[key] = arcs.get(key, 0) + c
    return arcs


def function_order(profile, layouts, arcs, *, algorithm: str = "c3", offsets=None) -> list:
    """Names of the sampled functions in ``algorithm`` order: ``'c3'`` (call-chain clustering),
    ``'cdsort'`` (cache-directed sort) or ``'hotness'`` (by samples).  A function's size is that of its hot
    blocks when ``layouts`` has it (its cold part moves away)."""
    hot_size = {lay.function: lay.hot_size for lay in layouts}
    funcs = {}
    for fp in profile.functions:
        name = fp.function.name
        if not name or fp.samples <= 0:
            continue
        funcs[name] = (fp.samples, hot_size.get(name, sum(b.size for b in fp.function.blocks)))
    if algorithm == "hotness":
        return sorted(funcs, key=lambda f: (-funcs[f][0], f))
    if algorithm == "cdsort":
        return cdsort_order(funcs, arcs, offsets)
    if algorithm != "c3":
        raise ValueError(f"unknown function order {algorithm!r}")
    return c3_order(funcs, arcs)


def function_order_text(names, *, comment: str | None = None) -> str:
    lines = [f"# {c}" for c in (comment or "").splitlines() if c]
    return "\n".join(lines + list(names)) + "\n"


def has_text_relocations(obj) -> bool:
    """Whether a linked file kept relocations for its executable sections (``-Wl,--emit-relocs``)."""
    return any(s.flags & 4 and s.type == 1 and obj.relocation_sections_for(s) for s in obj.sections)


def order_for_binary(profile, binary: str, *, algorithm: str = "c3", min_share: float = 0.0, obj=None,
                     index=None, hot_sizes=None) -> tuple:
    """``(function names in order, call arcs, whether the text has relocations)`` for the binary ``profile``
    was mapped to (``obj`` and ``index``: that binary already opened, see :func:`~objllvm.perf.mapping.open_binary`;
    ``hot_sizes``: ``{function: bytes of its hot part}`` when the clusters are known)."""
    if obj is None or index is None:
        from .mapping import load_index
        from ..formats import open_object
        obj = open_object(binary)
        index = load_index(obj, binary)
    if hot_sizes is None:
        layouts = build_layouts(profile, min_share=min_share, algorithm="address")
    else:
        layouts = [FunctionLayout(f, 0, [], 0, n, n, "") for f, n in hot_sizes.items()]
    offsets = {}
    arcs = call_arcs(obj, index, profile, offsets) if algorithm in ("c3", "cdsort") else {}
    return (function_order(profile, layouts, arcs, algorithm=algorithm, offsets=offsets), arcs,
            has_text_relocations(obj))
