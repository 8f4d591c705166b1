# Basic-block address maps (SHT_LLVM_BB_ADDR_MAP, SHT_LLVM_BB_ADDR_MAP_V0) from real producers.
# Sources: testdata/src/bb-addr-map/.  Outputs: testdata/bb-addr-map/.
# Needs clang-19, lld-19, llvm-19 tools, llc-14 and rustc (LLVM 22).
S="$SRC/bb-addr-map"
O="$TD/bb-addr-map"
mkdir -p "$O"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
LINK="-fuse-ld=lld -Wl,--build-id=none"
CC="clang-19 -O2 -fno-asynchronous-unwind-tables -fno-ident"

# clang-19: version 2, with and without PGO analysis, objects (one map / one map per text section),
# executables and a shared object.
$CC -fbasic-block-sections=labels -c "$S/bbs.c" -o "$O/clang19-labels.o"
$CC -fbasic-block-sections=labels -ffunction-sections -c "$S/bbs.c" -o "$O/clang19-labels-fs.o"
$CC -fbasic-block-sections=labels $LINK "$S/bbs.c" -o "$O/clang19-labels.exe"
$CC -fbasic-block-sections=labels -fPIC -shared $LINK "$S/bbs.c" -o "$O/clang19-labels.so"
PGO="-mllvm -pgo-analysis-map=func-entry-count,bb-freq,br-prob"
$CC -fbasic-block-sections=labels $PGO -c "$S/bbs.c" -o "$O/clang19-pgo-static.o"
# A real instrumentation profile: build instrumented, run, merge, rebuild with it.
(cd "$W" && clang-19 -O2 -fprofile-instr-generate $LINK "$S/bbs.c" -o inst && LLVM_PROFILE_FILE="$W/bbs.profraw" ./inst || true)
llvm-profdata-19 merge -o "$W/bbs.profdata" "$W/bbs.profraw"
$CC -fbasic-block-sections=labels $PGO -fprofile-instr-use="$W/bbs.profdata" -ffunction-sections -c "$S/bbs.c" \
    -o "$O/clang19-pgo-profile-fs.o"
$CC -fbasic-block-sections=labels $PGO -fprofile-instr-use="$W/bbs.profdata" $LINK "$S/bbs.c" \
    -o "$O/clang19-pgo-profile.exe"
# C++ with a landing pad (IsEHPad).
clang-19 -O2 -fno-ident -x c++ -fbasic-block-sections=labels -c "$S/eh.cpp" -o "$O/clang19-eh.o"

# llc-14: the old SHT_LLVM_BB_ADDR_MAP_V0 type (no version byte), object and executable.
llc-14 -O2 -filetype=obj -basic-block-sections=labels "$S/v0.ll" -o "$O/llc14-v0.o"
clang-19 $LINK "$O/llc14-v0.o" -o "$O/llc14-v0.exe"

# rustc (LLVM 22): version 5 with call-site offsets; with block hashes; with PGO analysis.
# Not reproducible: LLVM 22's block hashes (-emit-bb-hash) differ between two identical builds
# (seen here: bits 16-31 of some hashes), so the two hashed outputs change on every rebuild.
RUSTC="rustc -O -C prefer-dynamic -C debuginfo=0 -C strip=debuginfo -C llvm-args=-basic-block-address-map"
$RUSTC "$S/prog.rs" -o "$O/rustc-v5.exe"
$RUSTC -C llvm-args=-emit-bb-hash "$S/prog.rs" -o "$O/rustc-v5-hash.exe"
$RUSTC -C llvm-args=-emit-bb-hash -C llvm-args=-pgo-analysis-map=func-entry-count,bb-freq,br-prob \
    "$S/prog.rs" -o "$O/rustc-v5-pgo.exe"
$RUSTC -C llvm-args=-emit-bb-hash -C llvm-args=-pgo-analysis-map=func-entry-count,bb-freq,br-prob \
    -C codegen-units=1 --emit=obj "$S/prog.rs" -o "$W/prog.o"
# Keep only what matters (the rust object carries big metadata sections otherwise).
llvm-objcopy-19 --strip-debug "$W/prog.o" "$O/rustc-v5-pgo.o"

# yaml2obj-19: versions 0/1 next to 2, multiple ranges in big-endian 32-bit, partial PGO with relocations.
for y in yaml-versions yaml-multirange yaml-pgo-partial; do
  yaml2obj-19 "$S/$y.yaml" -o "$O/$y.o"
done
# The V0 type through yaml2obj (raw contents: yaml2obj-19 has no Entries for it), big-endian.
yaml2obj-19 "$S/yaml-v0type-be.yaml" -o "$O/yaml-v0type-be.o"

# llvm-mc-19: versions 3, 4, 5 (call sites, hashes, post-link CFG) and OmitBBEntries; objects and executables.
for s in v3 v4 v5 omit; do
  llvm-mc-19 -filetype=obj -triple=x86_64-linux-gnu -I "$S" "$S/$s.s" -o "$O/mc-$s.o"
  ld.lld-19 -e _start --build-id=none "$O/mc-$s.o" -o "$O/mc-$s.exe"
done

# i386 object: REL relocations, the addresses are the implicit addends in the words (llvm-readobj-19
# cannot read it: it expects RELA).
$CC -m32 -fbasic-block-sections=labels -c "$S/bbs.c" -o "$O/clang19-i386-rel.o"
