"""The operations of ``objllvm rewrite`` that edit contents: each one edits the sections of a rewrite
:class:`~objllvm.rewrite.session.Session` through the codec registry.  The removals (:class:`Operation`, the
base of all, ``Remove`` and ``StripLLVM``) are in :mod:`objllvm.rewrite.removal`, and importable from here too."""
from ..errors import ObjllvmError, UsageError
from .removal import Operation, Remove, StripLLVM  # noqa: F401  (re-exported: importable from here too)
from .session import _exc_text


class DropLinkerOption(Operation):
    def __init__(self, spec: str):
        if "=" not in spec:
            raise UsageError(f"--drop-linker-option {spec!r}: expected KEY=GLOB (e.g. lib=z*)")
        self.key, self.glob = spec.split("=", 1)
        self.text = f"--drop-linker-option {spec}"

    def apply(self, sess):
        hit = 0
        for s in sess.by_kind_or_name("linker-options", self.text):
            codec, m = sess.model(s, "linker-options")
            import fnmatch          # (here: it imports re, which a rewrite without this operation does without)
            keep = [o for o in m.options if not (fnmatch.fnmatchcase(o.key, self.key)
                                                 and fnmatch.fnmatchcase(o.value, self.glob))]
            hit += len(m.options) - len(keep)
            m.options = keep
        if not hit:
            raise sess.err(f"{self.text}: no linker option matches")


class AddLinkerOption(Operation):
    def __init__(self, spec: str):
        if "=" not in spec:
            raise UsageError(f"--add-linker-option {spec!r}: expected KEY=VALUE (e.g. lib=z)")
        self.key, self.value = spec.split("=", 1)
        self.text = f"--add-linker-option {spec}"

    def apply(self, sess):
        from ..sections.linker_options import LinkerOption, LinkerOptions
        secs = sess.of_kind("linker-options")
        if secs:
            codec, m = sess.model(secs[0], "linker-options")
            m.options.append(LinkerOption(self.key, self.value))
            return
        sess.add_section("linker-options", LinkerOptions([LinkerOption(self.key, self.value)]))


class DropDeplib(Operation):
    def __init__(self, glob: str):
        self.glob = glob
        self.text = f"--drop-deplib {glob}"

    def apply(self, sess):
        hit = 0
        for s in sess.by_kind_or_name("deplibs", self.text):
            codec, m = sess.model(s, "deplibs")
            import fnmatch
            keep = [x for x in m.libraries if not fnmatch.fnmatchcase(x, self.glob)]
            hit += len(m.libraries) - len(keep)
            m.libraries = keep
            m.offsets = []
        if not hit:
            raise sess.err(f"{self.text}: no dependent library matches")


class AddDeplib(Operation):
    def __init__(self, name: str):
        if not name or "\0" in name:
            raise UsageError(f"--add-deplib {name!r}: expected a library name")
        self.name = name
        self.text = f"--add-deplib {name}"

    def apply(self, sess):
        from ..sections.deplibs import DependentLibraries
        secs = sess.of_kind("deplibs")
        if secs:
            codec, m = sess.model(secs[0], "deplibs")
            m.libraries.append(self.name)
            m.offsets = []
            return
        sess.add_section("deplibs", DependentLibraries([self.name]))


class DropAddrsig(Operation):
    text = "--drop-addrsig"

    def apply(self, sess):
        for s in sess.by_kind_or_name("addrsig", self.text):
            sess.remove(s)


class DropCGEdge(Operation):
    def __init__(self, spec: str):
        if ":" not in spec:
            raise UsageError(f"--drop-cg-edge {spec!r}: expected FROM:TO (symbol names or globs)")
        self.src, self.dst = spec.split(":", 1)
        self.text = f"--drop-cg-edge {spec}"

    def apply(self, sess):
        hit = 0
        for s in sess.by_kind_or_name("cg-profile", self.text):
            codec, m = sess.model(s, "cg-profile")
            unnamed = sum(e.source.name is None or e.target.name is None for e in m.edges)
            if unnamed:
                why = ("it has no relocations (a linked file, or relocations stripped)" if unnamed == len(m.edges)
                       else f"{unnamed} of its {len(m.edges)} edges have no symbol (relocations missing or "
                            f"unreadable: see `objllvm dump`)")
                raise sess.err(f"{self.text}: edges cannot be matched by name: {why}; refused, since an edge "
                               f"without names could be the one to drop", s)
            import fnmatch
            keep = [e for e in m.edges if not (fnmatch.fnmatchcase(e.source.name or "", self.src)
                                               and fnmatch.fnmatchcase(e.target.name or "", self.dst))]
            hit += len(m.edges) - len(keep)
            m.edges = keep
        if not hit:
            raise sess.err(f"{self.text}: no call-graph edge matches")


