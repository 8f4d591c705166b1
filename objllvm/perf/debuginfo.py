"""Names for a stripped binary: its separate debug file (or the unstripped file) found as gdb and perf find it.

A binary stripped by GNU ``strip`` keeps its basic-block map (a section strip does not know) but loses
``.symtab``, so the map's functions have no names; ``llvm-strip`` drops the map too.  The debug file split off
it (``objcopy --only-keep-debug``) or the unstripped binary has both.  It is looked for:

* ``--debug-file PATH`` (the command line), checked by build-id when both files have one;
* by build-id ``ab/cdef...``: ``ROOT/.build-id/ab/cdef....debug`` for each debug root (``OBJLLVM_DEBUG_ROOT``, a
  list like PATH, then ``/usr/lib/debug``), and the debuginfod client cache
  (``$DEBUGINFOD_CACHE_PATH`` or ``~/.cache/debuginfod_client``) ``/abcdef.../debuginfo``;
* by ``.gnu_debuglink`` (a file name and the CRC-32 of that file): in the binary's directory, its ``.debug/``
  subdirectory, and ``ROOT/<the binary's directory>/`` for each debug root.

A file found is used when its build-id equals the binary's (debuglink: when its CRC matches).
"""
from __future__ import annotations

import os
import struct
import zlib

from .._model import dataclass, field
from ..errors import ObjllvmError

SYSTEM_DEBUG_ROOT = "/usr/lib/debug"


def elf_build_id(obj) -> bytes | None:
    """The GNU build-id (NT_GNU_BUILD_ID note) of an ELF file, or None."""
    e = getattr(obj, "endian", "<")
    for s in getattr(obj, "sections", []):
        if s.type != 7:          # SHT_NOTE
            continue
        data = s.data()
        p = 0
        while p + 12 <= len(data):
            namesz, descsz, ntype = struct.unpack_from(e + "III", data, p)
            name_end = p + 12 + namesz
            desc = name_end + (-namesz % 4)
            if desc + descsz > len(data):
                break
            if ntype == 3 and data[p + 12:name_end].rstrip(b"\0") == b"GNU":
                return bytes(data[desc:desc + descsz])
            p = desc + descsz + (-descsz % 4)
    return None


def same_build_id(a: bytes, b: bytes) -> bool:
    """Equal, allowing for perf's zero padding of short ids to 20 bytes."""
    n = min(len(a), len(b))
    return a[:n] == b[:n] and not a[n:].strip(b"\0") and not b[n:].strip(b"\0")


@dataclass
class DebugSource:
    """Where the names of a binary's functions came from (or were looked for)."""
    binary: str
    stripped: bool                      # the binary has no .symtab
    debug_file: str | None = None       # the file used
    how: str | None = None              # "--debug-file", "build-id", "debuginfod cache", ".gnu_debuglink"
    named: int = 0                      # functions of the map named from it
    unnamed: int = 0                    # functions of the map still without a name
    map_from_debug_file: bool = False   # the binary has no map (llvm-strip): the debug file's map is used
    tried: list = field(default_factory=list)      # paths looked at
    looked: list = field(default_factory=list)     # the same, said shortly (for messages)

    def to_dict(self) -> dict:
        return {"binary": self.binary, "stripped": self.stripped, "debug_file": self.debug_file, "how": self.how,
                "named": self.named, "unnamed": self.unnamed, "map_from_debug_file": self.map_from_debug_file,
                "tried": self.tried, "looked": self.looked}

    def no_names_message(self) -> str:
        looked = "; ".join(self.looked) or "nowhere (no build-id, no .gnu_debuglink)"
        return (f"{self.binary} is stripped: {self.unnamed} functions of its basic-block map have no name, and no "
                f"debug file or unstripped copy was found (looked in: {looked}): give --debug-file PATH (the "
                f"unstripped binary, or the file of objcopy --only-keep-debug), or a debug root in "
                f"OBJLLVM_DEBUG_ROOT holding .build-id/")


def debug_roots() -> list:
    env = os.environ.get("OBJLLVM_DEBUG_ROOT", "")
    roots = [r for r in env.split(os.pathsep) if r]
    return roots + [SYSTEM_DEBUG_ROOT]


