#include <string.h>
int table[16] = {1, 2, 3};
static char greeting[] = "hello";
const char *names[] = {"a", "b"};
int counter;

static int helper(int x) { return x > 3 ? x * 2 : x + table[x & 15]; }

int process(const char *s) {
  int n = 0;
  for (size_t i = 0; i < strlen(s); i++) {
    if (s[i] == 'x') n += helper(i);
    else n--;
  }
  counter += n;
  return n + greeting[0];
}

int main(int argc, char **argv) {
  return process(argc > 1 ? argv[1] : names[0]);
}
