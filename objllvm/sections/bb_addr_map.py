"""Basic-block address maps: SHT_LLVM_BB_ADDR_MAP (0x6fff4c0a, versions 0-5) and the older
SHT_LLVM_BB_ADDR_MAP_V0 type (0x6fff4c08, LLVM <= 15: no version byte).

Layout (docs/formats.md).  Per function: ``version u8`` and ``feature`` (u8 for versions
0-4, u16 for version 5; absent in the V0 type), then one range ``[address word][blocks ULEB][blocks]``
or, with MultiBBRange, ``ranges ULEB`` and that many ranges.  A block: ``ID`` (version >= 2),
``offset`` (version >= 1: from the end of the previous block of the range; before: from the range
start), call sites (``n`` then ``n`` deltas, with CallsiteEndOffsets), ``size`` (minus the last call
site end), ``metadata``, ``hash u64`` (BBHash).  PGO analysis follows the ranges: entry count, then
per block frequency, post-link frequency, successors (ID, probability, post-link frequency).

In relocatable objects the relocations of the map give the addresses: symbol value + addend (RELA;
the words are zero) or + the stored word (REL, e.g. i386).  Against section symbols that is the
offset in the text section, as llvm-readobj shows it.

The model is lazy: a range keeps its blocks as columns until someone asks for ``blocks``, so the
JSON view of a big map does not build one object per block.
"""
from __future__ import annotations

from itertools import accumulate, chain, repeat
from operator import add, attrgetter, itemgetter

from .._model import no_gc
from ..binary import ULEBError, read_uleb, uleb_encode
from ..errors import DecodeError
from ..render import ColumnTable, TableGroup
from .support.bb_fast import Entries
from .registry import Codec, Table, register

SHT_LLVM_BB_ADDR_MAP_V0 = 0x6FFF4C08
SHT_LLVM_BB_ADDR_MAP = 0x6FFF4C0A
TYPE_NAMES = {SHT_LLVM_BB_ADDR_MAP_V0: "SHT_LLVM_BB_ADDR_MAP_V0", SHT_LLVM_BB_ADDR_MAP: "SHT_LLVM_BB_ADDR_MAP"}

# Feature bits.
FUNC_ENTRY_COUNT, BB_FREQ, BR_PROB, MULTI_BB_RANGE = 0x1, 0x2, 0x4, 0x8
OMIT_BB_ENTRIES, CALLSITE_END_OFFSETS, BB_HASH, POST_LINK_CFG = 0x10, 0x20, 0x40, 0x80
FEATURE_NAMES = ("FuncEntryCount", "BBFreq", "BrProb", "MultiBBRange", "OmitBBEntries", "CallsiteEndOffsets",
                 "BBHash", "PostLinkCfg")
KNOWN_FEATURES = 0xFF
# The lowest version each feature bit may appear in.
FEATURE_MIN_VERSION = {CALLSITE_END_OFFSETS: 3, BB_HASH: 4, POST_LINK_CFG: 5}
MAX_VERSION = 5

# Block metadata bits.
HAS_RETURN, HAS_TAIL_CALL, IS_EH_PAD, CAN_FALL_THROUGH, HAS_INDIRECT_BRANCH = 0x1, 0x2, 0x4, 0x8, 0x10
METADATA_NAMES = ("HasReturn", "HasTailCall", "IsEHPad", "CanFallThrough", "HasIndirectBranch")
KNOWN_METADATA = 0x1F
# Flag names per metadata value, shared by every block of the JSON view.  Tuples of strings, which
# the garbage collector stops tracking after one pass (forced here): a dict holding only ints,
# strings and such tuples is then untracked too, so the hundreds of thousands of block dicts of a
# big map cost the collector nothing.
_FLAG_LISTS = tuple(tuple(n for b, n in enumerate(METADATA_NAMES) if v >> b & 1) for v in range(32))
_FLAG_SHORT = tuple(",".join(s for b, s in enumerate(("ret", "tail", "eh", "ft", "ind")) if v >> b & 1)
                    for v in range(32))

PROB_DENOMINATOR = 0x80000000
_U32 = 0xFFFFFFFF


_FEATURE_NAME_CACHE: dict = {}


def feature_names(feature: int) -> list:
    names = _FEATURE_NAME_CACHE.get(feature)
    if names is None:
        names = _FEATURE_NAME_CACHE[feature] = tuple(n for b, n in enumerate(FEATURE_NAMES) if feature >> b & 1)
    return list(names)


