"""A section kind that rewrite handles, added by a codec alone: the codec below is defined and registered by this
test (objllvm does not know the kind), and ``objllvm.rewrite`` removes its sections with their relocations, and
edits them with the relocations following, through the codec's rewrite hooks (``Codec.relocations_after_edit``,
``Codec.removed_after_edit``) -- no line of objllvm/rewrite/ or objllvm/formats/ names it.

The input, testdata/rewrite/kind-pairs.o, is built by llvm-mc-22 from testdata/src/rewrite/kind-pairs.s
(scripts/testdata.d/70-rewrite.sh): an ``.objllvm_pairs`` section of records {u8 length, label, 8-byte address},
each address given by an R_X86_64_64 relocation.  The relocations of the input and of every output are read by
llvm-readobj-22."""
import json
import re
import subprocess

import pytest

from conftest import TESTDATA, need_tool
from objllvm import rewrite as rw
from objllvm._model import dataclass, field
from objllvm.binary import Reader
from objllvm.errors import DecodeError, ObjllvmError
from objllvm.formats.elf import ElfFile
from objllvm.sections import registry
from objllvm.sections.registry import Codec, Table

PAIRS = TESTDATA / "rewrite" / "kind-pairs.o"


@dataclass
class Pair:
    label: str
    symbol: str | None            # the relocation's symbol (a section symbol reads as its section's name)
    addend: int | None
    stored: int = 0               # the address word as stored
    at: int | None = None         # where the word is in the section (decoded ones)


@dataclass
class Pairs:
    pairs: list = field(default_factory=list)


class PairsCodec(Codec):
    """The whole codec of the kind: recognition, decode, encode, JSON, and what an edit means to its relocations."""
    kind = "test-pairs"
    description = "labels and the addresses they name (a kind defined by tests/test_codec_hooks.py)"
    names = (".objllvm_pairs",)

    def decode(self, data, ctx):
        r = Reader(data, ctx.endian)
        by_offset = {x.offset: x for x in ctx.relocations}
        out = []
        while not r.at_end():
            n = r.u8("label length")
            label = r.bytes(n, "label").decode()
            at = r.pos
            stored = r.uint(8, "address")
            x = by_offset.get(at)
            if x is None and ctx.is_relocatable:
                raise DecodeError(f"no relocation for the address of {label!r}", offset=at)
            out.append(Pair(label, x.symbol.name if x and x.symbol else None, x.addend if x else None, stored, at))
        return Pairs(out)

    def encode(self, model, ctx):
        return b"".join(bytes((len(p.label),)) + p.label.encode() + p.stored.to_bytes(8, "little")
                        for p in model.pairs)

    def to_dict(self, model):
        return {"pairs": [{"label": p.label, "symbol": p.symbol, "addend": p.addend} for p in model.pairs]}

    def from_dict(self, d, ctx):
        return Pairs([Pair(x["label"], x.get("symbol"), x.get("addend")) for x in d["pairs"]])

    def tables(self, model, options):
        return [Table(["label", "symbol", "addend"], [[p.label, p.symbol, p.addend] for p in model.pairs])]

    # -- what rewrite asks ------------------------------------------------------------------------------------
    def relocations_after_edit(self, edit, relocations):
        """Each kept record's relocation moves with its address word (records are known by their label)."""
        old_word = {p.label: p.at for p in edit.old_model().pairs}
        by_offset = {r.offset: i for i, r in enumerate(relocations)}
        out, pos = [], 0
        for p in edit.model.pairs:
            word = pos + 1 + len(p.label)
            i = by_offset.get(old_word.get(p.label))
            if i is None:
                raise ObjllvmError(f"record {p.label!r} has no relocation in the input to move")
            out.append((i, word))
            pos = word + 8
        return out

    def removed_after_edit(self, model, relocated):
        return not model.pairs


class PairsWithoutHooks(PairsCodec):
    """The same kind, saying nothing about its relocations (the base class's answer)."""
    relocations_after_edit = Codec.relocations_after_edit
    removed_after_edit = Codec.removed_after_edit


def _register(monkeypatch, cls):
    """``cls`` registered for this test only: the registry's tables are copies that the test's end puts back."""
    monkeypatch.setattr(registry, "_CODECS", dict(registry._CODECS))
    monkeypatch.setattr(registry, "_BY_TYPE", dict(registry._BY_TYPE))
    monkeypatch.setattr(registry, "_ordered", None)
    registry.register(cls)


@pytest.fixture
def pairs_kind(monkeypatch):
    registry.codecs()                        # (every codec of the package loaded first: none claims the name)
    _register(monkeypatch, PairsCodec)
    return registry.get("test-pairs")


def _readobj_relocations(tmp_path, data) -> list:
    """(offset, symbol, addend) of each relocation of .objllvm_pairs, as llvm-readobj-22 -r prints them."""
    path = tmp_path / "o.o"
    path.write_bytes(data)
    p = subprocess.run([need_tool("llvm-readobj-22"), "-r", str(path)], capture_output=True, text=True)
    assert p.returncode == 0 and not p.stderr, p.stderr
    body = p.stdout.partition(".rela.objllvm_pairs {")[2].partition("}")[0]
    return [(int(o, 16), s, int(a, 16)) for o, s, a in re.findall(r"(0x[0-9A-F]+) R_X86_64_64 (\S+) (0x[0-9A-F]+)",
                                                                     body, re.I)]


