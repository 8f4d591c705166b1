# A PIE whose PT_GNU_RELRO file range ends inside the non-loaded tail (rustup's rustc has one: p_filesz equal to
# p_memsz, which reaches past the last loaded byte into .symtab).  lld-22 links the program, then the RELRO
# header's p_filesz is set to its p_memsz and the script checks that the range now ends inside .symtab.
#   relro-tail.pie   100 functions fn_10 .. fn_109 in .symtab, which the RELRO file range cuts in two
S="$SRC/rewrite-relro"
O="$TD/rewrite-relro"
rm -rf "$O"; mkdir -p "$O"
clang-22 -O1 -fPIE -pie -fuse-ld=lld -fno-ident -Wl,--build-id=none "$S/relro_tail.c" -o "$O/relro-tail.pie"
python3 - "$O/relro-tail.pie" <<'PY'
import struct, sys
path = sys.argv[1]
b = bytearray(open(path, "rb").read())
assert b[:4] == b"\x7fELF" and b[4] == 2 and b[5] == 1, "expected ELF64 little-endian"
phoff, = struct.unpack_from("<Q", b, 0x20)
phentsize, phnum = struct.unpack_from("<HH", b, 0x36)
shoff, = struct.unpack_from("<Q", b, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3A)
relro_end = None
for k in range(phnum):
    at = phoff + k * phentsize
    p_type, = struct.unpack_from("<I", b, at)
    if p_type == 0x6474E552:            # PT_GNU_RELRO
        p_offset, = struct.unpack_from("<Q", b, at + 8)
        p_memsz, = struct.unpack_from("<Q", b, at + 40)
        struct.pack_into("<Q", b, at + 32, p_memsz)
        relro_end = p_offset + p_memsz
assert relro_end is not None, "no PT_GNU_RELRO"
names_off, = struct.unpack_from("<Q", b, shoff + shstrndx * shentsize + 24)
inside = []
for i in range(shnum):
    at = shoff + i * shentsize
    name, sh_type = struct.unpack_from("<II", b, at)
    sh_offset, sh_size = struct.unpack_from("<QQ", b, at + 24)
    nm = bytes(b[names_off + name:b.index(0, names_off + name)]).decode()
    if sh_offset < relro_end < sh_offset + sh_size:
        inside.append(nm)
assert inside == [".symtab"], f"the RELRO file range ends at {relro_end:#x}, inside {inside}, expected .symtab"
open(path, "wb").write(b)
PY
