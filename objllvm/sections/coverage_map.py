"""Coverage-mapping sections (``-fcoverage-mapping``; rustc ``-C instrument-coverage``).

One codec, kind ``coverage``, for ``__llvm_covmap`` and ``__llvm_covfun`` (COFF ``.lcovmap$M``/``.lcovfun$M``,
Mach-O ``__LLVM_COV,__llvm_cov*``), coverage-mapping format versions 4 to 7 (stored 3 to 6; LLVM 19 and LLVM 22
both write version 7, the one with MC/DC regions):

* ``__llvm_covmap``: one record per translation unit: ``u32 0, u32 file-names size, u32 0, u32 version`` and the
  file-name list (``uleb count, uleb uncompressed size, uleb compressed size``, then zlib data or
  ``uleb length, bytes`` per name; the first name is the compilation directory), padded to 8;
* ``__llvm_covfun``: one record per function: ``u64 name hash, u32 mapping size, u64 structural hash,
  u64 file-list hash`` (packed, 28 bytes), the mapping, padding to 8.  The mapping: ``uleb file count`` and that
  many indices into the unit's file list, ``uleb expression count`` and (LHS, RHS) counter pairs, then per file
  ``uleb region count`` and the regions: a counter or a region kind (expansion, skipped, branch, MC/DC decision,
  MC/DC branch) and its operands, then ``uleb line delta, uleb column, uleb line count, uleb end column`` (the end
  column's top bit marks a gap region).

Counters print as ``0`` (zero), ``#N`` (counter N) and ``eN`` (expression N); an expression as ``#0 - #1``.
Function names come from the object's name lists by hash, file names from the ``__llvm_covmap`` record whose
file-list hash the function names.

The models of ``__llvm_covfun`` and its plain decoder are in ``support/coverage_model.py``; a section is read by
the fast decoder of ``support/covfun_fast.py`` (region columns; the Region objects are made when
``Mapping.regions`` is first read), which hands any record it does not take to the plain one, and written to
JSON from those columns by ``support/covfun_json.py``.  docs/profile-coverage.md, "How ``__llvm_covfun`` is read
and written".
"""
from __future__ import annotations

from .._model import dataclass, field, no_gc
from ..binary import Reader, decode_text, encode_text, pack_uint, uleb_encode
from ..errors import DecodeError
from .registry import Codec, Table, register
from .support.coverage_model import (  # noqa: F401  (the models and the plain decoder, re-exported)
    BRANCH, CODE, DECISION, EXPANSION, GAP, GAP_BIT, HEADER, KINDS, MCDC_BRANCH, SKIPPED, U32, VERSIONS,
    WHOLE_LINE_END, CoverageFunctions, FunctionRecord, Mapping, Region, counter_json, counter_parse, counter_text,
    decode_mapping, decode_records, encode_mapping)
from .support.instrprof import (COVERAGE_ROLES, ObjectCache, cached_per_object, deflate, inflate, name_hash,
                                names_by_hash, role_for, section_role)


@dataclass
class FileList:
    names: list = field(default_factory=list)      # str; the first is the compilation directory (version >= 6)
    compressed: bytes | None = None
    raw: bytes | None = None                       # the blob as stored, when re-encoding would differ

    def encode(self) -> bytes:
        if self.raw is not None:
            return self.raw
        plain = b"".join(uleb_encode(len(b)) + b for b in (encode_text(n) for n in self.names))
        if self.compressed is not None:
            comp = self.compressed
            import zlib
            try:
                ok = zlib.decompress(comp) == plain
            except zlib.error:
                ok = False
            if not ok:
                comp = deflate(plain)
            return uleb_encode(len(self.names)) + uleb_encode(len(plain)) + uleb_encode(len(comp)) + comp
        return uleb_encode(len(self.names)) + uleb_encode(len(plain)) + uleb_encode(0) + plain


@dataclass
class CovMapRecord:
    offset: int
    version: int                     # stored value (6: format version 7)
    files: FileList
    filenames_hash: int              # MD5 of the stored file-list blob: the key covfun records name
    n_records: int = 0
    coverage_size: int = 0
    padding: bytes = b""


@dataclass
class CoverageMap:
    records: list = field(default_factory=list)


