// snarkd/ec: the curves snarkd supports, by name and by prime, for code that picks one at run
// time (file readers, the CLI).
#pragma once

#include <optional>
#include <string_view>

#include "ec/bls12_381.h"
#include "ec/bn254.h"

namespace snarkd::ec {

enum class CurveId { kBls12_381, kBn254 };

inline const char* curve_display_name(CurveId c) {
  return c == CurveId::kBls12_381 ? "BLS12-381" : "BN254";
}
// The names snarkjs writes in its JSON ("curve": ...).
inline const char* curve_snarkjs_name(CurveId c) {
  return c == CurveId::kBls12_381 ? "bls12381" : "bn128";
}

inline std::optional<CurveId> parse_curve_name(std::string_view name) {
  if (name == "bls12-381" || name == "bls12381" || name == "bls12_381") return CurveId::kBls12_381;
  if (name == "bn254" || name == "bn128" || name == "alt_bn128") return CurveId::kBn254;
  return std::nullopt;
}

template <class E>
constexpr CurveId curve_of() {
  if constexpr (std::is_same_v<E, bls12_381::Engine>) return CurveId::kBls12_381;
  else return CurveId::kBn254;
}

// Calls fn.template operator()<Engine>() for the curve's pairing engine.
template <class Fn>
auto with_engine(CurveId c, Fn&& fn) {
  if (c == CurveId::kBls12_381) return fn.template operator()<bls12_381::Engine>();
  return fn.template operator()<bn254::Engine>();
}

}  // namespace snarkd::ec
