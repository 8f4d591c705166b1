"""Start-up and fast paths: a command imports only its own module; dump --json of a big bb-addr-map without a
dict per block (RawJSON); function names without a Symbol per symbol.  Each fast path gives exactly what the
plain one gives."""
import io
import json
import subprocess
import sys

import pytest

from objllvm import api
from objllvm import render
from objllvm.sections import registry
from objllvm.sections import bb_addr_map as M
from objllvm.sections.support import bb_views
from objllvm.formats import open_object
from objllvm.errors import ObjllvmError
from objllvm.sections.registry import SectionContext

from conftest import ROOT, TESTDATA, corpus_files, run_objllvm

BB = TESTDATA / "bb-addr-map"


def _modules_after(code):
    out = subprocess.run([sys.executable, "-c", "import sys; " + code + "; print(sorted(sys.modules))"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return set(eval(out.stdout.strip().splitlines()[-1]))


def _commands(mods):
    return sorted(m.rsplit(".", 1)[1] for m in mods if m.startswith("objllvm.commands.") and m != "objllvm.commands._common")


def test_a_command_imports_only_its_module():
    mods = _modules_after("from objllvm import cli; cli.build_parser(['--debug', 'rewrite', 'in.o', '-o', 'x'])")
    assert _commands(mods) == ["rewrite"]
    assert "objllvm.sections.registry" not in mods and not any(m.startswith("objllvm.sections") for m in mods)
    mods = _modules_after("from objllvm import cli; cli.build_parser(['perf-map', 'x'])")
    assert _commands(mods) == ["perf_map"]


def test_dump_parser_imports_no_codec():
    """The codecs' options come from the codec index (tests/test_codec_index.py)."""
    for code in ("from objllvm import cli; cli.build_parser(['dump', 'x.o'])", "from objllvm import cli; "
                 "cli.parse_fast(['dump', 'x.o'])"):
        mods = _modules_after(code)
        codecs = {m for m in mods if m.startswith("objllvm.sections.")} - {"objllvm.sections.registry",
                                                                           "objllvm.sections._index"}
        assert _commands(mods) == ["dump"] and not codecs and "objllvm.bitcode" not in mods


@pytest.mark.parametrize("argv", [[], ["--help"], ["--help", "dump"], ["-h", "dump"], ["no-such", "x"], ["_common"],
                                  ["-", "x"]])
def test_without_a_command_word_every_command_is_there(argv):
    from objllvm import cli
    names = lambda p: sorted(p._subparsers._group_actions[0].choices)   # noqa: E731
    assert names(cli.build_parser(argv)) == names(cli.build_parser()) and len(names(cli.build_parser())) > 3


def test_help_and_unknown_commands_list_every_command():
    rc, out, err = run_objllvm("--help", "dump")
    assert rc == 0 and "rewrite" in out and "perf-map" in out and "sections" in out
    rc, out, err = run_objllvm("no-such-command", "x")
    assert rc == 2 and "invalid choice" in err and "rewrite" in err and "dump" in err
    rc, out, err = run_objllvm("dump", "--help")
    assert rc == 0 and "--pretty-pgo" in out and "--section" in out


# -- RawJSON ---------------------------------------------------------------------------------------
def test_an_indented_document_with_raw_parts_is_encoded_once(monkeypatch):
    """The compact size of a document with RawJSON parts is known from its skeleton and the parts: the indented
    text is written without making the whole compact text again to measure it."""
    doc = {"files": [{"name": "a.o", "content": render.RawJSON('{"x":[1,2,"y"]}', lambda: {"x": [1, 2, "y"]})}]}
    real, whole = render.dumps_plain, []

    def counting(data, indent=None, default=None):
        if isinstance(data, dict) and "files" in data and indent is None:
            whole.append(data)
        return real(data, indent, default)
    monkeypatch.setattr(render, "dumps_plain", counting)
    out = io.StringIO()
    render.render_json(doc, out, raw=True)
    assert out.getvalue() == json.dumps({"files": [{"name": "a.o", "content": {"x": [1, 2, "y"]}}]}, indent=2) + "\n"
    assert len(whole) == 1, "the compact text of the whole document was made twice"


def test_render_json_with_raw_parts_is_the_same(monkeypatch):
    value = {"a": [1, 2, {"b": None}], "s": "x\\y\n\0", "i": [-(1 << 63), (1 << 64) - 1]}

    def raw(v, n=[0]):
        n[0] += 1
        text = json.dumps(v, separators=(",", ":"))
        return render.RawJSON(text.encode() if n[0] % 2 else text, lambda: v)
    rest = {"u": "\u00e9", "t": (1, 2), "h": b"\x01", "fl": 0.5, "big": 1 << 70, "z": "\0x"}
    simple = {"s": "caf\u00e9", "b": [True, False, None, -(1 << 70), (1 << 64) - 1], "t": ("a", 1), "e": {}}
    cases = [({"k": raw(value), **rest}, {"k": value, **rest}),
             ({"k": [raw([]), raw({"q": 1})], "n": 1}, {"k": [[], {"q": 1}], "n": 1}),
             ({"k": raw(value), **simple}, {"k": value, **simple}),
             ({"k": raw(value), "d": "a\x7f"}, {"k": value, "d": "a\x7f"}),
             ({"k": raw(value), 1: 2, None: 3}, {"k": value, 1: 2, None: 3}),
             ({"k": raw(value), "l": list(range(20000))}, {"k": value, "l": list(range(20000))})]
    for doc, plain in cases:
        for indent in (True, False):
            for big in (8 << 20, 10):
                monkeypatch.setattr(render, "BIG_JSON", big)
                a, b = io.StringIO(), io.StringIO()
                render.render_json(doc, a, indent=indent, raw=True)
                render.render_json(plain, b, indent=indent)
                assert a.getvalue() == b.getvalue()


def _elf_corpus_objects():
    """(path, object) for every corpus file that is one ELF object (archives and other formats are skipped;
    only objllvm's own error type counts as 'not one object')."""
    for p in corpus_files():
        try:
            obj = open_object(str(p))
        except ObjllvmError:
            continue
        if obj.format == "elf":
            yield p, obj


def _bb_sections():
    return [(p, obj, s) for p, obj in _elf_corpus_objects() for s in obj.sections if s.type in M.TYPE_NAMES]


@pytest.mark.parametrize("batch", [1 << 14, 1, 5])
def test_bb_to_json_is_to_dict_as_json(monkeypatch, batch):
    monkeypatch.setattr(bb_views, "_JSON_FUNCTIONS", batch)
    n = 0
    for p, obj, s in _bb_sections():
        for pretty in (False, True):
            d = registry.decode_section(obj, s, {"pretty_pgo": pretty})
            if d.model is None:
                continue
            text = M.map_to_json(d.model)
            if pretty:
                assert text is None
                continue
            if text is not None:
                n += 1
                assert text.decode() == json.dumps(M.BBAddrMapCodec().to_dict(d.model), separators=(",", ":")), p
    assert n >= 3


def test_bb_to_json_is_to_dict_as_json_after_edits():
    """The column writer writes what json.dumps writes of to_dict, for names that need escapes, blocks made into
    objects, addresses past 64 bits; it declines a version json would spell differently (a bool)."""
    obj = open_object(str(BB / "clang19-labels.exe"))
    s = next(x for x in obj.sections if x.type in M.TYPE_NAMES)
    ctx = SectionContext.for_section(obj, s)

    def same(m):
        assert M.map_to_json(m).decode() == json.dumps(M.BBAddrMapCodec().to_dict(m), separators=(",", ":"))
    for change in (lambda m: setattr(m.functions[0], "name", "caf\u00e9"),
                   lambda m: setattr(m.functions[0], "name", "a\x7f"),
                   lambda m: m.functions[0].blocks,
                   lambda m: setattr(m.functions[0].ranges[0], "base_address", (1 << 64) - 1)):
        m = M.decode_map(s.data(), ctx)
        change(m)
        same(m)
    for names in (['w%s"\\ith'], [None], ["a\0b"], [None, "x\x01y"], ["\\u0000"], ["", "\t"]):
        m = M.decode_map(s.data(), ctx)
        for f, name in zip(m.functions, names):
            f.name = name
        m.functions[-1].version = 3
        same(m)
    m.functions[0].version = None
    same(m)
    m.functions[0].version = True
    assert M.map_to_json(m) is None


def test_dump_json_cli_same_as_api(tmp_path):
    for name in ("clang19-labels.exe", "yaml-versions.o", "mc-v5.o"):
        rc, out, _ = run_objllvm("dump", "--json", BB / name)
        o = io.StringIO()
        render.render_json(api.dump_to_dict(api.dump(str(BB / name))), o)
        assert out == o.getvalue()


# -- symbols -------------------------------------------------------------------------------------------
def _slow_names(obj, shndx, thumb):
    names = {}
    for s in obj.symbols:
        if s.type != 2 or (shndx is not None and s.shndx != shndx):
            continue
        v = s.value & ~1 if thumb else s.value
        names.setdefault(v, s.name)
    return names


def test_function_names_same_as_from_symbols():
    n = 0
    for p, obj in _elf_corpus_objects():
        for shndx in (None, 1, 2):
            for thumb in (False, True):
                fresh = open_object(str(p))
                try:
                    want = _slow_names(obj, shndx, thumb)
                except Exception as exc:
                    with pytest.raises(type(exc)):
                        fresh.function_names(shndx, thumb)
                    continue
                assert fresh.function_names(shndx, thumb) == want, p
                n += bool(want)
    assert n > 10


def test_section_context_reads_symbols_when_asked():
    obj = open_object(str(BB / "clang19-labels.exe"))
    s = next(x for x in obj.sections if x.type in M.TYPE_NAMES)
    ctx = SectionContext.for_section(obj, s)
    assert ctx.symbols_pending and obj._symbols is None
    assert ctx.symbols is obj.symbols and not ctx.symbols_pending
    assert SectionContext().symbols == [] and not SectionContext().symbols_pending
    assert SectionContext(symbols=[1]).symbols == [1]
    c2 = SectionContext.for_section(obj, s)
    c2.symbols = []
    assert c2.symbols == [] and not c2.symbols_pending
    assert SectionContext.for_section(obj, s) == ctx


def test_function_names_bad_name_offset_same_as_symbols(tmp_path):
    """A name offset past the string table costs that name (symbol_name_errors says why), not the table."""
    p = BB / "clang19-labels.exe"
    obj = open_object(str(p))
    symtab = next(s for s in obj.sections if s.type == 2)
    data = bytearray(p.read_bytes())
    k = len(obj.symbols) - 1                                   # the last symbol: a name offset past the table
    data[symtab.offset + 24 * k:symtab.offset + 24 * k + 4] = (0xFFFFFF).to_bytes(4, "little")
    bad = tmp_path / "bad.exe"
    bad.write_bytes(bytes(data))
    o = open_object(str(bad))
    syms = o.symbols
    assert syms[k].name == "" and "past the end of the string table" in o.symbol_name_errors[symtab.index][k]
    want = {}
    for s in syms:
        if s.type == 2:
            want.setdefault(s.value, s.name)
    assert open_object(str(bad)).function_names() == want


def test_unreadable_symbol_name_costs_the_name_not_the_sections(tmp_path):
    """Symbols are read when a codec asks; a bad name offset is a warning of the section that names that
    symbol (addrsig here), every section still decodes."""
    p = TESTDATA / "elf" / "deplibs.o"
    obj = open_object(str(p))
    symtab = next(s for s in obj.sections if s.type == 2)
    data = bytearray(p.read_bytes())
    k = next(x.index for x in obj.symbols if x.name == "twice")    # named by .llvm_addrsig
    data[symtab.offset + 24 * k:symtab.offset + 24 * k + 4] = (0xFFFFFF).to_bytes(4, "little")
    bad = tmp_path / "bad.o"
    bad.write_bytes(bytes(data))
    items = api.dump(str(bad))
    assert items[0].sections and all(d.status == "decoded" for d in items[0].sections)
    warned = [d for d in items[0].sections if d.warnings]
    assert [d.section.name for d in warned] == [".llvm_addrsig"]
    assert all("cannot read its name" in str(w) and "past the end of the string table" in str(w)
               for w in warned[0].warnings)


def test_function_names_again_and_again_same_as_from_symbols():
    n = 0
    for p, obj in _elf_corpus_objects():
        try:
            obj.symbols
        except ObjllvmError:
            continue
        again = open_object(str(p))
        for _ in range(2):
            for shndx in (None, 1, 2, 3, 4):
                for thumb in (False, True):
                    assert again.function_names(shndx, thumb) == _slow_names(obj, shndx, thumb), p
                    n += 1
    assert n > 100


def test_symtab_found_once_and_still_right():
    """The symbol table section comes from the header table once; it is the first SHT_SYMTAB, else the first
    SHT_DYNSYM, of the sections as a walk over them would find it (files with neither give None)."""
    n = none = 0
    for p, obj in _elf_corpus_objects():
        s = obj._symtab_section()
        assert s is obj._symtab_section(), p
        again = open_object(str(p))
        want = next((x for t in (2, 11) for x in again.sections if x.type == t), None)
        if want is None:
            assert s is None, p
            none += 1
        else:
            assert (s.index, s.type, s.name) == (want.index, want.type, want.name), p
        n += 1
    assert n > 50 and none >= 1


def test_the_installed_command_is_the_script_without_re():
    """pyproject installs bin/objllvm (pip writes the interpreter into its `#!python` line), not a
    [project.scripts] entry point: the script pip writes for one imports re (docs/benchmarks.md)."""
    import tomllib
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert meta["tool"]["setuptools"]["script-files"] == ["bin/objllvm"]
    assert "objllvm" not in meta["project"].get("scripts", {})
    script = ROOT / "bin" / "objllvm"
    assert script.read_text().startswith("#!python\n")


@pytest.mark.parametrize("how", ["script", "module"])
def test_no_collection_while_the_command_imports(how):
    """bin/objllvm and `python -m objllvm` raise the collector's threshold before importing objllvm: no
    collection runs in a small dump (while its modules load, nor after)."""
    import os
    script = ROOT / "bin" / "objllvm"
    code = ("import gc, sys; sys.argv = ['objllvm', 'dump', %r]; main = compile(open(%r).read(), 'objllvm', "
            "'exec'); gc.collect(); gc.callbacks.append(lambda ph, info: ph == 'start' and sys.stderr.write("
            "'collection %%d with %%d objllvm modules loaded\\n' %% (info['generation'], "
            "sum(m.startswith('objllvm') for m in sys.modules)))); "
            % (str(TESTDATA / "elf" / "deplibs.o"), str(script)))
    code += "exec(main, {'__name__': '__main__'})" if how == "script" else "import objllvm.__main__"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
    assert p.returncode == 0 and "deplibs" in p.stdout, p.stderr
    assert "collection" not in p.stderr, p.stderr


@pytest.mark.parametrize("argv", [["dump"], ["dump", "--section", "deplibs"], ["sections"]])
def test_a_small_dump_imports_no_argparse_re_or_collections(argv):
    """What the installed command imports for a plain command line on a small object (without site, whose
    .pth files may import anything): none of the modules that made most of its start-up time."""
    import os
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-S", "-X", "importtime", str(ROOT / "bin" / "objllvm"), *argv,
                        str(TESTDATA / "elf" / "deplibs.o")], capture_output=True, text=True, env=env, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    mods = {ln.rsplit("|", 1)[1].strip() for ln in p.stderr.splitlines() if ln.startswith("import time:")}
    assert "deplibs" in p.stdout
    # (`sections` lists from the codec index: neither the registry nor the codec; `dump` decodes with them)
    assert ("objllvm.sections.deplibs" in mods) == (argv[0] == "dump"), sorted(mods)
    assert ("objllvm.sections.registry" in mods) == (argv[0] == "dump"), sorted(mods)
    assert not mods & {"argparse", "re", "enum", "collections", "functools", "gettext", "locale", "json",
                       "threading", "objllvm.sections.bb_addr_map", "objllvm.sections.coverage_map",
                       "__future__", "objllvm._version"}, sorted(mods)


@pytest.mark.parametrize("json", [False, True])
def test_a_small_bb_addr_map_dump_imports_no_collections_or_future(json):
    """`objllvm dump` of a small object with a basic-block address map (clang-19, PGO analysis): the bb-addr-map
    modules are imported, and neither ``array`` (which imports collections), ``__future__`` nor re or json."""
    import os
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-S", "-X", "importtime", str(ROOT / "bin" / "objllvm"), "dump",
                        *(["--json"] if json else []), str(BB / "clang19-pgo-profile.exe")],
                       capture_output=True, text=True, env=env, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    mods = {ln.rsplit("|", 1)[1].strip() for ln in p.stderr.splitlines() if ln.startswith("import time:")}
    assert "objllvm.sections.bb_addr_map" in mods and "objllvm.sections.support.bb_fast" in mods, sorted(mods)
    assert not mods & {"array", "collections", "collections.abc", "functools", "enum", "re", "json", "argparse",
                       "__future__", "signal", "threading"}, sorted(mods)


