/* Host code without system headers: globals and functions of every linkage we summarize. */
int counter = 3;
static int hidden_state;
const char greeting[] = "hi";
extern int imported;
int add(int a, int b) { return a + b + counter + imported; }
static int helper(int x) { return x * 2 + hidden_state++; }
int use(int x) { return helper(x) + helper(x + 1); }
__attribute__((weak)) int weak_fn(void) { return 7; }
