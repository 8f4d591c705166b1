"""Bounded decompression of zlib and zstd data (SHF_COMPRESSED sections, compressed offload images).

A compressed stream says how big it is (``ch_size``, an OffloadBinary's ``inflated_size``), and a file can
claim anything there.  So the size of what comes out is bounded by a limit derived from the input: at most
``ratio`` times the compressed size (plus a small allowance for tiny streams), and never more than
``ceiling`` bytes, whatever the stream claims.  A claim past the limit is refused before any memory is
taken; a stream is decompressed a bounded piece at a time and stopped one byte past its claim.

The defaults and how to raise them (``--max-decompressed-ratio N``, ``--max-decompressed SIZE``, or
:func:`set_limits`): docs/errors.md."""
import os

from ..errors import DecodeError

DEFAULT_RATIO = 1024              # deflate cannot expand by more than about 1032:1; zstd's RLE blocks 32768:1
DEFAULT_CEILING = 1 << 30         # 1 GiB
SMALL_ALLOWANCE = 1 << 16         # a stream of a few bytes may give up to 64 KiB whatever its ratio
_CHUNK = 1 << 20                  # zstd output taken a MiB at a time

# The limits in force; the environment carries them to worker processes (``audit -j``).
RATIO_ENV, CEILING_ENV = "OBJLLVM_MAX_DECOMPRESSED_RATIO", "OBJLLVM_MAX_DECOMPRESSED"
_limits: dict = {}


def set_limits(ratio: int | None = None, ceiling: int | None = None) -> None:
    """Raise (or lower) the bounds for this process and the processes it starts: ``ratio`` of decompressed to
    compressed size, ``ceiling`` in bytes (None: keep the current one)."""
    limits()
    if ratio is not None:
        if ratio < 1:
            raise ValueError("the decompression ratio must be at least 1")
        _limits["ratio"] = int(ratio)
        os.environ[RATIO_ENV] = str(int(ratio))
    if ceiling is not None:
        if ceiling < 0:
            raise ValueError("the decompression ceiling must not be negative")
        _limits["ceiling"] = int(ceiling)
        os.environ[CEILING_ENV] = str(int(ceiling))


def limits() -> tuple:
    """(ratio, ceiling) in force: set_limits's, else the environment's, else the defaults."""
    if not _limits:
        for key, env, default in (("ratio", RATIO_ENV, DEFAULT_RATIO), ("ceiling", CEILING_ENV, DEFAULT_CEILING)):
            try:
                _limits[key] = max(int(os.environ.get(env, default)), 1 if key == "ratio" else 0)
            except ValueError:
                _limits[key] = default
    return _limits["ratio"], _limits["ceiling"]


def limit_for(compressed_size: int) -> int:
    """The most bytes ``compressed_size`` bytes of compressed data may give."""
    ratio, ceiling = limits()
    return min(ratio * compressed_size + SMALL_ALLOWANCE, ceiling)


def parse_size(text: str) -> int:
    """A byte count as the options take it: digits, optionally followed by K, M, G or T (powers of 1024)."""
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    mult = 1
    if t[-1:] in ("K", "M", "G", "T"):
        mult = 1 << (10 * ("KMGT".index(t[-1]) + 1))
        t = t[:-1]
    if not t.isdigit():
        raise ValueError(f"not a size: {text!r} (expected digits, optionally followed by K, M, G or T)")
    return int(t) * mult


def decompress(kind: str, body, claimed: int, claim: str = "the claimed size", offset: int = 0) -> bytes:
    """The ``claimed`` bytes that ``body`` (zlib or zstd) decompresses to; ``claim`` names the field that
    claims it (``ch_size``).  DecodeError at ``offset`` when the claim is past :func:`limit_for` (nothing
    decompressed), when the stream is corrupt, or when it gives more or fewer bytes than claimed (it is
    stopped one byte past the claim)."""
    if claimed < 0:
        raise DecodeError(f"{claim} is negative ({claimed})", offset=offset)
    limit = limit_for(len(body))
    if claimed > limit:
        ratio, ceiling = limits()
        why = (f"the ceiling of {ceiling} bytes" if limit == ceiling else
               f"{ratio} times the {len(body)} compressed bytes (+{SMALL_ALLOWANCE})")
        raise DecodeError(f"{claim} {claimed} is more than {why}: not decompressed "
                          f"(--max-decompressed-ratio, --max-decompressed raise the limits)", offset=offset)
    if kind == "zlib":
        import zlib
        d = zlib.decompressobj()
        try:
            out = d.decompress(body, claimed + 1)
        except zlib.error as exc:
            raise DecodeError(f"cannot decompress (zlib): {exc}", offset=offset) from None
    elif kind == "zstd":
        try:
            import zstandard
        except ImportError:  # pragma: no cover - declared dependency
            raise DecodeError("zstd-compressed data needs the 'zstandard' package", offset=offset) from None
        chunks, total = [], 0
        try:
            with zstandard.ZstdDecompressor().stream_reader(body, read_across_frames=True) as zr:
                while total <= claimed:
                    c = zr.read(min(claimed + 1 - total, _CHUNK))
                    if not c:
                        break
                    chunks.append(c)
                    total += len(c)
        except zstandard.ZstdError as exc:
            raise DecodeError(f"cannot decompress (zstd): {exc or 'corrupt stream'}", offset=offset) from None
        out = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    else:
        raise DecodeError(f"unknown compression {kind!r} (expected zlib or zstd)", offset=offset)
    if len(out) > claimed:
        raise DecodeError(f"decompresses to more than {claim} {claimed} bytes", offset=offset)
    if len(out) != claimed:
        raise DecodeError(f"decompressed size {len(out)} does not match {claim} {claimed}", offset=offset)
    return out
