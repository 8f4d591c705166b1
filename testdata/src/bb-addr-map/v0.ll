; For llc-14 (typed pointers era): emits the old SHT_LLVM_BB_ADDR_MAP (0x6fff4c08).
define i32 @count(i32 %n) {
entry:
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %loop, label %done
loop:
  %i = phi i32 [ 0, %entry ], [ %j, %loop ]
  %s = phi i32 [ 0, %entry ], [ %t, %loop ]
  %t = add i32 %s, %i
  %j = add i32 %i, 1
  %e = icmp eq i32 %j, %n
  br i1 %e, label %done, label %loop
done:
  %r = phi i32 [ 0, %entry ], [ %t, %loop ]
  ret i32 %r
}

define i32 @main(i32 %argc, i8** %argv) {
entry:
  %r = call i32 @count(i32 %argc)
  ret i32 %r
}
