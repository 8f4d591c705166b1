"""Seeds and the fixed-seed mutation loop shared by the CI fuzz tests and ``scripts/fuzz``."""
from __future__ import annotations

import hashlib
import json
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from objllvm.sections import registry
from objllvm.formats import open_data
from objllvm.errors import ObjllvmError

from . import harness, mutators
from .known import known

ROOT = Path(__file__).resolve().parent.parent.parent
TESTS = ROOT / "tests"
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

# Mutations that make sense on the raw bytes of one section (the ELF-aware ones fall back to flips anyway).
BYTE_MUTATORS = ["truncate", "flip_bytes", "uleb_run", "huge_count", "insert_bytes", "delete_bytes"]


def corpus() -> list:
    """(path relative to the repository, bytes) of every committed corpus file (tests/conftest.corpus_files)."""
    from conftest import corpus_files
    return [(str(p.relative_to(ROOT)), p.read_bytes()) for p in corpus_files()]


@dataclass
class SectionSeed:
    origin: str            # 'testdata/elf/deplibs.o(member)[6] .deplibs'
    obj: object
    section: object
    data: bytes


def section_seeds(files=None) -> list:
    """Every section of the corpus that is LLVM-specific or that a codec claims, with its object."""
    out = []
    for rel, data in files or corpus():
        try:
            objs = list(open_data(data, str(ROOT / rel)))
        except ObjllvmError:
            continue
        for obj in objs:
            if isinstance(obj, ObjllvmError):
                continue
            for s in obj.sections:
                try:
                    if not registry.is_llvm_section(s, obj):
                        continue
                    b = s.data()
                except ObjllvmError:
                    continue
                out.append(SectionSeed(f"{rel}{'(' + obj.member + ')' if obj.member else ''}[{s.index}] {s.name}",
                                       obj, s, bytes(b)))
    return out


def bitstream_seeds(sections=None) -> list:
    """Bitcode payloads of the corpus (.llvmbc, .llvm.lto, __LLVM,__bitcode, raw .bc files)."""
    out = []
    for s in sections if sections is not None else section_seeds():
        if s.data[:4] in (b"BC\xc0\xde", b"\xde\xc0\x17\x0b"):
            out.append((s.origin, s.data))
    out.sort(key=lambda x: len(x[1]))
    return out[:12]


@dataclass
class Result:
    inputs: int = 0
    elapsed: float = 0.0
    per_target: dict = field(default_factory=dict)
    found: list = field(default_factory=list)      # (Violation, input bytes, origin)
    slowest: tuple = (0.0, "")
    known: dict = field(default_factory=dict)       # module -> inputs that showed its known (routed) bug


