// bellperson .params and 192-byte proofs: keys written and read back prove and verify, the byte
// layout is the documented one, and every malformed input is refused with the field named.
#include <gtest/gtest.h>

#include "ec/encoding.h"
#include "formats/bellperson.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "groth16/verifier.h"
#include "circuits/chain/chain.h"
#include "test_util.h"

namespace snarkd::formats {
namespace {

using E = Bls12_381;
using F = groth16::Fr<E>;
using G1 = ec::bls12_381::G1;
using G2 = ec::bls12_381::G2;

struct Fixture {
  groth16::ProvingKey<E> pk;
  std::vector<F> witness;
  groth16::ProvingKey<E> circuit;  // the QAP and sizes only
};

Fixture make(uint64_t constraints, unsigned boolean_percent, SeededRandom& rng) {
  auto [cs, w] = circuits::build_chain<F>({constraints, boolean_percent, rng()});
  auto pk = *groth16::setup<E>(cs, poly::QuotientConvention::kDivideByZ, rng);
  auto circuit = *groth16::circuit_part<E>(cs, poly::QuotientConvention::kDivideByZ, "test");
  return {std::move(pk), std::move(w), std::move(circuit)};
}

size_t count_used(const r1cs::SparseMatrix<F>& m, size_t nv, size_t always_upto) {
  std::vector<bool> used(nv, false);
  for (size_t k = 0; k < m.nonzeros(); ++k) used[m.column[k]] = used[m.column[k]] || !m.value[k].is_zero();
  size_t n = 0;
  for (size_t j = 0; j < nv; ++j) n += used[j] || j < always_upto;
  return n;
}

uint32_t be32(const std::vector<uint8_t>& b, size_t at) {
  return uint32_t(b[at]) << 24 | uint32_t(b[at + 1]) << 16 | uint32_t(b[at + 2]) << 8 | b[at + 3];
}

TEST(BellpersonTest, ParamsRoundTripProveAndVerify) {
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed());
  for (unsigned bp : {0u, 60u}) {
    auto f = make(200, bp, rng);
    auto bytes = encode_params(f.pk);
    ASSERT_TRUE(bytes.ok()) << bytes.status().to_string();
    const size_t nv = f.pk.num_variables, np = f.pk.num_public;
    const size_t na = count_used(f.pk.a, nv, np + 1), nb = count_used(f.pk.b, nv, 0);
    EXPECT_LT(nb, nv) << "the chain leaves variables out of B: the sparse layout is exercised";
    EXPECT_EQ(bytes->size(), 864 + 6 * 4 + 96 * ((np + 1) + (f.pk.domain_size() - 1) + (nv - np - 1) + na + nb) +
                                 192 * nb);
    auto back = read_params(*bytes, "k.params", f.circuit);
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_TRUE(back->a_query == f.pk.a_query);
    EXPECT_EQ(back->b_variables, f.pk.b_variables);
    EXPECT_EQ(back->b_variables.size(), nb);
    EXPECT_TRUE(back->b1_query == f.pk.b1_query);
    EXPECT_TRUE(back->b2_query == f.pk.b2_query);
    EXPECT_TRUE(back->c_query == f.pk.c_query);
    EXPECT_TRUE(back->h_query == f.pk.h_query);
    EXPECT_TRUE(back->vk.ic == f.pk.vk.ic);
    groth16::CpuBackend<E> cpu;
    auto proof = groth16::prove<E>(*back, f.witness, cpu, rng);
    ASSERT_TRUE(proof.ok());
    auto publics = std::span<const F>(f.witness).subspan(1, np);
    EXPECT_TRUE(*groth16::verify<E>(f.pk.vk, publics, *proof));
    // 192-byte proof: A || B || C compressed.
    auto enc = encode_proof(*proof);
    EXPECT_EQ(enc[0] & 0x80, 0x80);
    EXPECT_EQ(enc[48] & 0x80, 0x80);
    EXPECT_EQ(enc[144] & 0x80, 0x80);
    auto dec = decode_proof(enc);
    ASSERT_TRUE(dec.ok()) << dec.status().to_string();
    EXPECT_TRUE(*dec == *proof);
    EXPECT_TRUE(*groth16::verify<E>(f.pk.vk, publics, *dec));
  }
}

TEST(BellpersonTest, LayoutIsTheDocumentedOne) {
  SeededRandom rng(snarkd::testing::test_seed() + 1);
  auto f = make(40, 25, rng);
  auto bytes = *encode_params(f.pk);
  auto g1_at = [&](size_t at) {
    return *ec::decode_uncompressed<G1>(std::span<const uint8_t>(bytes).subspan(at, 96));
  };
  auto g2_at = [&](size_t at) {
    return *ec::decode_uncompressed<G2>(std::span<const uint8_t>(bytes).subspan(at, 192));
  };
  EXPECT_TRUE(g1_at(0) == f.pk.vk.alpha1);
  EXPECT_TRUE(g1_at(96) == f.pk.beta1);
  EXPECT_TRUE(g2_at(192) == f.pk.vk.beta2);
  EXPECT_TRUE(g2_at(384) == f.pk.vk.gamma2);
  EXPECT_TRUE(g1_at(576) == f.pk.delta1);
  EXPECT_TRUE(g2_at(672) == f.pk.vk.delta2);
  EXPECT_EQ(be32(bytes, 864), f.pk.num_public + 1);
  EXPECT_TRUE(g1_at(868) == f.pk.vk.ic[0]);
  const size_t h_at = 868 + 96 * (f.pk.num_public + 1);
  EXPECT_EQ(be32(bytes, h_at), f.pk.domain_size() - 1);
  EXPECT_TRUE(g1_at(h_at + 4) == f.pk.h_query[0]);
}

TEST(BellpersonTest, RejectsMalformedParams) {
  SeededRandom rng(snarkd::testing::test_seed() + 2);
  auto f = make(30, 25, rng);
  auto bytes = *encode_params(f.pk);
  auto expect_error = [&](const std::vector<uint8_t>& b, const std::string& needle) {
    auto r = read_params(b, "bad.params", f.circuit);
    ASSERT_FALSE(r.ok()) << "accepted: expected an error with '" << needle << "'";
    EXPECT_NE(r.status().message().find("'bad.params'"), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
  };
  for (size_t cut : {size_t(0), size_t(50), size_t(864), size_t(866), bytes.size() / 2, bytes.size() - 1}) {
    expect_error(std::vector<uint8_t>(bytes.begin(), bytes.begin() + long(cut)), "truncated");
  }
  auto longer = bytes;
  longer.push_back(0);
  expect_error(longer, "bytes after the last field");
  auto wrong_ic = bytes;
  wrong_ic[867] ^= 1;
  expect_error(wrong_ic, "IC has");
  const size_t h_at = 868 + 96 * (f.pk.num_public + 1);
  auto huge = bytes;
  huge[h_at] = 0xff;  // H claims ~4 billion points: refused by count, nothing allocated
  expect_error(huge, "H has");
  auto off_curve = bytes;
  off_curve[h_at + 4 + 95] ^= 1;  // H[0].y
  expect_error(off_curve, "H[0]");
  auto bad_vk = bytes;
  bad_vk[0] |= 0x80;  // compressed flag on an uncompressed point
  expect_error(bad_vk, "vk.alpha_g1");
  auto other = f.circuit;
  other.num_public += 1;
  EXPECT_FALSE(read_params(bytes, "bad.params", other).ok());
  // A snarkjs-convention key has no bellperson form.
  auto snarkjs_circuit = circuits::build_chain<F>({30, 25, 1}).first;
  auto sj = *groth16::setup<E>(snarkjs_circuit, poly::QuotientConvention::kSnarkjsOddCoset, rng);
  EXPECT_FALSE(encode_params(sj).ok());
}

// bellperson's .vk is the .params file's first part (VerifyingKey::write): the same bytes, and a
// proof verifies against the key read back.
TEST(BellpersonTest, VerifyingKeyFile) {
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed() + 3);
  auto f = make(60, 25, rng);
  const auto vk_bytes = encode_vk(f.pk);
  const auto params = *encode_params(f.pk);
  ASSERT_EQ(vk_bytes.size(), 868 + 96 * (f.pk.num_public + 1));
  EXPECT_TRUE(std::equal(vk_bytes.begin(), vk_bytes.end(), params.begin()));
  auto vk = read_vk(vk_bytes, "k.vk");
  ASSERT_TRUE(vk.ok()) << vk.status().to_string();
  EXPECT_TRUE(vk->alpha1 == f.pk.vk.alpha1);
  EXPECT_TRUE(vk->beta2 == f.pk.vk.beta2);
  EXPECT_TRUE(vk->gamma2 == f.pk.vk.gamma2);
  EXPECT_TRUE(vk->delta2 == f.pk.vk.delta2);
  EXPECT_TRUE(vk->ic == f.pk.vk.ic);
  groth16::CpuBackend<E> cpu;
  auto proof = groth16::prove<E>(f.pk, f.witness, cpu, rng);
  ASSERT_TRUE(proof.ok());
  auto publics = std::span<const F>(f.witness).subspan(1, f.pk.num_public);
  EXPECT_TRUE(*groth16::verify<E>(*vk, publics, *proof));

  auto expect_error = [&](const std::vector<uint8_t>& b, const std::string& needle) {
    auto r = read_vk(b, "bad.vk");
    ASSERT_FALSE(r.ok()) << "accepted: expected an error with '" << needle << "'";
    EXPECT_NE(r.status().message().find("'bad.vk'"), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
  };
  for (size_t cut : {size_t(0), size_t(100), size_t(866), vk_bytes.size() - 1}) {
    expect_error(std::vector<uint8_t>(vk_bytes.begin(), vk_bytes.begin() + long(cut)), "truncated");
  }
  expect_error(params, "bytes after the last field (IC)");  // a .params is not a .vk
  auto zero_ic = vk_bytes;
  zero_ic.resize(868);
  zero_ic[864] = zero_ic[865] = zero_ic[866] = zero_ic[867] = 0;
  expect_error(zero_ic, "IC has 0 points");
  auto off_curve = vk_bytes;
  off_curve[868 + 95] ^= 1;  // IC[0].y
  expect_error(off_curve, "IC[0]");
  auto bad_delta = vk_bytes;
  bad_delta[672] |= 0x80;  // compressed flag on delta_g2
  expect_error(bad_delta, "vk.delta_g2");
}

TEST(BellpersonTest, RejectsMalformedProofs) {
  SeededRandom rng(snarkd::testing::test_seed() + 3);
  auto f = make(20, 25, rng);
  groth16::CpuBackend<E> cpu;
  auto proof = *groth16::prove<E>(f.pk, f.witness, cpu, rng);
  auto enc = encode_proof(proof);
  EXPECT_FALSE(decode_proof(std::span<const uint8_t>(enc).first(191)).ok());
  for (size_t at : {size_t(0), size_t(48), size_t(144)}) {
    auto bad = enc;
    bad[at] &= 0x7f;  // clear the compression flag
    auto r = decode_proof(bad);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(at == 0 ? "A:" : at == 48 ? "B:" : "C:"), std::string::npos)
        << r.status().message();
  }
}

}  // namespace
}  // namespace snarkd::formats
