# Build audit corpus: a small tree of objects that ask the linker for things, in every container.
#   ELF: .deplibs (#pragma comment(lib)), .linker-options (llc-19 from !llvm.linker.options; llvm-mc-19),
#        -fembed-bitcode (.llvmbc/.llvmcmd), -ffat-lto-objects (.llvm.lto)
#   COFF: .drectve (#pragma comment(lib / linker)), -fembed-bitcode
#   Mach-O: LC_LINKER_OPTION (llc-19 with a Darwin triple), __LLVM,__bitcode/__cmdline, a fat file
#   archives: a regular one and a thin one (llvm-ar-19), plus a text file the audit must skip.
S="$SRC/audit"
O="$TD/audit/tree"
rm -rf "$TD/audit"; mkdir -p "$O/elf" "$O/coff" "$O/macho" "$O/lib"
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
CC="clang-19 -fno-ident -fdebug-prefix-map=$ROOT=. -ffile-prefix-map=$ROOT=."

$CC -O1 -c "$S/elf-pragma.c" -o "$O/elf/elf-pragma.o"
llc-19 -filetype=obj "$S/elf-linker-options.ll" -o "$O/elf/elf-linker-options.o"
$CC -O1 -c "$S/elf-plain.c" -o "$O/elf/elf-plain.o"
llvm-mc-19 -filetype=obj -triple=x86_64-linux-gnu "$S/linker-options.s" -o "$O/elf/asm-opts.o"
$CC -O1 -fembed-bitcode -c "$S/embed.c" -o "$O/elf/embed.o"
$CC -O1 -flto=thin -ffat-lto-objects -c "$S/embed.c" -o "$O/elf/fat-lto.o"
# -fembed-bitcode=marker: an empty bitcode section (not a finding) but the full command line (a finding)
# (-fno-addrsig: the empty .llvm_addrsig of these objects gets a varying file offset from run to run)
$CC -O1 -fno-addrsig -fembed-bitcode=marker -c "$S/embed.c" -o "$O/elf/marker.o"

COFF="$CC --target=x86_64-pc-windows-msvc -mno-incremental-linker-compatible"
$COFF -O1 -c "$S/coff-pragma.c" -o "$O/coff/coff-pragma.obj"
$COFF -O1 -c "$S/coff-lib.c" -o "$O/coff/coff-lib.obj"
$COFF -O1 -fembed-bitcode -c "$S/embed.c" -o "$O/coff/embed.obj"

llc-19 -mtriple=x86_64-apple-macos13 -filetype=obj "$S/macho-linker-options.ll" -o "$O/macho/macho-linker-options.o"
llc-19 -mtriple=arm64-apple-macos13 -filetype=obj "$S/macho-arm.ll" -o "$W/macho-arm.o"
$CC -O1 --target=x86_64-apple-macos13 -fembed-bitcode -c "$S/embed.c" -o "$O/macho/embed.o"
$CC -O1 --target=x86_64-apple-macos13 -fembed-bitcode=marker -c "$S/embed.c" -o "$O/macho/marker.o"
llvm-lipo-19 -create "$O/macho/macho-linker-options.o" "$W/macho-arm.o" -output "$O/macho/fat.o"

# A regular archive of ELF objects, a COFF import-style .lib of COFF objects (with an ELF member too),
# and a thin archive pointing at ELF objects.
cp "$O/elf/elf-pragma.o" "$O/elf/elf-linker-options.o" "$O/elf/elf-plain.o" "$O/coff/coff-lib.obj" \
   "$O/coff/coff-pragma.obj" "$W/"
( cd "$W" && llvm-ar-19 rcD "$O/lib/libelf.a" elf-pragma.o elf-linker-options.o elf-plain.o )
( cd "$W" && llvm-ar-19 rcD "$O/lib/coff.lib" coff-lib.obj coff-pragma.obj elf-plain.o )
( cd "$O/lib" && llvm-ar-19 rcDT libthin.a ../elf/asm-opts.o ../elf/embed.o )

# An import library: short import members (no sections, nothing to audit, not unreadable either).
llvm-dlltool-19 -m i386:x86-64 -d "$S/import.def" -l "$O/lib/import.lib"

printf 'not an object: the audit skips this file by its first bytes\n' > "$O/README.txt"
