; Mach-O LC_LINKER_OPTION commands (clang does not emit them for #pragma comment(lib) on Darwin)
target triple = "x86_64-apple-macosx13.0.0"
define i32 @macho_linker_options() { ret i32 1 }
!llvm.linker.options = !{!0, !1, !2, !3}
!0 = !{!"-lz"}
!1 = !{!"-framework", !"Security"}
!2 = !{!"-lssl"}
!3 = !{!"-L/usr/local/lib"}
