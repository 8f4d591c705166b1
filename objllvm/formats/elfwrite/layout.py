"""The ELF writer's layout: where each kept section, each added one and the section header table go in the new
file, which input bytes stay where they are (the ELF header, program headers, segments and what overlaps them),
the bytes no header describes (padding, a file's tail), and the bounds that refuse a hostile input's layout."""
import struct
from itertools import accumulate, compress
from operator import add, itemgetter, not_

from ..elf import SHF_ALLOC, SHN_LORESERVE, SHN_XINDEX, SHT_NOBITS
from . import common
from .common import ALIGN, FLAGS, FLIP, MIN_ALIGN_CAP, OFFSET, SIZE, TYPE, align_up, minus


class _Walk:
    """The walk over the input's sections in file order: where each goes (``new_off``), the output's pieces
    (``chunks``; ``late`` ones win where they overlap: the fixed ranges and what lies in them), and the run of
    input bytes that lands contiguously in the output, copied as one slice (run_out: its output offset,
    [run_in, run_end): its input range)."""

    def __init__(self, w, fixed, has_segments, offs_w, eff, new_off, bound):
        self.w = w
        self.fixed = fixed
        self.has_segments = has_segments
        # only the ELF header is fixed (a relocatable object): where it ends
        self.low = fixed[0][1] if len(fixed) == 1 and fixed[0][0] == 0 else None
        self.offs_w, self.eff, self.new_off, self.bound = offs_w, eff, new_off, bound
        self.mv = memoryview(w.data)
        self.size_in = len(w.data)
        self.shsize = w._removed.count(0) * w._shdr.size         # (the flags are 0 or 1)
        self.chunks = []
        self.late = [(fa, w._input_view(self.mv, fa, fb)) for fa, fb in fixed]
        self.pos = self.prev_end = fixed[0][1]      # just after the ELF header
        self.shoff = None
        self.beyond = []      # kept sections whose input offset is past the end of the file, with new contents
        self.fixed_sec = set()
        self.run_out = self.run_in = self.run_end = -1
        self.cap = w._align_cap()

    def in_fixed(self, a, b):
        """The fixed range that [a, b) overlaps, or None."""
        if self.low is not None and a >= self.low:
            return None
        for fa, fb in self.fixed:
            if a < fb and b > fa:
                return (fa, fb)
        return None

    def flush(self) -> None:
        if self.run_end >= 0:
            self.chunks.append((self.run_out, self.w._input_view(self.mv, self.run_in, self.run_end)))
            self.run_end = -1

    def copy(self, out: int, a: int, b: int) -> None:
        """The input's bytes [a, b) at output offset ``out``: joined to the current run where they continue it."""
        if self.run_end == a and self.run_out + (self.run_end - self.run_in) == out:
            self.run_end = b
        else:
            self.flush()
            self.run_out, self.run_in, self.run_end = out, a, b

    def grow(self, out_end: int, in_end: int) -> None:
        self.pos = max(self.pos, out_end)
        self.prev_end = max(self.prev_end, in_end)

    def run(self, order) -> None:
        """Place the input's sections and header table (-1), in file order."""
        rm, offs, eff, size_in, linked = self.w._removed, self.offs_w, self.eff, self.size_in, self.has_segments
        for ref in order:
            off = offs[ref]
            size = eff[ref]
            end = off + size
            if ref < 0:
                self.header_table(off, size, end)
            elif rm[ref]:
                # nothing of it is copied, but the input's padding after it is measured from its end
                if off <= size_in and end > self.prev_end:
                    self.prev_end = end
            elif off <= size_in and not linked or not self.kept_in_place(ref, off, size, end):
                self.section(ref, off, size, end)
        self.flush()

    def kept_in_place(self, ref: int, off: int, size: int, end: int) -> bool:
        """Place kept section ``ref`` where it keeps its offset (past the end of the input, in a fixed range, or
        allocated without bytes in a linked file); False where it is none of these."""
        w = self.w
        if off > self.size_in:
            # Only an empty or SHT_NOBITS section can claim an offset past the end (the container checks the
            # others): it has no bytes there, so it must not move anything else out to that offset.
            if w._content.get(ref):
                self.beyond.append(ref)      # new bytes: placed after everything, like an added section
            else:
                self.new_off[ref] = off
        elif ref in self.fixed_sec:
            self.new_off[ref] = off
            body = w._content.get(ref)
            if body is not None:
                self.flush()
                self.late.append((off, body))
            self.grow(end, end)
        elif w.cols[FLAGS][ref] & SHF_ALLOC and (w.cols[TYPE][ref] == SHT_NOBITS or not size):
            self.new_off[ref] = off        # allocated sections never move in a file with segments
        else:
            return False
        return True

    def header_table(self, off: int, size: int, end: int) -> None:
        w = self.w
        if w.elf.e_shoff and self.shsize <= size and self.in_fixed(off, end) is not None:
            self.shoff = off         # (overlapping a segment: it stays, as a section there does)
        else:
            self.shoff = w._place(off if w.elf.e_shoff else None, self.shsize, 8 if w.is64 else 4, self.pos,
                                  self.prev_end, self.in_fixed)
        self.grow(self.shoff + self.shsize, end)

    def section(self, ref: int, off: int, size: int, end: int) -> None:
        """Place a kept section with bytes to copy or new contents, the input's padding before it kept."""
        body = self.w._content.get(ref)
        n_out = len(body) if body is not None else (end if end < self.size_in else self.size_in) - off
        pos, prev_end = self.pos, self.prev_end
        cand = self.where(ref, off, n_out)
        self.new_off[ref] = cand
        if cand + n_out > self.bound:
            self.w._check_end(cand + n_out, self.bound, ref)
        if n_out:
            gap = off - prev_end
            if gap > 0 and cand == pos + gap and (self.low is not None and pos >= self.low or pos == prev_end
                                                  or self.in_fixed(pos, cand) is None):
                self.copy(pos, prev_end, off)       # the padding before it, as in the input
            if body is None:
                self.copy(cand, off, off + n_out)
            else:
                self.flush()
                self.chunks.append((cand, body))
        if size or n_out or not self.has_segments:
            # (in a linked file an empty section takes nothing: the padding around it goes on)
            if cand + n_out > pos:
                self.pos = cand + n_out
            if end > prev_end:
                self.prev_end = end

    def where(self, ref: int, off: int, n_out: int) -> int:
        """The output offset of a section of ``n_out`` bytes at input offset ``off``."""
        pos, prev_end = self.pos, self.prev_end
        if pos == prev_end and off >= pos and (self.low is not None or not n_out):
            return off                # in step with the input, nothing fixed in the way: keep the offset
        if not n_out and self.has_segments and self.in_fixed(off, off + 1) is not None:
            return off                # an empty section inside a fixed range keeps its offset
        w = self.w
        if self.low is not None and pos >= self.low:
            # nothing fixed after the header: after the output so far, with the input's padding, aligned
            cand = pos + off - prev_end if off > prev_end else pos
            a = w.cols[ALIGN][ref]
            if a <= 1:
                return cand
            if a & (a - 1) or a > self.cap:
                a = w._alignment(ref)       # (refused there)
            return (cand + a - 1) // a * a
        return w._place(off, n_out, w._alignment(ref), pos, prev_end, self.in_fixed)

    def appended(self, ref: int) -> None:
        """Place an added section (or one whose input offset lies past the file) after everything."""
        w = self.w
        body = w._content[ref]
        cand = w._place(None, len(body), w._alignment(ref), self.pos, self.prev_end, self.in_fixed)
        self.new_off[ref] = cand
        w._check_end(cand + len(body), self.bound, ref)
        self.chunks.append((cand, body))
        self.pos = max(self.pos, cand + len(body))


