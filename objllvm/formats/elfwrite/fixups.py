"""The ELF writer's fix-ups when sections go: which further sections the removal takes (relocation sections of a
removed target, groups left empty), the links that forbid it, group member lists, and the symbol tables -- st_shndx
moved to the new section indices, section symbols of removed sections nulled, and in a relocatable object the
symbols defined in removed sections dropped, with every index into the table renumbered (relocations,
SHT_SYMTAB_SHNDX, group signatures, and the sections the caller gave a renumberer)."""
import struct
from itertools import accumulate, chain, compress, groupby, repeat
from operator import and_, eq, itemgetter, lshift, or_, rshift

from ...errors import ObjllvmError
from ..elf import SHN_LORESERVE, SHN_XINDEX, SHT_CREL, SHT_GROUP, SHT_REL, SHT_RELA
from .common import (BATCH_BYTES, FLAGS, FLIP, GROUP_TYPES, INFO, LINK, REL_TYPES, SHF_INFO_LINK, SHF_LINK_ORDER,
                     SHNDX_TYPES, SIZE, STT_SECTION, SYMTAB_TYPES, TYPE, Flagged)


def moved_shndx(new, column) -> list:
    """``column`` (st_shndx values) with each section index below SHN_LORESERVE moved to its new index (``new``), a
    reserved one (and one past the table) as it is.  (A table of the values present, not of all 65,536: wins on the
    Lua and zstd objects of scripts/bench-rewrite.)"""
    lim = min(len(new), SHN_LORESERVE)
    lut = {v: new[v] if v < lim else v for v in set(column)}
    return list(map(lut.__getitem__, column))


class _SymbolTable:
    """One symbol table being fixed: its index, bytes, entry layout, st_shndx column and SHT_SYMTAB_SHNDX table."""
    __slots__ = ("si", "data", "st", "size", "nsyms", "column", "ext", "shndx_sec", "shndx_pos")


