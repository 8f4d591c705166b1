/* ELF .deplibs from #pragma comment(lib, ...) */
#pragma comment(lib, "m")
#pragma comment(lib, "ssl")
#pragma comment(lib, "libcrypto.a")
int elf_pragma(int x) { return x * 2; }