# -- model --------------------------------------------------------------------------------------
class Block:
    """One basic block.  ``address`` is absolute (range base + ``offset``); ``offset`` is from the
    start of its range (the function start for single-range functions)."""
    __slots__ = ("id", "address", "offset", "size", "metadata", "callsite_end_offsets", "hash")

    def __init__(self, id, offset, size, metadata=0, address=None, callsite_end_offsets=None, hash=None):
        self.id = id
        self.offset = offset
        self.size = size
        self.metadata = metadata
        self.address = offset if address is None else address
        self.callsite_end_offsets = [] if callsite_end_offsets is None else callsite_end_offsets
        self.hash = hash

    has_return = property(lambda self: bool(self.metadata & HAS_RETURN))
    has_tail_call = property(lambda self: bool(self.metadata & HAS_TAIL_CALL))
    is_eh_pad = property(lambda self: bool(self.metadata & IS_EH_PAD))
    can_fall_through = property(lambda self: bool(self.metadata & CAN_FALL_THROUGH))
    has_indirect_branch = property(lambda self: bool(self.metadata & HAS_INDIRECT_BRANCH))

    @property
    def end(self) -> int:
        return self.address + self.size

    @property
    def flags(self) -> list:
        return list(_FLAG_LISTS[self.metadata & KNOWN_METADATA])

    def _key(self):
        return (self.id, self.address, self.offset, self.size, self.metadata, list(self.callsite_end_offsets),
                self.hash)

    def __eq__(self, other):
        return isinstance(other, Block) and self._key() == other._key()

    def __repr__(self):
        return (f"Block(id={self.id}, address={self.address:#x}, offset={self.offset:#x}, size={self.size}, "
                f"metadata={self.metadata:#x}" + (f", callsite_end_offsets={self.callsite_end_offsets}"
                                                  if self.callsite_end_offsets else "")
                + (f", hash={self.hash:#x}" if self.hash is not None else "") + ")")


class BBRange:
    """A contiguous run of blocks starting at ``base_address``.

    ``stored_address`` is the address word as stored in the section (zero or an implicit addend in
    relocatable objects) when it differs from ``base_address``; the encoder writes it back.
    ``num_blocks`` is the stored block count (with OmitBBEntries, the only trace of the blocks)."""
    __slots__ = ("base_address", "stored_address", "_num_blocks", "_blocks", "_cols")

    def __init__(self, base_address, blocks=None, stored_address=None, num_blocks=None, _cols=None):
        self.base_address = base_address
        self.stored_address = stored_address
        self._num_blocks = num_blocks
        self._blocks = blocks if blocks is not None or _cols is not None else []
        self._cols = _cols      # (ids, offsets, sizes, metadata[, callsites, hashes]) until materialised

    @property
    def blocks(self) -> list:
        if self._blocks is None:
            base = self.base_address
            c = self._cols
            ids, offs, sizes, mds = c[0], c[1], c[2], c[3]
            if len(c) > 4:
                cs, hs = c[4], c[5]
                self._blocks = [Block(ids[i], offs[i], sizes[i], mds[i], base + offs[i],
                                      list(cs[i]) if cs is not None else [], hs[i] if hs is not None else None)
                                for i in range(len(sizes))]
            else:
                self._blocks = [Block(i, o, s, m, base + o) for i, o, s, m in zip(ids, offs, sizes, mds)]
            self._cols = None
        return self._blocks

    @blocks.setter
    def blocks(self, value):
        self._blocks = value
        self._cols = None

    @property
    def num_blocks(self) -> int:
        if self._num_blocks is not None:
            return self._num_blocks
        return len(self._cols[2]) if self._blocks is None else len(self._blocks)

    @num_blocks.setter
    def num_blocks(self, value):
        self._num_blocks = value

    def __eq__(self, other):
        return (isinstance(other, BBRange) and self.base_address == other.base_address
                and self.num_blocks == other.num_blocks and self.blocks == other.blocks)

    def __repr__(self):
        return f"BBRange(base_address={self.base_address:#x}, {self.num_blocks} blocks)"


class Successor:
    __slots__ = ("id", "probability", "post_link_frequency")

    def __init__(self, id, probability, post_link_frequency=None):
        self.id = id
        self.probability = probability                  # numerator over 0x80000000
        self.post_link_frequency = post_link_frequency  # None without PostLinkCfg

    @property
    def percent(self) -> float:
        return self.probability * 100.0 / PROB_DENOMINATOR

    def __eq__(self, other):
        return isinstance(other, Successor) and (self.id, self.probability, self.post_link_frequency) == (
            other.id, other.probability, other.post_link_frequency)

    def __repr__(self):
        return f"Successor(id={self.id}, probability={self.probability:#x}, post_link_frequency={self.post_link_frequency})"


class PGOBlock:
    __slots__ = ("frequency", "post_link_frequency", "successors")

    def __init__(self, frequency=None, post_link_frequency=None, successors=None):
        self.frequency = frequency                      # None without BBFreq
        self.post_link_frequency = post_link_frequency  # None without PostLinkCfg
        self.successors = [] if successors is None else successors

    def __eq__(self, other):
        return isinstance(other, PGOBlock) and (self.frequency, self.post_link_frequency, self.successors) == (
            other.frequency, other.post_link_frequency, other.successors)

    def __repr__(self):
        return f"PGOBlock(frequency={self.frequency}, post_link_frequency={self.post_link_frequency}, " \
               f"successors={self.successors})"


