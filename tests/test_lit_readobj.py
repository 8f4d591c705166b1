"""Differential test over LLVM's own lit inputs: objllvm against llvm-readobj-22, recorded at build time.

testdata/src/lit/*.yaml hold the YAML documents of LLVM's llvm-readobj / obj2yaml tests for the sections
objllvm decodes (plus a few cases of objllvm's own in the same style, ``own-*``); testdata/src/lit/cases.txt
says which document, which ``-D`` values and which llvm-readobj option each case uses.
scripts/testdata.d/80-lit.sh builds each with yaml2obj-22 (testdata/lit/NAME.o) and records llvm-readobj-22's
output (JSON style and text style, its warnings, its exit status) in testdata/lit/NAME.json.  No LLVM tool is
needed here.

Per case the decoded values (call-graph edges, address-significant symbols, libraries, linker options,
basic-block maps) are compared, and whether a problem is reported (an LLVM warning; an objllvm warning or
error).  A case agrees when both match.  Every disagreement is listed in KNOWN with its class and the reason;
a new one (or a known one that goes away) fails the test.  ``test_summary`` prints the counts.
"""
from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from conftest import TESTDATA
from objllvm import api
from objllvm.errors import ObjllvmError

LIT = TESTDATA / "lit"
CASES = sorted(p.stem for p in LIT.glob("*.json"))

OPTION_KIND = {"--cg-profile": "cg-profile", "--addrsig": "addrsig", "--dependent-libraries": "deplibs",
               "--elf-linker-options": "linker-options", "--bb-addr-map": "bb-addr-map",
               "--stack-sizes": "stack-sizes", "--stackmap": "stackmaps"}

# Disagreement classes.
LLVM_ONLY = "values agree; only LLVM reports a problem"
OURS_ONLY = "values agree; only objllvm reports a problem"
MORE = "objllvm keeps values LLVM drops; both report"
FEWER = "objllvm shows a part of LLVM's values; both report"
DIFFER = "values differ"
FILE = "objllvm cannot read the file"

KNOWN = {
    # sh_entsize of a relocation section is not checked by objllvm's ELF reader: the entries are read at
    # the size their type has (REL 16, RELA 24) and pair correctly; LLVM refuses the relocations.
    "cgp-rel-entsize": (MORE, "LLVM refuses relocations whose sh_entsize is wrong; objllvm reads them by type "
                              "and pairs the edges (it does not warn about sh_entsize of relocation sections)"),
    "cgp-rela-entsize": (MORE, "as cgp-rel-entsize"),
    # LLVM's output keeps the weights only when the relocations do not pair; objllvm pairs what pairs (#15.3).
    "cgp-bad-entsize": (MORE, "LLVM drops the section for its sh_entsize; objllvm warns and reads 8-byte weights"),
    "cgp-count-mismatch": (MORE, "LLVM shows weights only when the pair count is off; objllvm pairs the edges "
                                 "it can pair and warns"),
    # llvm-readobj warns for each function no symbol names; objllvm shows <?> (a stripped binary is not
    # malformed: a warning there would make every stripped file exit 1).
    "bbr-basic": (LLVM_ONLY, "LLVM warns when no function symbol is at a map's address; objllvm shows <?>"),
    "bbr-dyn": (LLVM_ONLY, "as bbr-basic"),
    "pgo-basic": (LLVM_ONLY, "as bbr-basic"),
    "pgo-dyn": (LLVM_ONLY, "as bbr-basic"),
    # An empty map in an object without relocations: nothing to resolve, nothing lost.
    "bbr-no-rela": (LLVM_ONLY, "an empty bb-addr-map in a relocatable object without a relocation section: "
                               "LLVM warns about the missing section, objllvm has no address to resolve"),
    # LLVM reads only some of several call-graph sections of one file (its JSON has a CGProfile key per
    # section but prints the entries of one); objllvm decodes each section.
    "cgpy-invalid": (MORE, "nine call-graph sections: LLVM prints the weights of one, objllvm of every "
                           "readable one (and errors for the two whose size is not a multiple of 8)"),
    # .deplibs of type SHT_PROGBITS: LLVM ignores it silently; objllvm decodes it by name and warns (#15.4).
    "own-deplibs-progbits": (OURS_ONLY, "LLVM ignores an SHT_PROGBITS .deplibs silently; objllvm reports it "
                                        "(the typed section's libraries agree)"),
    # An address-significance table in a file without a symbol table has sh_link 0: objllvm reports the table
    # stale (indices kept, names not looked up, what lld does), which is not a warning; LLVM
    # warns that there is no symbol table.
    # Stack sizes (stack-sizes.test).  LLVM names the functions through its map of function addresses, which
    # one symbol with a bad section index spoils for the whole file; objllvm names each relocation's symbol
    # and warns about the bad one.
    "ss-bad-shndx": (MORE, "a function symbol whose section index names no section: LLVM gives up naming every "
                           "entry of the file, objllvm names each (the bad symbol too) and warns about that one"),
    "ss-sym-past-table": (MORE, "as ss-bad-shndx for the first entry; the two past the table are unknown in both"),
    "ss-not-function": (MORE, "a relocation to an STT_OBJECT symbol: LLVM prints ?, objllvm names it and warns that "
                              "it is no function"),
    # A symbol table that cannot be read: the ELF reader cannot read the relocations that name it, so every
    # address field is without its relocation (an error at the first, never the stored 0); LLVM shows the sizes
    # with unknown functions.
    "ss-broken-symtab": (FEWER, "an unreadable symbol table costs the relocations: objllvm reports the first "
                                "address field without its relocation and stops; LLVM lists the sizes with ?"),
    # LLVM prints an entry per relocation: two relocations at offset 0 print the entry twice.
    "ss-reloc-inside": (FEWER, "LLVM prints the entry once per relocation at its address (twice here); objllvm "
                               "once, with a warning for the second relocation and for the two inside the field"),
    # Stack maps (stackmap.test): llvm-readobj dumps the first .llvm_stackmaps section and no other.
    "sm-empty": (OURS_ONLY, "LLVM dumps only the first stack-map section (an empty one); objllvm decodes the "
                            "second too, 1 byte, and reports it"),
    "own-addrsig-nosymtab": (LLVM_ONLY, "a table whose sh_link is 0 is reported stale (a note, indices kept), "
                                        "not warned about; LLVM warns about the missing symbol table"),
}