def debuginfod_cache() -> str:
    p = os.environ.get("DEBUGINFOD_CACHE_PATH")
    if p:
        return p
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "debuginfod_client")


def has_symtab(obj) -> bool:
    return any(s.type == 2 for s in obj.sections)       # SHT_SYMTAB


def gnu_debuglink(obj):
    """``(file name, crc32)`` of the ``.gnu_debuglink`` section, or None."""
    for s in obj.sections:
        if s.name == ".gnu_debuglink":
            data = bytes(s.data())
            nul = data.find(b"\0")
            if nul <= 0:
                return None
            crc_at = (nul + 4) & ~3
            if crc_at + 4 > len(data):
                return None
            name = data[:nul].decode("utf-8", "surrogateescape")
            if "/" in name or name in (".", ".."):
                return None                      # a bare file name, as gdb requires
            return name, struct.unpack_from(getattr(obj, "endian", "<") + "I", data, crc_at)[0]
    return None


def _crc32(path: str) -> int | None:
    crc = 0
    try:
        with open(path, "rb") as f:
            while True:
                b = f.read(1 << 20)
                if not b:
                    return crc & 0xFFFFFFFF
                crc = zlib.crc32(b, crc)
    except OSError:
        return None


def candidates(obj, path: str):
    """``(path, how, check)`` in search order; ``check``: "build-id" or ("crc", value)."""
    bid = elf_build_id(obj)
    if bid:
        h = bid.hex()
        for root in debug_roots():
            yield os.path.join(root, ".build-id", h[:2], h[2:] + ".debug"), "build-id", "build-id"
        yield os.path.join(debuginfod_cache(), h, "debuginfo"), "debuginfod cache", "build-id"
    link = gnu_debuglink(obj)
    if link:
        name, crc = link
        d = os.path.dirname(os.path.abspath(path))
        for p in [os.path.join(d, name), os.path.join(d, ".debug", name)] + \
                 [os.path.join(root + d, name) for root in debug_roots()]:
            if os.path.abspath(p) != os.path.abspath(path):
                yield p, ".gnu_debuglink", ("crc", crc)


def _same_build(obj, other) -> bool | None:
    a, b = elf_build_id(obj), elf_build_id(other)
    if a and b:
        return same_build_id(a, b)
    return None


def find_debug_file(obj, path: str, src: DebugSource, debug_file: str | None = None):
    """The ObjectFile of the debug (or unstripped) file of ``obj``, or None; ``src`` records the search."""
    from ..formats import open_object
    if debug_file is not None:
        dobj = open_object(debug_file)
        if _same_build(obj, dobj) is False:
            raise ObjllvmError(f"--debug-file {debug_file} is of another build than {path} (build-ids differ)",
                               file=debug_file)
        src.debug_file, src.how = debug_file, "--debug-file"
        return dobj
    bid = elf_build_id(obj)
    if bid:
        src.looked.append(", ".join(os.path.join(r, ".build-id", bid.hex()[:2], bid.hex()[2:] + ".debug")
                                    for r in debug_roots()) + ", " + os.path.join(debuginfod_cache(), bid.hex(),
                                                                                  "debuginfo"))
    link = gnu_debuglink(obj)
    if link:
        src.looked.append(f"{link[0]} (.gnu_debuglink) beside the binary, in its .debug/ and under the debug roots")
    for p, how, check in candidates(obj, path):
        src.tried.append(p)
        if not os.path.isfile(p):
            continue
        if check != "build-id" and _crc32(p) != check[1]:
            continue
        try:
            dobj = open_object(p)
        except ObjllvmError:
            continue
        if check == "build-id" and _same_build(obj, dobj) is not True:
            continue
        src.debug_file, src.how = p, how
        return dobj
    return None


def name_functions(index, dobj) -> int:
    """Give the unnamed functions of ``index`` the STT_FUNC names of ``dobj`` at their addresses; return how
    many got one."""
    names = dobj.function_names()
    n = 0
    for f in index.functions:
        if not f.name:
            nm = names.get(f.address)
            if nm:
                f.name = nm
                n += 1
    return n
