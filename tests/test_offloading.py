"""Offloading sections against llvm-objdump-19 --offloading and clang-offload-packager-19, plus versions 2 and 3
(which no tool on this machine writes: built here by hand from the layout in LLVM's OffloadBinary.h and checked
as invariants: the images and strings put in come back out)."""
from __future__ import annotations

import re
import struct
import subprocess
import zlib

import pytest

from conftest import TESTDATA, need_tool, run_objllvm
from objllvm import api, bitcode
from objllvm.sections import offloading as off
from objllvm.formats import open_object
from objllvm.errors import DecodeError

BC = TESTDATA / "bitcode"
FILES = ["omp.o", "omp-coff.obj", "cuda.o", "hip.o", "packaged.o"]


def objdump_offloading(path):
    tool = need_tool("llvm-objdump-19")
    text = subprocess.run([tool, "--offloading", str(path)], capture_output=True, text=True, check=True).stdout
    images = []
    for line in text.splitlines():
        if line.startswith("OFFLOADING IMAGE ["):
            images.append({})
        elif images and re.match(r"^(kind|arch|triple|producer)\s", line):
            key = line[:16].strip()
            images[-1][key] = line[16:]
    return images


def our_text_view(path):
    """The kind/arch/triple/producer rows of `objllvm dump --section offloading`, per image."""
    rc, out, err = run_objllvm("dump", "--section", "offloading", path)
    assert rc == 0, err
    images = []
    for line in out.splitlines():
        if line.startswith("OFFLOADING IMAGE ["):
            images.append({})
        elif images:
            m = re.match(r"^(kind|arch|triple|producer)( +(.*))?$", line)
            if m:
                images[-1][m.group(1)] = (m.group(3) or "").rstrip()
    return images


def section_data(path, name=".llvm.offloading"):
    o = open_object(str(path))
    return o.section_by_name(name).data()


@pytest.mark.parametrize("fname", FILES)
def test_text_view_matches_llvm_objdump(fname):
    ref = objdump_offloading(BC / fname)
    assert ref, "llvm-objdump found no images"
    assert our_text_view(BC / fname) == ref


@pytest.mark.parametrize("fname", FILES)
def test_images_match_the_packager(fname, tmp_path):
    """clang-offload-packager-19 extracts each image from the section: ours are the same bytes."""
    tool = need_tool("clang-offload-packager-19")
    data = section_data(BC / fname)
    (tmp_path / "sec.bin").write_bytes(data)
    model = off.parse_offloading(data)
    assert model.entries
    for i, e in enumerate(model.entries):
        out = tmp_path / f"img{i}"
        spec = f"file={out},triple={e.triple}" + (f",arch={e.arch}" if e.arch else "")
        subprocess.run([tool, str(tmp_path / "sec.bin"), f"--image={spec}"], check=True, capture_output=True)
        assert out.read_bytes() == e.image, (fname, i)


@pytest.mark.parametrize("fname", FILES)
def test_writer_reproduces_llvm_layout(fname):
    """Each v1 blob clang-19 / the packager wrote is rebuilt byte for byte from its image and strings."""
    data = section_data(BC / fname)
    model = off.parse_offloading(data)
    for b in model.blobs:
        (e,) = b.entries
        blob = off.write_offload_binary([{"image": e.image, "image_kind": e.image_kind,
                                          "offload_kind": e.offload_kind, "flags": e.flags,
                                          "strings": [(s.key, s.value) for s in e.strings]}])
        assert blob == data[b.offset:b.offset + b.size]
        assert not b.patches


@pytest.mark.parametrize("fname", FILES)
def test_round_trip_and_nested_content(fname):
    data = section_data(BC / fname)
    from objllvm.sections import registry
    c = registry.get("offloading")
    model = c.decode(data, None)
    assert c.encode(model, None) == data
    for e in model.entries:
        if e.image_kind == 2:     # bitcode: summarized with the bitstream reader, triple agrees with the entry
            assert e.content["format"] == "bitcode"
            assert e.content["modules"][0]["triple"] == e.triple
        elif e.image_kind == 1:
            assert e.content["format"] == "elf" and e.content["machine"] == "x86-64"


