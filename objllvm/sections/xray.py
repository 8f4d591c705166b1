"""XRay instrumentation maps: ``xray_instr_map`` (the sleds) and ``xray_fn_idx`` (sleds per function).

A sled is four address-sized words (32 bytes on 64-bit targets): the sled's address, the function's address,
then u8 kind (0 function-enter, 1 function-exit, 2 tail-exit, 3 log-args-enter, 4 custom-event, 5
typed-event), u8 always-instrument, u8 sled version, zero padding.  From sled version 2 on, both addresses are
relative to the field's own place; in an object they are relocations.  A function's id counts the
functions in sled order from 1, as ``llvm-xray extract`` numbers them.

An ``xray_fn_idx`` entry is two address-sized words: where the function's sleds start (relative to the entry,
version 2) and how many there are.
"""
from __future__ import annotations

from .._model import dataclass, field
from ..binary import Reader, pack_uint
from ..errors import DecodeError
from .registry import Codec, Table, register
from .support.addresses import Address, Resolver
from .support.symbols import UNKNOWN_NAME

SLED_KINDS = {0: "function-enter", 1: "function-exit", 2: "tail-exit", 3: "log-args-enter", 4: "custom-event",
              5: "typed-event"}
_KIND_BY_NAME = {v: k for k, v in SLED_KINDS.items()}


@dataclass
class XRaySled:
    address_field: int
    function_field: int
    kind: int
    always_instrument: int
    version: int
    padding: bytes = b""
    id: int = 0                          # function id (1-based, in sled order)
    address: int | None = None           # resolved (linked file; object: offset from the symbol)
    function: int | None = None
    address_symbol: str | None = None    # the function (or symbol) the address is in
    function_symbol: str | None = None
    address_offset: int | None = None    # object: the offset from ``address_symbol``
    function_offset: int | None = None

    @property
    def kind_name(self) -> str:
        return SLED_KINDS.get(self.kind, f"kind-{self.kind}")


@dataclass
class XRayInstrMap:
    word_size: int
    sleds: list = field(default_factory=list)
    tail: bytes = b""
    relocatable: bool = False            # addresses are symbol+offset (object), not resolved addresses


@dataclass
class XRayFnIndexEntry:
    sleds: Address
    count: int
    sleds_address: int | None = None     # resolved (linked file, version 2: relative to the entry)


@dataclass
class XRayFnIndex:
    word_size: int
    entries: list = field(default_factory=list)


def _wrap(v: int, w: int) -> int:
    return v & ((1 << (8 * w)) - 1)


def _signed(v: int, w: int) -> int:
    return v - (1 << (8 * w)) if v >> (8 * w - 1) else v


