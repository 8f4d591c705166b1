"""The ELF writer's state and the edits a caller makes: the header table held as columns, which sections are
removed, their new contents, added sections, and the renumberers the caller supplies for sections whose contents
hold symbol indices (the writer never decodes a section's contents itself)."""
import struct
from itertools import compress, repeat

from ...errors import ObjllvmError
from ..elf import SHF_ALLOC, SHF_COMPRESSED, SHT_NOBITS, SHT_REL, SHT_RELA, ElfFile
from .common import (FLAGS, GROUP_TYPES, INFO, LINK, OFFSET, OWN_SYMBOL_USERS, REL_TYPES, SIZE, SYMTAB_TYPES, TYPE,
                     Columns, Sections)


class Edits(Columns):
    """The writer's state and its edits (mixed into :class:`~objllvm.formats.elfwrite.ElfWriter`).

    The header table is held as columns: ``cols`` (ten lists, one per header field, as
    :attr:`ElfFile.columns`), the removed flags and a dict of new contents, so that an object with tens of
    thousands of sections costs no Python object per section.  ``sections`` gives :class:`WSection` views."""

    def __init__(self, elf: ElfFile):
        if not isinstance(elf, ElfFile):
            raise ObjllvmError("only ELF files can be rewritten", file=getattr(elf, "path", None))
        self.elf = elf
        # (an archive member's bytes are a view of the archive's: the writer slices them as bytes)
        self.data = elf.data.tobytes() if type(elf.data) is memoryview else elf.data
        self.path = elf.path
        self.is64 = elf.is64
        self._shdr = elf._shdr
        self._u32 = struct.Struct(elf.endian + "I")
        self.cols: list = list(elf.columns)        # the reader's lists until one is changed (see _own_column)
        self._owned = [False] * len(self.cols)
        self._n_orig = elf.section_count
        self._removed = bytearray(self._n_orig)
        self._content: dict = {}          # index -> new stored bytes
        self._added_names: dict = {}      # index -> name of an added section
        self._renumberers: dict = {}      # index -> fn(data, mapping) -> data (set_symbol_renumberer)
        self._members: dict = {}          # group index -> its member indices, as read (FixUps._group_members)
        self.sections = Sections(self)
        self.shstrndx = elf.e_shstrndx
        self._rel_by_target = None
        self._rel_count = 0
        self._kinds_key = None
        self.moves: list = []     # after write(): (section index or what, input offset, output offset, size)
        # after write_parts(): (index in the parts, input offset) of the parts that are runs of the input's bytes of
        # SEND_MIN bytes or more, in order (see SEND_MIN)
        self.out_copies: list = []
        self.out_parts: list | None = None      # the list write_parts() last made (``out_copies`` goes with it)
        self._src: dict = {}        # id(view) -> (view, input offset): the long views of the input, as made

    # -- queries -------------------------------------------------------------------------------
    def _of_types(self, wanted, first: int = 0) -> list:
        """The indices (from ``first`` on, ascending) of the sections whose sh_type is in ``wanted`` (a frozenset),
        worked out once for each set while the types stay as they are."""
        types = self.cols[TYPE]
        self._fresh_kinds(types)
        found = self._kinds.get(wanted)
        if found is None:
            # each wanted type the file has, found by list.index from one section of it to the next
            found = []
            for t in wanted.intersection(self._types_seen):
                k = -1
                try:
                    while True:
                        k = types.index(t, k + 1)
                        found.append(k)
                except ValueError:
                    pass
            found.sort()
            self._kinds[wanted] = found
        return found[1:] if first and found and found[0] == 0 else found

    def _fresh_kinds(self, types) -> None:
        """Forget what _of_types worked out when the type column is another one (or grew)."""
        key = (id(types), len(types))
        if self._kinds_key != key:
            self._kinds, self._kinds_key, self._types_seen = {}, key, set(types)

    def name(self, index: int) -> str:
        if index >= self._n_orig:
            return self._added_names[index]
        return self.elf.section_name(index)

    def _err(self, msg, index=None, offset=None):
        name = self.name(index) if index is not None and index < len(self._removed) else None
        return ObjllvmError(msg, file=self.path, member=self.elf.member, section_index=index,
                            section_name=name, offset=offset)

    def index_of(self, name: str) -> int:
        rm = self._removed
        for i in range(len(rm)):
            if not rm[i] and self.name(i) == name:
                return i
        raise self._err(f"no section named {name!r}")

    def is_removed(self, index: int) -> bool:
        return bool(self._removed[index])

    @property
    def removed_flags(self) -> bytearray:
        """One byte per section, 1 where it is removed (read it; edit through :meth:`remove`)."""
        return self._removed

    def edited(self) -> list:
        """The indices of the sections given new contents (set, added, or rewritten by the writer), ascending."""
        return sorted(self._content)

    def content(self, index: int) -> bytes:
        """The stored bytes of a section (its new content when set)."""
        c = self._content.get(index)
        if c is not None:
            return c
        cols = self.cols
        if cols[TYPE][index] == SHT_NOBITS or index >= self._n_orig:
            return b""
        off = cols[OFFSET][index]
        return self.data[off:off + cols[SIZE][index]]

    def _own_column(self, k: int) -> list:
        """Header column ``k``, the writer's own copy (made on the first change)."""
        if not self._owned[k]:
            self.cols[k] = list(self.cols[k])
            self._owned[k] = True
        return self.cols[k]

    def _plain(self, index: int) -> bytes:
        """What a section's bytes mean: its new contents when set, else the input's, decompressed when it is
        SHF_COMPRESSED (a DecodeError naming the section when they do not decompress)."""
        c = self._content.get(index)
        if c is None and index < self._n_orig and self.cols[FLAGS][index] & SHF_COMPRESSED:
            return self.elf.section(index).data()
        return self.content(index)

    def _plain_many(self, indices) -> list:
        """:meth:`_plain` of each of ``indices``: sliced from the input here where a section has neither new contents
        nor SHF_COMPRESSED and has bytes (most do), by :meth:`_plain` otherwise."""
        data, content, n = self.data, self._content, self._n_orig
        types, flags, offs, sizes = self.cols[TYPE], self.cols[FLAGS], self.cols[OFFSET], self.cols[SIZE]
        return [data[offs[i]:offs[i] + sizes[i]]
                if i < n and i not in content and not flags[i] & SHF_COMPRESSED and types[i] != SHT_NOBITS
                else self._plain(i) for i in indices]

    def _store(self, index: int, data: bytes) -> None:
        """New contents for a section the writer rewrites alongside (symbols, groups): stored uncompressed."""
        self._content[index] = data
        if self.cols[FLAGS][index] & SHF_COMPRESSED:        # (the column is copied only then)
            self._own_column(FLAGS)[index] &= ~SHF_COMPRESSED

    def relocation_sections_for(self, index: int) -> list:
        """The kept REL/RELA/CREL sections whose target (sh_info) is section ``index``."""
        n = len(self._removed)
        if self._rel_by_target is None or self._rel_count != n:
            by = {}
            infos = self.cols[INFO]
            for i in self._of_types(REL_TYPES, 1):
                if infos[i]:
                    by.setdefault(infos[i], []).append(i)
            self._rel_by_target, self._rel_count = by, n
        rels = self._rel_by_target.get(index)
        if not rels:
            return []
        rm = self._removed
        return [i for i in rels if not rm[i]]

    def symbol_index_users(self) -> list:
        """The kept input sections (ascending) that link (sh_link) to a symbol table and are none of those whose symbol
        indices the writer renumbers itself (relocations, groups, SHT_SYMTAB_SHNDX): the sections that may need a
        renumberer (:meth:`set_symbol_renumberer`) when symbols are dropped."""
        symtabs = set(self._of_types(SYMTAB_TYPES))
        if not symtabs:
            return []
        n = self._n_orig
        users = set(compress(range(1, n), map(symtabs.__contains__, self.cols[LINK][1:n])))
        # (the relocation sections and groups, most of them, as the writer lists them anyway: the rest are few)
        users.difference_update(self._of_types(REL_TYPES), self._of_types(GROUP_TYPES))
        rm, types = self._removed, self.cols[TYPE]
        return sorted(i for i in users if not rm[i] and types[i] not in OWN_SYMBOL_USERS)

    # -- edits ---------------------------------------------------------------------------------
    def set_symbol_renumberer(self, index: int, fn) -> None:
        """How section ``index`` follows its symbol table when the writer renumbers it or drops symbols from it:
        ``fn(data, mapping)`` gets the section's bytes (uncompressed) and ``mapping`` (a list: old symbol index ->
        new one, -1 for a dropped symbol; an index past the list is past the table and stays as it is) and returns
        the new bytes.  Where the contents name a dropped symbol they cannot do without, ``fn`` raises
        LookupError(old index[, what uses it, e.g. "a call-graph profile edge in"]): the writer refuses the
        rewrite, naming the symbol; malformed contents raise a DecodeError (offset in the section).  A section that
        links to a symbol table with no renumberer is kept as it is."""
        if not 0 < index < len(self._removed):
            raise self._err(f"no section with index {index}")
        self._renumberers[index] = fn

    def remove(self, index: int, *, with_relocations: bool = True) -> list:
        """Mark a section (and the relocation sections that target it) removed; returns the indices."""
        if not 0 < index < len(self._removed):
            raise self._err(f"no section with index {index}")
        out = [index]
        rm = self._removed
        rm[index] = 1
        if with_relocations:
            for r in self.relocation_sections_for(index):
                rm[r] = 1
                out.append(r)
        return out

    def remove_many(self, indices) -> list:
        """:meth:`remove` each of ``indices`` (and the relocation sections that target them); returns the indices
        of the sections this removes, in index order."""
        rm = self._removed
        n = len(rm)
        indices = list(indices)
        if indices and (min(indices) <= 0 or max(indices) >= n):
            raise self._err(f"no section with index {next(i for i in indices if not 0 < i < n)}")
        new = [i for i in indices if not rm[i]]
        any(map(rm.__setitem__, new, repeat(1)))      # (each step gives None)
        targets = bytearray(n)          # (flags: 1 for each of ``new``)
        any(map(targets.__setitem__, new, repeat(1)))
        infos = self.cols[INFO]
        rels = [r for r in self._of_types(REL_TYPES, 1) if infos[r] < n and targets[infos[r]] and not rm[r]]
        any(map(rm.__setitem__, rels, repeat(1)))
        return sorted(new + rels)

    def set_content(self, index: int, data: bytes) -> None:
        """Replace a section's bytes (stored as given: an SHF_COMPRESSED section is written uncompressed)."""
        s = self.sections[index]
        if s.type == SHT_NOBITS:
            raise self._err("SHT_NOBITS section has no contents to replace", index)
        if s.alloc and len(data) != s.size:
            raise self._err(f"allocated section: changing its size ({s.size} -> {len(data)} bytes) would move "
                            f"loaded code or data (refused)", index)
        self._content[index] = bytes(data)
        if s.flags & SHF_COMPRESSED:
            s.flags &= ~SHF_COMPRESSED

    def add_section(self, name: str, sh_type: int, data: bytes, *, flags: int = 0, addralign: int = 1,
                    entsize: int = 0, link: int = 0, info: int = 0) -> int:
        """Append a non-allocated section (its name goes at the end of the section name table)."""
        if flags & SHF_ALLOC:
            raise self._err(f"cannot add allocated section {name!r}: that would need a new segment")
        if not 0 < self.shstrndx < len(self._removed):
            raise self._err("the file has no section name table: cannot name a new section")
        strtab = bytearray(self._plain(self.shstrndx))
        name_off = len(strtab)
        strtab += name.encode("utf-8", "surrogateescape") + b"\0"
        self.set_content(self.shstrndx, bytes(strtab))
        i = len(self._removed)
        for k, v in enumerate((name_off, sh_type, flags, 0, 0, len(data), link, info, addralign, entsize)):
            self._own_column(k).append(v)
        self._removed.append(0)
        self._content[i] = bytes(data)
        self._added_names[i] = name
        return i

    def encode_relocations(self, index: int, relocs) -> bytes:
        """The bytes of REL/RELA section ``index`` holding ``relocs`` (objects with offset/type/sym/addend)."""
        t = self.cols[TYPE][index]
        rela = t == SHT_RELA
        if t not in (SHT_REL, SHT_RELA):
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
