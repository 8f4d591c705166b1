"""The covfun section's two decoders and its two JSON writers give the same results.

``decode_covfun`` reads a section into region columns (``support/covfun_fast.decode``) and hands any record
it does not take to the plain decoder (``decode_mapping``; ``decode_records`` is the plain decoder of a whole
section, the reference); ``CoverageCodec.to_json`` writes the JSON text from those columns where ``to_dict`` makes a dict
per region.  Checked here: the same records (and the same errors, offsets and partial results) from both
decoders, on the corpus, on generated sections with every region kind, and on mutated ones; the same text
from both writers, compact and indented, on the same inputs; and the model API of a column-backed mapping
(regions made when read, edits, equality).  The whole-program comparison with llvm-cov-22 export is in
tests/test_profile_coverage.py (it goes through the same decoder).
"""
from __future__ import annotations

import io
import json
import random
import struct

import pytest

from conftest import TESTDATA
from objllvm import api
from objllvm.binary import read_uleb, uleb_encode
from objllvm.errors import DecodeError
from objllvm.formats import open_object
from objllvm.render import render_json
from objllvm.sections import coverage_map as cm
from objllvm.sections.registry import decode_section
from objllvm.sections.support import covfun_fast, covfun_json
from objllvm.sections.support.instrprof import section_role

D = TESTDATA / "profile"
CORPUS = ["prog-clang22", "prog-clang19", "prog-clang22-macho.dylib", "prog-clang22.o", "prog-clang19.o",
          "prog-clang22-coff.obj", "prog-clang19-coff.obj", "prog-clang22-macho.o", "prog-clang19-macho.o",
          "prog-i386.o", "prog-ppc64be.o", "prog-nocompress.o", "rust.o"]
CODEC = cm.CoverageCodec()


def covfun_sections(name):
    obj = open_object(str(D / name))
    return obj, [s for s in obj.sections if section_role(s, obj) == "covfun"]


def fast(data, e="<"):
    return covfun_fast.decode(bytes(data), e, {}, {})


def both(data, e="<"):
    """(the fast decoder's model, the plain record-by-record decoder's)."""
    return fast(data, e), cm.decode_records(bytes(data), e, {}, {})


def fell_back(data, e="<") -> list:
    """The indices of the records the fast decoder handed to the plain one."""
    seen = []
    real = covfun_fast.record_mapping

    def spy(data, start, end, out, name, nh):
        seen.append(len(out.records))
        return real(data, start, end, out, name, nh)
    covfun_fast.record_mapping = spy
    try:
        fast(data, e)
    finally:
        covfun_fast.record_mapping = real
    return seen


def compact(model) -> str:
    return json.dumps(CODEC.to_dict(model), separators=(",", ":"))


def streamed(model, indent=None) -> str:
    stream = CODEC.to_json(model)
    assert stream is not None
    return b"".join(stream.chunks(indent)).decode("ascii")


def assert_same_text(model):
    """to_json's text is json's text of to_dict: compact, and indented at a few depths.  (to_dict first
    reads the regions, which makes them objects: the columns no longer describe the model after it.)"""
    got = [streamed(model, level) for level in (None, 0, 6)]
    d = CODEC.to_dict(model)
    assert got[0] == json.dumps(d, separators=(",", ":"))
    for level, text in zip((0, 6), got[1:]):
        assert text == json.dumps(d, indent=2).replace("\n", "\n" + " " * level)


# -- the corpus -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", CORPUS)
def test_corpus_sections_decode_the_same_packed_and_record_by_record(name):
    obj, secs = covfun_sections(name)
    assert secs
    for s in secs:
        packed, each = both(s.data(), obj.endian)
        assert not fell_back(s.data(), obj.endian), f"{s.name}: the fast decoder gave up on a compiler's record"
        assert packed == each and packed.records
        assert cm.encode_covfun(packed, obj.endian) == bytes(s.data())


@pytest.mark.parametrize("name", CORPUS)
def test_corpus_json_text_is_to_dicts(name):
    obj = open_object(str(D / name))
    n = 0
    for s in obj.sections:
        d = decode_section(obj, s)
        if d.codec is not None and d.codec.kind == "coverage" and isinstance(d.model, cm.CoverageFunctions):
            assert_same_text(d.model)
            n += 1
    assert n


