"""The removals of ``objllvm rewrite``: the :class:`Operation` base class, ``--remove`` and ``--strip-llvm``.

A module of their own, apart from the other operations (:mod:`objllvm.rewrite.operations`, which re-exports
these): a rewrite that only removes sections, as most do, does not import the operations that edit contents."""
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


class StripLLVM(Operation):
    """Remove every LLVM-specific section that is not allocated."""
    text = "--strip-llvm"

    def apply(self, sess):
        elf = sess.elf
        names, types, flags = elf.section_name_offsets, elf.section_types, elf.section_flags
        removed = sess.writer.removed_flags
        # LLVM's own section types decide by themselves; a section of another type that is not one of the
        # container's own tables is asked (Session.is_llvm_at: the codec index, then the codecs), once per
        # (type, name).  Only kept, unallocated sections go; section 0 never does.
        llvm_type = {t: is_llvm_type(t) for t in set(types)}
        answers = {}
        hit = []
        for i in range(1, elf.section_count):
            if flags[i] & SHF_ALLOC or removed[i]:
                continue
            t = types[i]
            if llvm_type[t]:
                hit.append(i)
            elif t not in NEVER_LLVM_TYPES:
                key = (t, names[i])
                if key not in answers:
                    answers[key] = sess.is_llvm_at(i)
                if answers[key]:
                    hit.append(i)
        sess.remove_all(hit)
