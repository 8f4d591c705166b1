"""A reader for the LLVM bitstream container (seed 003, "Bitstream Format").

The bitstream is read least significant bit first.  It holds blocks (entered with ENTER_SUBBLOCK, left with
END_BLOCK, both 32-bit aligned, each with its length in 32-bit words so a reader can skip it) and records
(unabbreviated: VBR6 code, VBR6 count, VBR6 operands; or abbreviated: an abbreviation defined by DEFINE_ABBREV in
the block or for the block's ID in the BLOCKINFO block).

:class:`BitstreamCursor` is iterative (no recursion) with a bounded block depth.  Every read is bounds-checked
against the end of the innermost open block, so a stream that ends inside a block, an abbreviation ID that is not
defined, or a count larger than the bits left is a :class:`~objllvm.errors.DecodeError` with the byte offset
(relative to the section, via ``base_offset``) and the bit position.  Nothing is allocated by a count read from
the input before that count is checked against the bits remaining.
"""
from __future__ import annotations

from ..errors import DecodeError

END_BLOCK, ENTER_SUBBLOCK, DEFINE_ABBREV, UNABBREV_RECORD = 0, 1, 2, 3
BLOCKINFO_BLOCK_ID = 0
BLOCKINFO_CODE_SETBID = 1

# Abbreviation operand encodings (seed 003).  LITERAL is ours: a literal operand.
LITERAL, FIXED, VBR, ARRAY, CHAR6, BLOB = 0, 1, 2, 3, 4, 5
ENCODING_NAMES = {LITERAL: "literal", FIXED: "fixed", VBR: "vbr", ARRAY: "array", CHAR6: "char6", BLOB: "blob"}

CHAR6_TABLE = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._"

MAX_DEPTH = 64          # nested blocks deeper than this are rejected (LLVM itself nests a handful)

# what advance() returns
EOF, END, BLOCK, RECORD = "eof", "end", "block", "record"


class Abbrev:
    """One abbreviation: a tuple of (encoding, value) operands."""
    __slots__ = ("ops",)

    def __init__(self, ops):
        self.ops = tuple(ops)

    def __repr__(self):
        return "Abbrev(" + ", ".join(f"{ENCODING_NAMES[e]}{'' if v is None else f'({v})'}" for e, v in self.ops) + ")"


class _Frame:
    """An open block: its ID and extent, and the enclosing state to restore at its END_BLOCK."""
    __slots__ = ("block_id", "start", "end", "saved_width", "saved_abbrevs", "saved_limit", "declared_end")

    def __init__(self, block_id, start, end, saved_width, saved_abbrevs, saved_limit, declared_end=None):
        self.block_id = block_id
        self.declared_end = declared_end    # set when the block's length runs past the data (truncated input)
        self.start = start                  # bit position of the block's first abbreviation ID
        self.end = end                      # bit position where the block ends (its length says so)
        self.saved_width = saved_width
        self.saved_abbrevs = saved_abbrevs
        self.saved_limit = saved_limit


