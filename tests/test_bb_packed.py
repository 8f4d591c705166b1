"""The packed bb-addr-map: a map of the common kind (every entry version 2-5 without features, one range
of 1-127 blocks, one-byte ULEB128s, known metadata bits, in a linked file) is decoded into columns over
the whole section (``bb_addr_map._Packed``) and shown from them (JSON pieces; the text through
``render.FlatTableGroup``), with the FunctionMap objects made only when ``functions`` is read.

Pinned here: the views of a packed map are byte for byte the views of the same map once its objects
are made (and the text is what tabulate lays out from the same rows), through every path (numpy or
not, batches cut anywhere, widths the same for a batch or table by table, both byte orders and word
sizes); anything not of the common kind is decoded by the general decoder; encoding gives the
section's bytes back, and an edit made through ``functions`` is what gets encoded.
"""
from __future__ import annotations

import io
import json
import random
import sys

import pytest

from conftest import corpus_files
from objllvm import render
from objllvm.formats import open_object
from objllvm.sections import bb_addr_map as M
from objllvm.sections import registry
from objllvm.sections.registry import SectionContext

CODEC = registry.get("bb-addr-map")


class _Sec:
    link = 0
    type = M.SHT_LLVM_BB_ADDR_MAP


def _ctx(endian="<", asz=8):
    return SectionContext(endian=endian, addr_size=asz, is_relocatable=False, file_type="ET_EXEC",
                          section=_Sec())


def _entry(rng, version, base, endian, asz, nblocks=None, long_labels=False, maxsize=128):
    n = nblocks or rng.randint(1, 127)
    out = bytearray([version]) + bytes(2 if version == 5 else 1)
    out += base.to_bytes(asz, "little" if endian == "<" else "big") + bytes([n])
    mds = [0, 1, 2, 8, 8, 8, 16] + ([3, 7, 15, 31] if long_labels else [])
    for _ in range(n):
        out += bytes([rng.randrange(128), rng.choice([0, 0, 0, rng.randrange(maxsize)]), rng.randrange(maxsize),
                      rng.choice(mds)])
    return bytes(out), n


