"""The fast path of the bb-addr-map decoder (objllvm/sections/support/bb_fast.py) against the plain decoder
(``decode_map(..., fast=False)``), which is the reference: the same model, the same views, the same error
(message, offset, partial result) on every corpus file (the malformed and lit inputs included), on generated
sections with entries of every other shape mixed in, and on the benchmark programs when they are built.

The fast path declines one entry at a time: an entry it does not take (a feature bit, a long ULEB128 that is
not minimal, unknown metadata) goes to the plain decoder alone, and the entries around it stay on the fast path.
"""
from __future__ import annotations

import io
import json
import os
import random
from pathlib import Path

import pytest

from conftest import TESTDATA, corpus_files
from objllvm import render
from objllvm.errors import DecodeError
from objllvm.formats import open_object
from objllvm.sections import bb_addr_map as M
from objllvm.sections import registry
from objllvm.sections.registry import SectionContext
from objllvm.sections.support import bb_decode, bb_fast

CODEC = registry.get("bb-addr-map")


class _Sec:
    link = 0
    type = M.SHT_LLVM_BB_ADDR_MAP


def _ctx(endian="<", asz=8):
    return SectionContext(endian=endian, addr_size=asz, is_relocatable=False, file_type="ET_EXEC",
                          section=_Sec())


def _uleb(v):
    return M.uleb_encode(v)


def _entry(rng, version, base, endian="<", asz=8, nblocks=None, big=0.1, feature=0):
    """One entry as clang writes it: IDs, offsets and sizes of any width (``big``: the share of values of two or
    more bytes), metadata of known bits."""
    n = nblocks or rng.randint(1, 200)
    order = "little" if endian == "<" else "big"
    out = bytearray([version]) + feature.to_bytes(2 if version == 5 else 1, order)
    out += base.to_bytes(asz, order) + _uleb(n)
    for i in range(n):
        wide = lambda: rng.randrange(0x80, 1 << rng.choice([8, 14, 21, 28, 32]))     # noqa: E731
        out += _uleb(i if rng.random() > big else wide())
        out += _uleb(rng.choice([0, 0, 0, rng.randrange(16)]) if rng.random() > big else wide())
        if feature & M.CALLSITE_END_OFFSETS:
            calls = rng.choice([0, 0, 1, 2, rng.randrange(200)])
            out += _uleb(calls)
            for _ in range(calls):
                out += _uleb(rng.randrange(1, 20) if rng.random() > big else wide())
        out += _uleb(rng.randrange(1, 128) if rng.random() > big else wide())
        out += _uleb(rng.choice([0, 1, 2, 8, 8, 16, 31]))
        if feature & M.BB_HASH:      # any bytes: a last byte with its top bit set runs into the next block's ID
            out += rng.choice([rng.getrandbits(64), 0xFF << 56, 0x7F << 56, 0]).to_bytes(8, order)
    if feature & M.FUNC_ENTRY_COUNT:
        out += _uleb(rng.choice([0, 1, 1000, 1 << 40]))
    for _ in range(n if feature & (M.BB_FREQ | M.BR_PROB) else 0):
        if feature & M.BB_FREQ:
            out += _uleb(rng.choice([0, 1, 1 << 20, 1 << 50]))
        if feature & M.BR_PROB:
            k = rng.choice([0, 1, 2, 2, 5])
            out += _uleb(k)
            for _ in range(k):
                out += _uleb(rng.randrange(n)) + _uleb(rng.randrange(0x80000001))
    return bytes(out)


def _same(raw, ctx):
    """Decode ``raw`` every way: fast, fast with the PGO analysis read when asked for (``pgo_later``: what perf-map's
    index does), and plain; the same model or the same error; returns the fast model (or None)."""
    outcomes = []
    for fast, later in ((True, False), (True, True), (False, False)):
        try:
            outcomes.append(("ok", M.decode_map(raw, ctx, fast, pgo_later=later)))
        except DecodeError as exc:
            outcomes.append(("error", str(exc), exc.offset, exc.partial))
    (k1, *a), *others = outcomes
    for k2, *b in others:
        assert k1 == k2
        if k1 == "error":
            assert a[:2] == b[:2]
            assert (a[2] and a[2].functions) == (b[2] and b[2].functions)
    if k1 == "error":
        return None
    fast, later, plain = a[0], others[0][1], others[1][1]
    assert not any(f._pgo_later for f in fast.functions)
    for other in (later, plain):
        assert fast == other
        for f, p in zip(fast.functions, other.functions):
            assert (f.offset, f.section_index, f._raw, f.ranges[0].stored_address if f.ranges else None,
                    f.entry_count) == \
                (p.offset, p.section_index, p._raw, p.ranges[0].stored_address if p.ranges else None, p.entry_count)
        assert CODEC.to_dict(fast) == CODEC.to_dict(other)
        assert M.encode_map(fast, ctx.endian, ctx.addr_size) == M.encode_map(other, ctx.endian, ctx.addr_size)
    return fast


