"""Carry a profile recorded on one build of a program to the next build (stale profiles).

Basic-block maps of version 4 and later may carry a 64-bit hash per block (clang >= 22:
``-fbasic-block-address-map -mllvm -emit-bb-hash``).  LLVM builds it from four 16-bit parts, low to high:
the block's offset in the function, a hash of its opcodes, a hash of its instructions with operands, and a hash
of its opcodes with those of its neighbours (predecessors and successors).

:func:`carry` maps the per-block samples of the old build to the new one: functions by name, blocks by hash.
A block matches *exactly* when the whole hash is equal; otherwise the new blocks with the same opcode hash are
candidates and the nearest one wins, nearness ordered as LLVM's ``BlendedBlockHash::distance`` orders it
(neighbour hash equal first, then instruction hash, then the smallest offset difference).  A block with no
candidate of the same opcode hash does not match: its samples are reported as lost, never guessed.
"""
from __future__ import annotations

from collections import Counter

from .._model import dataclass, field
from ..errors import ObjllvmError
from .mapping import FunctionProfile, Profile

HASH_HINT = "build with clang >= 22 -fbasic-block-address-map -mllvm -emit-bb-hash (bb-addr-map version 4+)"
OUTCOMES = ("exact hash", "same opcodes, nearest hash", "block not matched", "function not in the new build")


def _parts(h: int):
    return h & 0xFFFF, h >> 16 & 0xFFFF, h >> 32 & 0xFFFF, h >> 48 & 0xFFFF   # offset, opcode, instr, neighbour


def distance(a: int, b: int) -> tuple:
    """LLVM's ordering of two hashes with the same opcode part: (neighbour differs, instr differs, |offset diff|)."""
    oa, _, ia, na = _parts(a)
    ob, _, ib, nb = _parts(b)
    return (na != nb, ia != ib, abs(oa - ob))


def match_block(h: int, candidates) -> tuple:
    """(new block, 'exact hash' | 'same opcodes, nearest hash') or (None, 'block not matched').

    ``candidates``: the new function's blocks with hashes."""
    op = h >> 16 & 0xFFFF
    best = None
    for b in candidates:
        if b.hash is None or b.hash >> 16 & 0xFFFF != op:
            continue
        key = (distance(h, b.hash), b.address)
        if best is None or key < best[0]:
            best = (key, b)
    if best is None:
        return None, "block not matched"
    return best[1], ("exact hash" if best[1].hash == h else "same opcodes, nearest hash")


@dataclass
class StaleReport:
    old_binary: str
    new_binary: str
    old_build_id: str | None
    new_build_id: str | None
    samples: Counter = field(default_factory=Counter)        # outcome -> samples
    blocks: Counter = field(default_factory=Counter)         # outcome -> blocks with samples
    functions: list = field(default_factory=list)            # per function: dict

    @property
    def total(self) -> int:
        return sum(self.samples.values())

    @property
    def matched(self) -> int:
        return self.samples["exact hash"] + self.samples["same opcodes, nearest hash"]

    def to_dict(self) -> dict:
        return {"old_binary": self.old_binary, "new_binary": self.new_binary,
                "old_build_id": self.old_build_id, "new_build_id": self.new_build_id,
                # JSON keys are identifiers: "exact hash" -> "exact_hash" (schema perf-map)
                "samples": {"total": self.total, "matched": self.matched,
                            **{json_key(k): self.samples.get(k, 0) for k in OUTCOMES}},
                "blocks": {json_key(k): self.blocks.get(k, 0) for k in OUTCOMES},
                "functions": self.functions}


def json_key(outcome: str) -> str:
    """The JSON key of an outcome: "same opcodes, nearest hash" -> "same_opcodes_nearest_hash"."""
    return "_".join(outcome.replace(",", " ").replace("-", " ").split())


def _require_hashes(index, path):
    if not any(b.hash is not None for f in index.functions for b in f.blocks):
        raise ObjllvmError(f"no block hashes in the basic-block address map: {HASH_HINT}", file=path)


