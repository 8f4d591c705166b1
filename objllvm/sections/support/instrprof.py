"""What the instrumentation-profile and coverage-mapping codecs share: section names in ELF, COFF and Mach-O,
the name-list format (``__llvm_prf_names``, ``__llvm_prf_vns``, ``__llvm_covnames``: chunks of names, zlib
compressed or not), the MD5 name hash LLVM keys records by, and a bounded zlib inflate.

Facts from LLVM's ``ProfileData/InstrProfData.inc`` (LLVM 19 and 22 agree on everything read here; LLVM 23's
raw-profile version 11 adds the uniform-counters section, PR #190708).
"""
from __future__ import annotations

from weakref import WeakKeyDictionary

from ..._model import dataclass, field
from ...binary import Reader, decode_text, encode_text, uleb_encode
from ...errors import DecodeError

# role -> (ELF / Mach-O section name after the segment, COFF object name)
ROLES = {
    "data": ("__llvm_prf_data", ".lprfd"),
    "cnts": ("__llvm_prf_cnts", ".lprfc"),
    "names": ("__llvm_prf_names", ".lprfn"),
    "bits": ("__llvm_prf_bits", ".lprfb"),
    "vals": ("__llvm_prf_vals", ".lprfv"),
    "vnds": ("__llvm_prf_vnds", ".lprfnd"),
    "vtab": ("__llvm_prf_vtab", ".lprfvt"),
    "vns": ("__llvm_prf_vns", ".lprfvn"),
    "covmap": ("__llvm_covmap", ".lcovmap"),
    "covfun": ("__llvm_covfun", ".lcovfun"),
    "covnames": ("__llvm_covnames", ".lcovn"),
}
PROFILE_ROLES = ("data", "cnts", "names", "bits", "vals", "vnds", "vtab", "vns", "covnames", "ucnts")
COVERAGE_ROLES = ("covmap", "covfun")
NAME_LIST_ROLES = ("names", "vns", "covnames")

_BY_NAME: dict = {}
for _role, (_common, _coff) in ROLES.items():
    _BY_NAME[("elf", _common)] = _role
    _BY_NAME[("coff", _coff + "$M")] = _role       # in objects
    _BY_NAME[("coff", _coff)] = _role              # linked: the $ groups merged
    _BY_NAME[("macho", f"__DATA,{_common}")] = _role
    _BY_NAME[("macho", f"__LLVM_COV,{_common}")] = _role
del _role, _common, _coff
# Raw-profile version 11 (LLVM 23, PR #190708): GPU targets put uniform counters in __llvm_prf_ucnts (ELF only:
# LLVM names no COFF or Mach-O section for them).
_BY_NAME[("elf", "__llvm_prf_ucnts")] = "ucnts"

NAME_SEPARATOR = b"\x01"
ZLIB_MAX_RATIO = 1032            # deflate cannot expand better than about 1032:1
INFLATE_LIMIT = 256 << 20        # and never more than this, whatever the stream claims


def role_names(fmt: str) -> frozenset:
    """The section names that have a role in container format ``fmt`` ('elf', 'coff', 'macho')."""
    return frozenset(n for (f, n) in _BY_NAME if f == fmt)


def section_role(section, obj) -> str | None:
    """'data', 'cnts', 'names', ..., 'covmap', 'covfun' for a profile or coverage section, else None."""
    return _BY_NAME.get((obj.format, section.name))


def role_for(ctx, default: str) -> str:
    """The role of the section a codec was handed: by its container's naming, else by any container's naming
    (a section given to the codec by hand), else ``default``."""
    sec = getattr(ctx, "section", None)
    if sec is None:
        return default
    obj = getattr(ctx, "obj", None)
    role = section_role(sec, obj) if obj is not None else None
    if role is None:
        role = next((r for (fmt, n), r in _BY_NAME.items() if n == sec.name), None)
    return role or default


def name_hash(name: str | bytes) -> int:
    """LLVM's 64-bit key of a name: the low half of its MD5, little-endian (``IndexedInstrProf::ComputeHash``)."""
    from hashlib import md5          # (here: only the profile and coverage codecs hash names)
    b = encode_text(name) if isinstance(name, str) else bytes(name)
    return int.from_bytes(md5(b, usedforsecurity=False).digest()[:8], "little")


def name_hashes(names) -> list:
    """name_hash of each of ``names`` (str)."""
    return [name_hash(n) for n in names]


