"""Walk files and directories and collect every request an object makes of the linker.

``walk(paths)`` yields regular files (following directory symlinks, each directory and file once, so
symlink loops end).  ``scan_file(path)`` reads the first bytes, skips anything that is not an object or
archive, and returns the requests found (plain tuples, cheap to send between processes).  An ELF object (a
file or an archive member) whose section header and name tables show no section of a type or name
``scan_object`` looks at is counted and read no further (formats/elfscan.py); the others are read by the ELF
reader, and their sections decoded through the codec registry (``registry.decode_section``): the same decoding
path as ``dump``.
"""
from __future__ import annotations

import os
import re
import stat
from itertools import compress

from ..sections.support.instrprof import role_names, section_role
from ..formats import sniff
from ..formats.archive import HEADER_SIZE, THIN_MAGIC, iter_headers, thin_member_bytes
from ..formats.elfscan import FileReader, Wanted, section_indices
from ..errors import ObjllvmError

MIN_BITCODE = 4                  # bytes: a bitcode section smaller than its magic is only a marker
HEAD = 64                        # bytes read to decide whether a file is an object at all

# Request kinds
LIBRARY, LIBPATH, OPTION, BITCODE, CMDLINE, UNREADABLE = "library", "libpath", "option", "bitcode", "cmdline", \
    "unreadable"
INSTRUMENTATION = "instrumentation"     # one request per object: value = its profile/coverage section names
SANITIZER = "sanitizer"                 # one request per object: value = the sanitizer tables it has
# A request in a section linkers ignore (its ELF type contradicts its name, e.g. an SHT_PROGBITS .deplibs):
# key "KIND:KEY" (KIND what it would be); counted as KIND only when the policy says so ([mistyped] count)
IGNORED = "ignored"

# A request: (kind, file, member, section, key, value, library, size, format)
#   kind     one of the above
#   key      how it was asked: 'lib', 'libpath', 'deplib', 'DEFAULTLIB', '-l', '-framework', option name...
#   value    the value as written (for cmdline: the arguments joined by spaces; unreadable: the reason)
#   library  the normalised library name (LIBRARY only)
#   size     section size (BITCODE / CMDLINE)
#   format   'elf' / 'coff' / 'macho' / 'bitcode' / ''

_BITCODE_NAMES = {".llvmbc", ".llvm.lto", "__LLVM,__bitcode", "__LLVM,__bundle"}
_CMDLINE_NAMES = {".llvmcmd", "__LLVM,__cmdline"}
_REQUEST_NAMES = {".linker-options", ".deplibs", ".drectve", "LC_LINKER_OPTION"}
# Sections only a sanitizer-instrumented build has (ELF names, and Mach-O's segment,section): the table each is
_SANITIZER_NAMES = {"asan_globals": "asan-globals", "__sancov_guards": "sancov-guards",
                    "__sancov_cntrs": "sancov-cntrs", "__sancov_bools": "sancov-bools", "__sancov_pcs": "sancov-pcs",
                    "__DATA,__asan_globals": "asan-globals", "__DATA,__sancov_guards": "sancov-guards",
                    "__DATA,__sancov_cntrs": "sancov-cntrs", "__DATA,__sancov_bools": "sancov-bools",
                    "__DATA_CONST,__sancov_pcs": "sancov-pcs", "__DATA,__sancov_pcs": "sancov-pcs"}
_INTERESTING_NAMES = _BITCODE_NAMES | _CMDLINE_NAMES | _REQUEST_NAMES
_ELF_TYPES = {0x6FFF4C01: "linker-options", 0x6FFF4C04: "deplibs", 0x6FFF4C0C: "bitcode"}
_REQUEST_KINDS = {"linker-options", "deplibs", "coff-directives", "macho-linker-options", "llvmcmd"}
_ELF_NAMES = _INTERESTING_NAMES | role_names("elf") | set(_SANITIZER_NAMES)   # every ELF name scan_object reads
_WANTED = Wanted(_ELF_TYPES, _ELF_NAMES)

_LIB_SUFFIX = re.compile(r"^(.+?)\.(a|so(\.[0-9][0-9.]*)?|lib|dylib|tbd|dll|dll\.a)$", re.I)


def library_name(value: str, fmt: str = "") -> str:
    """The library name a request is matched by.

    ``-lssl`` / ``-l:libssl.a`` -> ``ssl``; directories are dropped; a file suffix (``.a``, ``.so[.N]``,
    ``.lib``, ``.dylib``, ``.tbd``, ``.dll``) is removed and then a ``lib`` prefix (``libssl.a`` -> ``ssl``,
    ``ssl.lib`` -> ``ssl``, ``libcrypto.lib`` -> ``crypto``); a name without a suffix is kept as it is.
    COFF names are folded to lower case (Windows file names ignore case)."""
    v = value.strip()
    if v.startswith("-l"):
        v = v[2:]
    if v.startswith(":"):
        v = v[1:]
    base = re.split(r"[\\/]", v)[-1] or v
    if fmt == "coff":
        base = base.lower()
    m = _LIB_SUFFIX.match(base)
    if m:
        base = m.group(1)
        if base.startswith("lib") and len(base) > 3:
            base = base[3:]
    return base


