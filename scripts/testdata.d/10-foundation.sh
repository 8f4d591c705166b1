# Foundation corpus: string/index sections (linker options, deplibs, addrsig, cg-profile, sympart,
# llvmcmd), ELF32 and big-endian objects, archives (GNU, BSD, thin), a compressed section, linked files.
S="$SRC/foundation"
O="$TD/elf"
rm -rf "$O"; mkdir -p "$O"
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
CC="clang-19 -fno-ident -fdebug-prefix-map=$ROOT=. -ffile-prefix-map=$ROOT=."

$CC -O1 -c "$S/deplibs.c" -o "$O/deplibs.o"
llc-19 -filetype=obj "$S/linker-options.ll" -o "$O/linker-options.o"
llvm-mc-19 -filetype=obj -triple=x86_64-linux-gnu "$S/cg-profile.s" -o "$O/cg-profile-asm.o"
yaml2obj-19 "$S/cg-profile-old.yaml" -o "$O/cg-profile-old.o"
yaml2obj-19 "$S/unknown-types.yaml" -o "$O/unknown-types.o"
$CC -O1 -fPIC -fsymbol-partition=libpart.so -c "$S/sympart.c" -o "$O/sympart.o"
$CC -O1 -fembed-bitcode -c "$S/embed.c" -o "$O/embed.o"

# A real call-graph profile: instrument, run, merge, rebuild with the profile.
$CC -O2 -fprofile-instr-generate "$S/pgo.c" -o "$W/pgo-gen"
LLVM_PROFILE_FILE="$W/pgo.profraw" "$W/pgo-gen" 30000 >/dev/null
llvm-profdata-19 merge -o "$W/pgo.profdata" "$W/pgo.profraw"
$CC -O2 -fprofile-instr-use="$W/pgo.profdata" -Wno-backend-plugin -c "$S/pgo.c" -o "$O/cg-profile-pgo.o"
# ld -r keeps the profile (with its relocations); a full link drops it.
ld.lld-19 -r "$O/cg-profile-pgo.o" "$O/cg-profile-asm.o" -o "$O/cg-profile-ld-r.o"

# ELF32 (REL relocations) and big-endian ELF64.
$CC -O1 --target=i386-linux-gnu -c "$S/portable.c" -o "$O/portable-i386.o"
llvm-mc-19 -filetype=obj -triple=i386-linux-gnu "$S/cg-profile.s" -o "$O/cg-profile-i386.o"
$CC -O1 --target=powerpc64-linux-gnu -c "$S/portable.c" -o "$O/portable-ppc64be.o"
llvm-mc-19 -filetype=obj -triple=powerpc64-linux-gnu "$S/cg-profile.s" -o "$O/cg-profile-ppc64be.o" 2>/dev/null || \
  sed 's/^\(\w*\):\s*ret/\1: blr/' "$S/cg-profile.s" | llvm-mc-19 -filetype=obj -triple=powerpc64-linux-gnu -o "$O/cg-profile-ppc64be.o"

# A compressed .deplibs (zlib) and a compressed .linker-options (zstd).
llvm-objcopy-19 --compress-sections='.deplibs=zlib' "$O/deplibs.o" "$O/deplibs-zlib.o"
llvm-objcopy-19 --compress-sections='.linker-options=zstd' "$O/linker-options.o" "$O/linker-options-zstd.o"

# Archives: GNU (with a long member name), BSD, thin.
cp "$O/deplibs.o" "$W/a-member-with-a-long-name-over-sixteen.o"
cp "$O/linker-options.o" "$O/cg-profile-asm.o" "$W/"
( cd "$W" && llvm-ar-19 rcD "$O/libgnu.a" a-member-with-a-long-name-over-sixteen.o linker-options.o cg-profile-asm.o )
( cd "$W" && llvm-ar-19 rcD --format=bsd "$O/libbsd.a" a-member-with-a-long-name-over-sixteen.o linker-options.o )
( cd "$O" && llvm-ar-19 rcD --thin libthin.a deplibs.o sympart.o )

# Linked files: an executable and a shared object (the LLVM sections that survive a link).
$CC -O1 -fPIC -shared -fuse-ld=lld -Wl,--no-dependent-libraries "$S/portable.c" -o "$O/portable.so"
$CC -O2 -fuse-ld=lld -fprofile-instr-use="$W/pgo.profdata" -Wno-backend-plugin "$S/pgo.c" -o "$O/pgo.exe"
llvm-strip-19 --strip-debug "$O/pgo.exe" "$O/portable.so"

# Symbol partitions after a link: lld splits the partition out (SHT_LLVM_PART_EHDR / PART_PHDR remain);
# a linked .llvm_sympart without relocations (its word is the address) is written with yaml2obj.
$CC -O1 -fPIC -shared -fuse-ld=lld -fsymbol-partition=libpart.so "$S/sympart.c" -o "$O/sympart-partitioned.so"
llvm-strip-19 --strip-debug "$O/sympart-partitioned.so"
yaml2obj-19 "$S/sympart-linked.yaml" -o "$O/sympart-linked.so"

# CREL relocations (LLVM 19's compact relocation format): the call-graph profile's symbol pairs and the
# relocations of a compiled object.
llvm-mc-19 -filetype=obj --crel -triple=x86_64-linux-gnu "$S/cg-profile.s" -o "$O/cg-profile-crel.o"
$CC -O1 -Wa,--crel,--allow-experimental-crel -c "$S/portable.c" -o "$O/portable-crel.o"
