/* The program part of the linked inputs (no system headers: also linked for AArch64 without a libc). */
extern int counter;
int load_acq(int *p);
void bump(void);
int uses_local(void);
long many(long, long, long, long, long, long, long, long, long);
int spin(int *flag, int n);
int plain(int a);

void escape(int *p) { *p += 1; }

int main(void) {
  bump();
  return load_acq(&counter) + uses_local() + (int)many(1, 2, 3, 4, 5, 6, 7, 8, 9) + spin(&counter, 3) + plain(2);
}

#ifdef NOLIBC
/* A freestanding entry point for -nostdlib links. */
void _start(void) {
  main();
  for (;;) {
  }
}
#endif
