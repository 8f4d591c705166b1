"""``asan_globals`` (clang ``-fsanitize=address``): AddressSanitizer's descriptor of each instrumented global.

One descriptor per global (in an object, one ``asan_globals`` section per global, ``SHF_LINK_ORDER`` to the
global's section), eight address-sized words (compiler-rt's ``__asan_global``; llvm/lib/Transforms/
Instrumentation/AddressSanitizer.cpp builds them):

* the global's address, its size, its size with the redzone after it;
* pointers to its name and to its module's name (NUL-terminated strings, in an object through relocations
  into ``.rodata`` strings);
* whether it has a dynamic initializer (C++), a pointer to its source location (0: none);
* its ODR indicator: a pointer to ``__odr_asan_gen_NAME``, -1 (no ODR check), or 0.

Addresses and strings are resolved through relocations in an object and through symbols and section
contents in a linked file; an address without its relocation in an object is an error at that field.
"""
from __future__ import annotations

from .._model import dataclass, field
from ..binary import Reader, pack_uint
from ..errors import DecodeError
from .registry import Codec, Table, register
from .support.addresses import Address, Resolver
from .support.strings import SectionStrings

FIELDS = ("address", "size", "size_with_redzone", "name", "module_name", "has_dynamic_init", "source_location",
          "odr_indicator")


@dataclass
class AsanGlobal:
    address: Address
    size: int
    size_with_redzone: int
    name: Address                  # the pointer to the name
    module_name: Address
    has_dynamic_init: int
    source_location: Address
    odr_indicator: Address
    name_text: str | None = None   # the strings pointed to (None: not found)
    module_text: str | None = None

    @property
    def redzone(self) -> int:
        return self.size_with_redzone - self.size


@dataclass
class AsanGlobals:
    word_size: int
    globals: list = field(default_factory=list)


def _string(ctx, res, strings, offset: int, pointer: Address) -> str | None:
    """The string a pointer field points to: through its relocation (object) or its address (linked file)."""
    if ctx.is_relocatable:
        r = res.reloc_at(offset)
        if r is None or r.symbol is None:
            return None
        addend = r.addend if r.addend is not None else pointer.value
        at = addend if r.symbol.is_section else r.symbol.value + addend
        return strings.at(r.symbol.shndx, at)
    return strings.at_address(pointer.address) if pointer.address else None


@register
class AsanGlobalsCodec(Codec):
    kind = "asan-globals"
    description = "AddressSanitizer global descriptors (-fsanitize=address): address, size, redzone, name of each global"
    names = ("asan_globals",)

    def decode(self, data, ctx):
        w = ctx.addr_size
        size = 8 * w
        r = Reader(data, ctx.endian)
        res = Resolver(ctx, dynamic=True)          # a position-independent link: the loader fills the words
        strings = SectionStrings(ctx.obj)
        out = AsanGlobals(w)
        n = len(data) // size
        for i in range(n):
            base = r.pos
            try:
                v = [r.uint(w, f"descriptor {i}: {f}") for f in FIELDS]
                addr = res.at(base, v[0])
                name = res.at(base + 3 * w, v[3])
                module = res.at(base + 4 * w, v[4])
                loc = res.at(base + 6 * w, v[6], required=False)          # 0: no source location
                odr = res.at(base + 7 * w, v[7], required=False)          # -1 or 0: no indicator symbol
            except DecodeError as exc:
                exc.partial = out
                raise
            g = AsanGlobal(addr, v[1], v[2], name, module, v[5], loc, odr,
                           _string(ctx, res, strings, base + 3 * w, name),
                           _string(ctx, res, strings, base + 4 * w, module))
            for what, text, at in (("name", g.name_text, base + 3 * w), ("module name", g.module_text, base + 4 * w)):
                if text is None:
                    ctx.warn(f"descriptor {i}: the {what} pointer ({(name if what == 'name' else module).text()}) "
                             f"points to no string of the file", at)
            if g.size_with_redzone < g.size:
                ctx.warn(f"descriptor {i}: size with redzone {g.size_with_redzone} is smaller than the size "
                         f"{g.size}", base + w)
            out.globals.append(g)
        res.finish()
        if n * size != len(data):
            raise DecodeError(f"{len(data) - n * size} bytes after the last whole descriptor ({size} bytes each)",
                              offset=n * size, partial=out)
        return out

    def encode(self, model, ctx):
        w, e = model.word_size, ctx.endian
        parts = []
        for g in model.globals:
            for v in (g.address.value, g.size, g.size_with_redzone, g.name.value, g.module_name.value,
                      g.has_dynamic_init, g.source_location.value, g.odr_indicator.value):
                parts.append(pack_uint(v, w, e))
        return b"".join(parts)

    def to_dict(self, model):
        return {"word_size": model.word_size,
                "globals": [{"address": g.address.to_dict(), "size": g.size,
                             "size_with_redzone": g.size_with_redzone, "name": g.name_text,
                             "name_pointer": g.name.to_dict(), "module_name": g.module_text,
                             "module_name_pointer": g.module_name.to_dict(), "has_dynamic_init": g.has_dynamic_init,
                             "source_location": g.source_location.to_dict(),
                             "odr_indicator": g.odr_indicator.to_dict()} for g in model.globals]}

    def from_dict(self, d, ctx):
        out = AsanGlobals(int(d.get("word_size", ctx.addr_size)))
        for g in d["globals"]:
            out.globals.append(AsanGlobal(Address.from_dict(g["address"]), int(g["size"]),
                                          int(g["size_with_redzone"]), Address.from_dict(g["name_pointer"]),
                                          Address.from_dict(g["module_name_pointer"]), int(g["has_dynamic_init"]),
                                          Address.from_dict(g["source_location"]),
                                          Address.from_dict(g["odr_indicator"]), g.get("name"), g.get("module_name")))
        return out

    def tables(self, model, options):
        w = model.word_size

        def odr(a):
            if a.symbol is not None or a.unknown:
                return a.text()
            return "none" if a.address in (0, (1 << (8 * w)) - 1) else f"{a.address:#x}"
        return [Table(["global", "address", "size", "redzone", "name", "module", "dynamic init", "odr indicator"],
                      [["<?>" if g.address.unknown else ", ".join(g.address.names) or "?",
                        f"{g.address.address:#x}", g.size, g.redzone,
                        g.name_text if g.name_text is not None else "?",
                        g.module_text if g.module_text is not None else "?",
                        "yes" if g.has_dynamic_init else "no", odr(g.odr_indicator)] for g in model.globals])]