def inflate(blob: bytes, size: int, what: str, offset: int) -> bytes:
    """zlib-decompress ``blob`` that claims to give ``size`` bytes: a claim past what deflate can reach from
    ``len(blob)`` bytes (or past 256 MiB) is refused before any memory is taken, and the stream must give
    exactly ``size`` bytes and end where ``blob`` ends."""
    import zlib
    if size > ZLIB_MAX_RATIO * len(blob) + 64 or size > INFLATE_LIMIT:
        raise DecodeError(f"{what}: {len(blob)} compressed bytes claim {size} bytes uncompressed (expected at most "
                          f"{min(ZLIB_MAX_RATIO * len(blob) + 64, INFLATE_LIMIT)}): refused", offset=offset)
    d = zlib.decompressobj()
    try:
        out = d.decompress(blob, size + 1)
    except zlib.error as exc:
        raise DecodeError(f"{what}: zlib stream is corrupt ({exc})", offset=offset) from None
    if len(out) != size:
        got = f"more than {size}" if len(out) > size else str(len(out))
        raise DecodeError(f"{what}: the zlib stream gives {got} bytes, its header claims {size}", offset=offset)
    if not d.eof:
        raise DecodeError(f"{what}: the zlib stream does not end within its {len(blob)} bytes", offset=offset)
    if d.unused_data:
        raise DecodeError(f"{what}: {len(d.unused_data)} bytes follow the end of the zlib stream", offset=offset)
    return out


def deflate(raw: bytes) -> bytes:
    import zlib
    return zlib.compress(raw, 9)


# -- name lists -------------------------------------------------------------------------------------------------
@dataclass
class NameChunk:
    """One ``uleb uncompressed_size, uleb compressed_size, bytes`` group of names (one per object file)."""
    names: list = field(default_factory=list)       # str, in order
    compressed: bytes | None = None                 # the zlib stream as stored (None: stored plain)
    offset: int = 0                                 # in the section
    size_bytes: bytes | None = None                 # the two ULEBs exactly as stored, when not minimal


@dataclass
class NameList:
    """``__llvm_prf_names`` / ``__llvm_prf_vns`` / ``__llvm_covnames``."""
    chunks: list = field(default_factory=list)
    leading: bytes = b""     # a linked PE file's .lprfn starts with the runtime's NUL byte (from .lprfn$A)

    def all_names(self) -> list:
        return [n for c in self.chunks for n in c.names]


def _split_names(raw: bytes) -> list:
    return [decode_text(x) for x in raw.split(NAME_SEPARATOR)] if raw else []


def _join_names(names) -> bytes:
    return NAME_SEPARATOR.join(encode_text(n) for n in names)


def decode_name_list(data, leading_nul: bool = False) -> NameList:
    r = Reader(data)
    out = NameList()
    if leading_nul and data[:1] == b"\0":
        out.leading = b"\0"
        r.pos = 1
    while not r.at_end():
        start = r.pos
        try:
            ulen = r.uleb("uncompressed size of a name chunk")
            clen = r.uleb("compressed size of a name chunk")
            hdr_end = r.pos
            if clen:
                r.need(clen, "compressed names")
                blob = bytes(data[r.pos:r.pos + clen])
                raw = inflate(blob, ulen, f"name chunk at {start:#x}", r.pos)
                r.pos += clen
            else:
                blob = None
                raw = r.bytes(ulen, "names")
        except DecodeError as exc:
            exc.partial = out
            raise
        sizes = bytes(data[start:hdr_end])
        chunk = NameChunk(_split_names(raw), blob, start,
                          None if sizes == uleb_encode(ulen) + uleb_encode(clen) else sizes)
        out.chunks.append(chunk)
    return out


def _sizes_say(size_bytes: bytes, ulen: int, clen: int) -> bool:
    """Whether stored (non-minimal) size ULEBs still give these two sizes."""
    try:
        r = Reader(size_bytes)
        return r.uleb() == ulen and r.uleb() == clen and r.at_end()
    except DecodeError:
        return False


def encode_name_chunk(c: NameChunk) -> bytes:
    raw = _join_names(c.names)
    blob = b""
    if c.compressed is not None:
        import zlib
        blob = c.compressed
        try:
            same = zlib.decompress(blob) == raw
        except zlib.error:
            same = False
        if not same:
            blob = deflate(raw)
    body = blob if c.compressed is not None else raw
    clen = len(blob) if c.compressed is not None else 0
    if c.size_bytes is not None and _sizes_say(c.size_bytes, len(raw), clen):
        return c.size_bytes + body
    return uleb_encode(len(raw)) + uleb_encode(clen) + body


def encode_name_list(m: NameList) -> bytes:
    return m.leading + b"".join(encode_name_chunk(c) for c in m.chunks)


def name_list_to_dict(m: NameList) -> dict:
    return {"leading": m.leading.hex(), "chunks": [{"offset": c.offset, "compressed": c.compressed is not None,
                        "compressed_bytes": c.compressed.hex() if c.compressed is not None else None,
                        "size_bytes": c.size_bytes.hex() if c.size_bytes is not None else None,
                        "names": list(c.names)} for c in m.chunks]}


