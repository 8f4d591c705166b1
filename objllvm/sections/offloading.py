"""``.llvm.offloading`` (SHT_LLVM_OFFLOADING): OffloadBinary blobs, versions 1 to 3.

The section holds one or more blobs back to back, each starting 8-byte aligned.  Header (little-endian):
``magic 10 FF 10 AD, u32 version, u64 size, u64 entries_offset, u64 entries_count`` and, from version 3,
``u64 inflated_size`` (non-zero: everything after the header is compressed, zstd or zlib).  Entries:
``u16 image_kind, u16 offload_kind, u32 flags, u64 string_offset, u64 num_strings, u64 image_offset,
u64 image_size``; string map entries ``{u64 key_offset, u64 value_offset}`` (version 1, NUL-terminated values) or
``{..., u64 value_size}`` (version >= 2).  Version 1 has exactly one entry per blob, and its header field after
entries_offset is the entry size (40), not a count.

An image that is itself an OffloadBinary (its first bytes the magic; LLVM 23 nests them, PR #199574) is decoded
as nested blobs, to a depth of 8; one that does not decode is a warning at its offset and stays an image, as
llvm-objdump's "failed to extract nested OffloadBinary".  A version newer than 3 is read with version 3's
layout and a warning naming both.

Encoding rebuilds each blob from its fields; bytes the fields do not account for (normally none) are kept as
patches, so the round trip is byte-exact.  A compressed blob keeps its compressed bytes; a nested blob stays
the bytes of its image.
"""
from __future__ import annotations

import struct

from .._model import dataclass, field
from ..binary import decode_text, encode_text
from ..errors import DecodeError, UsageError
from .registry import Codec, Table, register

SHT_LLVM_OFFLOADING = 0x6FFF4C0B
MAGIC = b"\x10\xff\x10\xad"
ALIGN = 8
HEADER_V1 = struct.Struct("<4sIQQQ")          # 32 bytes (versions 1, 2)
HEADER_V3 = struct.Struct("<4sIQQQQ")         # 40 bytes
ENTRY = struct.Struct("<HHIQQQQ")             # 40 bytes
STRING_V1 = struct.Struct("<QQ")
STRING_V2 = struct.Struct("<QQQ")
MAX_VERSION = 3
MAX_NESTING = 8

IMAGE_KINDS = {0: "none", 1: "object", 2: "bitcode", 3: "cubin", 4: "fatbinary", 5: "ptx", 6: "spirv"}
IMAGE_EXT = {1: "o", 2: "bc", 3: "cubin", 4: "fatbin", 5: "s", 6: "spv"}
OBJDUMP_KIND = {1: "elf", 2: "llvm ir", 3: "cubin", 4: "fatbinary", 5: "ptx", 6: "spir-v"}
# Offload kinds: LLVM <= 19 numbered them 0 none, 1 openmp, 2 cuda, 3 hip; later LLVM made them bit flags
# (1 openmp, 2 cuda, 4 hip, 8 sycl).  3 is HIP in every file a real producer wrote (no producer combines
# OpenMP and CUDA), so both numberings are read here.
OFFLOAD_KINDS = {0: "none", 1: "openmp", 2: "cuda", 3: "hip", 4: "hip", 8: "sycl"}
FLAG_METADATA_ONLY = 1


def offload_kind_name(k: int) -> str:
    """The producer name (as llvm-objdump prints it): openmp, cuda, hip, sycl, or none."""
    return OFFLOAD_KINDS.get(k, "none")


def offload_kind_flags(k: int) -> str:
    """The producer name, or the bit flags of a combination (e.g. 'hip|sycl')."""
    if k in OFFLOAD_KINDS:
        return OFFLOAD_KINDS[k]
    parts = [n for b, n in ((1, "openmp"), (2, "cuda"), (4, "hip"), (8, "sycl")) if k & b]
    rest = k & ~0xF
    if rest:
        parts.append(f"{rest:#x}")
    return "|".join(parts)


@dataclass
class StringEntry:
    key: str
    value: str
    key_offset: int
    value_offset: int
    value_size: int | None = None     # version >= 2


