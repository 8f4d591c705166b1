# A section of a kind objllvm does not know (.objllvm_pairs), for the test that adds that kind from the test
# itself (tests/test_codec_hooks.py): records {u8 length, label, 8-byte address}, each address relocated.
        .text
        .globl  alpha, beta
        .type   alpha,@function
alpha:  ret
        .type   beta,@function
beta:   ret
gamma:  nop
        ret

        .section .objllvm_pairs,"",@progbits
        .byte   5
        .ascii  "first"
        .quad   alpha
        .byte   6
        .ascii  "second"
        .quad   beta
        .byte   5
        .ascii  "third"
        .quad   gamma+1