@register
class XRayInstrMapCodec(Codec):
    kind = "xray-instr-map"
    description = "XRay sleds (-fxray-instrument): kind, function and address of each patchable sled"
    names = ("xray_instr_map", "__DATA,xray_instr_map")
    formats = ("elf", "macho")

    def decode(self, data, ctx):
        w = ctx.addr_size
        size = 4 * w
        r = Reader(data, ctx.endian)
        res = Resolver(ctx)
        sec = ctx.section
        out = XRayInstrMap(w, relocatable=ctx.is_relocatable)
        n = len(data) // size
        fid, prev = 0, None
        by_off = {}
        for rel in ctx.relocations or ():
            by_off.setdefault(rel.offset, []).append(rel)
        sec_addr = sec.addr if sec is not None else 0
        for i in range(n):
            p = r.pos
            a, f = r.uint(w), r.uint(w)
            kind, always, version = r.u8(), r.u8(), r.u8()
            pad = r.bytes(size - 2 * w - 3)
            s = XRaySled(a, f, kind, always, version, pad)
            for off, raw, attr in ((p, a, "address"), (p + w, f, "function")):
                rels = by_off.get(off) if ctx.is_relocatable else None
                place = sec_addr + off
                if rels and ctx.format == "elf":
                    # llvm-xray applies ELF relocations: S + A (a section symbol's S is 0 in an object)
                    rel = rels[0]
                    addend = rel.addend if rel.addend is not None else _signed(raw, w)
                    setattr(s, attr, _wrap(addend, w))
                    sym = rel.symbol
                    if sym is not None and sym.is_section:
                        name, delta = res.locate(sym.shndx, addend)
                    else:
                        name, delta = res.symbol_name(sym, rel, off), addend   # None: unnamed, warned
                    setattr(s, attr + "_symbol", name)
                    setattr(s, attr + "_offset", delta)
                    continue
                # a linked file, or a Mach-O object (llvm-xray reads its fields without relocations)
                v = _wrap(raw + place, w) if version >= 2 else raw
                setattr(s, attr, v)
                if rels and len(rels) >= 2 and ctx.format == "macho":
                    # SUBTRACTOR B then UNSIGNED A at one place: the field is A - B + raw
                    b, a_ = rels[0].symbol, rels[1].symbol
                    if a_ is not None and b is not None:
                        setattr(s, attr + "_symbol", a_.name)
                        setattr(s, attr + "_offset", _signed(_wrap(raw + place - b.value, w), w)
                                if version >= 2 else _signed(raw, w))
                elif not ctx.is_relocatable:
                    setattr(s, attr + "_symbol", res.function_at(v))
            key = s.function
            if key != prev:
                fid += 1
                prev = key
            s.id = fid
            out.sleds.append(s)
        out.tail = bytes(data[n * size:])
        if out.tail:
            raise DecodeError(f"{len(out.tail)} bytes after the last whole sled ({size} bytes each)",
                              offset=n * size, partial=out)
        return out

    def encode(self, model, ctx):
        w, e = model.word_size, ctx.endian
        return b"".join(pack_uint(s.address_field, w, e) + pack_uint(s.function_field, w, e)
                        + bytes((s.kind, s.always_instrument, s.version)) + s.padding for s in model.sleds) + model.tail

    def to_dict(self, model):
        return {"word_size": model.word_size,
                "sleds": [{"id": s.id, "kind": s.kind_name, "always_instrument": bool(s.always_instrument),
                           "version": s.version, "address": s.address, "function": s.function,
                           "address_symbol": s.address_symbol, "function_symbol": s.function_symbol,
                           "address_offset": s.address_offset, "function_offset": s.function_offset,
                           "address_field": s.address_field, "function_field": s.function_field,
                           "padding": s.padding.hex()} for s in model.sleds]}

    def from_dict(self, d, ctx):
        w = int(d.get("word_size", ctx.addr_size))
        out = XRayInstrMap(w)
        for s in d["sleds"]:
            k = s["kind"]
            kind = _KIND_BY_NAME.get(k) if isinstance(k, str) else int(k)
            if kind is None:
                raise DecodeError(f"xray-instr-map: unknown sled kind {k!r}")
            pad = bytes.fromhex(s["padding"]) if "padding" in s else bytes(2 * w - 3)
            if len(pad) != 2 * w - 3:
                raise DecodeError(f"xray-instr-map: sled padding must be {2 * w - 3} bytes")
            out.sleds.append(XRaySled(int(s["address_field"]), int(s["function_field"]), kind,
                                      int(bool(s.get("always_instrument"))), int(s.get("version", 2)), pad,
                                      int(s.get("id", 0))))
        return out

    def tables(self, model, options):
        def where(v, sym, off):
            if v is None:
                return "?"
            if sym is None and off is not None:       # an object's relocation whose symbol has no name
                sym = UNKNOWN_NAME
            if sym and off is not None:
                return f"{sym}+{off:#x}" if off > 0 else f"{sym}-{-off:#x}" if off < 0 else sym
            return f"{v:#x} <{sym}>" if sym else f"{v:#x}"
        return [Table(["id", "address", "function", "kind", "always", "version"],
                      [[s.id, where(s.address, s.address_symbol, s.address_offset),
                        where(s.function, s.function_symbol, s.function_offset),
                        s.kind_name, "yes" if s.always_instrument else "no", s.version] for s in model.sleds])]


@register
class XRayFnIndexCodec(Codec):
    kind = "xray-fn-idx"
    description = "XRay function index: where each function's sleds start and how many there are"
    names = ("xray_fn_idx", "__DATA,xray_fn_idx")
    formats = ("elf", "macho")

    def decode(self, data, ctx):
        w = ctx.addr_size
        r = Reader(data, ctx.endian)
        res = Resolver(ctx)
        sec = ctx.section
        out = XRayFnIndex(w)
        pairs = {}
        for rel in ctx.relocations or ():
            pairs.setdefault(rel.offset, []).append(rel)
        while not r.at_end():
            p = r.pos
            try:
                v = r.uint(w, f"entry {len(out.entries)}: sleds address")
                n = r.uint(w, f"entry {len(out.entries)}: sled count")
            except DecodeError as exc:
                exc.message += f" (entries are two {w}-byte words)"
                exc.partial = out
                raise
            try:
                e = XRayFnIndexEntry(res.at(p, v), n)
            except DecodeError as exc:
                exc.partial = out
                raise
            rels = [x for x in pairs.get(p, ())] if ctx.format == "macho" else ()
            if len(rels) >= 2 and rels[0].symbol is not None and rels[1].symbol is not None:
                # SUBTRACTOR (this entry's label) then UNSIGNED (the sleds' start): A - B + stored
                e.sleds = Address(v, rels[1].symbol.name, _signed(_wrap(v + (sec.addr if sec else 0) + p
                                                                        - rels[0].symbol.value, w), w))
            if not ctx.is_relocatable and sec is not None:
                e.sleds_address = _wrap(v + sec.addr + p, w)
            out.entries.append(e)
        res.finish()
        return out

    def encode(self, model, ctx):
        w, e = model.word_size, ctx.endian
        return b"".join(pack_uint(x.sleds.value, w, e) + pack_uint(x.count, w, e) for x in model.entries)

    def to_dict(self, model):
        return {"word_size": model.word_size,
                "entries": [{"sleds": x.sleds.to_dict(), "count": x.count, "sleds_address": x.sleds_address}
                            for x in model.entries]}

    def from_dict(self, d, ctx):
        return XRayFnIndex(int(d.get("word_size", ctx.addr_size)),
                           [XRayFnIndexEntry(Address.from_dict(x["sleds"]), int(x["count"]), x.get("sleds_address"))
                            for x in d["entries"]])

    def tables(self, model, options):
        return [Table(["sleds", "count"],
                      [[f"{x.sleds_address:#x}" if x.sleds_address is not None else x.sleds.text(), x.count]
                       for x in model.entries])]