def _load(case):
    return json.loads((LIT / f"{case}.json").read_text())


def _pairs(pairs):
    """JSON object hook keeping repeated keys (llvm-readobj writes one "CGProfile" key per section)."""
    out = {}
    for k, v in pairs:
        out.setdefault(k, []).append(v)
    return out


def _llvm_json(rec):
    try:
        return json.loads(rec["json"], object_pairs_hook=_pairs)
    except ValueError:       # llvm-readobj's JSON is not always JSON (--addrsig, --elf-linker-options)
        return None


def llvm_values(rec):
    """The values llvm-readobj-22 printed, in objllvm's terms."""
    opt = rec["option"]
    doc = _llvm_json(rec)
    if opt == "--cg-profile":
        out = []
        for sec in doc[0].get("CGProfile", []):
            for e in sec:
                (ent,) = e["CGProfileEntry"]

                def ref(k, ent=ent):
                    if k not in ent:
                        return None, None
                    (s,) = ent[k]
                    name = s["Name"][0]
                    return (None if name == "<?>" else name), s["Value"][0]
                out.append((*ref("From"), *ref("To"), ent["Weight"][0]))
        return out
    if opt == "--dependent-libraries":
        return [lib for sec in doc[0].get("DependentLibs", []) for lib in sec]
    if opt == "--bb-addr-map":
        out = []
        for sec in doc[0].get("BBAddrMap", []):
            for f in sec:
                (fn,) = f["Function"]
                ranges = [(r["Base Address"][0], [(b["ID"][0], b["Offset"][0], b["Size"][0])
                                                   for b in r["BB Entries"][0]]) for r in fn["BB Ranges"][0]]
                pgo = fn.get("PGO analyses", [{}])[0]
                out.append((fn["At"][0], ranges, pgo.get("FuncEntryCount", [None])[0]))
        return out
    if opt == "--stackmap":
        # llvm-readobj dumps the first stack-map section only: (version, functions, constants, records)
        d = doc[0]
        if "LLVM StackMap Version" not in d:
            return []
        return [(d["LLVM StackMap Version"][0], d["Num Functions"][0], d["Num Constants"][0], d["Num Records"][0])]
    if opt == "--stack-sizes":
        # (names, size) per entry; names None where LLVM prints "?" (no function could be named)
        out = []
        for sec in doc[0].get("StackSizes", []):
            for e in sec:
                (ent,) = e["Entry"]
                (names,) = ent["Functions"]
                out.append((None if names == ["?"] else tuple(names), ent["Size"][0]))
        return out
    text = rec["text"]
    if opt == "--addrsig":
        return [(None if m.group(1) == "<?>" else m.group(1), int(m.group(2)))
                for m in re.finditer(r"^\s*Sym: (.*) \((\d+)\)$", text, re.M)]
    if opt == "--elf-linker-options":
        body = text.split("LinkerOptions [", 1)[1].rsplit("]", 1)[0]
        return [tuple(ln.strip().split(": ", 1)) for ln in body.splitlines() if ": " in ln]
    raise AssertionError(opt)


