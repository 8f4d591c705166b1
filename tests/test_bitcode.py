"""Bitcode: the module summary against llvm-bcanalyzer-19 -dump and llvm-dis-19 on real objects.

Every payload here was made by a real tool (scripts/testdata.d/40-bitcode.sh).  Where llvm-dis-19 cannot load the
input (rustc's LLVM 22 bitcode) llvm-bcanalyzer-19 still reads the bitstream and is the oracle.
"""
from __future__ import annotations

import glob
import os
import re
import subprocess

import pytest

from conftest import TESTDATA, need_tool, run_objllvm
from objllvm import api, bitcode
from objllvm.formats import iter_objects
from objllvm.errors import ObjllvmError

BC = TESTDATA / "bitcode"

# (file, member or None, section name) of every bitcode payload clang-19 / llvm-cat / rustc made
PAYLOADS = [
    ("embed.o", None, ".llvmbc"),
    ("fatlto.o", None, ".llvm.lto"),
    ("embed-coff.obj", None, ".llvmbc"),
    ("embed-macho.o", None, "__LLVM,__bitcode"),
    ("embed.bc", None, "<bitcode>"),
    ("wrapper.bc", None, "<bitcode>"),
    ("multi.bc", None, "<bitcode>"),
    ("dev-nvptx.bc", None, "<bitcode>"),
    ("libbc.a", "embed.o", ".llvmbc"),
    ("libbc.a", "fatlto.o", ".llvm.lto"),
    ("bitcode-members.ar", "dev-nvptx.bc", "<bitcode>"),
    ("bitcode-members.ar", "wrapper.bc", "<bitcode>"),
]
CLANG_MADE = {p for p in PAYLOADS}


def section_bytes(path, member, name):
    for o in iter_objects(str(path)):
        assert not isinstance(o, ObjllvmError), o
        if o.member == member:
            s = o.section_by_name(name)
            assert s is not None, f"{path}({member}) has no {name}"
            return s.data()
    raise AssertionError(f"{path}: no member {member}")


def stream_of(data: bytes) -> bytes:
    w, start, end = bitcode.bitstream_range(data)
    return data[start:end]


# -- the oracles -------------------------------------------------------------------------------------------
def bcanalyzer_modules(data: bytes, tmp_path) -> list:
    """Per module from `llvm-bcanalyzer-19 -dump`: producer, triple, datalayout, source file, and the names of
    defined functions / variables (module records + the STRTAB blob that follows)."""
    tool = need_tool("llvm-bcanalyzer-19")
    f = tmp_path / "in.bc"
    f.write_bytes(stream_of(data))
    text = subprocess.run([tool, "-dump", str(f)], capture_output=True, text=True, check=True,
                          errors="surrogateescape").stdout
    modules, pending, stack = [], [], []
    producer = None
    rec = re.compile(r"^\s*<([A-Z_0-9]+)( abbrevid=\d+)?((?: op\d+=-?\d+)*)\s*/>(.*)$")
    for line in text.splitlines():
        m = re.match(r"^\s*<([A-Z_0-9]+) NumWords=\d+ BlockCodeSize=\d+>", line)
        if m:
            stack.append(m.group(1))
            if m.group(1) == "MODULE_BLOCK":
                modules.append({"producer": producer, "funcs": [], "vars": [], "records": {}})
                pending.append(modules[-1])
                producer = None
            continue
        if re.match(r"^\s*</[A-Z_0-9]+>", line):
            stack.pop()
            continue
        m = rec.match(line)
        if not m or not stack:
            continue
        name, ops = m.group(1), [int(x) for x in re.findall(r"op\d+=(-?\d+)", m.group(3))]
        top = stack[-1]
        if top == "IDENTIFICATION_BLOCK_ID" and name == "STRING":
            producer = bytes(ops).decode()
        elif top == "MODULE_BLOCK":
            mod = modules[-1]
            if name in ("TRIPLE", "DATALAYOUT", "SOURCE_FILENAME"):
                mod["records"][name] = bytes(ops).decode()
            elif name == "FUNCTION" and ops[4] == 0:
                mod["funcs"].append((ops[0], ops[1]))
            elif name == "GLOBALVAR" and ops[4] != 0:
                mod["vars"].append((ops[0], ops[1]))
        elif top == "STRTAB_BLOCK" and name == "BLOB":
            blob = re.search(r"blob data = '(.*)'$", m.group(4), re.S)
            assert blob, f"unprintable STRTAB blob in the dump: {m.group(4)[:80]}"
            strtab = blob.group(1).encode("utf-8", "surrogateescape")
            for mod in pending:
                mod["funcs"] = sorted(strtab[o:o + n].decode() for o, n in mod["funcs"])
                mod["vars"] = sorted(strtab[o:o + n].decode() for o, n in mod["vars"])
            pending = []
    return modules


