"""PC sections (``!pcsections``): sanitizer binary metadata and any user-defined PC section.

Recognised by name: the built-in sanitizer-metadata names (``sanmd_covered2``, ``sanmd_atomics2``, ...)
and the names of the layouts given with ``--pc-section`` (see :mod:`objllvm.pcsections`).

Relocatable objects: each PC word has a PC-relative relocation (x86-64 PC32/PC64, AArch64 PREL32/PREL64,
i386 PC32); the PC is the relocation's symbol + addend, shown as section + offset.  Linked files: the PC
is the entry's address + the stored signed value.
"""
from __future__ import annotations

import struct

from .._model import dataclass, field
from ..binary import Reader, pack_uint
from ..errors import DecodeError, ObjllvmError, UsageError
from .support.pc_layouts import (AuxField, Layout, feature_names, layout_for, parse_layout, pc_width_option)
from .registry import Codec, Table, register
from .support.symbols import SymbolNamer

SHF_ALLOC, SHF_EXECINSTR = 0x2, 0x4
SHN_LORESERVE = 0xFF00

# PC-relative data relocations by machine: type -> (name, width).
PC_RELOCS = {
    "x86-64": {2: ("R_X86_64_PC32", 4), 24: ("R_X86_64_PC64", 8)},
    "aarch64": {261: ("R_AARCH64_PREL32", 4), 260: ("R_AARCH64_PREL64", 8)},
    "i386": {2: ("R_386_PC32", 4)},
}


@dataclass
class PC:
    """One PC word."""
    offset: int                    # of the word in the section
    stored: int                    # the signed value as stored (0 in RELA objects)
    address: int | None            # linked: absolute; relocatable: offset in ``section``
    section: str | None = None     # the section the PC points into
    section_index: int | None = None
    symbol: str | None = None      # the function containing the PC (or the relocation's undefined symbol)
    symbol_offset: int | None = None
    relocation: str | None = None  # relocatable objects: the relocation type
    block: dict | None = None      # {'function', 'id', 'address', 'size'} from the basic-block map, when present

    def where(self) -> str:
        if self.symbol is not None:
            return f"{self.symbol}+{self.symbol_offset:#x}" if self.symbol_offset else self.symbol
        return "?"

    def text(self, relocatable: bool) -> str:
        if self.address is None:
            return "?"
        if relocatable:
            return f"{self.section or '?'}+{self.address:#x}"
        return f"{self.address:#x}"

    def to_dict(self):
        return {"offset": self.offset, "stored": self.stored, "address": self.address, "section": self.section,
                "section_index": self.section_index, "symbol": self.symbol, "symbol_offset": self.symbol_offset,
                "relocation": self.relocation, "block": self.block}


@dataclass
class Const:
    name: str
    type: str                      # u8 ... f64
    value: object                  # int (signed for iN types) or float
    encoding: str                  # 'fixed' or 'uleb'
    length: int                    # bytes as stored
    flags: list | None = None      # named bits (built-in layouts)

    def text(self) -> str:
        if self.flags is not None:
            v = f"{self.value:#x} ({','.join(self.flags) or 'none'})"
        else:
            v = str(self.value)
        return f"{self.name}={v}"

    def to_dict(self):
        d = {"name": self.name, "type": self.type, "value": self.value, "encoding": self.encoding,
             "length": self.length}
        if self.flags is not None:
            d["flags"] = self.flags
        return d


@dataclass
class PCEntry:
    index: int
    offset: int                    # of the entry in the section
    pcs: list                      # PC...; one for functions, one or more for an instruction group
    size: int | None = None        # function entries
    size_length: int | None = None  # bytes the size takes as stored
    constants: list = field(default_factory=list)

    def to_dict(self):
        d = {"index": self.index, "offset": self.offset, "pcs": [p.to_dict() for p in self.pcs]}
        if self.size is not None:
            d["size"] = self.size
            d["size_length"] = self.size_length
        d["constants"] = [c.to_dict() for c in self.constants]
        return d


