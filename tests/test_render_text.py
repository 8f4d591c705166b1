"""The exact text form of tables, and the streamed JSON.

The text view lays tables given by columns out itself (render._TextWriter: one %-template per row) in
tabulate's "simple" format.  Pinned here: (1) on every corpus file and on the benchmark programs, the column
layout gives the same text as tabulate laying out the same rows (render_text(engine="tabulate")); (2) golden outputs written by scripts/make-golden-text (with tabulate); (3) tables
built to hit the corners (empty last cells, negative numbers, None, wide IDs, '%' in text, non-ASCII
titles); (4) the streamed bb-addr-map JSON, compact and indented, is json.dumps of to_dict.
"""
from __future__ import annotations

import io
import json
import random
import subprocess
import sys

import pytest

from conftest import ROOT, TESTDATA, corpus_files
from objllvm import api, render
from objllvm.formats import open_object
from objllvm.sections import bb_addr_map as M
from objllvm.sections import registry
from objllvm.sections.support import bb_views

GOLDEN = TESTDATA / "golden"


def _render(items, **kw) -> str:
    out = io.StringIO()
    render.render_text(items, out, **kw)
    return out.getvalue()


def _corpus_views():
    for p in corpus_files():
        items = api.dump(str(p), None, {})
        for pretty in (False, True):
            yield p, pretty, api.dump_to_text(items, {"pretty_pgo": pretty})


def test_fast_layout_is_tabulate_on_the_corpus(monkeypatch):
    """Every corpus file's text view, laid out from columns, is what tabulate lays out from the same rows."""
    fell_back = []
    real = render._TextWriter.tabulate

    def spy(self, title, headers, rows):
        fell_back.append(title)
        return real(self, title, headers, rows)
    n = 0
    for p, pretty, items in _corpus_views():
        monkeypatch.setattr(render._TextWriter, "tabulate", spy)
        fast = _render(items)
        monkeypatch.setattr(render._TextWriter, "tabulate", real)
        assert fast == _render(items, engine="tabulate"), (p, pretty)
        n += fast.count("\n")
    assert n > 2000
    # only tables with cells the layout leaves to tabulate (an empty last cell after a text one;
    # multi-line values) went to tabulate
    assert len(fell_back) < 10, fell_back


def test_bb_tables_come_by_columns_on_the_corpus():
    """bb-addr-map functions of one range come as ColumnTables (the layout tested above), PGO ones included."""
    kinds = set()
    for p, pretty, items in _corpus_views():
        kinds |= {(type(it).__name__, "frequency" in it.headers) for it in items
                  if type(it) is render.ColumnTable and "flags" in it.headers}
    assert kinds == {("ColumnTable", False), ("ColumnTable", True)}


def _bench_programs():
    import os
    from pathlib import Path
    cache = Path(os.environ.get("OBJLLVM_BENCH_CACHE", os.path.expanduser("~/.cache/objllvm-bench"))) / "bin"
    exes = sorted(p for p in cache.glob("*-bb*") if p.is_file() and "-x" not in p.name) if cache.is_dir() else []
    if not exes:
        pytest.skip(f"no benchmark program built in {cache} (scripts/bench-bb-addr-map builds them)")
    return exes


def test_bb_views_of_the_benchmark_programs():
    """On the real programs scripts/bench-bb-addr-map builds: the column layout of the text view is tabulate's
    (lua's, the smallest: tabulate takes seconds on the others), the JSON text written from columns is json.dumps
    of to_dict (every program)."""
    codec = registry.get("bb-addr-map")
    for exe in _bench_programs():
        items = api.dump(str(exe), ["bb-addr-map"], {})
        if exe.name.startswith("lua"):
            text = api.dump_to_text(items, {})
            assert _render(text) == _render(text, engine="tabulate"), exe
        for d in items[0].sections:
            stream = codec.to_json(d.model)
            assert b"".join(stream.chunks(None)).decode() == json.dumps(codec.to_dict(d.model),
                                                                          separators=(",", ":")), exe