# -- walking ---------------------------------------------------------------------------------------
def walk(paths, on_error=None):
    """Yield the regular files under ``paths`` (files or directories), sorted per directory.
    Directory symlinks are followed; a directory or file already seen (same device and inode) is not
    visited again.  ``on_error(path, reason)`` is called for paths that cannot be listed or stat'ed."""
    seen_dirs, seen_files = set(), set()
    for top in paths:
        top = os.fspath(top)
        try:
            st = os.stat(top)
        except OSError as exc:
            if on_error:
                on_error(top, f"cannot read: {exc.strerror}")
            continue
        if stat.S_ISDIR(st.st_mode):
            yield from _walk_dir(top, st, seen_dirs, seen_files, on_error)
        elif stat.S_ISREG(st.st_mode):
            key = (st.st_dev, st.st_ino)
            if key not in seen_files:
                seen_files.add(key)
                yield top
        elif on_error:
            on_error(top, "not a regular file or directory")


def _walk_dir(top, st, seen_dirs, seen_files, on_error):
    stack = [(top, (st.st_dev, st.st_ino))]
    while stack:
        d, key = stack.pop()
        if key in seen_dirs:
            continue
        seen_dirs.add(key)
        try:
            with os.scandir(d) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            if on_error:
                on_error(d, f"cannot list directory: {exc.strerror}")
            continue
        dev = key[0]
        subdirs = []
        for e in entries:
            try:
                if e.is_symlink():
                    est = os.stat(e.path)          # follows the link; a loop or dangling link raises
                    mode, ekey = est.st_mode, (est.st_dev, est.st_ino)
                elif e.is_dir(follow_symlinks=False):
                    mode, ekey = stat.S_IFDIR, (dev, e.inode())
                elif e.is_file(follow_symlinks=False):
                    mode, ekey = stat.S_IFREG, (dev, e.inode())
                else:
                    continue                       # FIFOs, sockets, devices: never opened
            except OSError as exc:
                if on_error:
                    on_error(e.path, f"cannot read: {exc.strerror}")
                continue
            if stat.S_ISDIR(mode):
                if ekey not in seen_dirs:
                    subdirs.append((e.path, ekey))
            elif stat.S_ISREG(mode) and ekey not in seen_files:
                seen_files.add(ekey)
                yield e.path
        stack.extend(reversed(subdirs))


# -- scanning --------------------------------------------------------------------------------------
def scan_file(path: str):
    """(status, objects, requests) for one file.  status: 'object' (an object or archive was read),
    'skipped' (not an object: first bytes) or 'unreadable'."""
    from ..formats import open_regular
    out = []
    try:
        with open_regular(path, buffering=0) as f:
            reader = FileReader(f)          # (read by pread: no buffer)
            head = reader.read(0, HEAD)
            kind = sniff(head)
            if kind is None:
                return "skipped", 0, []
            nobj = _scan_open(f, reader, path, kind, head, out)
    except OSError as exc:
        return "unreadable", 0, [(UNREADABLE, path, None, None, "", f"cannot read: {exc.strerror}", None, 0, "")]
    except ObjllvmError as exc:        # not a regular file (walk gives only regular files; named ones too)
        return "unreadable", 0, [(UNREADABLE, path, None, None, "", exc.message, None, 0, "")]
    return "object", nobj, out


def _scan_open(f, reader, path, kind, head, out) -> int:
    """The number of objects in the open file ``f`` (read through ``reader``, a FileReader; of ``kind``;
    ``head``: its first bytes); their requests
    and what could not be read appended to ``out``.  An ELF object or a member of a (not thin) archive is first
    looked at through its header and name tables (by pread: formats/elfscan.py) and read as a whole, from a map
    of the file, only when it has a section scan_object looks at, or headers that are not plain."""
    from ..formats import map_file
    try:
        size = os.fstat(f.fileno()).st_size
        if kind == "elf" and section_indices(reader, 0, size, _WANTED, head) == []:
            return 1
        if kind == "archive":
            return _scan_archive(f, path, size, reader, head[:8] == THIN_MAGIC, out)
        f.seek(0)
        return _scan_data(map_file(path, f), path, None, kind, out)
    except OSError as exc:
        out.append((UNREADABLE, path, None, None, "", f"cannot read: {exc.strerror}", None, 0, ""))
    except ObjllvmError as exc:
        out.append(_unreadable(exc.located(file=path), path, None))
    except Exception as exc:           # a bug in objllvm: say so, and go on with the other files
        out.append((UNREADABLE, path, None, None, "", f"internal error ({type(exc).__name__}: {exc}): "
                    "this is a bug in objllvm", None, 0, ""))
    return 0


