// SHA-256 gadget: upstream's constraint counts in every mode, outputs against OpenSSL's
// libcrypto on fresh random messages, and a wrong witness caught by the checking mode.
#include "circuits/gadgets/sha256.h"

#include <gtest/gtest.h>

#include "base/sha256.h"
#include "circuits/modes.h"
#include "test_util.h"

namespace snarkd::circuits {
namespace {

using testing::Fr;
using testing::run_all_modes;
using testing::expect_every_aux_constrained;
using testing::tampered_failure;

std::vector<bool> random_bits(std::mt19937_64& rng, size_t n) {
  std::vector<bool> bits(n);
  for (size_t i = 0; i < n; ++i) bits[i] = rng() & 1;
  return bits;
}

template <class CS>
std::vector<Boolean> alloc_bits(CS& cs, const std::vector<bool>& bits) {
  std::vector<Boolean> out;
  out.reserve(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) {
    auto scope = cs.ns("input bit", i);
    out.push_back(Boolean::alloc(cs, bits[i]));
  }
  return out;
}

std::vector<uint8_t> bits_to_bytes(const std::vector<Boolean>& bits) {
  std::vector<uint8_t> out(bits.size() / 8, 0);
  for (size_t i = 0; i < bits.size(); ++i) out[i / 8] |= uint8_t(bits[i].value()) << (7 - i % 8);
  return out;
}

TEST(Sha256Gadget, OneBlockWithConstantIvCosts25840) {
  SNARKD_SEED_TRACE();
  auto rng = snarkd::testing::make_rng();
  const auto input = random_bits(rng, 512);
  size_t after_inputs = 0;
  auto program = [&](auto& cs) {
    const auto bits = alloc_bits(cs, input);
    after_inputs = cs.num_aux();
    (void)sha256_block_no_padding(cs, bits);
  };
  const auto r = run_all_modes(program);
  EXPECT_EQ(r.shape.constraints - 512, 25840u);
  EXPECT_EQ(after_inputs, 512u);
}

TEST(Sha256Gadget, Hash512BitsCosts44874AndMatchesLibcrypto) {
  SNARKD_SEED_TRACE();
  auto rng = snarkd::testing::make_rng();
  const auto input = random_bits(rng, 512);
  std::vector<Boolean> digest;
  auto program = [&](auto& cs) {
    const auto bits = alloc_bits(cs, input);
    digest = sha256(cs, bits);
  };
  const auto r = run_all_modes(program);
  EXPECT_EQ(r.shape.constraints - 512, 44874u);
  expect_every_aux_constrained(program, 40);
  std::vector<uint8_t> message(64, 0);
  for (size_t i = 0; i < 512; ++i) message[i / 8] |= uint8_t(input[i]) << (7 - i % 8);
  const auto expected = snarkd::sha256(message);
  EXPECT_EQ(bits_to_bytes(digest), std::vector<uint8_t>(expected.begin(), expected.end()));
}

TEST(Sha256Gadget, EmptyInputCostsNothing) {
  std::vector<Boolean> digest;
  const auto r = run_all_modes([&](auto& cs) { digest = sha256(cs, std::span<const Boolean>()); });
  EXPECT_EQ(r.shape.constraints, 0u);
  const auto expected = snarkd::sha256(std::span<const uint8_t>());
  EXPECT_EQ(bits_to_bytes(digest), std::vector<uint8_t>(expected.begin(), expected.end()));
}

TEST(Sha256Gadget, RandomLengthsMatchLibcrypto) {
  SNARKD_SEED_TRACE();
  auto rng = snarkd::testing::make_rng();
  for (size_t bytes : {1ul, 31ul, 55ul, 56ul, 64ul, size_t(rng() % 200)}) {
    SCOPED_TRACE(bytes);
    const auto input = random_bits(rng, 8 * bytes);
    r1cs::WitnessCS<Fr> cs;
    const auto bits = alloc_bits(cs, input);
    const auto digest = sha256(cs, bits);
    std::vector<Boolean> in_bits;
    for (bool b : input) in_bits.push_back(Boolean::constant(b));
    const auto expected = snarkd::sha256(bits_to_bytes(in_bits));
    EXPECT_EQ(bits_to_bytes(digest), std::vector<uint8_t>(expected.begin(), expected.end()));
  }
}

TEST(Sha256Gadget, AWrongBitIsNamed) {
  SNARKD_SEED_TRACE();
  auto rng = snarkd::testing::make_rng();
  const auto input = random_bits(rng, 512);
  auto program = [&](auto& cs) {
    const auto bits = alloc_bits(cs, input);
    (void)sha256(cs, bits);
  };
  // An input bit, a bit of the message schedule, a bit deep in the rounds.
  for (uint32_t index : {7u, 512u + 100u, 512u + 20000u, uint32_t(512 + rng() % 40000)}) {
    const auto failure = tampered_failure(program, index);
    EXPECT_NE(failure, "") << "aux " << index;
    EXPECT_NE(failure.find("is not satisfied"), std::string::npos) << failure;
  }
  // A flipped input bit still passes its boolean row; the first row to read it names it.
  const auto failure = tampered_failure(program, 7);
  EXPECT_NE(failure.find("block 0/w extension"), std::string::npos) << failure;
}

}  // namespace
}  // namespace snarkd::circuits
