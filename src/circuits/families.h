// snarkd/circuits (internal): each family's accessor, listed in registry.cc.
#pragma once

#include "circuits/circuit.h"

namespace snarkd::circuits {

const CircuitFamily& chain_family();
const CircuitFamily& partition_family();
const CircuitFamily& sha256_family();
const CircuitFamily& poseidon_family();
const CircuitFamily& por_family();

}  // namespace snarkd::circuits
