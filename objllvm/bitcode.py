"""LLVM bitcode: the wrapper header, a module summary read from the bitstream, and payload extraction.

    >>> from objllvm import bitcode
    >>> s = bitcode.summarize(open("testdata/bitcode/embed.bc", "rb").read())
    >>> m = s.modules[0]
    >>> m.triple, m.source_filename, m.producer, [g.name for g in m.defined_functions]

``summarize`` reads only what it needs (IDENTIFICATION, the MODULE block's own records, BLOCKINFO, the module-level
value symbol table of old bitcode, STRTAB) and skips every other block by its length, so function bodies, constants
and metadata are never decoded.  It reads bitcode newer than the installed LLVM tools (e.g. the LLVM 22 bitcode in
Rust's ``.rlib`` files), since it needs nothing but the bitstream container and the module record layouts.

``collect_payloads(paths)`` and ``extract(paths, outdir)`` are the API behind ``objllvm extract``.
"""
from __future__ import annotations

import struct

from ._model import dataclass, field
from .bitstream import BLOCK, END, EOF, BitstreamCursor, record_text
from .errors import DecodeError, ObjllvmError

BITCODE_MAGIC = b"BC\xc0\xde"
WRAPPER_MAGIC = 0x0B17C0DE
WRAPPER_MAGIC_BYTES = b"\xde\xc0\x17\x0b"
WRAPPER_SIZE = 20

BLOCK_NAMES = {
    0: "BLOCKINFO", 8: "MODULE_BLOCK", 9: "PARAMATTR_BLOCK", 10: "PARAMATTR_GROUP_BLOCK", 11: "CONSTANTS_BLOCK",
    12: "FUNCTION_BLOCK", 13: "IDENTIFICATION_BLOCK", 14: "VALUE_SYMTAB", 15: "METADATA_BLOCK",
    16: "METADATA_ATTACHMENT", 17: "TYPE_BLOCK", 18: "USELIST_BLOCK", 19: "MODULE_STRTAB_BLOCK",
    20: "GLOBALVAL_SUMMARY_BLOCK", 21: "OPERAND_BUNDLE_TAGS_BLOCK", 22: "METADATA_KIND_BLOCK",
    23: "STRTAB_BLOCK", 24: "FULL_LTO_GLOBALVAL_SUMMARY_BLOCK", 25: "SYMTAB_BLOCK", 26: "SYNC_SCOPE_NAMES_BLOCK",
}
BLOCKINFO, MODULE, FUNCTION_BLOCK, IDENTIFICATION, VALUE_SYMTAB, STRTAB, SYMTAB = 0, 8, 12, 13, 14, 23, 25

# MODULE_BLOCK record codes (LLVMBitCodes.h)
(M_VERSION, M_TRIPLE, M_DATALAYOUT, M_GLOBALVAR, M_FUNCTION, M_ALIAS_OLD, M_ALIAS, M_SOURCE_FILENAME, M_HASH,
 M_IFUNC) = 1, 2, 3, 7, 8, 9, 14, 16, 17, 18
ID_STRING, ID_EPOCH = 1, 2
VST_ENTRY, VST_FNENTRY = 1, 3
STRTAB_BLOB = 1

LINKAGES = {0: "external", 1: "weak", 2: "appending", 3: "internal", 4: "linkonce", 5: "external", 6: "external",
            7: "extern_weak", 8: "common", 9: "private", 10: "weak_odr", 11: "linkonce_odr",
            12: "available_externally", 13: "private", 14: "private", 15: "external", 16: "weak", 17: "weak_odr",
            18: "linkonce", 19: "linkonce_odr"}


@dataclass
class Wrapper:
    """The bitcode wrapper header (magic 0x0B17C0DE): where the bitstream is in the file."""
    version: int
    offset: int
    size: int
    cputype: int


