; Linker options as a front end records them (!llvm.linker.options), through llc-19.
target triple = "x86_64-unknown-linux-gnu"

!llvm.linker.options = !{!0, !1, !2, !3}
!0 = !{!"lib", !"z"}
!1 = !{!"libpath", !"/opt/vendor/lib"}
!2 = !{!"lib", !"crypto"}
!3 = !{!"custom-key", !"a value with spaces"}

define i32 @f() {
  ret i32 0
}
