"""The codec index (objllvm/sections/_index.py) and the lazy registry built on it: the index says exactly what
the codec modules register; a lazily loaded registry finds the same codec for every section of every corpus
object as the fully loaded one, importing only the codecs those sections need."""
import subprocess
import sys
from types import SimpleNamespace

import pytest

from objllvm.errors import ObjllvmError
from objllvm.formats import iter_objects
from objllvm.sections import _index, registry
from objllvm.sections.registry import NAME_ONLY, Codec
from objllvm.sections.support.instrprof import ROLES

from conftest import ROOT, TESTDATA, corpus_files

INDEX = ROOT / "objllvm" / "sections" / "_index.py"
FORMATS = ("elf", "coff", "macho", "bitcode")


def test_the_index_is_what_the_codecs_register():
    """Adding a codec, or changing how one recognises its sections, without regenerating the index fails here."""
    want = registry.index_source()
    assert INDEX.read_text() == want, (
        "objllvm/sections/_index.py does not match the codecs: run scripts/gen-codec-index (and commit it)")


def test_the_codec_modules_are_the_package_modules_but_the_registry(tmp_path, monkeypatch):
    """objllvm.sections.codec_modules (the list the index is compared with) is what _modules.module_names lists for
    the package, less the registry; a new module in the directory is listed (and makes the index out of date)."""
    import objllvm.sections as pkg
    from objllvm._modules import module_names
    assert pkg.codec_modules() == [m for m in module_names(pkg, packages=False) if m != "registry"]
    assert pkg.codec_modules() == sorted(_index.MODULES) and "deplibs" in pkg.codec_modules()
    for name in ("new_codec.py", "_private.py", "not-a-name.py", "notes.txt", "registry.py"):
        (tmp_path / name).write_text("")
    (tmp_path / "pkgdir").mkdir()
    (tmp_path / "pkgdir" / "__init__.py").write_text("")
    monkeypatch.setattr(pkg, "__path__", pkg.__path__ + [str(tmp_path)])
    assert pkg.codec_modules() == sorted(_index.MODULES + ("new_codec",))
    assert pkg.codec_modules() == [m for m in module_names(pkg, packages=False) if m != "registry"]
    monkeypatch.setattr(pkg, "_claims", None)
    assert not pkg._unclaimed_by_index("elf", 1, ".comment")          # (the index no longer says all)


def test_the_index_check_script_agrees():
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen-codec-index"), "--check"], capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr


def test_every_codec_with_its_own_matcher_has_a_name_hint():
    own = {k for k, c in registry.codecs().items() if type(c).matches_name is not Codec.matches_name}
    assert own, "no codec has its own matches_name: the hints are dead code"
    missing = {k for k in own if not registry.get(k).name_hints}
    assert not missing, (f"{sorted(missing)}: a codec with its own matches_name needs name_hints (substrings "
                         f"every name it claims contains), or it is imported for every section that no type decides")
    assert all(_index.KINDS[k][7] == registry.get(k).name_hints for k in own)
    assert not [k for k, c in registry.codecs().items() if k not in own and (c.name_hints or c.hint_options)], \
        "name hints on a codec without its own matches_name mean nothing"


def _names_to_try():
    """Every section name of the corpus, every name a codec or NAME_ONLY lists, the profile and coverage names
    in each container's spelling, with and without a Mach-O segment and a COFF ``$`` suffix."""
    names = set()
    for c in registry.codecs().values():
        names.update(c.names)
    names.update(n.rstrip("*") for n, _ in NAME_ONLY)
    for common, coff in ROLES.values():
        names.update((common, coff, coff + "$M", f"__DATA,{common}", f"__LLVM_COV,{common}"))
    for n in list(names):
        names.update((n + "$M", "__DATA," + n, "__LLVM," + n, n + ".1", "x" + n))
    names.update(("sanmd_covered2", "sanmd_atomics2", "sanmd_covered65538", "sanmd_atomics", "llvm_offload_entries$OE",
                  ".llvm.offloading.x", ".llvm.offloading$a", "x,__llvm_stats", ".text", ".data", ""))
    return names


def _corpus_objects():
    for p in corpus_files():
        try:
            for o in iter_objects(str(p)):
                if not isinstance(o, ObjllvmError):
                    yield o
        except ObjllvmError:
            continue


def _admits(kind, name, options=None):
    hints, opts = _index.KINDS[kind][7:9]
    return any(h in name for h in hints) or bool(options and any(options.get(o) for o in opts))


def test_a_codec_never_claims_a_name_its_hint_does_not_admit():
    own = [c for c in registry.codecs().values() if type(c).matches_name is not Codec.matches_name]
    checked = 0
    for name in sorted(_names_to_try()):
        for fmt in FORMATS:
            for addr_size in (4, 8):
                obj = SimpleNamespace(format=fmt, addr_size=addr_size)
                for typ in (None, 1, 8, 0x6FFF4C0B):
                    s = SimpleNamespace(name=name, type=typ)
                    for c in own:
                        if c.matches_name(s, obj, {}):
                            checked += 1
                            assert _admits(c.kind, name), f"{c.kind} claims {name!r} ({fmt}): widen its name_hints"
    for obj in _corpus_objects():
        for s in obj.sections:
            for c in own:
                if c.matches_name(s, obj, {}):
                    checked += 1
                    assert _admits(c.kind, s.name), f"{c.kind} claims {s.name!r} of {obj.path}: widen its name_hints"
    assert checked > 50
    # a name given in the options (a PC section layout) is admitted by the option
    pc = registry.get("pc-sections")
    opts = {"pc_section": ["my_pcs:insn"]}
    s, obj = SimpleNamespace(name="my_pcs", type=1), SimpleNamespace(format="elf", addr_size=8)
    assert pc.matches_name(s, obj, opts) and not _admits("pc-sections", "my_pcs") and _admits("pc-sections", "my_pcs", opts)


