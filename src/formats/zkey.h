// snarkd/formats: snarkjs Groth16 .zkey files (version 1), read and written.
//
// Layout (shared/reference/formats.md): section 1 protocol (1 = Groth16); 2 header (n8q, q, n8r,
// r, nVars, nPublic, domainSize, alpha1, beta1, beta2, gamma2, delta1, delta2); 3 IC; 4 the A and B
// coefficients (u32 matrix, u32 constraint, u32 signal, value * R^2 mod r); 5 A; 6 B1; 7 B2;
// 8 C (private signals); 9 H (odd Lagrange points of the 2n domain); 10 contributions.
// Points are affine, little-endian Montgomery. The verifying-key points get the full check
// (subgroup included); the bulk of the proving key is checked for canonical coordinates and
// the curve equation only (see ec::PointCheck).
#pragma once

#include <string>

#include "base/status.h"
#include "groth16/keys.h"

namespace snarkd::formats {

template <class E>
Result<groth16::ProvingKey<E>> read_zkey(std::span<const uint8_t> bytes, const std::string& name);

// Writes pk as a snarkjs zkey (requires pk.convention == kSnarkjsOddCoset). The contributions
// section records no contributions and a zero circuit hash: snarkjs proves and verifies with
// such a key, and `snarkjs zkey verify` (which recomputes the hash) is not expected to pass.
template <class E>
Status write_zkey(const groth16::ProvingKey<E>& pk, const std::string& path);

}  // namespace snarkd::formats
