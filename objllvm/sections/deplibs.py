"""SHT_LLVM_DEPENDENT_LIBRARIES (``.deplibs``): libraries the object asks the linker for."""
from .._model import dataclass, field
from ..render import ColumnTable
from .registry import Codec, register
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

    def new_section(self):
        return {"name": ".deplibs", "sh_type": 0x6FFF4C04, "flags": 0x30, "entsize": 1}     # SHF_MERGE | SHF_STRINGS
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
        if len(model.offsets) == len(model.libraries):      # by columns: no row objects (a section of NULs
            return [ColumnTable(["offset", "library"], [model.offsets, model.libraries], "xs")]   # is 1 row a byte)
        return [ColumnTable(["offset", "library"], [[""] * len(model.libraries), model.libraries], "ss")]
