pragma circom 2.0.0;
// Boolean-heavy: a 64-bit decomposition with 64 public outputs and a private input.
template Bits(n) {
  signal input in;
  signal output out[n];
  var acc = 0;
  var e = 1;
  for (var i = 0; i < n; i++) {
    out[i] <-- (in >> i) & 1;
    out[i] * (out[i] - 1) === 0;
    acc += out[i] * e;
    e = e + e;
  }
  acc === in;
}
component main = Bits(64);