class FunctionMap:
    """The map of one function.  ``version`` is None for the V0 section type (no version byte)."""
    __slots__ = ("name", "version", "feature", "ranges", "entry_count", "pgo_blocks", "section_index",
                 "offset", "_raw", "_canon")

    def __init__(self, name=None, version=2, feature=0, ranges=None, entry_count=None, pgo_blocks=None,
                 section_index=None, offset=None):
        self.name = name
        self.version = version
        self.feature = feature
        self.ranges = [] if ranges is None else ranges
        self.entry_count = entry_count
        self.pgo_blocks = pgo_blocks
        self.section_index = section_index    # the text section (objects: sh_link of the map)
        self.offset = offset                  # where the entry starts in the map section
        self._raw = None                      # the stored bytes when they are not the canonical encoding
        self._canon = None

    @property
    def address(self) -> int:
        return self.ranges[0].base_address if self.ranges else 0

    @property
    def blocks(self) -> list:
        if len(self.ranges) == 1:
            return self.ranges[0].blocks
        return [b for r in self.ranges for b in r.blocks]

    @property
    def features(self) -> list:
        return feature_names(self.feature)

    def __eq__(self, other):
        return isinstance(other, FunctionMap) and (
            self.name, self.version, self.feature, self.ranges, self.entry_count, self.pgo_blocks) == (
            other.name, other.version, other.feature, other.ranges, other.entry_count, other.pgo_blocks)

    def __repr__(self):
        return (f"FunctionMap(name={self.name!r}, address={self.address:#x}, version={self.version}, "
                f"feature={self.feature:#x}, {len(self.ranges)} ranges)")


class BBAddrMap:
    """A whole map section."""
    __slots__ = ("functions", "section_type", "pretty")

    def __init__(self, functions=None, section_type=SHT_LLVM_BB_ADDR_MAP, pretty=False):
        self.functions = [] if functions is None else functions
        self.section_type = section_type
        self.pretty = pretty          # --pretty-pgo: the JSON view adds relative figures

    def __eq__(self, other):
        return isinstance(other, BBAddrMap) and self.functions == other.functions \
            and self.section_type == other.section_type

    def __repr__(self):
        return f"BBAddrMap({len(self.functions)} functions, {TYPE_NAMES.get(self.section_type)})"


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


def decode_map(data, ctx, fast=True) -> BBAddrMap:
    """Decode a whole section (raises DecodeError with ``partial`` = the functions decoded before).
    ``fast=False``: every entry through the plain decoder (the reference the fast path is tested against)."""
    stype = ctx.section.type if ctx.section is not None and ctx.section.type in TYPE_NAMES else SHT_LLVM_BB_ADDR_MAP
    pretty = bool((ctx.options or {}).get("pretty_pgo"))
    out = BBAddrMap([], stype, pretty)
    with no_gc():
        try:
            _decode_into(bytes(data), ctx, stype, out.functions, fast)
        except _Fail as f:
            raise DecodeError(f"{f.message} (function {len(out.functions)})", offset=f.offset,
                              partial=out) from None
    return out


def _decode_into(data, ctx, stype, functions, fast):
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
                npos = _decode_function_pgo(fn, data, npos, end, len(sizes), ctx, pos)
        fn.section_index = text_index
        functions.append(fn)
        pos = npos


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
        fn.pgo_blocks, pos, mn = _decode_pgo(data, pos, end, total, feature, bool(feature & POST_LINK_CFG))
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
    freq = bool(feature & BB_FREQ)
    prob = bool(feature & BR_PROB)
    minimal = True
    need = (1 if freq else 0) + (1 if postlink else 0) + (1 if prob else 0)
    if total * need > end - pos:
        raise _Fail(f"PGO data for {total} blocks needs at least {total * need} bytes, only {end - pos} left", pos)
    out = []
    per_succ = 3 if postlink else 2
    for _ in range(total):
        f = pl = None
        succs = []
        if freq:
            f, pos, mn = _uleb(data, pos, end, "block frequency", 64)
            minimal &= mn
        if postlink:
            pl, pos, mn = _uleb(data, pos, end, "post-link block frequency")
            minimal &= mn
        if prob:
            n, p2, mn = _uleb(data, pos, end, "successor count", 64)
            minimal &= mn
            if n * per_succ > end - p2:
                raise _Fail(f"successor count {n} needs at least {n * per_succ} bytes, only {end - p2} left", pos)
            pos = p2
            for _ in range(n):
                sid, pos, mn = _uleb(data, pos, end, "successor ID")
                minimal &= mn
                p, pos, mn2 = _uleb(data, pos, end, "branch probability")
                minimal &= mn and mn2
                spl = None
                if postlink:
                    spl, pos, mn = _uleb(data, pos, end, "post-link edge frequency")
                    minimal &= mn
                succs.append(Successor(sid, p, spl))
        out.append(PGOBlock(f, pl, succs))
    return out, pos, minimal


# -- encoding -----------------------------------------------------------------------------------
def _range_cols(r):
    """(ids, offsets, sizes, metadata, callsites or None, hashes or None) of a range."""
    if r._blocks is None:
        c = r._cols
        return (c[0], c[1], c[2], c[3]) + ((c[4], c[5]) if len(c) > 4 else (None, None))
    bl = r._blocks
    return ([b.id for b in bl], [b.offset for b in bl], [b.size for b in bl], [b.metadata for b in bl],
            [b.callsite_end_offsets for b in bl], [b.hash for b in bl])


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
        ids, offs, sizes, mds, cs, hs = _range_cols(r)
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


