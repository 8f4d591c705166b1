# perf area: small PIE programs with basic-block address maps for the perf-map / cfg tests.
# perf.data inputs are not committed: tests build tiny synthetic ones (objllvm.perf.writer) or record
# short real runs themselves (skipped where perf record is not permitted).
out="$TD/perf"; src="$SRC/perf"
mkdir -p "$out"
CC=${CC:-clang-19}
# The sampled program: PIE, -O2, basic-block address map (clang-19 spelling; clang >= 20: -fbasic-block-address-map).
$CC -O2 -fPIE -pie -fbasic-block-sections=labels -Wl,--build-id=sha1 "$src/loop.c" -o "$out/loop.pie"
# Same with the PGO analysis map (static frequency and branch probability estimates): CFG edges from the map.
$CC -O2 -fPIE -pie -fbasic-block-sections=labels -mllvm -pgo-analysis-map=func-entry-count,bb-freq,br-prob \
    -Wl,--build-id=sha1 "$src/loop.c" -o "$out/loop-pgo.pie"
# No basic-block map at all: perf-map must say how to build one.
$CC -O2 -fPIE -pie -Wl,--build-id=sha1 "$src/loop.c" -o "$out/loop-nomap.pie"
# Strip nothing (symbols name the functions); keep the files small and deterministic.
ls -l "$out"
