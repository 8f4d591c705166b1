"""SHT_LLVM_JT_SIZES (``.llvm_jump_table_sizes``, ``-mllvm -emit-jump-table-sizes-section``, LLVM 20+).

One section per function that has jump tables; for each table two address-sized words: the table's address
(a relocation in an object) and its number of entries.  The function a table belongs to is the function
whose code refers to the table, found through the code's relocations in a relocatable object (ELF or COFF);
in a linked file, the function the table's first entry jumps into (a 32-bit offset from the table, as PIC
tables hold, else an absolute address).
"""
from __future__ import annotations

import bisect

from .._model import dataclass, field
from ..binary import Reader, pack_uint
from ..errors import DecodeError
from .registry import Codec, Table, register
from .support.addresses import Address, Resolver

SHT_LLVM_JT_SIZES = 0x6FFF4C0D


@dataclass
class JumpTableSize:
    address: Address
    entries: int
    function: str | None = None


@dataclass
class JumpTableSizes:
    word_size: int
    tables: list = field(default_factory=list)


class _CodeReferences:
    """Relocations in the object's code, by target symbol name: sorted (addend, code section, offset) lists,
    built once per section decoded, looked up by bisection."""

    def __init__(self, ctx, res):
        self.ctx, self.res = ctx, res
        self._by_symbol = None
        self._functions = None

    def _is_code(self, sec) -> bool:
        if self.ctx.format == "coff":
            return bool(sec.flags & 0x20000020)                        # IMAGE_SCN_CNT_CODE / MEM_EXECUTE
        return bool(sec.flags & 0x4) and sec.type == 1                 # SHF_EXECINSTR, SHT_PROGBITS

    def _build(self):
        out = {}
        obj = self.ctx.obj
        e = self.ctx.endian
        for sec in getattr(obj, "sections", ()):
            if not self._is_code(sec):
                continue
            code = None
            for r in obj.relocations_for(sec):
                if r.symbol is None:
                    continue
                a = r.addend
                if a is None:                     # REL / COFF: a 32-bit implicit addend in the code
                    code = sec.data() if code is None else code
                    a = int.from_bytes(code[r.offset:r.offset + 4], "little" if e == "<" else "big", signed=True) \
                        if 0 <= r.offset <= len(code) - 4 else 0
                out.setdefault(self.res.symbol_name(r.symbol), []).append((a, sec.index, r.offset))
        for v in out.values():
            v.sort()
        self._by_symbol = out

    def linked_function_for(self, addr: Address, entries: int):
        """Linked file: the function the table's first entry jumps into, read as a 32-bit offset from the
        table (PIC tables) or as an absolute address-sized word."""
        obj = self.ctx.obj
        if obj is None or self.ctx.is_relocatable or not entries or self.ctx.format != "elf":
            return None
        for sec in getattr(obj, "sections", ()):
            if sec.type == 8 or not sec.addr or not (sec.addr <= addr.value < sec.addr + sec.size):
                continue
            data = sec.data()
            off = addr.value - sec.addr
            order = "little" if self.ctx.endian == "<" else "big"
            guesses = []
            if off + 4 <= len(data):
                guesses.append(addr.value + int.from_bytes(data[off:off + 4], order, signed=True))
            w = self.ctx.addr_size
            if off + w <= len(data):
                guesses.append(int.from_bytes(data[off:off + w], order))
            for dest in guesses:
                f = self.res.function_containing(dest)
                if f is not None:
                    return f
            return None
        return None

    def function_for(self, addr: Address):
        """The function whose code has a relocation to ``addr`` (symbol+addend within 8 bytes below: PC-relative
        references carry the instruction's bias)."""
        if not self.ctx.is_relocatable or addr.symbol is None or self.ctx.obj is None:
            return None
        if self._by_symbol is None:
            self._build()
        refs = self._by_symbol.get(addr.symbol)
        if not refs:
            return None
        i = bisect.bisect_left(refs, (addr.addend - 8, -1, -1))
        while i < len(refs) and refs[i][0] <= addr.addend:
            _, shndx, off = refs[i]
            f = self._function_containing(shndx, off)
            if f is not None:
                return f
            i += 1
        return None

    def _function_containing(self, shndx, off):
        if self._functions is None:
            out = {}
            if self.ctx.format == "coff":
                # COFF: function symbols (type 0x20) carry no size: each runs to the next one of its section
                starts = {}
                for sym in self.ctx.symbols:
                    if sym.type == 0x20 and sym.name and sym.shndx > 0:
                        starts.setdefault(sym.shndx, []).append((sym.value, sym.name))
                for shndx, v in starts.items():
                    v.sort()
                    out[shndx] = [(a, v[k + 1][0] if k + 1 < len(v) else float("inf"), name)
                                  for k, (a, name) in enumerate(v)]
            else:
                for sym in self.ctx.symbols:
                    if sym.type == 2 and sym.name:                      # STT_FUNC
                        out.setdefault(sym.shndx, []).append((sym.value, sym.value + max(sym.size, 1), sym.name))
                for v in out.values():
                    v.sort()
            self._functions = out
        funcs = self._functions.get(shndx, ())
        i = bisect.bisect_right(funcs, (off, float("inf"), "")) - 1
        if i >= 0 and funcs[i][0] <= off < funcs[i][1]:
            return funcs[i][2]
        return None


@register
class JumpTableSizesCodec(Codec):
    kind = "jt-sizes"
    description = "jump-table sizes (-emit-jump-table-sizes-section): table address and entry count"
    sh_types = (SHT_LLVM_JT_SIZES,)
    names = (".llvm_jump_table_sizes",)
    formats = ("elf", "coff")

    def decode(self, data, ctx):
        w = ctx.addr_size
        r = Reader(data, ctx.endian)
        out = JumpTableSizes(w)
        res = Resolver(ctx)
        refs = _CodeReferences(ctx, res)
        while not r.at_end():
            start = r.pos
            try:
                v = r.uint(w, f"table {len(out.tables)}: address")
                n = r.uint(w, f"table {len(out.tables)}: entry count")
            except DecodeError as exc:
                exc.message += f" (records are two {w}-byte words)"
                exc.partial = out
                raise
            try:
                addr = res.at(start, v)
            except DecodeError as exc:
                exc.partial = out
                raise
            fn = refs.function_for(addr) if ctx.is_relocatable else refs.linked_function_for(addr, n)
            out.tables.append(JumpTableSize(addr, n, fn))
        res.finish()
        return out

    def encode(self, model, ctx):
        w, e = model.word_size, ctx.endian
        return b"".join(pack_uint(t.address.value, w, e) + pack_uint(t.entries, w, e) for t in model.tables)

    def to_dict(self, model):
        return {"word_size": model.word_size,
                "tables": [{"address": t.address.to_dict(), "entries": t.entries, "function": t.function}
                           for t in model.tables]}

    def from_dict(self, d, ctx):
        return JumpTableSizes(int(d.get("word_size", ctx.addr_size)),
                              [JumpTableSize(Address.from_dict(t["address"]), int(t["entries"]), t.get("function"))
                               for t in d["tables"]])

    def tables(self, model, options):
        return [Table(["table", "entries", "function"],
                      [[t.address.text(), t.entries, t.function or "?"] for t in model.tables])]
