/* Built with -fembed-bitcode (ELF, COFF, Mach-O) and -ffat-lto-objects (ELF): bitcode and cc1 arguments. */
int embedded(int x) { return x - 1; }
