"""The ELF writer's emission: the new section header table (kept rows copied from the input, the fields that
change stored over them), and the output as a list of buffers -- the placed pieces in offset order with zeros
between them, overlapping ones painted in priority order, the ELF header's fields patched in."""
import struct
from bisect import bisect_right
from itertools import compress, repeat
from operator import and_, itemgetter

from ..elf import SHN_LORESERVE, SHN_XINDEX
from . import common
from .common import FIELDS64, FLAGS, FLIP, INFO, LINK, OFFSET, REL_TYPES, SHF_INFO_LINK, SIZE


class Emission:
    """The header table and the output's buffers (mixed into the writer)."""

    def _header_table(self, new, new_off, shnum) -> bytes | bytearray:
        """The new section header table: kept sections in index order, with new offsets, sizes and the
        section indices in sh_link / sh_info (relocation targets, SHF_INFO_LINK) renumbered."""
        rm = self._removed
        keep = bytearray(rm.translate(FLIP))
        keep[0] = 0                         # (section 0 is done)
        row0 = self._section0_row(new, shnum)
        if keep.find(1) < 0:
            return row0

        def kept(k):
            return compress(self.cols[k], keep)
        sizes = None            # (the input's, unless a kept section has new contents)
        for i, c in self._content.items():
            if keep[i]:
                if sizes is None:
                    sizes = list(kept(SIZE))
                sizes[new[i] - 1] = len(c)
        links = self._moved_indices(new, list(kept(LINK)))
        # sh_info is a section index in relocation sections and where SHF_INFO_LINK says so; elsewhere (a group's
        # signature symbol, ...) it is something else and stays
        infos = list(kept(INFO))
        info_links = set(self._of_types(REL_TYPES)).union(
            compress(range(len(rm)), map(and_, self.cols[FLAGS], repeat(SHF_INFO_LINK))))
        rows = [new[i] - 1 for i in sorted(info_links) if keep[i]]       # (their rows in ``infos``)
        for k, x in zip(rows, self._moved_indices(new, [infos[k] for k in rows])):
            infos[k] = x
        out = self._kept_rows(keep, row0)
        changed = {OFFSET: list(compress(new_off, keep)), LINK: links, INFO: infos}
        if sizes is not None:
            changed[SIZE] = sizes
        rows = memoryview(out)[self._shdr.size:]
        for k, owned in enumerate(self._owned):
            values = changed.get(k)
            if values is None and owned:
                values = list(kept(k))
            if values is not None:
                self._store_column(rows, k, values)
        rows.release()
        return out

    def _section0_row(self, new, shnum) -> bytes:
        """Section 0's row: extended numbering where needed, and where the input used it.  (Without extended
        numbering sh_size is 0: a stray value would claim bytes at sh_offset that the output, perhaps smaller,
        lacks.)"""
        rm = self._removed
        raw_shnum, raw_shstrndx = struct.unpack_from(self.elf.endian + "HH", self.data, 0x3C if self.is64 else 0x30)
        ns = new[self.shstrndx] if 0 <= self.shstrndx < len(rm) and not rm[self.shstrndx] else 0
        nm, t, fl, addr, off, size, link, info, al, es = (c[0] for c in self.cols)
        ext_num = shnum >= SHN_LORESERVE or raw_shnum == 0
        ext_str = ns >= SHN_LORESERVE or raw_shstrndx == SHN_XINDEX
        return self._shdr.pack(nm, t, fl, addr, off, shnum if ext_num else 0, ns if ext_str else link, info, al, es)

    def _moved_indices(self, new, values) -> list:
        """``values`` with each one that names a kept section (section 0 aside) moved to its new index, anything else
        as it is: through a table of the distinct values (a few tables, or the relocations' targets)."""
        rm = self._removed
        n = len(rm)
        lut = {x: new[x] if 0 < x < n and not rm[x] else x for x in set(values)}
        return list(map(lut.__getitem__, values))

    def _kept_rows(self, keep, row0) -> bytearray:
        """Section 0's row, then the input's rows of the kept sections (runs of neighbours copied whole), then rows
        packed for the added ones: one buffer."""
        row = self._shdr.size
        n_orig = self._n_orig
        table = memoryview(self.data)[self.elf.e_shoff:self.elf.e_shoff + n_orig * row]
        out = bytearray(row0)
        i = keep.find(1, 0, n_orig)
        while i >= 0:
            j = keep.find(0, i, n_orig)
            if j < 0:
                j = n_orig
            out += table[i * row:j * row]
            i = keep.find(1, j, n_orig)
        for i in range(n_orig, len(keep)):
            if keep[i]:
                out += self._shdr.pack(*(c[i] for c in self.cols))
        return out

    def _store_column(self, table: bytearray, k: int, values: list) -> None:
        """Set header field ``k`` of every row of ``table`` (rows of section headers) from ``values``."""
        if self.is64:
            pos, code = FIELDS64[k]
        else:
            pos, code = 4 * k, "I"
        size = struct.calcsize(code)
        self._store_words(table, code, pos // size, self._shdr.size // size, values)

    @staticmethod
    def _assemble(chunks, total: int, head) -> bytes:
        """The output: ``total`` bytes, zero but where ``chunks`` ((offset, bytes), later ones winning where
        they overlap) put bytes, with the ELF header fields ``head`` ((format, offset, values...)) packed in."""
        return b"".join(Emission._parts(chunks, total, head))

    @staticmethod
    def _parts(chunks, total: int, head, src=None, copies=None) -> list:
        """:meth:`_assemble` as a list of buffers to be written one after the other (no copy of the input's
        bytes: slices of it stay views).  Chunks that do not overlap are taken in offset order with zeros
        between; overlapping ones are painted in priority order (later ones win).  ``src`` (id(view) -> (view,
        input offset)): views of the input whose offsets are known; ``copies`` is given (part index, input offset)
        of each of them that is a part, in order."""
        order = sorted(((o, b) for o, b in chunks if len(b)), key=itemgetter(0))
        if any(a[0] + len(a[1]) > b[0] for a, b in zip(order, order[1:])):
            order = Emission._paint(chunks)
        pieces, found = Emission._pieces(order, total, src)
        need = max(off + struct.calcsize(fmt) for fmt, off, *_ in head)
        # the ELF header fields: the first ``need`` bytes made as a small buffer of their own
        first = bytearray()
        popped = 0
        rest = None         # (input offset, bytes taken) of a noted view whose start went into ``first``
        while pieces and len(first) < need:
            p = pieces.pop(0)
            take = need - len(first)
            first += p[:take]
            if len(p) > take:
                pieces.insert(0, memoryview(p)[take:] if not isinstance(p, memoryview) else p[take:])
                rest = next(((a, take) for i, a in found if i == popped), None)
                break
            popped += 1
        if len(first) < need:
            first += bytes(need - len(first))
        for fmt, off, *values in head:
            struct.pack_into(fmt, first, off, *values)
        if copies is not None:
            # indices in the returned list: ``first`` comes before what is left of ``pieces``
            if rest is not None:
                copies.append((1, rest[0] + rest[1]))
            copies.extend((i - popped + 1, a) for i, a in found if i > popped or i == popped and rest is None)
        return [bytes(first)] + pieces

    @staticmethod
    def _pieces(order, total: int, src):
        """The buffers of ``order`` (non-overlapping (offset, buffer) pieces, in offset order) with zeros between
        them and up to ``total``, and (index in them, input offset) of each that is a noted view of the input."""
        pieces, pos = [], 0
        zeros = bytes(4096)
        found = []
        for o, b in order:
            if o > pos:
                gap = o - pos
                pieces.append(zeros[:gap] if gap <= 4096 else bytes(gap))
            n = len(b)
            if n >= common.SEND_MIN and src:
                e = src.get(id(b))
                if e is not None and e[0] is b:
                    found.append((len(pieces), e[1]))
            pieces.append(b)
            pos = o + n
        if pos < total:
            pieces.append(bytes(total - pos))
        return pieces, found

    @staticmethod
    def _paint(chunks) -> list:
        """Non-overlapping (offset, buffer) pieces, in offset order, of ``chunks`` where later ones win."""
        starts, items = [], []          # sorted, non-overlapping: items[k] = (start, end, buffer, base)
        for o, b in chunks:
            n = len(b)
            if not n:
                continue
            e = o + n
            k = bisect_right(starts, o) - 1
            if k >= 0 and items[k][1] <= o:
                k += 1
            k = max(k, 0)
            keep_left = keep_right = None
            j = k
            while j < len(items) and items[j][0] < e:
                a0, e0, b0, base0 = items[j]
                if a0 < o:
                    keep_left = (a0, o, b0, base0)
                if e0 > e:
                    keep_right = (e, e0, b0, base0)
                j += 1
            repl = [x for x in (keep_left, (o, e, b, o), keep_right) if x is not None]
            items[k:j] = repl
            starts[k:j] = [x[0] for x in repl]
        out = []
        for a0, e0, b0, base0 in items:
            if a0 == base0 and e0 - a0 == len(b0):
                out.append((a0, b0))
            else:
                mv = b0 if isinstance(b0, memoryview) else memoryview(b0)
                out.append((a0, mv[a0 - base0:e0 - base0]))
        return out