# -- views --------------------------------------------------------------------------------------
def _relative_frequencies(fn):
    """Block frequencies relative to the entry block (llvm-readobj --pretty-pgo-analysis-map)."""
    pgo = fn.pgo_blocks
    if not pgo or pgo[0].frequency in (None, 0):
        return None
    entry = pgo[0].frequency
    return [None if p.frequency is None else p.frequency / entry for p in pgo]


def function_to_dict(fn, pretty=False) -> dict:
    feature = fn.feature
    if not feature and len(fn.ranges) == 1:
        r = fn.ranges[0]
        if r._blocks is None and r.stored_address is None and len(r._cols) == 4:
            # The common entry (no features, still in columns): straight to dicts.
            base = r.base_address
            flags = _FLAG_LISTS
            ids, offs, sizes, mds = r._cols
            return {"name": fn.name, "address": base, "version": fn.version, "feature": 0, "features": [],
                    "ranges": [{"base_address": base, "blocks": [
                        {"id": i, "address": base + o, "offset": o, "size": s, "metadata": m, "flags": flags[m]}
                        for i, o, s, m in zip(ids, offs, sizes, mds)]}]}
    ranges = []
    callsites = bool(feature & CALLSITE_END_OFFSETS)
    hashes = bool(feature & BB_HASH)
    flags = _FLAG_LISTS
    for r in fn.ranges:
        base = r.base_address
        rd = {"base_address": base}
        if r.stored_address is not None:
            rd["stored_address"] = r.stored_address
        if feature & OMIT_BB_ENTRIES:
            rd["num_blocks"] = r.num_blocks
            rd["blocks"] = []
        elif r._blocks is None:
            c = r._cols
            ids, offs, sizes, mds = c[:4]
            blocks = [{"id": i, "address": base + o, "offset": o, "size": s, "metadata": m, "flags": flags[m]}
                      for i, o, s, m in zip(ids, offs, sizes, mds)]
            if callsites:
                cs = c[4] if len(c) > 4 and c[4] is not None else repeat([])
                for d, e in zip(blocks, cs):
                    d["callsite_end_offsets"] = list(e)
            if hashes:
                hs = c[5] if len(c) > 5 and c[5] is not None else repeat(0)
                for d, h in zip(blocks, hs):
                    d["hash"] = f"{h or 0:#018x}"
            rd["blocks"] = blocks
        else:
            out = []
            for b in r.blocks:
                d = {"id": b.id, "address": b.address, "offset": b.offset, "size": b.size,
                     "metadata": b.metadata, "flags": flags[b.metadata & KNOWN_METADATA]}
                if callsites:
                    d["callsite_end_offsets"] = list(b.callsite_end_offsets)
                if hashes:
                    d["hash"] = f"{b.hash or 0:#018x}"
                out.append(d)
            rd["blocks"] = out
        ranges.append(rd)
    d = {"name": fn.name, "address": fn.address, "version": fn.version, "feature": feature,
         "features": feature_names(feature), "ranges": ranges}
    if feature & FUNC_ENTRY_COUNT:
        d["entry_count"] = fn.entry_count
    if feature & (BB_FREQ | BR_PROB):
        rel = _relative_frequencies(fn) if pretty else None
        pl = []
        for i, p in enumerate(fn.pgo_blocks or ()):
            e = {}
            if feature & BB_FREQ:
                e["frequency"] = p.frequency
                if rel is not None:
                    e["relative_frequency"] = rel[i]
            if feature & POST_LINK_CFG:
                e["post_link_frequency"] = p.post_link_frequency
            if feature & BR_PROB:
                ss = []
                for s in p.successors:
                    sd = {"id": s.id, "probability": s.probability}
                    if pretty:
                        sd["probability_percent"] = s.percent
                    if feature & POST_LINK_CFG:
                        sd["post_link_frequency"] = s.post_link_frequency
                    ss.append(sd)
                e["successors"] = ss
            pl.append(e)
        d["pgo_blocks"] = pl
    return d


_U64 = 1 << 64
_JSON_BATCH = 1 << 13     # blocks per %-formatting (the memory it takes is reused by the next batch)
_STYLES = {}


def _json_style(indent):
    """The fixed pieces of the JSON text of a map: compact (``indent`` None) or indented by 2 as json.dumps
    (indent=2) and orjson write it, the map's ``{`` being on a line indented by ``indent`` blanks."""
    st = _STYLES.get(indent)
    if st is not None:
        return st
    from ..render import json_layout
    nl, key = json_layout(indent, 10)

    md = []
    for v in range(32):
        names = _FLAG_LISTS[v]
        if names:
            items = b",".join(nl[8] + b'"%s"' % n.encode("ascii") for n in names)     # (identifiers)
            flags = b"[" + items + nl[7] + b"]"
        else:
            flags = b"[]"
        md.append(b"%d," % v + key("flags", 7) + flags + nl[6] + b"}")
    block_id = nl[6] + b"{" + key("id", 7) + b"%d"
    st = {
        "open": b"{" + key("section_type", 1) + b"%s," + key("functions", 1) + b"[",
        "empty": b"{" + key("section_type", 1) + b"%s," + key("functions", 1) + b"[]" + nl[0] + b"}",
        "head": nl[2] + b"{" + key("name", 3) + b'"%s",' + key("address", 3) + b"%d," + key("version", 3)
        + b"%d," + key("feature", 3) + b"0," + key("features", 3) + b"[]," + key("ranges", 3) + b"[" + nl[4]
        + b"{" + key("base_address", 5) + b"%d," + key("blocks", 5) + b"[",
        "fn_end": nl[5] + b"]" + nl[4] + b"}" + nl[3] + b"]" + nl[2] + b"}",
        "close": nl[1] + b"]" + nl[0] + b"}",
        "block_id": block_id,
        "rest": b"," + key("address", 7) + b"%d," + key("offset", 7) + b"%d," + key("size", 7) + b"%d,"
        + key("metadata", 7) + b"%s",
        "ids": tuple(b"," + block_id % i for i in range(0x80)),    # ',' and the start of a block with ID i
        "md": tuple(md),
    }
    _STYLES[indent] = st
    return st


