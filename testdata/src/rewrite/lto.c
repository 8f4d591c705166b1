int fat_lto(int x) { return x * x - 1; }
