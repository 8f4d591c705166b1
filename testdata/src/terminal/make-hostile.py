#!/usr/bin/env python3
"""Objects and archives whose names carry what a terminal acts on (escape sequences: title changes, screen
clears, colours; newlines that would forge a second error line; bidirectional overrides; bytes that are not
UTF-8) and names too long for a file system: library names, linker options, a command line, section names, an
offloading image's triple and archive member names.  yaml2obj-22 lays the ELF files out; a byte that is not
UTF-8 cannot be written in YAML, so each ``@@`` of the YAML becomes the bytes ff fe afterwards.

    make-hostile.py OUTDIR      (scripts/testdata.d/85-terminal.sh runs it)
"""
import struct
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BITCODE = HERE.parent.parent / "bitcode" / "embed.bc"      # a small real module (clang-19, committed)

ESC_TITLE = "\\e]0;owned\\a"               # YAML double-quoted escapes, written by yaml2obj as the bytes
CLEAR_RED = "\\e[2J\\e[31m"
FORGED = "\\nobjllvm: error: /etc/passwd: forged"


def offloading(images) -> bytes:
    """An OffloadBinary (version 1: header, entries, string map, strings, images), laid out by this script from
    the layout in llvm/include/llvm/Object/OffloadBinary.h (magic 0x10ff10ad, 32-byte header: magic, version u32, size, entries offset, entry count u64; 40-byte entries: image kind u16,
    offload kind u16, flags u32, string offset u64, string count u64, image offset u64, image size u64; string
    entries of two u64 offsets)."""
    blob = bytearray()
    for kind, okind, image, strings in images:
        hsize, esize = 32, 40
        smap = hsize + esize
        strtab = bytearray()
        offs = []
        base = smap + 16 * len(strings)
        for k, v in strings:
            ko = base + len(strtab); strtab += k + b"\0"
            vo = base + len(strtab); strtab += v + b"\0"
            offs.append((ko, vo))
        img_at = (base + len(strtab) + 7) // 8 * 8
        total = (img_at + len(image) + 7) // 8 * 8
        b = bytearray(total)
        b[0:32] = struct.pack("<4sIQQQ", b"\x10\xff\x10\xad", 1, total, hsize, 1)
        b[32:72] = struct.pack("<HHIQQQQ", kind, okind, 0, smap, len(strings), img_at, len(image))
        for i, (ko, vo) in enumerate(offs):
            b[smap + 16 * i:smap + 16 * (i + 1)] = struct.pack("<QQ", ko, vo)
        b[base:base + len(strtab)] = strtab
        b[img_at:img_at + len(image)] = image
        blob += b
    return bytes(blob)


CMDLINE = b"-c\0-DX=\x1b]0;owned\x07\0"
ELF_IMAGE = b"\x7fELF\x02\x01\x01" + bytes(9) + struct.pack("<HH", 1, 62) + bytes(40)


def hostile_yaml() -> str:
    off = offloading([
        (1, 1, ELF_IMAGE, [(b"triple", b"x86_64\x1b]0;owned\x07-unknown-linux\x1b[2J"), (b"arch", b"gen\xff\xfeeric")]),
        (1, 1, ELF_IMAGE, [(b"triple", b"x" * 5000), (b"arch", b"generic")]),     # a name too long for a file
    ])
    return f"""--- !ELF
FileHeader:
  Class: ELFCLASS64
  Data:  ELFDATA2LSB
  Type:  ET_REL
  Machine: EM_X86_64
Sections:
  - Name: .text
    Type: SHT_PROGBITS
    Flags: [ SHF_ALLOC, SHF_EXECINSTR ]
    Content: "c3"
  - Name: .deplibs
    Type: SHT_LLVM_DEPENDENT_LIBRARIES
    Flags: [ SHF_MERGE, SHF_STRINGS ]
    Libraries: [ "m{ESC_TITLE}", "c{CLEAR_RED}red", "bad@@{FORGED}", "\\u202egnp.exe" ]
  - Name: .linker-options
    Type: SHT_LLVM_LINKER_OPTIONS
    Options:
      - Name:  "lib\\e[1mbold@@"
        Value: "{CLEAR_RED}{FORGED}"
  - Name: .llvmcmd
    Type: SHT_PROGBITS
    Content: "{CMDLINE.hex()}"
  - Name: .llvmbc
    Type: SHT_PROGBITS
    Content: "{BITCODE.read_bytes().hex()}"
  - Name: .llvm.offloading
    Type: SHT_LLVM_OFFLOADING
    Flags: [ SHF_EXCLUDE ]
    AddressAlign: 8
    Content: "{off.hex()}"
  - Name: ".deplibs{ESC_TITLE}{CLEAR_RED}@@{FORGED}"
    Type: SHT_LLVM_DEPENDENT_LIBRARIES
    Flags: [ SHF_MERGE, SHF_STRINGS ]
    Content: "41"
"""


def yaml2obj(text: str, out: Path) -> None:
    src = out.with_suffix(".yaml.tmp")
    src.write_text(text)
    try:
        subprocess.run(["yaml2obj-22", str(src), "-o", str(out)], check=True)
    finally:
        src.unlink()
    data = out.read_bytes()
    assert b"@@" in data
    out.write_bytes(data.replace(b"@@", b"\xff\xfe"))


def bsd_archive(members) -> bytes:
    """An archive with BSD names (``#1/N``: the name after the header, N bytes), which may hold any byte."""
    out = bytearray(b"!<arch>\n")
    for name, data in members:
        body = name + data
        hdr = f"#1/{len(name)}".ljust(16) + "0".ljust(12) + "0".ljust(6) + "0".ljust(6) + "644".ljust(8)
        out += hdr.encode() + str(len(body)).ljust(10).encode() + b"`\n" + body
        if len(body) % 2:
            out += b"\n"
    return bytes(out)


def main(outdir: str) -> None:
    o = Path(outdir)
    o.mkdir(parents=True, exist_ok=True)
    yaml2obj(hostile_yaml(), o / "hostile.o")
    obj = (o / "hostile.o").read_bytes()
    (o / "hostile-members.a").write_bytes(bsd_archive([
        (b"a\x1b]0;owned\x07\x1b[2J.o", obj),
        (b"b\xff\xfe\nobjllvm: error: /etc/passwd: forged.o", obj),
        (b"m" * 300 + b".o", obj),                      # a name too long for a file system
    ]))


if __name__ == "__main__":
    main(sys.argv[1])