class BitstreamCursor:
    """A cursor over a bitstream held in ``data[start:end]`` (byte offsets).

    ``base_offset`` is added to every byte offset in an error (the stream's place in the section).  Positions
    (``pos``) are in bits from ``start``.
    """

    def __init__(self, data, start: int = 0, end: int | None = None, *, base_offset: int = 0,
                 max_depth: int = MAX_DEPTH, block_names: dict | None = None):
        end = len(data) if end is None else end
        if start < 0 or end > len(data) or start > end:
            raise DecodeError(f"bitstream range {start}..{end} is outside the data ({len(data)} bytes)",
                              offset=base_offset + max(start, 0))
        # Work on a private copy of exactly the stream so that slices past the end read nothing.
        self.data = bytes(data[start:end]) if (start or end != len(data) or not isinstance(data, bytes)) else data
        self.size_bits = (end - start) * 8
        self.pos = 0
        self.base = base_offset + start
        self.max_depth = max_depth
        self.block_names = block_names or {}
        self.blockinfo: dict = {}            # block id -> [Abbrev] from the BLOCKINFO block
        self.stack: list = []                # open blocks
        self.width = 2                       # abbreviation ID width at the top level
        self.abbrevs: list = []
        self.limit = self.size_bits          # reads may not go past this bit (end of the innermost block)

    # -- positions and errors ------------------------------------------------------------------
    def byte_offset(self, bitpos: int | None = None) -> int:
        """Byte offset (with base) of a bit position (default: the current one)."""
        return self.base + ((self.pos if bitpos is None else bitpos) >> 3)

    def error(self, message: str, bitpos: int | None = None) -> DecodeError:
        bp = self.pos if bitpos is None else bitpos
        return DecodeError(f"{message} (bitstream bit {bp})", offset=self.base + (bp >> 3))

    def block_name(self, block_id: int) -> str:
        n = self.block_names.get(block_id)
        return f"block {block_id} ({n})" if n else f"block {block_id}"

    def _past_end(self, what: str, start: int):
        if self.stack and self.stack[-1].declared_end is not None:
            f = self.stack[-1]
            return self.error(f"bitstream ends inside {self.block_name(f.block_id)} (opened at offset "
                              f"{self.base + (f.start >> 3) - 8:#x}, declared to end at offset "
                              f"{self.base + (f.declared_end >> 3):#x}, data ends at offset "
                              f"{self.base + (self.size_bits >> 3):#x}): expected {what}", start)
        if self.stack:
            f = self.stack[-1]
            return self.error(f"expected {what}, but {self.block_name(f.block_id)} (opened at offset "
                              f"{self.base + (f.start >> 3) - 8:#x}) ends at offset {self.base + (f.end >> 3):#x}"
                              + (" (the end of the stream)" if f.end >= self.size_bits else ""), start)
        return self.error(f"bitstream ends early: expected {what}", start)

    @property
    def depth(self) -> int:
        return len(self.stack)

    @property
    def block_id(self):
        return self.stack[-1].block_id if self.stack else None

    def at_end(self) -> bool:
        return self.pos >= self.size_bits

    def bits_left(self) -> int:
        return self.limit - self.pos

    # -- primitives ----------------------------------------------------------------------------
    def read(self, width: int, what: str = "a fixed-width field") -> int:
        p = self.pos
        np = p + width
        if np > self.limit:
            raise self._past_end(f"{what} ({width} bits)", p)
        self.pos = np
        if width == 0:
            return 0
        b = p >> 3
        return (int.from_bytes(self.data[b:(np + 7) >> 3], "little") >> (p & 7)) & ((1 << width) - 1)

    def vbr(self, width: int, what: str = "a VBR field") -> int:
        p = self.pos
        data = self.data
        hi = 1 << (width - 1)
        b = p >> 3
        word = int.from_bytes(data[b:b + 8], "little") >> (p & 7)
        avail = 64 - (p & 7)
        piece = word & ((hi << 1) - 1)
        if not piece & hi:                     # the common one-chunk case
            np = p + width
            if np > self.limit:
                raise self._past_end(f"{what} (VBR{width})", p)
            self.pos = np
            return piece
        mask = hi - 1
        result = 0
        shift = 0
        q = p
        wmask = (hi << 1) - 1
        while True:
            if avail < width:
                b = q >> 3
                word = int.from_bytes(data[b:b + 8], "little") >> (q & 7)
                avail = 64 - (q & 7)
            piece = word & wmask
            word >>= width
            avail -= width
            q += width
            if q > self.limit:
                raise self._past_end(f"{what} (VBR{width})", p)
            result |= (piece & mask) << shift
            if not piece & hi:
                break
            shift += width - 1
            if shift > 64:
                raise self.error(f"{what}: VBR{width} value longer than 64 bits", p)
        self.pos = q
        return result

    def align32(self) -> None:
        p = (self.pos + 31) & ~31
        if p > self.limit:
            raise self._past_end("padding to a 32-bit boundary", self.pos)
        self.pos = p

    # -- structure -----------------------------------------------------------------------------
    def advance(self):
        """The next entry of the current block: ``(BLOCK, id)`` (call enter_block or skip_block next),
        ``(RECORD, abbrev_id)`` (call read_record next), ``(END, None)`` (the block was left), or ``(EOF, None)``
        at the end of the stream at the top level.  DEFINE_ABBREV entries are handled here."""
        while True:
            if not self.stack and self.size_bits - self.pos < 32:
                return EOF, None          # top level: fewer than 32 bits left is padding, never another block
            start = self.pos
            aid = self.read(self.width, "an abbreviation ID")
            if aid == END_BLOCK and not self.stack and not self.data[start >> 3:].strip(b"\0"):
                self.pos = start
                return EOF, None          # top level: only zero bytes left (padding after the last block)
            if aid == ENTER_SUBBLOCK:
                bid = self.vbr(8, "a block ID")
                self._pending = (bid, start)
                return BLOCK, bid
            if aid == END_BLOCK:
                if not self.stack:
                    raise self.error("END_BLOCK at the top level (no block is open)", start)
                self.align32()
                self._leave()
                return END, None
            if aid == DEFINE_ABBREV:
                ab = self._read_abbrev()
                self.abbrevs.append(ab)
                continue
            if aid != UNABBREV_RECORD and aid - 4 >= len(self.abbrevs):
                raise self.error(f"abbreviation ID {aid} is not defined in "
                                 f"{self.block_name(self.block_id) if self.stack else 'the top level'} "
                                 f"({len(self.abbrevs)} abbreviations defined: IDs 4..{3 + len(self.abbrevs)})", start)
            if not self.stack:
                raise self.error(f"record (abbreviation ID {aid}) at the top level: expected a block", start)
            return RECORD, aid

    def _header(self, lenient: bool = False):
        """Read the rest of ENTER_SUBBLOCK: (abbrev width, end bit, body start, declared end or None).
        ``lenient``: a length past the available data is clamped (reads fail later, where the data ends)."""
        width = self.vbr(4, "the new abbreviation ID width")
        self.align32()
        nwords = self.read(32, "the block length")
        body = self.pos
        if width < 1 or width > 32:
            raise self.error(f"abbreviation ID width {width} of a block is out of range (expected 1..32)", body - 32)
        end = body + nwords * 32
        if end > self.limit and lenient and self.limit == self.size_bits:
            return width, self.limit, body, end
        if end > self.limit:
            raise self.error(f"block length {nwords} words ({nwords * 4} bytes) runs past the end of the "
                             f"{'enclosing block' if self.stack else 'stream'} "
                             f"({(self.limit - body) // 8} bytes left)", body - 32)
        return width, end, body, None

    def enter_block(self):
        """Enter the block announced by the last ``(BLOCK, id)``; returns (block id, start byte, size bytes)."""
        bid, start = self._pending
        if len(self.stack) >= self.max_depth:
            raise self.error(f"blocks nest deeper than {self.max_depth} levels", start)
        width, end, body, declared = self._header(lenient=True)
        self.stack.append(_Frame(bid, body, end, self.width, self.abbrevs, self.limit, declared))
        self.width = width
        self.abbrevs = list(self.blockinfo.get(bid, ()))
        self.limit = end
        return bid, self.base + (start >> 3), (end - start + 7) >> 3

    def skip_block(self):
        """Skip the block announced by the last ``(BLOCK, id)`` by its length; returns (id, start byte, size)."""
        bid, start = self._pending
        _width, end, _body, _declared = self._header()
        self.pos = end
        return bid, self.base + (start >> 3), (end - start + 7) >> 3

    def _leave(self):
        f = self.stack.pop()
        self.width, self.abbrevs, self.limit = f.saved_width, f.saved_abbrevs, f.saved_limit

    def current_block_start(self) -> int:
        return self.stack[-1].start if self.stack else 0

    def _read_abbrev(self) -> Abbrev:
        start = self.pos
        n = self.vbr(5, "the operand count of DEFINE_ABBREV")
        if n < 1:
            raise self.error("DEFINE_ABBREV with no operands", start)
        if n * 2 > self.limit - self.pos:
            raise self.error(f"DEFINE_ABBREV operand count {n} is more than the bits left allow", start)
        ops = []
        i = 0
        while i < n:
            if self.read(1, "an abbreviation operand kind"):
                ops.append((LITERAL, self.vbr(8, "a literal operand")))
            else:
                enc = self.read(3, "an abbreviation operand encoding")
                if enc in (FIXED, VBR):
                    v = self.vbr(5, "an operand width")
                    if v > (64 if enc == FIXED else 32) or (enc == VBR and v == 1):
                        raise self.error(f"{ENCODING_NAMES[enc]} operand width {v} is invalid (expected "
                                         f"{'0..64' if enc == FIXED else '0 or 2..32'})", start)
                    ops.append((LITERAL, 0) if v == 0 else (enc, v))
                elif enc in (ARRAY, CHAR6, BLOB):
                    ops.append((enc, None))
                else:
                    raise self.error(f"unknown abbreviation operand encoding {enc} (expected 1 fixed, 2 vbr, "
                                     "3 array, 4 char6, 5 blob)", start)
            i += 1
        for j, (enc, _v) in enumerate(ops):
            if enc == ARRAY:
                if j != len(ops) - 2:
                    raise self.error("array operand is not the second to last operand of its abbreviation", start)
                if ops[-1][0] in (ARRAY, BLOB, LITERAL):
                    raise self.error(f"array element encoding is {ENCODING_NAMES[ops[-1][0]]} "
                                     "(expected fixed, vbr or char6)", start)
            elif enc == BLOB and j != len(ops) - 1:
                raise self.error("blob operand is not the last operand of its abbreviation", start)
        if ops[0][0] in (ARRAY, BLOB):
            raise self.error("abbreviation starts with an array or a blob (expected the record code)", start)
        return Abbrev(ops)

    def read_record(self, abbrev_id: int):
        """Read the record after ``(RECORD, abbrev_id)``: returns (code, [operands], blob bytes or None)."""
        if abbrev_id == UNABBREV_RECORD:
            start = self.pos
            code = self.vbr(6, "a record code")
            n = self.vbr(6, "a record operand count")
            if n * 6 > self.limit - self.pos:      # every operand takes at least 6 bits
                raise self.error(f"record operand count {n} is more than the bits left in the block allow", start)
            vbr = self.vbr
            return code, [vbr(6, "a record operand") for _ in range(n)], None
        ab = self.abbrevs[abbrev_id - 4]
        vals = []
        blob = None
        ops = ab.ops
        i = 0
        nops = len(ops)
        while i < nops:
            enc, v = ops[i]
            if enc == LITERAL:
                vals.append(v)
            elif enc == FIXED:
                vals.append(self.read(v, "a fixed operand"))
            elif enc == VBR:
                vals.append(self.vbr(v, "a VBR operand"))
            elif enc == CHAR6:
                vals.append(CHAR6_TABLE[self.read(6, "a char6 operand")])
            elif enc == ARRAY:
                start = self.pos
                n = self.vbr(6, "an array length")
                eenc, ev = ops[i + 1]
                ebits = 6 if eenc == CHAR6 else ev
                if n * max(ebits, 1) > self.limit - self.pos:
                    raise self.error(f"array of {n} elements is longer than the bits left in the block", start)
                if eenc == CHAR6:
                    vals.extend(self._char6_array(n))
                elif eenc == FIXED:
                    vals.extend(self._fixed_array(n, ev))
                else:
                    vbr = self.vbr
                    vals.extend(vbr(ev, "an array element") for _ in range(n))
                break
            else:  # BLOB
                start = self.pos
                n = self.vbr(6, "a blob length")
                self.align32()
                if n * 8 > self.limit - self.pos:
                    raise self.error(f"blob of {n} bytes runs past the end of the block "
                                     f"({(self.limit - self.pos) // 8} bytes left)", start)
                b = self.pos >> 3
                blob = self.data[b:b + n]
                self.pos += n * 8
                self.align32()
                break
            i += 1
        if not vals:
            raise self.error("abbreviated record without a code")
        return vals[0], vals[1:], blob

    def _fixed_array(self, n: int, width: int) -> list:
        p = self.pos
        total = n * width
        b = p >> 3
        big = int.from_bytes(self.data[b:(p + total + 7) >> 3], "little") >> (p & 7)
        self.pos = p + total
        mask = (1 << width) - 1
        if width == 8:
            return list(((big & ((1 << total) - 1)).to_bytes(n, "little")))
        out = []
        for _ in range(n):
            out.append(big & mask)
            big >>= width
        return out

    def _char6_array(self, n: int) -> list:
        return [CHAR6_TABLE[x] for x in self._fixed_array(n, 6)]

    def skip_to_block_end(self):
        """Leave the current block without reading the rest of it (its length says where it ends)."""
        if not self.stack:
            raise self.error("no block to leave")
        self.pos = self.limit
        self._leave()

    # -- BLOCKINFO -----------------------------------------------------------------------------
    def read_blockinfo(self):
        """Read a BLOCKINFO block just entered; its abbreviations apply to the blocks it names."""
        cur = None
        while True:
            start = self.pos
            aid = self.read(self.width, "an abbreviation ID")
            if aid == END_BLOCK:
                self.align32()
                self._leave()
                return
            if aid == ENTER_SUBBLOCK:
                self.vbr(8, "a block ID")
                self._pending = (None, start)
                self.skip_block()
                continue
            if aid == DEFINE_ABBREV:
                ab = self._read_abbrev()
                if cur is None:
                    raise self.error("DEFINE_ABBREV in BLOCKINFO before any SETBID record", start)
                self.blockinfo.setdefault(cur, []).append(ab)
                continue
            if aid != UNABBREV_RECORD and aid - 4 >= len(self.abbrevs):
                raise self.error(f"abbreviation ID {aid} is not defined in the BLOCKINFO block", start)
            code, ops, _ = self.read_record(aid)
            if code == BLOCKINFO_CODE_SETBID:
                if not ops:
                    raise self.error("SETBID record without a block ID", start)
                cur = ops[0]


def record_text(ops, what: str = "string") -> bytes:
    """A record's operands as bytes (characters of a string record)."""
    try:
        return bytes(ops)
    except ValueError:
        raise DecodeError(f"{what}: operand out of the byte range (expected character codes)") from None
