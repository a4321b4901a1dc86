// snarkd/formats: snarkjs's JSON files: proof.json, public.json, verification_key.json.
//
//   proof.json   {"pi_a": [x, y, "1"], "pi_b": [[x0, x1], [y0, y1], ["1", "0"]], "pi_c": [...],
//                 "protocol": "groth16", "curve": "bn128" | "bls12381"}
//   public.json  ["decimal", ...]   (outputs first, then public inputs)
//   verification_key.json: protocol, curve, nPublic, vk_alpha_1, vk_beta_2, vk_gamma_2,
//                 vk_delta_2, vk_alphabeta_12 (e(alpha, beta)), IC.
// Readers check every field's presence and type and every point's validity, naming the field.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "ec/curve_id.h"
#include "groth16/keys.h"

namespace snarkd::formats {

template <class E>
nlohmann::json proof_to_json(const groth16::Proof<E>& proof);
template <class E>
Result<groth16::Proof<E>> proof_from_json(const nlohmann::json& j);

template <class F>
nlohmann::json public_to_json(std::span<const F> inputs);
template <class F>
Result<std::vector<F>> public_from_json(const nlohmann::json& j);

template <class E>
nlohmann::json vk_to_json(const groth16::VerifyingKey<E>& vk);
template <class E>
Result<groth16::VerifyingKey<E>> vk_from_json(const nlohmann::json& j);

// The "curve" field of a snarkjs JSON object.
Result<ec::CurveId> curve_of_json(const nlohmann::json& j, const std::string& what);

// Reads and parses a JSON file; errors name the file.
Result<nlohmann::json> read_json_file(const std::string& path);
Status write_json_file(const nlohmann::json& j, const std::string& path);

}  // namespace snarkd::formats
