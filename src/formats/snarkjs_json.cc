#include "formats/snarkjs_json.h"

#include <fstream>
#include <sstream>

#include "ec/encoding.h"
#include "ec/pairing.h"

namespace snarkd::formats {

namespace {

template <class C>
Result<ec::Affine<C>> point_field(const nlohmann::json& j, const char* field) {
  if (!j.is_object() || !j.contains(field)) {
    return invalid_argument(std::string("missing field '") + field + "'");
  }
  auto p = ec::from_snarkjs_json<C>(j[field]);
  if (!p.ok()) return p.status().with_context(std::string("field '") + field + "'");
  return *p;
}

template <class T>
nlohmann::json fp2_json(const ff::Fp2<T>& v) {
  return nlohmann::json::array({v.c0.to_decimal(), v.c1.to_decimal()});
}

}  // namespace

Result<ec::CurveId> curve_of_json(const nlohmann::json& j, const std::string& what) {
  if (!j.is_object() || !j.contains("curve") || !j["curve"].is_string()) {
    return invalid_argument(what + ": missing string field 'curve'");
  }
  auto name = j["curve"].get<std::string>();
  auto c = ec::parse_curve_name(name);
  if (!c) return invalid_argument(what + ": unknown curve '" + name + "'");
  return *c;
}

template <class E>
nlohmann::json proof_to_json(const groth16::Proof<E>& proof) {
  return {{"pi_a", ec::to_snarkjs_json(proof.a)},
          {"pi_b", ec::to_snarkjs_json(proof.b)},
          {"pi_c", ec::to_snarkjs_json(proof.c)},
          {"protocol", "groth16"},
          {"curve", ec::curve_snarkjs_name(ec::curve_of<E>())}};
}

template <class E>
Result<groth16::Proof<E>> proof_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return invalid_argument("proof: expected a JSON object");
  if (j.contains("protocol") && j["protocol"] != "groth16") {
    return invalid_argument("proof: protocol is not groth16");
  }
  groth16::Proof<E> proof;
  ASSIGN_OR_RETURN(proof.a, point_field<typename E::G1>(j, "pi_a"));
  ASSIGN_OR_RETURN(proof.b, point_field<typename E::G2>(j, "pi_b"));
  ASSIGN_OR_RETURN(proof.c, point_field<typename E::G1>(j, "pi_c"));
  return proof;
}

template <class F>
nlohmann::json public_to_json(std::span<const F> inputs) {
  auto out = nlohmann::json::array();
  for (const auto& v : inputs) out.push_back(v.to_decimal());
  return out;
}

template <class F>
Result<std::vector<F>> public_from_json(const nlohmann::json& j) {
  if (!j.is_array()) return invalid_argument("public inputs: expected a JSON array");
  std::vector<F> out;
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_string()) {
      return invalid_argument("public input " + std::to_string(i) + " is not a decimal string");
    }
    auto v = F::from_decimal(j[i].get<std::string>());
    if (!v.ok()) return v.status().with_context("public input " + std::to_string(i));
    out.push_back(*v);
  }
  return out;
}

template <class E>
nlohmann::json vk_to_json(const groth16::VerifyingKey<E>& vk) {
  auto ab = ec::Pairing<E>::pairing(vk.alpha1, vk.beta2);
  auto fp6 = [](const auto& v) {
    return nlohmann::json::array({fp2_json(v.c0), fp2_json(v.c1), fp2_json(v.c2)});
  };
  auto ic = nlohmann::json::array();
  for (const auto& p : vk.ic) ic.push_back(ec::to_snarkjs_json(p));
  return {{"protocol", "groth16"},
          {"curve", ec::curve_snarkjs_name(ec::curve_of<E>())},
          {"nPublic", vk.num_public()},
          {"vk_alpha_1", ec::to_snarkjs_json(vk.alpha1)},
          {"vk_beta_2", ec::to_snarkjs_json(vk.beta2)},
          {"vk_gamma_2", ec::to_snarkjs_json(vk.gamma2)},
          {"vk_delta_2", ec::to_snarkjs_json(vk.delta2)},
          {"vk_alphabeta_12", nlohmann::json::array({fp6(ab.c0), fp6(ab.c1)})},
          {"IC", ic}};
}

template <class E>
Result<groth16::VerifyingKey<E>> vk_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return invalid_argument("verification key: expected a JSON object");
  if (j.contains("protocol") && j["protocol"] != "groth16") {
    return invalid_argument("verification key: protocol is not groth16");
  }
  groth16::VerifyingKey<E> vk;
  ASSIGN_OR_RETURN(vk.alpha1, point_field<typename E::G1>(j, "vk_alpha_1"));
  ASSIGN_OR_RETURN(vk.beta2, point_field<typename E::G2>(j, "vk_beta_2"));
  ASSIGN_OR_RETURN(vk.gamma2, point_field<typename E::G2>(j, "vk_gamma_2"));
  ASSIGN_OR_RETURN(vk.delta2, point_field<typename E::G2>(j, "vk_delta_2"));
  if (!j.contains("IC") || !j["IC"].is_array() || j["IC"].empty()) {
    return invalid_argument("verification key: field 'IC' must be a non-empty array");
  }
  if (j["IC"].size() > (1u << 24)) return invalid_argument("verification key: IC is too long");
  for (size_t i = 0; i < j["IC"].size(); ++i) {
    auto p = ec::from_snarkjs_json<typename E::G1>(j["IC"][i]);
    if (!p.ok()) return p.status().with_context("verification key: IC[" + std::to_string(i) + "]");
    vk.ic.push_back(*p);
  }
  if (j.contains("nPublic")) {
    if (!j["nPublic"].is_number_unsigned() || j["nPublic"].get<uint64_t>() != vk.num_public()) {
      return invalid_argument("verification key: nPublic does not match the " +
                              std::to_string(vk.ic.size()) + " IC points");
    }
  }
  return vk;
}

Result<nlohmann::json> read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status(StatusCode::kNotFound, "cannot open '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (j.is_discarded()) return invalid_argument("'" + path + "' is not valid JSON");
  return j;
}

Status write_json_file(const nlohmann::json& j, const std::string& path) {
  std::ofstream out(path);
  if (!out) return internal_error("cannot create '" + path + "'");
  out << j.dump(1) << "\n";
  if (!out) return internal_error("cannot write '" + path + "'");
  return Status();
}

#define SNARKD_INSTANTIATE_JSON(E)                                                             \
  template nlohmann::json proof_to_json<E>(const groth16::Proof<E>&);                          \
  template Result<groth16::Proof<E>> proof_from_json<E>(const nlohmann::json&);                \
  template nlohmann::json vk_to_json<E>(const groth16::VerifyingKey<E>&);                      \
  template Result<groth16::VerifyingKey<E>> vk_from_json<E>(const nlohmann::json&);            \
  template nlohmann::json public_to_json<groth16::Fr<E>>(std::span<const groth16::Fr<E>>);     \
  template Result<std::vector<groth16::Fr<E>>> public_from_json<groth16::Fr<E>>(               \
      const nlohmann::json&);
SNARKD_INSTANTIATE_JSON(ec::bls12_381::Engine)
SNARKD_INSTANTIATE_JSON(ec::bn254::Engine)
#undef SNARKD_INSTANTIATE_JSON

}  // namespace snarkd::formats
