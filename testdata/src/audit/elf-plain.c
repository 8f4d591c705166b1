/* No linker requests at all. */
int elf_plain(int x) { return x + 1; }
