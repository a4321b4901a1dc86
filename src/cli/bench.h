// snarkd/cli: `snarkd bench prove`: whole proofs on built-in circuits, one slot and several
// slots back to back, with per-stage device times and kernel-busy against wall time.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "cli/backend_choice.h"
#include "cli/curve.h"
#include "poly/quotient.h"

namespace snarkd::cli {

enum class KeyKind { kAuto, kSetup, kSynthetic };
// chain: circuits::build_chain; partition: circuits::build_partition (a PoRep partition's shape: every
// variable in A, b_percent of them in B, boolean_percent of the others bits).
enum class CircuitShape { kChain, kPartition };

struct BenchProveOptions {
  Curve curve = Curve::kBls12_381;
  std::vector<unsigned> log_sizes{16};        // domain 2^k
  std::vector<unsigned> boolean_percents{0, 90};
  std::vector<unsigned> slot_counts{1, 2};
  unsigned proofs = 4;                          // per slot count
  BackendChoice backend = BackendChoice::kAuto;
  KeyKind key = KeyKind::kAuto;                 // auto: a real setup up to 2^setup_limit_log
  unsigned setup_limit_log = 18;
  poly::QuotientConvention convention = poly::QuotientConvention::kSnarkjsOddCoset;
  bool cpu_evaluate = false;
  unsigned base_copies = 1;  // GpuBackendOptions::base_copies (0: as many as fit, up to 4)
  uint64_t key_memory_limit = 0;  // GpuBackendOptions::key_memory_limit (bytes; 0: none)
  CircuitShape shape = CircuitShape::kChain;
  unsigned b_percent = 25;  // partition only
  // Constraints per circuit; 0: 2^k - 8 for each domain 2^k (room for the public-input rows).
  // Set, it needs one log size whose domain holds it (a PoRep partition: 130M in 2^27).
  uint64_t constraints = 0;
  // Any registered circuit instead of the chain/partition sweep (e.g. porep:32GiB): one point,
  // its own curve; the log sizes and boolean shares are ignored.
  std::string circuit;
};

int run_bench_prove(const BenchProveOptions& options, std::ostream& out);

}  // namespace snarkd::cli
