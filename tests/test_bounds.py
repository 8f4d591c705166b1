"""Inputs that claim more than they hold: compression bombs, huge files, devices and FIFOs, a bad section name
table index.  Each answers with one located line and a non-zero exit, the rest of the file dumped, in memory
bounded by the input (docs/errors.md, "Limits").

Memory is measured as the peak resident size of the objllvm process: a small Python wrapper runs it and reports
``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss`` (only its own child counted, whatever pytest ran before), under
an address-space limit so that an unbounded reader fails instead of taking the machine.  Inputs are generated
here: small ones built byte by byte, big ones as sparse files (holes cost no disk and no time).

zstd frames are written by hand from RFC 8878 (section 3.1.1): a frame header without a content size, then
blocks; an RLE block (type 1) repeats one byte up to 128 KiB times in 4 bytes, so 16 GiB takes 512 KiB.
"""
from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zlib

import pytest

from conftest import ROOT, TESTDATA, need_tool, run_objllvm

SHT_PROGBITS, SHT_STRTAB = 1, 3
SHT_LLVM_DEPENDENT_LIBRARIES = 0x6FFF4C04
SHT_LLVM_OFFLOADING = 0x6FFF4C0B
SHF_COMPRESSED = 0x800
MiB, GiB = 1 << 20, 1 << 30


# -- inputs --------------------------------------------------------------------------------------------------
def elf(sections, *, shstrndx=None, link0=0, hole=0):
    """An ELF64 little-endian x86-64 ET_REL: ``sections`` (name, type, flags, bytes) after the null section,
    then .shstrtab; the section headers right after the ELF header.  ``hole``: a last SHT_PROGBITS ``.big`` of
    that many bytes, written as a hole (returns (prefix, total size): the caller makes the file sparse)."""
    secs = list(sections) + [(".shstrtab", SHT_STRTAB, 0, None)]
    if hole:
        secs.append((".big", SHT_PROGBITS, 0, None))
    names = bytearray(b"\0")
    name_off = []
    for n, *_ in secs:
        name_off.append(len(names))
        names += n.encode() + b"\0"
    nsec = len(secs) + 1
    pos = 64 + 64 * nsec
    body = bytearray()
    hdrs = [struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, 0, link0, 0, 0, 0)]
    for (n, t, f, d), no in zip(secs, name_off):
        if n == ".shstrtab":
            d = bytes(names)
        pos += -pos % 8
        body += bytes(-len(body) % 8)
        size = hole if n == ".big" else len(d)
        hdrs.append(struct.pack("<IIQQQQIIQQ", no, t, f, 0, pos, size, 0, 0, 8 if f & SHF_COMPRESSED else 1, 0))
        if n != ".big":
            body += d
            pos += len(d)
    shs = len(sections) + 1 if shstrndx is None else shstrndx
    head = b"\x7fELF\x02\x01\x01" + bytes(9) + struct.pack("<HHIQQQIHHHHHH", 1, 62, 1, 0, 0, 64, 0, 64, 0, 0, 64,
                                                         nsec, shs)
    out = head + b"".join(hdrs) + bytes(body)
    return (out, pos + hole) if hole else out


def chdr(ch_type, ch_size, comp):
    """An Elf64_Chdr (ch_type, ch_reserved, ch_size, ch_addralign) and the compressed bytes."""
    return struct.pack("<IIQQ", ch_type, 0, ch_size, 1) + comp


def zstd_rle(total: int, byte: bytes = b"\0", end: bytes = b"") -> bytes:
    """A zstd frame giving ``total`` copies of ``byte`` then ``end`` (RFC 8878: descriptor 0, a window
    descriptor of 2^(10+7) = 128 KiB, RLE blocks of at most 128 KiB, a last raw block holding ``end``)."""
    out = bytearray(b"\x28\xb5\x2f\xfd\x00\x38")
    blocks = []
    while total:
        n = min(total, 128 << 10)
        blocks.append((1, n, byte))
        total -= n
    blocks.append((0, len(end), end))
    for i, (typ, n, payload) in enumerate(blocks):
        last = i == len(blocks) - 1
        out += (int(last) | typ << 1 | n << 3).to_bytes(3, "little") + payload
    return bytes(out)


