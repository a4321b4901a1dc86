// snarkd/filecoin: PoRep's circuits as circuit families of the registry (src/registry).
//   porep:2KiB|8MiB|512MiB|32GiB|64GiB   one partition of the sector size's StackedCircuit
//   stacked:nodes=N,layers=L,challenges=K,tree=B-S-T   any test shape (upstream's tests use
//       nodes=8,layers=2,challenges=1,tree=2-0-0 and 8-0-0; nodes=32 8-4-0; nodes=64 8-4-2)
// Their witnesses come from a synthesized CC sector's C1 (c1_synth.h) for the seed.
#pragma once

#include "circuits/circuit.h"

namespace snarkd::filecoin {

const circuits::CircuitFamily& porep_family();
const circuits::CircuitFamily& stacked_family();

}  // namespace snarkd::filecoin