class ScaleCGWeights(Operation):
    def __init__(self, factor):
        try:
            self.factor = float(factor)
        except ValueError:
            raise UsageError(f"--scale-cg-weights {factor!r}: expected a number") from None
        if not self.factor >= 0 or self.factor == float("inf"):
            raise UsageError(f"--scale-cg-weights {factor!r}: expected a finite number >= 0")
        self.text = f"--scale-cg-weights {factor}"

    def apply(self, sess):
        for s in sess.by_kind_or_name("cg-profile", self.text):
            codec, m = sess.model(s, "cg-profile")
            for e in m.edges:
                w = int(round(e.weight * self.factor))
                if w >= 1 << 64:
                    raise sess.err(f"{self.text}: weight {e.weight} x {self.factor} does not fit in 64 bits", s)
                e.weight = w


class StripBitcode(Operation):
    text = "--strip-bitcode"

    def apply(self, sess):
        secs = sorted(sess.of_kind("bitcode") + sess.of_kind("llvmcmd"), key=lambda s: s.index)
        if not secs:
            raise sess.err(f"{self.text}: no embedded bitcode (.llvmbc, .llvmcmd, .llvm.lto) in this file")
        for s in secs:
            sess.remove(s)


def check_bitcode(data: bytes, path: str) -> None:
    """Raise ObjllvmError unless ``data`` is LLVM bitcode (raw or wrapped) that the bitstream reader reads."""
    if data[:4] not in (b"BC\xc0\xde", b"\xde\xc0\x17\x0b"):
        raise ObjllvmError(f"not LLVM bitcode: magic {data[:4].hex(' ') or '(empty file)'} (expected "
                           f"42 43 c0 de, or the wrapper de c0 17 0b)", file=path, offset=0)
    try:
        from ..sections.support import bitcode_summary as bc
    except ImportError:      # the bitstream reader is optional here
        return
    try:
        bc.summarize(data)
    except ObjllvmError as exc:
        raise exc.located(file=path)


class ReplaceBitcode(Operation):
    def __init__(self, path: str):
        self.path = path
        self.text = f"--replace-bitcode {path}"

    def apply(self, sess):
        try:
            with open(self.path, "rb") as f:
                data = f.read()
        except OSError as exc:
            raise ObjllvmError(f"cannot read: {exc.strerror}", file=self.path) from None
        check_bitcode(data, self.path)
        secs = sess.of_kind("bitcode")
        if not secs:
            raise sess.err(f"{self.text}: no .llvmbc or .llvm.lto section to replace")
        for s in secs:
            codec, _m = sess.model(s, "bitcode")
            sess.replace_model(s, codec, codec.decode(data, sess.ctx(s)))


class DropOffload(Operation):
    """Drop the offloading images of a target (``TRIPLE`` or ``TRIPLE:ARCH``, globs allowed).  A blob left with
    no image goes; a blob that keeps some of its images is written again (as LLVM lays one out); a section
    left with no blob is removed."""

    def __init__(self, spec: str):
        if not spec or spec.startswith(":"):
            raise UsageError(f"--drop-offload {spec!r}: expected TRIPLE[:ARCH] (e.g. nvptx64-nvidia-cuda:sm_70)")
        self.triple, _, self.arch = spec.partition(":")
        self.text = f"--drop-offload {spec}"

    def _match(self, e) -> bool:
        import fnmatch
        return fnmatch.fnmatchcase(e.triple, self.triple) and (not self.arch or fnmatch.fnmatchcase(e.arch,
                                                                                                      self.arch))

    def apply(self, sess):
        from ..sections import registry
        if "offloading" not in registry.kinds():
            raise UsageError(f"{self.text}: the offloading codec is not available")
        from ..sections import offloading as off
        hit = 0
        for s in sess.by_kind_or_name("offloading", self.text):
            codec, m = sess.model(s, "offloading")
            data = codec.encode(m, sess.ctx(s))
            parts = []
            for b in m.blobs:
                if b.error:
                    raise sess.err(f"{self.text}: blob at offset {b.offset:#x} cannot be read ({b.error})", s)
                drop = [e for e in b.entries if self._match(e)]
                hit += len(drop)
                end = b.offset + b.size + len(b.padding)
                if not drop:
                    parts.append(data[b.offset:end])
                elif len(drop) < len(b.entries):
                    images = [{"image": e.image, "image_kind": e.image_kind, "offload_kind": e.offload_kind,
                               "flags": e.flags, "strings": [(x.key, x.value) for x in e.strings]}
                              for e in b.entries if e not in drop]
                    comp = b.compression if b.compressed is not None else None
                    parts.append(off.write_offload_binary(images, max(b.version, 2), comp))
            new = b"".join(parts)
            if not new:
                sess.remove(s)
                continue
            sess.replace_model(s, codec, codec.decode(new, sess.ctx(s)))
        if not hit:
            raise sess.err(f"{self.text}: no offloading image matches")


