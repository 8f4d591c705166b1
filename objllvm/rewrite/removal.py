"""The removals of ``objllvm rewrite``: the :class:`Operation` base class, ``--remove`` and ``--strip-llvm``.

A module of their own, apart from the other operations (:mod:`objllvm.rewrite.operations`, which re-exports
these): a rewrite that only removes sections, as most do, does not import the operations that edit contents."""
from itertools import compress

from ..formats.elf import NEVER_LLVM_TYPES, SHF_ALLOC, is_llvm_type
from .session import Session


class Operation:
    """Base of every rewrite operation: ``apply(session)`` edits the session; ``text`` is the CLI form."""
    text = ""

    def apply(self, sess: Session) -> None:
        raise NotImplementedError

    def __repr__(self):
        return f"<{self.text}>"


class Remove(Operation):
    """Remove every section of a kind (``bb-addr-map``) or with a name (``.llvm_addrsig``), and the
    relocation sections that target it."""

    def __init__(self, what: str):
        self.what = what
        self.text = f"--remove {what}"

    def apply(self, sess):
        # all at once: one pass over the relocation sections, not one per section (an instrumented object has
        # one __llvm_covfun per function)
        sess.remove_all([s.index for s in sess.by_kind_or_name(self.what, self.text)])


# bytes.translate tables: a byte 1 (resp. 2) stays 1, every other byte becomes 0
_ONLY_1 = bytes((0, 1)) + bytes(254)
_ONLY_2 = bytes((0, 0, 1)) + bytes(253)
# a flags' low byte -> 0xFF where SHF_ALLOC is clear, else 0; a removed flag -> 0xFF where kept, else 0
_UNALLOCATED = bytes(0 if b & SHF_ALLOC else 0xFF for b in range(256))
_KEPT = bytes((0xFF,)) + bytes(255)


class StripLLVM(Operation):
    """Remove every LLVM-specific section that is not allocated."""
    text = "--strip-llvm"

    def apply(self, sess):
        elf, w = sess.elf, sess.writer
        names, types, flags = elf.section_name_offsets, elf.section_types, elf.section_flags
        rm = w.removed_flags
        # LLVM's own types decide for most sections, found by columns; a section of another type that is not one of
        # the container's own tables is asked (Session.is_llvm_at: the codec index, then the codecs), once per
        # (type, name).  Only kept, unallocated ones go.
        # (the writer's code byte of each section's type, where it reads the same column: the kinds by a translate)
        coded = w.type_codes() if w.cols[1] is types else None
        distinct = coded[0].keys() if coded is not None else set(types)
        llvm = {t for t in distinct if is_llvm_type(t)}
        other = {t for t in distinct if t not in llvm and t not in NEVER_LLVM_TYPES}
        n = elf.section_count
        # one pass over the types: 1 for LLVM's own, 2 for another type that is not one of the tables, else 0
        kind = dict.fromkeys(distinct, 0)
        kind.update(dict.fromkeys(llvm, 1))
        kind.update(dict.fromkeys(other, 2))
        if coded is not None:
            table = bytearray(256)
            for t, c in coded[0].items():
                table[c] = kind[t]
            kinds = coded[1].translate(table)
        else:
            kinds = bytes(map(kind.__getitem__, types))
        # then 0 for the allocated and the removed ones, and section 0: the three as bytes ANDed as wide integers
        sel = int.from_bytes(kinds, "little") & int.from_bytes(elf.flag_bytes().translate(_UNALLOCATED), "little")
        if rm.find(1, 0, n) >= 0:
            sel &= int.from_bytes(rm[:n].translate(_KEPT), "little")
        kinds = bytearray(sel.to_bytes(n, "little"))
        if n:
            kinds[0] = 0
        hit = list(compress(range(n), kinds.translate(_ONLY_1)))          # (ascending)
        more = []
        ask = list(compress(range(n), kinds.translate(_ONLY_2)))
        # the others, by columns: each (type, name) asked once, then the sections of the keys that said yes
        if ask:
            keys = list(zip(map(types.__getitem__, ask), map(names.__getitem__, ask)))
            first = dict(zip(reversed(keys), reversed(ask)))         # key -> its first section
            yes = {key for key, i in sorted(first.items(), key=lambda item: item[1]) if sess.is_llvm_at(i)}
            more += compress(ask, map(yes.__contains__, keys))
        if more:
            hit = sorted(set(hit).union(more))
        sess.remove_all(hit)
