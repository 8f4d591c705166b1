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

Layout: the ELF header, the program headers, every segment's bytes, every allocated section and every section
that overlaps any of these (as a whole: a PT_GNU_RELRO range may end inside .symtab) stay at their file offsets
(files with program headers), and so do the bytes there that no header describes (padding, bytes between
sections), wherever the output puts nothing else.  Relocatable objects have no segments: their sections are
packed in their original file order, each at its alignment.  Other sections keep their original order and
the padding that preceded them; where nothing changed before a section, it keeps its exact offset, so a
rewrite with no change is byte-identical.  Sections that are not touched (SHF_COMPRESSED ones too) are
copied as they are.

Symbols defined in removed sections: section symbols become null local symbols (no index moves).  When another
symbol is defined there (``__covrec_*`` in ``__llvm_covfun``), a relocatable object loses all the symbols of the
removed sections, as with llvm-objcopy: the table is renumbered (locals first, sh_info the first global) with
every index into it -- REL/RELA relocations, SHT_SYMTAB_SHNDX and group signatures by the writer, and the
contents of any other section that holds symbol indices (``.llvm_addrsig``, the LLVM <= 12 call-graph profile)
by a renumberer the caller supplies (:meth:`ElfWriter.set_symbol_renumberer`): the writer never decodes a
section's contents.

Refused with an :class:`~objllvm.errors.ObjllvmError`: changing the size of an allocated section or of a
section inside a segment, removing a section that a kept section links to, that defines a (non-section)
symbol a kept relocation, group signature or renumbered section needs (or that defines one at all, outside
relocatable objects, or with SHT_CREL relocations on the table), or whose section symbol a kept relocation
uses; removing the section name table or a symbol table that something uses.

Hostile input: the writer never allocates by an untrusted size.  The program header table and every segment
must lie inside the input file; a section placed at a new offset must have an sh_addralign of 0, 1 or a
power of two no larger than the input (or 64 KiB); an empty or SHT_NOBITS section whose sh_offset is past the
end keeps it and moves nothing else there; and the output may not pass twice the input's size plus the new
contents, alignment padding and a section header table (overlapping sections would be copied once each).
Each is refused with an ObjllvmError naming the section (or program header) and the offset.
"""

from .common import MIN_ALIGN_CAP, SHF_EXCLUDE, SHF_INFO_LINK, SHF_LINK_ORDER, STT_SECTION, WSection
from .edits import Edits
from .emit import Emission
from .fixups import FixUps
from .layout import Layout

__all__ = ["ElfWriter", "WSection", "SHF_EXCLUDE", "SHF_INFO_LINK", "SHF_LINK_ORDER", "STT_SECTION",
           "MIN_ALIGN_CAP"]


class ElfWriter(Edits, FixUps, Layout, Emission):
    """Edit the section table of one ELF file and produce the new file's bytes: the edits
    (:mod:`.edits`), the fix-ups when sections go (:mod:`.fixups`), the layout (:mod:`.layout`) and the
    emission of the header table and the output's buffers (:mod:`.emit`)."""
