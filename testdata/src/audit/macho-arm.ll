; The arm64 slice of a fat Mach-O file.
target triple = "arm64-apple-macosx13.0.0"
define i32 @macho_arm() { ret i32 2 }
!llvm.linker.options = !{!0}
!0 = !{!"-framework", !"CoreFoundation"}
