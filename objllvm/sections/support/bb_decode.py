"""The plain decoder and the encoder of a basic-block address map section: the readable reference
(``decode_map(..., fast=False)`` takes every entry through it; ``support/bb_fast.py`` is the fast path it is
checked against) and the canonical encoding of an entry.
"""
from ..._model import no_gc
from ...binary import ULEBError, read_uleb, uleb_encode
from ...errors import DecodeError
from .bb_fast import Entries
from .bb_model import (BB_FREQ, BB_HASH, BR_PROB, CALLSITE_END_OFFSETS, FEATURE_MIN_VERSION, FEATURE_NAMES,
                       FUNC_ENTRY_COUNT, KNOWN_FEATURES, KNOWN_METADATA, MAX_VERSION, METADATA_NAMES, MULTI_BB_RANGE,
                       OMIT_BB_ENTRIES, POST_LINK_CFG, SHT_LLVM_BB_ADDR_MAP, SHT_LLVM_BB_ADDR_MAP_V0, TYPE_NAMES,
                       BBAddrMap, BBRange, FunctionMap, PGOBlock, Successor, feature_names, range_cols)

# -- decoding -----------------------------------------------------------------------------------
class _Fail(Exception):
    """Internal: a decoding problem at an offset (turned into DecodeError with the partial model)."""

    def __init__(self, message, offset):
        super().__init__(message)
        self.message = message
        self.offset = offset


def _uleb(data, pos, end, what, bits=32):
    """(value, new position, minimal?) of the ULEB128 at ``pos``."""
    if pos < end:
        b = data[pos]
        if b < 0x80:
            return b, pos + 1, True
    start = pos
    try:
        result, pos, minimal = read_uleb(data, pos, end)
    except ULEBError as exc:
        raise _Fail(f"truncated ULEB128 {what}: ran off the end of the section" if exc.truncated
                    else f"ULEB128 {what} is too long (over 10 bytes)", start) from None
    if result >> bits:
        raise _Fail(f"ULEB128 {what} {result:#x} does not fit in {bits} bits", start)
    return result, pos, minimal


def _text_section(ctx):
    """The text section a relocatable object's map describes (None in a linked file): ELF sh_link; in COFF
    the section a COMDAT map is associative to, else the section its first address relocation points into."""
    if not ctx.is_relocatable or ctx.section is None:
        return None
    if ctx.format != "coff":
        return ctx.section.link
    assoc = getattr(ctx.obj, "associated_section", None)
    n = assoc(ctx.section) if assoc is not None else 0
    if n:
        return n
    for r in ctx.relocations:
        if r.symbol is not None and r.symbol.shndx > 0:
            return r.symbol.shndx
    return None


def _name_finder(ctx):
    """address -> function symbol name, as llvm-readobj finds it (STT_FUNC symbols at the address;
    in relocatable objects only those in the map's linked text section; the first in table order).
    COFF function symbols are those of type DTYPE_FUNCTION (0x20)."""
    shndx = _text_section(ctx)
    fn_type = 2
    if ctx.format == "coff":
        fn_type = 0x20
    arm = ctx.machine == "arm"
    # (asked first: the context checks the object's symbols when first asked, and that fills symbol_name_errors)
    pending = getattr(ctx, "symbols_pending", False)
    bad = {}
    for per_table in (getattr(ctx.obj, "symbol_name_errors", None) or {}).values():
        bad.update(per_table)
    if not bad and pending and hasattr(ctx.obj, "function_names"):
        return ctx.obj.function_names(shndx, arm).get     # without a Symbol per symbol
    names, unnamed = {}, {}
    for s in ctx.symbols:
        if s.type != fn_type or (shndx is not None and s.shndx != shndx):
            continue
        v = s.value & ~1 if arm else s.value
        if v in names or v in unnamed:
            continue
        if s.index in bad:
            unnamed[v] = s.index          # its name cannot be read: no name, a warning when a map asks
        else:
            names[v] = s.name
    if not unnamed:
        return names.get

    def get(v):
        if v in unnamed:
            i = unnamed[v]
            ctx.warn(f"function at {v:#x}: symbol {i} cannot be named: {bad[i]}")
            return None
        return names.get(v)
    return get


