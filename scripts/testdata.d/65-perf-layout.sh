# perf-layout area: a tiny interpreter (testdata/src/perf-layout/interp.c) built like the layout benchmark
# builds its program: clang-22, basic-block address map with the PGO analysis map (static block frequencies and
# branch probabilities: the CFG the layout works on), one section per function, relocations kept (call arcs for
# the function order), lld-22.  The tests make their own perf.data (objllvm.perf.writer) and rebuild the program
# with the cluster files they write.
out="$TD/perf-layout"; src="$SRC/perf-layout"
mkdir -p "$out"
CC22=${CC22:-clang-22}
$CC22 -O2 -fbasic-block-address-map -mllvm -pgo-analysis-map=bb-freq,br-prob -ffunction-sections \
    -fuse-ld=lld -Wl,--emit-relocs -Wl,--build-id=sha1 "$src/interp.c" -o "$out/interp"
ls -l "$out"
