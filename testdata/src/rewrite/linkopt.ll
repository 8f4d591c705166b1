target triple = "x86_64-unknown-linux-gnu"

define i32 @lo_value() {
  ret i32 5
}

!llvm.linker.options = !{!0, !1}
!0 = !{!"lib", !"m"}
!1 = !{!"objllvm-note", !"rewrite test"}
