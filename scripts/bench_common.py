"""What the scripts/bench-* benchmarks share: the installed `objllvm` command, timed runs, the inputs.

* ``install(venv)``: the `objllvm` console script of a regular (not editable) `pip install` of this tree
  into a virtual environment (made the first time, with objllvm's dependencies); objllvm itself is installed
  again on every run.
* ``run(cmd)``: one run, output to /dev/null: (wall s, CPU s user+sys, peak RSS MiB) from wait4.
* ``interleaved(cases, reps)``: every case once per round, ``reps`` rounds (the machine is shared: a
  slow period hits every case, not one), after one untimed warm-up round.
* ``bb_inputs(dir, sizes)``: linked executables of N functions with a big .llvm_bb_addr_map.
* ``table(rows, headers)``: a plain text table (no dependency).

Only the standard library: the benchmarks run under any interpreter that has objllvm's dependencies.
"""
from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# objllvm runs as an installed package does: bytecode cached, nothing of this tree on the path.
INSTALLED_ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}

FUNC = """int f{n}(int x, int y) {{
  int s = {a};
  if (x > {b}) s += y; else s -= x * {c};
  for (int i = 0; i < (x & 7); i++) {{ if (i & 1) s ^= i * {d}; else s += y >> 1; }}
  switch (y & 3) {{ case 0: s += {e}; break; case 1: s *= {c}; break; case 2: s -= x; break; default: s = ~s; }}
  return s;
}}
"""


def install(venv: Path, extra=(), tree: Path = ROOT) -> Path:
    """The `objllvm` console script of a regular install of ``tree`` (default: this one) in ``venv``."""
    py = venv / "bin" / "python"
    pip = [str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    if py.exists() and not made_by_this_python(venv):
        # (another interpreter's venv would time that interpreter: a shared libpython alone costs about a tenth)
        print(f"note: {venv} was made by another Python than {sys.executable}: made again", file=sys.stderr)
        shutil.rmtree(venv)
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run(pip + [str(tree)], check=True, env=INSTALLED_ENV)
        for e in extra:           # optional packages a benchmark asks for; objllvm runs without them
            if subprocess.run(pip + [e], env=INSTALLED_ENV).returncode:
                print(f"note: {e} could not be installed in {venv}: objllvm is measured without it",
                      file=sys.stderr)
    subprocess.run(pip + ["--no-deps", "--force-reinstall", str(tree)], check=True, env=INSTALLED_ENV,
                   cwd=str(venv))
    script = venv / "bin" / "objllvm"
    p = subprocess.run([str(py), "-c", "import objllvm, sys; sys.stdout.write(objllvm.__file__)"],
                       capture_output=True, text=True, env=INSTALLED_ENV, cwd=str(venv))
    # the copy installed in the venv, not another one (a venv made with --system-site-packages can find an editable
    # install of some checkout first: its .pth finder answers before the venv's own site-packages)
    inside = os.path.realpath(p.stdout).startswith(os.path.realpath(venv) + os.sep)
    if p.returncode or not inside or not script.exists():
        sys.exit(f"the install in {venv} is not the one imported: objllvm comes from {p.stdout or p.stderr}")
    print(f"objllvm: {script}, run by {interpreter(py)}", flush=True)
    return script


def made_by_this_python(venv: Path) -> bool:
    """Whether ``venv`` was made by the interpreter running this script (its pyvenv.cfg's ``home``): a benchmark
    compares installs run by the same Python."""
    try:
        cfg = dict(line.split(" = ", 1) for line in (venv / "pyvenv.cfg").read_text().splitlines() if " = " in line)
    except OSError:
        return False
    here = os.path.dirname(os.path.realpath(getattr(sys, "_base_executable", sys.executable)))
    return os.path.realpath(cfg.get("home", "")) == here


def interpreter(py) -> str:
    """What runs the installed command: the CPython version, its executable, and how the interpreter is built
    where that shows (a shared libpython costs about a tenth of the speed; distributions such as Debian link it
    statically and build with profile-guided optimisation: docs/benchmarks.md, "The interpreter")."""
    # (whether the executable loads a libpython: /proc/self/maps; Py_ENABLE_SHARED says only that one was built)
    code = ("import sys, os; exe = os.path.realpath(sys._base_executable); "
            "shared = 'libpython' in open('/proc/self/maps').read() if os.path.exists('/proc/self/maps') else None; "
            "print(sys.version.split()[0], exe, {True: 'shared', False: 'static', None: '?'}[shared], sep='|')")
    p = subprocess.run([str(py), "-c", code], capture_output=True, text=True, env=INSTALLED_ENV)
    if p.returncode:
        return str(py)
    version, exe, shared = p.stdout.strip().split("|")
    linked = {"shared": ", libpython shared", "static": ", libpython linked in"}.get(shared, "")
    return f"CPython {version} ({exe}{linked})"


def run(cmd, env=None, stdout=None) -> tuple:
    """(wall seconds, CPU seconds user+sys, peak RSS MiB) of one run of ``cmd``, output discarded."""
    with open(os.devnull, "wb") as null:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=stdout or null, stderr=subprocess.PIPE, env=env or INSTALLED_ENV)
        _, status, ru = os.wait4(p.pid, 0)
        t = time.perf_counter() - t0
        err = p.stderr.read().decode(errors="replace")
        p.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code:
        sys.exit(f"{cmd[0]} failed ({code}): {err}")
    return t, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024


