#pragma comment(lib, "m")
int main(void) { return 0; }