@pytest.mark.parametrize("indent", [True, False])
def test_dump_document_is_the_same_through_the_columns(indent):
    """The whole `dump --json` document, with the column writer (RawJSON parts) and without (to_dict)."""
    items = api.dump(str(D / "prog-clang22"), ["coverage"]) + api.dump(str(D / "rust.o"), ["coverage"])
    a, b = io.StringIO(), io.StringIO()
    render_json(api.dump_to_json_doc(items), a, indent=indent, raw=True)
    render_json(api.dump_to_dict(items), b, indent=indent)
    assert a.getvalue() == b.getvalue() and '"regions"' in a.getvalue()


# -- generated sections: every region kind, big values, several files -----------------------------------------------
def _counter(rng, nexpr, zero=True):
    tags = [1, 1] + ([2, 3] if nexpr else []) + ([0] if zero else [])
    tag = rng.choice(tags)
    if tag == 0:
        return 0
    n = rng.choice([0, 1, 5, 31, 32, 1000, 70000]) if tag == 1 else rng.randrange(nexpr)
    return (n << 2) | tag


def random_record(rng, k):
    nfiles = rng.choice([1, 1, 2, 3])
    nexpr = rng.choice([0, 1, 3, 40])
    exprs = [(_counter(rng, nexpr), _counter(rng, nexpr)) for _ in range(nexpr)]
    regions = []
    for fid in range(nfiles):
        line = 0
        for _ in range(rng.choice([0, 1, 4, 30])):
            line += rng.choice([0, 1, 2, 200, 1 << 20])
            kind = rng.choice([cm.CODE] * 5 + [cm.EXPANSION, cm.SKIPPED, cm.BRANCH, cm.DECISION, cm.MCDC_BRANCH])
            cs, ce = rng.choice([(1, 5), (7, 200), (0, 0), (130, 2), (0, 9)])
            r = cm.Region(kind, fid, 0, line, cs, line + rng.choice([0, 3, 500]), ce,
                          gap=rng.random() < (0.3 if kind == cm.CODE else 0.05))
            if kind == cm.CODE:
                r.counter = _counter(rng, nexpr)
            elif kind == cm.EXPANSION:
                r.expanded_file = rng.randrange(nfiles)
            elif kind in (cm.BRANCH, cm.MCDC_BRANCH):
                r.counter, r.false_counter = _counter(rng, nexpr), _counter(rng, nexpr)
                if kind == cm.MCDC_BRANCH:
                    r.params = (rng.choice([1, 2, 0x7FFF]), rng.choice([0, 3, 300]), rng.choice([0, 2]))
            elif kind == cm.DECISION:
                r.params = (rng.choice([0, 7, 1 << 31]), rng.choice([1, 2, 6, 0x7FFF]))
            regions.append(r)
    m = cm.Mapping([rng.randrange(4) for _ in range(nfiles)], exprs, regions)
    pad = bytes(-(28 + len(cm.encode_mapping(m))) % 8)
    return cm.FunctionRecord(0, 0x1000 + k, rng.getrandbits(64), rng.getrandbits(64), m, None, pad,
                             rng.choice([None, f"f{k}", "ünï", 'q"\\\x7f']), rng.choice([None, ["a.c", None]]))


def random_section(seed, n=12):
    rng = random.Random(seed)
    model = cm.CoverageFunctions([random_record(rng, k) for k in range(n)])
    return model, cm.encode_covfun(model)


@pytest.mark.parametrize("seed", range(40))
def test_generated_sections_decode_the_same_and_write_the_same_text(seed):
    model, data = random_section(seed)
    packed, each = both(data)
    assert packed is not None
    assert packed == each
    for r, want in zip(packed.records, model.records):
        assert r.mapping == want.mapping
    assert cm.encode_covfun(packed) == data
    fresh = fast(data)    # (comparing made the regions objects)
    for r, want in zip(fresh.records, model.records):       # (what the writer takes from the records)
        r.name, r.files = want.name, want.files
    assert_same_text(fresh)


def test_generated_section_of_functions_without_regions_and_big_batches():
    """Functions with no region (first, in a row, last), around batches of regions."""
    rng = random.Random(7)
    recs = [random_record(rng, k) for k in range(400)]
    for k in (0, 1, 2, 50, 51, 399):
        recs[k].mapping.regions = []
        recs[k].padding = bytes(-(28 + len(cm.encode_mapping(recs[k].mapping))) % 8)
    data = cm.encode_covfun(cm.CoverageFunctions(recs))
    packed, each = both(data)
    assert sum(sum(r.mapping._counts) == 0 for r in packed.records) >= 6
    assert packed == each
    fresh = fast(data)
    assert len(list(CODEC.to_json(fresh).chunks(None))) > 3       # batches
    assert_same_text(fresh)


