"""Payload extraction, the API behind ``objllvm extract``: embedded bitcode, offloading images and command
lines found in objects, archives and bitcode files, written out with a manifest.

``collect_payloads(paths)`` and ``extract(paths, outdir)``.
"""
from .._model import dataclass, field
from ..binary import nul_separated
from ..errors import DecodeError, ObjllvmError
from ..formats.bitcode import bitstream_range

# -- extraction (the API behind ``objllvm extract``) ---------------------------------------------------------
BITCODE_SECTION_NAMES = (".llvmbc", ".llvm.lto", "__LLVM,__bitcode", "<bitcode>")
CMDLINE_SECTION_NAMES = (".llvmcmd", "__LLVM,__cmdline")
SHT_LLVM_OFFLOADING, SHT_LLVM_LTO = 0x6FFF4C0B, 0x6FFF4C0C
MANIFEST = "manifest.json"


@dataclass
class Payload:
    """One thing ``extract`` writes: its bytes and where they came from."""
    kind: str                       # 'bitcode', 'offload-image', 'offload-compressed', 'cmdline'
    data: bytes
    file: str
    member: str | None
    section: str
    section_index: int
    offset: int                     # in the section (after decompression of an ELF compressed section)
    file_offset: int | None         # in the file (or archive member); None when the section is compressed
    ext: str
    stem: str                       # file name without the extension, before making it unique
    info: dict = field(default_factory=dict)   # offload image: triple, arch, kinds, blob/entry numbers
    name: str = ""                  # the file name chosen in the output directory


def payload_kind(section, obj) -> str | None:
    """'bitcode', 'offloading', 'cmdline' or None, from the section's type and name (no decoding)."""
    if obj.format == "elf" and section.type in (SHT_LLVM_LTO, SHT_LLVM_OFFLOADING):
        return "bitcode" if section.type == SHT_LLVM_LTO else "offloading"
    name = section.name
    if name in BITCODE_SECTION_NAMES:
        return "bitcode"
    if name in CMDLINE_SECTION_NAMES:
        return "cmdline"
    if name == ".llvm.offloading" or (obj.format == "coff" and name.startswith(".llvm.offloading")):
        return "offloading"
    return None


# A payload's file name is at most this many characters (ASCII: as many bytes), the extension and a "-N" for
# uniqueness included: well under the 255 bytes most file systems allow (NAME_MAX).
NAME_MAX = 200


def _safe(s: str) -> str:
    out = "".join(c if (c.isalnum() and c.isascii()) or c in "._+-" else "_" for c in s).strip("._")
    return out or "x"


def _short(stem: str, room: int) -> str:
    """``stem`` when it has at most ``room`` characters, else its start and a hash of the whole of it (so two
    long stems that begin alike still give two names): the same stem always gives the same name."""
    if len(stem) <= room:
        return stem
    from hashlib import sha256
    return stem[:room - 17] + "-" + sha256(stem.encode("ascii")).hexdigest()[:16]


def _stem_of(path: str) -> str:
    import os
    base = os.path.basename(path)
    for ext in (".o", ".obj", ".bc", ".a", ".rlib", ".lib"):
        if base.endswith(ext) and len(base) > len(ext):
            return base[:-len(ext)]
    return base