def carry(old: Profile, old_index, new_binary: str, new_index, new_build_id: str | None = None):
    """``(Profile of new_binary, StaleReport)`` from ``old`` (a profile mapped on the old build)."""
    _require_hashes(old_index, old.binary)
    _require_hashes(new_index, new_binary)
    by_name = {}
    for f in new_index.functions:
        if f.name:
            by_name.setdefault(f.name, f)
    rep = StaleReport(old.binary, new_binary, old.build_id, new_build_id)
    per_fn = {}
    block_map = {}                   # (old function address, old block id) -> (new function, new block)
    for fp in old.functions:
        name = fp.function.name
        new_fn = by_name.get(name)
        row = {"function": name, "samples": fp.samples, "matched": 0, "exact": 0, "nearest": 0, "lost": 0,
               "in_new_build": new_fn is not None}
        rep.functions.append(row)
        old_blocks = {b.id: b for b in fp.function.blocks}
        if new_fn is None:
            rep.samples["function not in the new build"] += fp.samples
            rep.blocks["function not in the new build"] += len(fp.blocks)
            row["lost"] = fp.samples
            continue
        cands = [b for b in new_fn.blocks if b.hash is not None]
        for bid, c in fp.blocks.items():
            ob = old_blocks[bid]
            nb, outcome = match_block(ob.hash, cands) if ob.hash is not None else (None, "block not matched")
            rep.samples[outcome] += c
            rep.blocks[outcome] += 1
            if nb is None:
                row["lost"] += c
                continue
            row["matched"] += c
            row["exact" if outcome == "exact hash" else "nearest"] += c
            block_map[(fp.function.address, bid)] = (new_fn, nb)
            np_ = per_fn.get(new_fn.address)
            if np_ is None:
                np_ = per_fn[new_fn.address] = FunctionProfile(new_fn)
            np_.samples += c
            np_.blocks[nb.id] = np_.blocks.get(nb.id, 0) + c
    rep.functions.sort(key=lambda r: (-r["samples"], r["function"] or ""))
    # Edges: their ends need not have IP samples of their own; match them the same way.
    old_fns = {f.address: f for f in old_index.functions}

    def carried(fa, bid):
        key = (fa, bid)
        if key not in block_map:
            f = old_fns.get(fa)
            nf = by_name.get(f.name) if f is not None else None
            ob = next((b for b in f.blocks if b.id == bid), None) if nf is not None else None
            nb = None
            if ob is not None and ob.hash is not None:
                nb = match_block(ob.hash, [b for b in nf.blocks if b.hash is not None])[0]
            block_map[key] = (nf, nb) if nb is not None else None
        return block_map[key]

    taken, fall = Counter(), Counter()
    for src, dst in ((old.taken_edges, taken), (old.fallthrough_edges, fall)):
        for (fa, a, b), c in src.items():
            x, y = carried(fa, a), carried(fa, b)
            if x is not None and y is not None and x[0] is y[0]:
                dst[(x[0].address, x[1].id, y[1].id)] += c
    lost = rep.total - rep.matched
    warnings = list(old.warnings)
    if lost:
        warnings.append(f"{lost} of {rep.total} samples of {old.binary} have no matching block in {new_binary}")
    fns = sorted(per_fn.values(), key=lambda f: (-f.samples, f.function.address))
    new = Profile(binary=new_binary, source=old.source, build_id=new_build_id, total_samples=old.total_samples,
                  binary_samples=old.binary_samples, functions=fns,
                  unmapped={**old.unmapped, **({"not carried to the new build": lost} if lost else {})},
                  taken_edges=dict(taken), fallthrough_edges=dict(fall), branch_samples=old.branch_samples,
                  branch_stats=dict(old.branch_stats), warnings=warnings, records=old.records,
                  unknown_records=old.unknown_records, matched_mappings=old.matched_mappings, events=old.events,
                  padding_samples=0, recordings=old.recordings, mismatched_build_ids=old.mismatched_build_ids)
    return new, rep