def _common_map(seed, nfn=300, endian="<", asz=8, version=2, cross=False):
    """A section of the common kind: bases that (with ``cross``) cross hex and decimal lengths inside
    functions and between them, every kind of label."""
    rng = random.Random(seed)
    parts = []
    base = 0xFFC0 if cross else 0x201000
    for k in range(nfn):
        v = version if version == 5 else rng.choice([2, 3, 4])
        data, n = _entry(rng, v, base, endian, asz, long_labels=bool(k % 3))
        parts.append(data)
        base += rng.choice([0, 16, 300, 127 * 254]) + (0xFFFF00 if cross and k == nfn // 2 else 0)
    return b"".join(parts)


def _text(items, **kw) -> str:
    out = io.StringIO()
    render.render_text(items, out, **kw)
    return out.getvalue()


def _json(model, indent):
    stream = CODEC.to_json(model)
    return None if stream is None else b"".join(stream.chunks(indent))


def _views(model):
    tables = CODEC.tables(model, {})
    return _text(tables), _json(model, None), _json(model, 4)


def _check_packed_equals_objects(raw, ctx, tabulate=False):
    packed = M.decode_map(raw, ctx)
    assert packed._functions is None, "not decoded packed"
    objects = M.decode_map(raw, ctx)
    objects.functions            # the objects are made: the views come from them
    assert objects._packed is None
    got, want = _views(packed), _views(objects)
    assert got == want
    if tabulate:
        assert got[0] == _text(CODEC.tables(objects, {}), engine="tabulate")
    plain = CODEC.to_dict(objects)
    if got[1] is not None:       # (None: addresses past 64 bits, where the document goes through to_dict)
        assert json.loads(got[1]) == json.loads(json.dumps(plain))
        assert got[2].decode() == json.dumps(plain, indent=2).replace("\n", "\n    ")
    assert packed._functions is None, "a view made the objects"
    assert M.encode_map(packed) == raw
    return got


@pytest.mark.parametrize("endian,asz,version,cross", [("<", 8, 2, False), ("<", 8, 5, True), (">", 8, 3, True),
                                                      ("<", 4, 4, False), (">", 4, 5, False)])
def test_packed_views_are_the_objects_views(monkeypatch, endian, asz, version, cross):
    raw = _common_map(len(endian) * asz + version, 120, endian, asz, version, cross)
    if asz == 4 and cross:
        pytest.skip("covered by 8-byte words")
    ctx = _ctx(endian, asz)
    first = _check_packed_equals_objects(raw, ctx, tabulate=True)
    # batches cut anywhere, the widths of a batch the same or not, numpy or not: the same text
    monkeypatch.setattr(M, "_JSON_BATCH", 37)
    monkeypatch.setattr(render, "_BATCH_ROWS", 53)
    assert _check_packed_equals_objects(raw, ctx) == first
    monkeypatch.setattr(render, "FIRST_BATCH", 5)          # growing batches: 5, 10, 20, 37 or 40, 53
    assert _check_packed_equals_objects(raw, ctx) == first
    monkeypatch.setattr(M, "NUMPY_BLOCKS", 0)
    monkeypatch.setattr(M, "_NP", [])
    try:
        import numpy  # noqa: F401
    except ImportError:
        numpy = None
    assert _check_packed_equals_objects(raw, ctx) == first
    if numpy is not None:
        assert M._NP[0] is numpy, "the numpy path was not taken"
        monkeypatch.setitem(sys.modules, "numpy", None)     # not installed: the pure-Python path
        monkeypatch.setattr(M, "_NP", [])
        assert _check_packed_equals_objects(raw, ctx) == first
        assert M._NP == [None]


@pytest.mark.parametrize("through", ["python", "numpy"])
def test_addresses_past_64_bits(monkeypatch, through):
    """A function near the top of the address space: its blocks' addresses past 2**64, as the objects have them."""
    if through == "numpy":
        pytest.importorskip("numpy", reason="numpy is not installed (the pure-Python path is tested too)")
        monkeypatch.setattr(M, "NUMPY_BLOCKS", 0)
        monkeypatch.setattr(M, "_NP", [])
    rng = random.Random(5)
    raw = b"".join(_entry(rng, 2, base, "<", 8, 30)[0] for base in (0x401000, (1 << 64) - 100))
    text = _check_packed_equals_objects(raw, _ctx(), tabulate=True)[0]
    assert "0x10000000000000" in text         # an address past 2**64, written in full


def test_widths_table_by_table_and_batch_wide():
    """A batch where one table's addresses are wider than the header and its labels longer (widths
    table by table) and one where none is (one width for the whole batch): both as tabulate has them."""
    rng = random.Random(7)
    narrow, _ = _entry(rng, 2, 0x1000, "<", 8, 5)
    wide, _ = _entry(rng, 2, 0xFFFFFFF0, "<", 8, 40, long_labels=True)
    small = b"".join(_entry(rng, 2, 0x10000 + 64 * k, "<", 8, 3, maxsize=16)[0] for k in range(400))
    for raw in (narrow * 3, narrow + wide + narrow, wide * 2, small):      # (small: offsets as pieces)
        text = _check_packed_equals_objects(raw, _ctx(), tabulate=True)[0]
        assert text.count("function <?> at") == len(M.decode_map(raw, _ctx()).functions)


@pytest.mark.parametrize("through", ["python", "numpy"])
@pytest.mark.parametrize("bad", ["feature", "two-byte uleb", "no blocks", "version 1", "metadata", "cut",
                                 "128 blocks", "mixed layouts"])
def test_anything_else_goes_to_the_general_decoder(monkeypatch, bad, through):
    if through == "numpy":
        pytest.importorskip("numpy", reason="numpy is not installed (the pure-Python checks are tested too)")
        monkeypatch.setattr(M, "NUMPY_BLOCKS", 0)
        monkeypatch.setattr(M, "_NP", [])
    rng = random.Random(3)
    good, _ = _entry(rng, 2, 0x401000, "<", 8, 4)
    one, n = bytearray(good), 4
    if bad == "feature":
        one[1] = M.FUNC_ENTRY_COUNT
        one += b"\x05"
    elif bad == "two-byte uleb":
        one[11 + 2] = 0x85
        one[11 + 3:11 + 3] = b"\x00"
    elif bad == "no blocks":
        one = bytearray(one[:11])
        one[10] = 0
    elif bad == "version 1":          # no IDs: 3 bytes a block
        one = bytearray(one[:11]) + b"".join(one[11 + 4 * k + 1:11 + 4 * k + 4] for k in range(4))
        one[0] = 1
    elif bad == "metadata":
        one[11 + 3] = 0x20
    elif bad == "cut":
        one = one[:-1]
    elif bad == "128 blocks":         # a two-byte count
        e = _entry(rng, 2, 0x401000, "<", 8, 128)[0]
        one = bytearray(e[:10] + b"\x80\x01" + e[11:])
    elif bad == "mixed layouts":
        one = bytearray(_entry(rng, 5, 0x401000, "<", 8, 3)[0])
    raw = good + bytes(one) + good
    try:
        model = M.decode_map(raw, _ctx())
    except Exception as exc:          # the general decoder's located error, as before
        assert bad in ("metadata", "cut"), exc
        assert type(exc).__name__ == "DecodeError"
        return
    assert model._packed is None and model._functions is not None
    assert M.encode_map(model) == raw


def test_edits_through_functions_are_encoded():
    raw = _common_map(11, 20)
    model = M.decode_map(raw, _ctx())
    assert M.encode_map(model) == raw
    fn = model.functions[3]
    fn.ranges[0].blocks[0].size += 1
    edited = M.encode_map(model)
    assert edited != raw and len(edited) == len(raw)
    back = M.decode_map(edited, _ctx())
    assert back.functions[3].ranges[0].blocks[0].size == fn.ranges[0].blocks[0].size


def test_corpus_maps_of_the_common_kind_are_packed():
    """Real maps (clang, lld) of the common kind take the packed path; their views equal the objects'."""
    n = 0
    for p in corpus_files():
        try:
            obj = open_object(str(p))
        except Exception:
            continue
        for s in getattr(obj, "sections", ()):
            if s.type != M.SHT_LLVM_BB_ADDR_MAP or obj.format != "elf":
                continue
            ctx = SectionContext.for_section(obj, s)
            raw = bytes(s.data())
            model = M.decode_map(raw, ctx)
            if model._functions is None:
                n += 1
                objects = M.decode_map(raw, ctx)
                objects.functions
                assert _views(model) == _views(objects), p
                assert [f.name for f in objects.functions] == model._packed.names
    assert n >= 2


def test_function_names_that_start_inside_another_string(tmp_path):
    """A name offset into the middle of a string (a linker may share tails) names the tail, as read_symbols has it."""
    from conftest import TESTDATA
    p = TESTDATA / "bb-addr-map" / "clang19-labels.exe"
    obj = open_object(str(p))
    symtab = next(s for s in obj.sections if s.type == 2)
    k = next(s.index for s in obj.symbols if s.type == 2 and len(s.name) > 3)
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
