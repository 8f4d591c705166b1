"""SHT_LLVM_CALL_GRAPH (``.llvm.callgraph``, clang ``-fexperimental-call-graph-section``, LLVM 22).

A sequence of per-function records (llvm/docs/CallGraphSection.md), record format version 0:

* u8 version, u8 flags (bit 0: potential indirect-call target; bit 1: has direct callees; bit 2: has
  indirect call sites), the function's entry address (address-sized; a relocation in an object), u64 type id
  (0: unknown or not an indirect target);
* when flag bit 1: ULEB128 count, then that many address-sized direct callee addresses;
* when flag bit 2: ULEB128 count, then that many u64 type ids of the indirect call sites' callees.

Any other record version is an error at that record; flag bits past bit 2 are warned about at their record
(llvm-readobj ``--call-graph-info``, LLVM 23: PRs #176260, #198929) and the record is read by its defined bits.
Every call-graph section of a file is decoded (one per text section with ``-ffunction-sections``).
"""
from __future__ import annotations

from .._model import dataclass, field
from ..binary import Reader, pack_uint, uleb_encode
from ..errors import DecodeError
from .registry import Codec, Table, register
from .support.addresses import Address, Resolver

SHT_LLVM_CALL_GRAPH = 0x6FFF4C0F
F_INDIRECT_TARGET, F_DIRECT_CALLEES, F_INDIRECT_CALLS = 1, 2, 4
F_KNOWN = F_INDIRECT_TARGET | F_DIRECT_CALLEES | F_INDIRECT_CALLS


@dataclass
class CallGraphFunction:
    version: int
    flags: int
    function: Address
    type_id: int
    direct_callees: list = field(default_factory=list)     # Address
    indirect_type_ids: list = field(default_factory=list)  # int

    @property
    def is_indirect_target(self) -> bool:
        return bool(self.flags & F_INDIRECT_TARGET)


@dataclass
class CallGraph:
    word_size: int
    functions: list = field(default_factory=list)


@register
class CallGraphCodec(Codec):
    kind = "call-graph"
    description = "call graph (-fexperimental-call-graph-section): callees and indirect-call type ids per function"
    sh_types = (SHT_LLVM_CALL_GRAPH,)
    names = (".llvm.callgraph",)

    def decode(self, data, ctx):
        w = ctx.addr_size
        r = Reader(data, ctx.endian)
        res = Resolver(ctx)
        out = CallGraph(w)
        while not r.at_end():
            start = r.pos
            k = len(out.functions)
            try:
                version = r.u8(f"record {k}: version")
                if version != 0:
                    raise DecodeError(f"record {k}: unknown call graph record version {version} (expected 0)",
                                      offset=start)
                flags = r.u8(f"record {k}: flags")
                if flags & ~F_KNOWN:
                    # llvm-readobj warns too ("Expected [0-7]"); the known bits still say what follows
                    ctx.warn(f"record {k}: flags {flags:#x} have bits LLVM does not define ({flags & ~F_KNOWN:#x}; "
                             f"expected 0x0 to {F_KNOWN:#x}): the record is read by the defined bits", start + 1)
                p = r.pos
                fn = res.at(p, r.uint(w, f"record {k}: function address"))
                tid = r.u64(f"record {k}: type id")
                rec = CallGraphFunction(version, flags, fn, tid)
                if flags & F_DIRECT_CALLEES:
                    n = r.uleb(f"record {k}: direct callee count")
                    r.need(n * w, f"record {k}: {n} direct callee addresses")
                    for _ in range(n):
                        p = r.pos
                        rec.direct_callees.append(res.at(p, r.uint(w)))
                if flags & F_INDIRECT_CALLS:
                    n = r.uleb(f"record {k}: indirect call type id count")
                    r.need(n * 8, f"record {k}: {n} indirect call type ids")
                    rec.indirect_type_ids = [r.u64() for _ in range(n)]
            except DecodeError as exc:
                exc.partial = out
                raise
            out.functions.append(rec)
        return out

    def encode(self, model, ctx):
        w, e = model.word_size, ctx.endian
        parts = []
        for f in model.functions:
            parts += [bytes((f.version, f.flags)), pack_uint(f.function.value, w, e), pack_uint(f.type_id, 8, e)]
            if f.flags & F_DIRECT_CALLEES:
                parts.append(uleb_encode(len(f.direct_callees)))
                parts += [pack_uint(c.value, w, e) for c in f.direct_callees]
            if f.flags & F_INDIRECT_CALLS:
                parts.append(uleb_encode(len(f.indirect_type_ids)))
                parts += [pack_uint(t, 8, e) for t in f.indirect_type_ids]
        return b"".join(parts)

    def to_dict(self, model):
        return {"word_size": model.word_size,
                "functions": [{"version": f.version, "flags": f.flags, "function": f.function.to_dict(),
                               "indirect_target": f.is_indirect_target, "type_id": f.type_id,
                               "direct_callees": [c.to_dict() for c in f.direct_callees],
                               "indirect_type_ids": list(f.indirect_type_ids)} for f in model.functions]}

    def from_dict(self, d, ctx):
        out = CallGraph(int(d.get("word_size", ctx.addr_size)))
        for f in d["functions"]:
            flags = int(f["flags"])
            direct = [Address.from_dict(c) for c in f.get("direct_callees", [])]
            ind = [int(t) for t in f.get("indirect_type_ids", [])]
            if (direct and not flags & F_DIRECT_CALLEES) or (ind and not flags & F_INDIRECT_CALLS):
                raise DecodeError("call-graph: a record lists callees its flags do not announce")
            out.functions.append(CallGraphFunction(int(f.get("version", 0)), flags, Address.from_dict(f["function"]),
                                                   int(f.get("type_id", 0)), direct, ind))
        return out

    def tables(self, model, options):
        rows = []
        for f in model.functions:
            rows.append([f.function.text(), f"{f.flags:#x}", f"{f.type_id:#018x}" if f.type_id else "-",
                         ", ".join(c.text() for c in f.direct_callees) or "-",
                         ", ".join(f"{t:#018x}" for t in f.indirect_type_ids) or "-"])
        return [Table(["function", "flags", "type id", "direct callees", "indirect call type ids"], rows)]
