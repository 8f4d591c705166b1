"""An LLVM sample profile (the text format ``clang -fprofile-sample-use`` reads) from instruction-pointer samples.

AutoFDO without branch records: the samples of a :class:`~objllvm.perf.mapping.Profile` give each basic block
an estimated execution count (:func:`objllvm.perf.layout.block_counts`: samples per instruction); the DWARF line
table of the binary (built with ``-gline-tables-only -fdebug-info-for-profiling``) says which source line,
discriminator and inline stack each address belongs to.  A source location gets the largest count of the blocks
its instructions lie in (every instruction of a line runs as often as the line; the largest count is the least
diluted by instructions that stall less), as llvm-profgen and create_llvm_prof do with their counts.

The text format (llvm/lib/ProfileData/SampleProfReader.cpp, ``readImpl`` of the text reader; documented in
llvm/docs/SampleProfile... and clang's user manual, "Sample Profile Text Format")::

    function:TOTAL:HEAD
     LINE_OFFSET[.DISCRIMINATOR]: SAMPLES
     LINE_OFFSET[.DISCRIMINATOR]: INLINED_CALLEE:TOTAL
      LINE_OFFSET[.DISCRIMINATOR]: SAMPLES          (the callee's lines, one more space of indentation)

A line offset is the source line minus the line of the function's ``DISubprogram`` (``DW_AT_decl_line``); the
location of an inlined call is the call's line (``DW_AT_call_line``) minus the caller's line, with the call's
discriminator (``DW_AT_GNU_discriminator``).  Discriminators in the line table are encoded
(llvm/include/llvm/Support/Discriminator.h): the profile carries the base discriminator, its first component.
"""
from __future__ import annotations

import bisect

from .._model import dataclass, field
from ..errors import ObjllvmError

COUNT_SCALE = 100      # counts: estimated executions per block x 100, rounded (the g-line scale)


def base_discriminator(d: int) -> int:
    """The base discriminator of an encoded line-table discriminator (a prefix-encoded first component: bit 0
    set means none; 5 bits, or 12 with bit 5 of the shifted value as the continuation flag)."""
    if d & 1:
        return 0
    d >>= 1
    return (((d >> 1) & 0xFE0) | (d & 0x1F)) if d & 0x20 else (d & 0x1F)


@dataclass
class Inline:
    """A range of code inlined from ``callee`` (its start line ``line``) at ``call_line``/``call_disc`` of the
    enclosing function."""
    low: int
    high: int
    callee: str
    line: int
    call_line: int
    call_disc: int
    depth: int


@dataclass
class DwarfFunction:
    name: str               # the linkage name when there is one (what the profile reader matches)
    line: int               # DW_AT_decl_line
    low: int
    high: int
    inlines: list = field(default_factory=list)     # Inline, outermost first


@dataclass
class LineRow:
    address: int
    end: int
    line: int
    discriminator: int      # base discriminator


def _name_of(die):
    for attr in ("DW_AT_linkage_name", "DW_AT_MIPS_linkage_name", "DW_AT_name"):
        if attr in die.attributes:
            v = die.attributes[attr].value
            return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)
    for attr in ("DW_AT_abstract_origin", "DW_AT_specification"):
        if attr in die.attributes:
            return _name_of(die.get_DIE_from_attribute(attr))
    return None


def _decl_line(die):
    for _ in range(4):
        if "DW_AT_decl_line" in die.attributes:
            return die.attributes["DW_AT_decl_line"].value
        for attr in ("DW_AT_abstract_origin", "DW_AT_specification"):
            if attr in die.attributes:
                die = die.get_DIE_from_attribute(attr)
                break
        else:
            return 0
    return 0


