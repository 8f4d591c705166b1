// An inline function lands in a COMDAT group together with its basic-block address map.
__attribute__((noinline)) inline int step(int i) {
  if (i % 3 == 0) return i / 3;
  if (i % 5 == 0) return i * 2;
  return i + 1;
}
extern "C" int bb_mix(int n) {
  int acc = 0;
  for (int i = 0; i < n; i++) acc += step(i) & 0xff;
  return acc;
}
