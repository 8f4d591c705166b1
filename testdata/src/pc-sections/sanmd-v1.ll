; The version-1 sanitizer metadata of LLVM 16 (section names without a version, fixed-size constants: a u32
; function size and a u32 feature word), reproduced with the metadata that release attached; built by llc-19.
target triple = "x86_64-unknown-linux-gnu"

@counter = global i32 0

define i32 @load_acq(ptr %p) !pcsections !0 {
  %v = load atomic i32, ptr %p acquire, align 4, !pcsections !2
  ret i32 %v
}

define void @bump() !pcsections !0 {
  %old = atomicrmw add ptr @counter, i32 1 seq_cst, !pcsections !2
  ret void
}

define i32 @covered_only(i32 %x) !pcsections !1 {
  %r = mul i32 %x, 3
  ret i32 %r
}

!0 = !{!"sanmd_covered", !3}
!1 = !{!"sanmd_covered", !4}
!2 = !{!"sanmd_atomics"}
!3 = !{i32 1}
!4 = !{i32 0}