def _sections(paths):
    for p in paths:
        try:
            obj = open_object(str(p))
        except Exception:
            continue
        if obj.format != "elf":
            continue
        for s in obj.sections:
            if s.type in M.TYPE_NAMES:
                yield p, SectionContext.for_section(obj, s), bytes(s.data())


def test_corpus_fast_is_plain():
    n = 0
    for p, ctx, raw in _sections(corpus_files(exclude=("src", "docs"))):
        _same(raw, ctx)
        n += 1
    assert n >= 20, n


@pytest.mark.parametrize("endian,asz,version,feature", [("<", 8, 5, 0), ("<", 8, 2, 0), (">", 8, 3, 0x20),
                                                        ("<", 4, 4, 0), (">", 4, 5, 0x20), ("<", 8, 5, 0x20),
                                                        ("<", 8, 5, 0x27), ("<", 8, 2, 0x06), (">", 4, 4, 0x21),
                                                        ("<", 8, 5, 0x67), ("<", 8, 4, 0x40), (">", 8, 5, 0x60),
                                                        ("<", 4, 4, 0x47)])
def test_generated_fast_is_plain(endian, asz, version, feature):
    rng = random.Random(asz * 10 + version)
    parts = [_entry(rng, version, 0x401000 + 0x1000 * k, endian, asz, feature=feature if k % 5 else 0)
             for k in range(60)]
    raw = b"".join(parts)
    model = _same(raw, _ctx(endian, asz))
    assert len(model.functions) == 60
    assert M.encode_map(model, endian, asz) == raw


@pytest.mark.parametrize("arrays_from", [0, 1 << 30])
def test_columns_as_arrays_or_lists_give_the_same_model(monkeypatch, arrays_from):
    """A section of ARRAYS_FROM bytes or more keeps its columns in arrays, a smaller one in lists: both decode to
    what the plain decoder gives, with and without call sites and PGO analysis."""
    from array import array
    monkeypatch.setattr(bb_fast, "ARRAYS_FROM", arrays_from)
    rng = random.Random(7)
    raw = b"".join(_entry(rng, 5, 0x401000 + 0x1000 * k, "<", 8, feature=(0, 0x20, 0x27)[k % 3]) for k in range(30))
    model = _same(raw, _ctx("<", 8))
    cols = M.decode_map(raw, _ctx("<", 8), True).functions[0].ranges[0]._cols
    assert isinstance(cols[0], array if arrays_from == 0 else list) and isinstance(cols[2], type(cols[0]))
    assert M.encode_map(model, "<", 8) == raw


@pytest.mark.parametrize("bad", ["feature", "PGO cut", "PGO not minimal", "call sites in version 2", "call-site count past the end", "not minimal", "past 32 bits", "metadata", "version 1", "cut",
                                 "no blocks", "count past the end"])