def imports_of(py: str, cmd: list) -> str:
    """`import a, b, ...`: the modules ``cmd`` (run by ``py``) imports beyond `py -c pass`, in its order, with the
    collector's threshold the command sets, ended as the command ends (os._exit): a command line for ``py -c``."""
    def imported(args):
        p = subprocess.run([py, "-X", "importtime", *args], capture_output=True, text=True, env=INSTALLED_ENV,
                           cwd=str(ROOT))
        return [ln.rsplit("|", 1)[1].strip() for ln in p.stderr.splitlines()
                if ln.startswith("import time:") and "|" in ln and not ln.rstrip().endswith("imported package")]
    base = set(imported(["-c", "pass"]))
    mods = [m for m in imported(cmd) if m not in base]
    return ("import gc, os; gc.set_threshold(20000, *gc.get_threshold()[1:]); import " + ", ".join(dict.fromkeys(mods))
            + "; os._exit(0)")


def interleaved(cases: dict, reps: int, warmup: bool = True) -> dict:
    """{name: [(wall, cpu, rss), ...]}: each case once per round, ``reps`` rounds."""
    res = {k: [] for k in cases}
    if warmup:
        for cmd in cases.values():
            run(cmd)
    for _ in range(reps):
        for k, cmd in cases.items():
            res[k].append(run(cmd))
    return res


def medians(runs) -> tuple:
    """(median wall, median CPU, max peak RSS) of a case's runs."""
    return (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), max(r[2] for r in runs))


def spread(runs) -> str:
    """min-max of the wall times, as a noise figure."""
    ts = [r[0] for r in runs]
    return f"{min(ts):.3f}-{max(ts):.3f}"


def table(rows, headers) -> str:
    rows = [[str(c) for c in r] for r in rows]
    w = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    line = lambda cells: "  ".join(c.ljust(x) for c, x in zip(cells, w)).rstrip()   # noqa: E731
    return "\n".join([line(headers), line(["-" * x for x in w])] + [line(r) for r in rows])


def need(*tools):
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        sys.exit(f"needs {', '.join(missing)}")


def generate(d: Path, n: int, per_file: int = 2500) -> list:
    """C sources of ``n`` functions (about 10 basic blocks each), ``per_file`` a file, and a main.c."""
    srcs = []
    for start in range(0, n, per_file):
        p = d / f"gen{start // per_file}.c"
        with open(p, "w") as f:
            for k in range(start, min(n, start + per_file)):
                f.write(FUNC.format(n=k, a=k % 97, b=k % 13, c=3 + k % 5, d=5 + k % 11, e=k % 251))
        srcs.append(p)
    with open(d / "main.c", "w") as f:
        f.write("int main(void) { return 0; }\n")
    srcs.append(d / "main.c")
    return srcs


