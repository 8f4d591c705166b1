/* Build N+1 of loop.c: the same program after a source change (mix's constant, a new check in main).
 * Usage: loop [N]: prints one line that depends only on N. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static unsigned mix(unsigned x, unsigned i) {
    if (i % 7 == 0)
        x ^= x >> 3;
    else if (i % 5 == 0)
        x += i * 2654435761u;
    else
        x = x * 37 + i;
    return x;
}

__attribute__((noinline)) unsigned checksum(const unsigned char *p, unsigned n) {
    unsigned s = 0;
    for (unsigned i = 0; i < n; i++) {
        if (p[i] & 1)
            s = mix(s, p[i]);
        else
            s += p[i];
    }
    return s;
}

__attribute__((noinline)) void cold_error(const char *what) {
    fprintf(stderr, "error: %s\n", what);
    exit(2);
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000;
    if (n < 0)
        cold_error("negative count");
    unsigned char buf[4096];
    for (unsigned i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)(i * 131 + (i >> 3));
    if (n > 100000000)
        cold_error("count too large");
    unsigned total = 0;
    for (long r = 0; r < n; r++) {
        buf[r % sizeof buf] ^= (unsigned char)r;
        total += checksum(buf, sizeof buf);
    }
    printf("n=%ld total=%u\n", n, total);
    return 0;
}
