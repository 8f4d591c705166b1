// The program of the perf-map loop tests (scripts/testdata.d/62-perf-loop.sh): C++ with templates, a
// namespace, a lambda and exceptions, so its symbols exercise the Itanium demangler; it calls a hot function of
// libhot.so (libhot.cpp) so one recording samples two objects with basic-block maps.
// Usage: hot [N]: prints one line that depends only on N.
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace lib { unsigned long spin(const std::vector<unsigned> &v, unsigned rounds); }

namespace app {
template <typename T, int K>
struct Mixer {
    __attribute__((noinline)) T step(T x, unsigned i) const {
        if (i % K == 0)
            return x ^ (x >> 3);
        if (i % 5 == 0)
            return x + i * 2654435761u;
        return x * 31 + i;
    }
};

template <typename T>
__attribute__((noinline)) T fold(const std::vector<T> &v, unsigned rounds) {
    Mixer<T, 7> m;
    T s = 0;
    for (unsigned r = 0; r < rounds; r++)
        for (unsigned i = 0; i < v.size(); i++)
            s = (v[i] & 1) ? m.step(s, v[i]) : s + v[i];
    return s;
}

__attribute__((noinline)) void check(long n) {
    if (n < 0)
        throw std::invalid_argument("negative count");
}
}  // namespace app

int main(int argc, char **argv) {
    long n = argc > 1 ? std::atol(argv[1]) : 100;
    try {
        app::check(n);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 2;
    }
    std::vector<unsigned> v(4096);
    for (unsigned i = 0; i < v.size(); i++)
        v[i] = i * 131 + (i >> 3);
    auto twice = [&](unsigned r) { return app::fold(v, r) + lib::spin(v, r); };
    unsigned long total = twice((unsigned)n);
    std::printf("%lu\n", total);
    return 0;
}
