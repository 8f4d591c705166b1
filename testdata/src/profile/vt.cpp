// IR-level profile (-fprofile-generate) with vtable value profiling: __llvm_prf_vtab, __llvm_prf_vns and
// __llvm_profile_raw_version (the frontend instrumentation of prog.c writes none of the three).
struct Shape { virtual int area() const = 0; virtual ~Shape() {} };
struct Sq : Shape { int s; Sq(int x) : s(x) {} int area() const override { return s * s; } };
struct Rect : Shape { int w, h; Rect(int a, int b) : w(a), h(b) {} int area() const override { return w * h; } };
int total(const Shape **v, int n) { int t = 0; for (int i = 0; i < n; i++) t += v[i]->area(); return t; }
int main(int argc, char **) { Sq a(argc); Rect b(argc, 3); const Shape *v[] = {&a, &b}; return total(v, 2) == 7; }
