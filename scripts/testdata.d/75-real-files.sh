# Real files: a stale address-significance table (clang-22, then GNU strip --strip-debug), section
# headers whose contents run past the end of the file (yaml2obj-22 ShOffset/ShSize), a section header table near
# the start of the file (as Go's linker places it), and linked files with data appended after the last section.
S="$SRC/real-files"
O="$TD/real-files"
rm -rf "$O"; mkdir -p "$O"
CC="clang-22 -fno-ident -fdebug-prefix-map=$ROOT=. -ffile-prefix-map=$ROOT=."

$CC -g -O1 -c "$S/stale.c" -o "$O/stale-fresh.o"
strip --strip-debug "$O/stale-fresh.o" -o "$O/stale-strip.o"
# (bad-headers.yaml is assembled by tests/test_real_files.py with yaml2obj-22: a broken file stays out of the corpus)
yaml2obj-22 "$S/shdr-early.yaml" -o "$O/shdr-early.elf"
$CC -O1 -fuse-ld=lld -Wl,--build-id=none "$S/prog.c" -o "$O/prog.elf"
cp "$O/prog.elf" "$O/prog-appended.elf"
# 3000 bytes after the section header table: a stand-in for a signature or an appended archive
python3 -c "import sys; sys.stdout.buffer.write(bytes(range(256)) * 11 + b'OBJLLVM-TRAILER' + bytes(169))" >> "$O/prog-appended.elf"