def payloads_of_object(obj, errors: list) -> list:
    """The payloads of one object; problems are appended to ``errors`` (the other payloads still come)."""
    out = []
    prefix = _stem_of(obj.path) + (f"-{_stem_of(obj.member)}" if obj.member else "")
    for s in obj.sections:
        kind = payload_kind(s, obj)
        if kind is None:
            continue
        loc = dict(file=obj.path, member=obj.member, section_index=s.index, section_name=s.name)
        try:
            data = s.data()
        except ObjllvmError as exc:
            errors.append(exc.located(**loc))
            continue
        foff = None if s.compression else s.offset
        tag = _safe(s.name.replace("__", "").replace(",", "."))
        common = dict(file=obj.path, member=obj.member, section=s.name, section_index=s.index)
        if kind == "bitcode":
            if len(data) <= 1 and not bytes(data).strip(b"\0"):
                continue                       # -fembed-bitcode=marker: nothing to extract
            try:
                bitstream_range(data)
            except DecodeError as exc:
                errors.append(exc.located(**loc))
                continue
            out.append(Payload("bitcode", bytes(data), offset=0, file_offset=foff, ext=".bc",
                               stem=f"{prefix}-{tag}" if obj.format != "bitcode" else prefix, **common))
        elif kind == "cmdline":
            # (what the .llvmcmd codec decodes, without importing it and the registry into every extract)
            args = nul_separated(bytes(data))[0]
            text = ("\n".join(args) + "\n" if args else "").encode("utf-8", "surrogateescape")
            out.append(Payload("cmdline", text, offset=0, file_offset=foff, ext=".txt", stem=f"{prefix}-{tag}",
                               info={"arguments": len(args)}, **common))
        else:
            # (imported here: the offloading codec brings the registry, which an extract without images needs not)
            from ..sections.offloading import IMAGE_EXT, IMAGE_KINDS, offload_kind_flags, parse_offloading
            try:
                model = parse_offloading(data)
            except DecodeError as exc:
                errors.append(exc.located(**loc))
                model = exc.partial
                if model is None:
                    continue
            for bi, b in enumerate(model.blobs):
                if b.compressed is not None and not b.entries:
                    out.append(Payload("offload-compressed", bytes(data[b.offset:b.offset + b.size]),
                                       offset=b.offset, file_offset=None if foff is None else foff + b.offset,
                                       ext=".offload", stem=f"{prefix}-offload{bi}-{b.compression}",
                                       info={"blob": bi, "compression": b.compression, "error": b.error}, **common))
                    continue
                for e in b.entries:
                    parts = [prefix, offload_kind_flags(e.offload_kind), e.triple or "notriple"]
                    if e.arch:
                        parts.append(e.arch)
                    in_sec = None if b.compressed is not None else b.offset + e.image_offset
                    out.append(Payload(
                        "offload-image", bytes(e.image), offset=in_sec if in_sec is not None else b.offset,
                        file_offset=None if (foff is None or in_sec is None) else foff + in_sec,
                        ext="." + IMAGE_EXT.get(e.image_kind, "bin"), stem=_safe("-".join(parts)),
                        info={"blob": bi, "entry": e.index, "triple": e.triple, "arch": e.arch,
                              "image_kind": IMAGE_KINDS.get(e.image_kind, str(e.image_kind)),
                              "offload_kind": offload_kind_flags(e.offload_kind),
                              "compressed_blob": b.compressed is not None}, **common))
    return out


def coverage_payloads(obj, errors: list) -> list:
    """``extract --coverage``: the object's coverage mapping and names as one file llvm-cov reads in place of the
    binary (LLVM's coverage-mapping testing format), and the instrumented functions' names, one a line."""
    from ..sections.support.instrprof import NameList, decode_name_list, linked_pe_names, section_role
    from ..sections.coverage_map import decode_covfun, testing_format
    out = []
    prefix = _stem_of(obj.path) + (f"-{_stem_of(obj.member)}" if obj.member else "")
    common = dict(file=obj.path, member=obj.member)
    try:
        blob = testing_format(obj)
    except ObjllvmError as exc:
        errors.append(exc.located(file=obj.path, member=obj.member))
        blob = None
    if blob is not None:
        first = next(s for s in obj.sections if section_role(s, obj) == "covmap")
        nfun = 0
        for s in obj.sections:
            if section_role(s, obj) == "covfun":
                try:
                    nfun += len(decode_covfun(s.data(), obj.endian).records)
                except ObjllvmError as exc:
                    errors.append(exc.located(file=obj.path, member=obj.member, section_index=s.index,
                                              section_name=s.name))
        out.append(Payload("coverage-mapping", blob, section=first.name, section_index=first.index, offset=0,
                           file_offset=None, ext=".covmapping", stem=f"{prefix}-coverage",
                           info={"format": "llvm-cov testing format, version 2", "functions": nfun}, **common))
    names = []
    first = None
    for s in obj.sections:
        if section_role(s, obj) in ("names", "covnames"):
            first = first or s
            try:
                nl = decode_name_list(s.data(), linked_pe_names(s, obj))
            except ObjllvmError as exc:
                errors.append(exc.located(file=obj.path, member=obj.member, section_index=s.index,
                                          section_name=s.name))
                nl = exc.partial or NameList()
            names.extend(nl.all_names())
    if first is not None:
        text = "".join(n + "\n" for n in names).encode("utf-8", "surrogateescape")
        out.append(Payload("profile-names", text, section=first.name, section_index=first.index, offset=0,
                           file_offset=None, ext=".txt", stem=f"{prefix}-profile-names",
                           info={"names": len(names)}, **common))
    return out