@dataclass
class OffloadEntry:
    index: int
    image_kind: int
    offload_kind: int
    flags: int
    string_offset: int
    num_strings: int
    image_offset: int
    image_size: int
    strings: list = field(default_factory=list)
    image: bytes = b""
    content: dict | None = None       # what the image is (bitcode summary, ELF class/machine, ...)
    nested: "Offloading | None" = None   # the image is an OffloadBinary itself: its blobs (derived)
    nested_error: str | None = None   # it starts with the magic but does not decode (derived)

    def get(self, key: str, default: str = "") -> str:
        for s in self.strings:
            if s.key == key:
                return s.value
        return default

    @property
    def triple(self) -> str:
        return self.get("triple")

    @property
    def arch(self) -> str:
        return self.get("arch")


@dataclass
class OffloadBlob:
    offset: int                       # in the section
    version: int
    size: int                         # as stored (compressed size for a compressed blob)
    entries_offset: int
    entries_count: int                # version 1: this header field is the entry size (40), one entry per blob
    inflated_size: int = 0            # version 3: uncompressed size (0: not compressed)
    entries: list = field(default_factory=list)
    compression: str | None = None    # 'zstd', 'zlib', 'unknown'
    compressed: bytes | None = None   # the stored bytes after the header of a compressed blob
    error: str | None = None          # why a compressed blob could not be opened
    patches: list = field(default_factory=list)   # (offset, bytes) not described by the fields
    padding: bytes = b""              # after the blob, up to the next 8-byte boundary

    @property
    def header_size(self) -> int:
        return HEADER_V3.size if self.version >= 3 else HEADER_V1.size


@dataclass
class Offloading:
    blobs: list = field(default_factory=list)

    @property
    def entries(self) -> list:
        return [e for b in self.blobs for e in b.entries]


def _cstring(blob: bytes, off: int, what: str, base: int) -> bytes:
    if off >= len(blob):
        raise DecodeError(f"{what} at blob offset {off:#x} is past the end of the blob ({len(blob)} bytes)",
                          offset=base + off)
    end = blob.find(b"\0", off)
    if end < 0:
        raise DecodeError(f"{what}: no terminating NUL before the end of the blob", offset=base + off)
    return blob[off:end]


def _identify_compression(body: bytes) -> str:
    if body[:4] == b"\x28\xb5\x2f\xfd":
        return "zstd"
    if len(body) >= 2 and body[0] & 0x0F == 8 and ((body[0] << 8) | body[1]) % 31 == 0:
        return "zlib"
    return "unknown"


def _decompress(kind: str, body: bytes, expected: int) -> bytes:
    """The ``expected`` bytes of a compressed blob, bounded (objllvm.formats.compression)."""
    from ..formats.compression import decompress
    return decompress(kind, body, expected, "the inflated size less the header")


def _nest(e: OffloadEntry, base: int, identify, depth: int, warnings) -> None:
    """Decode an image that is an OffloadBinary (nested blobs), up to MAX_NESTING deep."""
    if e.image[:4] != MAGIC:
        return
    at = base + e.image_offset
    if depth >= MAX_NESTING:
        e.nested_error = f"nested OffloadBinary deeper than {MAX_NESTING} levels: kept as an image"
        if warnings is not None:
            warnings.append((f"entry {e.index}: {e.nested_error}", at))
        return
    sub = [] if warnings is not None else None
    try:
        e.nested = parse_offloading(e.image, base_offset=at, identify=identify, depth=depth + 1, warnings=sub)
    except DecodeError as exc:
        e.nested = exc.partial if exc.partial is not None and exc.partial.blobs else None
        e.nested_error = exc.message
        if warnings is not None:
            warnings.append((f"entry {e.index}: failed to extract nested OffloadBinary: {e.nested_error}",
                             exc.offset if exc.offset is not None else at))
    if sub:
        warnings.extend(sub)
    e.content = {"format": "offload-binary", "images": len(e.nested.entries) if e.nested is not None else 0,
                 "error": e.nested_error}


