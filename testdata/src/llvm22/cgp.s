  .text
  .globl a
a: ret
  .globl b
b: ret
  .globl c
c: ret
  .cg_profile a, b, 32
  .cg_profile b, c, 11
  .cg_profile a, c, 7
  .cg_profile c, ext, 2