def map_to_json(model):
    """``to_dict(model)`` as compact JSON text, ASCII bytes (what json.dumps with separators (",", ":") and orjson
    both give), built column-wise without a dict per block; None unless every function is the
    common kind (no features, one non-empty range, still in columns, no stored address, an ASCII
    name) and every address fits in 64 bits (where json and orjson would write different text)."""
    parts = map_json_parts(model)
    return None if parts is None else b"".join(parts)


def map_json_parts(model):
    """map_to_json as a list of pieces to write one after the other (or None)."""
    stream = map_json_stream(model)
    return None if stream is None else list(stream[1](None))


def map_json_stream(model):
    """None (see map_to_json), or ``(size, chunks)``: ``size`` about the length of the compact text
    (an estimate, without writing it), ``chunks(indent)`` an iterator over the pieces of the text:
    compact (``indent`` None) or indented by 2 on a line indented by ``indent`` blanks (json.dumps's
    and orjson's indented text, as a part of a bigger document), a batch of blocks at a time."""
    if model.pretty:
        return None
    fns = model.functions
    cols, bases, counts = [], [], []
    for fn in fns:
        if fn.feature or len(fn.ranges) != 1:
            return None
        r = fn.ranges[0]
        c = r._cols
        if r._blocks is not None or r.stored_address is not None or len(c) != 4 or r._num_blocks is not None:
            return None
        name = fn.name
        if name is not None and not (name.isascii() and "\x7f" not in name):
            return None
        n = len(c[2])
        if not n:
            return None
        cols.append(c)
        bases.append(r.base_address)
        counts.append(n)
    if set(map(type, bases)) - {int} or (bases and min(bases) < -(1 << 63)):
        return None
    versions = [fn.version for fn in fns]
    vtypes = set(map(type, versions))
    if vtypes - {int, type(None)}:
        return None
    if bases and max(bases) + max(map(max, map(itemgetter(1), cols))) >= _U64:      # (cautious)
        return None
    for c in cols:
        m = c[3]
        if type(m) is not bytes and (max(m) > KNOWN_METADATA or min(m) < 0):     # bytes: checked when decoding
            return None
    total = sum(counts)
    size = 100 * total + sum(80 + len(fn.name or "") for fn in fns)

    def chunks(indent):
        return _map_json_chunks(model, fns, cols, bases, counts, versions, vtypes, _json_style(indent))
    return size, chunks



def _map_json_chunks(model, fns, cols, bases, counts, versions, vtypes, st):
    from itertools import chain, repeat
    from ..render import batches, json_text, json_texts
    flat = chain.from_iterable
    tname = json_text(TYPE_NAMES.get(model.section_type, hex(model.section_type))).encode("ascii")
    if not fns:
        yield st["empty"] % tname
        return
    names = json_texts([fn.name for fn in fns])
    head = st["head"].replace(b'"%s"', b"%s", 1)
    if vtypes - {int}:
        versions = [b"null" if v is None else b"%d" % v for v in versions]
        i = head.index(b"%d", head.index(b"%d") + 2)     # the version's
        head = head[:i] + b"%s" + head[i + 2:]
    # Function by function, the text before each block: ',' or, for a function's first block, the end
    # of the previous function and the start of this one (with the block's ID when IDs are bytes,
    # i.e. below 0x80: then the blocks' template starts after the ID).
    id0, id1, id2, id3 = itemgetter(0), itemgetter(1), itemgetter(2), itemgetter(3)
    byte_ids = set(map(type, map(id0, cols))) == {bytes}
    if byte_ids:
        head += st["block_id"]
        head_args = flat(zip(names, bases, versions, bases, map(id0, map(id0, cols))))
        template = b"%s" + st["rest"]
        id_json = st["ids"]
    else:
        head_args = flat(zip(names, bases, versions, bases))
        template = b"%s" + st["block_id"] + st["rest"]
    nhead = head.count(b"%") - 2 * head.count(b"%%")
    head_args = list(head_args)
    yield st["open"] % tname
    ends = list(accumulate(counts))
    md_json = st["md"].__getitem__
    for i, j in batches(ends, _JSON_BATCH):
        # One bytes %-template per batch of functions, the same for every block (bytes formatting of
        # integers is the fast one): the text before the block (with the block's ID when the IDs are
        # bytes), ID, address, offset, size, metadata.
        bc = cols[i:j]
        offs = list(flat(map(id1, bc)))
        mds = flat(map(id3, bc))
        if byte_ids:
            before = list(map(id_json.__getitem__, flat(map(id0, bc))))
            columns = (before,)
        else:
            before = [b","] * len(offs)
            columns = (before, flat(map(id0, bc)))
        base = ends[i - 1] if i else 0
        # the functions' heads, this batch's only (a big map's would take tens of MB at once)
        heads = (b"\0".join(([head] if not i else []) + [st["fn_end"] + b"," + head] * (j - max(i, 1)))
                 % tuple(head_args[i * nhead:j * nhead])).split(b"\0")
        for h, at in zip(heads, ends[i - 1:j - 1] if i else chain((0,), ends[:j - 1])):
            before[at - base] = h
        addrs = map(add, offs, flat(map(repeat, bases[i:j], counts[i:j])))
        args = tuple(flat(zip(*columns, addrs, offs, flat(map(id2, bc)), map(md_json, mds))))
        yield (template * len(offs)) % args
        del args, before, columns, offs, mds, addrs, heads
    yield st["fn_end"] + st["close"]


