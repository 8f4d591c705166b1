int f1(int),f2(int),f3(int),f4(int),f5(int),f6(int);
int sw(int x){switch(x){case 0:return f1(x);case 1:return f2(x)+1;case 2:return f3(x)*2;case 3:return f4(x)-3;case 4:return f5(x);case 5:return f6(x)^7;case 6: return 99;}return 0;}
int sw2(int x, int y){switch(x){case 10:return f1(y);case 11:return f2(y)+1;case 12:return f3(y)*2;case 13:return f4(y)-3;case 14:return f5(y);}return 0;}
typedef int (*fp)(int);
int callind(fp p, int x){ return p(x) + f1(x); }
void (*vp)(void);
void callv(void){ vp(); }