@pytest.mark.parametrize("case", sorted(p.name for p in GOLDEN.glob("*.txt")))
def test_golden_text(case):
    """The text view of a few corpus files is the committed golden text (scripts/make-golden-text)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("make_golden_text", str(ROOT / "scripts" / "make-golden-text"))
    spec = importlib.util.spec_from_loader("make_golden_text", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    cases = {mod.golden_name(p, o): (p, o) for p, o in mod.CASES}
    assert case in cases, f"{case}: not made by scripts/make-golden-text"
    path, opts = cases[case]
    options = {"pretty_pgo": "--pretty-pgo" in opts}
    items = api.dump_to_text(api.dump(str(TESTDATA / path), None, options), options)
    want = (GOLDEN / case).read_text()
    assert _render(items).replace(str(ROOT) + "/", "") == want
    assert "----" in want


def test_golden_text_cli():
    """The command prints the golden text too (stdout as bytes: the buffer path)."""
    want = (GOLDEN / "bb-addr-map__clang19-labels.exe.txt").read_text()
    p = subprocess.run([sys.executable, "-m", "objllvm", "dump", "testdata/bb-addr-map/clang19-labels.exe"],
                       capture_output=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert p.returncode == 0 and p.stdout.decode() == want


def _random_table(rng, n_rows):
    kinds = rng.choice(["int", "neg", "str", "mixed", "hexstr", "emptyable"])
    ncol = rng.randint(1, 5)
    headers = [rng.choice(["id", "address", "a", "name of it", "x%y"]) for _ in range(ncol)]
    rows = []
    for _ in range(n_rows):
        row = []
        for c in range(ncol):
            k = kinds if c == ncol - 1 else rng.choice(["int", "str", "hexstr"])
            if k == "int":
                row.append(rng.randrange(0, 10 ** rng.randint(1, 12)))
            elif k == "neg":
                row.append(rng.randrange(-5000, 5000))
            elif k == "str":
                row.append(rng.choice(["ret", "ft", "a%sb", "x y", "%d", "z", " lead", "tail\t", "\x1b[2J",
                                       "a\nb", "\x00\x00", "\udcff", "\u202e", " \x7f ", "caf\u00e9"]))
            elif k == "hexstr":
                row.append(f"{rng.randrange(0, 1 << 40):#x}")
            elif k == "mixed":
                row.append(rng.choice([None, 5, "", "q"]))
            else:
                row.append(rng.choice(["", "", "ret,ft"]))
        rows.append(row)
    return render.Table(headers, rows, title=rng.choice([None, "t", "caf\u00e9 %s", "100%"]))


def test_fast_layout_is_tabulate_on_built_tables():
    rng = random.Random(1)
    items = []
    for k in range(300):
        items.append(_random_table(rng, rng.choice([0, 1, 2, 7, 40])))
        if k % 7 == 0:
            items.append(render.Heading("h %d%%" % k, 1 + k % 2))
            items.append(render.Text("text with % and caf\u00e9"))
    assert _render(items) == _render(items, engine="tabulate")


def _synthetic_map(nfn, seed):
    """A map of common entries (IDs over 0x7f in some, so IDs are lists there; every flag value)."""
    rng = random.Random(seed)
    fns = []
    addr = 0x401000
    for k in range(nfn):
        nb = rng.randint(1, 40)
        ids = list(range(nb))
        if k % 5 == 0:
            ids = [i + 120 for i in ids]
        sizes = [rng.randint(1, 5000 if k % 11 == 0 else 60) for _ in range(nb)]
        offs, o = [], 0
        for s in sizes:
            offs.append(o)
            o += s
        mds = [rng.randrange(32) if k % 3 else 0 for _ in range(nb)]
        r = M.BBRange(addr, None, None, None, (ids if k % 5 == 0 else bytes(ids), offs, sizes, bytes(mds)))
        fns.append(M.FunctionMap(f"fn{k}" if k % 13 else "", 2 if k % 17 else None, 0, [r]))
        addr += o + rng.choice([0, 16, 1 << 20])
    return M.BBAddrMap(fns)


def test_synthetic_map_layout_is_tabulate(monkeypatch):
    """Functions of every flag value, IDs past 0x7f, wide sizes, no names: the column layout is tabulate's,
    in batches cut mid-table too."""
    model = _synthetic_map(700, 1)
    tables = registry.get("bb-addr-map").tables(model, {})
    monkeypatch.setattr(render, "_BATCH_ROWS", 7)
    assert _render(tables) == _render(tables, engine="tabulate")


# -- streamed JSON ----------------------------------------------------------------------------------
def _bb_models():
    for p in corpus_files():
        try:
            obj = open_object(str(p))
        except Exception:
            continue
        if obj.format != "elf":
            continue
        for s in obj.sections:
            if s.type in M.TYPE_NAMES:
                d = registry.decode_section(obj, s, {})
                if d.model is not None:
                    yield p, d.model
    yield "synthetic", _synthetic_map(300, 3)


@pytest.mark.parametrize("indent", [True, False])
def test_streamed_bb_json_is_json_dumps(monkeypatch, indent):
    """The bb-addr-map JSON streamed in pieces (compact or indented, at any depth) is json.dumps of to_dict."""
    codec = registry.get("bb-addr-map")
    monkeypatch.setattr(bb_views, "_JSON_FUNCTIONS", 7)
    n = 0
    for p, model in _bb_models():
        text = codec.to_json(model)
        if text is None:
            continue
        n += 1
        plain = codec.to_dict(model)
        for doc, ref in (({"content": render.RawJSON(text, lambda: plain)}, {"content": plain}),
                         ({"a": [{"b": 1, "c": render.RawJSON(text, lambda: plain)}], "z": None},
                          {"a": [{"b": 1, "c": plain}], "z": None})):
            out = io.StringIO()
            render.render_json(doc, out, indent=indent, raw=True)
            want = json.dumps(ref, separators=(",", ":"))
            if indent and len(want) <= render.BIG_JSON:
                want = json.dumps(ref, indent=2)
            assert out.getvalue() == want + "\n", p
    assert n >= 4


def test_streamed_json_goes_compact_past_big_json(monkeypatch):
    codec = registry.get("bb-addr-map")
    model = _synthetic_map(50, 4)
    plain = {"x": codec.to_dict(model)}
    monkeypatch.setattr(render, "BIG_JSON", 100)
    out = io.StringIO()
    render.render_json({"x": render.RawJSON(codec.to_json(model), lambda: plain["x"])}, out, raw=True)
    assert out.getvalue() == json.dumps(plain, separators=(",", ":")) + "\n"


# -- dumps_plain: json's text without json --------------------------------------------------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as hst  # noqa: E402

_plain_values = hst.recursive(
    hst.none() | hst.booleans() | hst.integers(-(1 << 70), 1 << 70) | hst.floats() | hst.text(max_size=8),
    lambda inner: hst.lists(inner, max_size=4) | hst.tuples(inner, inner)
    | hst.dictionaries(hst.text(max_size=6) | hst.integers(-9, 9) | hst.floats() | hst.booleans() | hst.none(),
                       inner, max_size=4), max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(_plain_values)
def test_dumps_plain_is_json_dumps(value):
    assert render.dumps_plain(value) == json.dumps(value, separators=(",", ":"))
    assert render.dumps_plain(value, 2) == json.dumps(value, indent=2)


_names = hst.text(alphabet=hst.sampled_from('ab _.$"\\\x00\x01\x1f\x7f\u00e9\u20ac\U0001f600'), max_size=6)


@settings(max_examples=300, deadline=None)
@given(hst.lists(hst.none() | _names | hst.text(max_size=5), max_size=6))
def test_json_texts_are_json_dumps(strings):
    """Plain names quoted by objllvm, the others by json's function: json.dumps's text either way."""
    want = [json.dumps(s).encode("ascii") for s in strings]
    assert render.json_texts(strings) == want
    assert [render.json_text(s).encode("ascii") for s in strings if s is not None] == \
        [w for w, s in zip(want, strings) if s is not None]


_json_values = hst.recursive(
    hst.none() | hst.booleans() | hst.integers(-(1 << 70), 1 << 70) | hst.floats(allow_nan=False)
    | hst.text(max_size=8),
    lambda inner: hst.lists(inner, max_size=4) | hst.dictionaries(hst.text(max_size=6), inner, max_size=4),
    max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(_json_values, hst.sampled_from([None, 2]), hst.sampled_from(["", " ", "\n", " \t\r\n"]))
def test_loads_plain_is_json_loads(value, indent, space):
    text = space + json.dumps(value, indent=indent, ensure_ascii=indent is None) + space
    assert render.loads_plain(text) == json.loads(text)


@settings(max_examples=300, deadline=None)
@given(hst.text(alphabet='{}[]",:0123456789.eE+-tfnrulaNIy \\\x01\n', max_size=12))
def test_loads_plain_fails_as_json_loads_does(text):
    """Any text: the same value as json.loads, or a ValueError with json's message."""
    try:
        want = json.loads(text)
    except ValueError as exc:
        with pytest.raises(ValueError) as got:
            render.loads_plain(text)
        assert str(got.value) == str(exc)
    else:
        got = render.loads_plain(text)
        assert got == want or (got != got and want != want)      # (NaN)


