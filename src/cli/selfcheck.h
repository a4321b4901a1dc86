// snarkd/cli: `snarkd selfcheck`: which backend would run, and a quick arithmetic self-test.
#pragma once

#include <ostream>

namespace snarkd::cli {

// Prints a report to `out`; returns 0 when every check passed, 1 otherwise.
int run_selfcheck(std::ostream& out, unsigned long long seed);

}  // namespace snarkd::cli