class Layout:
    """Placing the new file's pieces (mixed into the writer)."""

    def write(self) -> bytes:
        """The new file's bytes."""
        return b"".join(self.write_parts())

    def write_parts(self) -> list:
        """The new file as a list of buffers to write one after the other (slices of the input are views of it,
        not copies): what :meth:`write` joins."""
        if not self._removed:
            self.out_size, self.out_shoff = len(self.data), 0
            return [memoryview(self.data)]      # no section header table: nothing this writer can change
        if not self._changes_anything():
            # Nothing removed, added or edited: the new file is the input, byte for byte (a relocatable object is
            # not repacked, and a group that was empty before is not dropped).
            self.out_size, self.out_shoff = len(self.data), self.elf.e_shoff
            self.out_copies, self.out_parts = [], [memoryview(self.data)]
            return self.out_parts
        removed = self._closure()
        rm = self._removed
        if rm[0]:
            raise self._err("section 0 cannot be removed", 0)
        # new[i]: the output index of kept section i (for a removed one: that of the kept section before it)
        new = [k - 1 for k in accumulate(rm.translate(FLIP))]
        if removed:
            self._check_and_fix_references(new, removed)
        if 0 <= self.shstrndx < len(rm) and rm[self.shstrndx]:
            raise self._err("the section name table cannot be removed", self.shstrndx)
        return self._layout(new)

    def _changes_anything(self) -> bool:
        """Whether a section is removed, added, given new contents or a changed header (else the output is the
        input's bytes)."""
        return bool(self._content or self._removed.count(1) or len(self._removed) != self._n_orig
                    or any(self._owned))

    def _layout(self, new) -> list:
        """The new file's parts: the sections walked in the input's file order (:class:`_Walk`), the added ones
        after them, the new section header table, the bytes no header describes, the ELF header's fields."""
        elf, cols = self.elf, self.cols
        rm = self._removed
        n, n_orig = len(rm), self._n_orig
        fixed = self._fixed_ranges()
        has_segments = len(fixed) > 1 or bool(elf.e_phnum)
        # sizes in the file (SHT_NOBITS sections have none), and the input's header table read as section -1
        eff = [0 if t == SHT_NOBITS else z for t, z in zip(cols[TYPE], cols[SIZE])]
        sh_in = elf.e_shoff if elf.e_shoff else len(self.data)
        sh_in_size = n_orig * self._shdr.size
        eff.append(sh_in_size)
        offs_w = list(cols[OFFSET][:n_orig])
        offs_w.append(sh_in)
        shsize = rm.count(0) * self._shdr.size
        bound = self._size_bound(shsize, rm.translate(FLIP), cols[ALIGN])
        self._src = {}
        walk = _Walk(self, fixed, has_segments, offs_w, eff, list(cols[OFFSET]), bound)
        order = self._file_order(eff, offs_w, sh_in_size)
        if has_segments:
            walk.fixed_sec = self._fixed_sections(order, eff, walk.in_fixed)
        walk.run(order)
        for ref in sorted(walk.beyond) + [i for i in range(n_orig, n) if not rm[i]]:
            walk.appended(ref)
        shoff = walk.shoff
        if shoff is None or shoff + shsize > (sh_in if elf.e_shoff else 0) + sh_in_size \
                and any(o < shoff + shsize and o + len(b) > shoff for o, b in walk.chunks if b):
            # (only a table that grew can run into what follows it)
            shoff = self._place(None, shsize, 8 if self.is64 else 4, walk.pos, walk.prev_end, walk.in_fixed)
        allc = walk.chunks + walk.late
        allc.append((shoff, self._header_table(new, walk.new_off, rm.count(0))))
        # (over the input's bytes, where the table lies in a segment's range)
        total = max(map(add, map(itemgetter(0), allc), map(len, map(itemgetter(1), allc))))
        total, bound = self._tail_and_moves(allc, total, bound, fixed, shoff, has_segments, walk.new_off)
        self._check_end(total, bound, None)
        head = self._header_fields(new, shoff, total)
        self.out_size, self.out_shoff = total, shoff
        self.out_copies = []
        self.out_parts = self._parts(allc, total, head, self._src, self.out_copies)
        self._src = {}
        return self.out_parts

    def _file_order(self, eff, offs_w, sh_in_size) -> list:
        """The input's sections (section 0 aside) and its header table (-1) in file order: by offset, the empty
        ones before the others at the same offset, each in index order; the header table before a section with
        the same key."""
        n_orig = self._n_orig
        idx = range(1, n_orig)
        sizes = eff[1:n_orig]
        order = [-1] if not sh_in_size else []
        order += compress(idx, map(not_, sizes))
        if sh_in_size:
            order.append(-1)
        order += compress(idx, sizes)       # (the sections with bytes)
        order.sort(key=offs_w.__getitem__)
        return order

    def _fixed_sections(self, order, eff, in_fixed) -> set:
        """The kept sections with bytes inside a fixed range (they stay where they are); refused where one was
        given contents of another size."""
        rm, contents = self._removed, self._content
        offs, sizes = self.cols[OFFSET], self.cols[SIZE]
        out = set()
        for i in order:
            if i < 0 or not eff[i] or rm[i] or in_fixed(offs[i], offs[i] + eff[i]) is None:
                continue
            out.add(i)
            c = contents.get(i)
            newsize = len(c) if c is not None else sizes[i]
            if newsize != sizes[i]:
                raise self._err(f"section lies inside a segment or is allocated: its size cannot change "
                                f"({sizes[i]} -> {newsize} bytes)", i)
        return out

    def _tail_and_moves(self, allc, total, bound, fixed, shoff, has_segments, new_off):
        """Add to ``allc`` the bytes past everything the headers describe and (a linked file) the bytes between
        sections that no header describes; note the moves.  Returns (total, bound) grown by the tail."""
        elf, cols = self.elf, self.cols
        n_orig = self._n_orig
        sh_in = elf.e_shoff if elf.e_shoff else len(self.data)
        sh_in_size = n_orig * self._shdr.size
        size_in = len(self.data)
        mv = memoryview(self.data)
        self.moves = []
        # (A relocatable object's sections and header table are packed after any change: that is its layout, not
        # reported.  In a linked file, offsets are something other tools may rely on: every move is.)
        if has_segments and elf.e_shoff and shoff != elf.e_shoff:
            self.moves.append(("(section header table)", elf.e_shoff, shoff, self._removed.count(0) * self._shdr.size))
        # Bytes past everything the headers describe (a signature, an appended archive, padding) are data: kept,
        # at their offset when the output reaches exactly there, else right after the output (a move, reported).
        covered = self._covered_end(fixed, sh_in, sh_in_size, linked=has_segments)
        if covered < size_in:
            tail = self._input_view(mv, covered, size_in)
            at = covered if total == covered else total
            if at != covered:
                self.moves.append(("(data after the last section)", covered, at, len(tail)))
            allc.append((at, tail))
            total = at + len(tail)
            bound += len(tail)
        if has_segments:
            rm, offs, types, sizes = self._removed, cols[OFFSET], cols[TYPE], cols[SIZE]
            for i in range(1, n_orig):
                size = 0 if types[i] == SHT_NOBITS else sizes[i]
                if not rm[i] and size and new_off[i] != offs[i] and offs[i] <= size_in:
                    self.moves.append((i, offs[i], new_off[i], size))
            allc[:0] = self._undescribed(fixed, sh_in, sh_in_size, allc, min(total, size_in), mv)
        return total, bound

    def _header_fields(self, new, shoff, total) -> tuple:
        """The ELF header fields to patch ((format, offset, values...)): e_shoff, e_shnum and e_shstrndx (extended
        numbering where needed or where the input used it), and e_phoff where an empty program header table
        would lie past the new end."""
        elf = self.elf
        rm = self._removed
        e = elf.endian
        shnum = rm.count(0)
        raw_shnum, raw_shstrndx = struct.unpack_from(e + "HH", self.data, 0x3C if self.is64 else 0x30)
        ns = new[self.shstrndx] if 0 <= self.shstrndx < len(rm) and not rm[self.shstrndx] else 0
        e_shnum = 0 if shnum >= SHN_LORESERVE or raw_shnum == 0 else shnum
        e_shstrndx = SHN_XINDEX if ns >= SHN_LORESERVE or raw_shstrndx == SHN_XINDEX else ns
        if self.is64:
            head = ((e + "Q", 0x28, shoff), (e + "HH", 0x3C, e_shnum, e_shstrndx))
        else:
            head = ((e + "I", 0x20, shoff), (e + "HH", 0x30, e_shnum, e_shstrndx))
        if not elf.e_phnum and elf.e_phoff > total and self._changes_anything():
            # An empty program header table at an offset past the new end (the output is smaller than the input):
            # LLVM's tools reject the file ("program headers are longer than binary"); no table is e_phoff 0.
            head += ((e + "Q", 0x20, 0) if self.is64 else (e + "I", 0x1C, 0),)
        return head

    def _fixed_ranges(self) -> list:
        """Byte ranges of the input that must stay where they are: [start, end] lists, sorted, disjoint."""
        elf = self.elf
        ehsize = 64 if self.is64 else 52
        size = len(self.data)
        ranges = [(0, ehsize)]
        if elf.e_phoff and elf.e_phnum:
            end = elf.e_phoff + elf.e_phnum * elf.e_phentsize
            if end > size:
                raise self._err(f"program header table ({elf.e_phnum} entries of {elf.e_phentsize} bytes at "
                                f"{elf.e_phoff:#x}) runs past the end of the file ({size:#x} bytes): cannot keep it "
                                f"in place", offset=0x20 if self.is64 else 0x1C)
            ranges.append((elf.e_phoff, end))
        for k, seg in enumerate(getattr(elf, "segments", [])):
            if seg["filesz"]:
                if seg["offset"] + seg["filesz"] > size:
                    raise self._err(f"program header {k}: segment contents ({seg['filesz']:#x} bytes at "
                                    f"{seg['offset']:#x}) run past the end of the file ({size:#x} bytes): cannot keep "
                                    f"the segment in place", offset=elf.e_phoff + k * elf.e_phentsize)
                ranges.append((seg["offset"], seg["offset"] + seg["filesz"]))
        if len(ranges) == 1:
            return [list(ranges[0])]
        return self._fixed_spans(ranges)

    def _fixed_spans(self, ranges) -> list:
        """A section with bytes that overlaps a fixed range stays where it is as a whole: its bytes inside the range
        cannot move, and its bytes outside it are copied with them.  So the fixed ranges are the spans of the
        connected groups of overlapping items (fixed ranges and sections with bytes) that hold a fixed range: a
        segment whose file range ends inside a section (lld's PT_GNU_RELRO with p_filesz = p_memsz, ending in
        .symtab) fixes that whole section.  Sorted by start, such a group is a run of items each starting before
        the furthest end of those before it."""
        elf, cols = self.elf, self.cols
        size = len(self.data)
        types, flags, offs, sizes = cols[TYPE], cols[FLAGS], cols[OFFSET], cols[SIZE]
        items = [(a, b, True) for a, b in ranges]
        if elf.e_shoff and elf.e_shoff < size:
            items.append((elf.e_shoff, min(elf.e_shoff + self._n_orig * self._shdr.size, size), False))
        for i in range(1, self._n_orig):
            if types[i] != SHT_NOBITS and sizes[i] and offs[i] < size:
                items.append((offs[i], min(offs[i] + sizes[i], size), bool(flags[i] & SHF_ALLOC)))
        items.sort()
        merged = []
        start, end, fixed = items[0]
        for a, b, f in items[1:]:
            if a < end:
                if b > end:
                    end = b
                fixed = fixed or f
            else:
                if fixed:
                    merged.append([start, end])
                start, end, fixed = a, b, f
        if fixed:
            merged.append([start, end])
        out = [merged[0]]           # (fixed ranges that touch are one)
        for a, b in merged[1:]:
            if a <= out[-1][1]:
                out[-1][1] = max(out[-1][1], b)
            else:
                out.append([a, b])
        return out

    def _undescribed(self, fixed, sh_in, sh_in_size, chunks, limit, mv) -> list:
        """(offset, view) pieces that keep the input's bytes no header describes -- not in a section (removed ones
        included), the section header table or a fixed range: padding, bytes between sections -- at their own
        offsets below ``limit``, wherever ``chunks`` put nothing there."""
        types, offs, sizes = self.cols[TYPE], self.cols[OFFSET], self.cols[SIZE]
        n = self._n_orig
        used = [(a, b) for a, b in fixed]
        if self.elf.e_shoff:
            used.append((sh_in, sh_in + sh_in_size))
        used += [(o, o + z) for o, z, t in zip(offs[:n], sizes[:n], types[:n]) if z and t != SHT_NOBITS]
        taken = [(o, o + len(b)) for o, b in chunks if len(b)]
        free = minus([(0, limit)], used)
        if not free:
            return []
        return [(a, self._input_view(mv, a, b)) for a, b in minus(free, taken)]

    def _input_view(self, mv, a: int, b: int):
        """``mv[a:b]`` (a view of the input), noted in ``_src`` when it is SEND_MIN bytes or more."""
        v = mv[a:b]
        if b - a >= common.SEND_MIN:
            self._src[id(v)] = (v, a)
        return v

    def _covered_end(self, fixed, sh_in, sh_in_size, linked=False) -> int:
        """Where the last byte that a header describes ends in the input: the ELF header, the program header
        table and segments (``fixed``), every section's contents (to the end of the file at most), the section
        header table."""
        size_in = len(self.data)
        n = self._n_orig
        types, offs, sizes = self.cols[TYPE][:n], self.cols[OFFSET][:n], self.cols[SIZE][:n]
        end = max(fixed[-1][1], sh_in + sh_in_size if self.elf.e_shoff else 0)
        if SHT_NOBITS in types or max(offs, default=0) >= size_in:
            # sections with bytes inside the input
            ends = [o + z for o, z, t in zip(offs, sizes, types) if z and t != SHT_NOBITS and o < size_in]
            if ends:
                end = max(end, max(ends))
        elif n and linked:
            # (sections with bytes: an empty one describes none, and bytes after the last byte a header describes
            # are the file's tail, even where an empty section's offset lies among them)
            end = max(end, max(compress(map(add, offs, sizes), sizes), default=0))
        elif n:
            end = max(end, max(map(add, offs, sizes)))
        return min(end, size_in)

    def _alignment(self, i: int) -> int:
        """The alignment to place section ``i`` at: sh_addralign, which must be 0, 1 or a power of two no larger
        than the input file (or than 64 KiB): a larger one cannot have been honoured by the input's layout,
        and would only pad the output."""
        a = self.cols[ALIGN][i]
        if a <= 1:
            return 1
        where = None
        if i < self._n_orig:
            where = self.elf.e_shoff + i * self._shdr.size + (0x30 if self.is64 else 0x20)
        if a & (a - 1):
            raise self._err(f"sh_addralign {a:#x} is not a power of two: cannot place the section (expected 0, 1 or "
                            f"a power of two)", i, where)
        if a > self._align_cap():
            raise self._err(f"sh_addralign {a:#x} is larger than the file ({len(self.data):#x} bytes) and than "
                            f"{MIN_ALIGN_CAP:#x}: cannot place the section (expected an alignment the input's own "
                            f"layout could honour)", i, where)
        return a

    def _align_cap(self) -> int:
        return max(len(self.data), MIN_ALIGN_CAP)

    def _size_bound(self, shsize, keep, aligns) -> int:
        """The most bytes any rewrite of this input can need: twice the input (each input byte copied once, and
        the input's own padding kept), the new contents, alignment padding (at most the input's size, or
        64 KiB: no more than the largest alignment less one for each kept section) and a new section header
        table.  ELF32 offsets are 32-bit as well."""
        cap = self._align_cap()
        contents = self._content
        grow = sum(len(c) for i, c in contents.items() if keep[i])
        most = max(aligns, default=0)
        pad = min((min(most, cap) - 1) * keep.count(1), cap) if most > 1 else 0
        bound = 2 * len(self.data) + grow + pad + shsize + 8
        return bound if self.is64 else min(bound, 0xFFFFFFFF)

    def _check_end(self, end, bound, index):
        """Refuse (before allocating anything) a layout that would reach past ``bound``."""
        if end <= bound:
            return
        s = self.sections[index] if index is not None else None
        what = "this section" if s is not None else "the section header table"
        raise self._err(f"the new layout would put {what} up to offset {end:#x}, past {bound:#x}, the most a rewrite "
                        f"of this {len(self.data):#x}-byte input can need (twice its size, plus the new contents, "
                        f"alignment padding and the section header table): overlapping or misplaced sections? "
                        f"(refused)", index, s.offset if s is not None and s.orig is not None else None)

    @staticmethod
    def _place(orig_off, size, align, pos, prev_end, in_fixed) -> int:
        """Where an item goes: its input offset while the output is still in step with the input, else after
        ``pos`` (keeping the input's padding), aligned, and clear of the fixed ranges."""
        align = max(align or 1, 1)
        if orig_off is not None and pos == prev_end and orig_off >= pos:
            cand = orig_off
        else:
            gap = max(0, orig_off - prev_end) if orig_off is not None else 0
            cand = align_up(pos + gap, align)
        while size:
            f = in_fixed(cand, cand + size)
            if f is None:
                break
            cand = align_up(f[1], align)
        if not size:
            f = in_fixed(cand, cand + 1)
            if f is not None and orig_off is None:
                cand = align_up(f[1], align)
        return cand