def bb_inputs(d: Path, sizes) -> dict:
    """{n: executable of n functions} built with clang-19 -O2 -fbasic-block-sections=labels and lld.

    Sizes up to 2,500 are compiled as they are.  Bigger ones link n / 2,500 copies of one compiled
    2,500-function object, each copy's symbols renamed (llvm-objcopy-22 --prefix-symbols=pK_): the same
    map a compile of n functions gives (one entry per function, the same block shapes), without half an
    hour of compiling on a shared machine."""
    need("clang-19", "ld.lld-19", "llvm-objcopy-22")
    d.mkdir(parents=True, exist_ok=True)
    out = {}
    unit = None
    for n in sizes:
        exe = d / f"bb{n}.exe"
        out[n] = exe
        if exe.exists():
            continue
        if n <= 2500:
            sd = d / f"src{n}"
            sd.mkdir(exist_ok=True)
            objs = []
            for s in generate(sd, n):
                o = s.with_suffix(".o")
                subprocess.run(["clang-19", "-O2", "-fbasic-block-sections=labels", "-c", str(s), "-o", str(o)],
                               check=True)
                objs.append(o)
        else:
            if n % 2500:
                sys.exit(f"sizes above 2500 are multiples of 2500 ({n})")
            sd = d / "unit"
            if unit is None:
                sd.mkdir(exist_ok=True)
                srcs = generate(sd, 2500)
                for s in srcs:
                    o = s.with_suffix(".o")
                    if not o.exists():
                        subprocess.run(["clang-19", "-O2", "-fbasic-block-sections=labels", "-c", str(s), "-o",
                                        str(o)], check=True)
                unit = (sd / "gen0.o", sd / "main.o")
            cd = d / f"copies{n}"
            cd.mkdir(exist_ok=True)
            objs = [unit[1]]
            for k in range(n // 2500):
                o = cd / f"p{k}.o"
                if not o.exists():
                    subprocess.run(["llvm-objcopy-22", f"--prefix-symbols=p{k}_", str(unit[0]), str(o)], check=True)
                objs.append(o)
        subprocess.run(["clang-19", "-fuse-ld=lld", *map(str, objs), "-o", str(exe)], check=True)
    return out


# -- for the benchmarks of the other jobs (extract, audit, coverage, perf-map): one LLVM process per input
# against one objllvm process, at several sizes.

def shell_loop(listing: Path, body: str, fields: str = "f") -> list:
    """A command running the bash ``body`` once per line of ``listing`` (tab-separated ``fields``, e.g.
    "f o" gives $f and $o), output to /dev/null: one process per input, as a shell loop runs a tool.  Timed
    with ``run``, its wall and CPU are the whole loop's (wait4 counts every process bash waited for) and its
    peak RSS is the largest of any single process of the loop."""
    return ["bash", "-c", "while IFS=$'\\t' read -r " + fields + "; do " + body + '; done < "$0" > /dev/null',
            str(listing)]


RATIO_HEADERS = ["size", "objllvm s", "LLVM 22 s", "wall", "CPU s (o / 22)", "CPU", "peak MiB (o / 22)", "memory",
                 "vs LLVM 19 wall", "wall spread s (o / 22)"]


def ratio_row(size: str, res: dict, ours: str, ref: str, ref19=None) -> list:
    """A row of RATIO_HEADERS: medians of case ``ours`` against case ``ref`` (LLVM 22) and ``ref19``."""
    o, t = medians(res[ours]), medians(res[ref])
    w19 = f"{o[0] / medians(res[ref19])[0]:.2f}x" if ref19 and res.get(ref19) else "-"
    return [size, f"{o[0]:.3f}", f"{t[0]:.3f}", f"{o[0] / t[0]:.2f}x", f"{o[1]:.3f} / {t[1]:.3f}",
            f"{o[1] / t[1]:.2f}x", f"{o[2]:.0f} / {t[2]:.0f}", f"{o[2] / t[2]:.2f}x", w19,
            f"{spread(res[ours])} / {spread(res[ref])}"]


GROWTH_HEADERS = ["sizes", "step", "objllvm CPU", "LLVM 22 CPU", "objllvm wall", "LLVM 22 wall", "objllvm memory",
                  "LLVM 22 memory"]


def growth_row(sizes: str, step: float, prev: tuple, cur: tuple) -> list:
    """How cost grew from one size to the next: ``prev`` and ``cur`` are (objllvm medians, LLVM 22 medians)."""
    (po, pt), (co, ct) = prev, cur
    f = lambda a, b: f"{a / b:.1f}x" if b else "-"    # noqa: E731
    return [sizes, f"x{step:.3g}", f(co[1], po[1]), f(ct[1], pt[1]), f(co[0], po[0]), f(ct[0], pt[0]),
            f(co[2], po[2]), f(ct[2], pt[2])]


# -- real programs: sources from the package registries, built as their users build them, cached --------------
#
# Lua 5.4 (the lupa sdist), zstd (the zstandard sdist: zstd.c with testdata/src/perf/zdrv.c), jsonnet (the jsonnet
# sdist: C++ with exceptions and templates, driven by a small main) and the regex crate (Debian's
# librust-regex-dev: Rust, version-5 maps with block hashes and PGO analysis).  Built once into
# $OBJLLVM_BENCH_CACHE (default ~/.cache/objllvm-bench) and reused.

CACHE = Path(os.environ.get("OBJLLVM_BENCH_CACHE", os.path.expanduser("~/.cache/objllvm-bench")))
SDISTS = {   # name: (version, sha256 of the sdist)
    "lupa": ("2.8", "d8022641b9ec8ecf2c5ecbe9f47e5a70e0b87c4b5ae921b92cb02a638e0acd08"),
    "zstandard": ("0.23.0", "b2d8c62d08e7255f68f7a740bae85b3c9b8e5466baa9cbf7f57f1cde0ac6bc09"),
    "jsonnet": ("0.22.0", None),
}
CC = "clang-22"
BB = ["-fbasic-block-address-map"]
PGO_MAP = ["-mllvm", "-pgo-analysis-map=func-entry-count,bb-freq,br-prob"]
RUST_CRATES = Path("/usr/share/cargo/registry")     # Debian's librust-*-dev sources
UNICODE = ["unicode", "unicode-age", "unicode-bool", "unicode-case", "unicode-gencat", "unicode-perl",
           "unicode-script", "unicode-segment"]      # the regex crates' default features

JSONNET_MAIN = r"""// objllvm benchmark driver: evaluate a snippet with the jsonnet library, print the result.
#include <cstdio>
#include <cstdlib>
extern "C" {
#include "libjsonnet.h"
}
int main(int argc, char **argv) {
  struct JsonnetVm *vm = jsonnet_make();
  int err = 0;
  const char *code = argc > 1 ? argv[1] : "std.manifestJsonEx({a: [x * x for x in std.range(1, 50)]}, ' ')";
  char *out = jsonnet_evaluate_snippet(vm, "snippet", code, &err);
  std::fputs(out, err ? stderr : stdout);
  jsonnet_realloc(vm, out, 0);
  jsonnet_destroy(vm);
  return err;
}
"""

RUST_MAIN = r"""// objllvm benchmark driver: a few regular expressions over generated text.
use regex::Regex;
fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(2000);
    let mut text = String::new();
    for i in 0..n { text.push_str(&format!("item{} key=v{} {}@example.org\n", i, i * 7 % 13, i)); }
    let pats = [r"key=v(\d+)", r"(?m)^item\d*5 ", r"\b\w+@\w+\.org\b", r"(?i)ITEM1\d{2}"];
    let mut total = 0;
    for p in pats.iter() { let re = Regex::new(p).unwrap(); total += re.find_iter(&text).count(); }
    println!("{}", total);
}
"""


def sh(cmd, **kw):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)
    if p.returncode:
        sys.exit(f"{' '.join(map(str, cmd))[:300]} failed ({p.returncode}): {(p.stderr or p.stdout)[-800:]}")
    return p


