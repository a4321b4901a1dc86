// snarkd/cli: the curve named on the command line, and dispatch to code templated on it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ec/bls12_381.h"
#include "ec/bn254.h"

namespace snarkd::cli {

enum class Curve { kBls12_381, kBn254 };

inline std::optional<Curve> parse_curve(std::string_view name) {
  if (name == "bls12-381" || name == "bls12381" || name == "bls12_381") return Curve::kBls12_381;
  if (name == "bn254" || name == "bn128" || name == "alt_bn128") return Curve::kBn254;
  return std::nullopt;
}

inline const char* curve_name(Curve c) { return c == Curve::kBls12_381 ? "BLS12-381" : "BN254"; }

// Calls fn.template operator()<Engine>() for the curve's pairing engine.
template <class Fn>
auto with_engine(Curve c, Fn&& fn) {
  if (c == Curve::kBls12_381) return fn.template operator()<ec::bls12_381::Engine>();
  return fn.template operator()<ec::bn254::Engine>();
}

}  // namespace snarkd::cli
