"""A small ELF writer: remove, resize, replace or add non-allocated sections without moving anything loadable.

It works on ET_REL, ET_EXEC and ET_DYN files, 32/64-bit, both byte orders::

    w = ElfWriter(ElfFile(data, path))
    w.remove(w.index_of(".llvm_addrsig"))        # also drops the relocation sections that target it
    w.set_content(w.index_of(".deplibs"), b"m\\0")
    out = w.write()                              # bytes of the new file (the input is not touched)

What ``write`` keeps consistent when sections disappear or indices shift: section header indices,
``sh_link``/``sh_info``, ``st_shndx`` of every symbol in every symbol table (through SHT_SYMTAB_SHNDX when
extended), SHT_GROUP member lists (a removed member leaves its group; a group left empty goes too),
``e_shstrndx`` and extended numbering (``e_shnum``/``e_shstrndx`` in section 0).

Layout: the ELF header, the program headers, every segment's bytes and every allocated section stay at
their file offsets (files with program headers).  Relocatable objects have no segments: their sections are
packed in their original file order, each at its alignment.  Other sections keep their original order and
the padding that preceded them; where nothing changed before a section, it keeps its exact offset, so a
rewrite with no change is byte-identical.  Sections that are not touched (SHF_COMPRESSED ones too) are
copied as they are.

Refused with an :class:`~objllvm.errors.ObjllvmError`: changing the size of an allocated section or of a
section inside a segment, removing a section that a kept section links to, that defines a (non-section)
symbol, or whose section symbol a kept relocation uses; removing the section name table or a symbol table
that something uses.

Hostile input: the writer never allocates by an untrusted size.  The program header table and every segment
must lie inside the input file; a section placed at a new offset must have an sh_addralign of 0, 1 or a
power of two no larger than the input (or 64 KiB); an empty or SHT_NOBITS section whose sh_offset is past the
end keeps it and moves nothing else there; and the output may not pass twice the input's size plus the new
contents, alignment padding and a section header table (overlapping sections would be copied once each).
Each is refused with an ObjllvmError naming the section (or program header) and the offset.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

from .containers.elf import (SHF_ALLOC, SHF_COMPRESSED, SHN_LORESERVE, SHN_XINDEX, SHT_CREL, SHT_DYNSYM,
                             SHT_GROUP, SHT_NOBITS, SHT_REL, SHT_RELA, SHT_SYMTAB, SHT_SYMTAB_SHNDX, ElfFile)
from .errors import ObjllvmError

SHF_INFO_LINK = 0x40
SHF_LINK_ORDER = 0x80
SHF_EXCLUDE = 0x80000000
STT_SECTION = 3
MIN_ALIGN_CAP = 1 << 16      # sh_addralign up to this (or up to the input's size) is honoured when placing
_REL_TYPES = frozenset((SHT_REL, SHT_RELA, SHT_CREL))
_CLOSURE_TYPES = _REL_TYPES | {SHT_GROUP}


@dataclass(slots=True)
class WSection:
    """One section header as the writer holds it (``orig`` is the index in the input, None when added)."""
    orig: int | None
    name_off: int
    name: str
    type: int
    flags: int
    addr: int
    offset: int
    size: int
    link: int
    info: int
    addralign: int
    entsize: int
    content: bytes | None = None     # new stored bytes (None: the input's bytes, as they are)
    removed: bool = False

    @property
    def alloc(self) -> bool:
        return bool(self.flags & SHF_ALLOC)


def _align(x: int, a: int) -> int:
    return x if a <= 1 else (x + a - 1) // a * a


class ElfWriter:
    """Edit the section table of one ELF file and produce the new file's bytes."""

    def __init__(self, elf: ElfFile):
        if not isinstance(elf, ElfFile):
            raise ObjllvmError("only ELF files can be rewritten", file=getattr(elf, "path", None))
        self.elf = elf
        self.data = elf.data
        self.path = elf.path
        e = elf.endian
        self.is64 = elf.is64
        self._shdr = elf._shdr
        self._u32 = struct.Struct(e + "I")
        self.sections: list[WSection] = []
        n = len(elf.sections)
        table = self.data[elf.e_shoff:elf.e_shoff + n * self._shdr.size] if n else b""
        append = self.sections.append
        for s, (nm, t, fl, addr, off, size, link, info, al, es) in zip(elf.sections, self._shdr.iter_unpack(table)):
            append(WSection(s.index, nm, s.name, t, fl, addr, off, size, link, info, al, es))
        self.shstrndx = elf.e_shstrndx
        self._rel_by_target = None
        self._rel_count = 0

    # -- queries -------------------------------------------------------------------------------
    def _err(self, msg, index=None, offset=None):
        name = self.sections[index].name if index is not None and index < len(self.sections) else None
        return ObjllvmError(msg, file=self.path, member=self.elf.member, section_index=index,
                            section_name=name, offset=offset)

    def index_of(self, name: str) -> int:
        for i, s in enumerate(self.sections):
            if s.name == name and not s.removed:
                return i
        raise self._err(f"no section named {name!r}")

    def content(self, index: int) -> bytes:
        """The stored bytes of a section (its new content when set)."""
        s = self.sections[index]
        if s.content is not None:
            return s.content
        if s.type == SHT_NOBITS or s.orig is None:
            return b""
        return self.data[s.offset:s.offset + s.size]

    def relocation_sections_for(self, index: int) -> list:
        """The kept REL/RELA/CREL sections whose target (sh_info) is section ``index``."""
        if self._rel_by_target is None or self._rel_count != len(self.sections):
            by = {}
            for i, s in enumerate(self.sections):
                if i and s.type in (SHT_REL, SHT_RELA, SHT_CREL) and s.info:
                    by.setdefault(s.info, []).append(i)
            self._rel_by_target, self._rel_count = by, len(self.sections)
        return [i for i in self._rel_by_target.get(index, ()) if not self.sections[i].removed]

    # -- edits ---------------------------------------------------------------------------------
    def remove(self, index: int, *, with_relocations: bool = True) -> list:
        """Mark a section (and the relocation sections that target it) removed; returns the indices."""
        if not 0 < index < len(self.sections):
            raise self._err(f"no section with index {index}")
        out = [index]
        self.sections[index].removed = True
        if with_relocations:
            for r in self.relocation_sections_for(index):
                self.sections[r].removed = True
                out.append(r)
        return out

    def set_content(self, index: int, data: bytes) -> None:
        """Replace a section's bytes (stored as given: an SHF_COMPRESSED section is written uncompressed)."""
        s = self.sections[index]
        if s.type == SHT_NOBITS:
            raise self._err("SHT_NOBITS section has no contents to replace", index)
        if s.alloc and len(data) != s.size:
            raise self._err(f"allocated section: changing its size ({s.size} -> {len(data)} bytes) would move "
                            f"loaded code or data (refused)", index)
        s.content = bytes(data)
        if s.flags & SHF_COMPRESSED:
            s.flags &= ~SHF_COMPRESSED

    def add_section(self, name: str, sh_type: int, data: bytes, *, flags: int = 0, addralign: int = 1,
                    entsize: int = 0, link: int = 0, info: int = 0) -> int:
        """Append a non-allocated section (its name goes at the end of the section name table)."""
        if flags & SHF_ALLOC:
            raise self._err(f"cannot add allocated section {name!r}: that would need a new segment")
        if not 0 < self.shstrndx < len(self.sections):
            raise self._err("the file has no section name table: cannot name a new section")
        strtab = bytearray(self.content(self.shstrndx))
        name_off = len(strtab)
        strtab += name.encode("utf-8", "surrogateescape") + b"\0"
        self.set_content(self.shstrndx, bytes(strtab))
        self.sections.append(WSection(None, name_off, name, sh_type, flags, 0, 0, len(data), link, info,
                                      addralign, entsize, bytes(data)))
        return len(self.sections) - 1

    def encode_relocations(self, index: int, relocs) -> bytes:
        """The bytes of REL/RELA section ``index`` holding ``relocs`` (objects with offset/type/sym/addend)."""
        s = self.sections[index]
        rela = s.type == SHT_RELA
        if s.type not in (SHT_REL, SHT_RELA):
            raise self._err("not a REL or RELA section", index)
        e = self.elf.endian
        if self.is64:
            st, shift = struct.Struct(e + ("QQq" if rela else "QQ")), 32
        else:
            st, shift = struct.Struct(e + ("IIi" if rela else "II")), 8
        out = []
        for r in relocs:
            info = (r.sym << shift) | r.type
            out.append(st.pack(r.offset, info, r.addend or 0) if rela else st.pack(r.offset, info))
        return b"".join(out)

    # -- write ---------------------------------------------------------------------------------
    def _closure(self):
        """Finish the removal set: relocation sections of removed targets, groups left empty."""
        secs = self.sections
        n = len(secs)
        # Only relocation sections and groups can join the set: visit those (in index order, as before).
        cands = [(i, s) for i, s in enumerate(secs) if s.type in _CLOSURE_TYPES and i]
        changed = True
        while changed:
            changed = False
            for i, s in cands:
                if s.removed:
                    continue
                if s.type != SHT_GROUP:
                    if 0 < s.info < n and secs[s.info].removed:
                        s.removed = changed = True
                else:
                    members = self._group_members(i)
                    if members and all(secs[m].removed for m in members if m < n):
                        s.removed = changed = True

    def _group_members(self, i: int) -> list:
        b = self.content(i)
        n = len(b) // 4
        return [self._u32.unpack_from(b, 4 * k)[0] for k in range(1, n)]

    def write(self) -> bytes:
        secs = self.sections
        if not secs:
            return bytes(self.data)       # no section header table: nothing this writer can change
        self._closure()
        if secs and secs[0].removed:
            raise self._err("section 0 cannot be removed", 0)
        newidx, n = {}, 0
        removed, kept = set(), []
        for i, s in enumerate(secs):
            if s.removed:
                removed.add(i)
            else:
                newidx[i] = n
                n += 1
                kept.append(i)
        if removed:
            self._check_and_fix_references(newidx, removed)
        if self.shstrndx in removed:
            raise self._err("the section name table cannot be removed", self.shstrndx)
        return self._layout(kept, newidx)

    def _check_and_fix_references(self, newidx, removed):
        secs = self.sections
        symtabs, groups = [], []
        for i, s in enumerate(secs):
            if s.removed:
                continue
            t = s.type
            if t == SHT_SYMTAB or t == SHT_DYNSYM:
                symtabs.append(i)
            elif t == SHT_GROUP:
                groups.append(i)
            if i == 0:
                continue
            if s.link and s.link in removed:
                what = "links to" if not s.flags & SHF_LINK_ORDER else "is ordered after (SHF_LINK_ORDER)"
                raise self._err(f"section [{i}] {s.name} {what} section [{s.link}] {secs[s.link].name}, which "
                                f"would be removed (remove it too, or keep the target)", s.link)
            if s.info and s.info in removed and (s.flags & SHF_INFO_LINK):
                raise self._err(f"section [{i}] {s.name} refers (sh_info) to section [{s.info}] "
                                f"{secs[s.info].name}, which would be removed", s.info)
        # Symbols defined in removed sections.
        for i in symtabs:
            self._fix_symbols(i, newidx, removed)
        # Group member lists.
        for i in groups:
            s = secs[i]
            b = self.content(i)
            if len(b) < 4:
                continue
            members = self._group_members(i)
            new = [newidx[m] for m in members if m in newidx]
            if new != members:
                e = self.elf.endian
                s.content = b[:4] + struct.pack(f"{e}{len(new)}I", *new)

    def _fix_symbols(self, si, newidx, removed):
        secs = self.sections
        e = self.elf.endian
        st = struct.Struct(e + ("IBBHQQ" if self.is64 else "IIIBBH"))
        data = self.content(si)
        nsyms = len(data) // st.size
        shndx_sec = next((k for k, x in enumerate(secs) if not x.removed and x.type == SHT_SYMTAB_SHNDX
                          and x.link == si), None)
        ext = bytearray(self.content(shndx_sec)) if shndx_sec is not None else None
        shndx_pos = 6 if self.is64 else 14    # st_shndx offset inside an entry
        # Fast path: no symbol refers to a section at or after the first removed one.
        low = min(removed)
        only = struct.Struct(e + (f"{shndx_pos}xH{st.size - shndx_pos - 2}x"))
        column = [x for (x,) in only.iter_unpack(data[:nsyms * st.size])]      # st_shndx of every symbol
        if all(x == 0 or (x < low) or x >= SHN_LORESERVE and x != SHN_XINDEX for x in column):
            return
        out = None
        neutral = []
        u16 = struct.Struct(e + "H")
        nget = newidx.get
        for k, shndx in enumerate(column):
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
                name = self._symbol_name(si, nm)
                raise self._err(f"symbol {name!r} (index {k}) is defined in section [{real}] {secs[real].name}, "
                                f"which would be removed (refused: the symbol would dangle)", real)
            nr = nget(real, real)
            if nr == real:
                continue
            if out is None:
                out = bytearray(data)
            if shndx == SHN_XINDEX:
                self._u32.pack_into(ext, 4 * k, nr)
            else:
                u16.pack_into(out, k * st.size + shndx_pos, nr)
        if neutral:
            used = self._symbols_used_by_relocations(si)
            for k in neutral:
                if k in used:
                    raise self._err(f"the section symbol (index {k}) of a removed section is used by a kept "
                                    f"relocation (refused)", si)
                if out is None:
                    out = bytearray(data)
                # A local section symbol whose section is gone becomes a null local symbol (no index shifts).
                out[k * st.size:(k + 1) * st.size] = bytes(st.size)
                if ext is not None and 4 * k + 4 <= len(ext):
                    self._u32.pack_into(ext, 4 * k, 0)
        if out is not None:
            secs[si].content = bytes(out)
        if ext is not None and bytes(ext) != self.content(shndx_sec):
            secs[shndx_sec].content = bytes(ext)

    def _symbols_used_by_relocations(self, si) -> set:
        used = set()
        for i, s in enumerate(self.sections):
            if not s.removed and s.type == SHT_CREL and s.link == si:
                raise self._err("a removed section has a section symbol, and this writer cannot tell whether the "
                                "SHT_CREL relocations use it (refused)", i)
            if s.removed or s.type not in (SHT_REL, SHT_RELA) or s.link != si:
                continue
            b = self.content(i)
            if self.is64:
                st = struct.Struct(self.elf.endian + ("QQq" if s.type == SHT_RELA else "QQ"))
                used.update(v[1] >> 32 for v in st.iter_unpack(b[:len(b) // st.size * st.size]))
            else:
                st = struct.Struct(self.elf.endian + ("IIi" if s.type == SHT_RELA else "II"))
                used.update(v[1] >> 8 for v in st.iter_unpack(b[:len(b) // st.size * st.size]))
        for i, s in enumerate(self.sections):
            if not s.removed and s.type == SHT_GROUP and s.link == si:
                used.add(s.info)
        return used

    def _symbol_name(self, si, nm) -> str:
        link = self.sections[si].link
        if not 0 < link < len(self.sections):
            return f"#{nm}"
        b = self.content(link)
        end = b.find(b"\0", nm)
        return b[nm:end if end >= 0 else len(b)].decode("utf-8", "replace")

    def _fixed_ranges(self):
        """Byte ranges of the input that must stay where they are."""
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
        has_segments = len(ranges) > 1
        if has_segments:
            for s in self.sections:
                if s.orig is not None and s.alloc and s.type != SHT_NOBITS and s.size:
                    ranges.append((s.offset, s.offset + s.size))
        ranges.sort()
        merged = []
        for a, b in ranges:
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        return merged

    def _layout(self, kept, newidx) -> bytes:
        secs = self.sections
        elf = self.elf
        data = self.data
        fixed = self._fixed_ranges()
        has_segments = len(fixed) > 1 or bool(elf.e_phnum)

        low = fixed[0][1] if len(fixed) == 1 and fixed[0][0] == 0 else None

        def in_fixed(a, b):
            if low is not None and a >= low:      # only the ELF header is fixed (a relocatable object)
                return None
            for fa, fb in fixed:
                if a < fb and b > fa:
                    return (fa, fb)
            return None

        shnum = len(kept)
        shsize = shnum * self._shdr.size
        # Walk items in input file order: (orig_offset, orig_size > 0, index, orig_size); -1 is the section header
        # table.  (The index is unique, so the tuples sort by (offset, size > 0, index).)
        walk = []
        append = walk.append
        for i in range(1, len(secs)):
            s = secs[i]
            if s.orig is None:
                continue
            size = 0 if s.type == SHT_NOBITS else s.size
            append((s.offset, size > 0, i, size))
        sh_in = elf.e_shoff if elf.e_shoff else len(data)
        sh_in_size = len(elf.sections) * self._shdr.size
        append((sh_in, sh_in_size > 0, -1, sh_in_size))
        walk.sort()
        fixed_sec = set()
        if has_segments:
            for off, _, i, size in walk:
                if i < 0 or not size or secs[i].removed:
                    continue
                if in_fixed(off, off + size) is not None:
                    s = secs[i]
                    fixed_sec.add(i)
                    newsize = len(s.content) if s.content is not None else s.size
                    if newsize != s.size:
                        raise self._err(f"section lies inside a segment or is allocated: its size cannot change "
                                        f"({s.size} -> {newsize} bytes)", i)
        mv = memoryview(data)
        chunks, late = [], []        # (offset, bytes); ``late`` ones win (the fixed ranges)
        for fa, fb in fixed:
            late.append((fa, data[fa:fb]))
        pos = prev_end = fixed[0][1]     # just after the ELF header
        new_off = {}
        shoff = None
        size_in = len(data)
        beyond = []          # kept sections whose input offset is past the end of the file, with new contents
        bound = self._size_bound(shsize)
        cap = self._align_cap()
        # Input bytes that land contiguously in the output (one section after another, or the padding before a
        # section and the section) are copied as one slice: run = [output offset, input start, input end].
        run_out = run_in = run_end = -1
        for off, _, ref, size in walk:
            if ref < 0:
                shoff = self._place(off if elf.e_shoff else None, shsize, 8 if self.is64 else 4, pos, prev_end,
                                    in_fixed)
                pos = max(pos, shoff + shsize)
                prev_end = max(prev_end, off + size)
                continue
            s = secs[ref]
            end = off + size
            if off > size_in:
                # Only an empty or SHT_NOBITS section can claim an offset past the end (the container checks the
                # others): it has no bytes there, so it must not move anything else out to that offset.
                if not s.removed:
                    if s.content:
                        beyond.append(ref)      # new bytes: placed after everything, like an added section
                    else:
                        new_off[ref] = off
                continue
            if s.removed:
                if end > prev_end:
                    prev_end = end
                continue
            if ref in fixed_sec:
                new_off[ref] = off
                if s.content is not None:
                    if run_end >= 0:
                        chunks.append((run_out, mv[run_in:run_end]))
                        run_end = -1
                    late.append((off, s.content))
                if end > pos:
                    pos = end
                if end > prev_end:
                    prev_end = end
                continue
            if has_segments and s.flags & SHF_ALLOC and (s.type == SHT_NOBITS or not size):
                new_off[ref] = off        # allocated sections never move in a file with segments
                continue
            body = s.content
            if body is not None:
                n = len(body)
            elif s.type == SHT_NOBITS:
                n = 0
            else:
                n = (end if end < size_in else size_in) - off      # len(mv[off:end])
            if pos == prev_end and off >= pos and (low is not None or not n):
                cand = off                # in step with the input, nothing fixed in the way: keep the offset
            elif low is not None and pos >= low:
                a = s.addralign           # a relocatable object: nothing fixed after the header
                if a > 1 and (a & (a - 1) or a > cap):
                    a = self._alignment(ref)      # (refused there)
                cand = pos + (off - prev_end if off > prev_end else 0)
                if a > 1:
                    cand = (cand + a - 1) // a * a
            else:
                cand = self._place(off, n, self._alignment(ref), pos, prev_end, in_fixed)
            new_off[ref] = cand
            if cand + n > bound:
                self._check_end(cand + n, bound, ref)
            if n:
                gap = off - prev_end
                if gap > 0 and cand == pos + gap and (low is not None and pos >= low or in_fixed(pos, cand) is None):
                    # the input's padding, as it was
                    if run_end == prev_end and run_out + (run_end - run_in) == pos:
                        run_end = off
                    else:
                        if run_end >= 0:
                            chunks.append((run_out, mv[run_in:run_end]))
                        run_out, run_in, run_end = pos, prev_end, off
                if body is None:
                    if run_end == off and run_out + (run_end - run_in) == cand:
                        run_end = off + n
                    else:
                        if run_end >= 0:
                            chunks.append((run_out, mv[run_in:run_end]))
                        run_out, run_in, run_end = cand, off, off + n
                else:
                    if run_end >= 0:
                        chunks.append((run_out, mv[run_in:run_end]))
                        run_end = -1
                    chunks.append((cand, body))
            if cand + n > pos:
                pos = cand + n
            if end > prev_end:
                prev_end = end
        if run_end >= 0:
            chunks.append((run_out, mv[run_in:run_end]))
        for ref, s in enumerate(secs):
            if (s.orig is not None or s.removed) and ref not in beyond:
                continue
            cand = self._place(None, len(s.content), self._alignment(ref), pos, prev_end, in_fixed)
            new_off[ref] = cand
            self._check_end(cand + len(s.content), bound, ref)
            chunks.append((cand, s.content))
            pos = max(pos, cand + len(s.content))
        if shoff is None or shoff + shsize > (sh_in if elf.e_shoff else 0) + len(elf.sections) * self._shdr.size \
                and any(o < shoff + shsize and o + len(b) > shoff for o, b in chunks if b):
            # (only a table that grew can run into what follows it)
            shoff = self._place(None, shsize, 8 if self.is64 else 4, pos, prev_end, in_fixed)
        # Section headers.
        e = elf.endian
        raw_shnum, raw_shstrndx = struct.unpack_from(e + "HH", data, 0x3C if self.is64 else 0x30)
        ns = newidx.get(self.shstrndx, 0)
        pack = self._shdr.pack
        shdrs = []
        sh_append = shdrs.append
        nget = newidx.get
        oget = new_off.get
        for i in kept:
            s = secs[i]
            link, info, size = s.link, s.info, s.size
            if i == 0:
                # Extended numbering where needed, and where the input used it.
                ext_num = shnum >= SHN_LORESERVE or raw_shnum == 0
                ext_str = ns >= SHN_LORESERVE or raw_shstrndx == SHN_XINDEX
                # (without extended numbering sh_size is 0: a stray value would claim bytes at sh_offset that
                # the output, perhaps smaller, does not have)
                size = shnum if ext_num else 0
                link = ns if ext_str else s.link
                sh_append(pack(s.name_off, s.type, s.flags, s.addr, s.offset, size, link, info,
                               s.addralign, s.entsize))
                continue
            if link:
                link = nget(link, link)
            if info and (s.type in _REL_TYPES or s.flags & SHF_INFO_LINK):
                info = nget(info, info)
            if s.content is not None:
                size = len(s.content)
            sh_append(pack(s.name_off, s.type, s.flags, s.addr, oget(i, s.offset), size, link, info, s.addralign,
                           s.entsize))
        chunks.append((shoff, b"".join(shdrs)))
        allc = chunks + late
        total = max(o + len(b) for o, b in allc)
        self._check_end(total, bound, None)
        out = bytearray(total)
        for o, b in allc:
            out[o:o + len(b)] = b
        e_shnum = 0 if shnum >= SHN_LORESERVE or raw_shnum == 0 else shnum
        e_shstrndx = SHN_XINDEX if ns >= SHN_LORESERVE or raw_shstrndx == SHN_XINDEX else ns
        if self.is64:
            struct.pack_into(e + "Q", out, 0x28, shoff)
            struct.pack_into(e + "HH", out, 0x3C, e_shnum, e_shstrndx)
        else:
            struct.pack_into(e + "I", out, 0x20, shoff)
            struct.pack_into(e + "HH", out, 0x30, e_shnum, e_shstrndx)
        return bytes(out)

    def _alignment(self, i: int) -> int:
        """The alignment to place section ``i`` at: sh_addralign, which must be 0, 1 or a power of two no larger
        than the input file (or than 64 KiB): a larger one cannot have been honoured by the input's layout,
        and would only pad the output."""
        s = self.sections[i]
        a = s.addralign
        if a <= 1:
            return 1
        where = None
        if s.orig is not None:
            where = self.elf.e_shoff + s.orig * self._shdr.size + (0x30 if self.is64 else 0x20)
        if a & (a - 1):
            raise self._err(f"sh_addralign {a:#x} is not a power of two: cannot place the section (expected 0, 1 or "
                            f"a power of two)", i, where)
        cap = self._align_cap()
        if a > cap:
            raise self._err(f"sh_addralign {a:#x} is larger than the file ({len(self.data):#x} bytes) and than "
                            f"{MIN_ALIGN_CAP:#x}: cannot place the section (expected an alignment the input's own "
                            f"layout could honour)", i, where)
        return a

    def _align_cap(self) -> int:
        return max(len(self.data), MIN_ALIGN_CAP)

    def _size_bound(self, shsize) -> int:
        """The most bytes any rewrite of this input can need: twice the input (each input byte copied once, and
        the input's own padding kept), the new contents, alignment padding (at most the input's size, or
        64 KiB) and a new section header table.  ELF32 offsets are 32-bit as well."""
        cap = self._align_cap()
        grow = pad = 0
        for s in self.sections:
            if s.removed:
                continue
            if s.content is not None:
                grow += len(s.content)
            a = s.addralign
            if a > 1:
                pad += (a if a < cap else cap) - 1
        pad = min(pad, cap)
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
            cand = _align(pos + gap, align)
        while size:
            f = in_fixed(cand, cand + size)
            if f is None:
                break
            cand = _align(f[1], align)
        if not size:
            f = in_fixed(cand, cand + 1)
            if f is not None and orig_off is None:
                cand = _align(f[1], align)
        return cand
