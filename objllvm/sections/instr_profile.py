"""Instrumentation-profile sections (``-fprofile-instr-generate``; rustc ``-C instrument-coverage``).

One codec, kind ``profile``, for every ``__llvm_prf_*`` section (COFF ``.lprf*$M``, Mach-O ``__DATA,__llvm_prf_*``):

* ``__llvm_prf_data``: one record per instrumented function.  Raw-profile version 10 (LLVM 19 and 22):
  ``u64 name hash, u64 structural hash, ptr counters, ptr bitmap, ptr function, ptr value-profile data,
  u32 counter count, u16 value sites[3], u32 bitmap bytes``, padded to 8 (64 bytes with 8-byte pointers, 48
  with 4-byte ones).  Version 11 (LLVM 23) adds ``ptr uniform counters`` after the counters pointer and
  ``u16 offload device wave size`` after the value sites (72 bytes with 8-byte pointers, 56 with 4-byte
  ones).  The counter, uniform-counter and bitmap pointers are relative to the record: in an ELF object a
  PC-relative relocation gives them (resolved here to a section and offset), in a linked file the field holds
  the distance (resolved through the section addresses).  The version is in the file only when IR-level
  instrumentation defines ``__llvm_profile_raw_version``; otherwise the layout is the one the section fits:
  whole records, the relocations on the pointer fields (counters into ``__llvm_prf_cnts``), and in a linked
  file the counters inside ``__llvm_prf_cnts``.  A version newer than 11 is read with version 11's layout and
  a warning naming both versions.
* ``__llvm_prf_names`` / ``__llvm_prf_vns`` / ``__llvm_covnames``: name lists (zlib-compressed or not);
* ``__llvm_prf_cnts``: the counters (u64 each; zero in the file); ``__llvm_prf_ucnts`` (version 11, GPU
  targets): the uniform counters, u64 each;
* ``__llvm_prf_bits`` (MC/DC bitmaps), ``__llvm_prf_vals``, ``__llvm_prf_vnds``: bytes (zero in the file);
* ``__llvm_prf_vtab``: ``u64 name hash, ptr vtable, u32 size`` records, padded to 8.

Function names are joined from the object's name lists by hash (LLVM's names, not demangled: objllvm has no
demangler of its own).
"""
from __future__ import annotations

from .._model import dataclass, field
from ..binary import Reader, pack_uint
from ..errors import DecodeError
from .support.instrprof import RAW_VERSION_SYMBOL
from .registry import Codec, Table, register
from .support.instrprof import (PROFILE_ROLES, NameList, decode_name_list, encode_name_list, linked_pe_names,
                                name_list_from_dict, name_list_to_dict, names_by_hash, raw_version, role_for,
                                section_role)

VALUE_KINDS = ("indirect-call", "memop-size", "vtable")
RAW_VERSION = 10                 # the layout LLVM 19 and 22 write
LAYOUTS = (10, 11)               # the record layouts read; 11 is LLVM 23's (PR #190708)
NEWEST = LAYOUTS[-1]
_WHO = {10: "the one LLVM 19 and 22 write", 11: "LLVM 23's"}
COFF_REL32 = {"x86-64": 0x0004, "i386": 0x0014}   # IMAGE_REL_AMD64_REL32, IMAGE_REL_I386_REL32


@dataclass(frozen=True)
class Layout:
    """Where the fields of a ``__llvm_prf_data`` record sit for one raw-profile version and pointer size."""
    version: int
    ptr: int

    @property
    def pointers(self) -> tuple:
        """The pointer fields in order."""
        if self.version >= 11:
            return ("counter", "uniform", "bitmap", "function", "values")
        return ("counter", "bitmap", "function", "values")

    def field(self, name: str) -> int:
        return 16 + self.pointers.index(name) * self.ptr

    @property
    def sites_end(self) -> int:
        """The end of the u16 fields after the counter count (value sites, and from version 11 the wave size)."""
        return 16 + len(self.pointers) * self.ptr + 4 + (8 if self.version >= 11 else 6)

    @property
    def bitmap_count(self) -> int:
        return (self.sites_end + 3) & ~3           # the u32 after the u16 fields sits on a 4-byte boundary

    @property
    def size(self) -> int:
        return (self.bitmap_count + 4 + 7) & ~7


