int gv[10] = {1};
static int sv[4];
int *get(int i){ return i ? &gv[i] : &sv[i]; }
