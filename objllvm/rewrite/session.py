"""The rewrite session (decode, apply operations, re-encode, verify, write) and the file-level API behind
``objllvm rewrite``; the operations are in :mod:`objllvm.rewrite.operations`.

    >>> from objllvm import rewrite as rw
    >>> result = rw.rewrite_file("main.o", "main-stripped.o", [rw.DropDeplib("m"), rw.Remove("addrsig")])
    >>> [(c.name, c.action) for c in result.changes]
    [('.deplibs', 'changed'), ('.llvm_addrsig', 'removed')]

Every operation goes through the codec registry (``registry.find_codec`` / ``codec.decode`` /
``codec.encode``), the same path ``objllvm dump`` uses, and the file is produced by the ELF writer of
:mod:`objllvm.formats.elfwrite`.  Before anything is written the new file is read back and every section that
changed is decoded again: a rewrite that would not decode is refused.  Files are written with
:func:`objllvm.atomicio.atomic_write` (a temporary file in the target directory, then a rename): an error
leaves the input untouched and no partial output.
"""
import os
import sys
from itertools import compress

from ..formats import sniff
from ..formats.elf import (NEVER_LLVM_TYPES, SHF_COMPRESSED, SHT_CREL, SHT_GROUP, SHT_REL, SHT_RELA, ElfFile,
                           is_llvm_type)
from ..formats.elfwrite import ElfWriter
from ..errors import ObjllvmError, UsageError
from .._model import no_gc

_REGISTRY = "objllvm.sections.registry"


class Change:
    """One section the rewrite adds, removes or changes."""
    __slots__ = ("index", "name", "action", "old_size", "new_size", "kind", "before", "after")

    def __init__(self, index: int | None, name: str, action: str, old_size: int | None, new_size: int | None,
                 kind: str | None = None, before=None, after=None):
        self.index = index          # index in the input (None: added)
        self.name = name
        self.action = action        # 'removed', 'changed', 'resized', 'added', 'moved' (before/after: offsets)
        self.old_size = old_size
        self.new_size = new_size
        self.kind = kind
        self.before = before        # codec.to_dict of the old contents (changed sections)
        self.after = after          # codec.to_dict of the new contents

    def to_dict(self) -> dict:
        return {"index": self.index, "name": self.name, "action": self.action, "kind": self.kind,
                "old_size": self.old_size, "new_size": self.new_size, "before": self.before, "after": self.after}

    def __eq__(self, other):
        if other.__class__ is not Change:
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None

    def __repr__(self):
        return "Change(" + ", ".join(f"{k}={v!r}" for k, v in self.to_dict().items()) + ")"


class RewriteResult:
    """What :func:`rewrite_file` did: ``changes`` (a list of :class:`Change`, worked out when first asked
    for), ``data`` (the new file's bytes), ``output`` (None for a dry run) and whether it was ``written``."""

    def __init__(self, input: str, output: str | None, changes=None, data=b"", written: bool = False):
        self.input = input
        self.output = output        # None for a dry run
        self._changes = changes     # a list, or a function that makes it
        self._data = data           # the new file's bytes, or a function that makes them
        self.written = written
        self.dropped_bits = []      # mode bits of the input the output does not have ('set-user-ID', 'set-group-ID')

    @property
    def data(self) -> bytes:
        """The new file's bytes."""
        if callable(self._data):
            self._data = self._data()
        return self._data

    @data.setter
    def data(self, value) -> None:
        self._data = value

    @property
    def changes(self) -> list:
        if callable(self._changes):
            self._changes = self._changes()
        if self._changes is None:
            self._changes = []
        return self._changes

    @changes.setter
    def changes(self, value) -> None:
        self._changes = value

    def __repr__(self):
        return f"RewriteResult(input={self.input!r}, output={self.output!r}, written={self.written!r})"


