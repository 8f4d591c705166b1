# SHT_LLVM_BB_ADDR_MAP version 3: call-site end offsets (feature bit 5) and PGO analysis.
	.include "code.inc"
	.section	.llvm_bb_addr_map,"o",@llvm_bb_addr_map,.text
# _start: version 3, feature 0x27 = FuncEntryCount | BBFreq | BrProb | CallsiteEndOffsets
	.byte	3
	.byte	0x27
	.quad	.Ls_bb0
	.uleb128 3                              # blocks
	.uleb128 0                              # ID
	.uleb128 .Ls_bb0-.Ls_bb0                # offset
	.uleb128 1                              # call sites
	.uleb128 .Ls_c0-.Ls_bb0
	.uleb128 .Ls_bb0_end-.Ls_c0             # size after the last call site
	.uleb128 8                              # CanFallThrough
	.uleb128 1
	.uleb128 .Ls_bb1-.Ls_bb0_end
	.uleb128 2
	.uleb128 .Ls_c1-.Ls_bb1
	.uleb128 .Ls_c2-.Ls_c1
	.uleb128 .Ls_bb1_end-.Ls_c2
	.uleb128 8
	.uleb128 2
	.uleb128 .Ls_bb2-.Ls_bb1_end
	.uleb128 0
	.uleb128 .Ls_bb2_end-.Ls_bb2
	.uleb128 2                              # HasTailCall
	.uleb128 100                            # entry count
	.uleb128 100                            # block 0: frequency, successors
	.uleb128 2
	.uleb128 1
	.uleb128 0x60000000
	.uleb128 2
	.uleb128 0x20000000
	.uleb128 75                             # block 1
	.uleb128 1
	.uleb128 2
	.uleb128 0x80000000
	.uleb128 100                            # block 2
	.uleb128 0
# helper: version 3, no call sites, feature 0
	.byte	3
	.byte	0
	.quad	.Lh_bb0
	.uleb128 3
	.uleb128 0
	.uleb128 0
	.uleb128 .Lh_bb0_end-.Lh_bb0
	.uleb128 8
	.uleb128 1
	.uleb128 .Lh_bb1-.Lh_bb0_end
	.uleb128 .Lh_bb1_end-.Lh_bb1
	.uleb128 1                              # HasReturn
	.uleb128 2
	.uleb128 .Lh_bb2-.Lh_bb1_end
	.uleb128 .Lh_bb2_end-.Lh_bb2
	.uleb128 1
