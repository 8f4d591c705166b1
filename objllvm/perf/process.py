"""A whole process: the samples of every object of a recording that has a basic-block map (the executable and
its shared libraries), each mapped to its own blocks, with the share of all samples each object holds.

:func:`split_inputs` tells binaries from recordings on a command line (by their first bytes), :func:`objects_with_maps`
finds the mapped files of a recording that exist here, have a map and match the recorded build-id (``--all``),
and :func:`map_process` maps one merged profile to each of them.  Distinct objects of a process are distinct links,
so each gets its own cluster file (:func:`cluster_paths`).
"""
from __future__ import annotations

import os

from .._model import dataclass, field
from ..errors import ObjllvmError

ELF_MAGIC = b"\x7fELF"


def is_elf(path: str) -> bool:
    if path == "-":
        return False
    try:
        import stat
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
        with open(path, "rb") as f:
            return f.read(4) == ELF_MAGIC
    except OSError:
        return False


def split_inputs(paths) -> tuple:
    """``(binaries, recordings)``: the ELF files of ``paths`` and the rest (perf.data files, saved profiles,
    ``-``), each in command-line order."""
    binaries, recordings = [], []
    for p in paths:
        (binaries if is_elf(p) else recordings).append(p)
    return binaries, recordings


@dataclass
class ProcessProfile:
    """The profiles of several objects of one set of recordings."""
    objects: list                  # mapping.Profile, in the order given (--all: by samples)
    total_samples: int
    skipped: list = field(default_factory=list)     # [{"file", "reason"}] sampled objects not mapped (--all)

    def share(self, n: int) -> float:
        return n / self.total_samples if self.total_samples else 0.0

    def summary(self) -> list:
        """``[{"binary", "build_id", "samples", "share", "mapped"}]`` per object."""
        return [{"binary": p.binary, "build_id": p.build_id, "samples": p.binary_samples,
                 "share": round(self.share(p.binary_samples), 6), "mapped": p.mapped_samples} for p in self.objects]

    def to_dict(self, top: int = 20, *, demangle: bool = False) -> dict:
        docs = [p.to_dict(top, demangle=demangle) for p in self.objects]
        first = dict(docs[0])
        first["process"] = {"total": self.total_samples, "objects": self.summary(), "skipped": self.skipped}
        first["objects"] = docs
        return first


def objects_with_maps(merged, search=()) -> tuple:
    """``(paths, skipped)``: the files of the recording's sampled objects that exist here, are linked ELF files
    with a basic-block map and have the recorded build-id, most samples first; ``skipped``: the others and why.
    Each file is looked for by its name in the directories ``search`` first (those of the binaries and
    recordings named: a copy beside them is what the user points at), then at its recorded path; the build-id
    check tells whether it is the one recorded."""
    from ..formats import open_object
    from ..sections.bb_addr_map import TYPE_NAMES
    from .debuginfo import elf_build_id, same_build_id
    out, skipped = [], []
    for o in sorted(merged.objects.values(), key=lambda o: (-o.samples, o.key)):
        if not o.samples:
            continue
        name = sorted(o.names)[0] if o.names else o.key
        why = None
        path = next((c for n in sorted(o.names) for d in search
                     for c in [os.path.join(d, os.path.basename(n))] if os.path.isfile(c)), None)
        if path is None:
            path = next((n for n in sorted(o.names) if os.path.isfile(n)), None)
        if path is None:
            why = "not found here"
        else:
            try:
                obj = open_object(path)
                bid = elf_build_id(obj)
                if o.build_id and bid and not same_build_id(bytes.fromhex(o.build_id), bid):
                    why = "another build here (build-id differs)"
                elif obj.format != "elf" or not any(s.type in TYPE_NAMES for s in obj.sections):
                    why = "no basic-block map"
            except ObjllvmError:
                why = "not an object file"
        if why:
            skipped.append({"file": name, "samples": o.samples, "reason": why})
        else:
            out.append(path)
    return out, skipped


def map_process(merged, binaries, *, debug_files=None) -> ProcessProfile:
    """Map ``merged`` (a MergedProfile) to each binary of ``binaries`` (``debug_files``: binary -> --debug-file)."""
    from .mapping import map_profile, open_binary
    profiles = []
    for b in binaries:
        obj, index = open_binary(b, debug_file=(debug_files or {}).get(b))
        p = map_profile(merged, b, obj, index)
        p.debug_source = index.debug_source
        profiles.append(p)
    return ProcessProfile(profiles, merged.samples)


def cluster_paths(out: str, binaries) -> list:
    """The cluster file of each binary: ``out`` for one; for several (distinct links), ``out`` with each binary's
    file name before its extension (``c.txt`` -> ``c.hot.txt``, ``c.libhot.so.txt``)."""
    if len(binaries) == 1:
        return [out]
    stem, ext = os.path.splitext(out)
    names = [os.path.basename(b) for b in binaries]
    dup = {n for n in names if names.count(n) > 1}
    return [f"{stem}.{n if n not in dup else f'{n}-{i}'}{ext}" for i, n in enumerate(names)]
