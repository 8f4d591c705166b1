"""Helpers shared by the rewrite and ELF-writer tests (no tests here): LLVM's view of an object through
llvm-readobj-19, the comparison "same as the input except what the operation changes", and link-and-run."""
from __future__ import annotations

import copy
import functools
import json
import subprocess
from pathlib import Path

from conftest import TESTDATA, need_tool

RW = TESTDATA / "rewrite"
OBJS = ["main.o", "helper.o", "lto.o", "bbmap.o", "linkopt.o"]


def readobj(path, *extra) -> dict:
    """llvm-readobj-19's sections, symbols and relocations, keyed by names (not indices or offsets)."""
    if TESTDATA in Path(path).parents:      # committed inputs: read once per test session
        return copy.deepcopy(_readobj_cached(str(path), extra))
    return _readobj(path, *extra)


@functools.lru_cache(maxsize=None)
def _readobj_cached(path, extra):
    return _readobj(path, *extra)


def _readobj(path, *extra) -> dict:
    tool = need_tool("llvm-readobj-19")
    p = subprocess.run([tool, "--elf-output-style=JSON", "--sections", "--symbols", "--relocations", *extra,
                        str(path)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert "warning" not in p.stderr.lower(), p.stderr
    f = json.loads(p.stdout)[0]
    raw = [s["Section"] for s in f["Sections"]]
    names = [s["Name"]["Name"] for s in raw]

    def nm(i):
        return names[i] if 0 <= i < len(names) else i
    secs = []
    for s in raw[1:]:       # section 0 holds counts under extended numbering: not a section to compare
        t = s["Type"]["Name"]
        info = nm(s["Info"]) if t in ("SHT_REL", "SHT_RELA") or s["Flags"]["Value"] & 0x40 else s["Info"]
        secs.append({"name": s["Name"]["Name"], "type": t, "flags": s["Flags"]["Value"], "addr": s["Address"],
                     "size": s["Size"], "align": s["AddressAlignment"], "entsize": s["EntrySize"],
                     "link": nm(s["Link"]) if s["Link"] else 0, "info": info})
    syms = []
    for x in f.get("Symbols", []):
        y = x["Symbol"]
        syms.append((y["Name"]["Name"], y["Value"], y["Size"], y["Binding"]["Name"], y["Type"]["Name"],
                     y["Section"]["Name"]))
    relocs = {}
    for r in f.get("Relocations", []):
        key = names[r["SectionIndex"]]
        relocs.setdefault(key, []).append([(z["Relocation"]["Offset"], z["Relocation"]["Type"]["Name"],
                                            z["Relocation"]["Symbol"]["Name"], z["Relocation"].get("Addend"))
                                           for z in r["Relocs"]])
    return {"sections": secs, "symbols": syms, "relocations": relocs, "raw": f}


def assert_same_except(before: dict, after: dict, *, removed=(), resized=(), relocs_changed=(),
                       dropped_symbols=False, dropped_groups=0):
    """``after`` is ``before`` without the ``removed`` sections (names), with only the sizes of ``resized``
    sections different, and only the entries of the ``relocs_changed`` relocation sections (names) different.
    ``dropped_symbols``: the symbols defined in removed sections are gone (the symbol table renumbered: its
    size and sh_info, and the groups' signature indices, differ; the kept symbols stay in order), and
    ``dropped_groups`` groups left empty are gone (the others are kept, in order)."""
    removed, resized = set(removed), set(resized)
    want = [dict(s) for s in before["sections"] if s["name"] not in removed]
    got = [dict(s) for s in after["sections"]]
    for s in want + got:
        if s["name"] in resized:
            s["size"] = None
        if dropped_symbols and s["type"] in ("SHT_SYMTAB", "SHT_SYMTAB_SHNDX", "SHT_GROUP"):
            s["size"] = None if s["type"] != "SHT_GROUP" else s["size"]
            s["info"] = None
    if dropped_groups:
        groups_want = [s for s in want if s["type"] == "SHT_GROUP"]
        groups_got = [s for s in got if s["type"] == "SHT_GROUP"]
        assert len(groups_got) == len(groups_want) - dropped_groups
        for g in groups_got:
            groups_want.remove(g)
        want = [s for s in want if s["type"] != "SHT_GROUP"]
        got = [s for s in got if s["type"] != "SHT_GROUP"]
    assert got == want
    if dropped_symbols:
        kept = [x for x in before["symbols"] if x[5] not in removed]
        assert after["symbols"] == kept
        ra = {k: v for k, v in before["relocations"].items() if k not in removed and k not in relocs_changed}
        rb = {k: v for k, v in after["relocations"].items() if k not in relocs_changed}
        assert ra == rb
        return
    # Symbols: identical, except section symbols of removed sections, which become null local symbols.
    assert len(after["symbols"]) == len(before["symbols"])
    for a, b in zip(before["symbols"], after["symbols"]):
        if a[4] == "Section" and a[5] in removed:
            assert b[4] == "None" and b[5] == "Undefined" and b[3] == "Local", b
        else:
            assert a == b
    ra = {k: v for k, v in before["relocations"].items() if k not in removed and k not in relocs_changed}
    rb = {k: v for k, v in after["relocations"].items() if k not in relocs_changed}
    assert ra == rb


def section(ro: dict, name: str) -> dict:
    hits = [s for s in ro["sections"] if s["name"] == name]
    assert len(hits) == 1, (name, hits)
    return hits[0]


def link(objs, out, *extra) -> subprocess.CompletedProcess:
    cc = need_tool("clang-19")
    need_tool("ld.lld-19")
    return subprocess.run([cc, "-fuse-ld=lld", *map(str, objs), *extra, "-o", str(out)], capture_output=True,
                          text=True)


def link_and_run(objs, out, *extra, args=("500",)) -> str:
    p = link(objs, out, *extra)
    assert p.returncode == 0, p.stderr
    assert "warning" not in p.stderr, p.stderr        # lld has nothing to say about our objects
    r = subprocess.run([str(out), *args], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout


def expected_output(tmp_path) -> str:
    """What the program prints when linked from the committed (unmodified) objects."""
    out = link_and_run([RW / o for o in OBJS], tmp_path / "orig")
    assert out.startswith("rewrite-ok ")
    return out


def objs_with(replacements: dict) -> list:
    """The program's objects, with some replaced by rewritten files."""
    return [replacements.get(o, RW / o) for o in OBJS]
