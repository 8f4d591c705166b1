/* Sanitizer binary metadata input: clang-19 -fexperimental-sanitize-metadata=atomics,uar.
   No system headers (also built for AArch64).  What each function should get:
     load_acq    atomics (an acquire load)
     bump        atomics (two atomic operations)
     uses_local  uar (address of a local escapes)
     many        uar with stack arguments (uar-has-size + stack_args)
     plain       nothing: no entry at all                                           */
int counter;
long shared;
extern void escape(int *p);

int load_acq(int *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

void bump(void) {
  __atomic_fetch_add(&counter, 1, __ATOMIC_SEQ_CST);
  __atomic_store_n(&shared, 5, __ATOMIC_RELEASE);
}

int uses_local(void) {
  int x = 3;
  escape(&x);
  return x;
}

long many(long a, long b, long c, long d, long e, long f, long g, long h, long i) {
  int x = (int)(a + i);
  escape(&x);
  return x + h + g;
}

int spin(int *flag, int n) {
  int seen = 0;
  for (int k = 0; k < n; k++) {
    if (__atomic_load_n(flag, __ATOMIC_RELAXED))
      seen++;
    else
      __atomic_store_n(flag, k, __ATOMIC_RELAXED);
  }
  return seen;
}

int plain(int a) { return a * 3; }
