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
echo "$i resolver cases in $out"