def offload_blob(inflated: int, comp: bytes) -> bytes:
    """A version 3 OffloadBinary whose everything after its 40-byte header is ``comp``, claiming ``inflated``
    bytes in all (objllvm.sections.offloading's layout, as write_offload_binary writes it)."""
    blob = struct.pack("<4sIQQQQ", b"\x10\xff\x10\xad", 3, 40 + len(comp), 40, 1, inflated) + comp
    return blob + bytes(-len(blob) % 8)


LIBM = (".deplibs", SHT_LLVM_DEPENDENT_LIBRARIES, 0, b"libm\0")


# -- running -------------------------------------------------------------------------------------------------
_WRAPPER = r"""
import json, resource, subprocess, sys
limit, timeout, argv = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3:]
def cap():
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
try:
    p = subprocess.run(argv, capture_output=True, text=True, preexec_fn=cap, timeout=timeout)
    rc, out, err = p.returncode, p.stdout, p.stderr
except subprocess.TimeoutExpired as exc:
    rc, out, err = "timeout", "", str(exc)
print(json.dumps({"rc": rc, "out": out[-100000:], "err": err,
                  "peak": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def measured(*args, timeout=60, limit=3 * GiB):
    """(exit status or "timeout", stdout, stderr, peak RSS in MB) of ``objllvm ARGS``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-c", _WRAPPER, str(limit), str(timeout), sys.executable, "-m", "objllvm",
                        *map(str, args)], capture_output=True, text=True, env=env, timeout=timeout + 60)
    r = json.loads(p.stdout)
    return r["rc"], r["out"], r["err"], r["peak"] / 1024


def errors(err):
    return [x for x in err.splitlines() if x.startswith("objllvm: ")]


# -- compressed sections -------------------------------------------------------------------------------------
BOMBS = {
    # name: section bytes (ch_size past everything: refused by the ratio or the ceiling, nothing inflated)
    "zlib-huge-claim": chdr(1, 1 << 40, zlib.compress(bytes(MiB), 9)),
    "zstd-huge-claim": chdr(2, 1 << 40, zstd_rle(64 * MiB)),
    # an honest claim, far past what the ratio allows for 2 KB
    "zstd-honest-64m": chdr(2, 64 * MiB, zstd_rle(64 * MiB)),
    "zstd-honest-16g": chdr(2, 16 * GiB, zstd_rle(16 * GiB)),
}


@pytest.mark.parametrize("name", sorted(BOMBS))
@pytest.mark.parametrize("json_flag", [False, True])
def test_compressed_section_bomb_is_refused_at_the_section(name, json_flag, tmp_path):
    path = tmp_path / f"{name}.o"
    path.write_bytes(elf([(".deplibs", SHT_LLVM_DEPENDENT_LIBRARIES, SHF_COMPRESSED, BOMBS[name]), LIBM]))
    rc, out, err, peak = measured("dump", *(["--json"] if json_flag else []), path)
    lines = errors(err)
    assert rc == 1 and len(lines) == 1, err
    assert lines[0].startswith(f"objllvm: error: {path}: section [1] .deplibs: offset 0x18: ch_size ")
    assert "not decompressed" in lines[0]
    assert "libm" in out                   # the other section is dumped
    assert peak < 60, f"{peak:.0f} MB"


def test_stream_past_its_claim_stops_one_byte_past_it(tmp_path):
    """ch_size 16 and a frame of 64 MiB: at most 17 bytes come out."""
    path = tmp_path / "b.o"
    path.write_bytes(elf([(".deplibs", SHT_LLVM_DEPENDENT_LIBRARIES, SHF_COMPRESSED, chdr(2, 16, zstd_rle(64 * MiB))),
                          LIBM]))
    rc, out, err, peak = measured("dump", path)
    assert rc == 1 and errors(err) == [f"objllvm: error: {path}: section [1] .deplibs: offset 0x18: decompresses "
                                       "to more than ch_size 16 bytes"]
    assert peak < 60