def _read_file_list(blob: bytes, version: int, base: int) -> FileList:
    r = Reader(blob)
    count = r.uleb("file-name count")
    ulen = r.uleb("uncompressed size of the file names")
    clen = r.uleb("compressed size of the file names")
    if clen:
        r.need(clen, "compressed file names")
        comp = blob[r.pos:r.pos + clen]
        plain = inflate(comp, ulen, "file names", base + r.pos)
        r.pos += clen
        if not r.at_end():
            raise DecodeError(f"{r.remaining()} bytes after the compressed file names", offset=base + r.pos)
        pr, pbase = Reader(plain), None
    else:
        comp = None
        pr, pbase = r, base
    names = []
    if count > pr.remaining() + 1:
        raise DecodeError(f"{count} file names cannot fit in {pr.remaining()} bytes", offset=base)
    try:
        for _ in range(count):
            n = pr.uleb("file-name length")
            names.append(decode_text(pr.bytes(n, "file name")))
    except DecodeError as exc:
        if pbase is None:
            exc.message = f"in the uncompressed file names: {exc.message}"
            exc.offset = base
        else:
            exc.offset += pbase
        raise
    if not pr.at_end():
        raise DecodeError(f"{pr.remaining()} bytes after {count} file names", offset=base + (pr.pos if pbase is not None
                                                                                             else 0))
    out = FileList(names, comp)
    if out.encode() != blob:
        out.raw = bytes(blob)
    return out


def decode_covmap(data, e="<") -> CoverageMap:
    out = CoverageMap()
    r = Reader(data, e)
    n = len(data)
    while r.pos < n:
        start = r.pos
        try:
            nrec = r.u32("record count (0)")
            fsize = r.u32("file-name list size")
            csize = r.u32("coverage size (0)")
            version = r.u32("coverage-mapping version")
            if version not in VERSIONS:
                raise DecodeError(f"coverage-mapping version {version + 1} (stored {version}): expected versions 4 "
                                  f"to 7 (stored 3-6; LLVM 19 and 22 write 7)", offset=start + 12)
            if nrec or csize:
                raise DecodeError(f"record count {nrec} and coverage size {csize}: expected 0 and 0 (function "
                                  f"records live in __llvm_covfun from version 4)", offset=start)
            blob = r.bytes(fsize, "file-name list")
            files = _read_file_list(blob, version, start + 16)
            end = min((r.pos + 7) & ~7, n)
            pad = r.bytes(end - r.pos, "padding")
        except DecodeError as exc:
            exc.partial = out
            raise
        out.records.append(CovMapRecord(start, version, files, name_hash(blob), nrec, csize, pad))
    return out


def encode_covmap(m: CoverageMap, e="<") -> bytes:
    parts = []
    for rec in m.records:
        blob = rec.files.encode()
        parts.append(pack_uint(rec.n_records, 4, e) + pack_uint(len(blob), 4, e) +
                     pack_uint(rec.coverage_size, 4, e) + pack_uint(rec.version, 4, e) + blob + rec.padding)
    return b"".join(parts)



def decode_covfun(data, e="<", obj=None) -> CoverageFunctions:
    """The function records; names and file names joined from ``obj``'s other sections when given.  Read by
    ``support/covfun_fast.decode``, which gives what the plain ``decode_records`` gives (records, errors,
    partial results)."""
    from .support import covfun_fast
    return covfun_fast.decode(bytes(data), e, names_by_hash(obj), _files_by_hash(obj))


def encode_covfun(m: CoverageFunctions, e="<") -> bytes:
    import struct
    hdr = struct.Struct(e + "QIQQ")
    parts = []
    for r in m.records:
        body = r.raw if r.raw is not None else encode_mapping(r.mapping)
        parts.append(hdr.pack(r.name_hash, len(body), r.func_hash, r.filenames_hash) + body + r.padding)
    return b"".join(parts)


def resolved_files(rec: CovMapRecord) -> list:
    """The unit's file names as llvm-cov shows them: relative ones joined to the compilation directory."""
    import posixpath
    names = rec.files.names
    if rec.version < 5 or not names:
        return list(names)
    cwd = names[0]
    out = [cwd]
    for n in names[1:]:
        if n.startswith("/") or not cwd:
            out.append(n)
        else:
            out.append(posixpath.normpath(posixpath.join(cwd, n)))
    return out


_FILES_CACHE = ObjectCache()


def _files_by_hash(obj) -> dict:
    """{file-list hash: resolved file names} of every ``__llvm_covmap`` record of ``obj`` (cached per object: an
    ELF object has one ``__llvm_covfun`` section per function)."""
    return cached_per_object(_FILES_CACHE, obj, _files_table)


def _files_table(obj) -> dict:
    table = {}
    for s in obj.sections:
        if section_role(s, obj) == "covmap":
            try:
                cm = decode_covmap(s.data(), obj.endian)
            except DecodeError as exc:
                cm = exc.partial or CoverageMap()
            for rec in cm.records:
                table.setdefault(rec.filenames_hash, resolved_files(rec))
    return table


