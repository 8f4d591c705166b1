"""Stack maps (``.llvm_stackmaps``; Mach-O ``__LLVM_STACKMAPS,__llvm_stackmaps``; COFF ``.llvm_stackmaps``).

Version 3 (llvm/docs/StackMaps.rst, Object/StackMapParser.h): a 16-byte header (u8 version, u8 and u16
reserved, u32 function, constant and record counts), the functions (u64 address, u64 stack size, u64 record
count), the large constants (u64), then the records: u64 id, u32 instruction offset, u16 reserved, u16
location count, 12-byte locations (u8 kind, u8 reserved, u16 size, u16 DWARF register, u16 reserved, i32
offset or small constant), padding to 8 (from the record's start), u16 padding, u16 live-out count, 4-byte
live-outs (u16 register, u8 reserved, u8 size), padding to 8.  Reserved fields and padding are kept as read so
the section re-encodes exactly.
"""
from __future__ import annotations

from .._model import dataclass, field
from ..binary import Reader, pack_uint
from ..errors import DecodeError
from .registry import Codec, Table, register
from .support.addresses import Address, Resolver

LOCATION_KINDS = {1: "Register", 2: "Direct", 3: "Indirect", 4: "Constant", 5: "ConstantIndex"}
_KIND_BY_NAME = {v: k for k, v in LOCATION_KINDS.items()}


@dataclass
class StackMapFunction:
    address: Address
    stack_size: int
    record_count: int


@dataclass
class StackMapLocation:
    kind: int
    size: int
    register: int
    offset: int               # i32: offset (Direct, Indirect), value (Constant), index (ConstantIndex)
    reserved: int = 0         # the u8 after the kind
    reserved2: int = 0        # the u16 after the register

    @property
    def kind_name(self) -> str:
        return LOCATION_KINDS.get(self.kind, f"kind-{self.kind}")


@dataclass
class StackMapLiveOut:
    register: int
    size: int
    reserved: int = 0


@dataclass
class StackMapRecord:
    id: int
    instruction_offset: int
    locations: list = field(default_factory=list)
    live_outs: list = field(default_factory=list)
    flags: int = 0            # the reserved u16 before the location count
    padding: bytes = b""      # between the locations and the live-out header (to 8)
    padding2: int = 0         # the u16 before the live-out count
    tail: bytes = b""         # after the live-outs (to 8)


@dataclass
class StackMap:
    version: int
    reserved: int = 0         # the u8 and the u16 after the version, as one 24-bit value (byte 1 low)
    functions: list = field(default_factory=list)
    constants: list = field(default_factory=list)
    records: list = field(default_factory=list)


def _pad(pos: int, base: int) -> int:
    return (-(pos - base)) % 8


