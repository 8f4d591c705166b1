/* Small functions with a few basic blocks each: loops, a jump table (indirect
   branch), calls, a tail call.  main() runs them so a profile can be taken. */
__attribute__((noinline)) int leaf(int x) { return x * 3 + 1; }

__attribute__((noinline)) int loop(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) {
    if (i & 1)
      s += leaf(i);
    else
      s -= i;
  }
  return s;
}

__attribute__((noinline)) int jump(int x, int y) {
  switch (x) {
  case 0: return leaf(y) + 1;
  case 1: return y * 7;
  case 2: return leaf(y + 3) * 2;
  case 3: return y - 11;
  case 4: return leaf(y) ^ 13;
  case 5: return y + 17;
  case 6: return leaf(y - 1) - 5;
  default: return y;
  }
}

__attribute__((noinline)) int tail(int x) {
  if (x > 100)
    return 0;
  return loop(x);   /* a tail call at -O2 */
}

int main(int argc, char **argv) {
  (void)argv;
  int s = 0;
  for (int i = 0; i < 50; i++)
    s += jump(i % 9, i) + tail(i + argc);
  return s & 1;
}