@dataclass
class PCSection:
    name: str
    layout: Layout
    pc_width: int
    pc_width_source: str           # 'option', 'name' (sanitizer metadata names say it), 'relocations', 'probe',
    #                                'default'
    relocatable: bool
    entries: list = field(default_factory=list)
    blocks: str | None = None      # why basic blocks are not shown, when a map exists but could not be used


def _uleb_len_encode(value: int, length: int) -> bytes:
    """ULEB128 of ``value`` in exactly ``length`` bytes (padded as assemblers may pad)."""
    out = bytearray()
    for i in range(length):
        b = value & 0x7F
        value >>= 7
        out.append(b | (0x80 if i < length - 1 else 0))
    if value:
        raise ValueError("value does not fit in the stored ULEB128 length")
    return bytes(out)


def _min_uleb_len(value: int) -> int:
    n = 1
    while value >= 0x80:
        value >>= 7
        n += 1
    return n


class _Funcs:
    """Function symbols sorted by address (per section in relocatable objects)."""

    def __init__(self, symbols, per_section: bool):
        self.per_section = per_section
        groups: dict = {}
        for s in symbols:
            if s.type == 2 and 0 < s.shndx < SHN_LORESERVE:
                groups.setdefault(s.shndx if per_section else None, []).append(s)
        self.lists = {}
        for k, v in groups.items():
            v.sort(key=lambda s: (s.value, -s.size, s.bind != 1))
            self.lists[k] = ([s.value for s in v], v)

    def find(self, address: int, shndx=None):
        from bisect import bisect_right
        starts, syms = self.lists.get(shndx if self.per_section else None, ((), ()))
        i = bisect_right(starts, address) - 1
        best = None
        for j in range(i, max(i - 16, -1), -1):
            s = syms[j]
            if s.value <= address < s.value + max(s.size, 1):
                if best is None or s.value > best.value:
                    best = s
        return best


def _weak_cache():
    """A cache by object that does not keep the objects alive (weakref is imported when one is needed)."""
    import weakref
    return weakref.WeakKeyDictionary()


_FUNCS_CACHE = None


def _funcs_for(obj, symbols, per_section):
    global _FUNCS_CACHE
    if _FUNCS_CACHE is None:
        _FUNCS_CACHE = _weak_cache()
    try:
        f = _FUNCS_CACHE.get(obj)
        if f is None or f.per_section != per_section:
            f = _Funcs(symbols, per_section)
            _FUNCS_CACHE[obj] = f
        return f
    except TypeError:      # not weak-referenceable
        return _Funcs(symbols, per_section)