# -- views ----------------------------------------------------------------------------------------------------------
_COUNTER_JSON: dict = {}


def _cj(v: int) -> str:
    t = _COUNTER_JSON.get(v)
    if t is None:
        t = counter_json(v)
        if len(_COUNTER_JSON) < 65536:
            _COUNTER_JSON[v] = t
    return t


def region_dict(r: Region) -> dict:
    if r.kind == CODE and (r.col_start or r.col_end):       # most regions: a code or gap region, columns given
        return {"kind": "gap" if r.gap else "code", "file": r.file, "line_start": r.line_start,
                "col_start": r.col_start, "line_end": r.line_end, "col_end": r.col_end, "counter": _cj(r.counter)}
    ls, cs, le, ce = r.span()
    d = {"kind": KINDS[r.display_kind], "file": r.file, "line_start": ls, "col_start": cs, "line_end": le,
         "col_end": ce}
    if r.kind in (CODE, BRANCH, MCDC_BRANCH):
        d["counter"] = _cj(r.counter)
    if r.kind in (BRANCH, MCDC_BRANCH):
        d["false_counter"] = _cj(r.false_counter)
    if r.kind == EXPANSION:
        d["expanded_file"] = r.expanded_file
    if r.kind == DECISION:
        d["bitmap_index"], d["conditions"] = r.params
    if r.kind == MCDC_BRANCH:
        d["condition_id"], d["true_id"], d["false_id"] = (p - 1 for p in r.params)
    if r.col_start == 0 and r.col_end == 0:
        d["whole_line"] = True
    return d


def function_dict(r: FunctionRecord) -> dict:
    """A function record as to_dict gives it."""
    m = r.mapping
    return {"offset": r.offset, "name": r.name, "name_hash": f"{r.name_hash:#018x}",
            "structural_hash": f"{r.func_hash:#018x}", "filenames_hash": f"{r.filenames_hash:#018x}",
            "file_ids": list(m.file_ids), "files": r.files,
            "expressions": [{"lhs": counter_json(a), "rhs": counter_json(b)} for a, b in m.expressions],
            "regions": [region_dict(x) for x in m.regions],
            "raw": r.raw.hex() if r.raw is not None else None, "padding": r.padding.hex()}

def region_from_dict(d: dict) -> Region:
    kind = KINDS.index(d["kind"])
    gap = kind == GAP
    if gap:
        kind = CODE
    whole = d.get("whole_line")
    cs, ce = (0, 0) if whole else (int(d["col_start"]), int(d["col_end"]))
    params = ()
    if kind == DECISION:
        params = (int(d["bitmap_index"]), int(d["conditions"]))
    elif kind == MCDC_BRANCH:
        params = (int(d["condition_id"]) + 1, int(d["true_id"]) + 1, int(d["false_id"]) + 1)
    return Region(kind, int(d["file"]), counter_parse(d.get("counter", 0)), int(d["line_start"]), cs,
                  int(d["line_end"]), ce, gap, counter_parse(d.get("false_counter", 0)),
                  int(d.get("expanded_file", 0)), params)


def _same_files(raw: bytes, version: int, names: list) -> bool:
    try:
        return _read_file_list(raw, version, 0).names == names
    except DecodeError:
        return False


def _same_mapping(raw: bytes, m: Mapping) -> bool:
    try:
        return decode_mapping(raw, 0, len(raw))[0] == m
    except DecodeError:
        return False


def expression_text(m: Mapping, i: int) -> str:
    lhs, rhs = m.expressions[i]
    kinds = {r for r in _refs(m) if r >> 2 == i}
    if not kinds:       # no counter names it, so nothing says whether it adds or subtracts
        return f"{counter_text(lhs)} ? {counter_text(rhs)} (not referenced)"
    op = "+" if any(k & 3 == 3 for k in kinds) else "-"
    return f"{counter_text(lhs)} {op} {counter_text(rhs)}"


def _refs(m: Mapping):
    for a, b in m.expressions:
        if a & 2:
            yield a
        if b & 2:
            yield b
    for r in m.regions:
        if r.counter & 2:
            yield r.counter
        if r.false_counter & 2:
            yield r.false_counter