def record_size(ptr: int, version: int = RAW_VERSION) -> int:
    return Layout(version, ptr).size


def _bitmap_count_offset(ptr: int, version: int = RAW_VERSION) -> int:
    return Layout(version, ptr).bitmap_count


@dataclass(slots=True)
class Location:
    """Where a pointer field of a record points: a section and an offset in it."""
    section_index: int
    section_name: str
    offset: int
    via: str                        # 'relocation' (object) or 'address' (linked file)

    def text(self) -> str:
        return f"[{self.section_index}] {self.section_name}+{self.offset:#x}"

    def to_dict(self):
        return {"section_index": self.section_index, "section": self.section_name, "offset": self.offset,
                "via": self.via}


@dataclass(slots=True)
class DataRecord:
    name_hash: int
    func_hash: int
    counter_ptr: int                # the fields as stored (unsigned)
    bitmap_ptr: int
    function_ptr: int
    values_ptr: int
    num_counters: int
    value_sites: tuple              # (indirect-call, memop-size, vtable)
    num_bitmap_bytes: int
    padding: bytes = b""            # the bytes before the bitmap byte count (2), then any after the record
    # derived, not encoded:
    name: str | None = None
    counters: Location | None = None
    bitmap: Location | None = None
    function: str | None = None     # the symbol a relocation on the function pointer names (objects)
    # version 11 fields (None in a version-10 record):
    uniform_counter_ptr: int | None = None
    wave_size: int | None = None    # OffloadDeviceWaveSize (0 for host code)
    uniform_counters: Location | None = None   # derived


@dataclass
class ProfileData:
    role: str
    pointer_size: int
    records: list = field(default_factory=list)
    raw_version: int | None = None   # __llvm_profile_raw_version's value when the file defines it (IR-level PGO)
    variants: list = field(default_factory=list)
    layout: int = RAW_VERSION        # the record layout read (raw-profile version 10 or 11)


@dataclass
class ProfileNames:
    role: str
    names: NameList = field(default_factory=NameList)


@dataclass
class ProfileCounters:
    role: str
    width: int                      # 8 (u64 counters) or 1 (single-byte coverage, or a size not a multiple of 8)
    values: list = field(default_factory=list)


@dataclass
class ProfileBytes:
    role: str                       # 'bits', 'vals', 'vnds'
    size: int
    data: bytes | None = None       # None: all zero


@dataclass(slots=True)
class VTableRecord:
    name_hash: int
    pointer: int
    size: int
    padding: bytes = b""
    name: str | None = None
    symbol: str | None = None       # derived: the vtable a relocation on the pointer names (objects)


@dataclass
class ProfileVTables:
    role: str
    pointer_size: int
    records: list = field(default_factory=list)


def _signed(v: int, size: int) -> int:
    return v - (1 << (8 * size)) if v >> (8 * size - 1) else v


def _layout_error(msg, offset, partial, version=RAW_VERSION):
    return DecodeError(f"{msg} (raw-profile version {version} layout, {_WHO.get(version, 'LLVM 23')})",
                       offset=offset, partial=partial)


