/* Driver for the perf end-to-end test and benchmark: compress and decompress a
 * deterministic, moderately compressible buffer N times with the single-file zstd.
 * Usage: zdrv [ROUNDS] [LEVEL]; prints one checksum line (the same for any build). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define ZSTD_STATIC_LINKING_ONLY
#include "zstd.h"

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    int level = argc > 2 ? atoi(argv[2]) : 1;
    size_t n = 1 << 20;
    unsigned char *src = malloc(n);
    unsigned x = 12345;
    static const char *words[] = {"alpha ", "beta ", "gamma ", "delta ", "epsilon ", "zeta ", "eta ", "theta "};
    size_t i = 0;
    while (i < n) {                     /* pseudo-random words plus some noise */
        x = x * 1103515245u + 12345u;
        const char *w = words[(x >> 16) & 7];
        size_t l = strlen(w);
        for (size_t k = 0; k < l && i < n; k++) src[i++] = (unsigned char)w[k];
        if (((x >> 8) & 15) == 0 && i < n) src[i++] = (unsigned char)(x >> 24);
    }
    size_t cap = ZSTD_compressBound(n);
    unsigned char *dst = malloc(cap), *back = malloc(n);
    unsigned long long sum = 0;
    for (int r = 0; r < rounds; r++) {
        size_t c = ZSTD_compress(dst, cap, src, n, level);
        if (ZSTD_isError(c)) { fprintf(stderr, "compress: %s\n", ZSTD_getErrorName(c)); return 1; }
        size_t d = ZSTD_decompress(back, n, dst, c);
        if (ZSTD_isError(d) || d != n || memcmp(back, src, n)) { fprintf(stderr, "round trip failed\n"); return 1; }
        sum += c;
    }
    printf("rounds=%d level=%d compressed_total=%llu\n", rounds, level, sum);
    free(src); free(dst); free(back);
    return 0;
}