@register
class CoverageCodec(Codec):
    kind = "coverage"
    description = "coverage mapping (-fcoverage-mapping): file lists, per-function regions and counter expressions"
    formats = ("elf", "coff", "macho")
    names = ("__llvm_covfun", "__llvm_covmap")     # recognised by section_role; listed for the fuzz harness
    name_hints = ("cov",)

    def matches_name(self, section, obj, options=None) -> bool:
        return section_role(section, obj) in COVERAGE_ROLES

    def decode(self, data, ctx):
        role = role_for(ctx, "covfun")
        if role == "covmap":
            return decode_covmap(data, ctx.endian)
        with no_gc():       # many small acyclic objects: the collector's passes over them free nothing
            return decode_covfun(data, ctx.endian if ctx is not None else "<", ctx.obj if ctx is not None else None)

    def encode(self, model, ctx):
        if isinstance(model, CoverageMap):
            return encode_covmap(model, ctx.endian if ctx is not None else "<")
        return encode_covfun(model, ctx.endian if ctx is not None else "<")

    def to_json(self, model):
        if type(model) is not CoverageFunctions:
            return None
        from .support.covfun_json import covfun_json_chunks, json_ready, json_size_at_least, no_gc_chunks
        with no_gc():
            packed = json_ready(model)
        if packed is None:
            return None
        from ..render import BIG_JSON, JSONStream
        # The size decides whether the document is indented (render.BIG_JSON): when the text is certainly
        # longer, that bound; else the exact length of the compact text (made, and kept for a compact
        # document: it is then at most a few MB).
        size = json_size_at_least(model)
        compact = None
        if size <= BIG_JSON:
            with no_gc():
                compact = list(covfun_json_chunks(model, packed, None))
            size = sum(map(len, compact))

        def chunks(indent):
            if indent is None and compact is not None:
                return iter(compact)
            return no_gc_chunks(covfun_json_chunks(model, packed, indent))
        return JSONStream(size, chunks)

    def to_dict(self, model):
        if isinstance(model, CoverageMap):
            return {"role": "covmap", "units": [{
                "offset": r.offset, "version": r.version + 1, "filenames_hash": f"{r.filenames_hash:#018x}",
                "compressed": r.files.compressed is not None, "files": list(r.files.names),
                "resolved_files": resolved_files(r), "padding": r.padding.hex(),
                "compressed_bytes": r.files.compressed.hex() if r.files.compressed is not None else None,
                "raw": r.files.raw.hex() if r.files.raw is not None else None} for r in model.records]}
        return {"role": "covfun", "functions": [function_dict(r) for r in model.records]}

    def from_dict(self, d, ctx):
        if d.get("role") == "covmap":
            out = CoverageMap()
            for u in d["units"]:
                comp = u.get("compressed_bytes")
                if comp is not None:
                    comp = bytes.fromhex(comp)
                elif u.get("compressed"):
                    comp = b""          # no zlib stream: FileList.encode compresses the names afresh
                fl = FileList(list(u["files"]), comp)
                raw = bytes.fromhex(u["raw"]) if u.get("raw") else None
                if raw is not None and _same_files(raw, int(u["version"]) - 1, fl.names):
                    fl.raw = raw        # the stored bytes, unless the names were edited
                blob = fl.encode()
                out.records.append(CovMapRecord(int(u.get("offset", 0)), int(u["version"]) - 1, fl, name_hash(blob),
                                                padding=bytes.fromhex(u.get("padding", ""))))
            return out
        out = CoverageFunctions()
        for f in d["functions"]:
            m = Mapping([int(x) for x in f["file_ids"]],
                        [(counter_parse(x["lhs"]), counter_parse(x["rhs"])) for x in f["expressions"]],
                        [region_from_dict(x) for x in f["regions"]])
            raw = bytes.fromhex(f["raw"]) if f.get("raw") else None
            if raw is not None and not _same_mapping(raw, m):
                raw = None              # edited: encode the regions given
            out.records.append(FunctionRecord(int(f.get("offset", 0)), int(f["name_hash"], 0),
                                              int(f["structural_hash"], 0), int(f["filenames_hash"], 0), m, raw,
                                              bytes.fromhex(f.get("padding", "")), f.get("name"), f.get("files")))
        return out

    def tables(self, model, options):
        if isinstance(model, CoverageMap):
            rows = [[i, r.version + 1, "zlib" if r.files.compressed is not None else "none", j, n]
                    for i, r in enumerate(model.records) for j, n in enumerate(resolved_files(r))]
            return [Table(["unit", "version", "compression", "file", "name"], rows)]
        funcs = [[r.name or f"{r.name_hash:#018x}", f"{r.func_hash:#018x}",
                  ", ".join(str(x) for x in (r.files or r.mapping.file_ids)), len(r.mapping.expressions),
                  len(r.mapping.regions)] for r in model.records]
        regs = []
        for r in model.records:
            fname = r.name or f"{r.name_hash:#018x}"
            for x in r.mapping.regions:
                ls, cs, le, ce = x.span()
                if x.kind == EXPANSION:
                    what = f"file {x.expanded_file}"
                elif x.kind == SKIPPED:
                    what = ""
                elif x.kind == DECISION:
                    what = f"bitmap {x.params[0]}, {x.params[1]} conditions"
                else:
                    what = counter_text(x.counter)
                if x.kind in (BRANCH, MCDC_BRANCH):
                    what += f" / {counter_text(x.false_counter)}"
                if x.kind == MCDC_BRANCH:
                    what += f" (id {x.params[0] - 1}, true {x.params[1] - 1}, false {x.params[2] - 1})"
                regs.append([fname, x.file, KINDS[x.display_kind],
                             f"{ls}:{cs}-{le}:{'$' if ce == WHOLE_LINE_END else ce}", what])
        exprs = [[r.name or f"{r.name_hash:#018x}", f"e{i}", expression_text(r.mapping, i)]
                 for r in model.records for i in range(len(r.mapping.expressions))]
        out = [Table(["function", "structural hash", "files", "expressions", "regions"], funcs),
               Table(["function", "file id", "kind", "span", "counter"], regs)]
        if exprs:
            out.append(Table(["function", "expression", "value"], exprs))
        return out