class Session:
    """The state of one rewrite: the parsed input, the writer, the models being edited."""

    def __init__(self, elf: ElfFile, options=None):
        self.elf = elf
        self.writer = ElfWriter(elf)
        self.options = dict(options or {})
        self.models = {}          # section index -> (codec, model) being edited
        self.before = {}          # section index -> to_dict of the original model
        self._codecs = {}

    # -- lookups -------------------------------------------------------------------------------
    def err(self, msg, section=None, offset=None):
        return ObjllvmError(msg, file=self.elf.path, member=self.elf.member,
                            section_index=section.index if section is not None else None,
                            section_name=section.name if section is not None else None, offset=offset)

    def alive(self, section) -> bool:
        return not self.writer.is_removed(section.index)

    def codec_of(self, section):
        return self.codec_at(section.index)

    def codec_at(self, index: int):
        """The codec of section ``index``.  It depends on the type, else on the name (and the options): cached by
        both, so that the section object is made only for a (type, name) not seen yet.  A section no codec may
        claim (the codec index says so: objllvm.sections.unclaimed) is answered without the registry (a run that
        needs it for nothing else: ``--strip-llvm`` of an object without LLVM-named sections), until the registry
        is imported (it may have codecs registered from elsewhere)."""
        elf = self.elf
        key = (elf.section_type(index), elf.section_name(index))
        try:
            return self._codecs[key]
        except KeyError:
            if self.options or _REGISTRY in sys.modules:
                plain = False
            else:
                from ..sections import unclaimed
                plain = unclaimed(elf.format, *key)
            if plain:
                c = None
            else:
                from ..sections import registry
                c = registry.find_codec(elf.section(index), elf, self.options)
            self._codecs[key] = c
            return c

    def of_kind(self, kind: str) -> list:
        return [s for s in self.elf.sections if s.index and self.alive(s)
                and (c := self.codec_of(s)) is not None and c.kind == kind]

    def by_kind_or_name(self, what: str, op: str) -> list:
        from ..sections import registry
        kinds = registry.kinds()
        if what in kinds:
            secs = self.of_kind(what)
        else:
            secs = [s for s in self.elf.sections if s.index and s.name == what and self.alive(s)]
        if not secs:
            known = "a section kind" if what in kinds else "a section name"
            raise self.err(f"{op}: no {what!r} section in this file ({known}; see `objllvm sections --all`)")
        return secs

    def is_llvm(self, section) -> bool:
        return self.is_llvm_at(section.index)

    def is_llvm_at(self, index: int) -> bool:
        """Whether section ``index`` is LLVM's: an LLVM section type, else (not one of the container's own tables)
        a section some codec claims: by its name alone, as the codec index says, or as the registry finds."""
        t = self.elf.section_type(index)
        if is_llvm_type(t):
            return True
        if t in NEVER_LLVM_TYPES:
            return False
        if not self.options:
            from ..sections import claimed_in_elf
            if claimed_in_elf(self.elf.section_name(index)):
                return True
        return self.codec_at(index) is not None

    # -- symbol indices held by sections of other kinds --------------------------------------
    # When symbols of removed sections go, the writer renumbers the symbol table and every kept section whose sh_link
    # names it.  Relocations, groups and extended indices are the container's own; any other such section
    # (.llvm_addrsig, the LLVM <= 12 call-graph profile) holds indices its codec alone can read: the writer asks
    # the session, which asks the codec (it refuses a drop it cannot express by raising LookupError).
    def renumbered_symbols_of(self, index: int, data: bytes, mapping) -> bytes | None:
        """``data`` of section ``index`` with its symbol indices renumbered by ``mapping`` (its codec's
        :meth:`~objllvm.sections.registry.Codec.renumber_symbols`); None when it holds none (or no codec claims it)."""
        codec = self.codec_at(index)
        return None if codec is None else codec.renumber_symbols(data, mapping, self.ctx(self.elf.section(index)))

    def _renumber_symbols(self, index: int, data: bytes, mapping) -> bytes:
        """The writer's callback (ElfWriter.set_symbol_renumberer): section ``index``'s bytes with its symbol indices
        moved by ``mapping``; unchanged when its codec says it holds none."""
        new = self.renumbered_symbols_of(index, data, mapping)
        return data if new is None else new

    # -- models --------------------------------------------------------------------------------
    def ctx(self, section):
        from ..sections import registry
        if section is None:     # a section being added
            e = self.elf
            return registry.SectionContext(endian=e.endian, addr_size=e.addr_size, is_relocatable=e.is_relocatable,
                                           file_type=e.file_type, machine=e.machine_name, format=e.format, obj=e,
                                           symbols=e.symbols, options=dict(self.options))
        return registry.SectionContext.for_section(self.elf, section, self.options)

    def model(self, section, expect_kind: str | None = None):
        """The (codec, model) of ``section``, decoded once and then edited in place by the operations."""
        if section.index in self.models:
            return self.models[section.index]
        from ..sections import registry
        d = registry.decode_section(self.elf, section, self.options)
        if d.codec is None:
            raise self.err("no codec decodes this section", section)
        if expect_kind and d.codec.kind != expect_kind:
            raise self.err(f"expected a {expect_kind} section, found {d.codec.kind}", section)
        if d.status != "decoded":
            raise d.error
        self.models[section.index] = (d.codec, d.model)
        self.before[section.index] = _to_plain(d.codec.to_dict(d.model))
        return self.models[section.index]

    def add_section(self, kind: str, model) -> int:
        """A new section of ``kind`` holding ``model``, made as its codec says (``Codec.new_section``); its index."""
        from ..sections import registry
        codec = registry.get(kind)
        spec = codec.new_section()
        if spec is None:
            raise UsageError(f"a {kind} section cannot be added to a file that has none")
        spec = dict(spec)
        name, sh_type = spec.pop("name"), spec.pop("sh_type")
        return self.writer.add_section(name, sh_type, codec.encode(model, self.ctx(None)), **spec)

    def replace_model(self, section, codec, model):
        if section.index not in self.before:
            self.model(section)
        self.models[section.index] = (codec, model)

    def remove(self, section):
        """Remove ``section`` (and the relocation sections that target it); its model, if it was being
        edited, is dropped."""
        self.remove_all([section.index])

    def remove_all(self, indices):
        """:meth:`remove` each section of ``indices``."""
        self.writer.remove_many(indices)
        if not getattr(self, "_finishing", False):
            for i in [i for i in self.models if self.writer.removed_flags[i]]:
                del self.models[i]

    # -- finish --------------------------------------------------------------------------------
    def finish(self, defer_verify: bool = False):
        """Encode the edited models, fix the relocations that depend on them, write, verify.  Returns the new
        file as parts (buffers to write one after the other).  ``defer_verify``: the read-back of changed
        sections is left to :meth:`verify_written`, called on the written file (so the output is never
        joined in memory)."""
        w = self.writer
        changed = []
        self._finishing = True
        for idx, (codec, model) in sorted(self.models.items()):
            if w.is_removed(idx):
                continue
            section = self.elf.sections[idx]
            rels = w.relocation_sections_for(idx)
            if codec.removed_after_edit(model, bool(rels)):
                self.remove(section)
                continue
            ctx = self.ctx(section)
            try:
                data = codec.encode(model, ctx)
            except ObjllvmError as exc:
                raise exc.located(file=self.elf.path, member=self.elf.member, section_index=idx,
                                  section_name=section.name)
            except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
                raise self.err(f"cannot encode the new {codec.kind} contents: {_exc_text(exc)}", section) from None
            if rels:
                from ..sections.registry import SectionEdit
                self._relocations_follow(SectionEdit(codec, section, ctx, model, data, len(rels)), rels)
            if data != section.data() or w.sections[idx].content is not None:
                if section.compression and data == section.data():
                    continue          # unchanged compressed section: keep the stored bytes
                try:
                    w.set_content(idx, data)
                except ObjllvmError as exc:
                    raise exc.located(file=self.elf.path, member=self.elf.member)
                changed.append(idx)
        for i in w.symbol_index_users():
            # a section that may hold symbol indices: its codec renumbers them if the writer drops symbols
            w.set_symbol_renumberer(i, lambda data, mapping, i=i: self._renumber_symbols(i, data, mapping))
        parts = w.write_parts()
        added = any(not w.is_removed(i) for i in range(self.elf.section_count, len(w.sections)))
        self.changed = changed
        self.needs_read_back = bool(changed or added)
        if self.needs_read_back and defer_verify:
            return parts
        if self.needs_read_back:
            parts = [b"".join(parts)]       # read back below: one buffer
        self.verify(parts, changed, added)
        return parts

    def _relocations_follow(self, edit, rels) -> None:
        """The relocation sections ``rels`` of an edited section made to match its new encoding ``edit.data``, as
        its codec places them (:meth:`~objllvm.sections.registry.Codec.relocations_after_edit`)."""
        elf, w, section = self.elf, self.writer, edit.section
        for rel in rels:
            old = elf.read_relocations(elf.sections[rel])
            try:
                plan = edit.codec.relocations_after_edit(edit, old)
            except ObjllvmError as exc:
                raise exc.located(file=elf.path, member=elf.member, section_index=section.index,
                                  section_name=section.name)
            if plan is None:
                if edit.data != edit.old_data:
                    raise self.err(f"the section has relocations (section [{rels[0]}]) that objllvm cannot "
                                   f"update for a {edit.codec.kind} section: refused", section)
                return
            if plan == [(i, r.offset) for i, r in enumerate(old)]:
                continue            # each relocation where it was
            raw = _raw_entries(self, rel, section)
            if any(type(p) is tuple and not 0 <= p[0] < len(raw) for p in plan):
                raise self.err(f"internal check failed: the {edit.codec.kind} codec placed a relocation that section "
                               f"[{rel}] does not have; nothing written", section)
            b = b"".join(_with_offset(self, raw[p[0]], p[1]) if type(p) is tuple else w.encode_relocations(rel, [p])
                         for p in plan)
            if b != w.content(rel):
                w.sections[rel].content = b

    def verify_written(self, buf) -> None:
        """:meth:`verify` of the file as written (``buf``: its bytes, a map of the written file)."""
        if self.needs_read_back:
            self.verify([buf], self.changed, True)

    def verify(self, parts, changed, added=False):
        """Read the new file back; every changed section must decode again."""
        w = self.writer
        if not changed and not added:
            # Only removals: the writer's own bookkeeping; check the header table is where it says.
            shnum = w.removed_flags.count(0)       # (the flags are 0 or 1)
            if w.out_shoff + shnum * self.writer._shdr.size > w.out_size or sum(map(len, parts)) != w.out_size:
                raise self.err("internal check failed: the section header table would be past the end of the "
                               "file; nothing written")
            return
        from ..sections import registry
        out = parts[0]
        try:
            new = ElfFile(out, self.elf.path, self.elf.member)
            _ = new.symbols
        except ObjllvmError as exc:
            raise self.err(f"internal check failed: the rewritten file would not read back ({exc.message}); "
                           f"nothing written")
        newidx = {}
        n = 0
        for i, s in enumerate(self.writer.sections):
            if not s.removed:
                newidx[i] = n
                n += 1
        for idx in changed:
            if idx not in newidx:
                # The writer dropped a section an operation edited: typed SHT_GROUP, its new bytes read as a member
                # list naming only removed sections; or typed REL/RELA, with a removed target.
                why = ("an SHT_GROUP section whose members (its new bytes read as section indices) are all removed"
                       if self.writer.sections[idx].type == SHT_GROUP else "relocations of a removed section")
                raise self.err(f"the edited section would be dropped by the writer as {why}; nothing written "
                               f"(expected a section of its kind's own type)", self.elf.sections[idx],
                               offset=self.elf.e_shoff + idx * self.writer._shdr.size + 4)     # its sh_type
            ns = new.sections[newidx[idx]]
            d = registry.decode_section(new, ns, self.options)
            if d.status == "error":
                raise self.err(f"the new contents would not decode ({d.error.message}); nothing written",
                               self.elf.sections[idx])
            self.after_models = getattr(self, "after_models", {})
            self.after_models[idx] = _to_plain(d.codec.to_dict(d.model)) if d.codec and d.model is not None else None

    def changes(self, changed=None) -> list:
        """The list of :class:`Change` (after :meth:`finish`)."""
        if changed is None:
            changed = self.changed
        w = self.writer
        elf = self.elf
        n_orig = elf.section_count        # (sections past these were added)
        rm = w.removed_flags
        out = []
        for i in compress(range(n_orig), rm):
            c = self.codec_at(i)
            out.append(Change(i, elf.section_name(i), "removed", elf.section_size(i), None, c.kind if c else None))
        for i in range(n_orig, len(rm)):
            if not rm[i]:
                s = w.sections[i]
                from ..sections import registry
                c = registry.find_codec(_fake_section(s, i), elf, self.options)
                out.append(Change(None, s.name, "added", None, len(s.content), c.kind if c else None,
                                  None, getattr(self, "after_models", {}).get(i)))
        for i in changed:
            if i >= n_orig:
                continue
            sec = elf.section(i)
            c = self.codec_of(sec)
            new_size = len(w.content(i))
            out.append(Change(i, sec.name, "changed" if new_size == sec.size else "resized", sec.size, new_size,
                              c.kind if c else None, self.before.get(i), getattr(self, "after_models", {}).get(i)))
        # sections rewritten alongside (relocations, name table, symbol table, groups)
        for i in w.edited():
            if i < n_orig and not rm[i] and i not in changed:
                content = w.content(i)
                sec = elf.section(i)
                # (the stored bytes, as Section.data() gives them for a section that is not compressed: nothing
                # here decompresses, so working the list out later cannot fail)
                if not sec.compression and content == (b"" if sec.type == 8 else
                                                       elf.data[sec.offset:sec.offset + sec.size]):
                    continue
                out.append(Change(i, sec.name, "changed" if len(content) == sec.size else "resized", sec.size,
                                  len(content)))
        out.sort(key=lambda c: (c.index is None, c.index or 0))
        # what the writer had to move: the section header table, bytes past the last section, and sections of
        # a linked file (offsets there are something other tools may rely on)
        for what, old_off, new_off, size in getattr(w, "moves", ()):
            if isinstance(what, int):
                name, index, kind = elf.section_name(what), what, (c.kind if (c := self.codec_at(what)) else None)
            else:
                name, index, kind = what, None, None
            out.append(Change(index, name, "moved", size, size, kind, {"offset": old_off}, {"offset": new_off}))
        return out


