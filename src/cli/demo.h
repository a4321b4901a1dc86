// snarkd/cli: `snarkd demo`: setup, prove and verify a built-in circuit, with stage timings.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "cli/backend_choice.h"
#include "cli/curve.h"
#include "poly/quotient.h"

namespace snarkd::cli {

struct DemoOptions {
  Curve curve = Curve::kBls12_381;
  uint64_t constraints = 65000;  // with the public-input rows: a 2^16 domain
  unsigned boolean_percent = 25;
  poly::QuotientConvention convention = poly::QuotientConvention::kSnarkjsOddCoset;
  uint64_t seed = 1;  // the witness (the circuit comes from its spec; r, s are always fresh)
  BackendChoice backend = BackendChoice::kAuto;
};

// Returns the process exit code: 0 when the proof verified.
int run_demo(const DemoOptions& options, std::ostream& out);

}  // namespace snarkd::cli
