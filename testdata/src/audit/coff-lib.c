/* A second COFF object: one library only. */
#pragma comment(lib, "kernel32")
int coff_lib(void) { return 2; }
