"""objllvm extract: payloads byte-identical to llvm-objcopy-19 --dump-section, loadable by llvm-dis-19, a
manifest that says where each came from, no overwriting without --force, nothing half-written."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess

import pytest

from conftest import TESTDATA, need_tool, run_objllvm
from objllvm import bitcode
from objllvm.errors import ObjllvmError

BC = TESTDATA / "bitcode"
INPUTS = ["embed.o", "fatlto.o", "embed-coff.obj", "embed-macho.o", "embed.bc", "wrapper.bc", "multi.bc",
          "omp.o", "omp-coff.obj", "cuda.o", "hip.o", "packaged.o", "libbc.a", "bitcode-members.ar", "libtinyrs.rlib", "marker.o"]


@pytest.fixture(scope="module")
def extracted(tmp_path_factory):
    out = tmp_path_factory.mktemp("x") / "out"
    rc, stdout, err = run_objllvm("extract", *[BC / f for f in INPUTS], "-o", out)
    assert rc == 0, err
    doc = json.loads((out / "manifest.json").read_text())
    return out, doc


def member_file(archive, member, tmp_path):
    """An archive member as a file, made by llvm-ar-19 x."""
    ar = need_tool("llvm-ar-19")
    d = tmp_path / ("ar-" + os.path.basename(archive))
    d.mkdir(exist_ok=True)
    subprocess.run([ar, "x", os.path.abspath(archive), member], cwd=d, check=True, capture_output=True)
    return d / member


def test_manifest_describes_every_file(extracted):
    out, doc = extracted
    assert doc["schema"] == "objllvm-extract" and not doc["errors"]
    names = [p["path"] for p in doc["payloads"]]
    assert len(names) == len(set(names))
    assert sorted(names + ["manifest.json"]) == sorted(os.listdir(out))
    for p in doc["payloads"]:
        data = (out / p["path"]).read_bytes()
        assert len(data) == p["size"]
        assert hashlib.sha256(data).hexdigest() == p["sha256"]


def test_bitcode_matches_objcopy_dump_section(extracted, tmp_path):
    objcopy = need_tool("llvm-objcopy-19")
    out, doc = extracted
    n = 0
    for p in doc["payloads"]:
        if p["kind"] != "bitcode" or p["section"] == "<bitcode>":
            continue
        src = member_file(p["file"], p["member"], tmp_path) if p["member"] else p["file"]
        dump = tmp_path / f"dump{n}"
        subprocess.run([objcopy, "--dump-section", f"{p['section']}={dump}", str(src), str(tmp_path / "junk")],
                       check=True, capture_output=True)
        assert dump.read_bytes() == (out / p["path"]).read_bytes(), p
        # where it came from: the bytes at file_offset in the (member) file
        raw = open(src, "rb").read()
        assert raw[p["file_offset"]:p["file_offset"] + p["size"]] == dump.read_bytes()
        n += 1
    assert n >= 7     # ELF .llvmbc/.llvm.lto, COFF, Mach-O, archive members, rlib


def test_raw_bitcode_files_are_copied_exactly(extracted):
    out, doc = extracted
    for p in doc["payloads"]:
        if p["section"] == "<bitcode>" and p["member"] is None:
            assert (out / p["path"]).read_bytes() == open(p["file"], "rb").read()


def test_extracted_clang_bitcode_loads_in_llvm_dis(extracted, tmp_path):
    dis = need_tool("llvm-dis-19")
    out, doc = extracted
    n = 0
    for p in doc["payloads"]:
        if p["path"].endswith(".bc") and "rcgu" not in p["path"]:        # rustc's LLVM 22 bitcode is newer
            r = subprocess.run([dis, str(out / p["path"]), "-o", str(tmp_path / "o.ll")], capture_output=True,
                               text=True)
            assert r.returncode == 0, (p["path"], r.stderr)
            n += 1
    assert n >= 10


def test_offload_images_are_named_from_triple_arch_kind(extracted):
    out, doc = extracted
    imgs = {p["path"]: p for p in doc["payloads"] if p["kind"] == "offload-image"}
    assert "packaged-cuda-nvptx64-nvidia-cuda-sm_70.bc" in imgs
    assert "packaged-hip-amdgcn-amd-amdhsa-gfx90a.bc" in imgs
    assert "packaged-openmp-x86_64-pc-linux-gnu-generic.o" in imgs
    assert "omp-openmp-x86_64-pc-linux-gnu.o" in imgs
    for name, p in imgs.items():
        data = (out / name).read_bytes()
        if name.endswith(".bc"):
            assert bitcode.summarize(data).modules[0].triple == p["triple"]
        else:
            assert data[:4] == b"\x7fELF"
        raw = open(p["file"], "rb").read()
        assert raw[p["file_offset"]:p["file_offset"] + p["size"]] == data


def test_command_lines_are_text(extracted, tmp_path):
    objcopy = need_tool("llvm-objcopy-19")
    out, doc = extracted
    (p,) = [p for p in doc["payloads"] if p["kind"] == "cmdline" and p["file"].endswith("/embed.o")]
    subprocess.run([objcopy, "--dump-section", f".llvmcmd={tmp_path / 'c'}", p["file"], str(tmp_path / "j")],
                   check=True, capture_output=True)
    args = (tmp_path / "c").read_bytes().rstrip(b"\0").split(b"\0")
    assert (out / p["path"]).read_bytes().splitlines() == args


def test_no_overwrite_without_force_and_nothing_written(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "embed-llvmbc.bc").write_bytes(b"mine")
    rc, _, err = run_objllvm("extract", BC / "embed.o", "-o", out)
    assert rc == 1 and "--force" in err and "Traceback" not in err
    assert sorted(os.listdir(out)) == ["embed-llvmbc.bc"]          # the other targets were not written either
    assert (out / "embed-llvmbc.bc").read_bytes() == b"mine"
    rc, _, err = run_objllvm("extract", BC / "embed.o", "-o", out, "--force")
    assert rc == 0, err
    assert (out / "embed-llvmbc.bc").read_bytes()[:4] == b"BC\xc0\xde"
    assert sorted(os.listdir(out)) == ["embed-llvmbc.bc", "embed-llvmcmd.txt", "manifest.json"]


def test_failed_write_leaves_nothing_behind(tmp_path, monkeypatch):
    from objllvm import atomicio
    calls = []
    real = atomicio.atomic_write

    def flaky(path, data, **kw):
        calls.append(path)
        if len(calls) == 3:
            raise ObjllvmError(f"{path}: cannot write: disk full (simulated)")
        return real(path, data, **kw)
    monkeypatch.setattr(atomicio, "atomic_write", flaky)
    out = tmp_path / "o"
    with pytest.raises(ObjllvmError) as ei:
        bitcode.extract([str(BC / "packaged.o"), str(BC / "embed.o")], str(out))
    assert "simulated" in str(ei.value)
    assert len(calls) >= 3
    assert not out.exists()       # the files that were written are removed again, no manifest, and the directory
    #                               this call made is gone too (no empty output directory)


def test_bad_payload_is_reported_and_the_rest_extracted(tmp_path):
    objcopy = need_tool("llvm-objcopy-19")
    bad = tmp_path / "bad.bc"
    bad.write_bytes(b"BX\xc0\xde" + bytes(12))
    obj = tmp_path / "bad.o"
    subprocess.run([objcopy, "--update-section", f".llvmbc={bad}", str(BC / "embed.o"), str(obj)], check=True,
                   capture_output=True)
    out = tmp_path / "o"
    rc, _, err = run_objllvm("extract", obj, BC / "omp.o", "-o", out)
    assert rc == 1 and "bad bitcode magic" in err and "offset 0x0" in err and "Traceback" not in err
    doc = json.loads((out / "manifest.json").read_text())
    assert {p["kind"] for p in doc["payloads"]} == {"cmdline", "offload-image"}
    assert doc["errors"]
