/* COFF .drectve from #pragma comment(lib / linker, ...) */
#pragma comment(lib, "ssl")
#pragma comment(lib, "user32.lib")
#pragma comment(linker, "/include:coff_pragma")
#pragma comment(linker, "/DEFAULTLIB:\"my lib.lib\"")
#pragma comment(linker, "/merge:.rdata=.text")
#pragma comment(linker, "/EXPORT:coff_pragma")
#pragma comment(linker, "/LIBPATH:C:\\build\\lib")
#pragma comment(linker, "/libpath:\"..\\outside dir\"")
int coff_pragma(void) { return 1; }
