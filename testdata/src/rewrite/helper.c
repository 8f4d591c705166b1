int helper(int x) { return x * 2 + 1; }