def _ranges(die, dwarf, cu):
    """``[(low, high)]`` of a DIE (low_pc/high_pc or DW_AT_ranges)."""
    a = die.attributes
    if "DW_AT_low_pc" in a and "DW_AT_high_pc" in a:
        low = a["DW_AT_low_pc"].value
        high = a["DW_AT_high_pc"].value
        if a["DW_AT_high_pc"].form not in ("DW_FORM_addr", "DW_FORM_addrx", "DW_FORM_addrx1", "DW_FORM_addrx2",
                                            "DW_FORM_addrx4"):
            high = low + high
        return [(low, high)]
    if "DW_AT_ranges" in a:
        rl = dwarf.range_lists()
        if rl is None:
            return []
        base = cu.get_top_DIE().attributes.get("DW_AT_low_pc")
        base = base.value if base is not None else 0
        out = []
        try:
            # (pyelftools gives a DW_FORM_rnglistx value already as the offset of the list)
            entries = rl.get_range_list_at_offset(a["DW_AT_ranges"].value, cu=cu)
        except Exception:       # noqa: BLE001 - an unreadable range list: the DIE has no usable range
            return []
        for e in entries:
            name = type(e).__name__
            if name == "BaseAddressEntry":
                base = e.base_address
            elif hasattr(e, "begin_offset"):
                if getattr(e, "is_absolute", False):
                    out.append((e.begin_offset, e.end_offset))
                else:
                    out.append((base + e.begin_offset, base + e.end_offset))
        return out
    return []


def read_dwarf(path: str):
    """``(functions sorted by address, line rows sorted by address)`` of an ELF file's DWARF."""
    try:
        from elftools.common.exceptions import ELFError, DWARFError
        from elftools.elf.elffile import ELFFile
    except ImportError:
        raise ObjllvmError("perf-map --sample-profile reads DWARF with pyelftools: pip install 'objllvm[dwarf]'") \
            from None
    funcs, rows = [], []
    with open(path, "rb") as f:
        try:
            elf = ELFFile(f)
            if not elf.has_dwarf_info():
                raise ObjllvmError(f"{path}: no DWARF (build with -gline-tables-only -fdebug-info-for-profiling)")
            # a linked file: its DWARF is final (relocations kept by --emit-relocs must not be applied again)
            dwarf = elf.get_dwarf_info(relocate_dwarf_sections=False)
            for cu in dwarf.iter_CUs():
                _read_cu(dwarf, cu, funcs)
                lp = dwarf.line_program_for_CU(cu)
                if lp is None:
                    continue
                prev = None
                for entry in lp.get_entries():
                    st = entry.state
                    if st is None:
                        continue
                    if prev is not None and st.address >= prev.address:
                        if prev.line:
                            rows.append(LineRow(prev.address, st.address, prev.line,
                                                base_discriminator(prev.discriminator)))
                    prev = None if st.end_sequence else _Row(st.address, st.line, st.discriminator)
        except (ELFError, DWARFError, ValueError, KeyError, IndexError, AssertionError) as e:
            raise ObjllvmError(f"{path}: unreadable DWARF: {e}") from None
    funcs.sort(key=lambda fn: fn.low)
    rows.sort(key=lambda r: r.address)
    return funcs, rows


@dataclass
class _Row:
    address: int
    line: int
    discriminator: int


def _read_cu(dwarf, cu, funcs):
    top = cu.get_top_DIE()

    def walk(die, fn, depth):
        for child in die.iter_children():
            tag = child.tag
            if tag == "DW_TAG_subprogram" and fn is None:
                rs = _ranges(child, dwarf, cu)
                name = _name_of(child)
                if rs and name:
                    lo, hi = min(r[0] for r in rs), max(r[1] for r in rs)
                    f = DwarfFunction(name, _decl_line(child), lo, hi)
                    funcs.append(f)
                    walk(child, f, 0)
                continue
            if tag == "DW_TAG_inlined_subroutine" and fn is not None:
                a = child.attributes
                callee = _name_of(child)
                call_line = a["DW_AT_call_line"].value if "DW_AT_call_line" in a else 0
                disc = a["DW_AT_GNU_discriminator"].value if "DW_AT_GNU_discriminator" in a else 0
                for lo, hi in _ranges(child, dwarf, cu):
                    fn.inlines.append(Inline(lo, hi, callee or "", _decl_line(child), call_line,
                                             base_discriminator(disc) if disc & 1 == 0 else 0, depth))
                walk(child, fn, depth + 1)
                continue
            if tag in ("DW_TAG_lexical_block", "DW_TAG_namespace", "DW_TAG_class_type", "DW_TAG_structure_type"):
                walk(child, fn, depth)
    walk(top, None, 0)