def _relocated_words(ctx):
    """offset in the map -> (symbol value, addend or None for REL) of the relocation there (objects only)."""
    if not ctx.is_relocatable:
        return None
    out = {}
    for r in ctx.relocations:
        sym = r.symbol
        if sym is None and r.sym:
            out[r.offset] = (None, r.sym)     # its symbol is past the table: the address is unknown
            continue
        out[r.offset] = (sym.value if (sym is not None and sym.shndx and not sym.is_section) else 0, r.addend)
    if not out:
        why = ctx.relocations_error
        out[None] = f"the relocations cannot be read ({why})" if why is not None else "there are no relocations"
    return out


def _resolve(relocs, at, stored):
    """The address an address word stands for: S + A (RELA), S + the stored word (REL).  A relocatable
    object's word without its relocation has no address (never the stored placeholder): an error there,
    as llvm-readobj's."""
    r = relocs.get(at)
    if r is None:
        why = relocs.get(None)
        raise _Fail(f"no relocation for the function address at offset {at:#x}" + (f": {why}" if why else ""),
                    at)
    if r[0] is None:
        raise _Fail(f"the relocation for the function address at offset {at:#x} refers to symbol {r[1]}, past "
                    f"the end of its symbol table", at)
    return r[0] + (stored if r[1] is None else r[1])


def decode_map(data, ctx, fast=True, pgo_later=False) -> BBAddrMap:
    """Decode a whole section (raises DecodeError with ``partial`` = the functions decoded before).
    ``fast=False``: every entry through the plain decoder (the reference the fast path is tested against).
    ``pgo_later``: a function's PGO analysis that the fast path finds well-formed (``Entries.pgo_end``) is
    read when it is first asked for (a profile reads that of the sampled functions alone)."""
    stype = ctx.section.type if ctx.section is not None and ctx.section.type in TYPE_NAMES else SHT_LLVM_BB_ADDR_MAP
    pretty = bool((ctx.options or {}).get("pretty_pgo"))
    out = BBAddrMap([], stype, pretty)
    with no_gc():
        try:
            _decode_into(bytes(data), ctx, stype, out.functions, fast, pgo_later)
        except _Fail as f:
            raise DecodeError(f"{f.message} (function {len(out.functions)})", offset=f.offset,
                              partial=out) from None
    return out


def _decode_into(data, ctx, stype, functions, fast, pgo_later=False):
    """Every entry of the section, one after the other: the common entry through support/bb_fast.py, any
    other (or any the fast path declines) through _decode_function."""
    end = len(data)
    asz = ctx.addr_size
    order = "little" if ctx.endian == "<" else "big"
    names = _name_finder(ctx)
    relocs = _relocated_words(ctx)
    text_index = _text_section(ctx)
    legacy = stype == SHT_LLVM_BB_ADDR_MAP_V0
    entries = Entries(data) if fast and not legacy else None
    pos = 0
    while pos < end:
        e = entries.entry(pos, asz, order) if entries is not None else None
        if e is None:
            fn, npos = _decode_function(data, pos, end, asz, order, legacy, relocs, ctx)
            fn.name = names(fn.ranges[0].base_address)
        else:
            version, feature, stored, ids, offs, sizes, mds, ends, npos = e
            base = stored if relocs is None else _resolve(relocs, pos + (3 if version == 5 else 2), stored)
            cols = (ids, offs, sizes, mds) if ends is None else (ids, offs, sizes, mds, ends, None)
            r = BBRange(base, None, stored if stored != base else None, None, cols)
            fn = FunctionMap(names(base), version, feature, [r], offset=pos)
            if feature & (FUNC_ENTRY_COUNT | BB_FREQ | BR_PROB):
                later = entries.pgo_end(npos, len(sizes), feature) if pgo_later else None
                pgo = None if later else entries.pgo(npos, len(sizes), feature)
                if later:
                    if feature & (BB_FREQ | BR_PROB):
                        fn._pgo_later = _pgo_reader(entries, data, npos, len(sizes), feature, ctx)
                    fn.entry_count, npos = later
                elif pgo is None:
                    npos = _decode_function_pgo(fn, data, npos, end, len(sizes), ctx, pos)
                else:
                    fn.entry_count, fn._pgo_cols, npos = pgo
        fn.section_index = text_index
        functions.append(fn)
        pos = npos


