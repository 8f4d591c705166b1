"""Before and after: two profiles compared function by function (``objllvm perf-diff``).

Each side is a :class:`~objllvm.perf.mapping.Profile`: two recordings of one build, or one recording of the old
build and one of the new.  Functions are matched by name; blocks by their bb-addr-map hash when both builds have
hashes (exactly, or the nearest hash with the same opcode part, as :mod:`.stale` carries samples), else by block
id.  Per function:

* the share of all samples on each side (and the difference, in percentage points);
* the hot-code footprint: the bytes of the blocks that hold samples, and the 64-byte lines those blocks touch
  (the instruction cache lines the hot code needs);
* the blocks that moved: matched blocks whose offset from the function's entry changed (a layout change moves
  them; a rebuild of the same code with the same flags does not).
"""
from __future__ import annotations

from .._model import dataclass, field

LINE = 64          # bytes per cache line (x86-64, AArch64 Neoverse)


def footprint(blocks) -> tuple:
    """``(bytes, lines)`` of ``blocks`` (Block objects): their total size, and the distinct LINE-byte lines their
    address ranges touch."""
    size, lines = 0, set()
    for b in blocks:
        if b.size <= 0:
            continue
        size += b.size
        lines.update(range(b.address // LINE, (b.address + b.size - 1) // LINE + 1))
    return size, lines


@dataclass
class FunctionDiff:
    name: str
    old: dict | None                 # {"samples", "share", "hot_bytes", "hot_lines", "blocks_hit", "blocks"}
    new: dict | None
    matched_by: str | None = None    # "hash" | "id" (None: in one profile only)
    moved: list = field(default_factory=list)     # [{"old_id", "new_id", "old_offset", "new_offset", ...}]
    matched_blocks: int = 0

    @property
    def share_change(self) -> float:
        return (self.new["share"] if self.new else 0.0) - (self.old["share"] if self.old else 0.0)

    def to_dict(self) -> dict:
        return {"name": self.name, "old": self.old, "new": self.new,
                "share_change": round(self.share_change, 6), "matched_by": self.matched_by,
                "matched_blocks": self.matched_blocks, "moved_blocks": self.moved}


@dataclass
class ProfileDiff:
    old_binary: str
    new_binary: str
    old_source: str
    new_source: str
    old_total: int
    new_total: int
    same_build: bool
    functions: list                  # FunctionDiff, by the larger of the two shares
    old_hot: tuple = (0, 0)          # (bytes, lines) of every hot block of the binary
    new_hot: tuple = (0, 0)

    def to_dict(self, top: int | None = None, *, demangle: bool = False) -> dict:
        fns = self.functions if top is None else self.functions[:top]
        readable = {}
        if demangle:
            from ..demangle import demangle_all
            readable = demangle_all([f.name for f in fns if f.name])
        out = []
        for f in fns:
            d = f.to_dict()
            if demangle:
                d["demangled"] = readable.get(f.name, f.name)
            out.append(d)
        return {"schema": "objllvm-perf-diff", "version": 1,
                "old": {"binary": self.old_binary, "profile": self.old_source, "samples": self.old_total,
                        "hot_bytes": self.old_hot[0], "hot_lines": self.old_hot[1]},
                "new": {"binary": self.new_binary, "profile": self.new_source, "samples": self.new_total,
                        "hot_bytes": self.new_hot[0], "hot_lines": self.new_hot[1]},
                "same_build": self.same_build, "line_size": LINE, "functions": out}


def _side(prof, fp) -> dict:
    by_id = {b.id: b for b in fp.function.blocks}
    hot = [by_id[i] for i in fp.blocks if i in by_id]
    size, lines = footprint(hot)
    return {"samples": fp.samples, "share": round(prof.share(fp.samples), 6), "hot_bytes": size,
            "hot_lines": len(lines), "blocks_hit": len(hot), "blocks": len(fp.function.blocks)}


def _match_blocks(old_fn, new_fn):
    """``(pairs, how)``: matched (old Block, new Block) pairs, by hash when both functions have hashes."""
    from .stale import match_block
    if all(b.hash is not None for b in old_fn.blocks) and all(b.hash is not None for b in new_fn.blocks) \
            and old_fn.blocks and new_fn.blocks:
        pairs, used = [], set()
        for b in old_fn.blocks:
            nb, _how = match_block(b.hash, [c for c in new_fn.blocks if id(c) not in used])
            if nb is not None:
                used.add(id(nb))
                pairs.append((b, nb))
        return pairs, "hash"
    new_by_id = {b.id: b for b in new_fn.blocks}
    return [(b, new_by_id[b.id]) for b in old_fn.blocks if b.id in new_by_id], "id"


def diff_profiles(old, new, old_index=None, new_index=None) -> ProfileDiff:
    """Compare two :class:`~objllvm.perf.mapping.Profile` values (``*_index``: the binaries' BBIndex, for the
    functions of one side that the other side's samples missed)."""
    same = bool(old.build_id and old.build_id == new.build_id)
    old_by = {f.name: f for f in old.functions if f.name}
    new_by = {f.name: f for f in new.functions if f.name}
    old_maps = {f.name: f for f in (old_index.functions if old_index else []) if f.name}
    new_maps = {f.name: f for f in (new_index.functions if new_index else []) if f.name}
    old_maps.update({n: f.function for n, f in old_by.items()})
    new_maps.update({n: f.function for n, f in new_by.items()})
    out = []
    for name in list(dict.fromkeys(list(old_by) + list(new_by))):
        ofp, nfp = old_by.get(name), new_by.get(name)
        fd = FunctionDiff(name, _side(old, ofp) if ofp else None, _side(new, nfp) if nfp else None)
        ofn, nfn = old_maps.get(name), new_maps.get(name)
        if ofn is not None and nfn is not None:
            pairs, fd.matched_by = _match_blocks(ofn, nfn)
            fd.matched_blocks = len(pairs)
            hot_old = set(ofp.blocks) if ofp else set()
            hot_new = set(nfp.blocks) if nfp else set()
            for a, b in pairs:
                oo, no = a.address - ofn.address, b.address - nfn.address
                if oo != no and (a.id in hot_old or b.id in hot_new):
                    fd.moved.append({"old_id": a.id, "new_id": b.id, "old_offset": oo, "new_offset": no,
                                     "old_samples": ofp.blocks.get(a.id, 0) if ofp else 0,
                                     "new_samples": nfp.blocks.get(b.id, 0) if nfp else 0})
        out.append(fd)
    out.sort(key=lambda f: (-max(f.old["share"] if f.old else 0, f.new["share"] if f.new else 0), f.name))

    def whole(prof):
        blocks = []
        for fp in prof.functions:
            by_id = {b.id: b for b in fp.function.blocks}
            blocks.extend(by_id[i] for i in fp.blocks if i in by_id)
        size, lines = footprint(blocks)
        return size, len(lines)
    return ProfileDiff(old.binary, new.binary, old.source, new.source, old.total_samples, new.total_samples, same,
                       out, whole(old), whole(new))
