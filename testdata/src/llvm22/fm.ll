target triple = "x86_64-unknown-linux-gnu"
define i32 @imp_null_check_load(ptr %x) {
entry:
  %c = icmp eq ptr %x, null
  br i1 %c, label %is_null, label %not_null, !make.implicit !0
is_null:
  ret i32 42
not_null:
  %t = load i32, ptr %x
  ret i32 %t
}
define i32 @imp2(ptr %x, i32 %y) {
entry:
  %c = icmp eq ptr %x, null
  br i1 %c, label %is_null, label %not_null, !make.implicit !0
is_null:
  ret i32 7
not_null:
  %p = getelementptr i32, ptr %x, i32 4
  %t = load i32, ptr %p
  %r = add i32 %t, %y
  ret i32 %r
}
!0 = !{}
