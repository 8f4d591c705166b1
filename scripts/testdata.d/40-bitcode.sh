# Embedded bitcode and offloading images: real objects from clang-19, the offload packager, llvm-cat,
# llvm-ar and rustc.  Sources in testdata/src/bitcode/, outputs in testdata/bitcode/.
OUT="$TD/bitcode"
mkdir -p "$OUT"
cd "$SRC/bitcode"
CC="clang-19 -O1 -fno-ident"
# -fembed-bitcode: .llvmbc + .llvmcmd in ELF, COFF and Mach-O (__LLVM,__bitcode holds a wrapper there)
$CC -c -fembed-bitcode embed.c -o "$OUT/embed.o"
$CC -c -fembed-bitcode --target=x86_64-pc-windows-msvc -mno-incremental-linker-compatible embed.c -o "$OUT/embed-coff.obj"
$CC -c -fembed-bitcode --target=x86_64-apple-macos13 embed.c -o "$OUT/embed-macho.o"
$CC -c -fembed-bitcode=marker embed.c -o "$OUT/marker.o"
# fat LTO: SHT_LLVM_LTO .llvm.lto
$CC -c -flto=thin -ffat-lto-objects embed.c -o "$OUT/fatlto.o"
# raw bitcode, a Darwin wrapper file, and a two-module file
$CC -c -emit-llvm embed.c -o "$OUT/embed.bc"
$CC -c -emit-llvm --target=x86_64-apple-macos13 embed.c -o "$OUT/wrapper.bc"
$CC -c -emit-llvm --target=nvptx64-nvidia-cuda dev.c -o "$OUT/dev-nvptx.bc"
llvm-cat-19 -b -o "$OUT/multi.bc" "$OUT/embed.bc" "$OUT/dev-nvptx.bc"
# offloading: OpenMP to x86_64, CUDA and HIP device bitcode (no SDK), the packager with several images
$CC -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu -c omp.c -o "$OUT/omp.o"
$CC -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu --target=x86_64-pc-windows-msvc -mno-incremental-linker-compatible \
    -c omp.c -o "$OUT/omp-coff.obj"
$CC -x cuda --offload-new-driver -fgpu-rdc -foffload-lto --cuda-gpu-arch=sm_80 -nocudainc -nocudalib \
    -Wno-unknown-cuda-version -c kernel.cu -o "$OUT/cuda.o"
$CC -x hip --offload-new-driver -fgpu-rdc -foffload-lto --offload-arch=gfx90a -nogpuinc -nogpulib \
    -c kernel.cu -o "$OUT/hip.o"
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
$CC -c --target=x86_64-pc-linux-gnu dev.c -o "$TMP/dev-x86.o"
$CC -c -emit-llvm --target=amdgcn-amd-amdhsa -mcpu=gfx90a -nogpulib dev.c -o "$TMP/dev-amdgcn.bc"
clang-offload-packager-19 -o "$TMP/packaged.bin" \
    --image=file="$OUT/dev-nvptx.bc",triple=nvptx64-nvidia-cuda,arch=sm_70,kind=cuda,feature=+ptx70 \
    --image=file="$TMP/dev-amdgcn.bc",triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip \
    --image=file="$TMP/dev-x86.o",triple=x86_64-pc-linux-gnu,arch=generic,kind=openmp
$CC -c host.c -Xclang -fembed-offload-object="$TMP/packaged.bin" -o "$OUT/packaged.o"
# small archives: ELF members with .llvmbc / .llvm.lto; raw bitcode members (an LTO library).  The second has
# its own suffix: llvm-readobj lists no entry for a bitcode member, and the readobj differential test takes *.a.
rm -f "$OUT/libbc.a" "$OUT/bitcode-members.ar"
llvm-ar-19 rcD "$OUT/libbc.a" "$OUT/embed.o" "$OUT/fatlto.o"
llvm-ar-19 rcD "$OUT/bitcode-members.ar" "$OUT/dev-nvptx.bc" "$OUT/wrapper.bc"
# a tiny Rust rlib (bitcode from rustc's LLVM, newer than llvm-dis-19) when rustc is there
if command -v rustc >/dev/null; then
  rustc --crate-type=rlib --crate-name tinyrs -C opt-level=1 -C codegen-units=1 -C embed-bitcode=yes \
        -C metadata=objllvm --remap-path-prefix="$SRC/bitcode=." lib.rs -o "$TMP/libtinyrs.rlib"
  # keep only the object (the .rmeta members are rustc's, not LLVM's) so the file stays small
  (cd "$TMP" && mkdir x && cd x && ar x ../libtinyrs.rlib && rm -f "$OUT/libtinyrs.rlib" \
     && llvm-ar-19 rcD "$OUT/libtinyrs.rlib" ./*.o)
  rustc --version > "$OUT/libtinyrs.rustc-version.txt"
fi
