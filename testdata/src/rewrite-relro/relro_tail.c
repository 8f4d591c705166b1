/* 100 functions with external linkage (each a .symtab entry), data in .data.rel.ro (a GNU_RELRO segment) and in
   .data: an lld-linked PIE whose non-allocated tail (.comment, .symtab, .strtab) follows the last loaded byte. */
#define F(n) int fn_##n(int x) { return x * (n + 3) + table[n % 4][0][0]; }
#define F10(t) F(t##0) F(t##1) F(t##2) F(t##3) F(t##4) F(t##5) F(t##6) F(t##7) F(t##8) F(t##9)
extern const char *const table[4][2];
const char *const table[4][2] = {{"a", "b"}, {"c", "d"}, {"e", "f"}, {"g", "h"}};
int counter = 1;
F10(1) F10(2) F10(3) F10(4) F10(5) F10(6) F10(7) F10(8) F10(9)
F(100) F(101) F(102) F(103) F(104) F(105) F(106) F(107) F(108) F(109)
int main(int argc, char **argv) { (void)argv; return fn_10(argc) + counter; }
