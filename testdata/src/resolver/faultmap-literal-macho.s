// The assembly input of LLVM's llvm-objdump --fault-map-section test for Mach-O (llvm-project; its RUN line:
// llvm-mc -triple=x86_64-apple-macosx), kept as data: function addresses written as numbers, no relocation.
	.section	__LLVM_FAULTMAPS,__llvm_faultmaps
__LLVM_FaultMaps:
	.byte	1
	.byte	0
	.short	0
	.long	2
	.quad	0xFFDEAD
	.long	1
	.long	0
	.long	1
	.long	100
	.long	200

	.quad	0xFFDAED
	.long	1
	.long	0
	.long	1
	.long	400
	.long	500