def _fits(lay: Layout, data, relocs: list, sections: dict, obj) -> bool:
    """Whether ``data`` reads as whole records of ``lay`` whose relocations sit on pointer fields, with the
    counter field of each record relocated against a counters section and the function field against no
    profile section (a relocatable object), or with no relocations to check (a linked file)."""
    size = lay.size
    if len(data) % size:
        return False
    fields = {lay.field(n): n for n in lay.pointers}
    counted = set()
    for rel in relocs:
        name = fields.get(rel.offset % size)
        if name is None:
            return False
        sec = sections.get(rel.symbol.shndx) if rel.symbol is not None else None
        role = section_role(sec, obj) if sec is not None else None
        if name == "counter":
            if role != "cnts":
                return False
            counted.add(rel.offset // size)
        elif name == "function" and role is not None:
            return False
    return not relocs or len(counted) == len(data) // size


def _choose_layout(data, ctx, rv, out, relocs, sections) -> Layout:
    """The record layout: the one the raw-version variable names, else the one the section fits."""
    ptr, obj = ctx.addr_size, ctx.obj
    if rv is not None:
        if rv.version in LAYOUTS:
            return Layout(rv.version, ptr)
        if rv.version > NEWEST:
            ctx.warn(f"{RAW_VERSION_SYMBOL} (symbol {rv.symbol_index}) says raw-profile version {rv.version}; "
                     f"objllvm reads versions {LAYOUTS[0]} to {NEWEST}: read with version {NEWEST}'s layout", 0)
            return Layout(NEWEST, ptr)
        raise DecodeError(f"{RAW_VERSION_SYMBOL} (symbol {rv.symbol_index}) says raw-profile version "
                          f"{rv.version}: expected {' or '.join(map(str, LAYOUTS))} (the record layouts of LLVM 19 "
                          "and 22, and of LLVM 23)", offset=0, partial=out)
    cands = [Layout(v, ptr) for v in LAYOUTS]
    fit = [lay for lay in cands if _fits(lay, data, relocs, sections, obj)]
    if not fit:       # relocations of a kind not checked above (Mach-O pairs): whole records, fields in place
        fit = [lay for lay in cands if not len(data) % lay.size
               and all(rel.offset % lay.size in {lay.field(n) for n in lay.pointers} for rel in relocs)]
    if len(fit) > 1 and not relocs and obj is not None and not ctx.is_relocatable:
        fit = [lay for lay in fit if _counters_in_place(lay, data, ctx)] or fit
    return fit[0] if len(fit) == 1 else cands[0]


def _counters_in_place(lay: Layout, data, ctx) -> bool:
    """Linked file: every record's counters pointer (read with ``lay``) lands inside a counters section."""
    obj, ptr = ctx.obj, lay.ptr
    cnts = [s for s in obj.sections if section_role(s, obj) == "cnts"]
    base = ctx.section.addr if ctx.section is not None else 0
    r = Reader(data, ctx.endian)
    for off in range(0, len(data), lay.size):
        r.pos = off + lay.field("counter")
        target = (base + off + _signed(r.uint(ptr), ptr)) & ((1 << (8 * ptr)) - 1)
        if not any(s.addr <= target < s.addr + max(s.size, 1) for s in cnts):
            return False
    return True


def decode_data(data, ctx) -> ProfileData:
    ptr = ctx.addr_size
    out = ProfileData("data", ptr)
    obj = ctx.obj
    rv = raw_version(obj)
    unit = 1 if rv is not None and "byte-coverage" in rv.variants else 8     # counter size
    if rv is not None:
        out.raw_version, out.variants = rv.version, rv.variants
    sections = {s.index: s for s in obj.sections} if obj is not None else {}
    rel_list = list(ctx.relocations or ())
    lay = _choose_layout(data, ctx, rv, out, rel_list, sections)
    out.layout = lay.version
    size = lay.size
    n = len(data) // size
    loc = _Locator(ctx, lay, out, rel_list, sections)
    names = names_by_hash(obj)
    r = Reader(data, ctx.endian)
    for i in range(n):
        rec = _read_record(r, data, i * size, lay, ptr, names)
        _locate_record(rec, loc, i * size, lay, unit)
        out.records.append(rec)
    if len(data) % size:
        raise _layout_error(f"{len(data) % size} bytes left after {n} whole {size}-byte records", n * size, out,
                            lay.version)
    return out


def _read_record(r: Reader, data, off: int, lay: Layout, ptr: int, names: dict) -> DataRecord:
    """The fields of the record at ``off`` (its locations not yet resolved)."""
    v11 = lay.version >= 11
    r.pos = off
    nh = r.u64()
    fh = r.u64()
    cp = r.uint(ptr)
    up = r.uint(ptr) if v11 else None
    bp = r.uint(ptr)
    fp = r.uint(ptr)
    vp = r.uint(ptr)
    nc = r.u32()
    sites = (r.u16(), r.u16(), r.u16())
    wave = r.u16() if v11 else None
    pad = r.bytes(lay.bitmap_count - (r.pos - off), "padding")
    nb = r.u32()
    pad += bytes(data[r.pos:off + lay.size])
    rec = DataRecord(nh, fh, cp, bp, fp, vp, nc, sites, nb, pad, names.get(nh))
    rec.uniform_counter_ptr, rec.wave_size = up, wave
    return rec


def _locate_record(rec: DataRecord, loc, off: int, lay: Layout, unit: int) -> None:
    """Resolve the counters, uniform counters, bitmap and function of the record at ``off``."""
    rec.counters = loc.locate(off, lay.field("counter"), rec.counter_ptr, loc.cnts, "counters", rec.num_counters,
                              unit)
    if lay.version >= 11:
        f_uni = lay.field("uniform")
        if rec.uniform_counter_ptr or off + f_uni in loc.relocs:
            rec.uniform_counters = loc.locate(off, f_uni, rec.uniform_counter_ptr, loc.ucnts, "uniform counters",
                                              rec.num_counters, 8)
    if rec.num_bitmap_bytes:
        rec.bitmap = loc.locate(off, lay.field("bitmap"), rec.bitmap_ptr, loc.bits, "bitmap bytes",
                                rec.num_bitmap_bytes, 1)
    frel = loc.relocs.get(off + lay.field("function"))
    if frel is not None and frel.symbol is not None:
        rec.function = frel.symbol.name


class _Locator:
    """Where a record's pointer fields point: through a relocation on the field (a Mach-O SUBTRACTOR and
    UNSIGNED pair, a COFF 32-bit relative one, an ELF one with or without addend) in an object, through the
    section addresses in a linked file."""

    def __init__(self, ctx, lay: Layout, out: ProfileData, rel_list: list, sections: dict):
        obj = ctx.obj
        self.ptr, self.size, self.out, self.version, self.sections = ctx.addr_size, lay.size, out, lay.version, sections
        self.macho = ctx.format == "macho"
        ptr_fields = {lay.field(name): name for name in lay.pointers}
        self.relocs, self.pairs = {}, {}   # pairs, Mach-O: SUBTRACTOR then UNSIGNED at one place (A - B + the word)
        for rel in rel_list:
            if rel.offset % lay.size not in ptr_fields:
                raise _layout_error(f"a relocation at offset {rel.offset:#x} is not on a pointer field of a "
                                    f"{lay.size}-byte record", rel.offset, out, lay.version)
            self.relocs.setdefault(rel.offset, rel)
            if self.macho:
                self.pairs.setdefault(rel.offset, []).append(rel)
        roles = {"cnts": [], "ucnts": [], "bits": []}
        for s in obj.sections if obj is not None else ():
            roles.get(section_role(s, obj), []).append(s)
        self.cnts, self.ucnts, self.bits = roles["cnts"], roles["ucnts"], roles["bits"]
        self.linked = not ctx.is_relocatable
        self.base_addr = ctx.section.addr if ctx.section is not None else 0
        self.coff_rel32 = COFF_REL32.get(ctx.machine) if ctx.format == "coff" else None

    def locate(self, rec_off, field_off, raw, candidates, what, count, unit):
        ptr = self.ptr
        pair = self.pairs.get(rec_off + field_off) if self.macho else None
        if pair is not None and len(pair) == 2:
            b, a = pair[0].symbol, pair[1].symbol
            if a is None or b is None:
                return None
            # symbol values are addresses in a Mach-O object: the field is A - B + raw, relative to the record
            target = a.value - b.value + _signed(raw, ptr) + self.base_addr + rec_off
            for s in candidates:
                if s.addr <= target <= s.addr + s.size:
                    return Location(s.index, s.name, target - s.addr, "relocation")
            return None
        rel = self.relocs.get(rec_off + field_off)
        if rel is not None:
            return self._by_relocation(rel, field_off, raw)
        if not self.linked or not candidates:
            return None
        target = (self.base_addr + rec_off + _signed(raw, ptr)) & ((1 << (8 * ptr)) - 1)
        for s in candidates:
            if s.addr <= target and target + count * unit <= s.addr + s.size:
                return Location(s.index, s.name, target - s.addr, "address")
        if count == 0:
            return None
        raise _layout_error(f"record {rec_off // self.size}: its {count} {what} at {target:#x} are not inside "
                            f"{candidates[0].name}", rec_off + field_off, self.out, self.version)

    def _by_relocation(self, rel, field_off, raw):
        sym = rel.symbol
        if sym is None:
            return None
        if rel.addend is not None:
            addend = rel.addend
        elif self.coff_rel32 and rel.type == self.coff_rel32:
            # a 32-bit relative relocation: its addend is the field's low 4 bytes, and it counts from the end of
            # those 4 bytes, not from the field
            addend = _signed(raw & 0xFFFFFFFF, 4) - 4
        else:
            addend = _signed(raw, self.ptr)
        sec = self.sections.get(sym.shndx)
        if sec is None:
            return None
        return Location(sec.index, sec.name, sym.value + addend - field_off, "relocation")


def encode_data(m: ProfileData, ctx) -> bytes:
    e, ptr = ctx.endian if ctx is not None else "<", m.pointer_size
    lay = Layout(m.layout, ptr)
    v11 = lay.version >= 11
    gap = lay.bitmap_count - lay.sites_end
    parts = []
    for x in m.records:
        parts.append(b"".join((pack_uint(x.name_hash, 8, e), pack_uint(x.func_hash, 8, e),
                               pack_uint(x.counter_ptr, ptr, e),
                               pack_uint(x.uniform_counter_ptr or 0, ptr, e) if v11 else b"",
                               pack_uint(x.bitmap_ptr, ptr, e),
                               pack_uint(x.function_ptr, ptr, e), pack_uint(x.values_ptr, ptr, e),
                               pack_uint(x.num_counters, 4, e),
                               b"".join(pack_uint(v, 2, e) for v in x.value_sites),
                               pack_uint(x.wave_size or 0, 2, e) if v11 else b"", x.padding[:gap],
                               pack_uint(x.num_bitmap_bytes, 4, e), x.padding[gap:])))
    return b"".join(parts)


def decode_vtab(data, ctx) -> ProfileVTables:
    ptr, e = ctx.addr_size, ctx.endian
    size = (8 + ptr + 4 + 7) & ~7
    out = ProfileVTables("vtab", ptr)
    names = names_by_hash(ctx.obj)
    relocs = {rel.offset: rel for rel in ctx.relocations or ()}
    r = Reader(data, e)
    for i in range(len(data) // size):
        r.pos = i * size
        h = r.u64()
        p = r.uint(ptr)
        s = r.u32()
        rec = VTableRecord(h, p, s, bytes(data[r.pos:(i + 1) * size]), names.get(h))
        rel = relocs.get(i * size + 8)
        if rel is not None and rel.symbol is not None:
            rec.symbol = rel.symbol.name
        out.records.append(rec)
    if len(data) % size:
        raise DecodeError(f"{len(data) % size} bytes left after whole {size}-byte vtable records",
                          offset=len(data) - len(data) % size, partial=out)
    return out


def _record_dict(x: DataRecord, layout: int) -> dict:
    d = {"name": x.name, "name_hash": f"{x.name_hash:#018x}", "structural_hash": f"{x.func_hash:#018x}",
         "counter_count": x.num_counters,
         "counters": x.counters.to_dict() if x.counters else None,
         "bitmap_bytes": x.num_bitmap_bytes,
         "bitmap": x.bitmap.to_dict() if x.bitmap else None,
         "value_sites": dict(zip(VALUE_KINDS, x.value_sites)),
         "function": x.function,
         "fields": {"counter_ptr": x.counter_ptr, "bitmap_ptr": x.bitmap_ptr,
                    "function_ptr": x.function_ptr, "values_ptr": x.values_ptr,
                    "padding": x.padding.hex()}}
    if layout >= 11:
        d["wave_size"] = x.wave_size
        d["uniform_counters"] = x.uniform_counters.to_dict() if x.uniform_counters else None
        d["fields"]["uniform_counter_ptr"] = x.uniform_counter_ptr
    return d


@register
class ProfileCodec(Codec):
    kind = "profile"
    description = ("instrumentation profile (-fprofile-instr-generate): per-function records with names, "
                   "counters, bitmaps, value sites")
    formats = ("elf", "coff", "macho")
    # recognised by section_role (ELF, COFF and Mach-O names); listed for the fuzz harness, data first
    names = ("__llvm_prf_data", "__llvm_prf_names", "__llvm_prf_cnts", "__llvm_prf_vtab", "__llvm_prf_bits",
             "__llvm_prf_vns", "__llvm_prf_vals", "__llvm_prf_vnds", "__llvm_covnames")
    name_hints = ("prf", "cov")

    def matches_name(self, section, obj, options=None) -> bool:
        return section_role(section, obj) in PROFILE_ROLES

    def decode(self, data, ctx):
        role = role_for(ctx, "data")
        if role not in PROFILE_ROLES:
            role = "data"
        if role == "data":
            return decode_data(data, ctx)
        if role in ("names", "vns", "covnames"):
            try:
                return ProfileNames(role, decode_name_list(data, linked_pe_names(ctx.section, ctx.obj)))
            except DecodeError as exc:
                exc.partial = ProfileNames(role, exc.partial or NameList())
                raise
        if role in ("cnts", "ucnts"):
            rv = raw_version(ctx.obj) if ctx is not None else None
            # u64 counters; one byte each under single-byte coverage (the raw-version variable says so; uniform
            # counters are always u64)
            width = 1 if len(data) % 8 or role == "cnts" and rv is not None and "byte-coverage" in rv.variants else 8
            if width == 8:
                import struct
                vals = list(struct.unpack(f"{ctx.endian}{len(data) // 8}Q", bytes(data)))
            else:
                vals = list(bytes(data))
            return ProfileCounters(role, width, vals)
        if role == "vtab":
            return decode_vtab(data, ctx)
        b = bytes(data)
        return ProfileBytes(role, len(b), None if not b.strip(b"\0") else b)

    def encode(self, model, ctx):
        e = ctx.endian if ctx is not None else "<"
        if isinstance(model, ProfileData):
            return encode_data(model, ctx)
        if isinstance(model, ProfileNames):
            return encode_name_list(model.names)
        if isinstance(model, ProfileCounters):
            if model.width == 8:
                import struct
                return struct.pack(f"{e}{len(model.values)}Q", *model.values)
            return bytes(model.values)
        if isinstance(model, ProfileVTables):
            ptr = model.pointer_size
            return b"".join(pack_uint(x.name_hash, 8, e) + pack_uint(x.pointer, ptr, e) + pack_uint(x.size, 4, e)
                            + x.padding for x in model.records)
        return model.data if model.data is not None else bytes(model.size)

    def to_dict(self, model):
        if isinstance(model, ProfileData):
            return {"role": "data", "layout": f"raw-profile-v{model.layout}", "pointer_size": model.pointer_size,
                    "raw_version": model.raw_version, "variants": list(model.variants),
                    "functions": [_record_dict(x, model.layout) for x in model.records]}
        if isinstance(model, ProfileNames):
            return {"role": model.role, **name_list_to_dict(model.names)}
        if isinstance(model, ProfileCounters):
            return {"role": model.role, "width": model.width, "count": len(model.values), "values": model.values}
        if isinstance(model, ProfileVTables):
            return {"role": "vtab", "pointer_size": model.pointer_size,
                    "vtables": [{"name": x.name, "symbol": x.symbol, "name_hash": f"{x.name_hash:#018x}",
                                 "pointer": x.pointer,
                                 "size": x.size, "padding": x.padding.hex()} for x in model.records]}
        return {"role": model.role, "size": model.size, "data": model.data.hex() if model.data is not None else None}

    def from_dict(self, d, ctx):
        role = d.get("role")
        if role == "data":
            recs = []
            for f in d["functions"]:
                flds = f.get("fields", {})
                vs = f.get("value_sites", {})
                recs.append(DataRecord(int(f["name_hash"], 0), int(f["structural_hash"], 0),
                                       int(flds.get("counter_ptr", 0)), int(flds.get("bitmap_ptr", 0)),
                                       int(flds.get("function_ptr", 0)), int(flds.get("values_ptr", 0)),
                                       int(f["counter_count"]), tuple(int(vs.get(k, 0)) for k in VALUE_KINDS),
                                       int(f.get("bitmap_bytes", 0)), bytes.fromhex(flds.get("padding", "0000")),
                                       f.get("name")))
                if "wave_size" in f:
                    recs[-1].wave_size = int(f["wave_size"])
                    recs[-1].uniform_counter_ptr = int(flds.get("uniform_counter_ptr", 0))
            layout = d.get("layout", f"raw-profile-v{RAW_VERSION}")
            try:
                version = int(str(layout).rsplit("v", 1)[-1])
            except ValueError:
                version = 0
            if version not in LAYOUTS:
                raise DecodeError(f"unknown profile data layout {layout!r} (expected "
                                  f"{' or '.join(f'raw-profile-v{v}' for v in LAYOUTS)})")
            return ProfileData("data", int(d.get("pointer_size", ctx.addr_size if ctx else 8)), recs,
                               layout=version)
        if role in ("names", "vns", "covnames"):
            return ProfileNames(role, name_list_from_dict(d))
        if role in ("cnts", "ucnts"):
            return ProfileCounters(role, int(d.get("width", 8)), [int(v) for v in d["values"]])
        if role == "vtab":
            return ProfileVTables("vtab", int(d.get("pointer_size", 8)), [
                VTableRecord(int(x["name_hash"], 0), int(x["pointer"]), int(x["size"]),
                             bytes.fromhex(x.get("padding", "")), x.get("name")) for x in d["vtables"]])
        if role in ("bits", "vals", "vnds"):
            data = d.get("data")
            return ProfileBytes(role, int(d["size"]), bytes.fromhex(data) if data is not None else None)
        raise DecodeError(f"unknown profile section role {role!r}")

    def tables(self, model, options):
        if isinstance(model, ProfileData):
            rows = [[x.name if x.name is not None else "?", f"{x.name_hash:#018x}", f"{x.func_hash:#018x}",
                     x.num_counters, x.counters.text() if x.counters else f"field {x.counter_ptr:#x}",
                     x.num_bitmap_bytes, "/".join(str(v) for v in x.value_sites)] for x in model.records]
            if model.layout >= 11:
                for row, x in zip(rows, model.records):
                    row.append(x.wave_size)
                    row.append(x.uniform_counters.text() if x.uniform_counters else
                               (f"field {x.uniform_counter_ptr:#x}" if x.uniform_counter_ptr else "-"))
                return [Table(["function", "name hash", "structural hash", "counters", "counters at",
                               "bitmap bytes", "value sites (icall/memop/vtable)", "wave size",
                               "uniform counters at"], rows, title=f"raw-profile version {model.layout} records")]
            return [Table(["function", "name hash", "structural hash", "counters", "counters at", "bitmap bytes",
                           "value sites (icall/memop/vtable)"], rows)]
        if isinstance(model, ProfileNames):
            rows = [[i, "zlib" if c.compressed is not None else "none", n]
                    for i, c in enumerate(model.names.chunks) for n in c.names]
            return [Table(["chunk", "compression", "name"], rows)]
        if isinstance(model, ProfileCounters):
            return [Table(["counters", "width", "non-zero"],
                          [[len(model.values), model.width, sum(1 for v in model.values if v)]])]
        if isinstance(model, ProfileVTables):
            return [Table(["vtable", "name hash", "pointer", "size"],
                          [[x.name or "?", f"{x.name_hash:#018x}", x.symbol or f"{x.pointer:#x}", x.size]
                           for x in model.records])]
        return [Table(["role", "size", "content"],
                      [[model.role, model.size, "zero" if model.data is None else f"{len(model.data.strip(bytes(1)))} "
                        "non-zero bytes"]])]
