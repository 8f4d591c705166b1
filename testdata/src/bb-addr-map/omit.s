# OmitBBEntries (feature bit 4): ranges give their block counts but no entries; only the function
# entry count follows (LLVM pairs the bit with func-entry-count alone).
	.include "code.inc"
	.section	.llvm_bb_addr_map,"o",@llvm_bb_addr_map,.text
	.byte	2
	.byte	0x11                            # FuncEntryCount | OmitBBEntries
	.quad	.Ls_bb0
	.uleb128 3
	.uleb128 42
	.byte	5
	.short	0x19                            # FuncEntryCount | MultiBBRange | OmitBBEntries
	.uleb128 2
	.quad	.Lh_bb0
	.uleb128 2
	.quad	.Lh_bb2
	.uleb128 1
	.uleb128 7
