  .text
  .globl _a
_a: ret
  .globl _b
_b: ret
  .globl _c
_c: ret
  .cg_profile _a, _b, 32
  .cg_profile _b, _c, 11
  .cg_profile _a, _c, 7
  .cg_profile _c, _ext, 2
