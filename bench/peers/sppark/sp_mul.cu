// Peer comparison (issue 36), sppark's side: its mont_t Fr product and butterfly, from the
// git-ignored .peers/sppark (populate.sh); built only by run.sh, never into snarkd.
#include <ff/bls12-381.hpp>
#define MUL(a, b) ((a) * (b))
#include "mulbench.cuh"
int main() { run_bench<fr_t>("sppark mont_t fr"); return 0; }
