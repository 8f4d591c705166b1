int g = 3;
#pragma omp declare target
int dev_var = 5;
int twice(int x){ return 2*x; }
#pragma omp end declare target
int run(int n){ int r=0;
#pragma omp target map(tofrom: r)
 { r = twice(n) + dev_var; }
 return r; }