@dataclass
class GlobalSymbol:
    name: str | None          # None when the name could not be found (no string table / symbol table entry)
    kind: str                 # 'function', 'variable', 'alias', 'ifunc'
    defined: bool
    linkage: str


@dataclass
class ModuleSummary:
    index: int
    offset: int               # byte offset of the MODULE_BLOCK in the payload
    size: int                 # bytes of the MODULE_BLOCK
    producer: str | None = None      # IDENTIFICATION: producer string
    epoch: int | None = None
    version: int | None = None       # MODULE_CODE_VERSION (2: names in STRTAB)
    triple: str | None = None
    datalayout: str | None = None
    source_filename: str | None = None
    hash: str | None = None          # MODULE_CODE_HASH (5 x 32 bits), hex
    names_from: str | None = None    # 'strtab' or 'vst' (module-level value symbol table of old bitcode)
    symbols: list = field(default_factory=list)
    function_bodies: int = 0
    function_bodies_size: int = 0
    blocks: dict = field(default_factory=dict)   # block name -> total bytes of the MODULE's sub-blocks

    @property
    def kind(self) -> str:
        """'combined-index' for a ThinLTO combined summary index (a MODULE_BLOCK with the module path string table
        and the summaries, no IR), else 'module'."""
        return "combined-index" if "MODULE_STRTAB_BLOCK" in self.blocks else "module"

    @property
    def defined_functions(self) -> list:
        return [s for s in self.symbols if s.kind == "function" and s.defined]

    @property
    def defined_variables(self) -> list:
        return [s for s in self.symbols if s.kind == "variable" and s.defined]


@dataclass
class BitcodeSummary:
    size: int                          # bytes of the payload (section)
    wrapper: Wrapper | None = None
    stream_offset: int = 0
    stream_size: int = 0
    modules: list = field(default_factory=list)
    blocks: list = field(default_factory=list)   # top-level blocks: (id, name, offset, size)
    strtab_size: int = 0
    symtab_size: int = 0
    padding: int = 0                   # bytes after the last top-level block (zero padding)
    marker: bool = False               # -fembed-bitcode=marker: an empty or 1-byte placeholder


def is_bitcode(data) -> bool:
    return data[:4] == BITCODE_MAGIC or data[:4] == WRAPPER_MAGIC_BYTES


def read_wrapper(data, base_offset: int = 0) -> Wrapper | None:
    """The wrapper header of ``data``, or None when it starts with the raw bitcode magic."""
    if data[:4] != WRAPPER_MAGIC_BYTES:
        return None
    if len(data) < WRAPPER_SIZE:
        raise DecodeError(f"truncated bitcode wrapper header ({len(data)} bytes, expected {WRAPPER_SIZE})",
                          offset=base_offset + len(data))
    _magic, version, off, size, cpu = struct.unpack_from("<5I", data, 0)
    if off < WRAPPER_SIZE or off + size > len(data):
        raise DecodeError(f"bitcode wrapper: bitstream at offset {off:#x}, {size} bytes, is outside the "
                          f"{len(data)}-byte payload (expected offset >= {WRAPPER_SIZE} and within the payload)",
                          offset=base_offset + 8)
    return Wrapper(version, off, size, cpu)


def bitstream_range(data, base_offset: int = 0):
    """(wrapper or None, start, end) of the bitstream in ``data``; checks the magic."""
    w = read_wrapper(data, base_offset)
    start, end = (w.offset, w.offset + w.size) if w else (0, len(data))
    if end - start < 4:
        raise DecodeError(f"truncated bitcode: {end - start} bytes (expected at least the 4-byte magic)",
                          offset=base_offset + start)
    if data[start:start + 4] != BITCODE_MAGIC:
        raise DecodeError(f"bad bitcode magic {bytes(data[start:start + 4]).hex(' ')} (expected 42 43 c0 de 'BC' "
                          "0xC0DE, or the wrapper de c0 17 0b)", offset=base_offset + start)
    return w, start, end


