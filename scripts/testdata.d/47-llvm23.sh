# LLVM 23 layouts (no LLVM 23 tool is installable here): scripts/llvm23-layouts rewrites what LLVM 22 wrote
# into LLVM 23's layout with obj2yaml-22 / yaml2obj-22 (see its docstring for the facts and their sources).
# Also recorded: llvm-readobj-22's view of the ELF maps and of the COFF objects' symbols, for the tests.
set -euo pipefail
out="$TD/llvm23"
mkdir -p "$out"
L="$ROOT/scripts/llvm23-layouts"
# raw-profile version 11 __llvm_prf_data (from the version-10 objects of scripts/testdata.d/46-profile.sh)
"$L" profile-v11 "$TD/profile/prog-clang22.o" "$out/profile-v11.o"
"$L" profile-v11 "$TD/profile/prog-i386.o" "$out/profile-v11-i386.o"
"$L" profile-v11 "$TD/profile/prog-clang22-coff.obj" "$out/profile-v11-coff.obj"
"$L" profile-v11 "$TD/profile/vt-irpgo.o" "$out/profile-v11-irpgo.o" --raw-version 11
# BB address maps in x86 COFF objects, with and without -ffunction-sections (associative COMDAT maps / one map)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for v in comdat text; do
  fs=""; [ $v = comdat ] && fs="-ffunction-sections"
  clang-22 -O1 -fno-inline $fs -c --target=x86_64-pc-windows-msvc "$SRC/llvm23/bbmap.c" -o "$tmp/$v.obj"
  clang-22 -O1 -fno-inline $fs -fbasic-block-address-map -c --target=x86_64-linux-gnu "$SRC/llvm23/bbmap.c" \
    -o "$out/bbmap-$v.o"
  "$L" coff-bb-addr-map "$out/bbmap-$v.o" "$tmp/$v.obj" "$out/bbmap-$v.obj"
  (cd "$out" && llvm-readobj-22 --elf-output-style=JSON --bb-addr-map "bbmap-$v.o" > "bbmap-$v.readobj.json")
  (cd "$out" && llvm-readobj-22 --symbols --sections "bbmap-$v.obj" > "bbmap-$v.obj.readobj.txt")
done
# llvm-readobj --call-graph-info's lit inputs (LLVM 23), built by yaml2obj-22 (llvm-readobj-22 has no such option)
for n in 1 2 3; do
  yaml2obj-22 --docnum=$n "$SRC/llvm23/call-graph-info.yaml" -o "$out/call-graph-info-$n.o"
done
# llvm-objdump --offloading's lit inputs (LLVM 23): nested OffloadBinaries, a nested one that does not decode,
# the COFF object (llvm-objdump-22 reads the COFF one; the nesting it does not show)
yaml2obj-22 "$SRC/llvm23/offload-inner.yaml" -o "$tmp/inner.bin"
sed "s/INNER_IMAGE/$(od -An -v -tx1 "$tmp/inner.bin" | tr -d ' \n')/" "$SRC/llvm23/offload-nested.yaml" \
  | yaml2obj-22 - -o "$tmp/nested.bin"
yaml2obj-22 "$SRC/llvm23/offload-nested-fails.yaml" -o "$tmp/nested-fails.bin"
# (objllvm reads OffloadBinaries in object files: each goes into an ELF object's SHT_LLVM_OFFLOADING section)
for n in nested nested-fails; do
  printf -- '--- !ELF\nFileHeader: {Class: ELFCLASS64, Data: ELFDATA2LSB, Type: ET_REL, Machine: EM_X86_64}\n%s\n%s\n' \
    'Sections:' "  - {Name: .llvm.offloading, Type: SHT_LLVM_OFFLOADING, Flags: [SHF_EXCLUDE], AddressAlign: 8, Content: $(od -An -v -tx1 "$tmp/$n.bin" | tr -d ' \n')}" \
    | yaml2obj-22 - -o "$out/offload-$n.o"
done
yaml2obj-22 "$SRC/llvm23/offload-binary.yaml" -o "$tmp/binary.bin"
yaml2obj-22 "$SRC/llvm23/offload-coff.yaml" -o "$out/offload-coff.obj"
llvm-objcopy-22 --add-section ".llvm.offloading=$tmp/binary.bin" "$out/offload-coff.obj"
(cd "$out" && llvm-objdump-22 --offloading offload-coff.obj > offload-coff.objdump.txt)
# dynamic debugging (LLVM main): the -O0 object of a source embedded in its -O2 object as .debug_llvm_dyndbg of
# type SHT_LLVM_DYNDBG_ELF (PR #208803), the way clang -fdynamic-debugging lays it out (PR #216307); the inner
# object's defined symbols as llvm-nm-22 lists them
clang-22 -O0 -c "$SRC/llvm23/bbmap.c" -o "$tmp/inner.o"
clang-22 -O2 -c "$SRC/llvm23/bbmap.c" -o "$out/dyndbg.o"
llvm-objcopy-22 --add-section ".debug_llvm_dyndbg=$tmp/inner.o" \
  --set-section-type=.debug_llvm_dyndbg=0x6fff4c10 "$out/dyndbg.o"
llvm-nm-22 -S --defined-only "$tmp/inner.o" > "$out/dyndbg-inner.nm.txt"