def _pgo_reader(entries, data, pos, nblocks, feature, ctx):
    """``() -> the PGO columns`` of a function whose analysis at ``pos`` ``Entries.pgo_end`` walked past: the
    fast reader's, or the plain decoder's where it declines.  (A closure: ``functools.partial`` would import
    functools into every dump.)"""
    def read():
        got = entries.pgo(pos, nblocks, feature)
        if got is not None:
            return got[1]
        fn = FunctionMap(None, 5, feature)
        _decode_function_pgo(fn, data, pos, len(data), nblocks, ctx, pos)
        return fn._pgo_cols
    return read


def _decode_function(data, pos, end, asz, order, legacy, relocs, ctx):
    """The plain decoder of one entry: (FunctionMap without its name, the position after it)."""
    fstart = pos
    from_bytes = int.from_bytes
    minimal = True
    if legacy:
        version, feature = None, 0
    else:
        version = data[pos]
        if version > MAX_VERSION:
            raise _Fail(f"unsupported version {version} (expected 0 to {MAX_VERSION})", pos)
        if version < 5:
            if pos + 2 > end:
                raise _Fail(f"truncated entry: expected the feature byte after version {version}", pos + 1)
            feature = data[pos + 1]
            pos += 2
        else:
            if pos + 3 > end:
                raise _Fail("truncated entry: expected the 16-bit feature field of version 5", pos + 1)
            feature = from_bytes(data[pos + 1:pos + 3], order)
            pos += 3
        if feature & ~KNOWN_FEATURES:
            raise _Fail(f"unknown feature bits {feature & ~KNOWN_FEATURES:#x} in feature {feature:#x} "
                        f"(known: {', '.join(FEATURE_NAMES)})", fstart + 1)
        if feature and version < 2:
            raise _Fail(f"feature {feature:#x} ({', '.join(feature_names(feature))}) needs version 2 or "
                        f"later, found version {version}", fstart)
        for bit, need in FEATURE_MIN_VERSION.items():
            if feature & bit and version < need:
                raise _Fail(f"feature {FEATURE_NAMES[bit.bit_length() - 1]} needs version {need} or later, "
                            f"found version {version}", fstart)
    has_ids = version is not None and version >= 2
    relative = version is not None and version >= 1
    callsites = bool(feature & CALLSITE_END_OFFSETS)
    hashes = bool(feature & BB_HASH)
    omit = bool(feature & OMIT_BB_ENTRIES)
    per_block = (4 if has_ids else 3) + (1 if callsites else 0) + (8 if hashes else 0)
    if feature & MULTI_BB_RANGE:
        nranges, p2, mn = _uleb(data, pos, end, "range count")
        minimal &= mn
        if nranges == 0:
            raise _Fail("zero ranges (MultiBBRange needs at least one)", pos)
        if nranges * (asz + 1) > end - p2:
            raise _Fail(f"range count {nranges} needs at least {nranges * (asz + 1)} bytes, only "
                        f"{end - p2} left", pos)
        pos = p2
    else:
        nranges = 1
    ranges = []
    total = 0
    for _ in range(nranges):
        if pos + asz > end:
            raise _Fail(f"truncated entry: expected a {asz}-byte address, only {end - pos} bytes left", pos)
        stored = from_bytes(data[pos:pos + asz], order)
        base = stored if relocs is None else _resolve(relocs, pos, stored)
        pos += asz
        nblocks, p2, mn = _uleb(data, pos, end, "block count")
        minimal &= mn
        if omit:
            pos = p2
            ranges.append(BBRange(base, stored_address=stored if stored != base else None,
                                  num_blocks=nblocks))
            continue
        if nblocks * per_block > end - p2:
            raise _Fail(f"block count {nblocks} needs at least {nblocks * per_block} bytes, only "
                        f"{end - p2} left", pos)
        cols, pos, mn = _decode_blocks(data, p2, end, nblocks, has_ids, relative, callsites, hashes, order)
        minimal &= mn
        total += nblocks
        ranges.append(BBRange(base, None, stored if stored != base else None, None, cols))
    fn = FunctionMap(None, version, feature, ranges, offset=fstart)
    if feature & (FUNC_ENTRY_COUNT | BB_FREQ | BR_PROB):
        pos = _decode_function_pgo(fn, data, pos, end, total, ctx, fstart, minimal)
    elif not minimal:
        fn._raw = data[fstart:pos]
        fn._canon = encode_function(fn, ctx.endian, asz)
    return fn, pos