def _fresh(m):
    """The registry as a fresh process has it (nothing loaded; ``m`` a MonkeyPatch), a module "imported" by
    registering its codecs again; returns the list of the modules loaded, in order."""
    by_module = {}
    for c in registry.codecs().values():
        by_module.setdefault(type(c).__module__.rsplit(".", 1)[1], []).append(type(c))
    for name, value in (("_CODECS", {}), ("_BY_TYPE", {}), ("_loaded", False), ("_index", None), ("_pending", []),
                        ("_ordered", None), ("_modules_loaded", set())):
        m.setattr(registry, name, value)
    loaded = []

    def load(mod):
        if mod not in registry._modules_loaded:
            registry._modules_loaded.add(mod)
            loaded.append(mod)
            for cls in by_module[mod]:
                registry.register(cls)
    m.setattr(registry, "_load_module", load)
    return loaded


@pytest.fixture
def lazy(monkeypatch):
    return _fresh(monkeypatch)


def _kinds(obj, options=None):
    return [(s.index, getattr(registry.find_codec(s, obj, options), "kind", None)) for s in obj.sections]


def test_lazy_finds_what_eager_finds_on_every_corpus_object(monkeypatch):
    objs = list(_corpus_objects())
    assert len(objs) > 100
    eager = [_kinds(o) for o in objs]
    fewer = 0
    for o, want in zip(objs, eager):
        with monkeypatch.context() as m:
            loaded = _fresh(m)
            assert _kinds(o) == want, o.path
            fewer += len(loaded) < len(_index.MODULES)
    assert fewer > len(objs) // 2, "the lazy registry loads every codec for most objects"


def test_a_small_object_loads_only_its_codecs(lazy):
    obj = next(iter_objects(str(TESTDATA / "elf" / "deplibs.o")))
    assert [k for _, k in _kinds(obj) if k] == ["deplibs", "addrsig"]
    assert sorted(lazy) == ["addrsig", "deplibs"]
    assert registry.kinds() == sorted(_index.KINDS) and sorted(lazy) == ["addrsig", "deplibs"]


def test_a_pc_section_named_in_the_options_loads_its_codec(lazy):
    s, obj = SimpleNamespace(name="my_pcs", type=1, index=1), SimpleNamespace(format="elf", addr_size=8)
    assert registry.find_codec(s, obj, {}) is None and "pc_sections" not in lazy
    assert registry.find_codec(s, obj, {"pc_section": ["my_pcs:insn"]}).kind == "pc-sections"


def test_get_loads_one_module_and_unknown_kinds_name_every_kind(lazy):
    assert registry.get("deplibs").kind == "deplibs" and lazy == ["deplibs"]
    with pytest.raises(ObjllvmError, match="unknown section kind 'nope' \\(known: addrsig, asan-globals, bb-addr-map, "):
        registry.get("nope")


def _options(add):
    import argparse
    p = argparse.ArgumentParser(prog="x")
    add(p)
    return [(a.option_strings, a.dest, a.default, a.type, a.choices, a.nargs, a.help, a.metavar, type(a).__name__)
            for a in p._actions] + [(g.title, [a.dest for a in g._group_actions]) for g in p._action_groups]


def test_the_dump_options_come_from_the_index_as_the_codecs_give_them(lazy):
    got = _options(registry.add_codec_arguments)
    assert lazy == [], "adding the codecs' options imported a codec"
    assert "--pretty-pgo" in str(got) and "--pc-width" in str(got)
    want = _options(lambda p: [c.add_arguments(p) for c in registry.codecs().values()])
    assert got == want


def test_a_codec_whose_options_are_not_plain_values_is_imported_to_add_them(lazy, monkeypatch):
    kinds = dict(_index.KINDS)
    kinds["deplibs"] = kinds["deplibs"][:6] + (True,)
    monkeypatch.setattr(_index, "KINDS", kinds)
    _options(registry.add_codec_arguments)
    assert lazy == ["deplibs"]


def test_codecs_in_the_order_of_a_full_load(lazy):
    registry.get("xray-fn-idx")
    registry.get("addrsig")
    assert list(registry.codecs()) == list(_index.KINDS)


def test_a_codec_module_missing_from_the_index_loads_every_codec(lazy, monkeypatch):
    monkeypatch.setattr(_index, "MODULES", _index.MODULES[1:])
    obj = next(iter_objects(str(TESTDATA / "elf" / "deplibs.o")))
    _kinds(obj)
    assert sorted(lazy) == sorted(_index.MODULES + ("addrsig",))


def test_threads_loading_codecs_at_once_find_what_a_full_load_finds():
    """A fresh process, eight threads finding the codecs of every corpus object at once (each import in one
    thread, the others wait for it), then the same after every codec is loaded."""
    code = """if True:
        import sys, threading
        from objllvm.formats import iter_objects
        from objllvm.errors import ObjllvmError
        from objllvm.sections import registry
        objs = [o for p in sys.argv[1:] for o in iter_objects(p) if not isinstance(o, ObjllvmError)]
        kinds = lambda: [[getattr(registry.find_codec(s, o), "kind", None) for s in o.sections] for o in objs]
        out = [None] * 8
        def work(i):
            out[i] = kinds()
        ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        [t.start() for t in ts]
        [t.join() for t in ts]
        registry.codecs()
        want = kinds()
        print(all(o == want for o in out), sum(k is not None for ks in want for k in ks))
    """
    files = [str(p) for p in corpus_files() if p.suffix == ".o"][:60]
    p = subprocess.run([sys.executable, "-c", code, *files], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    same, found = p.stdout.split()
    assert same == "True" and int(found) > 30