# -- offline form: LLVM's coverage-mapping "testing format" (read by llvm-cov like an object file) --------------
TESTING_MAGIC = 0x6D766F636D766C6C          # "llvmcovm"
TESTING_VERSION = 1                         # TestingFormatVersion::Version2: the covmap size is stored


def testing_format(obj) -> bytes | None:
    """The object's coverage mapping and function names as one file ``llvm-cov`` reads in place of the binary
    (``llvm-cov export -instr-profile P.profdata FILE``): ``u64 magic, u64 version 2, uleb names size, uleb 0,
    names, uleb covmap size``, padding to 8, ``__llvm_covmap``, padding to 8, the ``__llvm_covfun`` sections each
    padded to 8 (as llvm-cov joins them).  The format is little-endian with 8-byte addresses: a big-endian
    object's records are re-encoded.  None when the object has no coverage mapping."""
    from .support.instrprof import linked_pe_names
    covmaps = [s for s in obj.sections if section_role(s, obj) == "covmap"]
    if not covmaps:
        return None
    names = b""
    for s in obj.sections:
        if section_role(s, obj) in ("names",):
            d = bytes(s.data())
            names += d[1:] if linked_pe_names(s, obj) and d[:1] == b"\0" else d
    if not names:
        names = b"".join(bytes(s.data()) for s in obj.sections if section_role(s, obj) == "covnames")
    swap = obj.endian != "<"
    covmap = b""
    for s in covmaps:
        d = bytes(s.data())
        covmap += encode_covmap(decode_covmap(d, obj.endian), "<") if swap else d
    covfun = bytearray()
    for s in obj.sections:
        if section_role(s, obj) == "covfun":
            d = bytes(s.data())
            if swap:
                d = encode_covfun(decode_covfun(d, obj.endian), "<")
            covfun += d
            covfun += bytes(-len(covfun) % 8)
    out = bytearray(TESTING_MAGIC.to_bytes(8, "little") + TESTING_VERSION.to_bytes(8, "little"))
    out += uleb_encode(len(names)) + uleb_encode(0) + names + uleb_encode(len(covmap))
    out += bytes(-len(out) % 8) + covmap
    out += bytes(-len(out) % 8) + covfun
    return bytes(out)



def read_testing_format(data: bytes) -> tuple:
    """(names, CoverageMap, CoverageFunctions) of a file :func:`testing_format` wrote (version 2 only)."""
    from .support.instrprof import decode_name_list
    r = Reader(data, "<")
    if len(data) < 16 or r.u64("magic") != TESTING_MAGIC:
        raise DecodeError("not a coverage-mapping testing-format file (expected the magic 'llvmcovm')", offset=0)
    version = r.u64("testing-format version")
    if version != TESTING_VERSION:
        raise DecodeError(f"testing-format version {version}: expected {TESTING_VERSION} (version 2)", offset=8)
    nsize = r.uleb("names size")
    r.uleb("names address")
    names = decode_name_list(r.bytes(nsize, "names"))
    csize = r.uleb("coverage-map size")
    r.pos = (r.pos + 7) & ~7
    covmap = decode_covmap(r.bytes(csize, "coverage map"))
    r.pos = min((r.pos + 7) & ~7, len(data))
    return names, covmap, decode_covfun(data[r.pos:])