def test_limits_are_raised_by_the_options(tmp_path):
    """8 MiB of 'a' and a NUL from a 270-byte frame (about 31000:1): refused by default, decoded with a higher
    ratio, refused again under a lower ceiling."""
    comp = zstd_rle(8 * MiB, b"a", b"\0")
    path = tmp_path / "a.o"
    path.write_bytes(elf([(".deplibs", SHT_LLVM_DEPENDENT_LIBRARIES, SHF_COMPRESSED, chdr(2, 8 * MiB + 1, comp))]))
    rc, out, err = run_objllvm("dump", "--json", path)
    assert rc == 1 and f"more than 1024 times the {len(comp)} compressed bytes" in err
    rc, out, err = run_objllvm("dump", "--json", "--max-decompressed-ratio", "40000", path)
    assert rc == 0 and json.loads(out)["files"][0]["sections"][0]["content"]["libraries"] == ["a" * 8 * MiB]
    rc, out, err = run_objllvm("dump", "--max-decompressed-ratio", "40000", "--max-decompressed", "4M", path)
    assert rc == 1 and "is more than the ceiling of 4194304 bytes" in err


def test_limits_module():
    from objllvm.errors import DecodeError
    from objllvm.formats import compression as c
    assert c.parse_size("4M") == 4 * MiB and c.parse_size("2GiB") == 2 * GiB and c.parse_size("123") == 123
    ratio, ceiling = c.limits()
    assert c.limit_for(1000) == min(ratio * 1000 + c.SMALL_ALLOWANCE, ceiling)
    data = zlib.compress(b"x" * 1000)
    assert c.decompress("zlib", data, 1000) == b"x" * 1000
    for claim, msg in ((999, "decompresses to more than the claimed size 999"),
                       (1001, "decompressed size 1000 does not match the claimed size 1001"),
                       (-1, "negative")):
        with pytest.raises(DecodeError, match=msg):
            c.decompress("zlib", data, claim)
    with pytest.raises(DecodeError, match="cannot decompress \\(zlib\\)"):
        c.decompress("zlib", b"\x78\x9c garbage", 10)


# -- offload images ------------------------------------------------------------------------------------------
def _offload_object(tmp_path, blob, name="o.o"):
    path = tmp_path / name
    path.write_bytes(elf([(".llvm.offloading", SHT_LLVM_OFFLOADING, 0, blob), LIBM]))
    return path


def test_offload_image_of_16_gib_is_refused_with_a_warning(tmp_path):
    """525 KB holding a 16 GiB image: the claim is past the ceiling, nothing is inflated."""
    comp = zstd_rle(16 * GiB)
    path = _offload_object(tmp_path, offload_blob(40 + 16 * GiB, comp))
    for args in (["dump"], ["dump", "--json"]):
        rc, out, err, peak = measured(*args, path)
        lines = errors(err)
        assert rc == 1 and len(lines) == 1, err
        assert lines[0].startswith(f"objllvm: warning: {path}: section [1] .llvm.offloading: offset 0x0: "
                                   "compressed blob: the inflated size less the header 17179869184 is more than")
        assert "libm" in out and peak < 60, f"{peak:.0f} MB"


def test_offload_stream_past_its_claim_stops(tmp_path):
    path = _offload_object(tmp_path, offload_blob(40 + 1000, zstd_rle(16 * GiB)))
    rc, out, err, peak = measured("dump", path)
    assert rc == 1 and errors(err) == [
        f"objllvm: warning: {path}: section [1] .llvm.offloading: offset 0x0: compressed blob: decompresses to more "
        "than the inflated size less the header 1000 bytes: its entries are not shown"]
    assert peak < 60


@pytest.mark.parametrize("kind", ["zstd", "zlib"])
def test_corrupt_compressed_offload_image_is_not_success(kind, tmp_path):
    from objllvm.sections.offloading import write_offload_binary
    good = write_offload_binary([{"image": b"\x7fELF" + bytes(200), "image_kind": 1, "offload_kind": 1,
                                  "strings": [("triple", "amdgcn-amd-amdhsa"), ("arch", "gfx90a")]}], 3, kind)
    rc, out, err = run_objllvm("dump", _offload_object(tmp_path, good, "good.o"))
    assert rc == 0 and "gfx90a" in out
    bad = bytearray(good)
    bad[48:60] = b"\xee" * 12               # inside the compressed stream, past its first 8 bytes
    path = _offload_object(tmp_path, bytes(bad), "bad.o")
    rc, out, err = run_objllvm("dump", path)
    (line,) = errors(err)
    assert rc == 1 and line.startswith(f"objllvm: warning: {path}: section [1] .llvm.offloading: offset 0x0: "
                                       f"compressed blob: ")
    assert "libm" in out