def _text(ops, what, cur):
    try:
        return record_text(ops, what).decode("utf-8", "surrogateescape")
    except DecodeError as exc:
        raise cur.error(exc.message) from None


def summarize(data, *, base_offset: int = 0, symbols: bool = True) -> BitcodeSummary:
    """Summarize every module of the bitcode payload ``data`` (raw bitcode or wrapper).

    Raises DecodeError (with ``partial`` = the summary so far) on malformed input.  ``symbols=False`` skips the
    global value records' names (faster)."""
    out = BitcodeSummary(len(data))
    if len(data) <= 1 and not data.strip(b"\0"):
        out.marker = True
        return out
    try:
        w, start, end = bitstream_range(data, base_offset)
        out.wrapper, out.stream_offset, out.stream_size = w, start, end - start
        cur = BitstreamCursor(data, start + 4, end, base_offset=base_offset, block_names=BLOCK_NAMES)
        _read_top(cur, out, symbols)
        out.padding = (end - start - 4) - (cur.pos >> 3)
    except DecodeError as exc:
        if exc.partial is None:
            exc.partial = out
        raise
    return out


def _read_top(cur, out, want_symbols):
    pending = []                 # modules whose names wait for the next STRTAB
    producer = epoch = None
    while True:
        kind, bid = cur.advance()
        if kind == EOF:
            break
        if kind != BLOCK:     # advance() raises for records at the top level
            raise cur.error("expected a block at the top level")
        if bid == IDENTIFICATION:
            _, off, size = cur.enter_block()
            producer, epoch = _read_identification(cur)
        elif bid == MODULE:
            _, off, size = cur.enter_block()
            m = ModuleSummary(len(out.modules), off, size)
            m.producer, m.epoch = producer, epoch
            producer = epoch = None
            out.modules.append(m)
            strtab_refs = _read_module(cur, m, want_symbols)
            if strtab_refs:
                pending.append((m, strtab_refs))
        elif bid == STRTAB:
            _, off, size = cur.enter_block()
            blob = _read_blob_block(cur, STRTAB_BLOB)
            out.strtab_size += len(blob)
            for m, refs in pending:
                for sym, o, n in refs:
                    if o + n > len(blob):
                        raise DecodeError(f"module {m.index}: symbol name at string table offset {o}, {n} bytes, is "
                                          f"past the string table ({len(blob)} bytes)", offset=off)
                    sym.name = blob[o:o + n].decode("utf-8", "surrogateescape")
            pending = []
        elif bid == BLOCKINFO:
            _, off, size = cur.enter_block()
            cur.read_blockinfo()
        else:
            _, off, size = cur.skip_block()
            if bid == SYMTAB:
                out.symtab_size += size
        out.blocks.append((bid, BLOCK_NAMES.get(bid, f"block {bid}"), off, size))


def _read_identification(cur):
    producer = epoch = None
    while True:
        kind, aid = cur.advance()
        if kind == END:
            return producer, epoch
        if kind == BLOCK:
            cur.skip_block()
            continue
        code, ops, _ = cur.read_record(aid)
        if code == ID_STRING:
            producer = _text(ops, "IDENTIFICATION producer string", cur)
        elif code == ID_EPOCH and ops:
            epoch = ops[0]


def _read_blob_block(cur, code_wanted):
    blob = b""
    while True:
        kind, aid = cur.advance()
        if kind == END:
            return blob
        if kind == BLOCK:
            cur.skip_block()
            continue
        code, _ops, b = cur.read_record(aid)
        if code == code_wanted and b is not None:
            blob = bytes(b)