def llvm_dis(data: bytes, tmp_path) -> list:
    """Per module from llvm-dis-19: triple, datalayout, source file, defined functions and variables."""
    tool = need_tool("llvm-dis-19")
    f = tmp_path / "in.bc"
    f.write_bytes(data)
    out = tmp_path / "out.ll"
    subprocess.run([tool, str(f), "-o", str(out)], check=True, capture_output=True)
    files = [out] if out.exists() else sorted(tmp_path.glob("out.ll.*"), key=lambda p: int(p.suffix[1:]))
    mods = []
    for p in files:
        text = p.read_text()
        d = {"triple": re.search(r'^target triple = "(.*)"$', text, re.M).group(1),
             "datalayout": re.search(r'^target datalayout = "(.*)"$', text, re.M).group(1),
             "source": re.search(r'^source_filename = "(.*)"$', text, re.M).group(1),
             "funcs": sorted(re.findall(r'^define [^@]*@"?([^"(]+)"?\(', text, re.M)),
             "vars": sorted(n for n, rest in re.findall(r'^@"?([^"\s=]+)"? = (.*)$', text, re.M)
                            if re.search(r"\b(global|constant)\b", rest)
                            and not re.match(r"(\w+ )*(external|extern_weak) ", rest))}
        mods.append(d)
    return mods


# -- tests -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fname,member,sec", PAYLOADS, ids=[f"{a}({b})-{c}" if b else f"{a}-{c}" for a, b, c in PAYLOADS])
def test_summary_matches_bcanalyzer(fname, member, sec, tmp_path):
    data = section_bytes(BC / fname, member, sec)
    s = bitcode.summarize(data)
    ref = bcanalyzer_modules(data, tmp_path)
    assert len(s.modules) == len(ref) >= 1
    for m, r in zip(s.modules, ref):
        assert m.producer == r["producer"]
        assert m.triple == r["records"]["TRIPLE"]
        assert m.datalayout == r["records"]["DATALAYOUT"]
        assert m.source_filename == r["records"]["SOURCE_FILENAME"]
        assert sorted(g.name for g in m.defined_functions) == r["funcs"]
        assert sorted(g.name for g in m.defined_variables) == r["vars"]


@pytest.mark.parametrize("fname,member,sec", PAYLOADS, ids=[f"{a}({b})-{c}" if b else f"{a}-{c}" for a, b, c in PAYLOADS])
def test_summary_matches_llvm_dis(fname, member, sec, tmp_path):
    data = section_bytes(BC / fname, member, sec)
    s = bitcode.summarize(data)
    ref = llvm_dis(data, tmp_path)
    assert len(s.modules) == len(ref)
    for m, r in zip(s.modules, ref):
        assert m.triple == r["triple"]
        assert m.datalayout == r["datalayout"]
        assert m.source_filename == r["source"]
        assert sorted(g.name for g in m.defined_functions) == r["funcs"]
        assert sorted(g.name for g in m.defined_variables) == r["vars"]


def test_wrapper_and_multi_module_structure():
    w = bitcode.summarize((BC / "wrapper.bc").read_bytes())
    assert w.wrapper is not None and w.wrapper.version == 0
    assert w.stream_offset == w.wrapper.offset == 20
    assert w.wrapper.offset + w.wrapper.size <= w.size
    m = bitcode.summarize((BC / "multi.bc").read_bytes())
    assert [x.triple for x in m.modules] == ["x86_64-pc-linux-gnu", "nvptx64-nvidia-cuda"]
    # every module block lies inside the stream and they do not overlap
    spans = sorted((x.offset, x.offset + x.size) for x in m.modules)
    assert spans[0][1] <= spans[1][0] <= spans[1][1] <= m.size


def test_function_bodies_are_counted_not_decoded():
    s = bitcode.summarize((BC / "embed.bc").read_bytes())
    m = s.modules[0]
    assert m.function_bodies == len(m.defined_functions)
    assert 0 < m.function_bodies_size < m.size
    assert sum(m.blocks.values()) < m.size


def test_marker_section():
    (d,) = [x for x in api.dump(str(BC / "marker.o"), ["bitcode"])]
    (sec,) = d.sections
    assert sec.status == "decoded" and sec.model.summary.marker


def test_dump_text_and_json():
    rc, out, err = run_objllvm("dump", "--section", "bitcode", BC / "embed.o")
    assert rc == 0, err
    assert "x86_64-pc-linux-gnu" in out and "embed.c" in out and "LLVM19" in out
    rc, out, err = run_objllvm("dump", "--section", "bitcode", "--json", BC / "multi.bc")
    assert rc == 0, err
    import json
    doc = json.loads(out)
    (f,) = doc["files"]
    assert f["format"] == "bitcode"
    (sec,) = f["sections"]
    assert sec["kind"] == "bitcode" and len(sec["content"]["modules"]) == 2


def test_encode_is_exact():
    from objllvm.sections import registry
    for fname, member, sec in PAYLOADS:
        data = section_bytes(BC / fname, member, sec)
        c = registry.get("bitcode")
        assert c.encode(c.decode(data, None), None) == data


