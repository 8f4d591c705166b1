/* A small program with a hot call path: built with an instrumentation profile, clang-19 records
   the call-graph profile of the hot edges (.llvm.call-graph-profile). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static unsigned mix(unsigned x) { return x * 2654435761u ^ (x >> 13); }
__attribute__((noinline)) static unsigned rare(unsigned x) { return x + 7; }
__attribute__((noinline)) unsigned step(unsigned x) { return (x % 97 == 0) ? rare(x) : mix(x); }

int main(int argc, char **argv) {
  unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 20000, acc = 1;
  for (unsigned i = 0; i < n; i++)
    acc = step(acc + i);
  printf("%u\n", acc);
  return 0;
}