def _read_module(cur, m: ModuleSummary, want_symbols: bool):
    """Read a MODULE_BLOCK just entered.  Returns [(symbol, strtab offset, size)] still to be named."""
    refs = []
    values = []              # value ID -> symbol (old bitcode names them in the VST)
    blocks = m.blocks
    use_strtab = False
    while True:
        kind, aid = cur.advance()
        if kind == END:
            break
        if kind == BLOCK:
            bid = cur._pending[0]
            name = BLOCK_NAMES.get(bid, f"block {bid}")
            if bid == BLOCKINFO:
                _, _off, size = cur.enter_block()
                cur.read_blockinfo()
            elif bid == VALUE_SYMTAB and not use_strtab and want_symbols:
                _, _off, size = cur.enter_block()
                _read_vst(cur, values)
            else:
                _, _off, size = cur.skip_block()
                if bid == FUNCTION_BLOCK:
                    m.function_bodies += 1
                    m.function_bodies_size += size
            blocks[name] = blocks.get(name, 0) + size
            continue
        code, ops, _blob = cur.read_record(aid)
        if code == M_VERSION:
            if ops:
                m.version = ops[0]
                use_strtab = m.version >= 2
                m.names_from = "strtab" if use_strtab else "vst"
        elif code == M_TRIPLE:
            m.triple = _text(ops, "TRIPLE record", cur)
        elif code == M_DATALAYOUT:
            m.datalayout = _text(ops, "DATALAYOUT record", cur)
        elif code == M_SOURCE_FILENAME:
            m.source_filename = _text(ops, "SOURCE_FILENAME record", cur)
        elif code == M_HASH:
            m.hash = "".join(f"{x & 0xFFFFFFFF:08x}" for x in ops)
        elif code in (M_GLOBALVAR, M_FUNCTION, M_ALIAS, M_ALIAS_OLD, M_IFUNC):
            if not want_symbols:
                continue
            base = 2 if use_strtab else 0
            if code == M_FUNCTION:
                kind_name, li = "function", base + 3
                defined = len(ops) > base + 2 and ops[base + 2] == 0
            elif code == M_GLOBALVAR:
                kind_name, li = "variable", base + 3
                defined = len(ops) > base + 2 and ops[base + 2] != 0
            elif code == M_ALIAS_OLD:
                kind_name, li, defined = "alias", 2, True
            else:
                kind_name, li, defined = ("alias" if code == M_ALIAS else "ifunc"), base + 3, True
            if len(ops) <= li:
                raise cur.error(f"module record {code} has {len(ops)} operands (expected at least {li + 1})")
            sym = GlobalSymbol(None, kind_name, defined, LINKAGES.get(ops[li], f"linkage {ops[li]}"))
            m.symbols.append(sym)
            values.append(sym)
            if use_strtab:
                refs.append((sym, ops[0], ops[1]))
    return refs


def _read_vst(cur, values):
    while True:
        kind, aid = cur.advance()
        if kind == END:
            return
        if kind == BLOCK:
            cur.skip_block()
            continue
        code, ops, _ = cur.read_record(aid)
        if code == VST_ENTRY and ops:
            vid, chars = ops[0], ops[1:]
        elif code == VST_FNENTRY and len(ops) >= 2:
            vid, chars = ops[0], ops[2:]
        else:
            continue
        if vid < len(values) and chars:
            values[vid].name = _text(chars, "value symbol table name", cur)


# -- nested content identification (offload images, extracted payloads) -------------------------------------
ELF_MACHINES = {3: "i386", 8: "mips", 20: "ppc", 21: "ppc64", 40: "arm", 62: "x86-64", 183: "aarch64",
                190: "cuda", 224: "amdgpu", 243: "riscv", 247: "bpf", 258: "loongarch"}


