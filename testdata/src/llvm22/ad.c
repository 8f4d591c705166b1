int a(int x){return x+1;}
static int b(int x){return x*3;}
int (*pa)(int) = a;
int (*get(void))(int){ return b; }
int c(int x){ return a(x) + b(x); }
