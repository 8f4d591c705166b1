"""The package's layers, checked from its source: every import of every module (inside functions too) is read
from the syntax tree, and no module imports a higher layer, no container imports a codec, and no import cycle
exists between modules.  docs/architecture.md draws the same layers."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "objllvm"

# The layers, lowest first: a module may import its own layer and the ones below.
LAYERS = [
    ("base", ("objllvm._version", "objllvm.errors", "objllvm._model", "objllvm._modules", "objllvm.binary",
              "objllvm.atomicio", "objllvm.render")),
    ("formats", ("objllvm.formats",)),
    ("sections", ("objllvm.sections",)),
    ("jobs", ("objllvm.bitcode", "objllvm.rewrite", "objllvm.perf", "objllvm.audit")),
    ("api", ("objllvm.api",)),
    ("commands", ("objllvm.commands", "objllvm.cli", "objllvm.__main__", "objllvm")),
]


def layer_of(mod: str) -> int:
    best, best_len = None, -1
    for rank, (_name, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            if (mod == p or mod.startswith(p + ".")) and len(p) > best_len:
                best, best_len = rank, len(p)
    assert best is not None, f"{mod} is in no layer: add it to LAYERS (and to docs/architecture.md)"
    return best


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict:
    return {module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def imports_of(mod: str, path: Path, known: dict) -> set:
    """The objllvm modules ``mod`` imports anywhere in its file (a name imported from a package counts as
    the submodule when there is one)."""
    is_pkg = path.name == "__init__.py"
    package = mod if is_pkg else mod.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "objllvm":
                    out.add(a.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "objllvm":
                continue
            subs = [f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in known]
            out.update(subs)
            if len(subs) < len(node.names):
                out.add(target)
    return {m for m in out if m != mod}


def graph() -> dict:
    known = modules()
    return {m: imports_of(m, p, known) for m, p in known.items()}


def test_every_module_is_in_a_layer():
    for m in modules():
        layer_of(m)


def test_no_upward_import():
    bad = []
    for m, deps in graph().items():
        for d in deps:
            if layer_of(d) > layer_of(m):
                bad.append(f"{m} ({LAYERS[layer_of(m)][0]}) imports {d} ({LAYERS[layer_of(d)][0]})")
    assert not bad, "\n".join(sorted(bad))


def test_containers_never_import_codecs():
    bad = [f"{m} imports {d}" for m, deps in graph().items() if m.startswith("objllvm.formats")
           for d in deps if d.startswith("objllvm.sections")]
    assert not bad, bad


def find_cycle(g: dict):
    """One import cycle of ``g`` as a list of modules, or None (iterative depth-first search)."""
    state = {}
    for start in sorted(g):
        if start in state:
            continue
        stack = [(start, iter(sorted(g[start])))]
        path = [start]
        state[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                path.pop()
                state[node] = 2
                continue
            if nxt not in g:
                continue
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append((nxt, iter(sorted(g[nxt]))))
    return None


def package_of(m: str) -> str:
    return m if (PKG.parent / m.replace(".", "/") / "__init__.py").exists() else m.rpartition(".")[0]


def test_no_import_cycle():
    """No cycle between modules, counting imports inside functions.  A package's ``__init__`` re-exporting its
    own submodules is not a cycle with them (the submodule importing a sibling goes through the package name
    only when it names it), so edges from a submodule to its own package are left out."""
    g = graph()
    g = {m: {d for d in deps if not (package_of(m) == d or m.startswith(d + "."))} for m, deps in g.items()}
    cycle = find_cycle(g)
    assert cycle is None, " -> ".join(cycle)


def test_the_checker_finds_cycles_and_upward_imports():
    """The checks above can fail: a made-up graph with a cycle is caught, and a made-up upward import is."""
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert layer_of("objllvm.formats.elf") < layer_of("objllvm.sections.addrsig") < layer_of("objllvm.perf.mapping")
    assert layer_of("objllvm.sections.registry") > layer_of("objllvm.render")


def test_version_is_pyprojects():
    """objllvm.__version__ (objllvm/_version.py, read by `objllvm --version`) is pyproject.toml's."""
    import tomllib

    import objllvm
    with open(ROOT / "pyproject.toml", "rb") as f:
        assert objllvm.__version__ == tomllib.load(f)["project"]["version"]