def test_packaged_has_three_blobs_and_all_keys():
    model = off.parse_offloading(section_data(BC / "packaged.o"))
    assert [b.version for b in model.blobs] == [1, 1, 1]
    assert all(b.offset % 8 == 0 for b in model.blobs)
    first = model.entries[0]
    assert first.get("feature") == "+ptx70" and first.arch == "sm_70"
    rc, out, err = run_objllvm("dump", "--json", "--section", "offloading", BC / "packaged.o")
    import json
    (sec,) = json.loads(out)["files"][0]["sections"]
    keys = [s["key"] for s in sec["content"]["blobs"][0]["entries"][0]["strings"]]
    assert sorted(keys) == ["arch", "feature", "triple"]


# -- versions 2 and 3, built by hand ------------------------------------------------------------------------
def hand_v2(images, version=2, entries_offset=None):
    """An OffloadBinary of version >= 2 laid out independently of objllvm's writer: header, entries, string map
    (24-byte entries), strings, images, every part at its own offsets."""
    hsize = 40 if version >= 3 else 32
    eoff = entries_offset or hsize
    n = len(images)
    smap = eoff + 40 * n
    nstr = sum(len(im[3]) for im in images)
    strings_at = smap + 24 * nstr
    strbytes = bytearray()
    maps = []
    for im in images:
        for k, v in im[3]:
            ko = strings_at + len(strbytes); strbytes += k + b"\0"
            vo = strings_at + len(strbytes); strbytes += v + b"\0"
            maps.append((ko, vo, len(v)))
    img_at = (strings_at + len(strbytes) + 7) // 8 * 8
    total = img_at + sum(len(im[2]) for im in images)
    total = (total + 7) // 8 * 8
    out = bytearray(total)
    hdr = struct.pack("<4sIQQQ", b"\x10\xff\x10\xad", version, total, eoff, n)
    if version >= 3:
        hdr += struct.pack("<Q", 0)
    out[0:len(hdr)] = hdr
    so, io, mi = smap, img_at, 0
    for i, (ik, ok, image, strs) in enumerate(images):
        out[eoff + 40 * i:eoff + 40 * (i + 1)] = struct.pack("<HHIQQQQ", ik, ok, 0, so, len(strs), io, len(image))
        for j in range(len(strs)):
            out[so + 24 * j:so + 24 * (j + 1)] = struct.pack("<QQQ", *maps[mi]); mi += 1
        so += 24 * len(strs)
        out[io:io + len(image)] = image
        io += len(image)
    out[strings_at:strings_at + len(strbytes)] = strbytes
    return bytes(out)


IMAGES = [
    (2, 4, (BC / "dev-nvptx.bc").read_bytes(), [(b"triple", b"nvptx64-nvidia-cuda"), (b"arch", b"sm_90"),
                                                (b"custom-key", b"any value")]),
    (1, 1, b"\x7fELF\x02\x01\x01" + bytes(9) + struct.pack("<HH", 1, 62) + bytes(40),
     [(b"triple", b"x86_64-pc-linux-gnu"), (b"arch", b"generic")]),
    (6, 8, b"\x03\x02\x23\x07" + bytes(12), [(b"triple", b"spirv64-intel"), (b"arch", b"")]),
]


def check_images(model, images):
    got = model.entries
    assert len(got) == len(images)
    for e, (ik, ok, image, strs) in zip(got, images):
        assert (e.image_kind, e.offload_kind, e.image) == (ik, ok, image)
        assert [(s.key.encode(), s.value.encode()) for s in e.strings] == strs


def test_version2_several_entries_per_blob():
    blob = hand_v2(IMAGES)
    data = blob + hand_v2(IMAGES[:1])          # two blobs back to back
    model = off.parse_offloading(data, identify=bitcode.identify)
    assert [b.version for b in model.blobs] == [2, 2]
    check_images(off.Offloading([model.blobs[0]]), IMAGES)
    assert model.entries[0].content["modules"][0]["triple"] == "nvptx64-nvidia-cuda"
    assert model.entries[1].content["machine"] == "x86-64"
    assert model.entries[2].content["format"] == "spirv"
    assert off.offload_kind_name(model.entries[0].offload_kind) == "hip"
    assert off.encode_offloading(model) == data
    # our writer, fed the same images, gives a blob that reads back the same
    ours = off.write_offload_binary([{"image": im, "image_kind": ik, "offload_kind": ok,
                                      "strings": [(k.decode(), v.decode()) for k, v in strs]}
                                     for ik, ok, im, strs in IMAGES], version=2)
    check_images(off.parse_offloading(ours), IMAGES)


def test_version2_gaps_are_kept():
    """Bytes no field accounts for (a bigger header gap) survive the round trip."""
    blob = bytearray(hand_v2(IMAGES[:2], entries_offset=48))
    blob[32:48] = b"reserved-bytes!!"
    model = off.parse_offloading(bytes(blob))
    check_images(model, IMAGES[:2])
    assert model.blobs[0].patches
    assert off.encode_offloading(model) == bytes(blob)