def sdist(name: str) -> Path:
    """The sdist of ``name`` (pinned version), downloaded once by pip into the cache."""
    import hashlib
    version, digest = SDISTS[name]
    dl = CACHE / "dl"
    dl.mkdir(parents=True, exist_ok=True)
    tgz = dl / f"{name}-{version}.tar.gz"
    if not tgz.exists():
        sh([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", name, "--disable-pip-version-check",
            "-q", f"{name}=={version}", "-d", dl], timeout=1800)
    if digest and hashlib.sha256(tgz.read_bytes()).hexdigest() != digest:
        sys.exit(f"{tgz}: sha256 is not the pinned {digest}")
    return tgz


def unpacked(name: str) -> Path:
    import tarfile
    version = SDISTS[name][0]
    out = CACHE / "src" / f"{name}-{version}"
    if not out.exists():
        (CACHE / "src").mkdir(parents=True, exist_ok=True)
        with tarfile.open(sdist(name)) as t:
            t.extractall(CACHE / "src", filter="data")
    return out


def _compile(jobs):
    """Run the compile commands ``jobs`` [(cmd, output)] two at a time, those whose output is missing."""
    from concurrent.futures import ThreadPoolExecutor
    todo = [cmd for cmd, out in jobs if not Path(out).exists()]
    with ThreadPoolExecutor(2) as ex:
        list(ex.map(sh, todo))