def test_a_plain_extract_imports_no_summary_reader_or_offloading_codec(tmp_path):
    """`objllvm extract` of an object with embedded bitcode and a command line: the bitcode is written, and
    neither the bitcode summary reader (with its bitstream reader) nor the offloading codec (with the registry
    it brings) is imported for it; they are for an object with an offloading section."""
    import os
    env = dict(os.environ, PYTHONPATH=str(ROOT))

    def mods_of(src, out):
        p = subprocess.run([sys.executable, "-S", "-X", "importtime", str(ROOT / "bin" / "objllvm"), "extract",
                            str(src), "-o", str(out)], capture_output=True, text=True, env=env, cwd=ROOT)
        assert p.returncode == 0, p.stderr
        return {ln.rsplit("|", 1)[1].strip() for ln in p.stderr.splitlines() if ln.startswith("import time:")}

    mods = mods_of(TESTDATA / "bitcode" / "embed.o", tmp_path / "a")
    assert any(f.suffix == ".bc" for f in (tmp_path / "a").iterdir())
    assert not mods & {"objllvm.sections.support.bitcode_summary", "objllvm.formats.bitstream",
                       "objllvm.sections.offloading"}
    # nor the command line's codec and the registry (the arguments split as the codec splits them), nor
    # __future__ and objllvm._modules
    assert not mods & {"objllvm.sections.llvmcmd", "objllvm.sections.registry", "objllvm.sections",
                       "__future__", "objllvm._modules"}, sorted(mods)
    from objllvm.formats import open_object
    from objllvm.sections.llvmcmd import LlvmcmdCodec
    obj = open_object(str(TESTDATA / "bitcode" / "embed.o"))
    cmd = next(s for s in obj.sections if s.name == ".llvmcmd")
    args = LlvmcmdCodec().decode(bytes(cmd.data()), None).arguments
    written = next(f for f in (tmp_path / "a").iterdir() if f.name.endswith("llvmcmd.txt"))
    assert args and written.read_text("utf-8", "surrogateescape") == "\n".join(args) + "\n"
    mods = mods_of(TESTDATA / "bitcode" / "omp.o", tmp_path / "b")
    assert "objllvm.sections.offloading" in mods


