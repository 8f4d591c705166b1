"""A summary of LLVM bitcode read from its bitstream: modules, producer, triple, symbols; and ``identify``, which
names what a blob of bytes is (bitcode, ELF, offload binary, ...).

    >>> from objllvm import bitcode
    >>> s = bitcode.summarize(open("testdata/bitcode/embed.bc", "rb").read())
    >>> m = s.modules[0]
    >>> m.triple, m.source_filename, m.producer, [g.name for g in m.defined_functions]

``summarize`` reads only what it needs (IDENTIFICATION, the MODULE block's own records, BLOCKINFO, the module-level
value symbol table of old bitcode, STRTAB) and skips every other block by its length, so function bodies, constants
and metadata are never decoded.  It reads bitcode newer than the installed LLVM tools (e.g. the LLVM 22 bitcode in
Rust's ``.rlib`` files), since it needs nothing but the bitstream container and the module record layouts.
Used by the ``bitcode`` and ``offloading`` codecs and by extraction.
"""
from __future__ import annotations

import struct

from ..._model import dataclass, field
from ...errors import DecodeError, ObjllvmError
from ...formats.bitcode import BITCODE_MAGIC, WRAPPER_MAGIC, WRAPPER_MAGIC_BYTES, WRAPPER_SIZE, Wrapper, bitstream_range, is_bitcode, read_wrapper  # noqa: F401
from ...formats.bitstream import BLOCK, END, EOF, BitstreamCursor, record_text

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