def _c_program(name, srcs, flags, link, inc=(), cc=CC):
    """Objects (cached per flag set) and a linked executable of ``srcs``."""
    od = CACHE / "obj" / name
    od.mkdir(parents=True, exist_ok=True)
    objs = [od / (Path(s).stem + ".o") for s in srcs]
    _compile([([cc, *flags, *[f"-I{i}" for i in inc], "-c", s, "-o", o], o) for s, o in zip(srcs, objs)])
    exe = CACHE / "bin" / name
    exe.parent.mkdir(parents=True, exist_ok=True)
    if not exe.exists():    # (the profile runtime is linked in when the driver is told at the link too)
        runtime = [f for f in flags if f == "-fprofile-instr-generate"]
        sh([cc, "-fuse-ld=lld", *runtime, *objs, *link, "-o", exe])
    return exe, objs


def lua(flags, tag):
    src = unpacked("lupa") / "third-party" / "lua54"
    files = sorted(str(p) for p in src.glob("*.c") if p.name not in ("ltests.c", "onelua.c", "luac.c"))
    return _c_program(f"lua-{tag}", files, ["-O2", "-std=c99", "-DLUA_USE_LINUX", *flags], ["-lm", "-ldl"])


def zstd(flags, tag):
    src = unpacked("zstandard") / "zstd"
    return _c_program(f"zstd-{tag}", [str(src / "zstd.c"), str(ROOT / "testdata" / "src" / "perf" / "zdrv.c")],
                      ["-O2", "-DZSTD_DISABLE_ASM", *flags], ["-lpthread"], inc=[src])


def jsonnet(flags, tag):
    src = unpacked("jsonnet")
    std = src / "core" / "std.jsonnet.h"
    if not std.exists():      # what its Makefile does: the standard library as a C array
        std.write_text(",".join(str(b) for b in (src / "stdlib" / "std.jsonnet").read_bytes()) + ",0\n")
    main = CACHE / "src" / "jsonnet-main.cpp"
    if not main.exists():
        main.write_text(JSONNET_MAIN)
    files = [str(p) for p in sorted((src / "core").glob("*.cpp")) if not p.name.endswith("_test.cpp")]
    files += [str(src / "third_party" / "md5" / "md5.cpp"), str(src / "third_party" / "rapidyaml" / "rapidyaml.cpp"),
              str(main)]
    inc = [src / "include", src / "core", src / "third_party" / "md5", src / "third_party" / "json",
           src / "third_party" / "rapidyaml"]
    return _c_program(f"jsonnet-{tag}", files, ["-O2", "-std=c++17", *flags], [], inc=inc, cc="clang++-22")


def rust(flags, tag):
    """The regex crate (and regex-syntax) with a small main, rustc -O, its LLVM options through -C llvm-args."""
    od = CACHE / "obj" / f"rust-{tag}"
    od.mkdir(parents=True, exist_ok=True)
    exe = CACHE / "bin" / f"rust-{tag}"
    if exe.exists():
        return exe, []
    llvm = [a for f in flags for a in ("-C", f"llvm-args={f}")]
    rc = ["rustc", "-O", "--edition=2018", "-C", "debuginfo=0", *llvm, "--out-dir", od, "-L", od]
    syntax = sorted(RUST_CRATES.glob("regex-syntax-*"))[-1]
    regex = sorted(RUST_CRATES.glob("regex-1.*"))[-1]
    uni = UNICODE
    cfg = lambda fs: [a for f in fs for a in ("--cfg", f'feature="{f}"')]    # noqa: E731
    sh(rc + ["--crate-type=rlib", "--crate-name=regex_syntax", *cfg(uni), syntax / "src" / "lib.rs"])
    sh(rc + ["--crate-type=rlib", "--crate-name=regex", *cfg(["std", "perf-cache", "perf-dfa", "perf-inline", *uni]),
             "--extern", f"regex_syntax={od / 'libregex_syntax.rlib'}", regex / "src" / "lib.rs"])
    main = od / "main.rs"
    main.write_text(RUST_MAIN)
    sh(rc + ["--extern", f"regex={od / 'libregex.rlib'}", "-o", exe, main])
    return exe, []