def _scan_archive(f, path, size, reader, thin, out) -> int:
    """The objects of the archive open as ``f``: each member header read once, in order; a member that is not
    a plain ELF object without audited sections is read from a map of the archive (from its own file, in a thin
    archive).  A broken member header ends the walk: an ``unreadable`` request, after the members before it."""
    from ..formats import map_file
    nobj = 0
    mapped = None
    try:
        for name, pos, msize, body, special, first in iter_headers(reader.read, size, path, thin, HEAD):
            if special:
                continue
            try:
                if thin:
                    mdata = thin_member_bytes(path, name, pos)
                    first = mdata[:HEAD]
                elif section_indices(reader, body, msize, _WANTED, first, 1 + HEADER_SIZE + HEAD) == []:
                    nobj += 1
                    continue
                mkind = sniff(first)
                if mkind is None or mkind == "archive":
                    continue        # e.g. an .rlib's lib.rmeta: not an object
                if not thin:
                    if mapped is None:
                        f.seek(0)
                        mapped = map_file(path, f)
                    mdata = memoryview(mapped)[body:body + msize]
                    if mkind != "elf":
                        mdata = mdata.tobytes()     # (the other containers read bytes)
                nobj += _scan_data(mdata, path, name, mkind, out)
            except ObjllvmError as exc:
                exc.located(file=path, member=name)
                out.append(_unreadable(exc, path, name))
    except ObjllvmError as exc:
        out.append(_unreadable(exc.located(file=path), path, None))
    return nobj


def _unreadable(exc, path, member):
    sec = exc.section_name
    return (UNREADABLE, path, member, sec, "", str(exc), None, 0, "")


def _scan_data(data, path, member, kind, out) -> int:
    """Requests of every object in ``data``; returns the number of objects."""
    if kind == "bitcode":               # a raw bitcode file (an LTO object): all of it is bitcode
        out.append((BITCODE, path, member, "(whole file)", "", "", None, len(data), "bitcode"))
        return 1
    if kind == "elf":
        # What is wrong in the headers, the name table and the sections scan_object read is reported; a broken
        # section it does not read is not looked at (as the objects found plain by elfscan are not read at all)
        from ..formats.elf import ElfFile
        elf = ElfFile(data, path, member)
        start = len(out)
        read = {s.index for s in scan_object(elf, out)}
        read.add(elf.e_shstrndx)
        for exc in (*elf.file_errors, *(e for i, e in elf.section_errors.items() if i in read),
                    *(e for i, e in elf.empty_past_end.items() if i in read)):
            r = _unreadable(exc, path, exc.member or member)
            if r not in out[start:]:        # (a section's header error is also its decoding's)
                out.append(r)
        return 1
    from ..formats import open_data
    n = 0
    for obj in open_data(data, path, member, kind=kind):
        if isinstance(obj, ObjllvmError):
            out.append(_unreadable(obj, path, obj.member or member))
            continue
        n += 1
        scan_object(obj, out)
    return n


