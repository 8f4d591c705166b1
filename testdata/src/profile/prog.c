/* A small program for the profile and coverage tests: branches, a loop, a switch, a macro (an expansion
 * region), code skipped by the preprocessor, a two-condition decision (MC/DC), an indirect call and a
 * memcpy of variable size (value-profiling sites). */

#define CLAMP(x, lo, hi) ((x) < (lo) ? (lo) : (x) > (hi) ? (hi) : (x))

static int square(int x) { return x * x; }
static int negate(int x) { return -x; }

int classify(int a, int b) {
  if (a > 0 && b > 0)
    return 1;
  if (a < 0 || b < 0)
    return -1;
  return 0;
}

int sum_to(int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += CLAMP(i, 1, 5);
  return s;
}

const char *name_of(int k) {
  switch (k) {
  case 0: return "zero";
  case 1: return "one";
  default: return "many";
  }
}

int apply(int (*f)(int), int v) { return f(v); }

#if 0
int never_compiled(void) { return 42; }
#endif

int unused(int x) { return x + 1; }

int main(int argc, char **argv) {
  (void)argv;
  char buf[64], src[64] = "0123456789abcdef";
  int n = argc + 3;
  __builtin_memcpy(buf, src, (__SIZE_TYPE__)n);
  int r = classify(argc, n) + classify(-argc, n) + sum_to(n);
  r += apply(argc > 1 ? negate : square, n);
  return name_of(argc)[0] == 'o' && r > 0 ? 0 : 1;
}
