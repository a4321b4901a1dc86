// libFuzzer target: every point and field decoder on arbitrary bytes. Decoders must return an
// error or a valid point, never crash, hang or accept an invalid point.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ec/bls12_381.h"
#include "ec/bn254.h"
#include "ec/encoding.h"

namespace {

using namespace snarkd;

template <class C>
void check_valid(const Result<ec::Affine<C>>& r) {
  if (!r.ok()) return;
  const auto& p = *r;
  if (!p.is_on_curve() || !C::in_subgroup(ec::Jacobian<C>::from_affine(p))) __builtin_trap();
}

template <class C>
void fuzz_snarkjs(std::span<const uint8_t> data) {
  check_valid<C>(ec::decode_snarkjs<C>(data));
  if (data.size() >= ec::kSnarkjsSize<C>) {
    auto r = ec::decode_snarkjs<C>(data.first(ec::kSnarkjsSize<C>));
    check_valid<C>(r);
    // A decoded point re-encodes to the same bytes (canonical form).
    if (r.ok()) {
      auto again = ec::encode_snarkjs(*r);
      if (!std::equal(again.begin(), again.end(), data.begin())) __builtin_trap();
    }
  }
}

template <class C>
void fuzz_zcash(std::span<const uint8_t> data) {
  check_valid<C>(ec::decode_compressed<C>(data));
  check_valid<C>(ec::decode_uncompressed<C>(data));
  if (data.size() >= ec::kCompressedSize<C>) {
    auto r = ec::decode_compressed<C>(data.first(ec::kCompressedSize<C>));
    check_valid<C>(r);
    if (r.ok()) {
      auto again = ec::encode_compressed(*r);
      if (!std::equal(again.begin(), again.end(), data.begin())) __builtin_trap();
    }
  }
  if (data.size() >= ec::kUncompressedSize<C>) {
    check_valid<C>(ec::decode_uncompressed<C>(data.first(ec::kUncompressedSize<C>)));
  }
}

template <class C>
void fuzz_json(const nlohmann::json& j) {
  check_valid<C>(ec::from_snarkjs_json<C>(j));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::span<const uint8_t> body(data + 1, size - 1);
  switch (data[0] % 4) {
    case 0:
      fuzz_zcash<ec::bls12_381::G1>(body);
      fuzz_zcash<ec::bls12_381::G2>(body);
      break;
    case 1:
      fuzz_snarkjs<ec::bls12_381::G1>(body);
      fuzz_snarkjs<ec::bls12_381::G2>(body);
      fuzz_snarkjs<ec::bn254::G1>(body);
      fuzz_snarkjs<ec::bn254::G2>(body);
      break;
    case 2: {
      auto j = nlohmann::json::parse(body.begin(), body.end(), nullptr, false);
      if (j.is_discarded()) break;
      fuzz_json<ec::bls12_381::G1>(j);
      fuzz_json<ec::bls12_381::G2>(j);
      fuzz_json<ec::bn254::G1>(j);
      fuzz_json<ec::bn254::G2>(j);
      break;
    }
    default: {
      std::string_view text(reinterpret_cast<const char*>(body.data()), body.size());
      auto a = ff::bls12_381::Fq::from_decimal(text);
      auto b = ff::bn254::Fr::from_decimal(text);
      if (a.ok() && a->to_decimal().size() > text.size()) __builtin_trap();
      if (b.ok() && b->to_decimal().size() > text.size()) __builtin_trap();
      (void)ff::bls12_381::Fq::from_bytes_be(body);
      (void)ff::bn254::Fq::from_bytes_le(body);
      break;
    }
  }
  return 0;
}