def _parse_entries(blob: bytes, version: int, entries_offset: int, count: int, base: int, identify,
                   depth: int = 0, warnings=None) -> list:
    size = len(blob)
    if count > (size - min(entries_offset, size)) // ENTRY.size or entries_offset + count * ENTRY.size > size:
        raise DecodeError(f"{count} entries of {ENTRY.size} bytes at blob offset {entries_offset:#x} run past the end "
                          f"of the blob ({size} bytes)", offset=base + 16)
    sst = STRING_V1 if version == 1 else STRING_V2
    entries = []
    for i in range(count):
        eo = entries_offset + i * ENTRY.size
        ik, ok, fl, so, ns, io, isz = ENTRY.unpack_from(blob, eo)
        if so > size or ns > (size - so) // sst.size:
            raise DecodeError(f"entry {i}: {ns} string map entries at blob offset {so:#x} run past the end of the "
                              f"blob ({size} bytes)", offset=base + eo + 8)
        if io > size or isz > size - io:
            raise DecodeError(f"entry {i}: image at blob offset {io:#x}, {isz} bytes, runs past the end of the blob "
                              f"({size} bytes)", offset=base + eo + 24)
        strings = []
        for j in range(ns):
            v = sst.unpack_from(blob, so + j * sst.size)
            ko, vo = v[0], v[1]
            key = _cstring(blob, ko, f"entry {i} string {j} key", base)
            if version == 1:
                val = _cstring(blob, vo, f"entry {i} string {j} value", base)
                vs = None
            else:
                vs = v[2]
                if vo > size or vs > size - vo:
                    raise DecodeError(f"entry {i} string {j}: value at blob offset {vo:#x}, {vs} bytes, runs past "
                                      f"the end of the blob ({size} bytes)", offset=base + so + j * sst.size + 8)
                val = blob[vo:vo + vs]
            strings.append(StringEntry(decode_text(key), decode_text(val), ko, vo, vs))
        e = OffloadEntry(i, ik, ok, fl, so, ns, io, isz, strings, blob[io:io + isz])
        if e.image[:4] == MAGIC:
            _nest(e, base, identify, depth, warnings)
        elif identify is not None:
            e.content = identify(e.image)
        entries.append(e)
    return entries


def _build(b: OffloadBlob, size: int) -> bytearray:
    """The bytes an uncompressed blob's fields describe (patches not applied)."""
    out = bytearray(size)

    def put(off, data):
        if off + len(data) <= size:
            out[off:off + len(data)] = data
    if b.version >= 3:
        put(0, HEADER_V3.pack(MAGIC, b.version, size, b.entries_offset, b.entries_count, 0))
    else:
        put(0, HEADER_V1.pack(MAGIC, b.version, size, b.entries_offset, b.entries_count))
    sst = STRING_V1 if b.version == 1 else STRING_V2
    for e in b.entries:
        put(b.entries_offset + e.index * ENTRY.size,
            ENTRY.pack(e.image_kind, e.offload_kind, e.flags, e.string_offset, e.num_strings, e.image_offset,
                       e.image_size))
        for j, s in enumerate(e.strings):
            if b.version == 1:
                put(e.string_offset + j * sst.size, sst.pack(s.key_offset, s.value_offset))
            else:
                put(e.string_offset + j * sst.size, sst.pack(s.key_offset, s.value_offset, s.value_size))
            put(s.key_offset, encode_text(s.key) + b"\0")
            put(s.value_offset, encode_text(s.value) + b"\0")
        put(e.image_offset, e.image)
    return out


def _diff(a: bytes, b: bytes) -> list:
    """Runs where ``a`` (the real bytes) differs from ``b`` (the rebuilt ones), as (offset, bytes of a)."""
    if a == b:
        return []
    out = []
    i, n = 0, len(a)
    while i < n:
        if a[i] != b[i]:
            j = i
            while j < n and a[j] != b[j]:
                j += 1
            out.append((i, bytes(a[i:j])))
            i = j
        else:
            i += 1
    return out


