# SHT_LLVM_BB_ADDR_MAP version 4: block hashes (feature bit 6), call sites, multiple ranges.
	.include "code.inc"
	.section	.llvm_bb_addr_map,"o",@llvm_bb_addr_map,.text
# _start: feature 0x60 = CallsiteEndOffsets | BBHash
	.byte	4
	.byte	0x60
	.quad	.Ls_bb0
	.uleb128 3
	.uleb128 0
	.uleb128 0
	.uleb128 1
	.uleb128 .Ls_c0-.Ls_bb0
	.uleb128 .Ls_bb0_end-.Ls_c0
	.uleb128 8
	.quad	0x0123456789abcdef                  # hash
	.uleb128 1
	.uleb128 .Ls_bb1-.Ls_bb0_end
	.uleb128 2
	.uleb128 .Ls_c1-.Ls_bb1
	.uleb128 .Ls_c2-.Ls_c1
	.uleb128 .Ls_bb1_end-.Ls_c2
	.uleb128 8
	.quad	0xfedcba9876543210
	.uleb128 2
	.uleb128 .Ls_bb2-.Ls_bb1_end
	.uleb128 0
	.uleb128 .Ls_bb2_end-.Ls_bb2
	.uleb128 2
	.quad	0
# helper: feature 0x48 = MultiBBRange | BBHash; two ranges (the second after the alignment padding)
	.byte	4
	.byte	0x48
	.uleb128 2                              # ranges
	.quad	.Lh_bb0
	.uleb128 2
	.uleb128 0
	.uleb128 0
	.uleb128 .Lh_bb0_end-.Lh_bb0
	.uleb128 8
	.quad	0x1111111111111111
	.uleb128 1
	.uleb128 .Lh_bb1-.Lh_bb0_end
	.uleb128 .Lh_bb1_end-.Lh_bb1
	.uleb128 1
	.quad	0x2222222222222222
	.quad	.Lh_bb2
	.uleb128 1
	.uleb128 2
	.uleb128 0
	.uleb128 .Lh_bb2_end-.Lh_bb2
	.uleb128 1
	.quad	0x3333333333333333
