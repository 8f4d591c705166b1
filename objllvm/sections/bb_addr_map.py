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

This module holds the codec (its entry points) and the model's construction from JSON; the parts live in
``support/``: ``bb_model`` (the model and the format's constants), ``bb_decode`` (the plain decoder, the
reference, and the encoder), ``bb_fast`` (the fast path of the decoder, per entry) and ``bb_views`` (the JSON
and text views, written from the model's columns).
"""

from .._model import no_gc
from ..binary import uleb_encode  # noqa: F401
from ..errors import DecodeError
from .registry import Codec, register
from .support.bb_decode import (_Fail, _decode_function, _text_section, decode_map, encode_function,  # noqa: F401
                                encode_map)
from .support.bb_model import (BB_FREQ, BB_HASH, BR_PROB, CALLSITE_END_OFFSETS, FEATURE_NAMES,  # noqa: F401
                               FUNC_ENTRY_COUNT, KNOWN_FEATURES, KNOWN_METADATA, MAX_VERSION, METADATA_NAMES,
                               MULTI_BB_RANGE, OMIT_BB_ENTRIES, POST_LINK_CFG, PROB_DENOMINATOR,
                               SHT_LLVM_BB_ADDR_MAP, SHT_LLVM_BB_ADDR_MAP_V0, TYPE_NAMES, BBAddrMap, BBRange, Block,
                               FunctionMap, PGOBlock, Successor, feature_names)
from .support.bb_views import (function_json, function_table, function_to_dict, map_json_stream,  # noqa: F401
                               map_to_dict)


def map_to_json(model):
    """``to_dict(model)`` as compact JSON text (ASCII bytes, what json.dumps with separators (",", ":") gives),
    or None for a model whose text the column writer does not write (see ``map_json_stream``)."""
    stream = map_json_stream(model)
    return None if stream is None else b"".join(stream.chunks(None))


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
        with no_gc():
            return map_to_dict(model)

    def to_json(self, model):
        return map_json_stream(model)

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
        """One table per function."""
        pretty = bool((options or {}).get("pretty_pgo"))
        with no_gc():
            return [function_table(f, pretty) for f in model.functions]
