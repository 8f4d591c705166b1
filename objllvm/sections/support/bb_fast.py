"""A fast decoder for the blocks of the function entries of a bb-addr-map that most compilers write: version 2
to 5, no feature bits but CallsiteEndOffsets (clang-22 sets it on every function that calls) and those of PGO
analysis (FuncEntryCount, BBFreq, BrProb: the caller reads that part, after the blocks), one range, every ULEB128 minimal and within 32 bits, metadata of known bits only (clang's
``-fbasic-block-address-map`` without PGO analysis).

``Entries(data)`` prepares a section once; ``entry(pos, asz, order)`` decodes the entry at ``pos`` and
returns ``(version, feature, stored address word, ids, offsets, sizes, metadata, call-site ends or None,
end)`` or None.  None means only
"not this shape": the caller then decodes that one entry with the plain decoder
(``bb_addr_map._decode_function``), which is the reference and reports any error.  A differential test
(tests/test_bb_fast.py) checks both give the same model on every corpus file and benchmark program.

How it is fast: the values of an entry's blocks are read as one run of bytes (``bytes`` slices extend a
list of ints in C) between the few ULEB128s of more than one byte, found through a copy of the section
that marks every byte with its top bit set (``bytes.find`` in C).  It earns its place on the jsonnet and lua
maps of scripts/bench-bb-addr-map (decoding against the plain decoder: docs/benchmarks.md).
"""
from __future__ import annotations

from itertools import accumulate, chain, repeat
from operator import add, mul, sub

# byte -> 1 where the top bit is set (a ULEB128 byte that another follows), else 0
_MARK = bytes(b >> 7 for b in range(256))
KNOWN_METADATA = 0x1F
CALLSITE_END_OFFSETS = 0x20
FUNC_ENTRY_COUNT, BB_FREQ, BR_PROB, POST_LINK_CFG = 0x1, 0x2, 0x4, 0x80
PGO = 0x7          # FuncEntryCount, BBFreq, BrProb: what follows the blocks (``pgo`` reads it)