def test_a_plain_rewrite_imports_no_renderer_or_codec(tmp_path):
    """`objllvm rewrite --strip-llvm` prints nothing: neither the renderer nor any codec is imported for it (the
    operation asks the codec index which kinds exist); `--dry-run`, which prints, imports the renderer."""
    import os
    env = dict(os.environ, PYTHONPATH=str(ROOT))

    def mods_of(*extra):
        p = subprocess.run([sys.executable, "-S", "-X", "importtime", str(ROOT / "bin" / "objllvm"), "rewrite",
                            str(TESTDATA / "elf" / "deplibs.o"), "--strip-llvm", *extra], capture_output=True,
                           text=True, env=env, cwd=ROOT)
        assert p.returncode == 0, p.stderr
        return {ln.rsplit("|", 1)[1].strip() for ln in p.stderr.splitlines() if ln.startswith("import time:")}

    mods = mods_of("-o", str(tmp_path / "out.o"))
    assert (tmp_path / "out.o").stat().st_size > 0
    assert "objllvm.render" not in mods and not {m for m in mods if m.startswith("objllvm.sections.")} - {
        "objllvm.sections._index"}, sorted(mods)
    # written through an unnamed file, which needs no SIGTERM handler: no signal module (nor the enum it brings)
    from objllvm import atomicio
    fd = atomicio._create_unnamed(str(tmp_path))
    if fd is not None:
        os.close(fd)
        assert not mods & {"signal", "enum"}, sorted(mods)
    assert "objllvm.render" in mods_of("--dry-run")