def identify(data, *, summarize_bitcode: bool = True) -> dict:
    """What a blob of bytes is: bitcode (summarized), ELF (class, byte order, machine, type), or a known magic."""
    head = bytes(data[:4])
    if is_bitcode(data):
        out = {"format": "bitcode"}
        if summarize_bitcode:
            try:
                s = summarize(data)
                out.update(summary_to_dict(s, symbols="defined"))
            except ObjllvmError as exc:
                out["error"] = str(exc)
        return out
    if head == b"\x7fELF" and len(data) >= 20:
        cls = {1: 32, 2: 64}.get(data[4])
        endian = {1: "<", 2: ">"}.get(data[5])
        if cls and endian:
            etype, mach = struct.unpack_from(endian + "HH", data, 16)
            return {"format": "elf", "class": cls, "endian": "little" if endian == "<" else "big",
                    "machine": ELF_MACHINES.get(mach, f"EM_{mach}"), "e_machine": mach,
                    "type": {1: "ET_REL", 2: "ET_EXEC", 3: "ET_DYN"}.get(etype, f"ET_{etype:#x}")}
        return {"format": "elf", "error": "bad ELF identification bytes"}
    if head == b"\x10\xff\x10\xad":
        return {"format": "offload-binary"}
    if head == b"\x28\xb5\x2f\xfd":
        return {"format": "zstd"}
    if head in (b"\x03\x02\x23\x07", b"\x07\x23\x02\x03"):
        return {"format": "spirv"}
    if head == b"\x50\xed\x55\xba":
        return {"format": "cuda-fatbinary"}
    if bytes(data[:2]) in (b"//", b"\n/") or bytes(data[:8]) == b".version":
        return {"format": "text"}
    return {"format": "unknown"}


# -- views ---------------------------------------------------------------------------------------------------
def symbol_to_dict(s: GlobalSymbol) -> dict:
    return {"name": s.name, "kind": s.kind, "defined": s.defined, "linkage": s.linkage}


def module_to_dict(m: ModuleSummary, symbols: str = "all") -> dict:
    d = {"index": m.index, "kind": m.kind, "offset": m.offset, "size": m.size, "producer": m.producer, "epoch": m.epoch,
         "version": m.version, "triple": m.triple, "datalayout": m.datalayout,
         "source_filename": m.source_filename, "hash": m.hash, "names_from": m.names_from,
         "defined_functions": [s.name for s in m.defined_functions],
         "defined_variables": [s.name for s in m.defined_variables],
         "function_bodies": m.function_bodies, "function_bodies_size": m.function_bodies_size,
         "blocks": dict(m.blocks)}
    if symbols == "all":
        d["symbols"] = [symbol_to_dict(s) for s in m.symbols]
    return d


def summary_to_dict(s: BitcodeSummary, symbols: str = "all") -> dict:
    w = s.wrapper
    return {"size": s.size, "marker": s.marker,
            "wrapper": None if w is None else {"version": w.version, "offset": w.offset, "size": w.size,
                                                 "cputype": w.cputype},
            "stream_offset": s.stream_offset, "stream_size": s.stream_size,
            "modules": [module_to_dict(m, symbols) for m in s.modules],
            "blocks": [{"id": b[0], "name": b[1], "offset": b[2], "size": b[3]} for b in s.blocks],
            "strtab_size": s.strtab_size, "symtab_size": s.symtab_size, "padding": s.padding}


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


def _safe(s: str) -> str:
    out = "".join(c if (c.isalnum() and c.isascii()) or c in "._+-" else "_" for c in s).strip("._")
    return out or "x"


def _stem_of(path: str) -> str:
    import os
    base = os.path.basename(path)
    for ext in (".o", ".obj", ".bc", ".a", ".rlib", ".lib"):
        if base.endswith(ext) and len(base) > len(ext):
            return base[:-len(ext)]
    return base


def payloads_of_object(obj, errors: list) -> list:
    """The payloads of one object; problems are appended to ``errors`` (the other payloads still come)."""
    from .codecs.offloading import IMAGE_EXT, IMAGE_KINDS, offload_kind_flags, parse_offloading
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
            from .codecs.llvmcmd import LlvmcmdCodec
            args = LlvmcmdCodec().decode(data, None).arguments
            text = ("\n".join(args) + "\n" if args else "").encode("utf-8", "surrogateescape")
            out.append(Payload("cmdline", text, offset=0, file_offset=foff, ext=".txt", stem=f"{prefix}-{tag}",
                               info={"arguments": len(args)}, **common))
        else:
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
    from .sections._instrprof import NameList, decode_name_list, linked_pe_names, section_role
    from .sections.coverage_map import decode_covfun, testing_format
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