class _Decoder:
    def __init__(self, data, ctx, layout: Layout, width: int, strict: bool = False):
        self.data, self.ctx, self.layout, self.width, self.strict = data, ctx, layout, width, strict
        self.sec = ctx.section
        self.obj = ctx.obj
        self.relocatable = bool(ctx.is_relocatable)
        self.machine_relocs = PC_RELOCS.get(ctx.machine, {})
        self.relocs = {}
        if self.relocatable:
            for x in ctx.relocations:
                self.relocs.setdefault(x.offset, x)
        self.funcs = _funcs_for(self.obj, ctx.symbols, self.relocatable)
        self.namer = SymbolNamer(ctx)
        self.sections = getattr(self.obj, "sections", []) or []
        self.mask = (1 << (8 * ctx.addr_size)) - 1
        self.base = self.sec.addr if self.sec is not None else 0

    # -- PCs ---------------------------------------------------------------------------------
    def _expected_relocs(self) -> str:
        names = [n for n, w in self.machine_relocs.values() if w == self.width]
        return " or ".join(names) if names else f"a {self.width * 8}-bit PC-relative relocation"

    def read_pc(self, r: Reader, entry: int) -> PC:
        off = r.pos
        stored = r.uint(self.width, f"{self.width}-byte PC")
        if stored >> (8 * self.width - 1):
            stored -= 1 << (8 * self.width)
        if self.relocatable:
            return self._resolve_reloc(off, stored, entry)
        return self._resolve_linked(off, stored, entry)

    def _resolve_reloc(self, off, stored, entry) -> PC:
        rel = self.relocs.get(off)
        if rel is None:
            raise DecodeError(f"entry {entry}: no relocation for the PC at offset {off:#x} (expected "
                              f"{self._expected_relocs()}); wrong layout or PC width?", offset=off)
        kind = self.machine_relocs.get(rel.type)
        if kind is None:
            raise DecodeError(f"entry {entry}: relocation type {rel.type} at offset {off:#x} is not a PC-relative "
                              f"32/64-bit relocation for {self.ctx.machine} (expected {self._expected_relocs()})",
                              offset=off)
        rname, rwidth = kind
        if rwidth != self.width:
            raise DecodeError(f"entry {entry}: {rname} is a {rwidth}-byte relocation but the PC width is "
                              f"{self.width} (see --pc-width)", offset=off)
        addend = rel.addend if rel.addend is not None else stored
        sym = rel.symbol
        if sym is None:
            if rel.sym:       # past its symbol table: the PC is unknown, a warning (the entry stays)
                self.namer.reloc_ref(rel, off, f"entry {entry}: PC symbol")
            return PC(off, stored, addend, None, None, None, None, rname)
        if not 0 < sym.shndx < SHN_LORESERVE or sym.shndx >= len(self.sections):
            # Undefined (or absolute) symbol: name it, nothing more is known.
            return PC(off, stored, None, None, None, self.namer.reloc_ref(rel, off, f"entry {entry}: PC symbol").name
                      or None, addend, rname)
        target = self.sections[sym.shndx]
        address = sym.value + addend
        if not 0 <= address < max(target.size, 1):
            raise DecodeError(f"entry {entry}: PC {target.name}+{address:#x} is outside its section "
                              f"({target.size:#x} bytes)", offset=off)
        if self.strict and not target.flags & SHF_EXECINSTR:
            raise DecodeError(f"entry {entry}: PC points into non-executable {target.name}", offset=off)
        f = self.funcs.find(address, sym.shndx)
        return PC(off, stored, address, target.name, target.index, f.name if f else None,
                  address - f.value if f else None, rname)

    def _section_at(self, addr):
        for s in self.sections:
            if s.flags & SHF_ALLOC and s.type not in (0, 8) and s.addr <= addr < s.addr + s.size:
                return s
        for s in self.sections:    # .bss and friends last
            if s.flags & SHF_ALLOC and s.type != 0 and s.addr <= addr < s.addr + s.size:
                return s
        return None

    def _resolve_linked(self, off, stored, entry) -> PC:
        entry_addr = self.base + off
        addr = (entry_addr + stored) & self.mask
        s = self._section_at(addr)
        if s is None:
            raise DecodeError(f"entry {entry}: PC {addr:#x} (entry address {entry_addr:#x} {stored:+#x}) is "
                              f"outside any section", offset=off)
        if self.strict and not s.flags & SHF_EXECINSTR:
            raise DecodeError(f"entry {entry}: PC {addr:#x} is in non-executable {s.name}", offset=off)
        f = self.funcs.find(addr)
        return PC(off, stored, addr, s.name, s.index, f.name if f else None, addr - f.value if f else None)

    def more_pcs(self, r: Reader, first: PC) -> bool:
        """Does another PC of the same instruction group start at ``r.pos``?"""
        if r.remaining() < self.width:
            return False
        if self.relocatable:
            rel = self.relocs.get(r.pos)
            return rel is not None and rel.type in self.machine_relocs
        if first.symbol is None:
            return False
        v = int.from_bytes(self.data[r.pos:r.pos + self.width], "little" if self.ctx.endian == "<" else "big",
                           signed=True)
        addr = (self.base + r.pos + v) & self.mask
        f = self.funcs.find(addr)
        return f is not None and f.name == first.symbol

    # -- numbers -----------------------------------------------------------------------------
    def read_const(self, r: Reader, a: AuxField) -> Const:
        lay = self.layout
        if lay.compressed and a.type[0] in "ui" and a.size > 1:
            start = r.pos
            v = r.uleb(f"ULEB128 constant {a.name} ({a.type})", max_bits=8 * a.size)
            n = r.pos - start
            if a.type[0] == "i" and v >> (8 * a.size - 1):
                v -= 1 << (8 * a.size)
            return Const(a.name, a.type, v, "uleb", n)
        raw = r.bytes(a.size, f"{a.size}-byte constant {a.name} ({a.type})")
        e = "<" if self.ctx.endian == "<" else ">"
        if a.type == "f32":
            v = struct.unpack(e + "f", raw)[0]
        elif a.type == "f64":
            v = struct.unpack(e + "d", raw)[0]
        else:
            v = int.from_bytes(raw, "little" if e == "<" else "big", signed=a.type[0] == "i")
        return Const(a.name, a.type, v, "fixed", a.size)

    def decode(self) -> PCSection:
        lay = self.layout
        model = PCSection(self.sec.name if self.sec is not None else lay.name, lay, self.width, "", self.relocatable)
        r = Reader(self.data, self.ctx.endian)
        entries = model.entries
        fixed = lay.fixed_entry_size(self.width)
        grouped = lay.kind == "insn" and (lay.aux or lay.extra is not None)
        while not r.at_end():
            start = r.pos
            idx = len(entries)
            try:
                first = self.read_pc(r, idx)
                ent = PCEntry(idx, start, [first])
                if lay.kind == "func":
                    p = r.pos
                    if lay.compressed:
                        ent.size = r.uleb("ULEB128 function size", max_bits=64)
                    else:
                        ent.size = r.u32("4-byte function size")
                    ent.size_length = r.pos - p
                elif grouped:
                    while self.more_pcs(r, first):
                        ent.pcs.append(self.read_pc(r, idx))
                for a in lay.aux:
                    c = self.read_const(r, a)
                    m = lay.flag_map(a.name)
                    if m is not None and isinstance(c.value, int):
                        c.flags = feature_names(c.value, m)
                    ent.constants.append(c)
                if lay.extra is not None and ent.constants and isinstance(ent.constants[0].value, int) \
                        and ent.constants[0].value & lay.extra_if_bit:
                    ent.constants.append(self.read_const(r, lay.extra))
            except DecodeError as exc:
                if not exc.message.startswith("entry "):
                    exc.message = f"entry {idx} (at offset {start:#x}): {exc.message}"
                if fixed and len(self.data) % fixed:
                    exc.message += (f"; section size {len(self.data)} is not a whole number of {fixed}-byte "
                                    f"entries for layout {lay.spec()}")
                exc.partial = model
                raise
            entries.append(ent)
        return model