# -- big sections of small strings ---------------------------------------------------------------------------
@pytest.mark.parametrize("json_flag", [False, True])
def test_deplibs_of_a_million_empty_names_costs_a_bounded_multiple(json_flag, tmp_path):
    """1 MiB of NULs is 2^20 library names: a row per byte.  Peak memory stays a small multiple of that
    (llvm-readobj-22 takes about 58 MB for the same file)."""
    path = tmp_path / "d.o"
    path.write_bytes(elf([(".deplibs", SHT_LLVM_DEPENDENT_LIBRARIES, 0, bytes(MiB))]))
    rc, out, err, peak = measured("dump", *(["--json"] if json_flag else []), path)
    assert rc == 0 and err == ""
    if json_flag:
        assert out.endswith('"",""]}}]}],"errors":[],"warnings":[]}\n')   # (the wrapper keeps the end)
        assert out.count('""') > 100000 // 4 - 100
    else:
        assert out.rstrip("\n").endswith(f"{MiB - 1:#x}")
    assert peak < 120, f"{peak:.0f} MB"


@pytest.mark.parametrize("name,sh_type,last", [
    (".linker-options", 0x6FFF4C01, f"{MiB - 2:#x}"),     # 2^19 pairs of empty strings
    (".llvm_addrsig", 0x6FFF4C03, "0        (not trusted)"),   # 2^20 symbol indices 0, no symbol table
])
def test_sections_of_a_byte_per_value_cost_a_bounded_multiple(name, sh_type, last, tmp_path):
    path = tmp_path / "z.o"
    path.write_bytes(elf([(name, sh_type, 0, bytes(MiB))]))
    rc, out, err, peak = measured("dump", path)
    assert rc == 0 and out.rstrip("\n").endswith(last)
    assert peak < 200, f"{peak:.0f} MB"


# -- files that are not objects, or not files ----------------------------------------------------------------
@pytest.mark.parametrize("cmd", ["dump", "sections"])
def test_large_non_object_is_refused_from_its_first_bytes(cmd, tmp_path):
    path = tmp_path / "core"
    with open(path, "wb") as f:
        f.truncate(8 * GiB)
    rc, out, err, peak = measured(cmd, path, limit=2 * GiB)
    assert rc == 1 and errors(err) == [f"objllvm: error: {path}: offset 0x0: not an ELF file or archive (nor COFF, "
                                       "Mach-O or bitcode): unrecognised magic 00 00 00 00"]
    assert peak < 100, f"{peak:.0f} MB"