def parse_offloading(data, *, base_offset: int = 0, identify=None, depth: int = 0, warnings=None) -> Offloading:
    """Every OffloadBinary blob in ``data`` (a section).  ``identify``: a function naming an image's content.
    ``warnings``: a list that gets (message, offset) of what costs a value but not the blob (a nested blob that
    does not decode, a version newer than 3).  Raises DecodeError with ``partial`` = the blobs read so far."""
    data = bytes(data)
    model = Offloading()
    pos = 0
    n = len(data)
    try:
        while pos < n:
            base = base_offset + pos
            if n - pos < HEADER_V1.size:
                raise DecodeError(f"truncated OffloadBinary header: {n - pos} bytes left (expected at least "
                                  f"{HEADER_V1.size})", offset=base)
            magic, version, size, eoff, ecount = HEADER_V1.unpack_from(data, pos)
            if magic != MAGIC:
                raise DecodeError(f"bad OffloadBinary magic {magic.hex(' ')} (expected 10 ff 10 ad)", offset=base)
            if version == 0 or (version > MAX_VERSION and warnings is None):
                raise DecodeError(f"unsupported OffloadBinary version {version} (expected 1..{MAX_VERSION})",
                                  offset=base + 4)
            if version > MAX_VERSION:
                warnings.append((f"OffloadBinary version {version}: objllvm reads versions 1 to {MAX_VERSION}: "
                                 f"read with version {MAX_VERSION}'s layout", base + 4))
            hsize = HEADER_V3.size if version >= 3 else HEADER_V1.size
            if size < hsize or size > n - pos:
                raise DecodeError(f"OffloadBinary size {size} is {'smaller than its header' if size < hsize else 'past the end of the section'} "
                                  f"({n - pos} bytes left from the blob start)", offset=base + 8)
            inflated = struct.unpack_from("<Q", data, pos + 32)[0] if version >= 3 else 0
            blob = data[pos:pos + size]
            b = OffloadBlob(pos, version, size, eoff, ecount, inflated)
            model.blobs.append(b)
            if eoff < hsize or eoff > size:
                raise DecodeError(f"entries offset {eoff:#x} is outside the blob (header {hsize} bytes, blob {size} "
                                  "bytes)", offset=base + 16)
            count = 1 if version == 1 else ecount
            if inflated:
                b.compressed = blob[eoff:]
                b.compression = _identify_compression(b.compressed)
                b.patches = _diff(blob[:eoff], _build_header(b, eoff))
                if b.compression != "unknown":
                    try:
                        body = _decompress(b.compression, b.compressed, inflated - eoff)
                    except DecodeError as exc:   # a corrupt stream or a refused claim: kept compressed
                        body = None
                        b.error = exc.message
                    if body is not None:
                        if eoff + len(body) != inflated:
                            b.error = (f"decompressed size {eoff + len(body)} does not match the inflated size "
                                       f"{inflated}")
                        else:
                            full = bytearray(blob[:eoff]) + body
                            b.entries = _parse_entries(bytes(full), version, eoff, count, base, identify, depth,
                                                       warnings)
            else:
                b.entries = _parse_entries(blob, version, eoff, count, base, identify, depth, warnings)
                b.patches = _diff(blob, _build(b, size))
            nxt = min(-(-(pos + size) // ALIGN) * ALIGN, n)
            b.padding = data[pos + size:nxt]
            pos = nxt
    except DecodeError as exc:
        exc.partial = model
        raise
    return model


def _build_header(b: OffloadBlob, eoff: int) -> bytes:
    h = HEADER_V3.pack(MAGIC, b.version, b.size, b.entries_offset, b.entries_count, b.inflated_size)
    return (h + bytes(max(0, eoff - len(h))))[:eoff]


def encode_offloading(model: Offloading) -> bytes:
    out = bytearray()
    for b in model.blobs:
        if b.compressed is not None:
            raw = bytearray(_build_header(b, b.entries_offset)) + b.compressed
        else:
            raw = _build(b, b.size)
        for off, patch in b.patches:
            raw[off:off + len(patch)] = patch
        out += raw
        out += b.padding
    return bytes(out)


def _string_table(strings):
    """An ELF-style string table as LLVM's StringTableBuilder lays it out: a leading NUL, the strings sorted by
    their reversed bytes (descending) so that a string that ends another one shares its tail; the empty string
    is the leading NUL."""
    table = bytearray(b"\0")
    offsets = {b"": 0}
    prev = b""
    for s in sorted(set(strings) - {b""}, key=lambda x: x[::-1], reverse=True):
        if prev.endswith(s):
            offsets[s] = len(table) - len(s) - 1
            continue
        offsets[s] = len(table)
        table += s + b"\0"
        prev = s
    return table, offsets


def write_offload_binary(images, version: int = 1, compression: str | None = None) -> bytes:
    """A new blob holding ``images``: dicts with ``image`` (bytes), ``image_kind``, ``offload_kind``, ``flags``,
    ``strings`` (list of (key, value)), laid out as LLVM's OffloadBinary::write does (header, entries, string
    map, NUL-terminated strings, images 8-byte aligned, size padded to 8).  Version 1 takes one image.
    ``compression`` ('zstd' or 'zlib', version 3 only) compresses everything after the header."""
    if compression is not None:
        if version < 3 or compression not in ("zstd", "zlib"):
            raise UsageError("compression needs version 3 and 'zstd' or 'zlib'")
        raw = write_offload_binary(images, version)
        hsize = HEADER_V3.size
        if compression == "zstd":
            import zstandard
            comp = zstandard.ZstdCompressor().compress(raw[hsize:])
        else:
            import zlib
            comp = zlib.compress(raw[hsize:])
        size = hsize + len(comp)
        out = HEADER_V3.pack(MAGIC, version, size, hsize, len(images), len(raw)) + comp
        return out + bytes(-len(out) % ALIGN)
    if version == 1 and len(images) != 1:
        raise UsageError("an OffloadBinary of version 1 holds exactly one image")
    hsize = HEADER_V3.size if version >= 3 else HEADER_V1.size
    sst = STRING_V1 if version == 1 else STRING_V2
    nstr = sum(len(im.get("strings", ())) for im in images)
    strtab_off = hsize + ENTRY.size * len(images) + sst.size * nstr
    strtab, offsets = _string_table([encode_text(x) for im in images for kv in im.get("strings", ()) for x in kv])
    data_off = -(-(strtab_off + len(strtab)) // ALIGN) * ALIGN
    total = -(-(data_off + sum(len(im["image"]) for im in images)) // ALIGN) * ALIGN
    out = bytearray()
    if version >= 3:
        out += HEADER_V3.pack(MAGIC, version, total, hsize, len(images), 0)
    else:   # version 1 stores the entry size where version 2 stores the entry count
        out += HEADER_V1.pack(MAGIC, version, total, hsize, ENTRY.size if version == 1 else len(images))
    soff = hsize + ENTRY.size * len(images)
    ioff = data_off
    for im in images:
        ns = len(im.get("strings", ()))
        out += ENTRY.pack(im.get("image_kind", 0), im.get("offload_kind", 0), im.get("flags", 0), soff, ns, ioff,
                          len(im["image"]))
        soff += sst.size * ns
        ioff += len(im["image"])
    for im in images:
        for k, v in im.get("strings", ()):
            kb, vb = encode_text(k), encode_text(v)
            if version == 1:
                out += sst.pack(strtab_off + offsets[kb], strtab_off + offsets[vb])
            else:
                out += sst.pack(strtab_off + offsets[kb], strtab_off + offsets[vb], len(vb))
    out += strtab
    out += bytes(data_off - len(out))
    for im in images:
        out += im["image"]
    out += bytes(total - len(out))
    return bytes(out)


def _identify(image):
    from .support.bitcode_summary import identify
    return identify(image)


def _offloading_dict(model: Offloading) -> dict:
    return {"blobs": [{"offset": b.offset, "version": b.version, "size": b.size,
                       "entries_offset": b.entries_offset,
                       "entries_count": b.entries_count if b.version > 1 else 1,
                       "entry_size": b.entries_count if b.version == 1 else ENTRY.size,
                       "inflated_size": b.inflated_size, "compression": b.compression, "error": b.error,
                       "padding": len(b.padding), "unaccounted_bytes": sum(len(p) for _o, p in b.patches),
                       "entries": [entry_to_dict(e) for e in b.entries]} for b in model.blobs]}


def entry_to_dict(e: OffloadEntry) -> dict:
    return {"index": e.index, "image_kind": e.image_kind, "image_kind_name": IMAGE_KINDS.get(e.image_kind,
                                                                                            f"unknown({e.image_kind})"),
            "offload_kind": e.offload_kind, "offload_kind_name": offload_kind_flags(e.offload_kind),
            "flags": e.flags, "metadata_only": bool(e.flags & FLAG_METADATA_ONLY),
            "triple": e.triple, "arch": e.arch,
            "strings": [{"key": s.key, "value": s.value} for s in e.strings],
            "string_offset": e.string_offset, "num_strings": e.num_strings,
            "image_offset": e.image_offset, "image_size": e.image_size, "content": e.content,
            **({"nested": _offloading_dict(e.nested) if e.nested is not None else None,
                "nested_error": e.nested_error} if e.image[:4] == MAGIC else {})}


@register
class OffloadingCodec(Codec):
    kind = "offloading"
    description = "offloading images (OffloadBinary, versions 1-3)"
    sh_types = (SHT_LLVM_OFFLOADING,)
    names = (".llvm.offloading",)
    name_hints = ("offloading",)
    formats = ("elf", "coff")

    def matches_name(self, section, obj, options=None):
        if obj.format == "coff":          # LLVM matches COFF sections by prefix
            return section.name.startswith(".llvm.offloading")
        return obj.format in self.formats and section.name in self.names

    def decode(self, data, ctx):
        warnings = []
        try:
            model = parse_offloading(data, identify=_identify, warnings=warnings)
        finally:
            for msg, at in warnings:
                ctx.warn(msg, at)
        for b in model.blobs:      # an image that cannot be opened is a value lost: said, not only shown
            if b.error or b.compression == "unknown":
                ctx.warn(f"compressed blob: {b.error or 'unknown compression (expected zstd or zlib)'}: its "
                         "entries are not shown", offset=b.offset)
        return model

    def encode(self, model, ctx):
        return encode_offloading(model)

    def to_dict(self, model):
        return _offloading_dict(model)

    def from_dict(self, d, ctx):
        raise UsageError("offloading: images are not part of the JSON view; rebuild the section with "
                         "clang-offload-packager instead")

    def tables(self, model, options):
        out = []
        rows = []
        for b in model.blobs:
            rows.append([b.offset, b.version, b.size, b.entries_count if b.version > 1 else 1,
                         (f"{b.compression}, {b.inflated_size} bytes inflated" if b.compression else "")
                         + (f" ({b.error})" if b.error else "")])
        out.append(Table(["offset", "version", "size", "entries", "compression"], rows, title="blobs"))
        _image_tables(model, "", out)
        return out


def _image_tables(model: Offloading, prefix: str, out: list) -> None:
    """One table per image, numbered as llvm-objdump --offloading numbers them ([0], nested [0.1])."""
    i = 0
    for b in model.blobs:
        for e in b.entries:
            r = [["kind", OBJDUMP_KIND.get(e.image_kind, "<none>")], ["arch", e.arch], ["triple", e.triple],
                 ["producer", offload_kind_name(e.offload_kind)],
                 ["image kind", f"{e.image_kind} ({IMAGE_KINDS.get(e.image_kind, 'unknown')})"],
                 ["offload kind", f"{e.offload_kind} ({offload_kind_flags(e.offload_kind)})"],
                 ["flags", f"{e.flags:#x}" + (" (metadata only)" if e.flags & FLAG_METADATA_ONLY else "")],
                 ["image", f"{e.image_size} bytes at blob offset {e.image_offset:#x}"]]
            r += [[f"string {s.key}", s.value] for s in e.strings]
            if e.nested is not None:
                r.append(["nested images", str(len(e.nested.entries))])
            if e.nested_error:
                r.append(["nested error", e.nested_error])
            elif e.content:
                r.append(["content", _content_text(e.content)])
            out.append(Table(["field", "value"], r, title=f"OFFLOADING IMAGE [{prefix}{i}]"))
            if e.nested is not None:
                _image_tables(e.nested, f"{prefix}{i}.", out)
            i += 1


def _content_text(c: dict) -> str:
    f = c.get("format")
    if f == "bitcode":
        if c.get("error"):
            return f"bitcode ({c['error']})"
        ms = c.get("modules") or []
        parts = []
        for m in ms:
            parts.append(f"bitcode: {m.get('triple')}, {m.get('source_filename')}, producer {m.get('producer')}, "
                         f"{len(m.get('defined_functions') or [])} functions, "
                         f"{len(m.get('defined_variables') or [])} variables")
        return "; ".join(parts) or "bitcode"
    if f == "elf":
        return f"ELF{c.get('class')} {c.get('endian')} {c.get('machine')} {c.get('type')}"
    return f or "unknown"
