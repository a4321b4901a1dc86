pragma circom 2.0.0;
// No public signals at all: nPublic = 0.
template NoPublic() {
  signal input a;
  signal input b;
  signal x;
  signal y;
  x <== a * b;
  y <== x * x + a;
}
component main = NoPublic();
