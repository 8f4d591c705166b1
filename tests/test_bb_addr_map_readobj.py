"""bb-addr-map JSON against llvm-readobj-19, field by field, on every corpus file it can read.

Mapping (llvm-readobj-19 JSON -> objllvm content):
  BBAddrMap[k] (all map sections in section order, functions in section order) -> functions[k]
  Function.At -> address; Function.Name -> name ("<?>" when no symbol: name None)
  "BB Ranges"[r]."Base Address" -> ranges[r].base_address
  "BB Entries"[b]: ID -> id, Offset -> offset, Size -> size, HasReturn/HasTailCall/IsEHPad/
      CanFallThrough/HasIndirectBranch -> each name's presence in flags (and the metadata bit)
  "PGO analyses": FuncEntryCount -> entry_count (only with the feature); "PGO BB entries"[i] ->
      pgo_blocks[i]: Frequency -> frequency (raw) or relative_frequency (--pretty-pgo, compared as
      numbers), Successors[j]: ID -> id, Probability -> probability (raw) or
      "0xN / 0x80000000 = P%" (--pretty-pgo: N = probability, P = probability_percent to 2 places).
llvm-readobj-19's JSON is malformed in two ways, normalised here: one "BBAddrMap" key per map
section in the same object (concatenated), and keyed members straight inside lists (wrapped).
llvm-readobj-19 reads versions 0-2 of type 0x6fff4c0a only: it prints nothing for the V0 type and
warns on versions 3-5 and feature bits beyond MultiBBRange (checked below, so the claim stays true).
"""
from __future__ import annotations

import json
import re
import subprocess

import pytest

from conftest import TESTDATA, need_tool, run_objllvm

BB = TESTDATA / "bb-addr-map"
READABLE = ["clang19-eh.o", "clang19-labels-fs.o", "clang19-labels.exe", "clang19-labels.o", "clang19-labels.so",
            "clang19-pgo-profile-fs.o", "clang19-pgo-profile.exe", "clang19-pgo-static.o", "yaml-multirange.o",
            "yaml-pgo-partial.o", "yaml-versions.o"]
REJECTED = {"mc-v3.o": "version: 3", "mc-v4.exe": "version: 4", "mc-v5.o": "version: 5",
            "rustc-v5.exe": "version: 5", "rustc-v5-pgo.o": "version: 5", "mc-omit.o": "Features: 0x11",
            "clang19-i386-rel.o": "expected 12, but got 8"}   # REL relocations: llvm-readobj-19 wants RELA
SILENT = ["llc14-v0.o", "llc14-v0.exe", "yaml-v0type-be.o"]
FLAGS = ("HasReturn", "HasTailCall", "IsEHPad", "CanFallThrough", "HasIndirectBranch")


def fix_readobj_json(text: str) -> str:
    """llvm-readobj-19 sometimes prints a keyed object straight inside a list (``["Sym":{...}]``):
    wrap every such member in braces so the text parses."""
    out = []
    stack = []          # per open bracket: '[' / '{' / 'W' (a list member we wrapped)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            s = text[i:j + 1]
            k = j + 1
            while k < n and text[k] in " \n\t":
                k += 1
            if stack and stack[-1] == "[" and k < n and text[k] == ":":
                out.append("{")
                stack.append("W")
            out.append(s)
            i = j + 1
            continue
        if c in "[{":
            stack.append(c)
        elif c in "]}":
            if c == "]" and stack and stack[-1] == "W":
                out.append("}")
                stack.pop()
            stack.pop()
        elif c == "," and stack and stack[-1] == "W":
            out.append("}")
            stack.pop()
        out.append(c)
        i += 1
    return "".join(out)


def test_fix_readobj_json():
    assert json.loads(fix_readobj_json('{"A":["Sym":{"x":1},"Sym":{"x":2}],"B":[1,{"y":[]}]}')) == \
        {"A": [{"Sym": {"x": 1}}, {"Sym": {"x": 2}}], "B": [1, {"y": []}]}


def _merge_duplicate_keys(pairs):
    """llvm-readobj-19 repeats the "BBAddrMap" key once per map section in one object: concatenate."""
    out = {}
    for k, v in pairs:
        if k in out and isinstance(out[k], list) and isinstance(v, list):
            out[k] = out[k] + v
        else:
            out[k] = v
    return out