@pytest.mark.parametrize("src, name", [("elf/deplibs.o", None), ("rewrite/tiny-arm32.o", ".ARM.attributes"),
                                       ("llvm22/llvm-stats.o", ".llvm_stats"), ("llvm22/stack-sizes.o", ".stack_sizes"),
                                       ("elf/deplibs.o", ".note.cov-stack")])
def test_strip_llvm_asks_the_registry_only_for_sections_a_codec_may_claim(tmp_path, src, name):
    """`rewrite --strip-llvm` of an object whose unallocated sections are LLVM's own types or plain ones (.comment,
    .note.GNU-stack, .ARM.attributes) answers from the codec index alone (objllvm.sections.unclaimed): neither the
    registry nor a codec is imported, nor the operations that edit contents (objllvm.rewrite.operations: a removal
    is in objllvm.rewrite.removal), and they are kept.  A section of a plain type that a codec claims by its name
    alone (.stack_sizes; .llvm_stats, by a codec with its own matcher) is told by the index too
    (objllvm.sections.claimed_in_elf), and removed.  A name that a codec's hints admit but the index cannot decide
    (.note.GNU-stack renamed .note.cov-stack: the coverage and profile codecs' hint "cov") is asked of the registry,
    and kept."""
    import os
    from objllvm.formats.elf import ElfFile
    path = TESTDATA / src
    if name == ".note.cov-stack":
        data = path.read_bytes()
        assert data.count(b".note.GNU-stack\0") == 1
        path = tmp_path / "in.o"
        path.write_bytes(data.replace(b".note.GNU-stack\0", name.encode() + b"\0"))
    out = tmp_path / "out.o"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-S", "-X", "importtime", str(ROOT / "bin" / "objllvm"), "rewrite", str(path),
                        "--strip-llvm", "-o", str(out)], capture_output=True, text=True, env=env, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    mods = {ln.rsplit("|", 1)[1].strip() for ln in p.stderr.splitlines() if ln.startswith("import time:")}
    before = ElfFile(path.read_bytes(), src)
    after = [s.name for s in ElfFile(out.read_bytes(), "out.o").sections]
    kept = [s.name for s in before.sections if s.flags & 2 or not before.sections.index(s)]
    assert set(kept) <= set(after) and len(after) < len(before.sections)
    assert "objllvm.rewrite.removal" in mods and "objllvm.rewrite.operations" not in mods, sorted(mods)
    codecs = {m for m in mods if m.startswith("objllvm.sections.") and m != "objllvm.sections._index"}
    if name == ".note.cov-stack":
        assert {"objllvm.sections.registry", "objllvm.sections.coverage_map", "objllvm.sections.instr_profile"} \
            <= codecs, sorted(mods)
        assert name in after and ".deplibs" not in after
        return
    assert "objllvm.sections._index" in mods and not codecs, sorted(mods)
    if name is None:
        assert not mods & {"__future__", "objllvm._version"}, sorted(mods)
        assert ".note.GNU-stack" in after and ".deplibs" not in after
        assert ".llvm_addrsig" not in after
    elif name == ".ARM.attributes":
        assert name in after
    else:
        assert name in [s.name for s in before.sections] and name not in after


