# Instrumentation-profile and coverage-mapping sections: clang-22, clang-19 and rustc
# (-fprofile-instr-generate -fcoverage-mapping [-fcoverage-mcdc]; rustc -C instrument-coverage), in ELF objects and
# linked programs, COFF and Mach-O objects, a 32-bit object and one with uncompressed names.  The ELF programs
# are run and LLVM's own tools' views of what they wrote are kept beside them (the tests need no compiler):
#   NAME.profdata-show-22.txt / -19.txt   llvm-profdata-{22,19} show --all-functions --counts on the .profraw
#   NAME.cov-export.json                  llvm-cov-22 export -format=text with that profile
# Sources in testdata/src/profile/, outputs in testdata/profile/.
OUT="$TD/profile"
mkdir -p "$OUT"
cd "$SRC/profile"
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
FLAGS="-O0 -fprofile-instr-generate -fcoverage-mapping -fcoverage-compilation-dir=. -ffile-compilation-dir=."
run_and_record() {   # NAME BINARY: run it, keep the raw profile and the tools' views
  local name=$1 bin=$2
  # without address-space randomisation: the .profraw holds function addresses, and stays the same run to run
  LLVM_PROFILE_FILE="$TMP/$name.profraw" setarch "$(uname -m)" -R "$bin" >/dev/null || true
  cp "$TMP/$name.profraw" "$OUT/$name.profraw"
  llvm-profdata-22 show --all-functions --counts "$TMP/$name.profraw" > "$OUT/$name.profdata-show-22.txt"
  llvm-profdata-19 show --all-functions --counts "$TMP/$name.profraw" > "$OUT/$name.profdata-show-19.txt" \
    || echo "llvm-profdata-19 cannot read this profile" > "$OUT/$name.profdata-show-19.txt"
  llvm-profdata-22 merge -o "$TMP/$name.profdata" "$TMP/$name.profraw"
  llvm-cov-22 export -format=text -instr-profile "$TMP/$name.profdata" "$bin" > "$OUT/$name.cov-export.json"
}
for v in 22 19; do
  CC="clang-$v $FLAGS -fcoverage-mcdc"
  # clang-22's ELF builds also profile indirect-call targets (value sites, __llvm_prf_vals and __llvm_prf_vnds)
  VP=""; [ $v = 22 ] && VP="-mllvm -enable-value-profiling"
  $CC $VP -c prog.c -o "$OUT/prog-clang$v.o"
  # the program, linked with the profile runtime, without symbols (small); the runtime's sections are real too
  $CC $VP prog.c -Wl,-s -Wl,--gc-sections -Wl,--build-id=none -o "$OUT/prog-clang$v"
  run_and_record "prog-clang$v" "$OUT/prog-clang$v"
  $CC -c --target=x86_64-pc-windows-msvc -mno-incremental-linker-compatible prog.c -o "$OUT/prog-clang$v-coff.obj"
  $CC -c --target=arm64-apple-macos13 prog.c -o "$OUT/prog-clang$v-macho.o"
done
# a linked Mach-O file (ld64.lld, without the profile runtime: a dylib whose runtime hook stays undefined)
ld64.lld-22 -arch arm64 -platform_version macos 13.0 13.0 -dylib -undefined dynamic_lookup \
  -o "$OUT/prog-clang22-macho.dylib" "$OUT/prog-clang22-macho.o"
# IR-level instrumentation (-fprofile-generate) with vtable profiling: __llvm_prf_vtab, __llvm_prf_vns and the
# raw-profile version variable; the program is run for llvm-profdata's view, the object is kept
clang++-22 -O1 -fprofile-generate -mllvm -enable-vtable-value-profiling -c vt.cpp -o "$OUT/vt-irpgo.o"
clang++-22 -O1 -fprofile-generate "$OUT/vt-irpgo.o" -Wl,-s -o "$TMP/vt-irpgo"
LLVM_PROFILE_FILE="$TMP/vt-irpgo.profraw" setarch "$(uname -m)" -R "$TMP/vt-irpgo"
cp "$TMP/vt-irpgo.profraw" "$OUT/vt-irpgo.profraw"
llvm-profdata-22 show --all-functions --counts --ic-targets --show-vtables "$TMP/vt-irpgo.profraw" \
  > "$OUT/vt-irpgo.profdata-show-22.txt"
llvm-profdata-19 show --all-functions --counts "$TMP/vt-irpgo.profraw" > "$OUT/vt-irpgo.profdata-show-19.txt"
# IR-level function-entry coverage: one-byte counters (the raw-version variable's byte-coverage flag)
clang-22 -O1 -fprofile-generate -mllvm -pgo-function-entry-coverage -c prog.c -o "$OUT/entry-coverage.o"
clang-22 -O1 -fprofile-generate "$OUT/entry-coverage.o" -Wl,-s -o "$TMP/entry-coverage"
LLVM_PROFILE_FILE="$TMP/entry-coverage.profraw" setarch "$(uname -m)" -R "$TMP/entry-coverage"
llvm-profdata-22 show --all-functions --counts "$TMP/entry-coverage.profraw" > "$OUT/entry-coverage.profdata-show-22.txt"
# 32-bit records (4-byte pointers), big-endian, and names / file names not compressed
clang-22 $FLAGS -fcoverage-mcdc -c --target=i386-pc-linux-gnu prog.c -o "$OUT/prog-i386.o"
clang-22 $FLAGS -c --target=powerpc64-unknown-linux-gnu prog.c -o "$OUT/prog-ppc64be.o"
clang-22 $FLAGS -mllvm -enable-name-compression=false -c prog.c -o "$OUT/prog-nocompress.o"
# rustc: the object (llvm-cov reads objects too); the program is run for the tools' views, not kept (370 KB)
if command -v rustc >/dev/null; then
  RUSTFLAGS="-C instrument-coverage -C codegen-units=1 -C opt-level=0 -C metadata=objllvm --remap-path-prefix=$SRC/profile=."
  rustc $RUSTFLAGS --emit=obj lib.rs -o "$OUT/rust.o"
  rustc $RUSTFLAGS -C strip=symbols lib.rs -o "$TMP/rust"
  run_and_record rust "$TMP/rust"
  rustc --version --verbose > "$OUT/rust.rustc-version.txt"
fi
