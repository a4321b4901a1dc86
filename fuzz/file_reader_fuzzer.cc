// libFuzzer targets for the file readers: one binary per format, chosen at compile time by
// SNARKD_FUZZ_FORMAT (r1cs, wtns, zkey, json, params, keycache). Readers must return an error or a valid object on
// any input: never crash, hang, or allocate beyond what the input's size justifies.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "ec/bls12_381.h"
#include "ec/bn254.h"
#include "formats/bellperson.h"
#include "formats/circom.h"
#include "formats/key_cache.h"
#include "formats/snarkjs_json.h"
#include "formats/zkey.h"
#include "groth16/setup.h"
#include "circuits/chain/chain.h"

namespace {

using namespace snarkd;

template <class E>
void fuzz_engine(std::span<const uint8_t> data) {
  using F [[maybe_unused]] = groth16::Fr<E>;
  const std::string name = "fuzz-input";
#if SNARKD_FUZZ_FORMAT_ID == 0
  auto cs = formats::read_r1cs<F>(data, name);
  if (cs.ok() && !cs->validate().ok()) __builtin_trap();
#elif SNARKD_FUZZ_FORMAT_ID == 1
  auto w = formats::read_wtns<F>(data, name);
  if (w.ok() && (w->empty() || !(*w)[0].is_one())) __builtin_trap();
#elif SNARKD_FUZZ_FORMAT_ID == 2
  auto pk = formats::read_zkey<E>(data, name);
  if (pk.ok()) {
    if (pk->a_query.size() != pk->num_variables || pk->h_query.size() != pk->domain_size() ||
        pk->a.rows() > pk->domain_size()) {
      __builtin_trap();
    }
  }
#elif SNARKD_FUZZ_FORMAT_ID == 4
  // bellperson params are BLS12-381 only, read against the circuit of the corpus file
  // (`snarkd setup --constraints 20 --params`: the built-in chain, seed 1, 25% boolean).
  if constexpr (std::is_same_v<E, ec::bls12_381::Engine>) {
    static const groth16::ProvingKey<E> circuit =
        *groth16::circuit_part<E>(circuits::build_chain<F>({20, 25, 1}).first,
                                  poly::QuotientConvention::kDivideByZ, "fuzz");
    auto pk = formats::read_params(data, name, circuit);
    if (pk.ok() && (pk->a_query.size() != pk->num_variables ||
                    pk->h_query.size() != pk->domain_size() - 1)) {
      __builtin_trap();
    }
    if (data.size() == formats::kBellpersonProofSize) (void)formats::decode_proof(data);
    // The .vk is the file's first part: any prefix the mutations leave must read or fail cleanly.
    auto vk = formats::read_vk(data, name);
    if (vk.ok() && vk->ic.empty()) __builtin_trap();
  }
#elif SNARKD_FUZZ_FORMAT_ID == 5
  // The key cache carries a checksum; fix it up so mutations reach the parser behind it.
  if (data.size() >= 16) {
    std::vector<uint8_t> fixed(data.begin(), data.end());
    const uint64_t sum = content_hash(std::span<const uint8_t>(fixed).first(fixed.size() - 8)).lo;
    for (int i = 0; i < 8; ++i) fixed[fixed.size() - 8 + size_t(i)] = uint8_t(sum >> (8 * i));
    auto pk = formats::read_key_cache<E>(fixed, name, content_hash(std::string_view("fuzz")));
    if (pk.ok() && (pk->a_query.size() != pk->num_variables || pk->a.rows() > pk->domain_size())) {
      __builtin_trap();
    }
  }
#else
  auto j = nlohmann::json::parse(data.begin(), data.end(), nullptr, false);
  if (j.is_discarded()) return;
  (void)formats::proof_from_json<E>(j);
  (void)formats::vk_from_json<E>(j);
  (void)formats::public_from_json<F>(j);
  (void)formats::curve_of_json(j, name);
#endif
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  fuzz_engine<ec::bls12_381::Engine>(bytes);
  fuzz_engine<ec::bn254::Engine>(bytes);
  return 0;
}