def _decode_function_pgo(fn, data, pos, end, total, ctx, fstart, minimal=True):
    """The PGO analysis part of an entry (after its ranges) into ``fn``; the position after it."""
    feature = fn.feature
    if feature & FUNC_ENTRY_COUNT:
        fn.entry_count, pos, mn = _uleb(data, pos, end, "function entry count", 64)
        minimal &= mn
    if feature & (BB_FREQ | BR_PROB):
        fn._pgo_cols, pos, mn = _decode_pgo(data, pos, end, total, feature, bool(feature & POST_LINK_CFG))
        minimal &= mn
    if not minimal:
        fn._raw = data[fstart:pos]
        fn._canon = encode_function(fn, ctx.endian, ctx.addr_size)
    return pos


def _decode_blocks(data, pos, end, nblocks, has_ids, relative, callsites, hashes, order):
    ids, offs, sizes, mds = [], [], [], []
    cs = [] if callsites else None
    hs = [] if hashes else None
    minimal = True
    prev_end = 0
    from_bytes = int.from_bytes
    for i in range(nblocks):
        bstart = pos
        if has_ids:
            bid, pos, mn = _uleb(data, pos, end, "block ID")
            minimal &= mn
        else:
            bid = i
        off, pos, mn = _uleb(data, pos, end, "block offset")
        minimal &= mn
        last = 0
        if callsites:
            n, p2, mn = _uleb(data, pos, end, "call-site count")
            minimal &= mn
            if n > end - p2:
                raise _Fail(f"call-site count {n} is larger than the {end - p2} bytes left", pos)
            pos = p2
            ends = []
            for _ in range(n):
                delta, pos, mn = _uleb(data, pos, end, "call-site offset")
                minimal &= mn
                last += delta
                ends.append(last)
            cs.append(ends)
        size, pos, mn = _uleb(data, pos, end, "block size")
        minimal &= mn
        mpos = pos
        md, pos, mn = _uleb(data, pos, end, "block metadata")
        minimal &= mn
        if md & ~KNOWN_METADATA:
            raise _Fail(f"block {i} (ID {bid}) has unknown metadata bits {md & ~KNOWN_METADATA:#x} in {md:#x} "
                        f"(known: {', '.join(METADATA_NAMES)})", mpos)
        if hashes:
            if pos + 8 > end:
                raise _Fail(f"truncated block {i}: expected an 8-byte hash, only {end - pos} bytes left", pos)
            hs.append(from_bytes(data[pos:pos + 8], order))
            pos += 8
        size += last
        if relative:
            off += prev_end
            prev_end = off + size
        ids.append(bid)
        offs.append(off)
        sizes.append(size)
        mds.append(md)
    if callsites or hashes:
        return (ids, offs, sizes, mds, cs, hs), pos, minimal
    return (ids, offs, sizes, mds), pos, minimal