def run(*, seed: int, budget: float | None = None, count: int | None = None, targets=("container", "codec",
        "bitstream", "perf", "tools"), tmpdir: str, log=print, slow_seconds: float = harness.HANG_SECONDS,
        kinds=None, files=None, secs=None) -> Result:
    """Mutate and check until ``budget`` seconds or ``count`` inputs.  Deterministic for a given seed and count."""
    rng = random.Random(seed)
    files = files if files is not None else corpus()
    secs = secs if secs is not None else section_seeds(files)
    kinds = sorted(kinds or registry.codecs())
    targets = list(targets)
    bits = bitstream_seeds(secs) if "bitstream" in targets and _importable("objllvm.formats.bitstream") else []
    perf = harness.perf_seeds() if "perf" in targets and _importable("objllvm.perf.perfdata") else []
    if not bits and "bitstream" in targets:
        targets.remove("bitstream")
    if not perf and "perf" in targets:
        targets.remove("perf")
    res = Result()
    seen = set()
    t0 = time.perf_counter()
    last_log = t0
    while True:
        now = time.perf_counter()
        if (budget is not None and now - t0 >= budget) or (count is not None and res.inputs >= count):
            break
        target = rng.choice(targets)
        steps = mutators.random_steps(rng)
        t1 = time.perf_counter()
        if target == "container":
            rel, data = rng.choice(files)
            data = mutators.apply(data, steps)
            origin = f"{rel} + {steps}"
            vs = harness.check_container(data, "fuzz-input", slow_seconds=slow_seconds)
        elif target == "tools":
            rel, data = rng.choice(files)
            data = mutators.apply(data, steps)
            origin = f"{rel} + {steps} -> audit/bbindex/rewrite"
            vs = harness.check_tools(data, tmpdir, slow_seconds=slow_seconds)
        elif target == "codec":
            s = rng.choice(secs)
            codec = registry.codecs()[rng.choice(kinds)]
            steps = [(rng.choice(BYTE_MUTATORS), rng.getrandbits(32)) for _ in range(rng.randint(0, 3))]
            data = mutators.apply(s.data, steps)
            ctxs = list(harness.codec_contexts(s.obj, s.section, codec))
            cname, ctx = rng.choice(ctxs)
            origin = f"{s.origin} + {steps} -> codec {codec.kind} (context {cname})"
            vs = harness.check_codec(codec, data, ctx, slow_seconds=slow_seconds)
        elif target == "bitstream":
            name, data = rng.choice(bits)
            data = mutators.apply(data, [(n if n in BYTE_MUTATORS else "flip_bytes", x) for n, x in steps])
            origin = f"bitstream of {name} + {steps}"
            vs = harness.check_bitstream(data, slow_seconds=slow_seconds)
        else:
            data = rng.choice(perf)
            data = mutators.apply(data, [(n if n in BYTE_MUTATORS else "huge_count", x) for n, x in steps])
            origin = f"perf.data seed + {steps}"
            vs = harness.check_perf(data, tmpdir, slow_seconds=slow_seconds)
        dt = time.perf_counter() - t1
        if dt > res.slowest[0]:
            res.slowest = (dt, origin)
        res.inputs += 1
        res.per_target[target] = res.per_target.get(target, 0) + 1
        for v in vs:
            if known(v):
                res.known[known(v)] = res.known.get(known(v), 0) + 1
                continue
            if v.key() not in seen:
                seen.add(v.key())
                res.found.append((v, data, origin))
                if log:
                    log(f"NEW {v}\n    input: {origin}")
        if log and now - last_log > 60:
            last_log = now
            log(f"... {res.inputs} inputs, {now - t0:.0f} s, {len(res.found)} found")
    res.elapsed = time.perf_counter() - t0
    return res


def _importable(name: str) -> bool:
    import importlib
    try:
        importlib.import_module(name)
        return True
    except ImportError:
        return False


# Which commands reach each target's code (a crasher's entry says which commands the CLI tests leave out).
TARGET_COMMANDS = {"rewrite": ["rewrite"], "audit": ["audit"], "bbindex": ["perf_map", "cfg"],
                   "perf": ["perf_map", "cfg"]}


def replay(paths, tmpdir: str, slow_seconds: float | None = harness.HANG_SECONDS) -> list:
    """Every applicable target on each file: [(path, Violation)]."""
    out = []
    for p in paths:
        data = Path(p).read_bytes()
        vs = harness.check_container(data, str(p), slow_seconds=slow_seconds)
        vs += harness.check_tools(data, tmpdir, slow_seconds=slow_seconds)
        if data[:4] in (b"BC\xc0\xde", b"\xde\xc0\x17\x0b"):
            vs += harness.check_bitstream(data, slow_seconds=slow_seconds)
        if data[:8] == b"PERFILE2":
            vs += harness.check_perf(data, tmpdir, slow_seconds=slow_seconds)
        out += [(str(p), v) for v in vs]
    return out


def save_found(found, directory: Path) -> list:
    """Write each crasher's input to testdata/malformed/ and add an entry to crashers.json: a strict xfail
    test naming the module, until its owner fixes it (then write the expected errors, and move it into
    scripts/make-malformed or keep it here with ``errors`` filled in and ``xfail`` removed)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "crashers.json"
    entries = json.loads(path.read_text()) if path.exists() else []
    saved = []
    for v, data, origin in found:
        h = hashlib.sha256(data).hexdigest()[:10]
        name = f"crash-{v.target.replace(':', '-')}-{v.kind}-{h}.bin"
        (directory / name).write_bytes(data)
        inner = harness._innermost(v.trace)
        module = inner.split('"')[1] if '"' in inner else "?"
        if module.startswith(str(ROOT)):
            module = module[len(str(ROOT)) + 1:]
        entries.append({"name": name, "source": origin, "level": None, "errors": None,
                        "xfail": {"module": module, "why": str(v)[:300],
                                  "commands": TARGET_COMMANDS.get(v.target.split(":")[0], [])}})
        saved.append(name)
    path.write_text(json.dumps(entries, indent=1) + "\n")
    return saved