BB_FLAGS = {"": BB, "-pgo": BB + PGO_MAP}
RUST_FLAGS = {"": ["-basic-block-address-map"],
              "-pgo": ["-basic-block-address-map", "-emit-bb-hash",
                       "-pgo-analysis-map=func-entry-count,bb-freq,br-prob"]}


def bb_programs(pgo=(False, True)) -> dict:
    """{label: executable} of the real programs with BB address maps, without and with PGO analysis maps."""
    out = {}
    for p in pgo:
        tag = "-pgo" if p else ""
        for name, build in (("lua", lua), ("zstd", zstd), ("jsonnet", jsonnet)):
            out[f"{name}{tag}"] = build(BB_FLAGS[tag], "bb" + tag)[0]
        out[f"rust-regex{tag}"] = rust(RUST_FLAGS[tag], "bb" + tag)[0]
    return out


def bb_scale(copies: int, base: str = "jsonnet") -> Path:
    """An executable of ``copies`` renamed copies of a real program's own objects (jsonnet's, -O2
    -fbasic-block-address-map): each copy's symbols prefixed (llvm-objcopy --prefix-symbols=cK_), linked with
    --unresolved-symbols=ignore-all and --noinhibit-exec (each copy calls its own renamed functions and asks for
    renamed library symbols: nothing runs the executable; its map is what the compiler wrote)."""
    exe = CACHE / "bin" / f"{base}-x{copies}"
    if exe.exists():
        return exe
    _, objs = {"jsonnet": jsonnet, "lua": lua, "zstd": zstd}[base](BB, "bb")
    cd = CACHE / "obj" / f"{base}-copies"
    cd.mkdir(parents=True, exist_ok=True)
    ins = []
    for k in range(copies):
        for o in objs:
            c = cd / f"c{k}_{o.name}"
            if not c.exists():
                sh(["llvm-objcopy-22", f"--prefix-symbols=c{k}_", o, c])
            ins.append(c)
    rsp = cd / f"link-{copies}.rsp"
    rsp.write_text("\n".join(map(str, ins)))
    sh(["ld.lld-22", "--unresolved-symbols=ignore-all", "--noinhibit-exec", "-e", "0", "-o", exe, f"@{rsp}"])
    return exe


# -- an older objllvm beside this one ------------------------------------------------------------------------------

def baseline(rev: str, venv_root: Path = None) -> Path:
    """The `objllvm` console script of a regular install of commit ``rev`` of this repository: a detached
    `git worktree` of it under /tmp (made once per commit), installed in its own virtual environment.  The
    benchmarks time it as one more case of the same interleaved rounds (``--baseline REV``)."""
    commit = sh(["git", "-C", ROOT, "rev-parse", "--verify", f"{rev}^{{commit}}"]).stdout.strip()
    tree = Path(tempfile.gettempdir()) / f"objllvm-baseline-{commit[:12]}"
    if not (tree / "pyproject.toml").exists():
        sh(["git", "-C", ROOT, "worktree", "add", "--detach", tree, commit])
    venv = (venv_root or CACHE) / f"venv-baseline-{commit[:12]}"
    print(f"baseline: {rev} = {commit[:12]} in {tree}", flush=True)
    script = venv / "bin" / "objllvm"
    if script.exists() and made_by_this_python(venv):     # (a commit does not change: installed once, so runs beside
        # each other can share it)
        print(f"objllvm (baseline): {script}, run by {interpreter(venv / 'bin' / 'python')}", flush=True)
        return script
    return install(venv, tree=tree)


