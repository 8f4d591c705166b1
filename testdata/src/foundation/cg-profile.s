# A call-graph profile written with the assembler directive (new layout: weights + R_*_NONE pairs).
        .text
        .globl  hot
        .type   hot,@function
hot:    ret
        .size   hot, .-hot
        .globl  warm
        .type   warm,@function
warm:   ret
        .size   warm, .-warm
        .globl  cold
        .type   cold,@function
cold:   ret
        .size   cold, .-cold

        .cg_profile hot, warm, 4000
        .cg_profile warm, cold, 12
        .cg_profile hot, external_fn, 987654321012
        .cg_profile cold, hot, 1
        .addrsig
        .addrsig_sym warm
        .addrsig_sym external_fn
