"""The model of a basic-block address map (the wire format: ``objllvm/sections/bb_addr_map.py``): functions,
ranges, blocks and PGO analysis entries, with the format's constants.

The model is lazy: a range keeps its blocks as columns until someone asks for ``blocks``, and a function its
PGO analysis as columns until someone asks for ``pgo_blocks``, so the views of a big map build no object per
block.
"""


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
FLAG_LISTS = tuple(tuple(n for b, n in enumerate(METADATA_NAMES) if v >> b & 1) for v in range(32))
FLAG_SHORT = tuple(",".join(s for b, s in enumerate(("ret", "tail", "eh", "ft", "ind")) if v >> b & 1)
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
        return list(FLAG_LISTS[self.metadata & KNOWN_METADATA])

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
    __slots__ = ("name", "version", "feature", "ranges", "entry_count", "_pgo", "_pgo_cols", "_pgo_later",
                 "section_index", "offset", "_raw", "_canon")

    def __init__(self, name=None, version=2, feature=0, ranges=None, entry_count=None, pgo_blocks=None,
                 section_index=None, offset=None, _pgo_cols=None):
        self.name = name
        self.version = version
        self.feature = feature
        self.ranges = [] if ranges is None else ranges
        self.entry_count = entry_count
        self._pgo = pgo_blocks
        # (frequencies, post-link frequencies, successor counts, successor IDs, probabilities, successor
        # post-link frequencies), each a list or None, until pgo_blocks is asked for
        self._pgo_cols = _pgo_cols
        self._pgo_later = None                # () -> those columns, read when first asked for
        self.section_index = section_index    # the text section (objects: sh_link of the map)
        self.offset = offset                  # where the entry starts in the map section
        self._raw = None                      # the stored bytes when they are not the canonical encoding
        self._canon = None

    def pgo_columns(self):
        """The PGO analysis as columns (see ``_pgo_cols``), read now if the decoder left it for later; None once
        ``pgo_blocks`` holds it."""
        if self._pgo_later is not None:
            self._pgo_cols, self._pgo_later = self._pgo_later(), None
        return self._pgo_cols

    @property
    def pgo_blocks(self):
        c = self.pgo_columns()
        if c is not None:
            freqs, pls, counts, sids, probs, spls = c
            n = len(next(x for x in (freqs, pls, counts) if x is not None))
            out, k = [], 0
            for i in range(n):
                ns = counts[i] if counts is not None else 0
                out.append(PGOBlock(None if freqs is None else freqs[i], None if pls is None else pls[i],
                                    [Successor(sids[j], probs[j], None if spls is None else spls[j])
                                     for j in range(k, k + ns)]))
                k += ns
            self._pgo = out
            self._pgo_cols = None
        return self._pgo

    @pgo_blocks.setter
    def pgo_blocks(self, value):
        self._pgo = value
        self._pgo_cols = self._pgo_later = None

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



def range_cols(r):
    """(ids, offsets, sizes, metadata, callsites or None, hashes or None) of a range."""
    if r._blocks is None:
        c = r._cols
        return (c[0], c[1], c[2], c[3]) + ((c[4], c[5]) if len(c) > 4 else (None, None))
    bl = r._blocks
    return ([b.id for b in bl], [b.offset for b in bl], [b.size for b in bl], [b.metadata for b in bl],
            [b.callsite_end_offsets for b in bl], [b.hash for b in bl])

