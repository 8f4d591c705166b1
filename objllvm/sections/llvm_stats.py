"""``.llvm_stats``: statistics written into the object (LLVM 18+; the sample-profile loader's
``-persist-profile-staleness`` writes its figures here).

A sequence of pairs, each a ULEB128 length and that many bytes: the statistic's name, then its value as base64
text (the value itself is decimal text).
"""
from __future__ import annotations

from .._model import dataclass, field
from ..binary import Reader, uleb_encode
from ..errors import DecodeError
from .registry import Codec, Table, register


@dataclass
class LlvmStat:
    name: str
    encoded: bytes                  # the base64 text as stored
    value: str | None = None        # decoded (None when the text is not base64)


@dataclass
class LlvmStats:
    stats: list = field(default_factory=list)


def _b64(enc: bytes):
    """The base64 text decoded (None when it is not base64).  base64 is imported here: most runs never need it."""
    import base64
    import binascii
    try:
        return base64.b64decode(enc, validate=True).decode("utf-8", "surrogateescape")
    except (binascii.Error, ValueError):
        return None


@register
class LlvmStatsCodec(Codec):
    kind = "llvm-stats"
    description = "statistics stored in the object (name, base64 value)"
    names = (".llvm_stats",)
    name_hints = ("llvm_stats",)
    formats = ("elf", "coff", "macho")

    def matches_name(self, section, obj, options=None):
        return obj.format in self.formats and (section.name == ".llvm_stats"
                                               or section.name.endswith(",__llvm_stats"))

    def decode(self, data, ctx):
        r = Reader(data, ctx.endian)
        out = LlvmStats()
        while not r.at_end():
            k = len(out.stats)
            try:
                n = r.uleb(f"statistic {k}: name length")
                name = r.bytes(n, f"statistic {k}: name")
                m = r.uleb(f"statistic {k}: value length")
                enc = r.bytes(m, f"statistic {k}: value")
            except DecodeError as exc:
                exc.partial = out
                raise
            value = _b64(enc)
            out.stats.append(LlvmStat(name.decode("utf-8", "surrogateescape"), enc, value))
        return out

    def encode(self, model, ctx):
        parts = []
        for s in model.stats:
            name = s.name.encode("utf-8", "surrogateescape")
            parts += [uleb_encode(len(name)), name, uleb_encode(len(s.encoded)), s.encoded]
        return b"".join(parts)

    def to_dict(self, model):
        return {"stats": [{"name": s.name, "value": s.value, "encoded": s.encoded.decode("latin-1")}
                          for s in model.stats]}

    def from_dict(self, d, ctx):
        out = LlvmStats()
        for s in d["stats"]:
            if s.get("encoded") is not None:
                enc = s["encoded"].encode("latin-1")
            else:
                import base64
                enc = base64.b64encode(str(s["value"]).encode())
            out.stats.append(LlvmStat(s["name"], enc, s.get("value")))
        return out

    def tables(self, model, options):
        return [Table(["statistic", "value"],
                      [[s.name, s.value if s.value is not None else f"(not base64: {s.encoded!r})"]
                       for s in model.stats])]
