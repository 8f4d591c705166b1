/* Functions with branches and a loop, for basic-block address maps in ELF and COFF objects. */
int classify(int x) {
  if (x > 100)
    return 3;
  if (x > 10)
    return 2;
  return x > 0;
}

static int helper(int *v, int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += v[i] & 1 ? v[i] : -v[i];
  return s;
}

int entry(int *v, int n) {
  return helper(v, n) + classify(n);
}