def _fake_section(ws, i):
    from ..formats.base import Section
    return Section(i, ws.name, ws.type, ws.flags, 0, 0, ws.size, ws.link, ws.info, ws.addralign, ws.entsize,
                   _data=ws.content)


def _to_plain(x):
    import json
    return json.loads(json.dumps(x, default=lambda o: o.hex() if isinstance(o, (bytes, bytearray)) else str(o)))


def _exc_text(exc) -> str:
    if isinstance(exc, KeyError):
        return f"missing key {exc.args[0]!r}"
    return f"{type(exc).__name__}: {exc}"


# -- relocations that follow an edited section's contents ----------------------------------------
# Kept relocations are copied as raw entries with only r_offset (the first field in every layout) rewritten,
# so target-specific r_info layouts (MIPS64's, say) are never re-encoded.
def _raw_entries(sess, rel, section=None) -> list:
    s = sess.writer.sections[rel]
    if s.type not in (SHT_REL, SHT_RELA) or s.flags & SHF_COMPRESSED:
        what = "SHT_CREL relocations" if s.type == SHT_CREL else (
            "compressed relocations" if s.flags & SHF_COMPRESSED else f"relocations of type {s.type:#x}")
        target = f" of the edited section [{section.index}] {section.name}" if section is not None else ""
        raise sess.err(f"{what}{target}: this writer updates only plain REL/RELA entries (refused)",
                       sess.elf.sections[rel], offset=0)
    size = (24 if s.type == SHT_RELA else 16) if sess.elf.is64 else (12 if s.type == SHT_RELA else 8)
    data = sess.writer.content(rel)
    return [data[k:k + size] for k in range(0, len(data) - size + 1, size)]


