/* objllvm rewrite test program: deplibs (libm), address-significance, call-graph profile (PGO),
   compressed debug info; calls into the other objects. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#pragma comment(lib, "m")

int helper(int x);      /* helper.c: -fembed-bitcode */
int fat_lto(int x);     /* lto.c: -ffat-lto-objects */
int bb_mix(int x);      /* bbmap.cpp: basic-block address map with PGO analysis, COMDAT group */
int lo_value(void);     /* linkopt.ll: .linker-options */

static int hot(int i) { return (i * 7) ^ (i >> 3); }
static int cold(int i) { return i / 3 + 1; }
int (*volatile pick)(int) = hot;          /* address taken: address-significant */

int work(int n) {
  int acc = 0;
  for (int i = 0; i < n; i++) acc += (i % 17) ? pick(i) : cold(i);
  return acc;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  volatile double d = n / 8.0;
  int r = work(n) + helper(3) + fat_lto(4) + bb_mix(n) + lo_value();
  printf("rewrite-ok %d %.3f\n", r, sqrt(d));
  return 0;
}
