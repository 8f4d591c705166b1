// A landing pad (IsEHPad) and a call that may throw.
int may_throw(int);
int guarded(int x) {
  try {
    return may_throw(x) + 1;
  } catch (int e) {
    return e;
  }
}