def _with_offset(sess, raw: bytes, offset: int) -> bytes:
    n = sess.elf.addr_size
    return offset.to_bytes(n, "little" if sess.elf.endian == "<" else "big") + raw[n:]


# -- operations ------------------------------------------------------------------------------------
def _run(elf: ElfFile, operations, options=None, defer_verify: bool = False):
    """Apply ``operations`` to an opened ELF file: (the new file's parts, the finished Session)."""
    with no_gc():
        sess = Session(elf, options)
        for op in operations:
            op.apply(sess)
        return sess.finish(defer_verify), sess


def rewrite_object(elf: ElfFile, operations, options=None):
    """Apply ``operations`` to an opened ELF file; returns (new bytes, [Change])."""
    parts, sess = _run(elf, operations, options)
    return _joined(parts), sess.changes()


def _joined(parts) -> bytes:
    return parts[0] if len(parts) == 1 and isinstance(parts[0], bytes) else b"".join(parts)


def rewrite_bytes(data: bytes, operations, path: str = "<bytes>", options=None):
    """Rewrite the ELF file in ``data``; returns (new bytes, [Change])."""
    return rewrite_object(_open_elf(data, path), operations, options)


def _open_elf(data: bytes, path: str) -> ElfFile:
    kind = sniff(data)
    if kind == "archive":
        raise ObjllvmError("archives cannot be rewritten (extract the member, rewrite it, and put it back "
                           "with llvm-ar-19 r)", file=path)
    if kind != "elf":
        raise ObjllvmError(f"only ELF files can be rewritten (this is {kind or 'not an object file'})", file=path,
                           offset=0)
    with no_gc():
        elf = ElfFile(data, path)
    for exc in elf.section_errors.values():
        raise exc               # a section whose bytes are not all there: nothing to rewrite it from
    return elf