def _choose_width(data, ctx, layout: Layout):
    w = pc_width_option(ctx.options)
    if w is not None:
        return w, "option"
    if layout.pc_width is not None:
        return layout.pc_width, "name"
    kinds = PC_RELOCS.get(ctx.machine, {})
    if ctx.is_relocatable:
        for x in sorted(ctx.relocations, key=lambda x: x.offset):
            if x.type in kinds:
                return kinds[x.type][1], "relocations"
        return 4, "default"
    for cand in dict.fromkeys((4, ctx.addr_size)):
        try:
            _Decoder(data, ctx, layout, cand, strict=True).decode()
            return cand, "probe"
        except ObjllvmError:
            continue
    return 4, "default"


_BB_CACHE = None


def _bb_index(obj):
    """(index or None, note): the basic-block index of ``obj`` when it has a map and objllvm.bbindex exists."""
    global _BB_CACHE
    secs = [s for s in getattr(obj, "sections", []) if s.type in (0x6FFF4C08, 0x6FFF4C0A)]
    if not secs:
        return None, None
    if _BB_CACHE is None:
        _BB_CACHE = _weak_cache()
    try:
        hit = _BB_CACHE.get(obj)
    except TypeError:
        hit = None
    if hit is not None:
        return hit
    try:
        from .support import bb_index as bbindex
    except ImportError:
        hit = (None, "basic-block map present, but objllvm.bbindex is not available")
    else:
        try:
            hit = (bbindex.BBIndex.from_object(obj), None)
        except ObjllvmError as exc:
            hit = (None, f"basic-block map not usable: {exc.message}")
    try:
        _BB_CACHE[obj] = hit
    except TypeError:
        pass
    return hit


