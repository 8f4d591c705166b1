/* No system headers: built for 32-bit big-endian MIPS and 32-bit ARM (deplibs, addrsig). */
#pragma comment(lib, "tiny")
static int twice(int x) { return 2 * x; }
int (*volatile tiny_fp)(int) = twice;
int tiny(int x) { return tiny_fp(x) + 1; }