def _decoded(data) -> list:
    elf = ElfFile(data, "o.o")
    sec = next(s for s in elf.sections if s.name == ".objllvm_pairs")
    d = registry.decode_section(elf, sec)
    assert d.status == "decoded" and d.codec.kind == "test-pairs", d.error
    return [(p.label, p.symbol, p.addend, p.at) for p in d.model.pairs]


def _set(tmp_path, data, pairs) -> tuple:
    doc = tmp_path / "pairs.json"
    doc.write_text(json.dumps({"pairs": pairs}))
    return rw.rewrite_bytes(data, [rw.SetSection(f"test-pairs={doc}")], "kind-pairs.o")


def test_the_kind_decodes_as_llvm_readobj_reads_its_relocations(tmp_path, pairs_kind):
    data = PAIRS.read_bytes()
    want = _readobj_relocations(tmp_path, data)
    assert want == [(6, "alpha", 0), (0x15, "beta", 0), (0x23, ".text", 3)]
    assert [(at, sym, addend) for _label, sym, addend, at in _decoded(data)] == want
    assert [x[0] for x in _decoded(data)] == ["first", "second", "third"]


def test_an_edit_moves_the_relocations_as_the_codec_says(tmp_path, pairs_kind):
    """Dropping the middle record moves the third record's address word from 0x23 to 0x14: its relocation goes
    with it (same symbol and addend, as llvm-readobj-22 reads the output), the second's goes away."""
    data = PAIRS.read_bytes()
    out, changes = _set(tmp_path, data, [{"label": "first"}, {"label": "third"}])
    assert (".objllvm_pairs", "resized", "test-pairs") in {(c.name, c.action, c.kind) for c in changes}
    assert (".rela.objllvm_pairs", "resized", None) in {(c.name, c.action, c.kind) for c in changes}
    assert _readobj_relocations(tmp_path, out) == [(6, "alpha", 0), (0x14, ".text", 3)]
    assert _decoded(out) == [("first", "alpha", 0, 6), ("third", ".text", 3, 0x14)]
    # reordered: each relocation follows its record
    out, _ = _set(tmp_path, data, [{"label": "third"}, {"label": "second"}, {"label": "first"}])
    assert _readobj_relocations(tmp_path, out) == [(6, ".text", 3), (14 + 7, "beta", 0), (14 + 15 + 6, "alpha", 0)]
    # a record the input has no relocation for: the codec refuses, located at the section; nothing is made
    with pytest.raises(ObjllvmError, match=r"section \[\d+\] \.objllvm_pairs: record 'fourth' has no relocation"):
        _set(tmp_path, data, [{"label": "first"}, {"label": "fourth"}])


def test_an_edit_that_leaves_nothing_removes_the_section_with_its_relocations(tmp_path, pairs_kind):
    out, changes = _set(tmp_path, PAIRS.read_bytes(), [])
    assert {(c.name, c.action) for c in changes} >= {(".objllvm_pairs", "removed"), (".rela.objllvm_pairs", "removed")}
    assert not {".objllvm_pairs", ".rela.objllvm_pairs"} & {s.name for s in ElfFile(out, "o.o").sections}


def test_removal_by_kind_and_strip_llvm_take_the_relocations_along(tmp_path, pairs_kind):
    data = PAIRS.read_bytes()
    for op in (rw.Remove("test-pairs"), rw.StripLLVM()):
        out, changes = rw.rewrite_bytes(data, [op], "kind-pairs.o")
        assert {(c.name, c.action, c.kind) for c in changes} == {(".objllvm_pairs", "removed", "test-pairs"),
                                                                 (".rela.objllvm_pairs", "removed", None)}, op
        assert _readobj_relocations(tmp_path, out) == []
        assert {s.name for s in ElfFile(out, "o.o").sections} == {s.name for s in ElfFile(data, "i.o").sections} - {
            ".objllvm_pairs", ".rela.objllvm_pairs"}


def test_without_the_hook_an_edit_of_a_relocated_section_is_refused(tmp_path, monkeypatch):
    registry.codecs()
    _register(monkeypatch, PairsWithoutHooks)
    data = PAIRS.read_bytes()
    with pytest.raises(ObjllvmError, match="relocations .* that objllvm cannot update for a test-pairs section"):
        _set(tmp_path, data, [{"label": "first"}, {"label": "third"}])
    out, _ = _set(tmp_path, data, [{"label": "first"}, {"label": "second"}, {"label": "third"}])
    assert out == data                       # the same bytes: the relocations need no move


def test_the_session_hands_symbol_renumbering_to_the_codec(pairs_kind, monkeypatch):
    """What the writer's callback reaches: Session.renumbered_symbols_of asks the section's codec (with the
    section's context); a section no codec claims holds no symbol indices, and the callback keeps its bytes."""
    calls = []
    monkeypatch.setattr(PairsCodec, "renumber_symbols",
                        lambda self, data, mapping, ctx: calls.append(("renumber", list(mapping), ctx.section.name))
                        or data[::-1])
    elf = ElfFile(PAIRS.read_bytes(), "kind-pairs.o")
    sess = rw.Session(elf)
    i = next(s.index for s in elf.sections if s.name == ".objllvm_pairs")
    assert sess.renumbered_symbols_of(i, b"ab", [0, -1, 1]) == b"ba"
    assert calls == [("renumber", [0, -1, 1], ".objllvm_pairs")]
    text = next(s.index for s in elf.sections if s.name == ".text")
    assert sess.renumbered_symbols_of(text, b"", [0]) is None
    assert sess._renumber_symbols(text, b"xy", [0]) == b"xy"