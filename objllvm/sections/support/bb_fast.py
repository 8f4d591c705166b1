"""A fast decoder of the function entries of a bb-addr-map that most compilers write: version 2 to 5, no feature
bits but CallsiteEndOffsets (clang-22 sets it on every function that calls) and those of PGO analysis
(FuncEntryCount, BBFreq, BrProb), one range, every ULEB128 minimal and within its field, metadata of known bits
only (clang's ``-fbasic-block-address-map``, with or without ``-pgo-analysis-map``).

The columns of a section of ``ARRAYS_FROM`` bytes or more are arrays (IDs 32-bit, offsets and sizes 64-bit) and
the metadata bytes: a Python int in a list takes 36 bytes, in an array 4 or 8.  A smaller section's are lists,
which cost it a few KiB at most: importing ``array`` imports ``collections`` (to register the type as a
sequence), which the dump of a small object otherwise does without.

``Entries(data)`` prepares a section once; ``entry(pos, asz, order)`` decodes the blocks of the entry at ``pos``
and returns ``(version, feature, stored address word, ids, offsets, sizes, metadata, call-site ends or None,
end)`` or None; ``pgo(pos, nblocks, feature)`` reads the PGO analysis that follows them, or returns None;
``pgo_end(pos, nblocks, feature)`` finds only where that analysis ends (and the entry count), leaving its values
for ``pgo`` to read when asked for (``decode_map(..., pgo_later=True)``: perf-map reads the PGO analysis of the
sampled functions alone), or returns None where ``pgo`` or the plain decoder would decline or fail.  None
means only "not this shape": the caller then decodes that entry (or its PGO analysis) with the plain decoder
(``bb_decode._decode_function``, ``_decode_function_pgo``), which is the reference and reports any error.  A
differential test (tests/test_bb_fast.py) checks both give the same model on every corpus file and benchmark
program.

How it is fast: the values of an entry's blocks are read as one run of bytes (``bytes`` slices extend a list of
ints in C) between the few ULEB128s of more than one byte, found through a copy of the section that marks every
byte with its top bit set (``bytes.find`` in C); it earns its place on zstd and jsonnet.  The PGO analysis, whose
values are mostly of several bytes, is cut into values a window at a time, each looked up by its bytes
(``_uleb_run``); that earns its place on zstd-pgo.  ``pgo_end`` splits the same window but reads the successor
counts alone (one byte each, found by their index among the values); it earns its place on perf-map's layout of
zstd (scripts/bench-layout), whose sampled functions hold a small part of its map.
"""
from itertools import accumulate, chain, islice, repeat
from operator import add, sub

# byte -> 1 where the top bit is set (a ULEB128 byte that another follows), else 0
_MARK = bytes(b >> 7 for b in range(256))
# byte -> itself where the top bit is set, else 0; the bytes with the top bit set; each byte as a bytes object
_HIGHS = bytes(b if b >> 7 else 0 for b in range(256))
_HIGH = bytes(range(0x80, 0x100))
_ONE = tuple(bytes([b]) for b in range(256))
# byte -> 0x80 where the top bit is set, 0 for 0, else 1: a ULEB128 of several bytes ending in 0 shows as 80 00
_NONMINIMAL = bytes([0] + [1] * 127 + [0x80] * 128)
_OVER_0F = bytes(int(b > 0x0F) for b in range(256))
KNOWN_METADATA = 0x1F
CALLSITE_END_OFFSETS = 0x20
FUNC_ENTRY_COUNT, BB_FREQ, BR_PROB = 0x1, 0x2, 0x4
PGO = 0x7          # FuncEntryCount, BBFreq, BrProb: what follows the blocks (read by pgo())
NOT_READ = 1 << 80         # (over 64 bits: a value no field takes)
ARRAYS_FROM = 1 << 16      # section size from which the columns are arrays
VALUES_KEPT = 1 << 16      # values remembered by their bytes, at most