def with_baseline(cases: dict, script: Path, base) -> dict:
    """``cases`` and, when ``base`` (a baseline's script) is given, a copy of each case that runs ``script`` with
    ``base`` in its place, named "<case> baseline"."""
    if base is None:
        return cases
    out = dict(cases)
    for k, cmd in cases.items():
        if str(script) in cmd:
            out[f"{k} baseline"] = [str(base) if c == str(script) else c for c in cmd]
    return out


def vs_baseline(res: dict, case: str) -> str:
    """Median CPU of ``case`` over that of its baseline copy (``with_baseline``), or "-"."""
    b = res.get(f"{case} baseline")
    return f"{medians(res[case])[1] / medians(b)[1]:.2f}x" if b else "-"


def add_baseline_arg(ap) -> None:
    ap.add_argument("--baseline", metavar="REV", help="also time the objllvm of commit REV (a git worktree of it "
                    "under /tmp, installed in its own venv) in the same rounds, and print its CPU ratio")


# -- real programs for the other jobs: coverage, embedded bitcode, objects ------------------------------------------

COV = ["-fprofile-instr-generate", "-fcoverage-mapping"]
LUA_RUN = "local t = {} for i = 1, 2000 do t[i] = tostring(i * i) end print(#table.concat(t, ','))"


def _profile(exe: Path, args, tag: str) -> Path:
    """Run ``exe`` once with ``args`` (LLVM_PROFILE_FILE set) and merge its raw profile with llvm-profdata-22."""
    prof = exe.with_name(exe.name + ".profdata")
    if not prof.exists():
        raw = exe.with_name(exe.name + ".profraw")
        subprocess.run([str(exe), *args], env=dict(os.environ, LLVM_PROFILE_FILE=str(raw)), check=True,
                       stdout=subprocess.DEVNULL)
        sh(["llvm-profdata-22", "merge", "-o", prof, raw])
    return prof


def rust_cov():
    """The regex program built with rustc -C instrument-coverage (the profiler runtime comes with rustup's std)."""
    od = CACHE / "obj" / "rust-cov"
    exe = CACHE / "bin" / "rust-cov"
    if not exe.exists():
        od.mkdir(parents=True, exist_ok=True)
        rc = ["rustc", "-O", "--edition=2018", "-C", "debuginfo=0", "-C", "instrument-coverage", "--out-dir", od,
              "-L", od]
        syntax = sorted(RUST_CRATES.glob("regex-syntax-*"))[-1]
        regex = sorted(RUST_CRATES.glob("regex-1.*"))[-1]
        cfg = lambda fs: [a for f in fs for a in ("--cfg", f'feature="{f}"')]    # noqa: E731
        sh(rc + ["--crate-type=rlib", "--crate-name=regex_syntax", *cfg(UNICODE), syntax / "src" / "lib.rs"])
        sh(rc + ["--crate-type=rlib", "--crate-name=regex", *cfg(["std", "perf-cache", "perf-dfa", "perf-inline",
                                                                   *UNICODE]),
                 "--extern", f"regex_syntax={od / 'libregex_syntax.rlib'}", regex / "src" / "lib.rs"])
        main = od / "main.rs"
        main.write_text(RUST_MAIN)
        sh(rc + ["--extern", f"regex={od / 'libregex.rlib'}", "-o", exe, main])
    return exe


def cov_programs() -> dict:
    """{label: (executable, LLVM 22 profile)}: the real programs built with -fprofile-instr-generate
    -fcoverage-mapping (-O2), each run once on a small input and its profile merged."""
    out = {}
    exe, _ = lua(COV, "cov")
    out["lua"] = (exe, _profile(exe, ["-e", LUA_RUN], "lua"))
    exe, _ = zstd(COV, "cov")
    out["zstd"] = (exe, _profile(exe, ["2"], "zstd"))
    exe, _ = jsonnet(COV, "cov")
    out["jsonnet"] = (exe, _profile(exe, [], "jsonnet"))
    exe = rust_cov()
    out["rust-regex"] = (exe, _profile(exe, ["500"], "rust"))
    return out


EMBED = {"embed": ["-fembed-bitcode"], "fatlto": ["-flto=thin", "-ffat-lto-objects"]}


