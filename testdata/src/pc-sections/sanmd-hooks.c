/* The sanitizer metadata callbacks are weak references in the instrumented code; a tool that wants the
   metadata defines them.  This one only counts the calls (linked into the -hooks executable). */
static int calls;
void __sanitizer_metadata_covered_add(unsigned version, const char *start, const char *end) { calls++; }
void __sanitizer_metadata_covered_del(unsigned version, const char *start, const char *end) { calls--; }
void __sanitizer_metadata_atomics_add(unsigned version, const char *start, const char *end) { calls++; }
void __sanitizer_metadata_atomics_del(unsigned version, const char *start, const char *end) { calls--; }