def our_values(rec):
    """(values, reported, file_error) of objllvm on the case's object, in the same terms."""
    kind = OPTION_KIND[rec["option"]]
    items = api.dump(str(LIT / f"{rec['case']}.o"), [kind])
    errors = [i for i in items if isinstance(i, ObjllvmError)]
    file_errors = [e for e in errors if e.section_index is None]     # (a section's own error costs that section)
    secs = [d for i in items if not isinstance(i, ObjllvmError) for d in i.sections]
    reported = bool(errors) or any(d.error is not None or d.warnings for d in secs)
    out = []
    for d in secs:
        # LLVM shows nothing of a section it cannot dump or ignores; of stack sizes, the entries before a fault
        partial = kind == "stack-sizes" and d.model is not None
        if (d.status != "decoded" and not partial) or d.mistyped:
            continue
        m = d.model
        if kind == "cg-profile":
            out += [(e.source.name, e.source.index, e.target.name, e.target.index, e.weight) for e in m.edges]
        elif kind == "addrsig":
            out += [(s.name, s.index) for s in m.symbols]
        elif kind == "deplibs":
            out += list(m.libraries)
        elif kind == "linker-options":
            out += [(o.key, o.value) for o in m.options]
        elif kind == "stackmaps":
            out.append((m.version, len(m.functions), len(m.constants), len(m.records)))
        elif kind == "stack-sizes":
            out += [(tuple(e.function.names) or None, e.size) for e in m.entries]
        elif kind == "bb-addr-map":
            out += [(f.ranges[0].base_address, [(r.base_address, [(b.id, b.offset, b.size) for b in r.blocks])
                                                for r in f.ranges], f.entry_count) for f in m.functions]
    return out, reported, bool(file_errors)


def classify(case):
    rec = _load(case)
    if "yaml2obj_error" in rec:
        return "yaml2obj-22 cannot build the input", None
    theirs = llvm_values(rec)
    llvm_reported = any(re.search(r"\b(warning|error):", ln) for ln in rec["json_stderr"])
    ours, reported, file_error = our_values(rec)
    if file_error:
        return FILE, (theirs, ours)
    if ours == theirs:
        if reported == llvm_reported:
            return "agree", None
        return (LLVM_ONLY if llvm_reported else OURS_ONLY), (theirs, ours)
    if reported and llvm_reported and len(ours) >= len(theirs):
        return MORE, (theirs, ours)
    if reported and llvm_reported and not Counter(map(repr, ours)) - Counter(map(repr, theirs)):
        return FEWER, (theirs, ours)
    return DIFFER, (theirs, ours)


def test_cases_were_built():
    assert len(CASES) >= 25, "testdata/lit/ is missing: run scripts/make-testdata lit"
    for case in CASES:
        assert (LIT / f"{case}.o").exists() or "yaml2obj_error" in _load(case)


@pytest.mark.parametrize("case", CASES)
def test_against_llvm_readobj(case):
    got, detail = classify(case)
    want = KNOWN.get(case, ("agree", ""))[0]
    assert got == want, f"{case}: {got} (known: {want}); LLVM vs objllvm: {detail}"


def test_known_reasons_name_real_cases():
    assert set(KNOWN) <= set(CASES)


def test_summary(capsys):
    """The figures for docs/errors.md: how many cases, how many agree, the disagreements by class."""
    counts = Counter(classify(c)[0] for c in CASES)
    with capsys.disabled():
        print(f"\nlit cases: {len(CASES)}, agree: {counts['agree']}; "
              + "; ".join(f"{k}: {v}" for k, v in sorted(counts.items()) if k != "agree"))
    assert counts["agree"] >= 10
    assert counts[DIFFER] == 0, "a case where objllvm and LLVM decode different values"
