/* OpenMP offload to x86_64 (no system headers). */
#pragma omp declare target
int table[4] = {1, 2, 3, 4};
int square(int v) { return v * v; }
#pragma omp end declare target
int run(int n) {
  int r = 0;
#pragma omp target map(tofrom: r)
  r = square(n) + table[n & 3];
  return r;
}