def objects(kind: str) -> dict:
    """{program: [object]} of lua, zstd and jsonnet compiled -O2 with the flags of ``kind``: "embed"
    (-fembed-bitcode: .llvmbc and .llvmcmd), "fatlto" (-flto=thin -ffat-lto-objects: .llvm.lto), "bb"
    (-fbasic-block-address-map) or "cov" (coverage mapping)."""
    flags = {"bb": BB, "cov": COV, **EMBED}[kind]
    out = {}
    for name, build in (("lua", lua), ("zstd", zstd), ("jsonnet", jsonnet)):
        out[name] = build(flags, kind)[1]
    return out


def archives(kind: str) -> dict:
    """{program: static library of its objects of ``kind`` (objects()), by llvm-ar-22}."""
    out = {}
    for name, objs in objects(kind).items():
        a = CACHE / "lib" / f"lib{name}-{kind}.a"
        if not a.exists():
            a.parent.mkdir(parents=True, exist_ok=True)
            sh(["llvm-ar-22", "rcs", a, *objs])
        out[name] = a
    return out


def renamed_copies(objs, copies: int, tag: str) -> list:
    """``copies`` copies of every object of ``objs``, each copy's symbols prefixed cK_ (llvm-objcopy-22
    --prefix-symbols), cached under ``tag``."""
    cd = CACHE / "obj" / f"copies-{tag}"
    cd.mkdir(parents=True, exist_ok=True)
    todo, ins = [], []
    for k in range(copies):
        for o in objs:
            c = cd / f"c{k}_{Path(o).name}"
            todo.append((["llvm-objcopy-22", f"--prefix-symbols=c{k}_", o, c], c))
            ins.append(c)
    _compile(todo)
    return ins


def linked_copies(objs, copies: int, tag: str) -> Path:
    """An executable of ``copies`` renamed copies (renamed_copies) of ``objs``, linked by ld.lld-22 with
    --unresolved-symbols=ignore-all and --noinhibit-exec (each copy calls its own renamed functions and asks for
    renamed library symbols: nothing runs it; its sections are what the compiler wrote, copies times)."""
    exe = CACHE / "bin" / f"{tag}-x{copies}"
    if not exe.exists():
        ins = renamed_copies(objs, copies, tag)
        rsp = CACHE / "obj" / f"copies-{tag}" / f"link-{copies}.rsp"
        rsp.write_text("\n".join(map(str, ins)))
        sh(["ld.lld-22", "--unresolved-symbols=ignore-all", "--noinhibit-exec", "-e", "0", "-o", exe, f"@{rsp}"])
    return exe


def cov_scale(copies: int) -> tuple:
    """(executable, profile): ``copies`` renamed copies of jsonnet's coverage objects; the profile is jsonnet's
    own (its records are found by name hash, which renaming the symbols keeps)."""
    _, objs = jsonnet(COV, "cov")
    return linked_copies(objs, copies, "jsonnet-cov"), cov_programs_one("jsonnet")[1]


def cov_programs_one(name: str) -> tuple:
    return cov_programs()[name]


def cpu_row(label: str, res: dict, ours: str, ref: str) -> list:
    """[label, objllvm CPU s, LLVM CPU s, CPU ratio, wall ratio, peak MiB (o / LLVM), memory ratio, vs baseline]:
    medians of case ``ours`` against case ``ref``; the last, ``ours``'s CPU over its baseline copy's."""
    o, t = medians(res[ours]), medians(res[ref])
    return [label, f"{o[1]:.3f}", f"{t[1]:.3f}", f"{o[1] / t[1]:.2f}x", f"{o[0] / t[0]:.2f}x",
            f"{o[2]:.0f} / {t[2]:.0f}", f"{o[2] / t[2]:.2f}x", vs_baseline(res, ours)]


def cpu_headers(tool: str) -> list:
    return ["input", "objllvm CPU s", f"{tool} CPU s", "CPU", "wall", f"peak MiB (o / {tool})", "memory",
            "CPU vs baseline"]


def markdown(rows, headers) -> str:
    """The table as Markdown, for docs/benchmarks.md."""
    line = lambda cells: "| " + " | ".join(str(c) for c in cells) + " |"   # noqa: E731
    return "\n".join([line(headers), line(["---"] * len(headers))] + [line(r) for r in rows])


def machine_note() -> str:
    return f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