def rewrite_file(path: str, output: str | None = None, operations=(), *, in_place: bool = False,
                 dry_run: bool = False, force: bool = True, options=None) -> RewriteResult:
    """Rewrite ``path`` into ``output`` (or into itself with ``in_place``).  ``dry_run`` computes the
    changes and writes nothing.  The output is written atomically with the input's permissions."""
    path = os.fspath(path)
    if in_place:
        if output is not None and os.path.abspath(output) != os.path.abspath(path):
            raise UsageError("give either an output file or --in-place, not both")
        output = path
    elif output is None and not dry_run:
        raise UsageError("no output file: give -o OUT, or --in-place to replace the input, or --dry-run")
    elif output is not None and not dry_run and os.path.exists(output) and os.path.samefile(output, path):
        raise UsageError(f"{output}: the output is the input; use --in-place to replace it")
    from ..formats import map_file
    from ..formats.files import open_regular
    try:
        # Kept open to the end: long runs of its bytes are copied to the output by the kernel, from this file
        # (the one mapped: not the path again, which may name another file by then).
        src = open_regular(path)      # a FIFO or a device is refused, not waited on or read without end
    except OSError as exc:
        raise ObjllvmError(f"cannot read: {exc.strerror}", file=path) from None
    with src:
        try:
            data = map_file(path, src)    # mapped, not read: only the pages the rewrite copies are touched
            st = os.fstat(src.fileno())
        except OSError as exc:
            raise ObjllvmError(f"cannot read: {exc.strerror}", file=path) from None
        parts, sess = _run(_open_elf(data, path), list(operations), options, defer_verify=not dry_run)
        # The list of changes is worked out when asked for (a dry run, --json): a plain rewrite never needs it.
        # The new bytes are written part by part (views of the input where it is copied): never joined unless
        # ``data`` is asked for.  Changed sections are read back from the written file before it takes its name.
        res = RewriteResult(path, None if dry_run else output, sess.changes, lambda: _joined(parts))
        if not dry_run:
            from ..atomicio import atomic_write
            # Synced before it takes its name only when it replaces the input (--in-place): a new output is written
            # as llvm-objcopy, compilers and linkers write theirs (whole or not at all, not forced to disk).
            w = sess.writer
            # (only a file mapped, not read, is copied from: a read copy is what the rewrite saw, the file may not be)
            copies = (src.fileno(), w.out_copies, path) if w.out_copies and parts is w.out_parts and \
                not isinstance(data, bytes) else None
            # --in-place: the file keeps its owner, group, mode (set-user-ID and set-group-ID too) and extended
            # attributes, or is not replaced.  -o: a new file of the user running the rewrite, with the input's
            # mode, less a set-user-ID (set-group-ID) bit when its owner (group) is not the input's.
            if in_place:
                meta = {"owner": (st.st_uid, st.st_gid), "xattrs_from": src.fileno()}
            else:
                meta = {"special_if": (st.st_uid, st.st_gid)}
            dropped = atomic_write(output, parts, force=force or in_place, mode=st.st_mode & 0o7777,
                                   check=sess.verify_written if sess.needs_read_back else None, sync=in_place,
                                   copies=copies, exists="--no-clobber given: not replaced", **meta)
            res.dropped_bits = dropped
            res.written = True
        return res


