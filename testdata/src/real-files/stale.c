/* An object with an address-significance table that GNU strip --strip-debug leaves stale: strip renumbers
   the symbols (the debug sections' symbols go) and sets the table's sh_link to 0. */
const char *greeting(void) { return "hello"; }
int next(int x) { return x + 1; }
int (*taken)(int) = next;
