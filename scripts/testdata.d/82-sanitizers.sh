# Sanitizer sections: AddressSanitizer's global descriptors (asan_globals) and SanitizerCoverage's tables
# (__sancov_pcs, __sancov_guards, __sancov_cntrs, __sancov_bools), from clang-22: an object, the compiler's
# IR for the same source (the descriptors and tables the tests compare with), and a PIE link against the shared
# ASan runtime.
S="$SRC/sanitizers"
O="$TD/sanitizers"
rm -rf "$O"; mkdir -p "$O"
SAN="-fsanitize=address -fsanitize-coverage=trace-pc-guard,pc-table,inline-8bit-counters,inline-bool-flag"
CC="clang-22 -fdebug-prefix-map=$ROOT=. -ffile-prefix-map=$ROOT=. -O1 $SAN"
cd "$S"
$CC -c san.c -o "$O/san.o"
$CC -S -emit-llvm san.c -o "$O/san.ll"
# C++: a global with a dynamic initializer, mangled names.
$CC -c dyn.cc -o "$O/dyn.o"
$CC -S -emit-llvm dyn.cc -o "$O/dyn.ll"
# Mach-O (audit finds the sanitizer sections by their Mach-O names).
$CC --target=x86_64-apple-macos13 -c dyn.cc -o "$O/dyn-macho.o"
# A position-independent link (the common default): the fields are left 0 and R_X86_64_RELATIVE relocations in
# .rela.dyn fill them.
$CC -shared-libasan -pie -fuse-ld=lld -Wl,--build-id=none "$O/san.o" "$O/dyn.o" -o "$O/san-pie"
echo "sanitizer sections in $O"