def collect_payloads(paths, skipped: list | None = None, coverage: bool = False) -> tuple:
    """(payloads, errors) of every input; payload names are made unique and deterministic.  An empty payload
    (a command line with no arguments, a zero-byte image) is not a file: it goes to ``skipped`` (manifest
    entries saying why) instead.  ``coverage``: also each object's coverage mapping and profile names (see
    :func:`coverage_payloads`)."""
    from ..formats import iter_objects
    payloads, errors = [], []
    for p in paths:
        for o in iter_objects(p):
            if isinstance(o, ObjllvmError):
                errors.append(o)
                continue
            found = payloads_of_object(o, errors)
            if coverage:
                found += coverage_payloads(o, errors)
            for pl in found:
                if pl.data:
                    payloads.append(pl)
                elif skipped is not None:
                    skipped.append({"kind": pl.kind, "file": pl.file, "member": pl.member, "section": pl.section,
                                    "section_index": pl.section_index, "reason": "empty: nothing to write"})
    used = {MANIFEST}
    for pl in payloads:
        stem = _short(_safe(pl.stem), NAME_MAX - len(pl.ext) - 8)      # (8: room for "-N")
        name = stem + pl.ext
        n = 2
        while name in used:
            name = f"{stem}-{n}{pl.ext}"
            n += 1
        used.add(name)
        pl.name = name
    return payloads, errors


def manifest(payloads, errors, skipped=()) -> dict:
    """The manifest of an extraction: every payload written (where it came from, its SHA-256), the errors and
    the members skipped."""
    from hashlib import sha256       # (here: only an extraction's manifest hashes)
    items = []
    for pl in payloads:
        d = {"path": pl.name, "kind": pl.kind, "file": pl.file, "member": pl.member, "section": pl.section,
             "section_index": pl.section_index, "offset": pl.offset, "file_offset": pl.file_offset,
             "size": len(pl.data), "sha256": sha256(pl.data).hexdigest()}
        d.update(pl.info)
        items.append(d)
    return {"schema": "objllvm-extract", "version": 1, "payloads": items, "skipped": list(skipped),
            "errors": [str(e) for e in errors]}


def _earlier_manifest(path: str):
    """The payload entries of the manifest an earlier extract left at ``path`` (None: none there; raises when
    it is there but not one)."""
    import os

    from ..render import loads_plain
    if not os.path.lexists(path):
        return None
    try:
        with open(path, "rb") as f:
            doc = loads_plain(f.read().decode("utf-8-sig"))      # (json.loads of the bytes: the same)
        if doc.get("schema") != "objllvm-extract" or not isinstance(doc.get("payloads"), list):
            raise ValueError("not an objllvm-extract manifest")
    except (OSError, ValueError, AttributeError, RecursionError) as exc:   # (RecursionError: nested too deep)
        raise ObjllvmError(f"{path}: exists but is not an objllvm extract manifest ({exc}); nothing written "
                           f"(remove it or choose another directory)") from None
    return [p for p in doc["payloads"] if isinstance(p, dict) and isinstance(p.get("path"), str)]


def _own_name(path: str) -> bool:
    """``path`` (an earlier manifest's entry) names a file directly inside the output directory, as every name
    extract writes does: no directory part, not ``.``/``..``, not the manifest itself.  Any other entry (one
    edited to read ``../../etc/passwd``) is dropped from the merged manifest, never followed."""
    return (bool(path) and "/" not in path and "\\" not in path and "\0" not in path
            and path not in (".", "..", MANIFEST))


