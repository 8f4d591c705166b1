# PC sections (!pcsections): sanitizer binary metadata from clang-19 and hand-written metadata through llc-19.
# Sources: testdata/src/pc-sections/.  Outputs: testdata/pc-sections/.
# Needs clang-19, llc-19, lld-19 (ld.lld-19) and llvm-strip-19.
S="$SRC/pc-sections"
O="$TD/pc-sections"
rm -rf "$O"; mkdir -p "$O"
# llc emits the instruction groups of one function in hash-map order (keyed by pointers): without address
# space randomisation the order is the same on every run.
NOASLR=""; if setarch "$(uname -m)" -R true 2>/dev/null; then NOASLR="setarch $(uname -m) -R"; fi
CC="$NOASLR clang-19 -O2 -fno-ident -fno-asynchronous-unwind-tables"
SANMD="-fexperimental-sanitize-metadata=atomics,uar"
LINK="-fuse-ld=lld -Wl,--build-id=none"
A64="--target=aarch64-linux-gnu"

# x86-64: object, shared object, executable (the callbacks are weak: no runtime needed), an executable
# that defines the callbacks, -mcmodel=large (pointer-sized PCs, sections sanmd_*65538).
$CC $SANMD -c "$S/sanmd.c" -o "$O/sanmd-x86_64.o"
$CC $SANMD -fPIC -shared $LINK "$S/sanmd.c" -o "$O/sanmd-x86_64.so"
$CC $SANMD $LINK "$S/sanmd.c" "$S/main.c" -o "$O/sanmd-x86_64.exe"
$CC $SANMD $LINK "$S/sanmd.c" "$S/main.c" "$S/sanmd-hooks.c" -o "$O/sanmd-hooks-x86_64.exe"
$CC $SANMD -mcmodel=large -c "$S/sanmd.c" -o "$O/sanmd-large-x86_64.o"
$CC $SANMD -mcmodel=large $LINK "$S/sanmd.c" "$S/main.c" -o "$O/sanmd-large-x86_64.exe"
# With a basic-block address map beside it (for the block column).
$CC $SANMD -fbasic-block-sections=labels -c "$S/sanmd.c" -o "$O/sanmd-bbmap-x86_64.o"
$CC $SANMD -fbasic-block-sections=labels -ffunction-sections -c "$S/sanmd.c" -o "$O/sanmd-bbmap-fs-x86_64.o"
$CC $SANMD -fbasic-block-sections=labels $LINK "$S/sanmd.c" "$S/main.c" -o "$O/sanmd-bbmap-x86_64.exe"

# AArch64 (no libc here: freestanding links).
$CC $A64 $SANMD -c "$S/sanmd.c" -o "$O/sanmd-aarch64.o"
$CC $A64 $SANMD -fno-pic -mcmodel=large -c "$S/sanmd.c" -o "$O/sanmd-large-aarch64.o"
$CC $A64 $SANMD -fPIC -shared -nostdlib $LINK "$S/sanmd.c" -o "$O/sanmd-aarch64.so"
$CC $A64 $SANMD -static -nostdlib -DNOLIBC $LINK -Wl,-e,_start "$S/sanmd.c" "$S/main.c" -o "$O/sanmd-aarch64.exe"

# 32-bit x86 (REL relocations: the addend is in the section bytes) and big-endian AArch64.
$CC --target=i386-linux-gnu $SANMD -c "$S/sanmd.c" -o "$O/sanmd-i386.o"
$CC --target=i386-linux-gnu $SANMD -fPIC -shared -nostdlib $LINK "$S/sanmd.c" -o "$O/sanmd-i386.so"
$CC --target=aarch64_be-linux-gnu $SANMD -c "$S/sanmd.c" -o "$O/sanmd-aarch64_be.o"

# Hand-written metadata: objects and shared objects for both targets.
$NOASLR llc-19 -O2 -filetype=obj "$S/custom.ll" -o "$O/custom-x86_64.o"
ld.lld-19 -shared --build-id=none "$O/custom-x86_64.o" -o "$O/custom-x86_64.so"
sed 's/^target triple = .*/target triple = "aarch64-unknown-linux-gnu"/' "$S/custom.ll" | \
  $NOASLR llc-19 -O2 -filetype=obj -o "$O/custom-aarch64.o"
ld.lld-19 -shared --build-id=none "$O/custom-aarch64.o" -o "$O/custom-aarch64.so"
# Version 1 (LLVM 16) sanitizer metadata, from IR carrying that release's metadata.
$NOASLR llc-19 -O2 -filetype=obj "$S/sanmd-v1.ll" -o "$O/v1-x86_64.o"

llvm-strip-19 --strip-debug "$O"/*.exe "$O"/*.so
