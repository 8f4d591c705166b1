; ELF .linker-options: lib, libpath (inside, absolute outside, escaping with ..), an unusual key
target triple = "x86_64-unknown-linux-gnu"
define i32 @elf_linker_options() { ret i32 3 }
!llvm.linker.options = !{!0, !1, !2, !3, !4}
!0 = !{!"lib", !"z"}
!1 = !{!"libpath", !"/src/build/lib"}
!2 = !{!"libpath", !"/opt/vendor/lib"}
!3 = !{!"libpath", !"/src/build/../../etc"}
!4 = !{!"lib", !"crypto"}
