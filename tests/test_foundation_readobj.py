"""Differential tests: our JSON against llvm-readobj-19's for the foundation section kinds.

llvm-readobj-19's JSON is not always valid JSON (Addrsig and LinkerOptions print key/value pairs
inside arrays: ``["Sym":{...}]``, ``["lib":"z"]``); ``_readobj_json`` turns those into objects first.
"""
import json
import re
import subprocess

import pytest

from conftest import TESTDATA, corpus_files, need_tool, run_objllvm

ELF_FILES = [p for p in corpus_files() if p.read_bytes()[:4] == b"\x7fELF" or p.suffix == ".a"]

_SYM_PAIR = re.compile(r'(?<=[\[,])"Sym":(\{[^{}]*\})')
_STR = r'"(?:[^"\\]|\\.)*"'
_LINKER_OPTIONS = re.compile(r'"LinkerOptions":\[((?:%s:%s,?)*)\]' % (_STR, _STR))
_STR_PAIR = re.compile(r'(%s):(%s)' % (_STR, _STR))


def _normalise(text):
    text = _SYM_PAIR.sub(r'{"Sym":\1}', text)
    return _LINKER_OPTIONS.sub(lambda m: '"LinkerOptions":[' + _STR_PAIR.sub(r'{\1:\2}', m.group(1)) + ']', text)


def _readobj_json(path, tmp_path):
    tool = need_tool("llvm-readobj-19")
    if path.suffix == ".o" and _has_compressed_llvm_section(path):
        # llvm-readobj-19 does not decompress these sections ("not null-terminated"): give it a copy
        # decompressed by llvm-objcopy-19, so it still is an independent oracle.
        plain = tmp_path / path.name
        subprocess.run([need_tool("llvm-objcopy-19"), "--compress-sections=*=none", str(path), str(plain)],
                       check=True)
        path = plain
    p = subprocess.run([tool, "--elf-output-style=JSON", "--cg-profile", "--addrsig", "--dependent-libraries",
                        "--elf-linker-options", str(path)], capture_output=True, text=True)
    text = _normalise(p.stdout)
    # Several members of an archive: one JSON document each, back to back.
    docs, dec, pos = [], json.JSONDecoder(), 0
    while pos < len(text):
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        d, pos = dec.raw_decode(text, pos)
        docs.extend(d if isinstance(d, list) else [d])
    return docs, p.stderr


def _has_compressed_llvm_section(path):
    from objllvm.formats import open_object
    from objllvm.formats.elf import is_llvm_type
    return any(s.compression and is_llvm_type(s.type) for s in open_object(str(path)).sections)


def _ours(path):
    rc, out, err = run_objllvm("dump", "--json", path)
    assert rc in (0, 1), err
    return json.loads(out)


def _section_symbols(path) -> set:
    """Indices of the STT_SECTION symbols of an ELF object."""
    from objllvm.formats import open_object
    return {x.index for x in open_object(str(path)).symbols if x.type == 3}


def _kinds(files_entry):
    out = {}
    for s in files_entry["sections"]:
        out.setdefault(s["kind"], []).append(s)
    return out