def _annotate_blocks(model: PCSection, obj):
    index, note = _bb_index(obj)
    model.blocks = note
    if index is None:
        return
    for e in model.entries:
        for p in e.pcs:
            if p.address is None:
                continue
            try:
                hit = index.lookup(p.address) if not model.relocatable else \
                    _lookup_relocatable(index, p)
            except ObjllvmError:
                hit = None
            if hit:
                fm, b = hit
                p.block = {"function": fm.name, "id": b.id, "address": b.address, "size": b.size}


def _lookup_relocatable(index, p: PC):
    """Relocatable objects: addresses are offsets in their text section; ask for that section."""
    try:
        return index.lookup(p.address, section=p.section_index)
    except TypeError:       # an index without per-section lookups
        return index.lookup(p.address)


@register
class PCSectionsCodec(Codec):
    kind = "pc-sections"
    description = "PC sections (!pcsections): sanitizer binary metadata and user-defined layouts"
    names = ()
    formats = ("elf",)
    name_hints = ("sanmd_",)
    hint_options = ("pc_section",)

    def matches_name(self, section, obj, options=None) -> bool:
        if obj.format not in self.formats or section.type == 8:
            return False
        return layout_for(section.name, options, obj.addr_size) is not None

    def layout(self, ctx) -> Layout:
        name = ctx.section.name if ctx.section is not None else ""
        lay = layout_for(name, ctx.options, ctx.addr_size)
        if lay is None:
            raise UsageError(f"no PC section layout for {name!r} (give one with --pc-section "
                             f"'{name}:func|insn[:C][:aux=...]')")
        return lay

    def decode(self, data, ctx):
        lay = self.layout(ctx)
        width, source = _choose_width(data, ctx, lay)
        dec = _Decoder(data, ctx, lay, width)
        try:
            model = dec.decode()
        except DecodeError as exc:
            if exc.partial is not None:
                exc.partial.pc_width_source = source
            raise
        model.pc_width_source = source
        if ctx.obj is not None:
            _annotate_blocks(model, ctx.obj)
        return model

    # -- encoding ----------------------------------------------------------------------------
    def _const_bytes(self, c: Const, endian: str) -> bytes:
        size = {"8": 1, "16": 2, "32": 4, "64": 8}[c.type[1:]]
        if c.encoding == "uleb":
            v = c.value & ((1 << (8 * size)) - 1)
            return _uleb_len_encode(v, max(c.length, _min_uleb_len(v)))
        if c.type == "f32":
            return struct.pack(endian + "f", c.value)
        if c.type == "f64":
            return struct.pack(endian + "d", c.value)
        return pack_uint(int(c.value) & ((1 << (8 * size)) - 1), size, endian)

    def encode(self, model, ctx):
        e = ctx.endian
        w = model.pc_width
        out = bytearray()
        for ent in model.entries:
            for p in ent.pcs:
                out += pack_uint(p.stored & ((1 << (8 * w)) - 1), w, e)
            if ent.size is not None:
                if model.layout.compressed:
                    out += _uleb_len_encode(ent.size, max(ent.size_length or 1, _min_uleb_len(ent.size)))
                else:
                    out += pack_uint(ent.size, 4, e)
            for c in ent.constants:
                out += self._const_bytes(c, e)
        return bytes(out)

    # -- views -------------------------------------------------------------------------------
    def to_dict(self, model):
        return {"name": model.name, "layout": model.layout.spec(), "kind": model.layout.kind,
                "compressed": model.layout.compressed, "builtin": model.layout.builtin,
                "pc_width": model.pc_width, "pc_width_source": model.pc_width_source,
                "relocatable": model.relocatable, "blocks_note": model.blocks,
                "entries": [e.to_dict() for e in model.entries]}

    def from_dict(self, d, ctx):
        try:
            return self._from_dict(d, ctx)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise UsageError(f"pc-sections JSON: missing or bad field ({type(exc).__name__}: {exc})") from None

    def _from_dict(self, d, ctx):
        lay = layout_for(ctx.section.name, ctx.options, ctx.addr_size) if ctx.section is not None else None
        if lay is None:
            lay = parse_layout(d["layout"].split(" ")[0])
        width = int(d["pc_width"])
        if width not in (4, 8):
            raise ValueError(f"pc_width {width} is not 4 or 8")
        model = PCSection(d.get("name", lay.name), lay, width, d.get("pc_width_source", "option"),
                          bool(d.get("relocatable", ctx.is_relocatable)))
        for i, e in enumerate(d.get("entries", [])):
            pcs = [PC(int(p.get("offset", 0)), int(p["stored"]), p.get("address")) for p in e["pcs"]]
            size = e.get("size")
            ent = PCEntry(i, int(e.get("offset", 0)), pcs, None if size is None else int(size),
                          e.get("size_length"))
            for c in e.get("constants", []):
                ent.constants.append(Const(c["name"], c["type"], c["value"], c.get("encoding", "fixed"),
                                           int(c.get("length", 0))))
            model.entries.append(ent)
        return model

    def tables(self, model, options):
        lay = model.layout
        headers = ["#", "offset", "pc", "symbol"]
        if lay.kind == "func":
            headers.append("size")
        has_consts = any(e.constants for e in model.entries)
        if has_consts:
            headers.append("constants")
        has_blocks = any(p.block for e in model.entries for p in e.pcs)
        if has_blocks:
            headers.append("block")
        rows = []
        for e in model.entries:
            for k, p in enumerate(e.pcs):
                row = [e.index if k == 0 else "", f"{p.offset:#x}", p.text(model.relocatable), p.where()]
                if lay.kind == "func":
                    row.append(e.size if k == 0 else "")
                if has_consts:
                    row.append(" ".join(c.text() for c in e.constants) if k == len(e.pcs) - 1 else "")
                if has_blocks:
                    row.append(f"{p.block['function']}#{p.block['id']}" if p.block else "")
                rows.append(row)
        title = f"layout {lay.spec()}" + (f" [{lay.builtin}]" if lay.builtin else "") + \
            f"; PC width {model.pc_width} ({model.pc_width_source}); {len(model.entries)} entries"
        if model.blocks:
            title += f"; {model.blocks}"
        return [Table(headers, rows, title)]

    @classmethod
    def add_arguments(cls, parser) -> None:
        g = parser.add_argument_group("PC sections (--section pc-sections)")
        g.add_argument("--pc-section", action="append", metavar="LAYOUT", dest="pc_section",
                       help="layout of a PC section: NAME:func|insn[:C][:aux=u8,u32,...] (repeatable); "
                            "sanmd_covered2/sanmd_atomics2 (and their -mcmodel=large forms) are built in")
        g.add_argument("--pc-width", type=int, choices=(4, 8), dest="pc_width",
                       help="bytes per stored PC (default: from the section name or the relocations; "
                            "linked files: probed, 4 unless only 8 fits)")
