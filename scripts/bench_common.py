"""What the scripts/bench-* benchmarks share: the installed `objllvm` command, timed runs, the inputs.

* ``install(venv)``: the `objllvm` console script of a regular (not editable) `pip install` of this tree
  into a virtual environment (made the first time, with objllvm's dependencies and numpy, which the text
  view of big tables uses when it is there); objllvm itself is installed again on every run.
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


def install(venv: Path, extra=("numpy",)) -> Path:
    """The `objllvm` console script of a regular install of this tree in ``venv``."""
    py = venv / "bin" / "python"
    pip = [str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run(pip + [str(ROOT)], check=True, env=INSTALLED_ENV)
        for e in extra:           # optional (numpy: the big maps' path); objllvm runs without it
            if subprocess.run(pip + [e], env=INSTALLED_ENV).returncode:
                print(f"note: {e} could not be installed in {venv}: objllvm is measured without it",
                      file=sys.stderr)
    subprocess.run(pip + ["--no-deps", "--force-reinstall", str(ROOT)], check=True, env=INSTALLED_ENV,
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
