// The shared library of the perf-map loop tests: one hot function, built with a basic-block map.
#include <vector>

namespace lib {
__attribute__((noinline)) unsigned long spin(const std::vector<unsigned> &v, unsigned rounds) {
    unsigned long s = 1;
    for (unsigned r = 0; r < rounds; r++)
        for (unsigned x : v)
            s = (x % 3 == 0) ? s * 7 + x : (s >> 1) ^ x;
    return s;
}
}  // namespace lib