class _Values(dict):
    """The bytes of one ULEB128 -> its value, or ``NOT_READ`` for one that is not minimal or longer than 10 bytes."""

    def __missing__(self, uleb):
        if len(self) >= VALUES_KEPT:
            self.clear()                   # (a section of ever new values: memory in step with the bytes read)
        v = NOT_READ
        if len(uleb) <= 10 and (len(uleb) == 1 or uleb[-1]):
            v = 0
            for b in reversed(uleb):
                v = v << 7 | (b & 0x7F)
        self[uleb] = v
        return v


class Entries:
    __slots__ = ("data", "marks", "highs", "end", "u32", "u64", "values", "pgo_bytes")

    def __init__(self, data: bytes):
        self.data = data
        self.marks = data.translate(_MARK)
        self.highs = data.translate(_HIGHS)
        self.end = len(data)
        self.values = _Values()
        self.pgo_bytes = [8, 1]    # PGO analysis: bytes and blocks read so far
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

    def _uleb_run(self, pos, stop):
        """The values of the whole ULEB128s from ``pos`` (where one starts) up to ``stop``, the bytes with the top
        bit set of each (``runs``) and the position after the last.  A value's bytes are the piece of ``highs``
        between zeros plus the next byte (the terminators in order: the window without its bytes with the top bit
        set); each value is looked up by its bytes in ``values``."""
        runs = self.highs[pos:stop].split(b"\0")
        stop -= len(runs.pop())            # the bytes after the last whole value
        lasts = map(_ONE.__getitem__, self.data[pos:stop].translate(None, _HIGH))
        return list(map(self.values.__getitem__, map(add, runs, lasts))), runs, stop

    def pgo_end(self, pos, nblocks, feature):
        """``(entry count or None, end)`` of the PGO analysis of an entry at ``pos`` (after its blocks), read
        without looking up its values, when every ULEB128 in it is minimal and fits its field (its successor
        counts of one byte, frequencies of at most 9 bytes); else None.  :meth:`pgo` reads the values when they
        are asked for.  The successor counts are read from the window of bytes split as :meth:`_uleb_run` does."""
        head = 1 if feature & BB_FREQ else 0
        first = feature & FUNC_ENTRY_COUNT
        window = self.pgo_bytes[0] * nblocks // self.pgo_bytes[1] + 16
        while True:
            stop = min(self.end, pos + window)
            runs = self.highs[pos:stop].split(b"\0")
            runs.pop()                         # the bytes after the last whole value
            lasts = self.data[pos:stop].translate(None, _HIGH)
            i, counts = first, []
            try:
                if feature & BR_PROB:
                    for _ in range(nblocks):
                        j = i + head           # (IndexError: the values run on past the window)
                        if runs[j]:
                            return None        # a successor count of several bytes: left to pgo()
                        counts.append(j)
                        i = j + 1 + 2 * lasts[j]
                else:
                    i += head * nblocks
                if i <= len(runs):
                    break
            except IndexError:
                pass
            if stop == self.end:
                return None
            window *= 2
        if i and max(map(len, islice(runs, i))) > 8:
            return None                        # a value of 10 bytes: pgo() checks it fits in 64 bits
        lens = bytes(map(len, islice(runs, i)))
        end = pos + i + sum(lens)
        if self.data[pos:end].translate(_NONMINIMAL).find(b"\x80\x00") >= 0:
            return None
        if feature & BR_PROB and counts:
            # the successors' IDs and probabilities fit in 32 bits: 4 bytes, or 5 with the last at most 0x0F
            wide = bytearray(map(add, lens, lasts[:i].translate(_OVER_0F)))
            for j in counts:
                wide[j] = wide[j - head] = 0   # (the count and the frequency)
            wide[0] = 0 if first else wide[0]
            if max(wide) >= 5:
                return None
        self.pgo_bytes[0] += end - pos
        self.pgo_bytes[1] += nblocks
        return (_value(runs[0], lasts[0]) if first else None), end

    def pgo(self, pos, nblocks, feature):
        """The PGO analysis of an entry at ``pos`` (after its blocks): ``(entry count or None, the columns of
        FunctionMap._pgo_cols or None, end)``, or None for the plain decoder (``_decode_function_pgo``) to read.
        Its values are mostly multi-byte: they are cut apart and looked up a window of bytes at a time, then
        walked block by block for the successor counts."""
        head = 1 if feature & BB_FREQ else 0   # values before a block's successor count
        per = 2                            # a successor: ID, probability (entry() takes no PostLinkCfg)
        step = head + 1
        i = feature & FUNC_ENTRY_COUNT     # the next block's first value
        window = self.pgo_bytes[0] * nblocks // self.pgo_bytes[1]   # the bytes a block had so far
        vals, runs, at = self._uleb_run(pos, min(self.end, pos + window * 3 // 4 + 8))
        window = window // 8 + 16
        starts = []
        if not feature & BR_PROB:
            i += head * nblocks
        while True:
            try:
                if feature & BR_PROB:
                    for _ in range(nblocks - len(starts)):
                        c = vals[i + head]     # (IndexError: the values run on past the window)
                        starts.append(i)
                        i += step + per * c
                if i <= len(vals):
                    break
            except IndexError:
                pass
            if i - len(vals) > self.end - at:      # (also a count the section cannot hold)
                return None
            more, mruns, at = self._uleb_run(at, min(self.end, at + window))
            if not more:
                return None
            vals += more
            runs += mruns
        end = pos + i + sum(map(len, islice(runs, i)))
        self.pgo_bytes[0] += end - pos
        self.pgo_bytes[1] += nblocks
        return self._pgo_columns(vals, end, i, starts, feature)

    def _pgo_columns(self, vals, end, i, starts, feature):
        """pgo's result from the walked values ``vals[:i]``, or None where one does not fit its field."""
        first = feature & FUNC_ENTRY_COUNT
        count = vals[0] if first else None
        if count is not None and count >> 64:
            return None
        if not feature & (BB_FREQ | BR_PROB):
            return count, None, end
        freqs = counts = sids = probs = None
        if feature & BR_PROB:
            head = 1 if feature & BB_FREQ else 0
            freqs = _picked(vals, starts, 0) if head else None
            counts = _picked(vals, starts, head)
            firsts = list(map(add, starts, repeat(head + 1)))
            flat = list(chain.from_iterable(map(vals.__getitem__, map(slice, firsts, map(add, firsts, map(
                (2).__mul__, counts))))))
            sids, probs = flat[0::2], flat[1::2]
            if sids and (max(sids) >> 32 or max(probs) >> 32) or max(counts, default=0) >> 64:
                return None
        else:
            freqs = vals[first:i]
        if freqs and max(freqs) >> 64:
            return None
        return count, (freqs, None, counts, sids, probs, None), end

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
        add_start = starts.append
        i = 0                              # the next block's first value
        have = 5 * n                       # values read
        while True:
            try:
                for _ in range(n - len(starts)):
                    add_start(i)
                    i += 5 + vals[i + 2]   # (IndexError: that block's count is not read yet)
            except IndexError:
                starts.pop()
            need = i + 5 * (n - len(starts))   # values the entry is known to have
            if need == have:
                break
            if need - have > self.end - p:
                return None
            p = self._values(p, need - have, vals)     # every value known to be needed, at once
            if p < 0:
                return None
            have = need
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


def _value(run, last):
    """The value of a ULEB128 of the bytes ``run`` (top bit set) and ``last``."""
    v = last
    for b in reversed(run):
        v = v << 7 | (b & 0x7F)
    return v


def _offsets(deltas, sizes):
    """Offset i: the stored offsets of blocks 0..i plus the sizes of blocks 0..i-1."""
    return list(map(sub, accumulate(map(add, deltas, sizes)), sizes))


def _picked(vals, starts, k):
    """``vals[s + k]`` for every ``s`` of ``starts``."""
    return list(map(vals.__getitem__, map(add, starts, repeat(k)))) if k else list(map(vals.__getitem__, starts))
