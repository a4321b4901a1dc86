#include "formats/circom.h"

namespace snarkd::formats {

namespace {

template <class F>
bool is_prime_of(std::span<const uint8_t> prime_le) {
  auto p = F::Int::from_bytes_le(prime_le);
  return p && *p == F::kModulus;
}

}  // namespace

Result<ec::CurveId> curve_from_prime(std::span<const uint8_t> prime_le, bool is_scalar,
                                     const std::string& where) {
  if (is_scalar) {
    if (is_prime_of<ec::bls12_381::Fr>(prime_le)) return ec::CurveId::kBls12_381;
    if (is_prime_of<ec::bn254::Fr>(prime_le)) return ec::CurveId::kBn254;
  } else {
    if (is_prime_of<ec::bls12_381::Fq>(prime_le)) return ec::CurveId::kBls12_381;
    if (is_prime_of<ec::bn254::Fq>(prime_le)) return ec::CurveId::kBn254;
  }
  return invalid_argument(where + ": the prime is neither BLS12-381's nor BN254's");
}

Result<ec::CurveId> curve_from_header(const BinFile& file, uint32_t section, bool is_scalar) {
  ASSIGN_OR_RETURN(auto s, file.section(section, "header"));
  auto r = file.reader(s, section, "header");
  ASSIGN_OR_RETURN(uint32_t n8, r.u32("n8"));
  if (n8 == 0 || n8 > 64) return r.error("implausible field size n8 = " + std::to_string(n8));
  ASSIGN_OR_RETURN(auto prime, r.bytes(n8, "the prime"));
  return curve_from_prime(prime, is_scalar, r.name());
}

}  // namespace snarkd::formats