def describe_changes(result: RewriteResult) -> list:
    """Render items (Table, Text) saying what the rewrite changes: sections and the decoded diff."""
    import difflib
    from ..errors import terminal_text
    from ..render import Heading, Table, Text
    items = [Heading(f"{result.input}: {len(result.changes)} section change(s)"
                     + ("" if result.output is None else f" -> {result.output}"))]
    items.append(Table(["index", "name", "kind", "action", "old size", "new size"],
                       [["" if c.index is None else c.index, c.name, c.kind or "", c.action,
                         "" if c.old_size is None else c.old_size, "" if c.new_size is None else c.new_size]
                        for c in result.changes]))
    for c in result.changes:
        if c.before is None and c.after is None:
            continue
        a, b = _diff_lines(c.before), _diff_lines(c.after)
        name = terminal_text(c.name)    # (the diff's lines are JSON, escaped already; the name is the file's text)
        diff = list(difflib.unified_diff(a, b, (f"[{c.index}] " if c.index is not None else "") + f"{name} (before)",
                                         f"{name} (after)", lineterm="", n=1))
        if diff:
            items.append(Text("\n".join(diff)))
    return items


def _leaves(x, path=""):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _leaves(v, f"{path}.{k}" if path else str(k))
    elif isinstance(x, list) and x:
        for i, v in enumerate(x):
            yield from _leaves(v, f"{path}[{i}]")
    else:
        yield path, x


def _diff_lines(d) -> list:
    """A readable decoded diff: one line per scalar field; one compact JSON line per element of a top-level
    list (an edge, a library), or, for big elements (a function's map), one line per field named by the
    element (``functions[bb_mix].ranges[0].blocks[3].size: 16``)."""
    import json
    if d is None:
        return []
    if not isinstance(d, dict):
        return [json.dumps(d, sort_keys=True)]
    out = []
    for k, v in d.items():
        if isinstance(v, list):
            for i, x in enumerate(v):
                leaves = list(_leaves(x))
                if len(leaves) <= 12:
                    out.append(f"{k}[]: {json.dumps(x, sort_keys=True, separators=(',', ':'))}")
                else:
                    label = x.get("name") if isinstance(x, dict) and x.get("name") else i
                    out.extend(f"{k}[{label}].{p}: {json.dumps(val, separators=(',', ':'))}" for p, val in leaves)
        else:
            out.append(f"{k}: {json.dumps(v, sort_keys=True, separators=(',', ':'))}")
    return out

