# LLVM 22 corpus: the section kinds LLVM 22 writes (jump-table sizes, call graph, CFI jump table) and the
# LLVM-specific sections known by name (stack maps, fault maps, XRay, stack sizes, offloading entries,
# HWASan globals, statistics), plus COFF and Mach-O address-significance and call-graph-profile sections.
# Every file comes from an LLVM 22 producer (clang-22, llc-22, llvm-mc-22, ld.lld-22).
S="$SRC/llvm22"
O="$TD/llvm22"
rm -rf "$O"; mkdir -p "$O"
CC="clang-22 -fno-ident -fdebug-prefix-map=$ROOT=. -ffile-prefix-map=$ROOT=."

# SHT_LLVM_JT_SIZES: one section per function with jump tables.
$CC -O2 -mllvm -emit-jump-table-sizes-section -c "$S/sw.c" -o "$O/jt-sizes.o"
ld.lld-22 -r "$O/jt-sizes.o" -o "$O/jt-sizes-ld-r.o"
ld.lld-22 "$O/jt-sizes.o" -e sw -o "$O/jt-sizes.exe" --unresolved-symbols=ignore-all
$CC -O2 -mllvm -emit-jump-table-sizes-section --target=x86_64-pc-windows-msvc -mno-incremental-linker-compatible \
  -c "$S/sw.c" -o "$O/jt-sizes-coff.obj"
# SHT_LLVM_CALL_GRAPH (.llvm.callgraph).
$CC -O2 -fexperimental-call-graph-section -c "$S/sw.c" -o "$O/callgraph.o"
$CC -O2 -fexperimental-call-graph-section --target=i386-linux-gnu -c "$S/sw.c" -o "$O/callgraph-i386.o"
ld.lld-22 "$O/callgraph.o" -e sw --unresolved-symbols=ignore-all -o "$O/callgraph.exe"
# SHT_LLVM_CFI_JUMP_TABLE: clang-22 still writes PROGBITS for CFI jump tables; the assembler writes the type.
llvm-mc-22 -filetype=obj -triple=x86_64-linux-gnu "$S/cfi-jt.s" -o "$O/cfi-jump-table.o"
# Stack maps: ELF, Mach-O, COFF.
llc-22 -O1 -filetype=obj "$S/sm.ll" -o "$O/stackmaps.o"
llc-22 -O1 -filetype=obj -mtriple=x86_64-apple-macosx13 "$S/sm.ll" -o "$O/stackmaps-macho.o"
llc-22 -O1 -filetype=obj -mtriple=x86_64-pc-windows-msvc "$S/sm.ll" -o "$O/stackmaps-coff.obj"
# Fault maps (implicit null checks); a link of both (the addresses resolved).
llc-22 -O2 -enable-implicit-null-checks -filetype=obj "$S/fm.ll" -o "$O/faultmaps.o"
llc-22 -O2 -enable-implicit-null-checks -filetype=obj -mtriple=x86_64-apple-macosx13 "$S/fm.ll" -o "$O/faultmaps-macho.o"
ld.lld-22 "$O/stackmaps.o" "$O/faultmaps.o" -e f --unresolved-symbols=ignore-all -o "$O/stackmaps-faultmaps.exe"
# XRay: an object (one map and one index section per function) and a small link without the runtime.
$CC -O1 -fxray-instrument -fxray-instruction-threshold=1 -c "$S/xr.c" -o "$O/xray.o"
ld.lld-22 "$O/xray.o" -e main --unresolved-symbols=ignore-all -o "$O/xray.exe"
$CC -O1 -fxray-instrument -fxray-instruction-threshold=1 --target=x86_64-apple-macos13 -c "$S/xr.c" -o "$O/xray-macho.o"
# .stack_sizes (-O0: real frames).
$CC -O0 -fstack-size-section -c "$S/xr.c" -o "$O/stack-sizes.o"
ld.lld-22 "$O/stack-sizes.o" -e main --unresolved-symbols=ignore-all -o "$O/stack-sizes.exe"
# Offloading entries (llvm_offload_entries) and their names (.llvm.rodata.offloading).
$CC -O1 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c "$S/om.c" -o "$O/offload-entries.o"
# LLVM 19's layout (omp_offloading_entries, 32-byte __tgt_offload_entry), read too.
clang-19 -fno-ident -O1 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c "$S/om.c" -o "$O/offload-entries-llvm19.o"
# HWASan globals note (AArch64).
$CC -O1 --target=aarch64-linux-gnu -fsanitize=hwaddress -fno-addrsig -c "$S/hw.c" -o "$O/hwasan-globals.o"
ld.lld-22 -shared "$O/hwasan-globals.o" -o "$O/hwasan-globals.so"
# .llvm_stats: the sample-profile loader's staleness figures.
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
llvm-profdata-22 merge --sample --extbinary "$S/sp.txt" -o "$W/sp.prof"
$CC -O2 -fprofile-sample-use="$W/sp.prof" -mllvm -persist-profile-staleness -c "$S/xr.c" -o "$O/llvm-stats.o"
# COFF and Mach-O address significance and call-graph profile.
$CC -O1 -faddrsig --target=x86_64-pc-windows-msvc -mno-incremental-linker-compatible -c "$S/ad.c" -o "$O/addrsig-coff.obj"
$CC -O1 -faddrsig --target=x86_64-apple-macos13 -c "$S/ad.c" -o "$O/addrsig-macho.o"
llvm-mc-22 -filetype=obj -triple=x86_64-pc-windows-msvc "$S/cgp.s" -o "$O/cg-profile-coff.obj"
llvm-mc-22 -filetype=obj -triple=x86_64-apple-macos13 "$S/cgp-macho.s" -o "$O/cg-profile-macho.o"
# Ground truth for the call graph (no LLVM 22 tool dumps it): the assembly clang-22 writes for the same object.
$CC -O2 -fexperimental-call-graph-section -S "$S/sw.c" -o "$O/callgraph.s"
$CC -O2 -mllvm -emit-jump-table-sizes-section -S "$S/sw.c" -o "$O/jt-sizes.s"
# Name-only LLVM sections no codec of this branch decodes: instrumentation profile (ELF) and, with coverage
# mapping, COFF and Mach-O. (ELF coverage records define __covrec_* symbols in __llvm_covfun, which the
# ELF writer's remove-each-section test would have to drop: left to the branch that decodes coverage.)
$CC -O1 -fprofile-instr-generate -fno-addrsig -c "$S/xr.c" -o "$O/instr-profile.o"
$CC -O1 -fprofile-instr-generate -fcoverage-mapping -fno-addrsig --target=x86_64-pc-windows-msvc -mno-incremental-linker-compatible -c "$S/xr.c" -o "$O/instr-profile-coff.obj"
$CC -O1 -fprofile-instr-generate -fcoverage-mapping -fno-addrsig --target=x86_64-apple-macos13 -c "$S/xr.c" -o "$O/instr-profile-macho.o"
