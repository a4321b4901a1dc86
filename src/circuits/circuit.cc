#include "circuits/circuit.h"

#include <charconv>

namespace snarkd::circuits {

Status Circuit::wrong_curve(const char* wanted) const {
  return invalid_argument("circuit '" + spec() + "' is over " + ec::curve_display_name(curve()) + ", not " + wanted);
}

Result<r1cs::ConstraintSystem<Circuit::Fr381>> Circuit::constraints(FieldTag<Fr381>) const {
  return wrong_curve("BLS12-381");
}
Result<r1cs::ConstraintSystem<Circuit::FrBn>> Circuit::constraints(FieldTag<FrBn>) const { return wrong_curve("BN254"); }
Result<std::vector<Circuit::Fr381>> Circuit::witness(uint64_t, FieldTag<Fr381>) const { return wrong_curve("BLS12-381"); }
Result<std::vector<Circuit::FrBn>> Circuit::witness(uint64_t, FieldTag<FrBn>) const { return wrong_curve("BN254"); }

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  while (true) {
    const auto at = s.find(sep);
    parts.push_back(s.substr(0, at));
    if (at == std::string_view::npos) break;
    s = s.substr(at + 1);
  }
  return parts;
}

Result<uint64_t> parse_uint(std::string_view text, std::string_view what, std::string_view spec, uint64_t lo,
                            uint64_t hi) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return invalid_argument("circuit '" + std::string(spec) + "': " + std::string(what) + " '" + std::string(text) +
                            "' is not a number");
  }
  if (v < lo || v > hi) {
    return invalid_argument("circuit '" + std::string(spec) + "': " + std::string(what) + " must be " +
                            std::to_string(lo) + ".." + std::to_string(hi) + ", not " + std::to_string(v));
  }
  return v;
}

Result<ec::CurveId> parse_curve(std::string_view text, std::string_view spec) {
  const auto curve = ec::parse_curve_name(text);
  if (!curve) return invalid_argument("circuit '" + std::string(spec) + "': unknown curve '" + std::string(text) + "'");
  return *curve;
}

Status spec_error(std::string_view spec, std::string_view syntax) {
  return invalid_argument("circuit '" + std::string(spec) + "': expected " + std::string(syntax));
}

}  // namespace snarkd::circuits
