"""SHT_LLVM_CFI_JUMP_TABLE (LLVM 22): a CFI jump table, one fixed-size entry (sh_entsize) per function.

Each entry is a short branch to the function (x86-64: ``jmp rel32`` then ``int3`` padding to 8 bytes).  The
target is the relocation inside the entry (relocatable object) or, for an x86 ``jmp rel32`` in a linked
file, the branch's destination; the entry's own name is the symbol defined at its start, if any.
"""
from __future__ import annotations

from .._model import dataclass, field
from ..errors import DecodeError
from .registry import Codec, Table, register
from .support.addresses import Address, Resolver

SHT_LLVM_CFI_JUMP_TABLE = 0x6FFF4C0E


@dataclass
class CfiJumpTableEntry:
    offset: int
    raw: bytes
    name: str | None = None           # symbol at the entry's start
    target: Address | None = None


@dataclass
class CfiJumpTable:
    entry_size: int
    entries: list = field(default_factory=list)
    tail: bytes = b""                 # bytes after the last whole entry (kept for exact re-encoding)


@register
class CfiJumpTableCodec(Codec):
    kind = "cfi-jump-table"
    description = "CFI jump table: one branch per function (SHT_LLVM_CFI_JUMP_TABLE)"
    sh_types = (SHT_LLVM_CFI_JUMP_TABLE,)
    names = ()

    def decode(self, data, ctx):
        sec = ctx.section
        size = (sec.entsize if sec is not None and sec.entsize else 0) or 8
        if size > len(data) and data:
            raise DecodeError(f"entry size {size} (sh_entsize) is larger than the section ({len(data)} bytes)",
                              offset=0, partial=CfiJumpTable(size))
        res = Resolver(ctx)
        shndx = sec.index if sec is not None else None
        starts = {}
        for s in ctx.symbols:
            if s.shndx == shndx and s.type != 3 and s.name:
                starts.setdefault(s.value - (sec.addr if sec is not None and not ctx.is_relocatable else 0), s.name)
        relocs = sorted(res.relocs.items())
        out = CfiJumpTable(size)
        n = len(data) // size
        ri = 0
        for i in range(n):
            off = i * size
            raw = bytes(data[off:off + size])
            target = None
            while ri < len(relocs) and relocs[ri][0] < off:
                ri += 1
            if ri < len(relocs) and relocs[ri][0] < off + size:
                roff, r = relocs[ri]
                a = r.addend if r.addend is not None else 0
                if ctx.machine in ("x86-64", "i386") and a == -4:
                    a = 0                     # jmp rel32: the -4 is the instruction's own bias
                name = res.symbol_name(r.symbol, r, roff)
                target = Address(0, name, a, unknown=name is None)
            elif not ctx.is_relocatable and raw[:1] == b"\xe9" and len(raw) >= 5 and sec is not None:
                rel = int.from_bytes(raw[1:5], "little", signed=True)
                dest = (sec.addr + off + 5 + rel) & ((1 << (8 * ctx.addr_size)) - 1)
                target = Address(dest, res.function_at(dest))
            out.entries.append(CfiJumpTableEntry(off, raw, starts.get(off), target))
        out.tail = bytes(data[n * size:])
        return out

    def encode(self, model, ctx):
        return b"".join(e.raw for e in model.entries) + model.tail

    def to_dict(self, model):
        return {"entry_size": model.entry_size, "tail": model.tail.hex(),
                "entries": [{"offset": e.offset, "bytes": e.raw.hex(), "name": e.name,
                             "target": e.target.to_dict() if e.target else None} for e in model.entries]}

    def from_dict(self, d, ctx):
        size = int(d["entry_size"])
        out = CfiJumpTable(size, tail=bytes.fromhex(d.get("tail", "")))
        for i, e in enumerate(d["entries"]):
            raw = bytes.fromhex(e["bytes"])
            if len(raw) != size:
                raise DecodeError(f"cfi-jump-table: entry {i} has {len(raw)} bytes, the entry size is {size}")
            out.entries.append(CfiJumpTableEntry(i * size, raw, e.get("name"),
                                                 Address.from_dict(e["target"]) if e.get("target") else None))
        return out

    def tables(self, model, options):
        return [Table(["offset", "entry", "target", "bytes"],
                      [[f"{e.offset:#x}", e.name or "-", e.target.text() if e.target else "?", e.raw.hex()]
                       for e in model.entries])]
