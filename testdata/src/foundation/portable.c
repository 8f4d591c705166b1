/* No system headers: built for i386 (ELF32, REL relocations) and powerpc64 (big-endian). */
#pragma comment(lib, "portable")
int port_a(int x) { return x + 1; }
int port_b(int x) { return port_a(x) * 3; }
int (*port_ptr)(int) = port_a;
