// snarkd/registry: every circuit family, by name. A layer of its own above circuits and
// filecoin (whose PoRep circuits are families too), below the engine and the CLI: adding a
// family is one folder in its layer and one line in registry.cc.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "circuits/circuit.h"

namespace snarkd::registry {

// Every registered family, in registry order.
const std::vector<const circuits::CircuitFamily*>& families();
// Parses "family:params" (a leading "builtin:" is accepted and dropped).
Result<std::unique_ptr<circuits::Circuit>> parse_circuit(std::string_view spec);

}  // namespace snarkd::registry
