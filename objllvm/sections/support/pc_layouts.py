"""PC sections (``!pcsections`` metadata): layouts and the Python API.

The bytes of a PC section do not say how to read them, so the reader needs a
*layout* per section name: whether its entries are functions (PC + size) or
instructions (PCs), whether ``!C`` (ULEB128 constants) was requested, and the
types of the auxiliary constants that follow.  Layouts are written

    NAME:func|insn[:C][:aux=TYPE,TYPE...]

with TYPE one of u8 u16 u32 u64 i8 i16 i32 i64 f32 f64, optionally named
(``aux=flags/u32,count/u8``).  The layouts of what clang's
``-fexperimental-sanitize-metadata`` emits are built in (see BUILTIN_DOC).

    >>> from objllvm import pcsections
    >>> secs = pcsections.read("testdata/pc-sections/sanmd-x86_64.o")
    >>> [(e.pcs[0].symbol, e.size) for e in secs[0].entries]
    >>> secs = pcsections.read("custom.o", layouts=["myinsn:insn:aux=u32"])

What LLVM writes (checked against llc-19/clang-19 output): a function entry is
``[PC][size][constants]``; for instructions, all instructions of one function
that carry the same metadata node give one *group* ``[PC][PC]...[constants]``
(the constants once, after the PCs).  Each PC is stored relative to its own
position (``pc = entry address + signed value``), 4 bytes for the small and
kernel code models, pointer-sized for medium/large.  With ``!C`` the size and
integer constants of 2-8 bytes are ULEB128; 1-byte and floating constants stay
fixed-size.
"""
from __future__ import annotations

from ..._model import dataclass
from ...errors import UsageError

AUX_TYPES = {"u8": 1, "u16": 2, "u32": 4, "u64": 8, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "f32": 4, "f64": 8}

# SanitizerBinaryMetadata feature bits (llvm/Transforms/Instrumentation/SanitizerBinaryMetadata.h).
SANMD_FEATURES = {0: "atomics", 1: "uar", 2: "uar-has-size"}
SANMD_UAR_HAS_SIZE = 1 << 2
SANMD_VERSION_PTR_SIZED = 1 << 16


@dataclass(frozen=True)
class AuxField:
    name: str
    type: str            # one of AUX_TYPES

    @property
    def size(self) -> int:
        return AUX_TYPES[self.type]

    def spec(self) -> str:
        return self.type if self.name == _default_name(self.type) else f"{self.name}/{self.type}"


def _default_name(t: str) -> str:
    return t


@dataclass(frozen=True)
class Layout:
    """How to read one PC section."""
    name: str                      # ELF section name
    kind: str                      # 'func' or 'insn'
    compressed: bool = False       # '!C': size and 2-8 byte integer constants as ULEB128
    aux: tuple = ()                # AuxField...
    pc_width: int | None = None    # fixed by the layout (sanitizer metadata names say it), else None
    builtin: str | None = None     # a short description for built-in layouts
    # Built-in sanitizer metadata: one more constant when the feature word has this bit.
    extra_if_bit: int = 0
    extra: AuxField | None = None
    flag_names: tuple = ()         # ((field name, {bit: name}),) for named bits

    def spec(self) -> str:
        s = f"{self.name}:{self.kind}"
        if self.compressed:
            s += ":C"
        if self.aux:
            s += ":aux=" + ",".join(a.spec() for a in self.aux)
        if self.extra is not None:
            s += f" (+{self.extra.spec()} when {self.aux[0].name} has {self.extra_if_bit:#x})"
        return s

    def fixed_entry_size(self, pc_width: int) -> int | None:
        """Bytes per entry when every part is fixed-size (groups of one PC), else None."""
        if self.extra is not None:
            return None
        n = pc_width
        if self.kind == "func":
            if self.compressed:
                return None
            n += 4
        for a in self.aux:
            if self.compressed and a.type[0] in "ui" and a.size > 1:
                return None
            n += a.size
        return n

    def flag_map(self, field_name: str):
        for n, m in self.flag_names:
            if n == field_name:
                return m
        return None


# (regular expressions compiled when first used: importing re costs start-up time when nothing else has)
_LAYOUT_RE = r"^(?P<name>.+?):(?P<kind>func|insn)(?P<rest>(:[^:]*)*)$"


def parse_layout(text: str) -> Layout:
    """Parse ``NAME:func|insn[:C][:aux=TYPE,...]``; a bad layout is a UsageError."""
    if isinstance(text, Layout):
        return text
    if not isinstance(text, str):
        raise UsageError(f"PC section layout must be a string like 'NAME:func|insn[:C][:aux=u8,u32]', "
                         f"not {type(text).__name__}")
    import re
    m = re.match(_LAYOUT_RE, text.strip())
    if not m:
        raise UsageError(f"bad PC section layout {text!r}: expected NAME:func|insn[:C][:aux=u8,u32,...]")
    name, kind, rest = m.group("name"), m.group("kind"), m.group("rest")
    if "!" in name:
        # The metadata spells options as "name!C"; the ELF section is just "name".
        name, _, opts = name.partition("!")
        if opts.strip("C"):
            raise UsageError(f"bad PC section layout {text!r}: unknown option(s) {opts!r} (only C)")
        rest = (":C" if "C" in opts else "") + rest
    compressed = False
    aux = []
    for part in (p for p in rest.split(":") if p != ""):
        if part == "C":
            compressed = True
        elif part.startswith("aux="):
            for i, t in enumerate(x.strip() for x in part[4:].split(",") if x.strip()):
                fname, _, ftype = t.rpartition("/")
                if ftype not in AUX_TYPES:
                    raise UsageError(f"bad PC section layout {text!r}: unknown constant type {ftype!r} "
                                     f"(known: {', '.join(AUX_TYPES)})")
                aux.append(AuxField(fname or f"c{i}", ftype))
        else:
            raise UsageError(f"bad PC section layout {text!r}: unknown part {part!r} (expected C or aux=...)")
    if not name:
        raise UsageError(f"bad PC section layout {text!r}: no section name")
    return Layout(name, kind, compressed, tuple(aux))


