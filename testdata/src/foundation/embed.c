/* Compiled with -fembed-bitcode: .llvmbc holds the bitcode and .llvmcmd the cc1 arguments. */
int embedded_answer(void) { return 42; }
