"""How each section kind is recognised, so that only the codecs of the sections present are imported.

Generated from the codecs by scripts/gen-codec-index (objllvm.sections.registry.index_source): do not
edit.  tests/test_codec_index.py fails when it no longer matches what the codec modules register.
"""
# kind: (module, ELF sh_types, names, formats, priority, has its own matches_name, its dump options: the
# add_arguments calls as (0: the parser / n: the n-th group, method, args, kwargs); True: import it to ask)
KINDS = {
    'addrsig': ('addrsig', (0x6fff4c03,), ('.llvm_addrsig', '__DATA,__llvm_addrsig'), ('elf', 'coff', 'macho'), 0, False, None),
    'asan-globals': ('asan_globals', (), ('asan_globals',), ('elf',), 0, False, None),
    'bb-addr-map': ('bb_addr_map', (0x6fff4c08, 0x6fff4c0a), ('.llvm_bb_addr_map',), ('elf', 'coff'), 0, False, (
        (0, 'add_argument', ('--pretty-pgo',), {'action': 'store_true', 'help': 'bb-addr-map: show block frequencies relative to the entry block and branch probabilities as percentages'}),)),
    'bitcode': ('bitcode', (0x6fff4c0c,), ('.llvmbc', '.llvm.lto', '__LLVM,__bitcode', '<bitcode>'), ('elf', 'coff', 'macho', 'bitcode'), 0, False, (
        (0, 'add_argument', ('--bitcode-symbols',), {'choices': ('defined', 'all', 'none'), 'default': 'defined', 'help': 'bitcode: which global symbols to list (default: the defined ones)'}),)),
    'call-graph': ('call_graph', (0x6fff4c0f,), ('.llvm.callgraph',), ('elf',), 0, False, None),
    'cfi-jump-table': ('cfi_jump_table', (0x6fff4c0e,), (), ('elf',), 0, False, None),
    'cg-profile': ('cg_profile', (0x6fff4c02, 0x6fff4c09), ('.llvm.call-graph-profile', '__LLVM,__cg_profile'), ('elf', 'coff', 'macho'), 0, False, None),
    'coff-directives': ('coff_directives', (), ('.drectve',), ('coff',), 0, False, None),
    'coverage': ('coverage_map', (), ('__llvm_covfun', '__llvm_covmap'), ('elf', 'coff', 'macho'), 0, True, None),
    'deplibs': ('deplibs', (0x6fff4c04,), ('.deplibs',), ('elf',), 0, False, None),
    'dyndbg-elf': ('dyndbg', (), ('.debug_llvm_dyndbg',), ('elf',), 0, False, None),
    'faultmaps': ('faultmaps', (), ('.llvm_faultmaps', '__LLVM_FAULTMAPS,__llvm_faultmaps'), ('elf', 'coff', 'macho'), 0, False, None),
    'hwasan-global-descriptors': ('hwasan_descriptors', (), ('hwasan_globals',), ('elf',), 0, False, None),
    'hwasan-globals': ('hwasan_globals', (), ('.note.hwasan.globals',), ('elf',), 0, False, None),
    'profile': ('instr_profile', (), ('__llvm_prf_data', '__llvm_prf_names', '__llvm_prf_cnts', '__llvm_prf_vtab', '__llvm_prf_bits', '__llvm_prf_vns'), ('elf', 'coff', 'macho'), 0, True, None),
    'jt-sizes': ('jt_sizes', (0x6fff4c0d,), ('.llvm_jump_table_sizes',), ('elf', 'coff'), 0, False, None),
    'linker-options': ('linker_options', (0x6fff4c01,), ('.linker-options',), ('elf',), 0, False, None),
    'llvm-stats': ('llvm_stats', (), ('.llvm_stats',), ('elf', 'coff', 'macho'), 0, True, None),
    'llvmcmd': ('llvmcmd', (), ('.llvmcmd', '__LLVM,__cmdline'), ('elf', 'coff', 'macho'), 0, False, None),
    'macho-linker-options': ('macho_linker_options', (), ('LC_LINKER_OPTION',), ('macho',), 0, False, None),
    'offload-entries': ('offload_entries', (), ('llvm_offload_entries', '__LLVM,offload_entries', 'omp_offloading_entries', 'cuda_offloading_entries', 'hip_offloading_entries'), ('elf', 'coff', 'macho'), 0, True, None),
    'offloading': ('offloading', (0x6fff4c0b,), ('.llvm.offloading',), ('elf', 'coff'), 0, True, None),
    'pc-sections': ('pc_sections', (), (), ('elf',), 0, True, (
        (0, 'add_argument_group', ('PC sections (--section pc-sections)',), {}),
        (1, 'add_argument', ('--pc-section',), {'action': 'append', 'metavar': 'LAYOUT', 'dest': 'pc_section', 'help': 'layout of a PC section: NAME:func|insn[:C][:aux=u8,u32,...] (repeatable); sanmd_covered2/sanmd_atomics2 (and their -mcmodel=large forms) are built in'}),
        (1, 'add_argument', ('--pc-width',), {'type': int, 'choices': (4, 8), 'dest': 'pc_width', 'help': 'bytes per stored PC (default: from the section name or the relocations; linked files: probed, 4 unless only 8 fits)'}),)),
    'sancov-pcs': ('sancov', (), ('__sancov_pcs',), ('elf',), 0, False, None),
    'sancov-guards': ('sancov', (), ('__sancov_guards',), ('elf',), 0, False, None),
    'sancov-cntrs': ('sancov', (), ('__sancov_cntrs',), ('elf',), 0, False, None),
    'sancov-bools': ('sancov', (), ('__sancov_bools',), ('elf',), 0, False, None),
    'stack-sizes': ('stack_sizes', (), ('.stack_sizes',), ('elf',), 0, False, None),
    'stackmaps': ('stackmaps', (), ('.llvm_stackmaps', '__LLVM_STACKMAPS,__llvm_stackmaps'), ('elf', 'coff', 'macho'), 0, False, None),
    'sympart': ('sympart', (0x6fff4c05,), ('.llvm_sympart',), ('elf',), 0, False, None),
    'xray-instr-map': ('xray', (), ('xray_instr_map', '__DATA,xray_instr_map'), ('elf', 'macho'), 0, False, None),
    'xray-fn-idx': ('xray', (), ('xray_fn_idx', '__DATA,xray_fn_idx'), ('elf', 'macho'), 0, False, None),
}
# every codec module
MODULES = (
    'addrsig',
    'asan_globals',
    'bb_addr_map',
    'bitcode',
    'call_graph',
    'cfi_jump_table',
    'cg_profile',
    'coff_directives',
    'coverage_map',
    'deplibs',
    'dyndbg',
    'faultmaps',
    'hwasan_descriptors',
    'hwasan_globals',
    'instr_profile',
    'jt_sizes',
    'linker_options',
    'llvm_stats',
    'llvmcmd',
    'macho_linker_options',
    'offload_entries',
    'offloading',
    'pc_sections',
    'sancov',
    'stack_sizes',
    'stackmaps',
    'sympart',
    'xray',
)