def test_json_text_plain_names_load_no_json_module():
    code = ("import sys; sys.path.insert(0, %r); from objllvm import render; "
            "t = render.json_texts(['main', 'f 1', '_Z3foov.cold']) + [render.json_text('x$y').encode()]; "
            "print(t, 'json' in sys.modules)" % str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == """[b'"main"', b'"f 1"', b'"_Z3foov.cold"', b'"x$y"'] False"""


@pytest.mark.parametrize("bad", ["{x", "[1,", '{"a" 1}', "nul", "[1] 2", "", '"\\x"'])
def test_loads_plain_bad_text_before_json_is_loaded(bad):
    """Bad text in a process that has not loaded json (a small command's): json's ValueError and message."""
    code = ("import sys; sys.path.insert(0, %r); from objllvm import render\n"
            "try:\n    render.loads_plain(%r)\nexcept ValueError as e:\n    print('ValueError', e)" % (str(ROOT), bad))
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True).stdout.strip()
    try:
        json.loads(bad)
    except ValueError as exc:
        want = f"ValueError {exc}"
    assert out == want


def test_dumps_plain_default_and_the_small_json_path_imports_no_json():
    doc = {"a": b"\x01\xff", "b": [1, {"c": (True, None)}], "d": {}}
    assert render.dumps_plain(doc, 2, render._default) == json.dumps(doc, indent=2, default=render._default)
    with pytest.raises(TypeError):
        render.dumps_plain({"x": object()})
    code = ("import sys, io; sys.path.insert(0, %r); from objllvm import render; o = io.StringIO(); "
            "render.render_json({'a': [1, 'x', None, {'b': True}]}, o); print(o.getvalue().strip()[:1]); "
            "print('json' in sys.modules, 're' in sys.modules)" % str(ROOT))
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True,
                         cwd=str(ROOT)).stdout.split()
    assert out == ["{", "False", "False"]


@pytest.mark.parametrize("seed", range(40))
def test_batches_partition_the_items(seed):
    """render.batches: consecutive (i, j) covering every item once; a batch of more than one item stays
    within its size; the sizes start at ``first`` and double up to ``cap`` (or a part of all rows);
    each batch is as long as its size allows (what bisect_right on the running row counts gives)."""
    from bisect import bisect_right
    from itertools import accumulate
    rnd = random.Random(seed)
    counts = [rnd.choice((0, 1, 1, 2, 3, 7, 40, 300)) for _ in range(rnd.randrange(0, 400))]
    ends = list(accumulate(counts))
    cap, first = rnd.choice((1, 2, 16, 64, 1000)), rnd.choice((1, 3, 8, 2000))
    got = list(render.batches(ends, cap, first))
    i, size = 0, min(first, cap)
    if ends:      # at most the BATCHES_AT_LEAST'th part of all rows (but never below the first batch)
        cap = min(cap, max(size, ends[-1] // render.BATCHES_AT_LEAST))
    for a, b in got:
        assert a == i and b > a
        start = ends[a - 1] if a else 0
        assert b == max(a + 1, bisect_right(ends, start + size, a))
        i, size = b, min(2 * size, cap)
    assert i == len(ends)