def test_one_unusual_entry_goes_alone_to_the_plain_decoder(monkeypatch, bad):
    rng = random.Random(3)
    good = _entry(rng, 5, 0x401000, nblocks=300, big=0.3, feature=M.CALLSITE_END_OFFSETS)
    one = bytearray(_entry(rng, 5, 0x402000, nblocks=4, big=0))
    at = 3 + 8 + 1                 # the first block
    if bad == "feature":
        one[1] = M.BB_HASH
    elif bad == "call sites in version 2":
        one = bytearray(_entry(rng, 2, 0x402000, nblocks=4, big=0, feature=M.CALLSITE_END_OFFSETS))
    elif bad == "call-site count past the end":
        one = bytearray(_entry(rng, 5, 0x402000, nblocks=1, big=0, feature=M.CALLSITE_END_OFFSETS))
        one[at + 2:] = b"\xff\xff\x03\x01\x02"
    elif bad in ("PGO cut", "PGO not minimal"):
        one = bytearray(_entry(rng, 5, 0x402000, nblocks=4, big=0, feature=0x27))
        if bad == "PGO cut":
            one = one[:-1]
        else:                        # the last block's frequency padded with a zero byte
            one = bytearray(_entry(random.Random(4), 5, 0x402000, nblocks=2, big=0, feature=0x23))
            one[-1:] = bytes([one[-1] | 0x80, 0])
    elif bad == "not minimal":     # a two-byte size whose second byte is zero
        one[at + 2:at + 3] = bytes([one[at + 2] | 0x80, 0])
    elif bad == "past 32 bits":
        one[at + 2:at + 3] = b"\xff\xff\xff\xff\x1f"
    elif bad == "metadata":
        one[at + 3] = 0x20
    elif bad == "version 1":       # no IDs: 3 bytes a block, one-byte feature
        one = bytearray([1, 0]) + one[3:at] + b"".join(one[at + 4 * k + 1:at + 4 * k + 4] for k in range(4))
    elif bad == "cut":
        one = one[:-1]
    elif bad == "no blocks":
        one = one[:at - 1] + b"\x00"
    elif bad == "count past the end":
        one[at - 1] = 0x7F
        one = one[:at + 8]
    tail = good if bad not in ("cut", "count past the end", "call-site count past the end", "PGO cut") else b""
    raw = good + bytes(one) + tail
    model = _same(raw, _ctx())
    plain_calls = []
    real = bb_decode._decode_function
    monkeypatch.setattr(bb_decode, "_decode_function", lambda *a: plain_calls.append(a[1]) or real(*a))
    try:
        M.decode_map(raw, _ctx())
    except DecodeError:
        pass
    # the good entries on the fast path; the unusual one alone through the plain decoder (for its PGO data
    # only, past blocks the fast path took)
    assert plain_calls == ([] if bad.startswith("PGO") else [len(good)]), plain_calls
    if model is not None:
        assert len(model.functions) == (3 if tail else 2)


def test_values_of_every_width():
    """IDs, offsets and sizes of one to five bytes, the largest that fit in 32 bits."""
    for v in (0x7F, 0x80, 0x3FFF, 0x4000, 0x1FFFFF, 0x200000, 0xFFFFFFF, 0x10000000, 0xFFFFFFFF):
        raw = bytes([5, 0, 0]) + (0x1000).to_bytes(8, "little") + b"\x02" + _uleb(v) + b"\x00" + _uleb(v) + b"\x08" \
            + b"\x01\x00\x01\x01"
        e = bb_fast.Entries(raw).entry(0, 8, "little")
        assert e is not None and list(e[3]) == [v, 1] and list(e[5]) == [v, 1] and list(e[4]) == [0, v] \
            and e[-1] == len(raw)
        _same(raw, _ctx())


def _cache():
    return Path(os.environ.get("OBJLLVM_BENCH_CACHE", os.path.expanduser("~/.cache/objllvm-bench"))) / "bin"


def test_benchmark_programs_fast_is_plain():
    """The real programs scripts/bench-bb-addr-map builds (Lua, zstd, jsonnet, the regex crate; with and without
    PGO analysis), when they are in the benchmark cache."""
    exes = [p for p in sorted(_cache().glob("*-bb*")) if p.is_file() and "-x" not in p.name] \
        if _cache().is_dir() else []
    if not exes:
        pytest.skip(f"no benchmark program built in {_cache()} (scripts/bench-bb-addr-map builds them)")
    n = 0
    for p, ctx, raw in _sections(exes):
        _same(raw, ctx)
        n += 1
    assert n


def test_function_names_that_start_inside_another_string(tmp_path):
    """A name offset into the middle of a string (a linker may share tails) names the tail, as read_symbols has it."""
    p = TESTDATA / "bb-addr-map" / "clang19-labels.exe"
    obj = open_object(str(p))
    k = next(s.index for s in obj.symbols if s.type == 2 and len(s.name) > 3)
    symtab = next(s for s in obj.sections if s.type == 2)
    data = bytearray(p.read_bytes())
    at = symtab.offset + 24 * k
    data[at:at + 4] = (int.from_bytes(data[at:at + 4], "little") + 2).to_bytes(4, "little")
    bad = tmp_path / "tail.exe"
    bad.write_bytes(bytes(data))
    want = {}
    for s in open_object(str(bad)).symbols:
        if s.type == 2:
            want.setdefault(s.value, s.name)
    assert open_object(str(bad)).function_names() == want
    assert obj.symbols[k].name[2:] in want.values()


