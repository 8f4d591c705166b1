	.file	"sw.c"
	.text
	.globl	sw                              # -- Begin function sw
	.p2align	4
	.type	sw,@function
sw:                                     # @sw
.Lfunc_begin0:
	.cfi_startproc
# %bb.0:
	pushq	%rax
	.cfi_def_cfa_offset 16
	cmpl	$6, %edi
	ja	.LBB0_9
# %bb.1:
	movl	%edi, %eax
	leaq	.LJTI0_0(%rip), %rcx
	movslq	(%rcx,%rax,4), %rax
	addq	%rcx, %rax
	jmpq	*%rax
.LBB0_3:
	xorl	%edi, %edi
	popq	%rax
	.cfi_def_cfa_offset 8
	jmp	f1@PLT                          # TAILCALL
.LBB0_7:
	.cfi_def_cfa_offset 16
	movl	$4, %edi
	popq	%rax
	.cfi_def_cfa_offset 8
	jmp	f5@PLT                          # TAILCALL
.LBB0_5:
	.cfi_def_cfa_offset 16
	movl	$2, %edi
	callq	f3@PLT
	addl	%eax, %eax
	popq	%rcx
	.cfi_def_cfa_offset 8
	retq
.LBB0_6:
	.cfi_def_cfa_offset 16
	movl	$3, %edi
	callq	f4@PLT
	addl	$-3, %eax
	popq	%rcx
	.cfi_def_cfa_offset 8
	retq
.LBB0_9:
	.cfi_def_cfa_offset 16
	xorl	%eax, %eax
	popq	%rcx
	.cfi_def_cfa_offset 8
	retq
.LBB0_4:
	.cfi_def_cfa_offset 16
	movl	$1, %edi
	callq	f2@PLT
	incl	%eax
	popq	%rcx
	.cfi_def_cfa_offset 8
	retq
.LBB0_8:
	.cfi_def_cfa_offset 16
	movl	$5, %edi
	callq	f6@PLT
	xorl	$7, %eax
	popq	%rcx
	.cfi_def_cfa_offset 8
	retq
.LBB0_2:
	.cfi_def_cfa_offset 16
	movl	$99, %eax
	popq	%rcx
	.cfi_def_cfa_offset 8
	retq
.Lfunc_end0:
	.size	sw, .Lfunc_end0-sw
	.cfi_endproc
	.section	.rodata,"a",@progbits
	.p2align	2, 0x0
.LJTI0_0:
	.long	.LBB0_3-.LJTI0_0
	.long	.LBB0_4-.LJTI0_0
	.long	.LBB0_5-.LJTI0_0
	.long	.LBB0_6-.LJTI0_0
	.long	.LBB0_7-.LJTI0_0
	.long	.LBB0_8-.LJTI0_0
	.long	.LBB0_2-.LJTI0_0
	.section	.llvm.callgraph,"o",@llvm_call_graph,.rodata
	.byte	0
	.byte	3
	.quad	sw
	.quad	-5603324507810410335
	.byte	6
	.quad	f1
	.quad	f5
	.quad	f3
	.quad	f4
	.quad	f2
	.quad	f6
	.section	.rodata,"a",@progbits
                                        # -- End function
	.text
	.globl	sw2                             # -- Begin function sw2
	.p2align	4
	.type	sw2,@function
sw2:                                    # @sw2
.Lfunc_begin1:
	.cfi_startproc
# %bb.0:
	pushq	%rax
	.cfi_def_cfa_offset 16
                                        # kill: def $edi killed $edi def $rdi
	addl	$-10, %edi
	cmpl	$4, %edi
	ja	.LBB1_1
# %bb.2:
	leaq	.LJTI1_0(%rip), %rax
	movslq	(%rax,%rdi,4), %rcx
	addq	%rax, %rcx
	jmpq	*%rcx
.LBB1_3:
	movl	%esi, %edi
	popq	%rax
	.cfi_def_cfa_offset 8
	jmp	f1@PLT                          # TAILCALL
