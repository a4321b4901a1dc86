pragma circom 2.0.0;
// Several public inputs and outputs; compiled with --O0 so the linear constraints stay.
template Chain(n) {
  signal input x;
  signal input k;
  signal input extra;
  signal output y;
  signal output s;
  signal t[n + 1];
  t[0] <== x;
  for (var i = 0; i < n; i++) {
    t[i + 1] <== t[i] * t[i] + k;
  }
  y <== t[n];
  s <== x + 2 * k + extra;
}
component main {public [x, k]} = Chain(50);