def function_from_dict(d, section_index=None) -> FunctionMap:
    feature = int(d.get("feature", 0))
    version = d.get("version", 2)
    ranges = []
    for rd in d.get("ranges", []):
        base = int(rd["base_address"])
        blocks = []
        for b in rd.get("blocks", []):
            h = b.get("hash")
            if isinstance(h, str):
                h = int(h, 0)
            md = b.get("metadata")
            if md is None:      # flags alone will do
                bad = [n for n in b.get("flags", ()) if n not in METADATA_NAMES]
                if bad:
                    raise ValueError(f"{bad[0]!r} is not a known flag (known: {', '.join(METADATA_NAMES)})")
                md = sum(1 << METADATA_NAMES.index(n) for n in b.get("flags", ()))
            blocks.append(Block(int(b["id"]), int(b["offset"]), int(b["size"]), int(md),
                                base + int(b["offset"]), [int(x) for x in b.get("callsite_end_offsets", [])],
                                h if feature & BB_HASH else None))
        stored = rd.get("stored_address")
        r = BBRange(base, blocks, None if stored is None else int(stored))
        if feature & OMIT_BB_ENTRIES:
            r.num_blocks = int(rd.get("num_blocks", 0))
        ranges.append(r)
    fn = FunctionMap(d.get("name"), None if version is None else int(version), feature, ranges,
                     section_index=section_index)
    if feature & FUNC_ENTRY_COUNT:
        fn.entry_count = int(d.get("entry_count") or 0)
    if feature & (BB_FREQ | BR_PROB):
        fn.pgo_blocks = [PGOBlock(p.get("frequency"), p.get("post_link_frequency"),
                                  [Successor(int(s["id"]), int(s["probability"]), s.get("post_link_frequency"))
                                   for s in p.get("successors", [])]) for p in d.get("pgo_blocks", [])]
    return fn


def _check_encodable(model):
    """Values the format cannot hold are a usage problem, not a crash."""
    for fn in model.functions:
        v = fn.version
        if model.section_type == SHT_LLVM_BB_ADDR_MAP_V0 and (v is not None or fn.feature):
            raise DecodeError(f"function {fn.name or hex(fn.address)}: the V0 section type has no version byte "
                              f"and no features (version {v}, feature {fn.feature:#x})")
        if model.section_type == SHT_LLVM_BB_ADDR_MAP and (v is None or not 0 <= v <= MAX_VERSION):
            raise DecodeError(f"function {fn.name or hex(fn.address)}: version {v} cannot be encoded "
                              f"(expected 0 to {MAX_VERSION})")
        if not 0 <= fn.feature <= (0xFFFF if (v or 0) >= 5 else 0xFF):
            raise DecodeError(f"function {fn.name or hex(fn.address)}: feature {fn.feature:#x} does not fit")
        if fn.feature & (BB_FREQ | BR_PROB):
            n = 0 if fn.feature & OMIT_BB_ENTRIES else sum(r.num_blocks for r in fn.ranges)
            have = len(fn.pgo_blocks or ())
            if have != n:
                raise DecodeError(f"function {fn.name or hex(fn.address)}: {n} blocks but {have} PGO entries "
                                  f"(BBFreq/BrProb need one per block)")


