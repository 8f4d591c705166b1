/* Dependent libraries and an address-significant function table. */
#pragma comment(lib, "m")
#pragma comment(lib, "pthread")
#pragma comment(lib, "z with space")

int square(int x) { return x * x; }
int twice(int x) { return 2 * x; }

/* Taking the addresses makes square and twice address-significant. */
int (*const table[])(int) = {square, twice};

int apply(int i, int v) { return table[i & 1](v); }
