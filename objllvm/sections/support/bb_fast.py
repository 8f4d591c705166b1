"""A fast decoder for the blocks of the function entries of a bb-addr-map that most compilers write: version 2
to 5, no feature bits but CallsiteEndOffsets (clang-22 sets it on every function that calls) and those of PGO
analysis (FuncEntryCount, BBFreq, BrProb: the caller reads that part, after the blocks), one range, every ULEB128 minimal and within 32 bits, metadata of known bits only (clang's
``-fbasic-block-address-map`` without PGO analysis).

The columns of a section of ``ARRAYS_FROM`` bytes or more are arrays (IDs 32-bit, offsets and sizes 64-bit) and
the metadata bytes: a Python int in a list takes 36 bytes, in an array 4 or 8.  A smaller section's are lists,
which cost it a few KiB at most: importing ``array`` imports ``collections`` (to register the type as a
sequence), which the dump of a small object otherwise does without.

``Entries(data)`` prepares a section once; ``entry(pos, asz, order)`` decodes the entry at ``pos`` and
returns ``(version, feature, stored address word, ids, offsets, sizes, metadata, call-site ends or None,
end)`` or None.  None means only
"not this shape": the caller then decodes that one entry with the plain decoder
(``bb_addr_map._decode_function``), which is the reference and reports any error.  A differential test
(tests/test_bb_fast.py) checks both give the same model on every corpus file and benchmark program.

How it is fast: the values of an entry's blocks are read as one run of bytes (``bytes`` slices extend a
list of ints in C) between the few ULEB128s of more than one byte, found through a copy of the section
that marks every byte with its top bit set (``bytes.find`` in C).  It earns its place on zstd and jsonnet
(scripts/bench-bb-addr-map's programs: the decoding against the plain decoder's in docs/benchmarks.md).
"""
from itertools import accumulate, repeat
from operator import add, sub

# byte -> 1 where the top bit is set (a ULEB128 byte that another follows), else 0
_MARK = bytes(b >> 7 for b in range(256))
KNOWN_METADATA = 0x1F
CALLSITE_END_OFFSETS = 0x20
PGO = 0x7          # FuncEntryCount, BBFreq, BrProb: what follows the blocks (the caller reads it)
ARRAYS_FROM = 1 << 16      # section size from which the columns are arrays


class Entries:
    __slots__ = ("data", "marks", "end", "u32", "u64")

    def __init__(self, data: bytes):
        self.data = data
        self.marks = data.translate(_MARK)
        self.end = len(data)
        if len(data) >= ARRAYS_FROM:
            from array import array
            self.u32 = lambda values: array("I", values)
            self.u64 = lambda values: array("Q", values)
        else:
            self.u32 = self.u64 = list

    def _values(self, pos, count, out):
        """Append ``count`` ULEB128 values from ``pos`` to ``out``; the position after them, or -1 when one is
        not minimal, does not fit in 32 bits or runs off the end."""
        data, find, end = self.data, self.marks.find, self.end
        while count:
            q = find(1, pos, pos + count)
            if q < 0:
                if pos + count > end:
                    return -1
                out += data[pos:pos + count]
                return pos + count
            out += data[pos:q]
            count -= q - pos
            z = find(0, q, q + 5)          # the last byte of this value
            if z < 0 or not data[z] or (z - q == 4 and data[z] > 0x0F):
                return -1                  # runs on, over 5 bytes, not minimal, or past 32 bits
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
        return version, feature, word, self.u32(vals[0::4]), self.u64(_offsets(vals[1::4], sizes)), \
            self.u64(sizes), bytes(mds), None, p

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
            ends = [()] * n              # (one shared empty tuple: a list per block is 56 bytes)
        else:
            get = vals.__getitem__
            ids = list(map(get, starts))
            deltas = list(map(get, map(add, starts, repeat(1))))
            counts = list(map(get, map(add, starts, repeat(2))))
            after = list(map(add, starts, map(add, counts, repeat(3))))
            sizes = list(map(get, after))
            mds = list(map(get, map(add, after, repeat(1))))
            ends = [list(accumulate(vals[s + 3:s + 3 + c])) if c else () for s, c in zip(starts, counts)]
            sizes = [sz + e[-1] if e else sz for sz, e in zip(sizes, ends)]
        if max(mds) > KNOWN_METADATA:
            return None
        return version, feature, word, self.u32(ids), self.u64(_offsets(deltas, sizes)), self.u64(sizes), \
            bytes(mds), ends, p


def _offsets(deltas, sizes):
    """Offset i: the stored offsets of blocks 0..i plus the sizes of blocks 0..i-1."""
    return list(map(sub, accumulate(map(add, deltas, sizes)), sizes))