@pytest.mark.parametrize("cmd", ["dump", "sections", "extract", "rewrite"])
def test_devices_and_fifos_are_refused_without_reading(cmd, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, what in (("/dev/zero", "a character device"), (str(fifo), "a FIFO"), (str(tmp_path), "a directory")):
        args = [cmd, path] + (["-o", tmp_path / "out"] if cmd in ("extract", "rewrite") else [])
        rc, out, err, peak = measured(*args, timeout=20, limit=2 * GiB)
        assert rc == 1 and f"objllvm: error: {path}: {what}, not a file: not read" in errors(err), (path, rc, err)
        assert peak < 100


def _sparse(path, prefix, total):
    with open(path, "wb") as f:
        f.write(prefix)
        f.truncate(total)


def test_audit_of_a_512_mib_elf_file_maps_it(tmp_path):
    prefix, total = elf([LIBM], hole=512 * MiB)
    path = tmp_path / "big.o"
    _sparse(path, prefix, total)
    rc, out, err, peak = measured("audit", "-j", "1", "--json", "--fail-on", "never", path)
    assert rc == 0, err
    doc = json.loads(out)
    assert [r["value"] for r in doc["requests"] if r["kind"] == "library"] == ["libm"]
    assert peak < 100, f"{peak:.0f} MB"


def test_archive_members_are_views_of_the_map(tmp_path):
    """An archive of 64 members of 4 MiB each (mostly a hole): dump --json touches only what it reads."""
    prefix, total = elf([LIBM], hole=4 * MiB)
    path = tmp_path / "lib.a"
    n = 64
    with open(path, "wb") as f:
        f.write(b"!<arch>\n")
        for i in range(n):
            f.write(f"m{i}.o/".ljust(16).encode() + b"0".ljust(12) + b"0".ljust(6) + b"0".ljust(6)
                    + b"644".ljust(8) + str(total).ljust(10).encode() + b"`\n")
            start = f.tell()
            f.write(prefix)
            f.seek(start + total + (total & 1))
        f.truncate(f.tell())
    rc, out, err, peak = measured("dump", "--json", path)
    assert rc == 0, err
    doc = json.loads(out)
    assert [f["member"] for f in doc["files"]] == [f"m{i}.o" for i in range(n)]
    assert all(f["sections"][0]["content"]["libraries"] == ["libm"] for f in doc["files"])
    assert peak < 100, f"{peak:.0f} MB"


def test_thin_archive_member_that_is_a_fifo_is_refused(tmp_path):
    os.mkfifo(tmp_path / "m.o")
    path = tmp_path / "thin.a"
    path.write_bytes(b"!<thin>\n" + b"m.o/".ljust(16) + b"0".ljust(12) + b"0".ljust(6) + b"0".ljust(6)
                     + b"644".ljust(8) + b"100".ljust(10) + b"`\n")
    rc, out, err, peak = measured("dump", path, timeout=20)
    assert rc == 1 and "thin archive member 'm.o': " in err and "a FIFO, not a file: not read" in err


# -- the section name table index ----------------------------------------------------------------------------
def _with_shstrndx(src, value, link0=None):
    data = bytearray(src.read_bytes())
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    real = struct.unpack_from("<H", data, 0x3E)[0]
    struct.pack_into("<H", data, 0x3E, value)
    if link0 is not None:
        struct.pack_into("<I", data, shoff + 40, real if link0 == "real" else link0)
    return bytes(data)


def test_shstrndx_xindex_is_followed_to_section_0(tmp_path):
    """e_shstrndx SHN_XINDEX: the index is section 0's sh_link; the names are read from there, as
    llvm-readobj-22 reads them."""
    src = TESTDATA / "elf" / "deplibs.o"
    path = tmp_path / "x.o"
    path.write_bytes(_with_shstrndx(src, 0xFFFF, "real"))
    rc, out, err = run_objllvm("sections", "--all", "--json", path)
    assert rc == 0 and err == ""
    ours = [s["name"] for s in json.loads(out)["files"][0]["sections"]]
    readobj = need_tool("llvm-readobj-22")
    p = subprocess.run([readobj, "--sections", "--elf-output-style=JSON", str(path)], capture_output=True, text=True)
    theirs = [s["Section"]["Name"]["Name"] for s in json.loads(p.stdout)[0]["Sections"]]
    assert ours == theirs and ".deplibs" in ours
    rc2, out2, _ = run_objllvm("dump", path)
    assert rc2 == 0 and out2 == run_objllvm("dump", src)[1].replace(str(src), str(path))


@pytest.mark.parametrize("value,link0,msg", [
    (0xFFFF, 0, "e_shstrndx is SHN_XINDEX and section 0's sh_link (the real index) is 0, no section"),
    (0xFFFF, 0x7000, "e_shstrndx is SHN_XINDEX and section 0's sh_link (the real index) is 28672, past the section "
                     "table"),
    (0x7000, None, "e_shstrndx 28672 is past the section table"),
])
def test_bad_shstrndx_is_an_error_and_the_rest_is_dumped(value, link0, msg, tmp_path):
    src = TESTDATA / "elf" / "deplibs.o"
    path = tmp_path / "bad.o"
    path.write_bytes(_with_shstrndx(src, value, link0))
    for cmd in ("dump", "sections"):
        rc, out, err = run_objllvm(cmd, path)
        assert rc == 1 and errors(err) == [f"objllvm: error: {path}: offset 0x3e: {msg} ({n} sections): section names "
                                           "unknown" for n in [_shnum(src)]], err
        assert "SHT_LLVM_DEPENDENT_LIBRARIES" in out          # found by its type, decoded all the same
    rc, out, err = run_objllvm("dump", "--json", path)
    doc = json.loads(out)
    assert rc == 1 and len(doc["errors"]) == 1 and doc["files"][0]["sections"][0]["status"] == "decoded"


def _shnum(src):
    return struct.unpack_from("<H", src.read_bytes(), 0x3C)[0]
