/* Host object that carries a packaged .llvm.offloading section (-fembed-offload-object). */
int host_entry(void) { return 1; }