# -- what the packed decoder leaves to the other one ----------------------------------------------------------------
def _record(body: bytes, name_hash=1) -> bytes:
    out = struct.pack("<QIQQ", name_hash, len(body), 2, 3) + body
    return out + bytes(-len(out) % 8)


SIMPLE = bytes([1, 0, 0, 1, 5, 3, 1, 2, 9])       # one file, no expressions, one region: #1 at 3:1-5:9


def test_padded_uleb_goes_record_by_record_and_is_kept():
    data = _record(SIMPLE) + _record(bytes([1, 0x80, 0x00]) + SIMPLE[2:])     # a padded file index
    packed, each = both(data)
    assert fell_back(data) == [1]
    m = cm.decode_covfun(data)
    assert m == each and m.records[1].raw is not None and cm.encode_covfun(m) == data


def test_the_fast_decoder_falls_back_for_one_record_and_keeps_the_rest_in_columns():
    """A padded ULEB128 in one record of many: only that record goes through the plain decoder, the others stay
    in the same columns, and the column JSON writer still writes the whole section (to_dict's text)."""
    rng = random.Random(11)
    recs = [random_record(rng, k) for k in range(30)]
    data = bytearray(cm.encode_covfun(cm.CoverageFunctions(recs)))
    bad = _record(bytes([1, 0x80, 0x00]) + SIMPLE[2:], 0x77)
    at = cm.decode_records(bytes(data), "<", {}, {}).records[12].offset
    data = bytes(data[:at]) + bad + bytes(data[at:])
    assert fell_back(data) == [12]
    model, each = both(data)
    assert model == each and model.records[12].raw is not None
    model = fast(data)
    assert len({r.mapping._packed for r in model.records}) == 1
    assert covfun_json.json_ready(model) is not None
    assert_same_text(model)


@pytest.mark.parametrize("body, message", [
    (bytes([1, 0, 0, 1, 5 << 2 | 2, 1, 1, 0, 2]), "refers to expression 5"),
    (bytes([1, 0, 0, 1, 7 << 3, 1, 1, 0, 2]), "region kind 7"),
    (bytes([1, 0, 0, 1, 0x30, 1, 1, 0, 0, 0, 1, 1, 0, 2]), "MC/DC condition ids"),
    (bytes([1, 0, 0, 1, 0x28, 1, 0x80, 0x80, 0x02, 1, 1, 0, 2]), "MC/DC decision"),
    (bytes([1, 0, 0, 1, 12, 1, 1, 0, 2]), "expansion of file id 1"),
    (bytes([1, 0, 0, 2, 5, 1, 1, 0, 2]), "cannot fit"),
    (bytes([1, 0, 0, 1, 5, 1, 1, 0, 2, 0]), "bytes left after"),
    (bytes([1, 0, 0, 1, 5, 1, 1, 0]) + uleb_encode(1 << 40), "does not fit in 32 bits"),
    (bytes([1, 0, 0, 1, 5, 1, 1, 0, 0x80]), "truncated"),
    (bytes([1, 0, 0, 1, 5, 1, 1, 0]) + b"\x81" * 10 + b"\x01", "too long"),
])
def test_malformed_records_are_the_record_by_record_errors(body, message):
    data = _record(SIMPLE) + _record(body, 0x55) + _record(SIMPLE)
    with pytest.raises(DecodeError) as ei:
        cm.decode_covfun(data)
    assert message in str(ei.value) and "function record 1" in str(ei.value)
    with pytest.raises(DecodeError) as ej:
        cm.decode_records(data, "<", {}, {})
    assert (str(ei.value), ei.value.offset) == (str(ej.value), ej.value.offset)
    assert ei.value.partial == ej.value.partial and len(ei.value.partial.records) == 1


@pytest.mark.parametrize("seed", range(6))
def test_mutated_sections_decode_or_fail_as_record_by_record(seed):
    """Random byte changes in a generated section: decode_covfun gives the record-by-record result, model or
    error (message, offset, partial records)."""
    _, data = random_section(100 + seed, 6)
    rng = random.Random(seed)
    for _ in range(60):
        b = bytearray(data)
        for _ in range(rng.choice([1, 2, 5])):
            b[rng.randrange(len(b))] = rng.choice([0, 0x20, 0x28, 0x30, 0x7F, 0x80, 0xFF, rng.randrange(256)])
        if rng.random() < 0.2:
            b = b[:rng.randrange(len(b))]
        try:
            want = cm.decode_records(bytes(b), "<", {}, {})
        except DecodeError as exc:
            with pytest.raises(DecodeError) as ei:
                cm.decode_covfun(bytes(b))
            assert (str(ei.value), ei.value.offset, ei.value.partial) == (str(exc), exc.offset, exc.partial)
        else:
            assert cm.decode_covfun(bytes(b)) == want


