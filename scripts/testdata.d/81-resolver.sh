# objllvm's own malformed inputs for the shared address resolver and the ELF reader
# (testdata/src/resolver/resolver.yaml, one YAML document per case), built with yaml2obj-22 into
# testdata/lit/resolver/ (beside the lit cases: malformed, so outside the corpus); llvm-readobj-22's warnings for the cases it reads are checked in tests/test_resolver.py.
out="$TD/lit/resolver"
mkdir -p "$out"
rm -f "$out"/*.o
i=0
for name in callgraph-sym-past-table stack-sizes-rela-info-0 empty-section-past-eof; do
  i=$((i + 1))
  yaml2obj-22 --docnum=$i "$SRC/resolver/resolver.yaml" -o "$out/$name.o"
done
# LLVM's fault-map test for llvm-objdump: a Mach-O object whose function addresses are numbers, no relocation.
llvm-mc-22 -triple=x86_64-apple-macosx -filetype=obj "$SRC/resolver/faultmap-literal-macho.s" \
  -o "$out/faultmap-literal-macho.o"
echo "$((i + 1)) resolver cases in $out"
