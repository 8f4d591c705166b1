"""SanitizerCoverage's tables (clang ``-fsanitize-coverage=...``), one codec per table, sharing their layout
facts (llvm/lib/Transforms/Instrumentation/SanitizerCoverage.cpp):

* ``__sancov_pcs`` (``pc-table``): per instrumented block a pair of address-sized words, its PC and its flags
  (bit 0: the function's entry block); in an object a relocation names each PC (the function, or its section
  plus the block's offset).  Fuzzers (libFuzzer) read it to map a slot to its PC.
* ``__sancov_guards`` (``trace-pc-guard``, 32-bit slots), ``__sancov_cntrs`` (``inline-8bit-counters``,
  8-bit slots), ``__sancov_bools`` (``inline-bool-flag``, 8-bit slots): one slot per instrumented edge, slot
  i of a function matching entry i of its PC table.  In an object each function has its own sections in the
  function's COMDAT group (the group's signature names the function); in a linked file the sections of every
  function are concatenated in one, and the PC table of the same file says where each function's slots are.
"""
from __future__ import annotations

import struct
import weakref

from .._model import dataclass, field
from ..binary import Reader, pack_uint
from ..errors import DecodeError, ObjllvmError
from .registry import Codec, Table, register
from .support.addresses import Address, Resolver

PC_FUNCTION_ENTRY = 1          # flags bit 0 of a PC-table entry
SHT_GROUP = 17
SLOT_SIZES = {"__sancov_guards": 4, "__sancov_cntrs": 1, "__sancov_bools": 1}


@dataclass
class SancovPc:
    pc: Address
    flags: int
    function: str | None = None        # the function holding the PC (None: not known)
    offset: int | None = None          # the PC's offset from the function's start

    @property
    def is_function_entry(self) -> bool:
        return bool(self.flags & PC_FUNCTION_ENTRY)


@dataclass
class SancovPcTable:
    word_size: int
    entries: list = field(default_factory=list)
    relocatable: bool = False          # PCs named by relocations (an object), not addresses


@dataclass
class SancovRange:
    function: str | None       # None: the function cannot be told
    first: int                 # index of its first slot
    count: int


@dataclass
class SancovSlots:
    table: str                 # guards, cntrs or bools
    slot_size: int
    values: list = field(default_factory=list)
    ranges: list = field(default_factory=list)


_GROUPS = weakref.WeakKeyDictionary()     # object -> {section index: signature symbol index}


def _group_signatures(obj) -> dict:
    """Section index -> the symbol index of the COMDAT group signature it is a member of (read once per
    object)."""
    try:
        return _GROUPS[obj]
    except (KeyError, TypeError):
        pass
    out = {}
    for s in getattr(obj, "sections", ()):
        if s.type != SHT_GROUP:
            continue
        try:
            data = s.data()
        except ObjllvmError:
            continue
        n = len(data) // 4
        for idx in struct.unpack_from(f"{obj.endian}{n}I", data)[1:]:      # word 0: the group's flags
            out.setdefault(idx, s.info)
    try:
        _GROUPS[obj] = out
    except TypeError:
        pass
    return out


def _function_of_section(ctx) -> str | None:
    """Object: the function whose COMDAT group holds the section (its signature symbol)."""
    sec = ctx.section
    if sec is None or ctx.obj is None:
        return None
    sym = _group_signatures(ctx.obj).get(sec.index)
    if sym is None:
        return None
    syms = ctx.symbols
    return syms[sym].name if 0 <= sym < len(syms) and syms[sym].name else None


def _pc_table_functions(ctx, res) -> list | None:
    """Linked file: [(function, entries)] in the order of the file's __sancov_pcs table (None: no table)."""
    obj = ctx.obj
    sec = next((s for s in getattr(obj, "sections", ()) if s.name == "__sancov_pcs"), None)
    if sec is None:
        return None
    try:
        data = sec.data()
    except ObjllvmError:
        return None
    w = ctx.addr_size
    n = len(data) // (2 * w)
    fmt = ctx.endian + ("Q" if w == 8 else "I") * (2 * n)
    words = struct.unpack_from(fmt, data) if n else ()
    dyn = res.dynamic_relocations(sec)           # a position-independent link: the loader fills the PCs
    mask = (1 << (8 * w)) - 1
    out = []
    for i in range(n):
        pc, flags = words[2 * i], words[2 * i + 1]
        r = dyn.get(2 * w * i)
        if r is not None:
            sym = r.symbol if r.sym else None
            pc = ((sym.value if sym is not None and sym.shndx else 0) + (r.addend if r.addend is not None else pc)) & mask
        if flags & PC_FUNCTION_ENTRY or not out:
            out.append([res.function_at(pc) if flags & PC_FUNCTION_ENTRY else None, 0])
        out[-1][1] += 1
    return out