def test_uleb_values_are_read_ulebs():
    rng = random.Random(3)
    vals = [rng.choice([0, 1, 0x7F, 0x80, 300, 1 << 31 | 5, 1 << 63, rng.getrandbits(40)]) for _ in range(3000)]
    blob = b"".join(map(uleb_encode, vals))
    assert covfun_fast.uleb_values(blob) == vals
    assert covfun_fast.uleb_values(bytes(range(0x80))) == list(range(0x80))
    pos, want = 0, []
    while pos < len(blob):
        v, pos, _ = read_uleb(blob, pos, len(blob))
        want.append(v)
    assert want == vals
    for bad in (b"\x05\x81\x00", b"\x80" * 10 + b"\x01", b"\x05\x81"):   # padded; eleven bytes (read_uleb's
        # limit: ten); truncated
        with pytest.raises(covfun_fast.Slow):
            covfun_fast.uleb_values(bad)
    assert covfun_fast.uleb_values(b"\x80" * 9 + b"\x01") == [1 << 63]


# -- the model API of a column-backed mapping ---------------------------------------------------------------------
def _fresh():
    obj, secs = covfun_sections("prog-clang22")
    return [cm.decode_covfun(s.data(), obj.endian, obj) for s in secs][0], obj


def test_regions_are_made_when_read_and_behave_as_a_list():
    m, obj = _fresh()
    rec = m.records[0]
    assert rec.mapping._regions is None                 # not made yet
    regs = rec.mapping.regions
    assert regs and all(type(r) is cm.Region for r in regs) and rec.mapping.regions is regs
    assert rec.mapping == cm.Mapping(list(rec.mapping.file_ids), list(rec.mapping.expressions), list(regs))
    assert "Mapping(file_ids=" in repr(rec.mapping) and "Region(" in repr(rec.mapping)
    assert cm.Mapping() == cm.Mapping([], [], []) and cm.Mapping().regions == []
    with pytest.raises(TypeError):
        hash(rec.mapping)


def test_edits_of_a_decoded_model_show_in_encode_to_dict_and_json():
    m, obj = _fresh()
    before = compact(m)
    m.records[1].mapping.regions[0].line_end += 7        # made, then edited
    assert CODEC.to_json(m) is None                      # the column writer does not describe it any more
    d = CODEC.to_dict(m)
    assert d["functions"][1]["regions"][0]["line_end"] == json.loads(before)["functions"][1]["regions"][0][
        "line_end"] + 7
    again = cm.decode_covfun(cm.encode_covfun(m), obj.endian, obj)
    assert again.records[1].mapping.regions[0].line_end == m.records[1].mapping.regions[0].line_end
    m2, _ = _fresh()
    m2.records[2].mapping.regions = []                   # replaced
    assert CODEC.to_json(m2) is None and CODEC.to_dict(m2)["functions"][2]["regions"] == []


@pytest.mark.parametrize("edit", [
    lambda m: m.records.pop(1),
    lambda m: m.records.reverse(),
    lambda m: setattr(m.records[0], "offset", True),
    lambda m: setattr(m.records[0], "name_hash", -1),
    lambda m: setattr(m.records[0], "padding", "00"),
    lambda m: m.records[0].mapping.expressions.append((1.0, 5)),
    lambda m: m.records[0].mapping.expressions.append([1, 5]),
    lambda m: m.records[0].mapping.file_ids.append(False),
    lambda m: setattr(m.records[0], "files", ("x.c",)),
])
def test_json_of_an_edited_model_is_to_dicts_or_left_to_it(edit):
    m, _ = _fresh()
    edit(m)
    stream = CODEC.to_json(m)
    if stream is not None:
        assert b"".join(stream.chunks(None)).decode() == compact(m)
    else:                                                 # to_dict (the dump then writes it as json does)
        try:
            compact(m)
        except (TypeError, AttributeError):
            pass


def test_fields_edited_in_kind_are_written():
    m, _ = _fresh()
    r = m.records[0]
    r.name, r.offset, r.raw, r.files = 'a "new" näme', 12345, b"\x01\x02", None
    r.mapping.file_ids[0] = 9
    r.mapping.expressions[:] = []
    assert CODEC.to_json(m) is not None
    assert_same_text(m)