@register
class BBAddrMapCodec(Codec):
    kind = "bb-addr-map"
    description = "basic-block address maps (-fbasic-block-sections=labels / -basic-block-address-map), PGO analysis"
    sh_types = (SHT_LLVM_BB_ADDR_MAP_V0, SHT_LLVM_BB_ADDR_MAP)
    names = (".llvm_bb_addr_map",)
    formats = ("elf", "coff")    # COFF: x86 objects of LLVM 23 (PR #191347), same wire format
    typed_names = True

    @classmethod
    def add_arguments(cls, parser):
        parser.add_argument("--pretty-pgo", action="store_true",
                            help="bb-addr-map: show block frequencies relative to the entry block and branch "
                                 "probabilities as percentages")

    def decode(self, data, ctx):
        return decode_map(data, ctx)

    def relocations_after_edit(self, edit, relocations):
        """A function's address fields move when earlier functions change size: each relocation keeps its place
        in its function's entry (where each entry starts: as encode_map lays them out)."""
        if edit.data == edit.old_data:
            return [(i, r.offset) for i, r in enumerate(relocations)]
        import bisect
        from ..errors import ObjllvmError
        ctx = edit.ctx
        starts = []
        for model, size in ((edit.old_model(), len(edit.old_data)), (edit.model, len(edit.data))):
            at, pos = [], 0
            for fn in model.functions:
                enc = encode_function(fn, ctx.endian, ctx.addr_size)
                at.append(pos)
                pos += len(fn._raw if fn._raw is not None and enc == fn._canon else enc)
            starts.append(at + [size])
        (old_starts, new_starts) = starts
        if len(old_starts) != len(new_starts):
            raise ObjllvmError("functions were added or removed: relocations cannot be updated (refused)")
        out = []
        for i, r in enumerate(relocations):
            k = bisect.bisect_right(old_starts, r.offset) - 1
            out.append((i, new_starts[k] + r.offset - old_starts[k]))
        return out

    def encode(self, model, ctx):
        _check_encodable(model)
        try:
            return encode_map(model, ctx.endian, ctx.addr_size)
        except (ValueError, OverflowError, TypeError) as exc:   # negative or oversized values in an edited model
            raise DecodeError(f"cannot encode the bb-addr-map: {exc}") from None

    def to_dict(self, model):
        pretty = model.pretty
        with no_gc():
            return {"section_type": TYPE_NAMES.get(model.section_type, hex(model.section_type)),
                    "functions": [function_to_dict(f, pretty) for f in model.functions]}

    def to_json(self, model):
        with no_gc():
            try:
                stream = map_json_stream(model)
            except (IndexError, TypeError, ValueError, AttributeError, OverflowError):
                return None     # a model edited by hand: to_dict says what it holds
        if stream is None:
            return None
        from ..render import JSONStream
        return JSONStream(*stream)

    def from_dict(self, d, ctx):
        st = d.get("section_type")
        stype = {v: k for k, v in TYPE_NAMES.items()}.get(st)
        if stype is None:
            stype = ctx.section.type if ctx.section is not None and ctx.section.type in TYPE_NAMES \
                else SHT_LLVM_BB_ADDR_MAP
        text = _text_section(ctx)
        try:
            fns = [function_from_dict(f, text) for f in d.get("functions", [])]
        except (KeyError, TypeError, ValueError) as exc:
            raise DecodeError(f"bad bb-addr-map JSON: {type(exc).__name__}: {exc}") from None
        if stype == SHT_LLVM_BB_ADDR_MAP_V0:
            for f in fns:
                f.version = None
        return BBAddrMap(fns, stype)

    def tables(self, model, options):
        """One table per function; runs of functions of the common kind (no features, one range, still in
        columns) as a TableGroup, laid out many at a time."""
        pretty = bool((options or {}).get("pretty_pgo"))
        out, run = [], []
        fns = model.functions
        with no_gc():
            if fns and _all_common(fns):
                return [_table_group(fns)]
            for f in fns:
                if not f.feature and len(f.ranges) == 1 and f.ranges[0]._blocks is None \
                        and len(f.ranges[0]._cols) == 4 and len(f.ranges[0]._cols[2]):
                    run.append(f)
                    continue
                if run:
                    out.append(_table_group(run))
                    run = []
                out.append(function_table(f, pretty))
            if run:
                out.append(_table_group(run))
        return out


_COLUMN_LABELS = (None, None, None, None, _FLAG_SHORT)
_HEADERS = ("id", "address", "offset", "size", "flags")


class _Titles:
    """The titles of a run of functions' tables, made when asked for (a big map's would take MBs)."""
    __slots__ = ("fns",)

    def __init__(self, fns):
        self.fns = fns

    def __len__(self):
        return len(self.fns)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [_title(f) for f in self.fns[i]]
        return _title(self.fns[i])

    def __iter__(self):
        return map(_title, self.fns)

    def encoded(self, i, j, encoding, errors):
        """The titles of functions i to j as bytes, each with its newline."""
        fns = self.fns[i:j]
        return _encoded_titles([f.name for f in fns],
                               map(attrgetter("base_address"), map(itemgetter(0), map(attrgetter("ranges"), fns))),
                               [f.version for f in fns], lambda: map(_title, fns), encoding, errors)


def _encoded_titles(names, bases, versions, titles, encoding, errors):
    """Tables' titles as bytes, each with its newline: one %-format for them all when every name is plain
    text and every version a number, else ``titles()`` (the titles as text) one by one."""
    if None in names or "" in names or None in versions:
        return [(t + "\n").encode(encoding, errors) for t in titles()]
    joined = "\0".join(names)
    if joined.count("\0") != len(names) - 1:
        return [(t + "\n").encode(encoding, errors) for t in titles()]
    args = [None] * (3 * len(names))        # (a column at a time: faster than zip)
    args[0::3] = joined.encode(encoding, errors).split(b"\0")
    args[1::3] = bases
    args[2::3] = versions
    return (b"function %s at %#x (version %d)\n\0" * len(names) % tuple(args)).split(b"\0")


