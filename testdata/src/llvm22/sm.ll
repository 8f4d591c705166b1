target triple = "x86_64-unknown-linux-gnu"
declare void @llvm.experimental.stackmap(i64, i32, ...)
declare void @llvm.experimental.patchpoint.void(i64, i32, ptr, i32, ...)
define i64 @f(i64 %a, i64 %b, ptr %p) {
entry:
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 1, i32 0, i64 %a, i64 42, i64 4294967296123, ptr %p)
  %s = add i64 %a, %b
  call void (i64, i32, ptr, i32, ...) @llvm.experimental.patchpoint.void(i64 2, i32 16, ptr null, i32 0, i64 %s, i32 -7)
  ret i64 %s
}
define void @g(i32 %x) {
  %a = alloca i32
  store i32 %x, ptr %a
  call void (i64, i32, ...) @llvm.experimental.stackmap(i64 7, i32 4, ptr %a, i32 %x)
  ret void
}
