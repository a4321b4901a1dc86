// snarkd circuit: what the registered circuit families are, and a circuit's shape.
#pragma once

#include <ostream>
#include <string>

namespace snarkd::cli {

// snarkd circuit list
int run_circuit_list(std::ostream& out);
// snarkd circuit stats SPEC [--json]: the shape mode's counts. Exit 2 on a bad spec.
int run_circuit_stats(const std::string& spec, bool json, std::ostream& out, std::ostream& err);

}  // namespace snarkd::cli