def _decode_pgo(data, pos, end, total, feature, postlink):
    """The PGO analysis of ``total`` blocks as the columns of ``FunctionMap._pgo_cols``, the position after it
    and whether every ULEB128 was minimal."""
    freq = bool(feature & BB_FREQ)
    prob = bool(feature & BR_PROB)
    minimal = True
    need = (1 if freq else 0) + (1 if postlink else 0) + (1 if prob else 0)
    if total * need > end - pos:
        raise _Fail(f"PGO data for {total} blocks needs at least {total * need} bytes, only {end - pos} left", pos)
    freqs = [] if freq else None
    pls = [] if postlink else None
    counts, sids, probs = ([], [], []) if prob else (None, None, None)
    spls = [] if prob and postlink else None
    per_succ = 3 if postlink else 2
    for _ in range(total):
        if freq:
            f, pos, mn = _uleb(data, pos, end, "block frequency", 64)
            minimal &= mn
            freqs.append(f)
        if postlink:
            pl, pos, mn = _uleb(data, pos, end, "post-link block frequency")
            minimal &= mn
            pls.append(pl)
        if prob:
            n, p2, mn = _uleb(data, pos, end, "successor count", 64)
            minimal &= mn
            if n * per_succ > end - p2:
                raise _Fail(f"successor count {n} needs at least {n * per_succ} bytes, only {end - p2} left", pos)
            pos = p2
            counts.append(n)
            for _ in range(n):
                sid, pos, mn = _uleb(data, pos, end, "successor ID")
                minimal &= mn
                p, pos, mn2 = _uleb(data, pos, end, "branch probability")
                minimal &= mn and mn2
                sids.append(sid)
                probs.append(p)
                if postlink:
                    spl, pos, mn = _uleb(data, pos, end, "post-link edge frequency")
                    minimal &= mn
                    spls.append(spl)
    return (freqs, pls, counts, sids, probs, spls), pos, minimal


# -- encoding -----------------------------------------------------------------------------------
def encode_function(fn, endian="<", addr_size=8) -> bytes:
    """The canonical (minimal ULEB128) encoding of one function entry."""
    order = "little" if endian == "<" else "big"
    out = bytearray()
    u = uleb_encode
    feature = fn.feature
    version = fn.version
    if version is not None:
        out.append(version)
        out += feature.to_bytes(2 if version >= 5 else 1, order)
    has_ids = version is not None and version >= 2
    relative = version is not None and version >= 1
    callsites = bool(feature & CALLSITE_END_OFFSETS)
    hashes = bool(feature & BB_HASH)
    omit = bool(feature & OMIT_BB_ENTRIES)
    if feature & MULTI_BB_RANGE:
        out += u(len(fn.ranges))
    for r in fn.ranges:
        word = r.stored_address if r.stored_address is not None else r.base_address
        out += (word & ((1 << (8 * addr_size)) - 1)).to_bytes(addr_size, order)
        if omit:
            out += u(r.num_blocks)
            continue
        ids, offs, sizes, mds, cs, hs = range_cols(r)
        out += u(len(sizes))
        prev_end = 0
        for i in range(len(sizes)):
            if has_ids:
                out += u(ids[i])
            off, size = offs[i], sizes[i]
            if relative and off < prev_end:
                raise DecodeError(f"function {fn.name or hex(fn.address)}: block {i} at offset {off:#x} goes back "
                                  f"before the end of block {i - 1} ({prev_end:#x}); version {version} stores "
                                  f"offsets from the previous block's end")
            out += u(off - prev_end if relative else off)
            last = 0
            if callsites:
                ends = cs[i] if cs is not None else []
                out += u(len(ends))
                for e in ends:
                    if e < last or e > size:
                        raise DecodeError(f"function {fn.name or hex(fn.address)}: block {i}: call-site end "
                                          f"{e:#x} is out of order or past the block size {size:#x}")
                    out += u(e - last)
                    last = e
            out += u(size - last)
            out += u(mds[i])
            if hashes:
                h = hs[i] if hs is not None else None
                out += (h or 0).to_bytes(8, order)
            if relative:
                prev_end = off + size
    if feature & FUNC_ENTRY_COUNT:
        out += u(fn.entry_count or 0)
    if feature & (BB_FREQ | BR_PROB):
        postlink = feature & POST_LINK_CFG
        for pb in fn.pgo_blocks or ():
            if feature & BB_FREQ:
                out += u(pb.frequency or 0)
            if postlink:
                out += u(pb.post_link_frequency or 0)
            if feature & BR_PROB:
                out += u(len(pb.successors))
                for s in pb.successors:
                    out += u(s.id)
                    out += u(s.probability)
                    if postlink:
                        out += u(s.post_link_frequency or 0)
    return bytes(out)


def encode_map(model, endian="<", addr_size=8) -> bytes:
    parts = []
    for fn in model.functions:
        enc = encode_function(fn, endian, addr_size)
        if fn._raw is not None and enc == fn._canon:
            enc = fn._raw          # keep a non-minimal encoding the model does not change
        parts.append(enc)
    return b"".join(parts)