def collect_payloads(paths, coverage: bool = False) -> tuple:
    """(payloads, errors) of every input; payload names are made unique and deterministic.  ``coverage``:
    also each object's coverage mapping and profile names (see :func:`coverage_payloads`)."""
    from .containers import iter_objects
    payloads, errors = [], []
    for p in paths:
        for o in iter_objects(p):
            if isinstance(o, ObjllvmError):
                errors.append(o)
                continue
            payloads.extend(payloads_of_object(o, errors))
            if coverage:
                payloads.extend(coverage_payloads(o, errors))
    used = {MANIFEST}
    for pl in payloads:
        stem = _safe(pl.stem)
        name = stem + pl.ext
        n = 2
        while name in used:
            name = f"{stem}-{n}{pl.ext}"
            n += 1
        used.add(name)
        pl.name = name
    return payloads, errors


def manifest(payloads, errors) -> dict:
    import hashlib
    items = []
    for pl in payloads:
        d = {"path": pl.name, "kind": pl.kind, "file": pl.file, "member": pl.member, "section": pl.section,
             "section_index": pl.section_index, "offset": pl.offset, "file_offset": pl.file_offset,
             "size": len(pl.data), "sha256": hashlib.sha256(pl.data).hexdigest()}
        d.update(pl.info)
        items.append(d)
    return {"schema": "objllvm-extract", "version": 1, "payloads": items, "errors": [str(e) for e in errors]}


def extract(paths, outdir: str, *, force: bool = False, coverage: bool = False) -> tuple:
    """Write every payload of ``paths`` to its own file in ``outdir`` plus ``manifest.json``.

    All target names are checked first: without ``force`` nothing is written when any exists.  Each file is
    written atomically; if a write fails, the files this call created are removed again.  Returns
    (manifest dict, errors)."""
    import json
    import os

    from .atomicio import atomic_write
    payloads, errors = collect_payloads(paths, coverage=coverage)
    doc = manifest(payloads, errors)
    targets = [os.path.join(outdir, pl.name) for pl in payloads] + [os.path.join(outdir, MANIFEST)]
    if not force:
        existing = [t for t in targets if os.path.lexists(t)]
        if existing:
            more = f" and {len(existing) - 3} more" if len(existing) > 3 else ""
            raise ObjllvmError(f"{', '.join(existing[:3])}{more}: exist (use --force to overwrite); nothing written")
    try:
        os.makedirs(outdir, exist_ok=True)
    except OSError as exc:
        raise ObjllvmError(f"{outdir}: cannot create the output directory: {exc.strerror}") from None
    existed = {t for t in targets if os.path.lexists(t)}
    # Each file is written atomically (temporary file, fsync, rename).  The writes run in a few threads: the
    # file system commits their fsyncs together, which is many times faster than one after the other.
    from concurrent.futures import ThreadPoolExecutor
    failures = []

    def write(job):
        pl, t = job
        try:
            atomic_write(t, pl.data, force=force)
        except BaseException as exc:       # noqa: BLE001  (re-raised below, after cleaning up)
            failures.append(exc)
    jobs = list(zip(payloads, targets))
    if jobs:
        with ThreadPoolExecutor(max_workers=min(16, len(jobs))) as pool:
            list(pool.map(write, jobs))
    if not failures:
        try:
            atomic_write(targets[-1], (json.dumps(doc, indent=2) + "\n").encode(), force=force)
        except BaseException as exc:       # noqa: BLE001
            failures.append(exc)
    if failures:
        for t in targets:
            if t not in existed:
                try:
                    os.unlink(t)
                except OSError:
                    pass
        raise failures[0]
    return doc, errors