@register
class StackMapsCodec(Codec):
    kind = "stackmaps"
    description = "stack maps (llvm.experimental.stackmap / patchpoint / statepoint), version 3"
    names = (".llvm_stackmaps", "__LLVM_STACKMAPS,__llvm_stackmaps")
    formats = ("elf", "coff", "macho")

    def decode(self, data, ctx):
        r = Reader(data, ctx.endian)
        if len(data) < 16:
            raise DecodeError(f"section is {len(data)} bytes, smaller than the 16-byte stack map header", offset=0)
        version = r.u8("version")
        if version != 3:
            raise DecodeError(f"unsupported stack map version {version} (expected 3)", offset=0)
        b1 = r.u8()
        b2 = r.u16()
        out = StackMap(version, b1 | (b2 << 8))
        nf, nc, nr = r.u32("function count"), r.u32("constant count"), r.u32("record count")
        res = Resolver(ctx)
        try:
            r.need(nf * 24, f"{nf} functions (24 bytes each)")
            for i in range(nf):
                p = r.pos
                out.functions.append(StackMapFunction(res.at(p, r.u64()), r.u64(), r.u64()))
            r.need(nc * 8, f"{nc} constants (8 bytes each)")
            out.constants = [r.u64() for _ in range(nc)]
            r.need(nr * 16, f"{nr} records (16 bytes at least each)")
            for i in range(nr):
                base = r.pos
                w = f"record {i}: "
                rid = r.u64(w + "id")
                ioff = r.u32(w + "instruction offset")
                flags = r.u16(w + "reserved")
                nl = r.u16(w + "location count")
                rec = StackMapRecord(rid, ioff, flags=flags)
                r.need(nl * 12, w + f"{nl} locations (12 bytes each)")
                for _ in range(nl):
                    kind, res1, size, reg, res2 = r.u8(), r.u8(), r.u16(), r.u16(), r.u16()
                    off = r.i32()
                    rec.locations.append(StackMapLocation(kind, size, reg, off, res1, res2))
                rec.padding = r.bytes(_pad(r.pos, base), w + "padding after the locations")
                rec.padding2 = r.u16(w + "padding before the live-out count")
                nlo = r.u16(w + "live-out count")
                r.need(nlo * 4, w + f"{nlo} live-outs (4 bytes each)")
                for _ in range(nlo):
                    reg, rs, size = r.u16(), r.u8(), r.u8()
                    rec.live_outs.append(StackMapLiveOut(reg, size, rs))
                rec.tail = r.bytes(min(_pad(r.pos, base), r.remaining()), w + "padding after the live-outs")
                out.records.append(rec)
        except DecodeError as exc:
            exc.partial = out
            raise
        if not r.at_end():
            raise DecodeError(f"{r.remaining()} bytes after the last of {nr} records", offset=r.pos, partial=out)
        res.finish()
        return out

    def encode(self, model, ctx):
        e = ctx.endian
        p = [bytes((model.version, model.reserved & 0xFF)), pack_uint(model.reserved >> 8, 2, e),
             pack_uint(len(model.functions), 4, e), pack_uint(len(model.constants), 4, e),
             pack_uint(len(model.records), 4, e)]
        for f in model.functions:
            p += [pack_uint(f.address.value, 8, e), pack_uint(f.stack_size, 8, e), pack_uint(f.record_count, 8, e)]
        p += [pack_uint(c, 8, e) for c in model.constants]
        for rec in model.records:
            b = [pack_uint(rec.id, 8, e), pack_uint(rec.instruction_offset, 4, e), pack_uint(rec.flags, 2, e),
                 pack_uint(len(rec.locations), 2, e)]
            for loc in rec.locations:
                b += [bytes((loc.kind, loc.reserved)), pack_uint(loc.size, 2, e), pack_uint(loc.register, 2, e),
                      pack_uint(loc.reserved2, 2, e), pack_uint(loc.offset & 0xFFFFFFFF, 4, e)]
            b += [rec.padding, pack_uint(rec.padding2, 2, e), pack_uint(len(rec.live_outs), 2, e)]
            for lo in rec.live_outs:
                b += [pack_uint(lo.register, 2, e), bytes((lo.reserved, lo.size))]
            b.append(rec.tail)
            p += b
        return b"".join(p)

    def to_dict(self, model):
        return {"version": model.version, "reserved": model.reserved,
                "functions": [{"address": f.address.to_dict(), "stack_size": f.stack_size,
                               "record_count": f.record_count} for f in model.functions],
                "constants": list(model.constants),
                "records": [{"id": r.id, "instruction_offset": r.instruction_offset, "flags": r.flags,
                             "locations": [{"kind": loc.kind_name, "size": loc.size, "register": loc.register,
                                            "offset": loc.offset, "reserved": loc.reserved,
                                            "reserved2": loc.reserved2} for loc in r.locations],
                             "live_outs": [{"register": lo.register, "size": lo.size, "reserved": lo.reserved}
                                           for lo in r.live_outs],
                             "padding": r.padding.hex(), "padding2": r.padding2, "tail": r.tail.hex()}
                            for r in model.records]}

    def from_dict(self, d, ctx):
        out = StackMap(int(d.get("version", 3)), int(d.get("reserved", 0)))
        out.functions = [StackMapFunction(Address.from_dict(f["address"]), int(f["stack_size"]),
                                          int(f["record_count"])) for f in d["functions"]]
        out.constants = [int(c) for c in d["constants"]]
        for r in d["records"]:
            locs = []
            for loc in r["locations"]:
                k = loc["kind"]
                kind = _KIND_BY_NAME.get(k) if isinstance(k, str) else int(k)
                if kind is None:
                    raise DecodeError(f"stackmaps: unknown location kind {k!r}")
                locs.append(StackMapLocation(kind, int(loc["size"]), int(loc["register"]), int(loc["offset"]),
                                             int(loc.get("reserved", 0)), int(loc.get("reserved2", 0))))
            nl = len(locs)
            pad = bytes.fromhex(r["padding"]) if "padding" in r else bytes((-(16 + 12 * nl)) % 8)
            los = [StackMapLiveOut(int(x["register"]), int(x["size"]), int(x.get("reserved", 0)))
                   for x in r["live_outs"]]
            end = 16 + 12 * nl + len(pad) + 4 + 4 * len(los)
            tail = bytes.fromhex(r["tail"]) if "tail" in r else bytes((-end) % 8)
            out.records.append(StackMapRecord(int(r["id"]), int(r["instruction_offset"]), locs, los,
                                              int(r.get("flags", 0)), pad, int(r.get("padding2", 0)), tail))
        return out

    def tables(self, model, options):
        out = [Table(["function", "stack size", "records"],
                     [[f.address.text(), f.stack_size, f.record_count] for f in model.functions])]
        if model.constants:
            out.append(Table(["constant", "value"], [[i, c] for i, c in enumerate(model.constants)]))
        rows = []
        for r in model.records:
            locs = "; ".join(_loc_text(loc, model.constants) for loc in r.locations) or "-"
            lo = ", ".join(f"R#{x.register} ({x.size})" for x in r.live_outs) or "-"
            rows.append([r.id, f"{r.instruction_offset:#x}", locs, lo])
        out.append(Table(["record id", "offset", "locations", "live-outs"], rows))
        return out


def _loc_text(loc, constants) -> str:
    k = loc.kind
    if k == 1:
        s = f"R#{loc.register}"
    elif k == 2:
        s = f"R#{loc.register} + {loc.offset}"
    elif k == 3:
        s = f"[R#{loc.register} + {loc.offset}]"
    elif k == 4:
        s = f"{loc.offset & 0xFFFFFFFF}"
    elif k == 5:
        v = constants[loc.offset] if 0 <= loc.offset < len(constants) else "?"
        s = f"constant #{loc.offset} ({v})"
    else:
        s = f"kind {k} R#{loc.register} {loc.offset}"
    return f"{loc.kind_name} {s}, {loc.size} bytes"
