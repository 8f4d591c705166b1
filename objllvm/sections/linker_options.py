"""SHT_LLVM_LINKER_OPTIONS (``.linker-options``): key/value string pairs."""
from __future__ import annotations

from .._model import dataclass, field
from ..errors import DecodeError
from ..render import ColumnTable
from .registry import Codec, register
from .support.strings import join_nul_strings, split_nul_strings


@dataclass
class LinkerOption:
    key: str      # 'lib', 'libpath', or any other key, kept as is
    value: str
    offset: int = 0


@dataclass
class LinkerOptions:
    options: list = field(default_factory=list)


@register
class LinkerOptionsCodec(Codec):
    kind = "linker-options"
    description = "linker options requested by the object (!llvm.linker.options)"
    sh_types = (0x6FFF4C01,)
    names = (".linker-options",)

    def new_section(self):
        return {"name": ".linker-options", "sh_type": 0x6FFF4C01, "flags": 0x80000000}      # SHF_EXCLUDE
    typed_names = True

    def decode(self, data, ctx):
        strings, offs = split_nul_strings(data, "linker option string")
        if len(strings) % 2:
            raise DecodeError(f"odd number of strings ({len(strings)}): the key at offset {offs[-1]:#x} has no "
                              f"value (expected key/value pairs)", offset=offs[-1],
                              partial=LinkerOptions([LinkerOption(strings[i], strings[i + 1], offs[i])
                                                     for i in range(0, len(strings) - 1, 2)]))
        return LinkerOptions([LinkerOption(strings[i], strings[i + 1], offs[i]) for i in range(0, len(strings), 2)])

    def encode(self, model, ctx):
        return join_nul_strings(s for o in model.options for s in (o.key, o.value))

    def to_dict(self, model):
        return {"options": [{"key": o.key, "value": o.value} for o in model.options]}

    def from_dict(self, d, ctx):
        return LinkerOptions([LinkerOption(str(o["key"]), str(o["value"])) for o in d["options"]])

    def tables(self, model, options):
        opts = model.options            # by columns: no row objects (a section of NULs is a pair every 2 bytes)
        return [ColumnTable(["offset", "key", "value"], [[o.offset for o in opts], [o.key for o in opts],
                                                         [o.value for o in opts]], "xss")]
