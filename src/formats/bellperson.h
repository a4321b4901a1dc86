// snarkd/formats: bellperson (Filecoin) Groth16 parameters and proofs, BLS12-381 only.
//
// `.params` (shared/reference/formats.md): no padding, big-endian u32 lengths, points in the
// uncompressed zcash encoding (96-byte G1, 192-byte G2). The verifying key alpha_g1, beta_g1,
// beta_g2, gamma_g2, delta_g1, delta_g2; then u32 + IC; u32 + H (n - 1 points of
// tau^i Z(tau) / delta, our kDivideByZ convention); u32 + L (one per private variable, our C
// query); u32 + A (every input, then the private variables that appear in A); u32 + B_G1 and
// u32 + B_G2 (the inputs and private variables that appear in B).
//
// A .params file holds no constraints: bellperson synthesizes the circuit in code. Reading one
// therefore takes the circuit's QAP (the key's matrices and sizes), which also gives the A and B
// densities: A is expanded back to one point per variable, B stays by density (ProvingKey keeps
// B that way too).
// A proof is A || B || C compressed: 48 + 96 + 48 = 192 bytes.
#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "ec/bls12_381.h"
#include "groth16/keys.h"

namespace snarkd::formats {

using Bls12_381 = ec::bls12_381::Engine;

inline constexpr size_t kBellpersonProofSize = 192;

// Requires pk.convention == kDivideByZ. Points of variables absent from A (or B) must be the
// identity (they are in any key made from the circuit) and are left out, as bellperson does.
Result<std::vector<uint8_t>> encode_params(const groth16::ProvingKey<Bls12_381>& pk);
Status write_params(const groth16::ProvingKey<Bls12_381>& pk, const std::string& path);

// `circuit` supplies num_variables, num_public, log_domain_size and the QAP a, b (and c); its
// points are replaced by the file's. Verifying-key points get the full subgroup check, the bulk
// the curve equation (as for zkeys). Errors name the file and the field.
Result<groth16::ProvingKey<Bls12_381>> read_params(std::span<const uint8_t> bytes,
                                                   const std::string& name,
                                                   groth16::ProvingKey<Bls12_381> circuit);

// `.vk`: the verifying key as the `.params` file begins (alpha_g1, beta_g1, beta_g2, gamma_g2,
// delta_g1, delta_g2, u32 + IC), every point fully checked. beta_g1 and delta_g1 are not needed to
// verify and are checked, then dropped.
std::vector<uint8_t> encode_vk(const groth16::ProvingKey<Bls12_381>& pk);
Status write_vk(const groth16::ProvingKey<Bls12_381>& pk, const std::string& path);
Result<groth16::VerifyingKey<Bls12_381>> read_vk(std::span<const uint8_t> bytes, const std::string& name);

std::array<uint8_t, kBellpersonProofSize> encode_proof(const groth16::Proof<Bls12_381>& proof);
Result<groth16::Proof<Bls12_381>> decode_proof(std::span<const uint8_t> bytes);

}  // namespace snarkd::formats