def readobj(path, pretty=False):
    tool = need_tool("llvm-readobj-19")
    args = [tool, "--elf-output-style=JSON", "--bb-addr-map"] + (["--pretty-pgo-analysis-map"] if pretty else [])
    p = subprocess.run(args + [str(path)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    text = p.stdout
    try:
        doc = json.loads(text, object_pairs_hook=_merge_duplicate_keys)
    except json.JSONDecodeError:
        doc = json.loads(fix_readobj_json(text), object_pairs_hook=_merge_duplicate_keys)
    return doc[0].get("BBAddrMap"), p.stderr


def ours(path, pretty=False):
    code, out, err = run_objllvm("dump", "--section", "bb-addr-map", "--json", *(["--pretty-pgo"] if pretty else []),
                                 path)
    assert code == 0, err
    doc = json.loads(out)
    fns = []
    for sec in doc["files"][0]["sections"]:
        assert sec["status"] == "decoded"
        fns.extend(sec["content"]["functions"])
    return fns


def compare(theirs, mine, pretty):
    assert len(theirs) == len(mine)
    nblocks = 0
    for t, m in zip(theirs, mine):
        t = t["Function"]
        where = f"function {t['Name']} at {t['At']:#x}"
        assert t["At"] == m["address"], where
        assert t["Name"] == (m["name"] if m["name"] is not None else "<?>"), where
        assert len(t["BB Ranges"]) == len(m["ranges"]), where
        for tr, mr in zip(t["BB Ranges"], m["ranges"]):
            assert tr["Base Address"] == mr["base_address"], where
            assert len(tr["BB Entries"]) == len(mr["blocks"]), where
            for tb, mb in zip(tr["BB Entries"], mr["blocks"]):
                assert (tb["ID"], tb["Offset"], tb["Size"]) == (mb["id"], mb["offset"], mb["size"]), where
                assert mb["address"] == mr["base_address"] + mb["offset"]
                for bit, name in enumerate(FLAGS):
                    assert tb[name] == (name in mb["flags"]) == bool(mb["metadata"] >> bit & 1), (where, name)
                nblocks += 1
        tp = t.get("PGO analyses")
        assert (tp is not None) == bool(m["feature"] & 0x7), where
        if tp is None:
            continue
        assert ("FuncEntryCount" in tp) == ("entry_count" in m), where
        if "FuncEntryCount" in tp:
            assert tp["FuncEntryCount"] == m["entry_count"], where
        assert ("PGO BB entries" in tp) == ("pgo_blocks" in m), where
        for tb, mb in zip(tp.get("PGO BB entries", []), m.get("pgo_blocks", [])):
            assert ("Frequency" in tb) == ("frequency" in mb), where
            if "Frequency" in tb:
                if pretty:
                    assert float(tb["Frequency"]) == pytest.approx(mb["relative_frequency"], rel=1e-6, abs=1e-9)
                else:
                    assert tb["Frequency"] == mb["frequency"], where
            assert ("Successors" in tb) == ("successors" in mb), where
            for ts, ms in zip(tb.get("Successors", []), mb.get("successors", [])):
                assert ts["ID"] == ms["id"], where
                if pretty:
                    mt = re.fullmatch(r"0x([0-9a-f]+) / 0x80000000 = ([0-9.]+)%", ts["Probability"])
                    assert mt, ts["Probability"]
                    assert int(mt.group(1), 16) == ms["probability"]
                    assert float(mt.group(2)) == pytest.approx(round(ms["probability_percent"], 2), abs=0.006)
                else:
                    assert ts["Probability"] == ms["probability"], where
            assert len(tb.get("Successors", [])) == len(mb.get("successors", [])), where
        assert len(tp.get("PGO BB entries", [])) == len(m.get("pgo_blocks", [])), where
    return nblocks


@pytest.mark.parametrize("pretty", [False, True], ids=["raw", "pretty"])
@pytest.mark.parametrize("name", READABLE)
def test_same_content_as_llvm_readobj(name, pretty):
    theirs, err = readobj(BB / name, pretty)
    assert err == ""
    assert theirs, f"llvm-readobj-19 shows no map in {name}"
    assert compare(theirs, ours(BB / name, pretty), pretty) > 0


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_llvm_readobj_19_rejects_what_we_read(name):
    theirs, err = readobj(BB / name)
    assert REJECTED[name] in err
    assert ours(BB / name), "objllvm must read it"


@pytest.mark.parametrize("name", SILENT)
def test_llvm_readobj_19_ignores_v0_type(name):
    theirs, err = readobj(BB / name)
    assert not theirs and err == ""
    mine = ours(BB / name)
    assert mine and all(f["version"] is None for f in mine)


def test_v0_type_against_llvm_readobj_14_layout():
    """The V0 object (llc-14) and its executable: the same blocks, addresses moved by the link."""
    obj = ours(BB / "llc14-v0.o")
    exe = ours(BB / "llc14-v0.exe")
    assert [f["name"] for f in obj] == [f["name"] for f in exe] == ["count", "main"]
    nm = subprocess.run([need_tool("llvm-nm-19"), str(BB / "llc14-v0.exe")], capture_output=True, text=True).stdout
    syms = {ln.split()[2]: int(ln.split()[0], 16) for ln in nm.splitlines() if len(ln.split()) == 3}
    for o, e in zip(obj, exe):
        assert e["address"] == syms[e["name"]]
        assert [(b["offset"], b["size"], b["metadata"]) for b in o["ranges"][0]["blocks"]] == \
            [(b["offset"], b["size"], b["metadata"]) for b in e["ranges"][0]["blocks"]]