def test_unclaimed_is_what_find_codec_says():
    """objllvm.sections.unclaimed (the codec index alone) says "no codec" only where registry.find_codec finds
    none: every section of the corpus's ELF files, and made-up ones (every name the index lists, names with each
    codec's name hint, plain names) under every type the codecs claim and plain ones; it does say so for plain
    sections; and it answers nothing (False) when the index is out of date or once the registry is imported."""
    import objllvm.sections as pkg
    from objllvm.formats.base import Section
    from objllvm.sections import _index
    by_index = pkg._unclaimed_by_index
    pkg._claims = None
    said = checked = 0
    for path, obj in _elf_corpus_objects():
        for s in obj.sections:
            if by_index(obj.format, s.type, s.name):
                said += 1
                assert registry.find_codec(s, obj, None) is None, (path, s.name)
            checked += 1
    obj = open_object(str(TESTDATA / "elf" / "deplibs.o"))
    names = {n for e in _index.KINDS.values() for n in e[2]} | {".comment", ".debug_info", ".text", ""}
    names |= {f".x{h}y" for e in _index.KINDS.values() for h in e[7] or ()}
    types = {t for e in _index.KINDS.values() for t in e[1]} | {1, 7, 0x70000001}
    for name in sorted(names):
        for t in sorted(types):
            sec = Section(1, name, t, 0, 0, 0, 0, 0, 0, 1, 0, _data=b"")
            if by_index("elf", t, name):
                said += 1
                assert registry.find_codec(sec, obj, None) is None, (name, t)
    assert said > 100 and checked > 1000
    assert by_index("elf", 1, ".comment") and by_index("elf", 7, ".note.GNU-stack") and by_index("elf", 1, "")
    assert not by_index("elf", 1, ".stack_sizes") and not by_index("elf", 1, ".llvm_stats")
    assert not pkg.unclaimed("elf", 1, ".comment")           # (this process has imported the registry)
    try:
        pkg._claims = None
        _index.MODULES, saved = _index.MODULES[1:], _index.MODULES
        assert not by_index("elf", 1, ".comment")
    finally:
        _index.MODULES = saved
        pkg._claims = None