@pytest.mark.parametrize("where", ["below the bound", "between the bound and the size", "above the size",
                                   "one byte below the size", "the size", "one byte above the size"])
def test_indented_or_compact_as_with_to_dict(monkeypatch, where):
    """render_json indents a document up to render.BIG_JSON bytes: the column writer gives the size that
    decides it (a bound when the text is certainly longer, else the exact length), so the document is
    indented, or not, as the to_dict one."""
    import objllvm.render as render
    items = api.dump(str(D / "prog-clang22"), ["coverage"])
    plain = io.StringIO()
    render_json(api.dump_to_dict(items), plain, indent=False)
    size = len(plain.getvalue())
    fresh = api.dump(str(D / "prog-clang22"), ["coverage"])
    model = [d.model for d in fresh[0].sections if isinstance(d.model, cm.CoverageFunctions)][0]
    bound = covfun_json.json_size_at_least(model)
    assert 0 < bound < size - 3000
    exact = size - 1                    # (the document's length: render_json ends it with a newline)
    limit = {"below the bound": bound // 2, "between the bound and the size": (bound + size - 2000) // 2,
             "above the size": size + 1000, "one byte below the size": exact - 1, "the size": exact,
             "one byte above the size": exact + 1}[where]
    monkeypatch.setattr(render, "BIG_JSON", limit)
    a, b = io.StringIO(), io.StringIO()
    render_json(api.dump_to_json_doc(fresh), a, indent=True, raw=True)
    render_json(api.dump_to_dict(items), b, indent=True)
    assert a.getvalue() == b.getvalue()
    assert ("\n  " in a.getvalue()) == (limit >= exact)


def test_object_cache_forgets_an_object_when_it_goes():
    """The per-object caches (names by hash, file lists) hold their objects weakly, as a WeakKeyDictionary."""
    import gc
    from objllvm.sections.support.instrprof import ObjectCache

    class Obj:
        pass
    cache, a, b = ObjectCache(), Obj(), Obj()
    cache[a] = {"x": 1}
    assert cache.get(a) == {"x": 1} and a in cache and cache[a] == {"x": 1} and b not in cache
    assert cache.get(b) is None and cache.get(b, 5) == 5
    with pytest.raises(KeyError):
        cache[b]
    cache[b] = {}
    del a
    gc.collect()
    assert len(cache) == 1 and cache[b] == {}
    with pytest.raises(TypeError):          # (cached_per_object then builds the table each time)
        cache[1] = {}
    gc.collect()
    obj = open_object(str(D / "prog-clang22"))
    assert cm._files_by_hash(obj) is cm._files_by_hash(obj)
    n = len(cm._FILES_CACHE)
    del obj
    gc.collect()
    assert len(cm._FILES_CACHE) == n - 1


@pytest.mark.parametrize("nrec", [0, 1, 3])
def test_sections_without_any_region(nrec):
    recs = [cm.FunctionRecord(0, k, 7, 8, cm.Mapping([0], [(5, 1)] * k, []), None, b"", None) for k in range(nrec)]
    for r in recs:
        r.padding = bytes(-(28 + len(cm.encode_mapping(r.mapping))) % 8)
    data = cm.encode_covfun(cm.CoverageFunctions(recs))
    model = cm.decode_covfun(data)
    assert [r.mapping._counts for r in model.records] == [[0]] * nrec
    assert_same_text(model)


# -- the benchmark programs ------------------------------------------------------------------------------------------
def _bench_programs():
    import os
    from pathlib import Path
    cache = Path(os.environ.get("OBJLLVM_BENCH_CACHE", os.path.expanduser("~/.cache/objllvm-bench"))) / "bin"
    return sorted(p for p in cache.glob("*-cov") if p.is_file()) if cache.is_dir() else []


@pytest.mark.skipif(not _bench_programs(), reason="the instrumented benchmark programs are not built "
                    "(scripts/bench-coverage builds them into $OBJLLVM_BENCH_CACHE)")
@pytest.mark.parametrize("path", _bench_programs(), ids=lambda p: p.name)
def test_benchmark_programs_decode_the_same_fast_and_plain(path):
    """lua, zstd, jsonnet and the regex crate as scripts/bench-coverage builds them: the fast decoder gives the
    plain decoder's records and takes every record itself."""
    obj = open_object(str(path))
    secs = [s for s in obj.sections if section_role(s, obj) == "covfun"]
    assert secs
    for s in secs:
        packed, each = both(s.data(), obj.endian)
        assert packed == each and packed.records
        assert not fell_back(s.data(), obj.endian)