class FixUps:
    """Removal closure, reference checks and symbol-table fix-ups (mixed into the writer)."""

    # -- which sections go ----------------------------------------------------------------------
    def _closure(self) -> Flagged:
        """Finish the removal set: relocation sections of removed targets, groups left empty (to a fixed point;
        only relocation sections and groups can join the set).  Returns the removed sections (as their flags)."""
        rm = self._removed
        n = len(rm)
        infos = self.cols[INFO]
        self._members = {}
        rels = [i for i in self._of_types(REL_TYPES, 1) if not rm[i] and infos[i] < n]
        groups = [i for i in self._of_types(GROUP_TYPES, 1) if not rm[i]]
        # The groups' members as one column, with the group of each beside it; a member out of range counts as
        # gone (index n, flagged below).  A group with members goes when none of them is kept.
        tables = self._group_tables(groups)
        flat = list(chain.from_iterable(tables))
        if flat and max(flat) >= n:
            flat = [m if m < n else n for m in flat]
        owner = list(chain.from_iterable(map(repeat, groups, map(len, tables))))
        pending = set(compress(groups, tables))        # the kept groups with members
        while True:
            joined = [i for i in rels if not rm[i] and rm[infos[i]]]
            for i in joined:
                rm[i] = 1
            keep = (rm + b"\1").translate(FLIP)
            emptied = pending.difference(compress(owner, map(keep.__getitem__, flat)))
            if not joined and not emptied:
                return Flagged(bytes(rm))
            pending -= emptied
            for i in emptied:
                rm[i] = 1

    def _group_members(self, i: int) -> list:
        """The member indices of group ``i`` (read once)."""
        members = self._members.get(i)
        if members is None:
            b = self._plain(i)
            members = self._members[i] = self._words_of("I", b[4:len(b) // 4 * 4])
        return members

    def _group_tables(self, groups) -> list:
        """The member lists of ``groups``, read as one column and kept for :meth:`_group_members`.  A compressed
        group that does not decompress is read as stored and not kept: deciding whether it is left empty needs no
        more, rewriting its list does (and then fails)."""
        stored = []
        try:
            bodies = self._plain_many(groups)
        except ObjllvmError:
            bodies = []
            for i in groups:
                try:
                    bodies.append(self._plain(i))
                except ObjllvmError:
                    bodies.append(self.content(i))
                    stored.append(i)
        bodies = [b[:len(b) // 4 * 4] for b in bodies]          # (whole words)
        words = self._words_of("I", b"".join(bodies))
        ends = list(accumulate(map(len, bodies), initial=0))
        # each group's words after its flag word
        out = [words[a // 4 + 1:b // 4] for a, b in zip(ends, ends[1:])]
        self._members.update(zip(groups, out))
        for i in stored:
            del self._members[i]
        return out

    # -- references -----------------------------------------------------------------------------
    def _check_and_fix_references(self, new, removed) -> None:
        """Refuse a kept section that links to a removed one; fix every kept symbol table and group."""
        self._check_links(removed)
        self._check_extended_indices()
        rm = self._removed
        for i in self._of_types(SYMTAB_TYPES):
            if not rm[i]:
                self._fix_symbols(i, new, removed)
        self._fix_groups(new)

    def _fix_groups(self, new) -> None:
        """Every kept group's member list without its removed members, the others at their new indices (the new
        lists written as one column)."""
        rm = self._removed
        n = len(rm)
        groups = [i for i in self._of_types(GROUP_TYPES) if not rm[i]]
        lists = [self._group_members(i) for i in groups]
        kept = [[new[m] for m in members if m < n and not rm[m]] for members in lists]
        changed = [k for k, (a, b) in enumerate(zip(kept, lists)) if a != b]
        words = self._packed("I", [m for k in changed for m in kept[k]])
        at = 0
        for k, old in zip(changed, self._plain_many([groups[k] for k in changed])):
            size = 4 * len(kept[k])
            self._store(groups[k], old[:4] + words[at:at + size])
            at += size

    def _check_links(self, removed) -> None:
        """Refuse a kept section that links (sh_link, or sh_info with SHF_INFO_LINK) to a removed one: the first
        such section in index order (section 0 aside)."""
        rm = self._removed
        n = len(rm)
        flags, links, infos = self.cols[FLAGS], self.cols[LINK], self.cols[INFO]
        keep = rm.translate(FLIP)
        # the distinct sh_link values, and sh_info values where SHF_INFO_LINK says they are section indices
        info_links = set(compress(compress(infos, keep), map(and_, compress(flags, keep), repeat(SHF_INFO_LINK))))
        if removed.isdisjoint(set(compress(links, keep))) and removed.isdisjoint(info_links):
            return
        for i in compress(range(1, n), keep[1:]):
            link, info = links[i], infos[i]
            if link and link in removed:
                what = "links to" if not flags[i] & SHF_LINK_ORDER else "is ordered after (SHF_LINK_ORDER)"
                raise self._err(f"section [{i}] {self.name(i)} {what} section [{link}] {self.name(link)}, "
                                f"which would be removed (remove it too, or keep the target)", link)
            if info and info in removed and (flags[i] & SHF_INFO_LINK):
                raise self._err(f"section [{i}] {self.name(i)} refers (sh_info) to section [{info}] "
                                f"{self.name(info)}, which would be removed", info)

    def _check_extended_indices(self) -> None:
        """Refuse removing an SHT_SYMTAB_SHNDX table whose symbol table is kept and names sections through it
        (st_shndx SHN_XINDEX): those symbols would lose their sections."""
        rm, links, types = self._removed, self.cols[LINK], self.cols[TYPE]
        for k in self._of_types(SHNDX_TYPES, 1):
            si = links[k]
            if rm[k] and 0 < si < len(rm) and not rm[si] and types[si] in SYMTAB_TYPES \
                    and SHN_XINDEX in self._symbol_table(si).column:
                raise self._err(f"this SHT_SYMTAB_SHNDX table holds the section indices of symbols of section [{si}] "
                                f"{self.name(si)} (st_shndx SHN_XINDEX), which is kept: they would lose their "
                                f"sections (refused)", k)

    # -- symbol tables --------------------------------------------------------------------------
    def _symbol_table(self, si: int) -> _SymbolTable:
        t = _SymbolTable()
        t.si = si
        t.st = struct.Struct(self.elf.endian + ("IBBHQQ" if self.is64 else "IIIBBH"))
        t.size = t.st.size
        t.data = self._plain(si)
        t.nsyms = len(t.data) // t.size
        rm, links = self._removed, self.cols[LINK]
        t.shndx_sec = next((k for k in self._of_types(SHNDX_TYPES) if not rm[k] and links[k] == si), None)
        t.ext = bytearray(self._plain(t.shndx_sec)) if t.shndx_sec is not None else None
        t.shndx_pos = 6 if self.is64 else 14    # st_shndx offset inside an entry
        t.column = self._field(t.data[:t.nsyms * t.size], t.size, t.shndx_pos, "H")      # st_shndx of every symbol
        return t

    def _fix_symbols(self, si: int, new, removed) -> None:
        """Symbol table ``si`` after the removal: st_shndx moved to the new section indices; where a symbol is
        defined in a removed section, the symbols of the removed sections dropped (a relocatable object), else
        section symbols nulled and anything else refused (:meth:`_walk_symbols`)."""
        t = self._symbol_table(si)
        values = set(t.column)
        low = removed.low
        if SHN_XINDEX not in values:
            # no symbol refers to a section at or after the first removed one: nothing moves
            if not any(low <= v < SHN_LORESERVE for v in values):
                return
            if removed.isdisjoint(values):
                # no symbol in a removed section: every st_shndx that names a section moves to its new index
                col2 = moved_shndx(new, t.column)
                if col2 != t.column:
                    self._store(si, self._with_field(t.data, t.size, t.shndx_pos, "H", col2))
                return
            if self.elf.is_relocatable:
                # a symbol (not a section's) in a removed section: the symbols of the removed sections go
                real = self._real_shndx(t.column, None)
                gone = removed.flags_of(real)       # 1 for each symbol in a removed section
                if self._defines_in_removed(gone, t.data, t.size):
                    self._drop_symbols(t, new, removed, real, gone)
                    return
        self._walk_symbols(t, new, removed)

    def _walk_symbols(self, t: _SymbolTable, new, removed) -> None:
        """:meth:`_fix_symbols` symbol by symbol, through SHT_SYMTAB_SHNDX: a section symbol of a removed section
        becomes a null local symbol (no index moves); another symbol there is dropped with the others of the
        removed sections in a relocatable object, and refused elsewhere."""
        n = len(self._removed)
        si, data, st, ext = t.si, t.data, t.st, t.ext
        u16 = struct.Struct(self.elf.endian + "H")
        out = None
        neutral = []
        for k, shndx in enumerate(t.column):
            real = shndx
            if shndx == SHN_XINDEX:
                if ext is None or 4 * k + 4 > len(ext):
                    continue
                real = self._u32.unpack_from(ext, 4 * k)[0]
            elif shndx == 0 or shndx >= SHN_LORESERVE:
                continue
            if real in removed:
                v = st.unpack_from(data, k * st.size)
                nm, info = (v[0], v[1]) if self.is64 else (v[0], v[3])
                if info & 0xF == STT_SECTION:
                    neutral.append(k)
                    continue
                if self.elf.is_relocatable:
                    # a relocatable object: the symbols of the removed sections go, if nothing kept uses them
                    # (from the table as read: the loop so far may have renumbered some of ``ext``)
                    t.ext = bytearray(self._plain(t.shndx_sec)) if t.shndx_sec is not None else None
                    self._drop_symbols(t, new, removed)
                    return
                name = self._symbol_name(si, nm)
                raise self._err(f"symbol {name!r} (index {k}) is defined in section [{real}] {self.name(real)}, "
                                f"which would be removed (refused: the symbol would dangle)", real)
            nr = new[real] if real < n else real
            if nr == real:
                continue
            if out is None:
                out = bytearray(data)
            if shndx == SHN_XINDEX:
                self._u32.pack_into(ext, 4 * k, nr)
            else:
                u16.pack_into(out, k * st.size + t.shndx_pos, nr)
        if neutral:
            out = self._null_section_symbols(t, neutral, out)
        if out is not None:
            self._store(si, bytes(out))
        if ext is not None and bytes(ext) != self._plain(t.shndx_sec):
            self._store(t.shndx_sec, bytes(ext))

    def _null_section_symbols(self, t: _SymbolTable, neutral: list, out):
        """The section symbols ``neutral`` of removed sections as null local symbols in ``out`` (the table's new
        bytes, None: not made yet), refused where a kept relocation uses one; the sections with a renumberer
        told that they are gone (no other index moves).  Returns ``out``."""
        size = t.size
        used = self._symbols_used_by_relocations(t.si)
        for k in neutral:
            if k in used:
                raise self._err(f"the section symbol (index {k}) of a removed section is used by a kept "
                                f"relocation (refused)", t.si)
            if out is None:
                out = bytearray(t.data)
            out[k * size:(k + 1) * size] = bytes(size)
            if t.ext is not None and 4 * k + 4 <= len(t.ext):
                self._u32.pack_into(t.ext, 4 * k, 0)
        mapping = list(range(t.nsyms))
        for k in neutral:
            mapping[k] = -1
        edits, problems = self._renumbered_by_callers(self._symbol_users(t.si), mapping)
        if problems:
            i, k, how = min(problems, key=itemgetter(0))
            if isinstance(how, ObjllvmError):
                raise how
            raise self._err(f"the section symbol (index {k}) of a removed section is used by kept section [{i}] "
                            f"{self.name(i)} (refused)", i)
        for i, b in edits.items():
            self._store(i, b)
        return out

    def _real_shndx(self, column, ext) -> list:
        """The section of every symbol (``column``: the st_shndx values) through SHT_SYMTAB_SHNDX (``ext``) when
        extended; 0 where none.  (A table of the values present: a section index stays, a reserved one is 0.)"""
        lut = {x: x if x < SHN_LORESERVE else 0 for x in set(column)}
        real = list(map(lut.__getitem__, column))
        if ext is not None and SHN_XINDEX in lut:
            words = self._ext_words(ext, len(column))
            for k in compress(range(len(column)), map(eq, column, repeat(SHN_XINDEX))):
                real[k] = words[k]
        return real

    def _ext_words(self, ext, count: int) -> list:
        """The first ``count`` words of an SHT_SYMTAB_SHNDX table (0 past its end)."""
        out = self._words_of("I", bytes(ext[:min(len(ext) // 4, count) * 4]))
        out += repeat(0, count - len(out))
        return out

    def _defines_in_removed(self, gone, data, size) -> bool:
        """Whether a symbol other than a section symbol is defined in a removed section (``gone``: 1 for each symbol
        defined in one, 0 for the others)."""
        info = data[(4 if self.is64 else 12):len(gone) * size:size]      # st_info
        return any(info[k] & 0xF != STT_SECTION for k in compress(range(len(gone)), gone))

    def _symbol_users(self, si: int) -> list:
        """The kept sections (section 0 aside) whose sh_link is symbol table ``si``."""
        keep = bytearray(self._removed.translate(FLIP))
        keep[0] = 0
        # the kept sections, then those of them that link to ``si``
        return list(compress(compress(range(len(keep)), keep), map(eq, compress(self.cols[LINK], keep), repeat(si))))

    # -- dropping symbols -----------------------------------------------------------------------
    def _drop_symbols(self, t: _SymbolTable, new, removed, real=None, gone=None) -> None:
        """Symbol table ``t`` of a relocatable object without the symbols defined in removed sections (section
        symbols too): the kept ones renumbered in order (locals stay first; sh_info is the new first global),
        with every kept user of symbol indices rewritten -- REL/RELA relocations, SHT_SYMTAB_SHNDX, group
        signatures, and the sections given a renumberer.  A dropped symbol that a kept relocation, group
        signature or renumbered section needs is refused, as are kept SHT_CREL relocations on this table (this
        writer does not rewrite them).  ``real``: the section of every symbol, and ``gone``: 1 for each symbol in a
        removed section, when the caller has them."""
        if real is None:
            real = self._real_shndx(t.column, t.ext)
        flags = bytearray(removed.flags_of(real) if gone is None else gone)     # 1 for each dropped symbol
        flags[0] = 0        # (symbol 0 never)
        flags = bytes(flags)
        dropped = Flagged(flags)
        keep = flags.translate(FLIP)
        mapping = list(accumulate(keep, initial=-1))       # old index -> new one, -1 for a dropped symbol
        del mapping[0]
        any(map(mapping.__setitem__, compress(range(t.nsyms), flags), repeat(-1)))     # (each step gives None)
        users = self._symbol_users(t.si)
        types = self.cols[TYPE]
        # the users by type, each list in index order
        by_type = {k: list(g) for k, g in groupby(sorted(users, key=types.__getitem__), types.__getitem__)}
        edits, problems = self._renumbered_users(users, by_type, dropped, mapping, t.nsyms)
        if problems:
            i, k, how = min(problems, key=itemgetter(0))
            if isinstance(how, ObjllvmError):
                raise how
            self._refuse_dropped(t, real, k, how, i)
        for i, b in edits.items():
            self._store(i, b)
        infos = self.cols[INFO]
        signatures = [(i, mapping[infos[i]]) for i in by_type.get(SHT_GROUP, ())
                      if infos[i] < t.nsyms and mapping[infos[i]] != infos[i]]
        if signatures:
            infos = self._own_column(INFO)
            for i, k in signatures:
                infos[i] = k
        self._write_kept_symbols(t, new, keep, flags)

    def _renumbered_users(self, users, by_type, dropped, mapping, nsyms):
        """({index: new bytes} of the ``users`` of the symbol table whose contents change, [(section, dropped
        symbol, how it uses it)] of those that need a dropped symbol).  ``by_type``: the users by sh_type."""
        edits = {}
        problems = [(i, dropped.low, "crel") for i in by_type.get(SHT_CREL, ())]
        groups = by_type.get(SHT_GROUP, [])
        signatures = list(map(self.cols[INFO].__getitem__, groups))
        problems += [(i, k, "the signature of kept group")
                     for i, k in compress(zip(groups, signatures), dropped.flags_of(signatures))]
        sizes = self.cols[SIZE]
        for t in (SHT_REL, SHT_RELA):
            batch, size = [], 0
            for i in by_type.get(t, []) + [None]:
                if batch and (i is None or size + sizes[i] > BATCH_BYTES):
                    self._renumber_relocations(t, batch, mapping, nsyms, edits, problems)
                    batch, size = [], 0
                if i is not None:
                    batch.append(i)
                    size += sizes[i]
        more, found = self._renumbered_by_callers(users, mapping)
        edits.update(more)
        return edits, problems + found

    def _renumbered_by_callers(self, users, mapping):
        """({index: new bytes}, problems) of the ``users`` given a renumberer (:meth:`set_symbol_renumberer`)."""
        edits, problems = {}, []
        for i in sorted(set(users).intersection(self._renumberers)):
            fn = self._renumberers[i]
            try:
                old = self._plain(i)
                b = fn(old, mapping)
            except LookupError as exc:      # (index, and how the section uses it where the renumberer says)
                args = tuple(exc.args) + (-1, "kept section")[len(exc.args):]
                problems.append((i, args[0], args[1]))
                continue
            except ObjllvmError as exc:     # (raised in index order with the refusals)
                problems.append((i, -1, exc.located(file=self.path, member=self.elf.member, section_index=i,
                                                    section_name=self.name(i))))
                continue
            if b != old:
                edits[i] = bytes(b)
        return edits, problems

    def _renumber_relocations(self, t, idx, mapping, nsyms, edits, problems) -> None:
        """The REL/RELA sections ``idx`` (of type ``t``) with their symbol indices renumbered by ``mapping``, as one
        column: their new bytes into ``edits`` (those that change), or for each section that uses a dropped symbol
        the least such symbol into ``problems``.  Bytes after the last whole entry stay."""
        rela = t == SHT_RELA
        size = (24 if rela else 16) if self.is64 else (12 if rela else 8)
        parts = self._plain_many(idx)
        wholes = [len(p) // size * size for p in parts]
        raw = b"".join(p[:w] for p, w in zip(parts, wholes))
        step = size // 4
        # 64-bit: r_sym is the high half of r_info, a word of its own; 32-bit: r_info = r_sym << 8 | r_type
        at = (12 if self.elf.endian == "<" else 8) // 4 if self.is64 else 1
        info = self._column_of(raw, "I", at, step)
        syms = info if self.is64 else list(map(rshift, info, repeat(8)))
        try:
            new_syms = list(map(mapping.__getitem__, syms))    # IndexError: an index past the table
            if -1 in new_syms:                                 # a dropped symbol
                raise IndexError
        except IndexError:
            new_syms = self._renumbered_or_refused(idx, wholes, size, syms, mapping, nsyms, problems)
            if new_syms is None:
                return
        if new_syms == syms:
            return
        if not self.is64:
            new_syms = list(map(or_, map(lshift, new_syms, repeat(8)), map(and_, info, repeat(0xFF))))
        nb = bytearray(raw)
        self._store_words(nb, "I", at, step, new_syms)
        nb = bytes(nb)
        end = 0
        for i, p, w in zip(idx, parts, wholes):
            piece = nb[end:end + w]
            end += w
            if w != len(p):
                piece += p[w:]
            if piece != p:
                edits[i] = piece

    @staticmethod
    def _renumbered_or_refused(idx, wholes, size, syms, mapping, nsyms, problems):
        """:meth:`_renumber_relocations`' new symbol indices where some index lies past the table (it stays as it
        is); None where a dropped symbol is used, with each section that uses one, and the least such symbol, put
        in ``problems``."""
        new_syms = [mapping[x] if x < nsyms else x for x in syms]
        if -1 not in new_syms:
            return new_syms
        end = 0
        for i, w in zip(idx, wholes):
            a, end = end, end + w // size
            used = [x for x, y in zip(syms[a:end], new_syms[a:end]) if y < 0]
            if used:
                problems.append((i, min(used), "kept relocation section"))
        return None

    def _refuse_dropped(self, t: _SymbolTable, real, k: int, how: str, where: int):
        if how == "crel":
            raise self._err(f"symbols defined in removed sections would have to go, and this writer cannot "
                            f"renumber the symbols of SHT_CREL relocations (refused; first such symbol: index "
                            f"{k})", where)
        nm = t.st.unpack_from(t.data, k * t.size)[0] if 0 <= k < t.nsyms else 0
        what = self._symbol_name(t.si, nm)
        what = f"symbol {what!r}" if what else "the section symbol"
        sec = real[k] if 0 <= k < len(real) else 0
        raise self._err(f"{what} (index {k}) is defined in section [{sec}] "
                        f"{self.name(sec)}, which would be removed, but {how} [{where}] {self.name(where)} "
                        f"uses it (refused: the symbol would dangle)", sec)

    def _write_kept_symbols(self, t: _SymbolTable, new, keep: bytes, flags: bytes) -> None:
        """Store symbol table ``t`` with only the rows ``keep`` marks (their st_shndx moved to the new section
        indices), its SHT_SYMTAB_SHNDX table to match, and sh_info (the first global) less the locals dropped."""
        rm = self._removed
        n = len(rm)
        size, nsyms = t.size, t.nsyms
        table = t.data[:nsyms * size]
        col2 = moved_shndx(new, t.column)
        if col2 != t.column:
            table = self._with_field(table, size, t.shndx_pos, "H", col2)
        mv = memoryview(table)
        parts = []
        i = keep.find(1)
        while i >= 0:           # the runs of kept rows
            j = keep.find(0, i)
            if j < 0:
                j = nsyms
            parts.append(mv[i * size:j * size])
            i = keep.find(1, j)
        parts.append(t.data[nsyms * size:])
        self._store(t.si, b"".join(parts))
        if t.ext is not None:
            words = list(compress(self._ext_words(t.ext, nsyms), keep))
            is_x = [x == SHN_XINDEX for x in compress(t.column, keep)]
            # (a kept section's word moves to its new index; 0 and anything else stays)
            words = [new[r] if x and 0 < r < n and not rm[r] else r for x, r in zip(is_x, words)]
            self._store(t.shndx_sec, self._packed("I", words))
        first_global = self.cols[INFO][t.si]
        self._own_column(INFO)[t.si] = first_global - flags.count(1, 0, first_global)

    def _symbols_used_by_relocations(self, si) -> set:
        used = set()
        rm = self._removed
        types, links, infos = self.cols[TYPE], self.cols[LINK], self.cols[INFO]
        for i in range(len(rm)):
            t = types[i]
            if not rm[i] and t == SHT_CREL and links[i] == si:
                raise self._err("a removed section has a section symbol, and this writer cannot tell whether the "
                                "SHT_CREL relocations use it (refused)", i)
            if rm[i] or t not in (SHT_REL, SHT_RELA) or links[i] != si:
                continue
            b = self._plain(i)
            if self.is64:
                st = struct.Struct(self.elf.endian + ("QQq" if t == SHT_RELA else "QQ"))
                used.update(v[1] >> 32 for v in st.iter_unpack(b[:len(b) // st.size * st.size]))
            else:
                st = struct.Struct(self.elf.endian + ("IIi" if t == SHT_RELA else "II"))
                used.update(v[1] >> 8 for v in st.iter_unpack(b[:len(b) // st.size * st.size]))
        for i in range(len(rm)):
            if not rm[i] and types[i] == SHT_GROUP and links[i] == si:
                used.add(infos[i])
        return used

    def _symbol_name(self, si, nm) -> str:
        link = self.cols[LINK][si]
        if not 0 < link < len(self._removed):
            return f"#{nm}"
        try:
            b = self._plain(link)
        except ObjllvmError:        # (only for the message: the stored bytes then)
            b = self.content(link)
        end = b.find(b"\0", nm)
        return b[nm:end if end >= 0 else len(b)].decode("utf-8", "replace")
