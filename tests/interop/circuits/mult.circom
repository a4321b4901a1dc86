pragma circom 2.0.0;
// One output, one public input, one private input.
template Mult() {
  signal input a;
  signal input b;
  signal output c;
  c <== a * b;
}
component main {public [a]} = Mult();
