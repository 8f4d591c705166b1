"""Fault maps (``.llvm_faultmaps``; Mach-O ``__LLVM_FAULTMAPS,__llvm_faultmaps``): implicit null checks.

Version 1 (Object/FaultMapParser.h): u8 version, u8 and u16 reserved, u32 function count; per function u64
address (a relocation in an object), u32 faulting-PC count, u32 reserved, then that many entries of u32 fault
kind (1 load, 2 load-store, 3 store), u32 faulting-PC offset and u32 handler-PC offset (from the function).
"""
from __future__ import annotations

from .._model import dataclass, field
from ..binary import Reader, pack_uint
from ..errors import DecodeError
from .registry import Codec, Table, register
from .support.addresses import Address, Resolver

FAULT_KINDS = {1: "FaultingLoad", 2: "FaultingLoadStore", 3: "FaultingStore"}
_BY_NAME = {v: k for k, v in FAULT_KINDS.items()}


@dataclass
class FaultingPC:
    kind: int
    faulting_offset: int
    handler_offset: int

    @property
    def kind_name(self) -> str:
        return FAULT_KINDS.get(self.kind, f"kind-{self.kind}")


@dataclass
class FaultMapFunction:
    address: Address
    faults: list = field(default_factory=list)
    reserved: int = 0


@dataclass
class FaultMap:
    version: int
    reserved: int = 0            # the u8 and u16 after the version (byte 1 low)
    functions: list = field(default_factory=list)


@register
class FaultMapsCodec(Codec):
    kind = "faultmaps"
    description = "fault maps (implicit null checks): faulting and handler PCs per function"
    names = (".llvm_faultmaps", "__LLVM_FAULTMAPS,__llvm_faultmaps")
    formats = ("elf", "coff", "macho")

    def decode(self, data, ctx):
        r = Reader(data, ctx.endian)
        version = r.u8("version")
        if version != 1:
            raise DecodeError(f"unsupported fault map version {version} (expected 1)", offset=0)
        b1, b2 = r.u8("reserved"), r.u16("reserved")
        out = FaultMap(version, b1 | (b2 << 8))
        nf = r.u32("function count")
        res = Resolver(ctx)
        try:
            r.need(nf * 16, f"{nf} function headers (16 bytes at least each)")
            for i in range(nf):
                p = r.pos
                addr = res.at(p, r.u64(f"function {i}: address"))
                n = r.u32(f"function {i}: faulting PC count")
                fn = FaultMapFunction(addr, reserved=r.u32(f"function {i}: reserved"))
                r.need(n * 12, f"function {i}: {n} faulting PCs (12 bytes each)")
                fn.faults = [FaultingPC(r.u32(), r.u32(), r.u32()) for _ in range(n)]
                out.functions.append(fn)
        except DecodeError as exc:
            exc.partial = out
            raise
        if not r.at_end():
            raise DecodeError(f"{r.remaining()} bytes after the last of {nf} functions", offset=r.pos, partial=out)
        res.finish()
        return out

    def encode(self, model, ctx):
        e = ctx.endian
        p = [bytes((model.version, model.reserved & 0xFF)), pack_uint(model.reserved >> 8, 2, e),
             pack_uint(len(model.functions), 4, e)]
        for f in model.functions:
            p += [pack_uint(f.address.value, 8, e), pack_uint(len(f.faults), 4, e), pack_uint(f.reserved, 4, e)]
            p += [pack_uint(x.kind, 4, e) + pack_uint(x.faulting_offset, 4, e) + pack_uint(x.handler_offset, 4, e)
                  for x in f.faults]
        return b"".join(p)

    def to_dict(self, model):
        return {"version": model.version, "reserved": model.reserved,
                "functions": [{"address": f.address.to_dict(), "reserved": f.reserved,
                               "faults": [{"kind": x.kind_name, "faulting_offset": x.faulting_offset,
                                           "handler_offset": x.handler_offset} for x in f.faults]}
                              for f in model.functions]}

    def from_dict(self, d, ctx):
        out = FaultMap(int(d.get("version", 1)), int(d.get("reserved", 0)))
        for f in d["functions"]:
            faults = []
            for x in f["faults"]:
                k = x["kind"]
                kind = _BY_NAME.get(k) if isinstance(k, str) else int(k)
                if kind is None:
                    raise DecodeError(f"faultmaps: unknown fault kind {k!r}")
                faults.append(FaultingPC(kind, int(x["faulting_offset"]), int(x["handler_offset"])))
            out.functions.append(FaultMapFunction(Address.from_dict(f["address"]), faults, int(f.get("reserved", 0))))
        return out

    def tables(self, model, options):
        rows = [[f.address.text(), x.kind_name, f"{x.faulting_offset:#x}", f"{x.handler_offset:#x}"]
                for f in model.functions for x in f.faults]
        return [Table(["function", "kind", "faulting PC offset", "handler PC offset"], rows)]
