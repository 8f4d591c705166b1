"""SHT_LLVM_DEPENDENT_LIBRARIES (``.deplibs``): libraries the object asks the linker for."""
from .._model import dataclass, field
from .registry import Codec, Table, register
from .support.strings import join_nul_strings, split_nul_strings


@dataclass
class DependentLibraries:
    libraries: list = field(default_factory=list)
    offsets: list = field(default_factory=list)


@register
class DeplibsCodec(Codec):
    kind = "deplibs"
    description = "dependent libraries (#pragma comment(lib, ...))"
    sh_types = (0x6FFF4C04,)
    names = (".deplibs",)
    typed_names = True

    def decode(self, data, ctx):
        libs, offs = split_nul_strings(data, "library name")
        return DependentLibraries(libs, offs)

    def encode(self, model, ctx):
        return join_nul_strings(model.libraries)

    def to_dict(self, model):
        return {"libraries": list(model.libraries)}

    def from_dict(self, d, ctx):
        return DependentLibraries([str(x) for x in d["libraries"]])

    def tables(self, model, options):
        offs = model.offsets if len(model.offsets) == len(model.libraries) else [None] * len(model.libraries)
        return [Table(["offset", "library"],
                      [[f"{o:#x}" if o is not None else "", lib] for o, lib in zip(offs, model.libraries)])]