_LISTING_DRIVER = r"""
import json, os, sys
from objllvm.commands.sections import _listed_by_index
from objllvm.formats import iter_objects
out = {}
for path in sys.argv[1:]:
    r, w = os.pipe()
    if os.fork() == 0:          # (a fresh process each: the registry, once imported, turns the index off)
        os.close(r)
        got = []
        for o in iter_objects(path):
            if not isinstance(o, Exception):
                got.append([o.label, _listed_by_index(o), "objllvm.sections.registry" in sys.modules])
        os.write(w, json.dumps(got).encode())
        os._exit(0)
    os.close(w)
    chunks = []
    while True:
        b = os.read(r, 1 << 16)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    os.wait()
    out[path] = json.loads(b"".join(chunks))
print(json.dumps(out))
"""


def test_sections_listed_by_the_codec_index_as_the_registry_lists_them():
    """`objllvm sections` lists an ELF object's LLVM sections from the codec index alone where it can tell (each
    section unclaimed, or claimed by one codec by its type): on every ELF file of the corpus the listing is the one
    the registry gives (api.llvm_sections and api.section_info, with the notes), it is taken for most of them, and
    without importing the registry; a small `sections` run imports neither the registry nor any codec."""
    import os
    from objllvm.commands.sections import _note
    from objllvm.formats import iter_objects
    paths = [str(p) for p in corpus_files() if p.read_bytes()[:4] == b"\x7fELF"]
    assert len(paths) > 100
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-c", _LISTING_DRIVER, *paths], capture_output=True, text=True, env=env,
                       cwd=ROOT)
    assert p.returncode == 0, p.stderr
    listed = json.loads(p.stdout)
    taken = 0
    for path in paths:
        objs = [o for o in iter_objects(path) if not isinstance(o, Exception)]
        assert [x[0] for x in listed[path]] == [o.label for o in objs]
        for o, (_label, infos, registry_loaded) in zip(objs, listed[path]):
            if infos is None:
                continue
            taken += 1
            assert not registry_loaded, o.label
            secs = api.llvm_sections(o)
            want = [api.section_info(s, o) for s in secs]
            for s, i in zip(secs, want):
                i["note"] = _note(s, o, i)
            assert infos == want, o.label
    assert taken > 0.6 * len(paths), (taken, len(paths))
    q = subprocess.run([sys.executable, "-S", "-X", "importtime", str(ROOT / "bin" / "objllvm"), "sections",
                        str(TESTDATA / "elf" / "deplibs.o")], capture_output=True, text=True, env=env, cwd=ROOT)
    assert q.returncode == 0 and "deplibs" in q.stdout, q.stderr
    mods = {ln.rsplit("|", 1)[1].strip() for ln in q.stderr.splitlines() if ln.startswith("import time:")}
    assert "objllvm.sections.registry" not in mods and not any(m.endswith(".deplibs") for m in mods), sorted(mods)