@pytest.mark.parametrize("method", ["zstd", "zlib"])
def test_version3_compressed(method):
    plain = hand_v2(IMAGES, version=3)
    body = plain[40:]
    if method == "zstd":
        import zstandard
        comp = zstandard.ZstdCompressor(level=3).compress(body)
    else:
        comp = zlib.compress(body, 6)
    hdr = struct.pack("<4sIQQQQ", b"\x10\xff\x10\xad", 3, 40 + len(comp), 40, len(IMAGES), len(plain))
    data = hdr + comp + bytes(-(40 + len(comp)) % 8)
    model = off.parse_offloading(data)
    (b,) = model.blobs
    assert b.compression == method and b.inflated_size == len(plain) and b.error is None
    check_images(model, IMAGES)
    assert off.encode_offloading(model) == data


def test_version3_uncompressed_and_unknown_compression():
    plain = hand_v2(IMAGES[:1], version=3)
    check_images(off.parse_offloading(plain), IMAGES[:1])
    junk = bytes(range(7, 107))
    hdr = struct.pack("<4sIQQQQ", b"\x10\xff\x10\xad", 3, 40 + len(junk), 40, 1, 4096)
    data = hdr + junk + bytes(-(40 + len(junk)) % 8)
    model = off.parse_offloading(data)
    (b,) = model.blobs
    assert b.compression == "unknown" and not b.entries and b.compressed == junk
    assert off.encode_offloading(model) == data


# -- bad input ----------------------------------------------------------------------------------------------
def good():
    return section_data(BC / "packaged.o")


@pytest.mark.parametrize("mutate,offset,words", [
    (lambda d: b"\x11" + d[1:], 0, "magic"),
    (lambda d: d[:20], 0, "truncated"),
    (lambda d: d[:4] + struct.pack("<I", 9) + d[8:], 4, "version"),
    (lambda d: d[:8] + struct.pack("<Q", len(d) + 8) + d[16:], 8, "past the end"),
    (lambda d: d[:0x28] + struct.pack("<Q", 1 << 40) + d[0x30:], 0x28, "string map"),
    (lambda d: d[:0x38] + struct.pack("<Q", 0xFFFF0) + d[0x40:], 0x38, "image"),
])
def test_bad_input_is_located(mutate, offset, words):
    data = mutate(good())
    with pytest.raises(DecodeError) as ei:
        off.parse_offloading(data)
    assert ei.value.offset == offset
    assert words in ei.value.message


def test_bad_blob_after_good_ones_keeps_the_good_ones():
    d = good()
    bad = d + b"\x10\xff\x10\xad" + bytes(4)
    with pytest.raises(DecodeError) as ei:
        off.parse_offloading(bad)
    assert ei.value.offset == len(d)
    assert len(ei.value.partial.blobs) == 3


def test_cli_reports_bad_section_without_traceback(tmp_path):
    objcopy = need_tool("llvm-objcopy-19")
    bad = tmp_path / "bad.bin"
    bad.write_bytes(good()[:100])
    out = tmp_path / "bad.o"
    subprocess.run([objcopy, "--update-section", f".llvm.offloading={bad}", str(BC / "packaged.o"), str(out)],
                   check=True, capture_output=True)
    rc, stdout, err = run_objllvm("dump", out)
    assert rc == 1
    assert "Traceback" not in err and "offset 0x" in err and ".llvm.offloading" in err
    assert ".llvm_addrsig" in stdout or "addrsig" in stdout      # the rest of the file is still dumped
    items = api.dump(str(out), ["offloading"])
    (sec,) = items[0].sections
    assert sec.status == "error"


def test_mutated_sections_never_crash():
    from hypothesis import given, settings
    from hypothesis import strategies as st
    base = good()

    @settings(max_examples=150, deadline=None)
    @given(st.data())
    def run(d):
        b = bytearray(base)
        for _ in range(d.draw(st.integers(1, 6))):
            i = d.draw(st.integers(0, 0x100))
            b[i] = d.draw(st.integers(0, 255))
        data = bytes(b[:d.draw(st.integers(0, len(b)))])
        try:
            m = off.parse_offloading(data, identify=bitcode.identify)
        except DecodeError as exc:
            assert exc.offset is not None
        else:
            assert off.encode_offloading(m) == data
    run()
