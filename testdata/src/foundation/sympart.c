/* Symbols placed in a partition (-fsymbol-partition=libpart.so). */
int part_local(void) { return 1; }
__attribute__((visibility("default"))) int part_exported(void) { return part_local() + 2; }