def test_views_of_a_fast_map_are_tabulates_and_jsons():
    """The text of a map decoded on the fast path is what tabulate lays out, its JSON what json.dumps writes."""
    rng = random.Random(9)
    raw = b"".join(_entry(rng, 5, 0x401000 + 0x4000 * k, big=0.2) for k in range(30))
    model = M.decode_map(raw, _ctx())
    tables = CODEC.tables(model, {})
    out, ref = io.StringIO(), io.StringIO()
    render.render_text(tables, out)
    render.render_text(tables, ref, engine="tabulate")
    assert out.getvalue() == ref.getvalue()
    stream = CODEC.to_json(model)
    assert json.loads(b"".join(stream.chunks(None))) == json.loads(json.dumps(CODEC.to_dict(model)))


def _pgo_entry(base, nblocks, successors, freq, prob, entry=0x10000, listed=None):
    """A version-5 entry with FuncEntryCount, BBFreq and BrProb: every block ``successors`` successors (``listed``
    of them written, all by default), each block's frequency ``freq`` and each successor's probability ``prob``."""
    out = bytearray([5]) + (0x27).to_bytes(2, "little") + base.to_bytes(8, "little") + _uleb(nblocks)
    for i in range(nblocks):
        out += _uleb(i) + b"\x00" + b"\x00" + b"\x04" + b"\x00"
    out += _uleb(entry)
    for i in range(nblocks):
        out += _uleb(freq) + _uleb(successors)
        for k in range(successors if listed is None else listed):
            out += _uleb((i + k) % nblocks) + _uleb(prob)
    return bytes(out)


@pytest.mark.parametrize("field,value", [("prob", 0xFFFFFFFF), ("prob", 1 << 32), ("freq", (1 << 64) - 1),
                                         ("freq", 1 << 64), ("entry", (1 << 64) - 1), ("entry", 1 << 64),
                                         ("successors", 1 << 40)])
def test_pgo_values_at_the_edges_of_their_fields(field, value):
    """The PGO analysis read on the fast path gives the plain decoder's model, or leaves the entry to it where a
    value does not fit its field (32 bits for a successor's ID and probability, 64 for frequencies and counts)."""
    args = {"successors": 2, "freq": 1000, "prob": 0x40000000, "entry": 0x10000}
    args[field] = value
    nblocks = 1 if field == "successors" else 5
    raw = _pgo_entry(0x401000, 20, 2, 77, 0x40000000) + _pgo_entry(0x402000, nblocks, **args,
                                                                     listed=3 if field == "successors" else None)
    model = _same(raw, _ctx())
    fits = value < (1 << 32 if field == "prob" else 1 << 64) and field != "successors"
    assert (model is not None) == fits


def test_pgo_of_any_density_in_one_section(monkeypatch):
    """Functions whose PGO analysis takes many more (or fewer) bytes a block than those before it: the fast path
    reads on past its first guess of where an entry ends (and stops at the section's end)."""
    rng = random.Random(11)
    parts = []
    for k in range(40):
        n = rng.choice([1, 2, 7, 50])
        parts.append(_pgo_entry(0x401000 + 0x1000 * k, n, rng.choice([0, 1, 2, 30]), rng.choice([1, 1 << 40]),
                                rng.choice([1, 0x7FFFFFFF])))
    raw = b"".join(parts)
    taken = []
    real = bb_fast.Entries.pgo
    monkeypatch.setattr(bb_fast.Entries, "pgo", lambda *a: taken.append(real(*a) is not None) or real(*a))
    model = _same(raw, _ctx())
    assert len(model.functions) == 40 and all(taken[:40])
    assert M.encode_map(model, "<", 8) == raw
    _same(raw[:-1], _ctx())        # the last entry's PGO analysis cut short: the plain decoder's error


def test_values_remembered_are_bounded(monkeypatch):
    """The table of values the PGO reader looks up by their bytes is emptied when full: a section of ever new
    values decodes as the plain decoder does, with no more than VALUES_KEPT of them kept."""
    monkeypatch.setattr(bb_fast, "VALUES_KEPT", 50)
    seen = []
    real = bb_fast.Entries.pgo

    def pgo(self, *a):
        out = real(self, *a)
        seen.append(len(self.values))
        return out
    monkeypatch.setattr(bb_fast.Entries, "pgo", pgo)
    raw = b"".join(_pgo_entry(0x401000 + 0x1000 * k, 30, 2, 1000 + 7919 * k, 0x10000 + 104729 * k) for k in range(20))
    model = _same(raw, _ctx())
    assert len(model.functions) == 20 and seen and max(seen) <= 50


