"""Embedded bitcode: ELF ``.llvmbc`` and ``.llvm.lto`` (SHT_LLVM_LTO), COFF ``.llvmbc``, Mach-O
``__LLVM,__bitcode``, and the ``<bitcode>`` pseudo-section of a raw bitcode / wrapper file.

The section bytes are the payload: the model keeps them, and encoding gives them back unchanged.  The decoded view
is the module summary of :mod:`objllvm.bitcode` (producer, epoch, triple, data layout, source file, defined
functions and variables, sizes).
"""
from __future__ import annotations

from .._model import dataclass
from ..errors import DecodeError, UsageError
from .registry import Codec, Table, register

SHT_LLVM_LTO = 0x6FFF4C0C


@dataclass
class BitcodeSection:
    data: bytes                    # the exact section bytes
    summary: "objllvm.sections.support.bitcode_summary.BitcodeSummary"


@register
class BitcodeCodec(Codec):
    kind = "bitcode"
    description = "embedded LLVM bitcode (module summary)"
    sh_types = (SHT_LLVM_LTO,)
    names = (".llvmbc", ".llvm.lto", "__LLVM,__bitcode", "<bitcode>")
    formats = ("elf", "coff", "macho", "bitcode")

    @classmethod
    def add_arguments(cls, parser):
        parser.add_argument("--bitcode-symbols", choices=("defined", "all", "none"), default="defined",
                            help="bitcode: which global symbols to list (default: the defined ones)")

    def decode(self, data, ctx):
        from .support import bitcode_summary as bc     # here: importing the codec stays cheap
        data = bytes(data)
        try:
            return BitcodeSection(data, bc.summarize(data))
        except DecodeError as exc:
            exc.partial = BitcodeSection(data, exc.partial) if exc.partial is not None else None
            raise

    def encode(self, model, ctx):
        return model.data

    def to_dict(self, model):
        from .support import bitcode_summary as bc
        return bc.summary_to_dict(model.summary, "all")

    def from_dict(self, d, ctx):
        raise UsageError("bitcode: a module summary cannot be turned back into bitcode; replace the section "
                         "bytes with a bitcode file instead")

    def tables(self, model, options):
        s = model.summary
        which = (options or {}).get("bitcode_symbols") or "defined"
        if s.marker:
            return [Table(["field", "value"], [["payload", f"marker only ({s.size} bytes, -fembed-bitcode=marker)"]])]
        rows = [["size", s.size]]
        if s.wrapper:
            w = s.wrapper
            rows.append(["wrapper", f"version {w.version}, bitcode at {w.offset:#x} ({w.size} bytes), "
                                    f"cputype {w.cputype:#x}"])
        rows += [["modules", len(s.modules)],
                 ["blocks", ", ".join(f"{name} {size}" for _id, name, _off, size in s.blocks)],
                 ["string table", s.strtab_size], ["symbol table", s.symtab_size]]
        if s.padding:
            rows.append(["padding", s.padding])
        out = [Table(["field", "value"], rows)]
        for m in s.modules:
            ndecl = sum(1 for g in m.symbols if not g.defined)
            mrows = [["kind", m.kind], ["producer", m.producer], ["epoch", m.epoch], ["version", m.version], ["triple", m.triple],
                     ["datalayout", m.datalayout], ["source file", m.source_filename],
                     ["size", f"{m.size} bytes at {m.offset:#x}"],
                     ["function bodies", f"{m.function_bodies} ({m.function_bodies_size} bytes)"],
                     ["defined functions", len(m.defined_functions)], ["defined variables", len(m.defined_variables)],
                     ["declarations", ndecl], ["names from", m.names_from]]
            if m.hash:
                mrows.append(["hash", m.hash])
            out.append(Table(["field", "value"], [[k, "" if v is None else v] for k, v in mrows],
                             title=f"module {m.index}"))
            if which != "none":
                syms = m.symbols if which == "all" else [g for g in m.symbols if g.defined]
                out.append(Table(["kind", "linkage", "defined", "name"],
                                 [[g.kind, g.linkage, "yes" if g.defined else "no",
                                   g.name if g.name is not None else "<no name>"] for g in syms],
                                 title=f"module {m.index}: {'all' if which == 'all' else 'defined'} symbols"))
        return out
