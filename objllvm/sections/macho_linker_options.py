"""Mach-O ``LC_LINKER_OPTION`` load commands (one option with its arguments, e.g. ``-framework Security``).

The Mach-O container gives each command as a pseudo-section named ``LC_LINKER_OPTION`` whose data is the
whole command: ``u32 cmd (0x2D), u32 cmdsize, u32 count``, then ``count`` NUL-terminated strings, then
padding to the command size.  The padding is kept as it is, so ``encode`` gives back the same bytes.
"""
from __future__ import annotations

import struct

from .._model import dataclass, field
from ..binary import decode_text, encode_text
from ..errors import DecodeError
from .registry import Codec, Table, register

LC_LINKER_OPTION = 0x2D


@dataclass
class MachOLinkerOption:
    strings: list = field(default_factory=list)
    padding: bytes = b""      # bytes after the last string, up to cmdsize
    offsets: list = field(default_factory=list)


@register
class MachOLinkerOptionsCodec(Codec):
    kind = "macho-linker-options"
    description = "Mach-O LC_LINKER_OPTION load command (-l, -framework, ...)"
    names = ("LC_LINKER_OPTION",)
    formats = ("macho",)

    def decode(self, data, ctx):
        e = ctx.endian
        n = len(data)
        if n < 12:
            raise DecodeError(f"LC_LINKER_OPTION too small ({n} bytes, expected at least 12: cmd, cmdsize, count)",
                              offset=0)
        cmd, cmdsize, count = struct.unpack_from(e + "III", data, 0)
        if cmd != LC_LINKER_OPTION:
            raise DecodeError(f"load command {cmd:#x} is not LC_LINKER_OPTION (expected 0x2d)", offset=0)
        if cmdsize != n:
            raise DecodeError(f"cmdsize {cmdsize} does not match the command's size {n}", offset=4)
        strings, offs = [], []
        pos = 12
        for i in range(count):           # bounded: each string takes at least one byte of the command
            if pos >= n:
                raise DecodeError(f"count says {count} strings, the command ends after {i}", offset=8,
                                  partial=MachOLinkerOption(strings, b"", offs))
            end = data.find(b"\0", pos)
            if end < 0:
                raise DecodeError(f"string {i} has no terminating NUL before the end of the command", offset=pos,
                                  partial=MachOLinkerOption(strings, b"", offs))
            strings.append(decode_text(data[pos:end]))
            offs.append(pos)
            pos = end + 1
        return MachOLinkerOption(strings, bytes(data[pos:]), offs)

    def encode(self, model, ctx):
        body = b"".join(encode_text(s) + b"\0" for s in model.strings) + model.padding
        size = 12 + len(body)
        return struct.pack(ctx.endian + "III", LC_LINKER_OPTION, size, len(model.strings)) + body

    def to_dict(self, model):
        return {"strings": list(model.strings), "padding": model.padding.hex()}

    def from_dict(self, d, ctx):
        strings = [str(s) for s in d["strings"]]
        if "padding" in d:
            padding = bytes.fromhex(d["padding"])
        else:
            align = 8 if ctx.addr_size == 8 else 4
            used = 12 + sum(len(encode_text(s)) + 1 for s in strings)
            padding = b"\0" * (-used % align)
        return MachOLinkerOption(strings, padding)

    def tables(self, model, options):
        offs = model.offsets if len(model.offsets) == len(model.strings) else [None] * len(model.strings)
        return [Table(["offset", "string"], [[f"{o:#x}" if o is not None else "", s]
                                            for o, s in zip(offs, model.strings)])]