def scan_object(obj, out) -> list:
    """Append the requests of one object (an ObjectFile) to ``out``; return the sections looked at."""
    fmt = obj.format
    path, member = obj.path, obj.member
    instr = {}
    sanitizer = {}
    sections = _sections_to_scan(obj)
    for s in sections:
        name = s.name
        what = _ELF_TYPES.get(s.type) if fmt == "elf" else None
        table = _SANITIZER_NAMES.get(name) if what is None else None
        if table is not None:
            n, size = sanitizer.get(table, (0, 0))
            sanitizer[table] = (n + 1, size + s.size)
            continue
        if what is None and name not in _INTERESTING_NAMES:
            role = section_role(s, obj)
            if role is not None:
                n, size = instr.get(role, (0, 0))
                instr[role] = (n + 1, size + s.size)
            continue
        if what == "bitcode" or name in _BITCODE_NAMES:
            if s.size >= MIN_BITCODE:      # smaller: a -fembed-bitcode=marker placeholder, no IR in it
                out.append((BITCODE, path, member, name, "", "", None, s.size, fmt))
            continue
        from ..sections.registry import decode_section    # (only objects with requests need the codecs)
        d = decode_section(obj, s)
        if d.codec is None or d.codec.kind not in _REQUEST_KINDS:
            continue
        if d.error is not None:
            out.append(_unreadable(d.error, path, member))
        if d.model is not None:
            if d.mistyped:
                # linkers ignore it (its type is not the one its name calls for): its requests are IGNORED,
                # counted as requests only when the policy says so ([mistyped] count = true)
                start = len(out)
                _requests(d.codec.kind, d.model, fmt, path, member, name, s.size, out)
                out[start:] = [(IGNORED, *r[1:4], f"{r[0]}:{r[4]}", *r[5:]) for r in out[start:]]
                if len(out) == start:
                    out.append((IGNORED, path, member, name, "", "", None, s.size, fmt))
            else:
                _requests(d.codec.kind, d.model, fmt, path, member, name, s.size, out)
    if instr:
        count = sum(n for n, _ in instr.values())
        roles = ", ".join(r for r in ("covmap", "covfun", "data", "cnts", "names", "bits", "vals", "vnds", "vtab",
                                      "vns", "covnames") if r in instr)
        out.append((INSTRUMENTATION, path, member, f"{count} profile/coverage sections", "", roles, None,
                    sum(sz for _, sz in instr.values()), fmt))
    if sanitizer:
        count = sum(n for n, _ in sanitizer.values())
        out.append((SANITIZER, path, member, f"{count} sanitizer sections", "", ", ".join(sorted(sanitizer)), None,
                    sum(sz for _, sz in sanitizer.values()), fmt))
    return sections


def _sections_to_scan(obj) -> list:
    """The sections scan_object must look at.  ELF: those of a request type or with a name it knows, found
    from the header columns and the section name table, so that no Section is made for the others (most of
    an object's: about a third of an audit's time when it made them all); other containers: all."""
    if _elf_columns(obj) is None:
        return obj.sections
    types = obj.section_types
    found = set(compress(range(len(types)), map(_ELF_TYPES.__contains__, types)))
    found.update(obj.indices_named(_ELF_NAMES))
    return [obj.section(i) for i in sorted(found)]


def _elf_columns(obj):
    """The ELF header columns of ``obj`` when it has them (an ElfFile), else None."""
    return obj.__dict__.get("columns") if obj.format == "elf" else None


def _requests(kind, model, fmt, path, member, sec, size, out):
    def add(k, key, value, lib=None, sz=0):
        out.append((k, path, member, sec, key, value, lib, sz, fmt))

    if kind == "deplibs":
        for v in model.libraries:
            add(LIBRARY, "deplib", v, library_name(v, fmt))
    elif kind == "linker-options":
        for o in model.options:
            if o.key == "lib":
                add(LIBRARY, "lib", o.value, library_name(o.value, fmt))
            elif o.key == "libpath":
                add(LIBPATH, "libpath", o.value)
            else:
                add(OPTION, o.key, o.value)
    elif kind == "coff-directives":
        for d in model.directives:
            if d.option == "DEFAULTLIB" and d.value is not None:
                add(LIBRARY, d.name or "DEFAULTLIB", d.value, library_name(d.value, fmt))
            elif d.option == "LIBPATH" and d.value is not None:
                add(LIBPATH, d.name or "LIBPATH", d.value)
            elif d.option is None:
                add(OPTION, "", d.value or "")
            else:
                add(OPTION, "/" + d.name, "" if d.value is None else d.value)
    elif kind == "macho-linker-options":
        _macho_requests(model.strings, add, fmt)
    elif kind == "llvmcmd":
        if any(model.arguments):          # rustc writes an empty .llvmcmd: nothing leaks
            add(CMDLINE, "", " ".join(model.arguments), None, size)


def _macho_requests(strings, add, fmt):
    if not strings:
        return
    first, rest = strings[0], strings[1:]
    if first in ("-framework", "-weak_framework", "-needed_framework", "-reexport_framework") and rest:
        add(LIBRARY, first, rest[0], rest[0])
    elif first in ("-l", "-weak-l", "-needed-l", "-reexport-l") and rest:
        add(LIBRARY, first, rest[0], library_name(rest[0], fmt))
    elif re.match(r"^-(weak-|needed-|reexport-|lazy-)?l.", first) and not rest:
        flag, lib = re.match(r"^(-(?:weak-|needed-|reexport-|lazy-)?l)(.+)$", first).groups()
        add(LIBRARY, flag, first, library_name(lib, fmt))
    elif first in ("-L", "-F") and rest:
        add(LIBPATH, first, rest[0])
    elif first[:2] in ("-L", "-F") and len(first) > 2 and not rest:
        add(LIBPATH, first[:2], first[2:])
    else:
        add(OPTION, first, " ".join(rest))


def scan_chunk(paths):
    """Worker entry point: scan a list of files."""
    return [(p, *scan_file(p)) for p in paths]