def _inline_stack(fn: DwarfFunction, addr: int) -> list:
    """The inlined ranges holding ``addr``, outermost first (one per depth)."""
    out = []
    for inl in fn.inlines:
        if inl.low <= addr < inl.high:
            while out and out[-1].depth >= inl.depth:
                out.pop()
            out.append(inl)
    out.sort(key=lambda i: i.depth)
    return out


class FunctionSamples:
    """One function's samples: body counts per ``(line offset, discriminator)`` and inlined callees per call
    location and name."""

    def __init__(self, name: str):
        self.name = name
        self.head = 0
        self.body = {}          # (offset, disc) -> count
        self.calls = {}         # ((offset, disc), callee) -> FunctionSamples

    def total(self) -> int:
        return sum(self.body.values()) + sum(c.total() for c in self.calls.values())

    def add(self, key, count):
        if count > self.body.get(key, 0):
            self.body[key] = count

    def lines(self, indent=1):
        out = []
        for key in sorted(set(self.body) | {k for k, _ in self.calls}):
            off, disc = key
            loc = f"{off}" if not disc else f"{off}.{disc}"
            if key in self.body and self.body[key] > 0:
                out.append(f"{' ' * indent}{loc}: {self.body[key]}")
            for (k, callee), sub in sorted(self.calls.items(), key=lambda t: t[0][1]):
                if k == key and sub.total() > 0:
                    out.append(f"{' ' * indent}{loc}: {callee}:{sub.total()}")
                    out.extend(sub.lines(indent + 1))
        return out


def _offset(line: int, start: int) -> int:
    # the reader masks offsets to 16 bits (a line before the function's start wraps), as LLVM's writer does
    return (line - start) & 0xFFFF


def build_sample_profile(profile, binary: str, *, counts=None) -> list:
    """``[FunctionSamples]`` (top-level functions, hottest first) for the sampled functions of ``profile``.

    ``counts``: ``{function address: {block id: estimated executions}}`` (default: samples per instruction,
    :func:`objllvm.perf.layout.block_counts`)."""
    from .layout import block_counts
    funcs, rows = read_dwarf(binary)
    starts = [f.low for f in funcs]
    row_addr = [r.address for r in rows]
    out = {}
    for fp in profile.functions:
        fn = fp.function
        if fp.samples <= 0:
            continue
        est = (counts or {}).get(fn.address) or block_counts(fn, fp.blocks)
        blocks = sorted(fn.blocks, key=lambda b: b.address)
        i = bisect.bisect_right(starts, fn.address) - 1
        if i < 0 or not (funcs[i].low <= fn.address < funcs[i].high):
            continue
        df = funcs[i]
        top = out.get(df.name)
        if top is None:
            top = out[df.name] = FunctionSamples(df.name)
        entry = fn.ranges[0].blocks[0].id if fn.ranges and fn.ranges[0].blocks else None
        for b in blocks:
            c = int(round(est.get(b.id, 0.0) * COUNT_SCALE))
            if b.id == entry:
                top.head = max(top.head, c)
            if c <= 0 or b.size <= 0:
                continue
            j = max(0, bisect.bisect_right(row_addr, b.address) - 1)
            while j < len(rows) and rows[j].address < b.address + b.size:
                r = rows[j]
                j += 1
                if r.end <= b.address or not (df.low <= r.address < df.high):
                    continue
                node, start = top, df.line
                for inl in _inline_stack(df, max(r.address, b.address)):
                    key = ((_offset(inl.call_line, start), inl.call_disc), inl.callee)
                    sub = node.calls.get(key)
                    if sub is None:
                        sub = node.calls[key] = FunctionSamples(inl.callee)
                    node, start = sub, inl.line
                node.add((_offset(r.line, start), r.discriminator), c)
    return sorted((f for f in out.values() if f.total() > 0), key=lambda f: (-f.total(), f.name))


def sample_profile_text(functions) -> str:
    lines = []
    for f in functions:
        lines.append(f"{f.name}:{f.total()}:{f.head}")
        lines.extend(f.lines())
    return "\n".join(lines) + "\n"


def write_sample_profile(path: str, functions) -> None:
    from ..atomicio import atomic_write
    atomic_write(path, sample_profile_text(functions).encode())