@pytest.mark.parametrize("path", ELF_FILES, ids=lambda p: str(p.relative_to(TESTDATA)))
def test_same_content_as_llvm_readobj(path, tmp_path):
    theirs, _ = _readobj_json(path, tmp_path)
    ours = _ours(path)["files"]
    assert len(theirs) == len(ours), "one entry per object (archive members too)"
    compared = 0
    for t, o in zip(theirs, ours):
        k = _kinds(o)
        if "DependentLibs" in t:
            mine = [lib for s in k.get("deplibs", []) for lib in s["content"]["libraries"]]
            assert mine == t["DependentLibs"]
            compared += len(mine)
        if "LinkerOptions" in t:
            mine = [(x["key"], x["value"]) for s in k.get("linker-options", []) for x in s["content"]["options"]]
            assert mine == [next(iter(d.items())) for d in t["LinkerOptions"]]
            compared += len(mine)
        if "Addrsig" in t:
            # a stale table (sh_link not the symbol table: llvm-readobj names whatever the index hits) is
            # compared by its indices, its names not trusted (None)
            stale = any("stale" in s["content"] for s in k.get("addrsig", []))
            mine = [(None if stale else x["name"], x["index"]) for s in k.get("addrsig", [])
                    for x in s["content"]["symbols"]]
            want = [(None if stale else d["Sym"]["Name"], d["Sym"]["Value"]) for d in t["Addrsig"]]
            # llvm-readobj prints "" for a section symbol (instrumented objects take the address of
            # __llvm_prf_cnts); objllvm names it after its section.  The indices must agree all the same.
            sections = _section_symbols(path) if any(n == "" for n, _ in want) else set()
            want = [(m[0] if n == "" and i in sections and m[1] == i else n, i) for (n, i), m in zip(want, mine)]
            assert mine == want
            compared += len(mine)
        if "CGProfile" in t:
            # llvm-readobj-19 reads only the LLVM >= 13 layout (type 0x6fff4c09).
            new = [s for s in k.get("cg-profile", []) if s["type_value"] == 0x6FFF4C09]
            mine = [(e["from"]["name"], e["from"]["index"], e["to"]["name"], e["to"]["index"], e["weight"])
                    for s in new for e in s["content"]["edges"]]
            if any("From" not in d["CGProfileEntry"] for d in t["CGProfile"]):
                # llvm-readobj-19 does not follow CREL relocation sections here: it shows weights only
                # (test_crel_relocations_agree_with_llvm_readelf checks the symbols).
                assert [m[4] for m in mine] == [d["CGProfileEntry"]["Weight"] for d in t["CGProfile"]]
                compared += len(mine)
                continue
            want = [(d["CGProfileEntry"]["From"]["Name"], d["CGProfileEntry"]["From"]["Value"],
                     d["CGProfileEntry"]["To"]["Name"], d["CGProfileEntry"]["To"]["Value"],
                     d["CGProfileEntry"]["Weight"]) for d in t["CGProfile"]]
            assert mine == want
            compared += len(mine)
    if path.name in ("deplibs.o", "linker-options.o", "cg-profile-asm.o", "cg-profile-pgo.o", "libgnu.a",
                     "portable-ppc64be.o", "portable-i386.o", "cg-profile-i386.o", "deplibs-zlib.o",
                     "linker-options-zstd.o", "cg-profile-ld-r.o"):
        assert compared > 0, "this file has content llvm-readobj-19 shows: the comparison must not be empty"


def test_readobj_normaliser_handles_its_pair_syntax():
    docs = json.loads(_normalise('[{"F":{"A":"x","B":{"C":1}},"Addrsig":["Sym":{"Name":"a","Value":1}],'
                                 '"LinkerOptions":["lib":"z","k":"v, \\"w\\""]}]'))
    assert docs == [{"F": {"A": "x", "B": {"C": 1}}, "Addrsig": [{"Sym": {"Name": "a", "Value": 1}}],
                     "LinkerOptions": [{"lib": "z"}, {"k": 'v, "w"'}]}]


@pytest.mark.parametrize("name", ["cg-profile-crel.o", "portable-crel.o"])
def test_crel_relocations_agree_with_llvm_readelf(name):
    """SHT_CREL relocation sections decode to what llvm-readelf-19 -r prints (offset, type, symbol, addend)."""
    from objllvm.formats import open_object
    path = TESTDATA / "elf" / name
    out = subprocess.run([need_tool("llvm-readelf-19"), "-r", str(path)], capture_output=True, text=True,
                         check=True).stdout
    want = {}
    current = None
    for line in out.splitlines():
        m = re.match(r"Relocation section '([^']+)'", line)
        if m:
            current = want.setdefault(m.group(1), [])
            continue
        m = re.match(r"([0-9a-f]{16})\s+[0-9a-f]{16}\s+(\S+)\s+(?:[0-9a-f]{16}\s+(\S+)\s*([+-])\s*([0-9a-f]+))?", line)
        if m and current is not None:
            sign = -1 if m.group(4) == "-" else 1
            current.append((int(m.group(1), 16), m.group(3), sign * int(m.group(5) or "0", 16)))
    obj = open_object(str(path))
    crel = [s for s in obj.sections if s.type == 0x40000014]
    assert crel, "the object must use CREL"
    for rs in crel:
        got = [(r.offset, r.symbol.name if r.symbol else None, r.addend or 0) for r in obj.read_relocations(rs)]
        assert got == [(o, n if n else None, a) for o, n, a in want[rs.name]]
        assert len(got) > 0