# -- Rust: LLVM 22 bitcode, which llvm-dis-19 cannot load ----------------------------------------------------
def rust_rlibs():
    pats = [os.path.expanduser("~/.rustup/toolchains/*/lib/rustlib/*/lib/*.rlib")]
    return sorted(p for pat in pats for p in glob.glob(pat))


def test_tiny_rlib_matches_bcanalyzer(tmp_path):
    objs = [o for o in iter_objects(str(BC / "libtinyrs.rlib"))]
    (o,) = objs
    data = o.section_by_name(".llvmbc").data()
    s = bitcode.summarize(data)
    ref = bcanalyzer_modules(data, tmp_path)
    (m,), (r,) = s.modules, ref
    assert m.producer == r["producer"] and "rust" in m.producer
    assert m.triple == r["records"]["TRIPLE"]
    assert m.source_filename == r["records"]["SOURCE_FILENAME"]
    assert sorted(g.name for g in m.defined_functions) == r["funcs"]
    assert "rust_add" in r["funcs"]
    assert sorted(g.name for g in m.defined_variables) == r["vars"]


def test_llvm_dis_19_cannot_read_rust_bitcode_but_we_can(tmp_path):
    tool = need_tool("llvm-dis-19")
    (o,) = list(iter_objects(str(BC / "libtinyrs.rlib")))
    data = o.section_by_name(".llvmbc").data()
    (tmp_path / "r.bc").write_bytes(data)
    p = subprocess.run([tool, str(tmp_path / "r.bc"), "-o", "-"], capture_output=True, text=True)
    producer = bitcode.summarize(data).modules[0].producer
    if p.returncode == 0:
        pytest.skip(f"llvm-dis-19 reads this rustc's bitcode ({producer}); the point of the test is moot")
    assert producer.startswith("LLVM2")


def test_toolchain_rlibs_are_summarized(tmp_path):
    rlibs = rust_rlibs()
    if not rlibs:
        pytest.skip("no Rust toolchain .rlib files on this machine (~/.rustup/toolchains/*/lib/rustlib/*/lib)")
    n = 0
    smallest = None
    for path in rlibs:
        for o in iter_objects(path):
            assert not isinstance(o, ObjllvmError), o
            s = o.section_by_name(".llvmbc")
            if s is None or not s.size:
                continue
            data = s.data()
            summ = bitcode.summarize(data)
            for m in summ.modules:
                assert m.triple and m.triple.startswith("x86_64"), (path, o.member)
                assert m.producer and m.producer.startswith("LLVM")
                assert all(g.name for g in m.symbols), (path, o.member)
            n += 1
            if smallest is None or len(data) < len(smallest[0]):
                smallest = (data, path, o.member)
    assert n > 0
    # the smallest toolchain module, checked in full against llvm-bcanalyzer-19
    data, path, member = smallest
    (r,) = bcanalyzer_modules(data, tmp_path)
    (m,) = bitcode.summarize(data).modules
    assert m.producer == r["producer"] and m.triple == r["records"]["TRIPLE"]
    assert m.source_filename == r["records"]["SOURCE_FILENAME"]
    assert sorted(g.name for g in m.defined_functions) == r["funcs"]
    assert sorted(g.name for g in m.defined_variables) == r["vars"]


# -- bitcode from another LLVM release found on the machine (PostgreSQL's JIT bitcode, Debian: LLVM 14) --------
def test_system_bitcode_from_other_llvm_releases(tmp_path):
    files = sorted(glob.glob("/usr/lib/postgresql/*/lib/bitcode/**/*.bc", recursive=True))
    if not files:
        pytest.skip("no PostgreSQL JIT bitcode (/usr/lib/postgresql/*/lib/bitcode) on this machine")
    producers = set()
    for f in files:
        for m in bitcode.summarize(open(f, "rb").read()).modules:
            if f.endswith(".index.bc"):          # ThinLTO combined summary indexes: no IR, no triple
                assert m.kind == "combined-index" and m.triple is None and m.function_bodies == 0, f
                continue
            assert m.kind == "module" and m.triple and m.datalayout is not None, f
            producers.add(m.producer)
    # a sample spread over the list, checked in full against both LLVM tools
    modules = [f for f in files if not f.endswith(".index.bc")]
    for f in modules[:: max(1, len(modules) // 6)][:6]:
        data = open(f, "rb").read()
        s = bitcode.summarize(data)
        d = tmp_path / os.path.basename(f)
        d.mkdir(exist_ok=True)
        for m, r in zip(s.modules, bcanalyzer_modules(data, d)):
            assert m.producer == r["producer"] and m.triple == r["records"]["TRIPLE"], f
            assert sorted(g.name for g in m.defined_functions) == r["funcs"], f
            assert sorted(g.name for g in m.defined_variables) == r["vars"], f
        for m, r in zip(s.modules, llvm_dis(data, d)):
            assert (m.triple, m.source_filename) == (r["triple"], r["source"]), f
            assert sorted(g.name for g in m.defined_functions) == r["funcs"], f
            assert sorted(g.name for g in m.defined_variables) == r["vars"], f
    assert any(p and p != "LLVM19.1.7" for p in producers)