@register
class SancovPcsCodec(Codec):
    kind = "sancov-pcs"
    description = "SanitizerCoverage PC table (-fsanitize-coverage=pc-table): PC and flags of each instrumented block"
    names = ("__sancov_pcs",)

    def decode(self, data, ctx):
        w = ctx.addr_size
        r = Reader(data, ctx.endian)
        res = Resolver(ctx, dynamic=True)          # a position-independent link: the loader fills the PCs
        out = SancovPcTable(w, relocatable=ctx.is_relocatable)
        n = len(data) // (2 * w)
        for i in range(n):
            p = r.pos
            try:
                pc = res.at(p, r.uint(w, f"entry {i}: PC"))
                flags = r.uint(w, f"entry {i}: flags")
            except DecodeError as exc:
                exc.partial = out
                raise
            e = SancovPc(pc, flags)
            if ctx.is_relocatable:
                rel = res.reloc_at(p)
                sym = rel.symbol if rel is not None else None
                if sym is not None and sym.is_section and pc.symbol is not None and pc.addend:
                    e.function, e.offset = res.locate(sym.shndx, pc.addend)
                elif pc.symbol is not None:
                    e.function, e.offset = pc.symbol, pc.addend
            else:
                e.function, e.offset = res.containing(pc.address)
            out.entries.append(e)
        res.finish()
        if n * 2 * w != len(data):
            raise DecodeError(f"{len(data) - n * 2 * w} bytes after the last whole entry ({2 * w} bytes each)",
                              offset=n * 2 * w, partial=out)
        return out

    def encode(self, model, ctx):
        w, e = model.word_size, ctx.endian
        return b"".join(pack_uint(x.pc.value, w, e) + pack_uint(x.flags, w, e) for x in model.entries)

    def to_dict(self, model):
        return {"word_size": model.word_size,
                "entries": [{"pc": x.pc.to_dict(), "flags": x.flags, "function_entry": x.is_function_entry,
                             "function": x.function, "offset": x.offset} for x in model.entries]}

    def from_dict(self, d, ctx):
        return SancovPcTable(int(d.get("word_size", ctx.addr_size)),
                             [SancovPc(Address.from_dict(x["pc"]), int(x["flags"]), x.get("function"), x.get("offset"))
                              for x in d["entries"]], ctx.is_relocatable)

    def tables(self, model, options):
        def where(x):
            if x.function is None:
                return "<?>" if x.pc.unknown else "?"
            return f"{x.function}+{x.offset:#x}" if x.offset else x.function
        return [Table(["pc", "block", "flags"],
                      [[x.pc.text() if model.relocatable else f"{x.pc.address:#x}", where(x),
                        "function entry" if x.is_function_entry else f"{x.flags:#x}"] for x in model.entries])]


class _SlotsCodec(Codec):
    """The slot tables: ``table`` names the kind of slot, ``slot_size`` its bytes."""
    table = ""
    slot_size = 1

    def decode(self, data, ctx):
        size = self.slot_size
        out = SancovSlots(self.table, size)
        n = len(data) // size
        out.values = list(struct.unpack_from(f"{ctx.endian}{n}{'I' if size == 4 else 'B'}", data)) if n else []
        if ctx.is_relocatable:
            out.ranges = [SancovRange(_function_of_section(ctx), 0, n)]
        else:
            funcs = _pc_table_functions(ctx, Resolver(ctx))
            if funcs is not None and sum(c for _, c in funcs) == n:
                first = 0
                for name, count in funcs:
                    out.ranges.append(SancovRange(name, first, count))
                    first += count
            else:
                if funcs is not None:
                    ctx.warn(f"the PC table has {sum(c for _, c in funcs)} entries and this table {n} slots: "
                             f"the slots are not named by function", 0)
                out.ranges = [SancovRange(None, 0, n)]
        if n * size != len(data):
            raise DecodeError(f"{len(data) - n * size} bytes after the last whole slot ({size} bytes each)",
                              offset=n * size, partial=out)
        return out

    def encode(self, model, ctx):
        return b"".join(pack_uint(v, model.slot_size, ctx.endian) for v in model.values)

    def to_dict(self, model):
        return {"table": model.table, "slot_size": model.slot_size, "values": list(model.values),
                "functions": [{"function": x.function, "first": x.first, "count": x.count} for x in model.ranges]}

    def from_dict(self, d, ctx):
        size = int(d.get("slot_size", self.slot_size))
        values = [int(v) for v in d["values"]]
        if any(not 0 <= v < 1 << (8 * size) for v in values):
            raise DecodeError(f"{self.kind}: a slot value does not fit in {size} bytes")
        return SancovSlots(d.get("table", self.table), size, values,
                           [SancovRange(x.get("function"), int(x["first"]), int(x["count"]))
                            for x in d.get("functions", [])])

    def tables(self, model, options):
        return [Table(["function", "first slot", "slots", "values"],
                      [[x.function if x.function is not None else "?", x.first, x.count,
                        " ".join(str(v) for v in model.values[x.first:x.first + x.count])]
                       for x in model.ranges])]


@register
class SancovGuardsCodec(_SlotsCodec):
    kind = "sancov-guards"
    description = "SanitizerCoverage guards (-fsanitize-coverage=trace-pc-guard): a 32-bit slot per edge"
    names = ("__sancov_guards",)
    table, slot_size = "guards", 4


@register
class SancovCountersCodec(_SlotsCodec):
    kind = "sancov-cntrs"
    description = "SanitizerCoverage 8-bit counters (-fsanitize-coverage=inline-8bit-counters): a counter per edge"
    names = ("__sancov_cntrs",)
    table, slot_size = "cntrs", 1


@register
class SancovBoolsCodec(_SlotsCodec):
    kind = "sancov-bools"
    description = "SanitizerCoverage bool flags (-fsanitize-coverage=inline-bool-flag): a flag per edge"
    names = ("__sancov_bools",)
    table, slot_size = "bools", 1
