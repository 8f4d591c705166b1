/* A tiny bytecode interpreter for the perf-layout tests: a hot dispatch loop with cold error paths, a join
 * block reached from two hot opcodes (a path-cloning candidate), and a call chain main -> run -> step helpers
 * (call arcs for the function order).  Deterministic output: the checksum of N rounds (argv[1]). */
#include <stdio.h>
#include <stdlib.h>

enum { OP_ADD, OP_MUL, OP_XOR, OP_JNZ, OP_CALL, OP_HALT, OP_TRAP };

static int trap_count;

__attribute__((noinline)) static unsigned long helper_mix(unsigned long a, unsigned long b) { return (a * 31) ^ (b >> 3); }
__attribute__((noinline)) static unsigned long helper_rare(unsigned long a) {
  trap_count++;
  if (trap_count > 1000000) abort();
  return a + 7;
}
__attribute__((noinline)) static void report_error(const char *what, int pc) {
  fprintf(stderr, "interp: %s at %d\n", what, pc);
  exit(2);
}

__attribute__((noinline)) unsigned long run(const unsigned char *code, int len, unsigned long acc, int budget) {
  int pc = 0;
  unsigned long r = 1;
  while (budget-- > 0) {
    if (pc < 0 || pc >= len) report_error("pc out of range", pc);
    unsigned char op = code[pc];
    unsigned long v = code[pc + 1];
    switch (op) {
    case OP_ADD: acc += v; goto join;
    case OP_MUL: acc = acc * (v | 1); goto join;
    case OP_XOR: acc ^= v << (acc & 7); break;
    case OP_JNZ:
      if ((acc & 3) != 0) { pc = (int)v; continue; }
      break;
    case OP_CALL: acc = helper_mix(acc, r); r += acc & 15; break;
    case OP_HALT: return acc;
    case OP_TRAP: acc = helper_rare(acc); break;
    default: report_error("bad opcode", pc);
    }
    pc += 2;
    continue;
  join:
    /* both hot arithmetic opcodes land here */
    r = (r + (acc & 0xff)) & 0xffff;
    pc += 2;
  }
  return acc ^ r;
}

int main(int argc, char **argv) {
  static const unsigned char prog[] = {OP_ADD, 3, OP_MUL, 5, OP_XOR, 2, OP_CALL, 0, OP_ADD, 9,
                                       OP_JNZ, 0, OP_TRAP, 0, OP_HALT, 0};
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  unsigned long sum = 0;
  for (int i = 0; i < n; i++) sum += run(prog, (int)sizeof prog, i, 64);
  printf("%lu\n", sum);
  return 0;
}