_SANMD_RE = r"^sanmd_(covered|atomics)(\d*)$"

BUILTIN_DOC = """\
sanmd_covered2      functions, !C: PC32, size ULEB, features ULEB (u64), + stack_args ULEB (u32) when features has uar-has-size
sanmd_atomics2      instructions: PC32, no constants
sanmd_covered65538  as sanmd_covered2 with pointer-sized PCs (-mcmodel=medium/large: version 2 | 1<<16)
sanmd_atomics65538  as sanmd_atomics2 with pointer-sized PCs
sanmd_covered       version 1 (LLVM 16): functions: PC32, size u32, features u32
sanmd_atomics       version 1 (LLVM 16): instructions: PC32"""


def builtin_layout(name: str, addr_size: int = 8) -> Layout | None:
    """The layout of a sanitizer-metadata section name (``sanmd_covered2`` ...), else None."""
    if not name.startswith("sanmd_"):       # (most names: no regular expression needed)
        return None
    import re
    m = re.match(_SANMD_RE, name)
    if not m:
        return None
    what, ver = m.group(1), m.group(2)
    if ver == "":
        version = 1
    else:
        if len(ver) > 10:
            return None
        version = int(ver)
    base, ptr = version & 0xFFFF, bool(version & SANMD_VERSION_PTR_SIZED)
    width = addr_size if ptr else 4
    desc = f"sanitizer metadata version {base}" + (" (pointer-sized PCs)" if ptr else "")
    if base == 1:
        if what == "covered":
            return Layout(name, "func", False, (AuxField("features", "u32"),), width, desc,
                          flag_names=(("features", SANMD_FEATURES),))
        return Layout(name, "insn", False, (), width, desc)
    if base == 2:
        if what == "covered":
            return Layout(name, "func", True, (AuxField("features", "u64"),), width, desc,
                          extra_if_bit=SANMD_UAR_HAS_SIZE, extra=AuxField("stack_args", "u32"),
                          flag_names=(("features", SANMD_FEATURES),))
        return Layout(name, "insn", True, (), width, desc)
    return None


def layouts_from_options(options) -> dict:
    """The user layouts of a dump options dict (``pc_section``: list of strings or Layouts), by name."""
    specs = (options or {}).get("pc_section") or ()
    if isinstance(specs, (str, Layout)):
        specs = [specs]
    key = tuple(specs)
    hit = _CACHE.get(key)
    if hit is None:
        hit = {}
        for s in specs:
            lay = parse_layout(s)
            hit[lay.name] = lay
        if len(_CACHE) > 64:
            _CACHE.clear()
        _CACHE[key] = hit
    return hit


_CACHE: dict = {}


def layout_for(name: str, options, addr_size: int = 8) -> Layout | None:
    """A user layout for ``name`` wins over a built-in one."""
    user = layouts_from_options(options)
    if name in user:
        return user[name]
    return builtin_layout(name, addr_size)


def pc_width_option(options) -> int | None:
    w = (options or {}).get("pc_width")
    if w in (None, ""):
        return None
    try:
        w = int(w)
    except (TypeError, ValueError):
        raise UsageError(f"--pc-width must be 4 or 8, not {w!r}") from None
    if w not in (4, 8):
        raise UsageError(f"--pc-width must be 4 or 8, not {w}")
    return w


def feature_names(value: int, names: dict) -> list:
    out = []
    for bit in range(64):
        if value >> bit & 1:
            out.append(names.get(bit, f"bit{bit}"))
    return out


# -- API -----------------------------------------------------------------------------------------
def options(layouts=None, pc_width=None) -> dict:
    """The dump options for PC sections (for ``objllvm.api.dump(..., options=...)``)."""
    lays = [layouts] if isinstance(layouts, (str, Layout)) else list(layouts or [])
    for x in lays:
        parse_layout(x)      # a bad layout is a UsageError now, not later
    return {"pc_section": lays, "pc_width": pc_width}


def read(path: str, layouts=None, pc_width=None) -> list:
    """Every PC section in ``path`` (a file or archive) as decoded models; raise on the first error.

    ``layouts``: layout strings (or :class:`Layout`) for sections other than the built-in ones.
    ``pc_width``: 4 or 8 to override the PC width.
    """
    from ..registry import decode_file
    return decode_file(path, "pc-sections", options(layouts, pc_width))


__all__ = ["Layout", "AuxField", "parse_layout", "builtin_layout", "layout_for", "read", "options",
           "SANMD_FEATURES", "BUILTIN_DOC", "feature_names"]