class Entries:
    __slots__ = ("data", "marks", "end")

    def __init__(self, data: bytes):
        self.data = data
        self.marks = data.translate(_MARK)
        self.end = len(data)

    def _values(self, pos, count, out, wide=False):
        """Append ``count`` ULEB128 values from ``pos`` to ``out``; the position after them, or -1 when one is
        not minimal, does not fit in 32 bits (``wide``: 64 bits) or runs off the end."""
        data, find, end = self.data, self.marks.find, self.end
        span, top = (10, 1) if wide else (5, 0x0F)
        while count:
            q = find(1, pos, pos + count)
            if q < 0:
                if pos + count > end:
                    return -1
                out += data[pos:pos + count]
                return pos + count
            out += data[pos:q]
            count -= q - pos
            z = find(0, q, q + span)       # the last byte of this value
            if z < 0 or not data[z] or (z - q == span - 1 and data[z] > top):
                return -1                  # runs on, too long, not minimal, or too big
            v = data[z]
            for i in range(z - 1, q - 1, -1):
                v = v << 7 | (data[i] & 0x7F)
            out.append(v)
            count -= 1
            pos = z + 1
        return pos

    def entry(self, pos, asz, order):
        data, end = self.data, self.end
        version = data[pos]
        if not 2 <= version <= 5:
            return None
        a = pos + (3 if version == 5 else 2)
        if a + asz >= end or (version == 5 and data[pos + 2]):
            return None
        feature = data[pos + 1]
        if feature & ~(CALLSITE_END_OFFSETS | PGO) or (feature & CALLSITE_END_OFFSETS and version < 3):
            return None
        word = int.from_bytes(data[a:a + asz], order)
        n = data[a + asz]
        if n >= 0x80:
            count = []
            p = self._values(a + asz, 1, count)
            if p < 0:
                return None
            n = count[0]
        else:
            p = a + asz + 1
        callsites = feature & CALLSITE_END_OFFSETS
        k = 5 if callsites else 4          # values a block has at least
        if not n or k * n > end - p:
            return None
        vals = []
        p = self._values(p, k * n, vals)
        if p < 0:
            return None
        if callsites:
            return self._with_callsites(version, feature, word, n, vals, p)
        mds = vals[3::4]
        if max(mds) > KNOWN_METADATA:
            return None
        sizes = vals[2::4]
        return version, feature, word, vals[0::4], _offsets(vals[1::4], sizes), sizes, mds, None, p

    def _with_callsites(self, version, feature, word, n, vals, p):
        """A block: ID, offset, call-site count c, c call-site deltas, size after the last call site, metadata."""
        starts = []
        i = 0
        total = have = 5 * n               # values the entry is known to have; values read
        for _ in range(n):
            if i + 3 > have:               # read every value known to be needed so far, at once
                p = self._values(p, total - have, vals)
                if p < 0:
                    return None
                have = total
            starts.append(i)
            c = vals[i + 2]
            if c > self.end - p:
                return None
            total += c
            i += 5 + c
        if total > have:
            p = self._values(p, total - have, vals)
            if p < 0:
                return None
        if i == 5 * n:                     # no call sites at all
            ids, deltas, sizes, mds = vals[0::5], vals[1::5], vals[3::5], vals[4::5]
            ends = [[] for _ in range(n)]
        else:
            get = vals.__getitem__
            ids = list(map(get, starts))
            deltas = list(map(get, map(add, starts, repeat(1))))
            counts = list(map(get, map(add, starts, repeat(2))))
            after = list(map(add, starts, map(add, counts, repeat(3))))
            sizes = list(map(get, after))
            mds = list(map(get, map(add, after, repeat(1))))
            ends = [list(accumulate(vals[s + 3:s + 3 + c])) if c else [] for s, c in zip(starts, counts)]
            sizes = [sz + e[-1] if e else sz for sz, e in zip(sizes, ends)]
        if max(mds) > KNOWN_METADATA:
            return None
        return version, feature, word, ids, _offsets(deltas, sizes), sizes, mds, ends, p


    def pgo(self, pos, feature, n):
        """The PGO analysis part of an entry of ``n`` blocks at ``pos``: ``(entry count or None, columns or None,
        end)`` with the columns of ``FunctionMap._pgo_cols``, or None (the plain decoder then reads it)."""
        vals = []
        entry = None
        if feature & FUNC_ENTRY_COUNT:
            pos = self._values(pos, 1, vals, True)
            if pos < 0:
                return None
            entry = vals.pop()
        if not feature & (BB_FREQ | BR_PROB):
            return entry, None, pos
        freq, prob, postlink = feature & BB_FREQ, feature & BR_PROB, feature & POST_LINK_CFG
        k = (1 if freq else 0) + (1 if postlink else 0) + (1 if prob else 0)
        per = 3 if postlink else 2
        if k * n > self.end - pos:
            return None
        if not prob:
            pos = self._values(pos, k * n, vals, True)
            if pos < 0:
                return None
            return entry, (vals[0::k] if freq else None, vals[k - 1::k] if postlink else None, None, None, None,
                           None), pos
        starts = []
        i = 0
        total, have = k * n, 0
        room = self.end - pos
        for _ in range(n):                 # a block: [frequency] [post-link frequency] count, successors
            if i + k > have:               # read every value known to be needed so far, at once
                pos = self._values(pos, total - have, vals, True)
                if pos < 0:
                    return None
                have = total
            starts.append(i)
            c = vals[i + k - 1]
            if c * per > room:
                return None
            total += c * per
            i += k + c * per
        if total > have:
            pos = self._values(pos, total - have, vals, True)
            if pos < 0:
                return None
        get = vals.__getitem__
        counts = list(map(get, map(add, starts, repeat(k - 1))))
        succ = list(chain.from_iterable(map(get, map(slice, map(add, starts, repeat(k)),
                                                     map(add, starts, map(add, repeat(k), map(mul, counts, repeat(per))))))))
        sids, probs = succ[0::per], succ[1::per]
        spls = succ[2::per] if postlink else None
        pls = list(map(get, map(add, starts, repeat(1 if freq else 0)))) if postlink else None
        narrow = [x for x in (sids, probs, spls, pls) if x]
        if narrow and max(map(max, narrow)) >> 32:
            return None                    # a 32-bit field past 32 bits: the plain decoder's error
        return entry, (list(map(get, starts)) if freq else None, pls, counts, sids, probs, spls), pos


def _offsets(deltas, sizes):
    """Offset i: the stored offsets of blocks 0..i plus the sizes of blocks 0..i-1."""
    return list(map(sub, accumulate(map(add, deltas, sizes)), sizes))
