# ELF .linker-options written in assembly: an "other" key the ELF linker would reject.
  .text
  .globl asm_opts
asm_opts:
  ret
  .section ".linker-options","e",@llvm_linker_options
  .asciz "lib"
  .asciz "pthread"
  .asciz "undocumented-key"
  .asciz "value"
