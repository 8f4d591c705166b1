# Rewrite corpus: one small program whose objects carry every kind of LLVM section the rewrite operations
# edit, plus the linked executable (ET_EXEC), PIE (ET_DYN) and shared object built from them.
#   main.o     deplibs (libm), addrsig, call-graph profile from a real PGO run, compressed (zlib) debug info
#   helper.o   -fembed-bitcode: .llvmbc + .llvmcmd
#   lto.o      -ffat-lto-objects: .llvm.lto
#   bbmap.o    C++ inline function: COMDAT group holding a basic-block address map with PGO analysis
#   linkopt.o  .linker-options (llc-19)
#   kind-pairs.o  a section of a kind objllvm does not know, with relocations (tests/test_codec_hooks.py)
#   prog.exe   -no-pie link of all (keeps the bb-addr-map); prog.pie (ET_DYN); libbb.so (shared)
#   not-bitcode.bin  a file that is not bitcode (for --replace-bitcode errors)
#   replacement.bc   valid bitcode (for --replace-bitcode)
S="$SRC/rewrite"
O="$TD/rewrite"
rm -rf "$O"; mkdir -p "$O"
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
CC="clang-19 -fno-ident -fdebug-prefix-map=$ROOT=. -ffile-prefix-map=$ROOT=. -fPIC"
PGOMAP="-mllvm -pgo-analysis-map=func-entry-count,bb-freq,br-prob"

# Profile run (instrumented build of the same sources).
$CC -O1 -fprofile-instr-generate "$S/main.c" "$S/helper.c" "$S/lto.c" -x c++ "$S/bbmap.cpp" -x ir "$S/linkopt.ll" \
  -fuse-ld=lld -Wno-override-module -o "$W/gen"
LLVM_PROFILE_FILE="$W/p.profraw" "$W/gen" 3000 >/dev/null
llvm-profdata-19 merge -o "$W/p.profdata" "$W/p.profraw"
USE="-fprofile-instr-use=$W/p.profdata -Wno-backend-plugin -Wno-profile-instr-unprofiled"

$CC -O1 $USE -g1 -gz=zlib -c "$S/main.c" -o "$O/main.o"
$CC -O1 -fembed-bitcode -c "$S/helper.c" -o "$O/helper.o"
$CC -O1 -flto=thin -ffat-lto-objects -c "$S/lto.c" -o "$O/lto.o"
clang++-19 -fno-ident -fPIC -O1 $USE -fno-exceptions -ffunction-sections -fbasic-block-sections=labels $PGOMAP \
  -c "$S/bbmap.cpp" -o "$O/bbmap.o"
llc-19 -filetype=obj -relocation-model=pic "$S/linkopt.ll" -o "$O/linkopt.o"
llvm-mc-22 -filetype=obj -triple=x86_64-linux-gnu "$S/kind-pairs.s" -o "$O/kind-pairs.o"

OBJS="$O/main.o $O/helper.o $O/lto.o $O/bbmap.o $O/linkopt.o"
clang-19 -fuse-ld=lld -no-pie -Wl,--build-id=none $OBJS -o "$O/prog.exe"
clang-19 -fuse-ld=lld -pie -Wl,--build-id=none $OBJS -o "$O/prog.pie"
clang-19 -fuse-ld=lld -shared -Wl,--build-id=none "$O/helper.o" "$O/bbmap.o" "$O/lto.o" -o "$O/libbb.so"

printf 'not bitcode at all\n' > "$O/not-bitcode.bin"
clang-19 -O1 -c -emit-llvm "$S/helper.c" -o "$O/replacement.bc"
"$O/prog.exe" 100 > /dev/null

# 32-bit big-endian (MIPS, RELA-less REL objects) and 32-bit ARM; extended section numbering (yaml2obj).
$CC -O1 --target=mips-linux-gnu -c "$S/tiny.c" -o "$O/tiny-mips32be.o"
$CC -O1 --target=armv7-linux-gnueabihf -c "$S/tiny.c" -o "$O/tiny-arm32.o"
yaml2obj-19 "$S/xindex.yaml" -o "$O/xindex.o"