@pytest.mark.parametrize("feature", [0x27, 0x26, 0x25, 0x24, 0x23])
def test_pgo_of_a_function_without_blocks(feature):
    """An entry of no blocks with PGO analysis (its entry count, if any, and nothing per block): the fast path
    gives the plain decoder's model."""
    empty = bytearray([5]) + feature.to_bytes(2, "little") + (0x403000).to_bytes(8, "little") + _uleb(0)
    if feature & M.FUNC_ENTRY_COUNT:
        empty += _uleb(0x10000)
    raw = _pgo_entry(0x401000, 5, 2, 77, 0x40000000) + bytes(empty) + _pgo_entry(0x402000, 3, 1, 9, 0x80000000)
    model = _same(raw, _ctx())
    assert model is not None and [len(f.ranges[0].blocks) for f in model.functions] == [5, 0, 3]
    # (entry() leaves such an entry to the plain decoder; pgo() itself reads no block for it either)
    count, cols, end = bb_fast.Entries(bytes(empty[12:])).pgo(0, 0, feature)
    assert count == (0x10000 if feature & M.FUNC_ENTRY_COUNT else None) and end == len(empty) - 12
    assert cols is None or not any(cols)


def test_pgo_read_later_is_read_only_when_asked_for():
    """With ``pgo_later`` (perf-map's index) each function's entry count is read and its PGO analysis left for
    later: reading one function's leaves the others unread, and each gives the plain decoder's."""
    rng = random.Random(12)
    raw = b"".join(_pgo_entry(0x401000 + 0x1000 * k, rng.randint(1, 40), rng.choice([0, 1, 2]), 1 << 54,
                              0x40000000, entry=k * 1000) for k in range(10))
    later = M.decode_map(raw, _ctx(), pgo_later=True)
    plain = M.decode_map(raw, _ctx(), fast=False)
    assert all(f._pgo_later is not None and f._pgo_cols is None for f in later.functions)
    assert [f.entry_count for f in later.functions] == [k * 1000 for k in range(10)]
    assert later.functions[3].pgo_blocks == plain.functions[3].pgo_blocks
    assert [f._pgo_later is None for f in later.functions] == [k == 3 for k in range(10)]
    assert later == plain


def _nonminimal_freq(raw):
    """``raw`` (a _pgo_entry of frequency 77) with the first block's frequency written in two bytes."""
    at = raw.index(bytes([77, 2]))
    return raw[:at] + bytes([77 | 0x80, 0]) + raw[at + 1:]


@pytest.mark.parametrize("case", ["fits", "count of two bytes", "probability over 32 bits", "frequency of 10 bytes",
                                  "not minimal"])
def test_pgo_end_walks_only_what_pgo_would_take(case):
    """``Entries.pgo_end`` finds the end of a PGO analysis (and its entry count) without reading its values only
    when every value is minimal and fits its field; any other goes to pgo() and the plain decoder, as before."""
    args = {"fits": dict(successors=2, freq=77, prob=0x80000000),
            "count of two bytes": dict(successors=200, freq=77, prob=1, listed=2),
            "probability over 32 bits": dict(successors=2, freq=77, prob=1 << 32),
            "frequency of 10 bytes": dict(successors=2, freq=1 << 63, prob=1),
            "not minimal": dict(successors=2, freq=77, prob=0x80000000)}[case]
    one = _pgo_entry(0x402000, 4, entry=1 << 40, **args)
    if case == "not minimal":
        one = _nonminimal_freq(one)
    entries = bb_fast.Entries(one)
    e = entries.entry(0, 8, "little")
    got = entries.pgo_end(e[-1], 4, 0x27)
    if case == "fits":
        count, _cols, end = bb_fast.Entries(one).pgo(e[-1], 4, 0x27)
        assert got == (count, end) == (1 << 40, len(one))
    else:
        assert got is None
    raw = _pgo_entry(0x401000, 3, 1, 5, 0x80000000) + one + _pgo_entry(0x403000, 2, 1, 9, 0x80000000)
    _same(raw, _ctx())


def test_pgo_read_later_falls_back_to_the_plain_decoder(monkeypatch):
    """Where pgo() declines a PGO analysis pgo_end walked past, the plain decoder reads it when it is asked for."""
    rng = random.Random(13)
    raw = b"".join(_pgo_entry(0x401000 + 0x1000 * k, rng.randint(1, 30), rng.choice([1, 2]), 1 << 54, 0x40000000)
                   for k in range(5))
    later = M.decode_map(raw, _ctx(), pgo_later=True)
    monkeypatch.setattr(bb_fast.Entries, "pgo", lambda *a: None)
    assert all(f._pgo_later is not None for f in later.functions)
    assert later == M.decode_map(raw, _ctx(), fast=False)