def _title(fn):
    return f"function {fn.name or '<?>'} at {fn.ranges[0].base_address:#x} (" + \
        ("V0 type)" if fn.version is None else f"version {fn.version})")


def _all_common(fns) -> bool:
    """Every function of the common kind (see tables()), checked a column at a time."""
    if any(map(attrgetter("feature"), fns)):
        return False
    ranges = list(map(attrgetter("ranges"), fns))
    if set(map(len, ranges)) != {1}:
        return False
    r0 = list(map(itemgetter(0), ranges))
    if list(map(attrgetter("_blocks"), r0)).count(None) != len(r0):
        return False
    cols = list(map(attrgetter("_cols"), r0))
    return set(map(len, cols)) == {4} and 0 not in map(len, map(itemgetter(2), cols))


def _table_group(fns):
    ranges = list(map(itemgetter(0), map(attrgetter("ranges"), fns)))
    cols = list(map(attrgetter("_cols"), ranges))
    offs = list(map(itemgetter(1), cols))
    return TableGroup(list(_HEADERS), "dxxdc", _Titles(fns),
                      [list(map(itemgetter(0), cols)), offs, offs, list(map(itemgetter(2), cols)),
                       list(map(itemgetter(3), cols))],
                      [None, list(map(attrgetter("base_address"), ranges)), None, None, None], _COLUMN_LABELS)


def function_table(fn, pretty=False) -> Table:
    feature = fn.feature
    vtxt = "V0 type" if fn.version is None else f"version {fn.version}"
    title = f"function {fn.name or '<?>'} at {fn.address:#x} ({vtxt}"
    if feature:
        title += ", " + ", ".join(feature_names(feature))
    title += ")"
    if feature & FUNC_ENTRY_COUNT:
        title += f", entry count {fn.entry_count}"
    multi = len(fn.ranges) > 1
    headers = (["range"] if multi else []) + ["id", "address", "offset", "size", "flags"]
    if not feature and not multi and fn.ranges and fn.ranges[0]._blocks is None and len(fn.ranges[0]._cols) == 4:
        r = fn.ranges[0]          # the common entry, still in columns: laid out by the renderer
        ids, offs, sizes, mds = r._cols
        return ColumnTable(headers, (ids, offs, offs, sizes, mds), "dxxdc", title, (0, r.base_address, 0, 0, 0),
                           _COLUMN_LABELS)
    if feature & CALLSITE_END_OFFSETS:
        headers.append("call-site ends")
        r = fn.ranges[0] if fn.ranges else None
        if feature == CALLSITE_END_OFFSETS and not multi and r._blocks is None and len(r._cols) > 4:
            ids, offs, sizes, mds, cs = r._cols[:5]       # still in columns: laid out by the renderer
            ends = [" ".join(map(hex, e)) if e else "" for e in cs]
            return ColumnTable(headers, (ids, offs, offs, sizes, mds, ends), "dxxdcs", title,
                               (0, r.base_address, 0, 0, 0, 0), _COLUMN_LABELS + (None,))
    if feature & BB_HASH:
        headers.append("hash")
    pgo = fn.pgo_blocks if feature & (BB_FREQ | BR_PROB) else None
    if pgo is not None:
        if feature & BB_FREQ:
            headers.append("rel. freq" if pretty else "frequency")
        if feature & POST_LINK_CFG:
            headers.append("post-link freq")
        if feature & BR_PROB:
            headers.append("successors (id:probability" + (":post-link" if feature & POST_LINK_CFG else "") + ")")
    rel = _relative_frequencies(fn) if pretty and pgo is not None else None
    rows = []
    k = 0
    for ri, r in enumerate(fn.ranges):
        if feature & OMIT_BB_ENTRIES:
            rows.append(([ri] if multi else []) + ["", f"{r.base_address:#x}", "", "",
                                                   f"({r.num_blocks} blocks omitted)"]
                        + [""] * (len(headers) - (6 if multi else 5)))
            continue
        for b in r.blocks:
            row = ([ri] if multi else []) + [b.id, f"{b.address:#x}", f"{b.offset:#x}", b.size,
                                            _FLAG_SHORT[b.metadata & KNOWN_METADATA]]
            if feature & CALLSITE_END_OFFSETS:
                row.append(" ".join(f"{x:#x}" for x in b.callsite_end_offsets))
            if feature & BB_HASH:
                row.append(f"{b.hash or 0:016x}")
            if pgo is not None:
                p = pgo[k] if k < len(pgo) else None
                if feature & BB_FREQ:
                    if p is None:
                        row.append("")
                    elif rel is not None:
                        row.append(f"{rel[k]:.6g}")
                    else:
                        row.append(p.frequency)
                if feature & POST_LINK_CFG:
                    row.append("" if p is None else p.post_link_frequency)
                if feature & BR_PROB:
                    row.append("" if p is None else ", ".join(
                        (f"{s.id}:{s.percent:.2f}%" if pretty else f"{s.id}:{s.probability:#x}")
                        + (f":{s.post_link_frequency}" if feature & POST_LINK_CFG else "") for s in p.successors))
            rows.append(row)
            k += 1
    return Table(headers, rows, title=title)