def extract(paths, outdir: str, *, force: bool = False, coverage: bool = False) -> tuple:
    """Write every payload of ``paths`` to its own file in ``outdir`` plus ``manifest.json``.

    All target names are checked first: without ``force`` nothing is written when any exists (a manifest of
    an earlier extract there is refused by name; with ``force`` the two manifests are merged: the earlier
    entries whose files this run does not replace and which are still there stay listed; an entry that does not
    name a file directly in ``outdir`` is dropped).  A name longer than ``NAME_MAX`` is shortened, with a hash
    of the whole name to keep it unique.  Each file is
    written atomically; if a write fails, the files this call created are removed again.  A run that found
    nothing to write and had errors writes nothing, not even a manifest (``doc["written"]`` is False).
    Empty payloads are listed under ``skipped``, never written as empty files.  Returns (manifest dict,
    errors)."""
    import os

    from ..atomicio import atomic_write
    from ..render import dumps_plain
    skipped = []
    payloads, errors = collect_payloads(paths, skipped, coverage=coverage)
    doc = manifest(payloads, errors, skipped)
    mpath = os.path.join(outdir, MANIFEST)
    if errors and not payloads:
        doc["written"] = False
        return doc, errors
    earlier = _earlier_manifest(mpath)
    if earlier is not None and not force:
        raise ObjllvmError(f"{outdir} holds the manifest of an earlier extract ({len(earlier)} payloads): use "
                           f"--force to replace its files and merge the two manifests, or another directory; "
                           f"nothing written")
    if earlier:
        new = {pl.name for pl in payloads}
        kept = [p for p in earlier if p["path"] not in new and _own_name(p["path"])
                and os.path.lexists(os.path.join(outdir, p["path"]))]
        doc["payloads"] = kept + doc["payloads"]
        doc["merged"] = len(kept)
    targets = [os.path.join(outdir, pl.name) for pl in payloads] + [mpath]
    if not force:
        existing = [t for t in targets if os.path.lexists(t)]
        if existing:
            more = f" and {len(existing) - 3} more" if len(existing) > 3 else ""
            raise ObjllvmError(f"{', '.join(existing[:3])}{more}: exist (use --force to overwrite); nothing written")
    from ..atomicio import signals_deferred
    made = not os.path.isdir(outdir)       # (removed again if nothing could be written into it)
    try:
        os.makedirs(outdir, exist_ok=True)
    except OSError as exc:
        raise ObjllvmError(f"{outdir}: cannot create the output directory: {exc.strerror}") from None
    existed = {t for t in targets if os.path.lexists(t)}
    # Each file is written atomically (temporary file, fsync, rename).  The writes run in a few threads: the
    # file system commits their fsyncs together instead of one after the other.
    from ..atomicio import run_in_threads
    failures = []

    def write(job):
        pl, t = job
        try:
            atomic_write(t, pl.data, force=force)
        except BaseException as exc:       # noqa: BLE001  (re-raised below, after cleaning up)
            failures.append(exc)
    jobs = list(zip(payloads, targets))
    # SIGTERM: noted while the worker threads write (an exception in the middle of the pool's bookkeeping could
    # leave a worker writing past the clean-up), acted on after them: the same clean-up as a failed write
    with signals_deferred() as sig:
        try:
            run_in_threads(write, jobs, min(16, len(jobs)))       # (one job: in this thread)
            sig.check()
            if not failures:
                atomic_write(targets[-1], (dumps_plain(doc, 2) + "\n").encode(), force=force)
            sig.check()
        except BaseException as exc:       # noqa: BLE001
            failures.append(exc)
        if failures:
            for t in targets:
                if t not in existed:
                    try:
                        os.unlink(t)
                    except OSError:
                        pass
            if made:
                try:
                    os.rmdir(outdir)       # only if empty: never anything that was there before
                except OSError:
                    pass
            raise failures[0]
    doc["written"] = True
    return doc, errors