class StripPGOAnalysis(Operation):
    text = "--strip-pgo-analysis"

    def apply(self, sess):
        from ..sections import registry
        if "bb-addr-map" not in registry.kinds():
            raise UsageError(f"{self.text}: the bb-addr-map codec is not available")
        from ..sections import bb_addr_map as bam
        pgo = bam.FUNC_ENTRY_COUNT | bam.BB_FREQ | bam.BR_PROB | bam.POST_LINK_CFG
        hit = 0
        for s in sess.by_kind_or_name("bb-addr-map", self.text):
            codec, m = sess.model(s, "bb-addr-map")
            for fn in m.functions:
                if fn.feature & pgo or fn.entry_count is not None or fn.pgo_blocks:
                    hit += 1
                    fn.feature &= ~pgo
                    fn.entry_count = None
                    fn.pgo_blocks = None
        if not hit:
            raise sess.err(f"{self.text}: no basic-block address map has PGO analysis data")


class SetSection(Operation):
    """Replace a section's contents with edited ``objllvm dump --json`` output (``codec.from_dict`` then
    ``codec.encode``)."""

    def __init__(self, spec: str):
        if "=" not in spec:
            raise UsageError(f"--set-section {spec!r}: expected KIND=FILE.json")
        self.kind, self.path = spec.split("=", 1)
        self.text = f"--set-section {spec}"

    def apply(self, sess):
        from ..sections import registry
        codec = registry.get(self.kind)
        try:
            import json
            with open(self.path, encoding="utf-8") as f:
                doc = json.load(f)
        except OSError as exc:
            raise ObjllvmError(f"cannot read: {exc.strerror}", file=self.path) from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise ObjllvmError(f"not JSON: {exc}", file=self.path) from None
        want = None
        if isinstance(doc, dict) and doc.get("schema") == "objllvm-dump":
            found = [(f, s) for f in doc.get("files") or [] for s in f.get("sections") or []
                     if isinstance(s, dict) and s.get("kind") == self.kind]
            if len(found) != 1:
                raise ObjllvmError(f"the dump document has {len(found)} {self.kind} sections (expected exactly "
                                   f"one; keep only the one to set, or give its \"content\" object)", file=self.path)
            want = found[0][1]
            content = want.get("content")
            if not isinstance(content, dict):
                raise ObjllvmError(f"the {self.kind} section in the dump has no \"content\" object", file=self.path)
        else:
            content = doc
        if not isinstance(content, dict):
            raise ObjllvmError(f"expected a JSON object (the section's \"content\"), found {type(content).__name__}",
                               file=self.path)
        secs = sess.by_kind_or_name(self.kind, self.text)
        if want is not None and len(secs) > 1:
            secs = [s for s in secs if s.name == want.get("name") and s.index == want.get("index")] or secs
        if len(secs) > 1:
            raise sess.err(f"{self.text}: {len(secs)} {self.kind} sections ("
                           + ", ".join(f"[{s.index}] {s.name}" for s in secs)
                           + "): give the dump document of the one to set (it names the section index)")
        s = secs[0]
        sess.model(s, self.kind)
        ctx = sess.ctx(s)
        try:
            model = codec.from_dict(content, ctx)
        except ObjllvmError as exc:
            raise exc.located(file=self.path)
        except NotImplementedError as exc:
            raise UsageError(str(exc)) from None
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as exc:
            raise ObjllvmError(f"the JSON does not match the {self.kind} schema: {_exc_text(exc)} (expected "
                               f"what `objllvm dump --json -s {self.kind}` prints as \"content\")",
                               file=self.path) from None
        sess.replace_model(s, codec, model)


# -- API ---------------------------------------------------------------------------------------------
