"""``.llvmcmd`` / ``__LLVM,__cmdline``: the compiler arguments saved by -fembed-bitcode."""
from __future__ import annotations

from .._model import dataclass, field
from ..binary import encode_text, nul_separated
from .registry import Codec, Table, register


@dataclass
class CommandLine:
    arguments: list = field(default_factory=list)
    trailing_nul: bool = True     # whether the last argument is NUL-terminated (as clang writes it)


@register
class LlvmcmdCodec(Codec):
    kind = "llvmcmd"
    description = "embedded compiler command line (-fembed-bitcode)"
    names = (".llvmcmd", "__LLVM,__cmdline")
    formats = ("elf", "coff", "macho")

    def decode(self, data, ctx):
        return CommandLine(*nul_separated(data))

    def encode(self, model, ctx):
        if not model.arguments:
            return b""
        out = b"\0".join(encode_text(a) for a in model.arguments)
        return out + b"\0" if model.trailing_nul else out

    def to_dict(self, model):
        return {"arguments": list(model.arguments)}

    def from_dict(self, d, ctx):
        return CommandLine([str(a) for a in d["arguments"]], True)

    def tables(self, model, options):
        return [Table(["#", "argument"], [[i, a] for i, a in enumerate(model.arguments)])]
