# A CFI jump table as LowerTypeTests lays it out on x86-64: one 8-byte entry per function
# (jmp rel32, then int3 padding), in a section of type SHT_LLVM_CFI_JUMP_TABLE with entry size 8.
  .text
  .globl f1, f2, f3
f1: ret
f2: ret
f3: ret
  .section .text.cfi,"ax",@llvm_cfi_jump_table,8
  .balign 8
  .globl .cfi.jumptable
.cfi.jumptable:
f1.cfi_jt: jmp f1
  int3; int3; int3
f2.cfi_jt: jmp f2
  int3; int3; int3
f3.cfi_jt: jmp f3
  int3; int3; int3
ext.cfi_jt: jmp ext
  int3; int3; int3
