# SHT_LLVM_BB_ADDR_MAP version 5: 16-bit feature field, post-link CFG frequencies (feature bit 7)
# with call sites, hashes, PGO and multiple ranges; one ULEB128 is written in a non-minimal form.
	.include "code.inc"
	.section	.llvm_bb_addr_map,"o",@llvm_bb_addr_map,.text
# _start: feature 0xe7 = FuncEntryCount | BBFreq | BrProb | CallsiteEndOffsets | BBHash | PostLinkCfg
	.byte	5
	.short	0xe7
	.quad	.Ls_bb0
	.uleb128 3
	.uleb128 0
	.byte	0x80, 0x00                      # offset 0, non-minimal ULEB128
	.uleb128 1
	.uleb128 .Ls_c0-.Ls_bb0
	.uleb128 .Ls_bb0_end-.Ls_c0
	.uleb128 8
	.quad	0xa5a5a5a5a5a5a5a5
	.uleb128 1
	.uleb128 .Ls_bb1-.Ls_bb0_end
	.uleb128 2
	.uleb128 .Ls_c1-.Ls_bb1
	.uleb128 .Ls_c2-.Ls_c1
	.uleb128 .Ls_bb1_end-.Ls_c2
	.uleb128 8
	.quad	0x5a5a5a5a5a5a5a5a
	.uleb128 2
	.uleb128 .Ls_bb2-.Ls_bb1_end
	.uleb128 0
	.uleb128 .Ls_bb2_end-.Ls_bb2
	.uleb128 2
	.quad	0x0000000000000001
	.uleb128 1000                           # entry count
	.uleb128 1000                           # block 0: frequency, post-link frequency
	.uleb128 990
	.uleb128 2                              # successors: id, probability, post-link frequency
	.uleb128 1
	.uleb128 0x70000000
	.uleb128 800
	.uleb128 2
	.uleb128 0x10000000
	.uleb128 190
	.uleb128 875                            # block 1
	.uleb128 800
	.uleb128 1
	.uleb128 2
	.uleb128 0x80000000
	.uleb128 800
	.uleb128 1000                           # block 2
	.uleb128 990
	.uleb128 0
# helper: feature 0x8e = BBFreq | BrProb | MultiBBRange | PostLinkCfg
	.byte	5
	.short	0x8e
	.uleb128 2
	.quad	.Lh_bb0
	.uleb128 2
	.uleb128 0
	.uleb128 0
	.uleb128 .Lh_bb0_end-.Lh_bb0
	.uleb128 8
	.uleb128 1
	.uleb128 .Lh_bb1-.Lh_bb0_end
	.uleb128 .Lh_bb1_end-.Lh_bb1
	.uleb128 1
	.quad	.Lh_bb2
	.uleb128 1
	.uleb128 2
	.uleb128 0
	.uleb128 .Lh_bb2_end-.Lh_bb2
	.uleb128 1
	.uleb128 3000                           # block 0
	.uleb128 2900
	.uleb128 2
	.uleb128 1
	.uleb128 0x7f000000
	.uleb128 2880
	.uleb128 2
	.uleb128 0x01000000
	.uleb128 20
	.uleb128 2976                           # block 1
	.uleb128 2880
	.uleb128 0
	.uleb128 24                             # block 2
	.uleb128 20
	.uleb128 0
