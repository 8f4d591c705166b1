// A C++ global with a dynamic initializer (its ASan descriptor says so) and a function-local table.
extern "C" int process(const char *s);
static int compute(int x) { return process("xx") + x; }
int dynamic_value = compute(3);
namespace ns {
long weights[5] = {5, 4, 3, 2, 1};
long pick(unsigned i) { return i < 5 ? weights[i] : dynamic_value; }
}
