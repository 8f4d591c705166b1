int work(int x){ int s=0; for(int i=0;i<x;i++) s+=i*x; return s; }
int other(int y){ return work(y) + work(y+1); }
__attribute__((xray_always_instrument)) void tiny(void){}
int main(int c, char**v){ return other(c); }