def name_list_from_dict(d: dict) -> NameList:
    out = NameList(leading=bytes.fromhex(d.get("leading", "")))
    for c in d.get("chunks", []):
        comp = c.get("compressed_bytes")
        if comp is None and c.get("compressed"):
            comp = deflate(_join_names(c["names"]))
        else:
            comp = bytes.fromhex(comp) if comp is not None else None
        sb = c.get("size_bytes")
        out.chunks.append(NameChunk(list(c.get("names", [])), comp, int(c.get("offset", 0)),
                                    bytes.fromhex(sb) if sb else None))
    return out


# -- names of an object, by hash (cached per object) ------------------------------------------------------------
# A dict by object that does not keep its objects alive: the names, file lists and versions a codec keeps per
# object file, forgotten when the object goes.
ObjectCache = WeakKeyDictionary

_NAMES_CACHE = ObjectCache()


def cached_per_object(cache, obj, build) -> dict:
    """``build(obj)``, kept in ``cache`` (an ObjectCache) for as long as ``obj`` lives ({} for no object;
    an object that cannot be weakly referenced or hashed is built for each call)."""
    if obj is None:
        return {}
    try:
        cached = cache.get(obj)
    except TypeError:
        cached = None
    if cached is not None:
        return cached
    table = build(obj)
    try:
        cache[obj] = table
    except TypeError:
        pass
    return table


def names_by_hash(obj) -> dict:
    """{name hash: name} from every name list of ``obj`` (``__llvm_prf_names``, ``__llvm_covnames``, and the vtable
    names ``__llvm_prf_vns``); sections that do not decode are skipped (their own dump reports them)."""
    return cached_per_object(_NAMES_CACHE, obj, _names_by_hash)


def _names_by_hash(obj) -> dict:
    table = {}
    for s in obj.sections:
        if section_role(s, obj) in ("names", "covnames", "vns"):
            try:
                nl = decode_name_list(s.data(), linked_pe_names(s, obj))
            except DecodeError as exc:
                nl = exc.partial or NameList()
            names = nl.all_names()
            for h, n in zip(name_hashes(names), names):
                table.setdefault(h, n)
    return table


def linked_pe_names(section, obj) -> bool:
    """A linked PE file's ``.lprfn``: its first byte is the runtime's NUL from ``.lprfn$A``."""
    return obj is not None and obj.format == "coff" and not obj.is_relocatable and section.name == ".lprfn"


def sections_of_role(obj, role: str) -> list:
    return [s for s in obj.sections if section_role(s, obj) == role] if obj is not None else []


# -- the raw-profile version variable (IR-level instrumentation defines it; the frontend's does not) -------------
RAW_VERSION_SYMBOL = "__llvm_profile_raw_version"
VARIANT_MASKS = 0xFFFFFFFF00000000
VARIANTS = {55: "loop-entries", 56: "ir", 57: "cs", 58: "entry-first", 59: "debug-correlate", 60: "byte-coverage",
            61: "function-entry-only", 62: "memprof", 63: "temporal"}       # VARIANT_MASK_* bit numbers
_VERSION_CACHE = ObjectCache()


@dataclass(frozen=True)
class RawVersion:
    value: int              # the u64 as stored
    symbol_index: int
    section_index: int

    @property
    def version(self) -> int:
        return self.value & ~VARIANT_MASKS

    @property
    def variants(self) -> list:
        return [name for bit, name in sorted(VARIANTS.items()) if self.value >> bit & 1]


def raw_version(obj):
    """The ``__llvm_profile_raw_version`` variable of ``obj`` (a RawVersion), or None when there is none (frontend
    instrumentation, stripped files) or it cannot be read.  Cached per object."""
    if obj is None:
        return None
    try:
        if obj in _VERSION_CACHE:
            return _VERSION_CACHE[obj]
    except TypeError:
        pass
    found = None
    try:
        syms = obj.symbols
        by_index = {s.index: s for s in obj.sections}
        for sym in syms:
            if sym.name != RAW_VERSION_SYMBOL:
                continue
            sec = by_index.get(sym.shndx)
            if sec is None:
                break
            off = sym.value - (0 if obj.is_relocatable else sec.addr)
            data = sec.data()
            if 0 <= off and off + 8 <= len(data):
                found = RawVersion(int.from_bytes(bytes(data[off:off + 8]), "little" if obj.endian == "<" else "big"),
                                   sym.index, sec.index)
            break
    except DecodeError:
        found = None
    try:
        _VERSION_CACHE[obj] = found
    except TypeError:
        pass
    return found