.LBB1_6:
	.cfi_def_cfa_offset 16
	movl	%esi, %edi
	popq	%rax
	.cfi_def_cfa_offset 8
	jmp	f5@PLT                          # TAILCALL
.LBB1_4:
	.cfi_def_cfa_offset 16
	movl	%esi, %edi
	callq	f3@PLT
	addl	%eax, %eax
	popq	%rcx
	.cfi_def_cfa_offset 8
	retq
.LBB1_5:
	.cfi_def_cfa_offset 16
	movl	%esi, %edi
	callq	f4@PLT
	addl	$-3, %eax
	popq	%rcx
	.cfi_def_cfa_offset 8
	retq
.LBB1_7:
	.cfi_def_cfa_offset 16
	movl	%esi, %edi
	callq	f2@PLT
	incl	%eax
	popq	%rcx
	.cfi_def_cfa_offset 8
	retq
.LBB1_1:
	.cfi_def_cfa_offset 16
	xorl	%eax, %eax
	popq	%rcx
	.cfi_def_cfa_offset 8
	retq
.Lfunc_end1:
	.size	sw2, .Lfunc_end1-sw2
	.cfi_endproc
	.section	.rodata,"a",@progbits
	.p2align	2, 0x0
.LJTI1_0:
	.long	.LBB1_3-.LJTI1_0
	.long	.LBB1_7-.LJTI1_0
	.long	.LBB1_4-.LJTI1_0
	.long	.LBB1_5-.LJTI1_0
	.long	.LBB1_6-.LJTI1_0
	.section	.llvm.callgraph,"o",@llvm_call_graph,.rodata
	.byte	0
	.byte	3
	.quad	sw2
	.quad	6110014528461285485
	.byte	5
	.quad	f1
	.quad	f5
	.quad	f3
	.quad	f4
	.quad	f2
	.section	.rodata,"a",@progbits
                                        # -- End function
	.text
	.globl	callind                         # -- Begin function callind
	.p2align	4
	.type	callind,@function
callind:                                # @callind
.Lfunc_begin2:
	.cfi_startproc
# %bb.0:
	pushq	%rbp
	.cfi_def_cfa_offset 16
	pushq	%rbx
	.cfi_def_cfa_offset 24
	pushq	%rax
	.cfi_def_cfa_offset 32
	.cfi_offset %rbx, -24
	.cfi_offset %rbp, -16
	movl	%esi, %ebx
	movq	%rdi, %rax
	movl	%esi, %edi
	callq	*%rax
	movl	%eax, %ebp
	movl	%ebx, %edi
	callq	f1@PLT
	addl	%ebp, %eax
	addq	$8, %rsp
	.cfi_def_cfa_offset 24
	popq	%rbx
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	retq
.Lfunc_end2:
	.size	callind, .Lfunc_end2-callind
	.cfi_endproc
	.section	.llvm.callgraph,"o",@llvm_call_graph,.text
	.byte	0
	.byte	7
	.quad	callind
	.quad	1532296430939020760
	.byte	1
	.quad	f1
	.byte	1
	.quad	-5603324507810410335
	.text
                                        # -- End function
	.globl	callv                           # -- Begin function callv
	.p2align	4
	.type	callv,@function
callv:                                  # @callv
.Lfunc_begin3:
	.cfi_startproc
# %bb.0:
	jmpq	*vp(%rip)                       # TAILCALL
.Lfunc_end3:
	.size	callv, .Lfunc_end3-callv
	.cfi_endproc
	.section	.llvm.callgraph,"o",@llvm_call_graph,.text
	.byte	0
	.byte	5
	.quad	callv
	.quad	-550448936902516574
	.byte	1
	.quad	-550448936902516574
	.text
                                        # -- End function
	.type	vp,@object                      # @vp
	.bss
	.globl	vp
	.p2align	3, 0x0
vp:
	.quad	0
	.size	vp, 8

	.section	".note.GNU-stack","",@progbits
	.addrsig
