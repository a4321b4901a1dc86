// Setup, prove and verify on the built-in circuits, both curves and both quotient conventions,
// each positive check with its negative twin.
#include <gtest/gtest.h>

#include "ec/bls12_381.h"
#include "ec/bn254.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "groth16/synthetic_key.h"
#include "groth16/verifier.h"
#include "r1cs/builtin.h"
#include "groth16/prover_cases.h"
#include "test_util.h"

namespace snarkd::groth16 {
namespace {

using poly::QuotientConvention;

template <class T>
class Groth16Test : public ::testing::Test {};
TYPED_TEST_SUITE(Groth16Test, snarkd::testing::ProverCases);

TYPED_TEST(Groth16Test, ProveAndVerifyBuiltinChains) {
  using E = typename TypeParam::Engine;
  using F = Fr<E>;
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed());
  CpuBackend<E> backend;
  for (uint64_t n : {2u, 5u, 64u, 300u}) {
    auto [cs, w] = r1cs::build_chain<F>({n, 30, rng()});
    auto pk = setup<E>(cs, TypeParam::kConvention, rng);
    ASSERT_TRUE(pk.ok()) << pk.status().to_string();
    std::span<const F> publics = std::span<const F>(w).subspan(1, cs.num_public);
    StageTimings timings;
    auto proof = prove<E>(*pk, w, backend, rng, &timings);
    ASSERT_TRUE(proof.ok()) << proof.status().to_string();
    EXPECT_TRUE(*verify<E>(pk->vk, publics, *proof)) << "n = " << n;
    EXPECT_GE(timings.total_ms(), 0.0);

    // Negative twins: a wrong public input, a tampered proof, a proof for another statement.
    std::vector<F> wrong(publics.begin(), publics.end());
    wrong[0] += F::one();
    EXPECT_FALSE(*verify<E>(pk->vk, wrong, *proof));
    auto bad = *proof;
    bad.a = ec::Jacobian<typename E::G1>::from_affine(bad.a).dbl().to_affine();
    EXPECT_FALSE(*verify<E>(pk->vk, publics, bad));
    bad = *proof;
    std::swap(bad.a, bad.c);
    EXPECT_FALSE(*verify<E>(pk->vk, publics, bad));
    EXPECT_FALSE(verify<E>(pk->vk, std::span<const F>(wrong).first(1), *proof).ok());
  }
}

// The partition shape (r1cs/builtin.h) is a valid circuit: a real key proves and verifies. A
// synthetic key of it has the identity exactly where the real key has it in the A and B queries
// (what density compression and the MSM sizes see), and its proofs, made by every stage of the
// prover, do not verify.
TYPED_TEST(Groth16Test, PartitionShapeAndSyntheticKeys) {
  using E = typename TypeParam::Engine;
  using F = Fr<E>;
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed() + 7);
  auto [cs, w] = r1cs::build_partition<F>({200, 25, 90, rng()});
  std::span<const F> publics = std::span<const F>(w).subspan(1, cs.num_public);
  auto real = setup<E>(cs, TypeParam::kConvention, rng);
  ASSERT_TRUE(real.ok()) << real.status().to_string();
  CpuBackend<E> backend;
  auto proof = prove<E>(*real, w, backend, rng);
  ASSERT_TRUE(proof.ok()) << proof.status().to_string();
  EXPECT_TRUE(*verify<E>(real->vk, publics, *proof));

  auto synth = synthetic_key<E>(cs, TypeParam::kConvention, rng);
  ASSERT_TRUE(synth.ok()) << synth.status().to_string();
  ASSERT_EQ(synth->a_query.size(), real->a_query.size());
  ASSERT_EQ(synth->b1_query.size(), real->b1_query.size());
  ASSERT_EQ(synth->b2_query.size(), real->b2_query.size());
  EXPECT_EQ(synth->c_query.size(), real->c_query.size());
  EXPECT_EQ(synth->h_query.size(), real->h_query.size());
  size_t in_b = 0;
  for (size_t i = 0; i < synth->a_query.size(); ++i) {
    EXPECT_EQ(synth->a_query[i].is_identity(), real->a_query[i].is_identity()) << "A, variable " << i;
    EXPECT_EQ(synth->b1_query[i].is_identity(), real->b1_query[i].is_identity()) << "B1, variable " << i;
    EXPECT_EQ(synth->b2_query[i].is_identity(), real->b2_query[i].is_identity()) << "B2, variable " << i;
    in_b += !synth->b1_query[i].is_identity();
  }
  EXPECT_GT(in_b, 1u);
  EXPECT_LT(in_b, synth->b1_query.size() / 2);  // about a quarter of the variables, and the constant
  auto synthetic_proof = prove<E>(*synth, w, backend, rng);
  ASSERT_TRUE(synthetic_proof.ok()) << synthetic_proof.status().to_string();
  EXPECT_FALSE(*verify<E>(synth->vk, publics, *synthetic_proof));
}

// The synthetic key's points: the k-th kept entry is P + kQ, across the fill's chunk boundaries
// (a 3-thread pool splits 1000 entries into 12 chunks), and every other entry is the identity.
TYPED_TEST(Groth16Test, SyntheticProgressionFillsKeptEntriesInOrder) {
  using E = typename TypeParam::Engine;
  using G1 = typename E::G1;
  using F = Fr<E>;
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed() + 11);
  ThreadPool pool(3);
  const auto p = ec::mul_vartime(G1::generator(), F::random(rng).to_canonical());
  const auto q = ec::mul_vartime(G1::generator(), F::random(rng).to_canonical());
  for (unsigned keep_percent : {100u, 30u, 0u}) {
    std::vector<uint8_t> keep(1000);
    for (auto& k : keep) k = rng() % 100 < keep_percent;
    std::vector<ec::Affine<G1>> out(keep.size());
    fill_progression<G1>(out, keep_percent == 100 ? std::vector<uint8_t>{} : keep, p, q, pool);
    auto expected = p;
    for (size_t i = 0; i < out.size(); ++i) {
      if (keep_percent != 100 && !keep[i]) {
        EXPECT_TRUE(out[i].is_identity()) << "entry " << i;
        continue;
      }
      const auto want = expected.to_affine();
      EXPECT_TRUE(!out[i].is_identity() && out[i].x == want.x && out[i].y == want.y)
          << keep_percent << "% kept, entry " << i;
      expected = expected.add(q);
    }
  }
}

TYPED_TEST(Groth16Test, FixedRandomnessIsDeterministic) {
  using E = typename TypeParam::Engine;
  using F = Fr<E>;
  SeededRandom rng(snarkd::testing::test_seed() + 1);
  auto [cs, w] = r1cs::build_chain<F>({40, 50, 9});
  auto pk = *setup<E>(cs, TypeParam::kConvention, rng);
  CpuBackend<E> backend;
  F r = F::random(rng), s = F::random(rng);
  auto p1 = *backend.prove_start(pk, w);
  auto p2 = *backend.prove_start(pk, w);
  auto proof1 = prove_finish(pk, p1, r, s);
  auto proof2 = prove_finish(pk, p2, r, s);
  EXPECT_TRUE(proof1 == proof2);
  auto proof3 = prove_finish(pk, p2, r + F::one(), s);
  EXPECT_FALSE(proof1 == proof3);
  std::span<const F> publics = std::span<const F>(w).subspan(1, cs.num_public);
  EXPECT_TRUE(*verify<E>(pk.vk, publics, proof3));
}

TYPED_TEST(Groth16Test, RejectsBadWitnesses) {
  using E = typename TypeParam::Engine;
  using F = Fr<E>;
  SeededRandom rng(snarkd::testing::test_seed() + 2);
  auto [cs, w] = r1cs::build_chain<F>({20, 0, 5});
  auto pk = *setup<E>(cs, TypeParam::kConvention, rng);
  CpuBackend<E> backend;
  auto short_w = std::vector<F>(w.begin(), w.end() - 1);
  auto r1 = prove<E>(pk, short_w, backend, rng);
  ASSERT_FALSE(r1.ok());
  EXPECT_NE(r1.status().message().find("witness has"), std::string::npos);
  auto bad = w;
  bad[5] += F::one();
  auto r2 = prove<E>(pk, bad, backend, rng);
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.status().message().find("does not satisfy constraint"), std::string::npos);
  bad = w;
  bad[0] = F::zero();
  EXPECT_FALSE(prove<E>(pk, bad, backend, rng).ok());
}

}  // namespace
}  // namespace snarkd::groth16

namespace snarkd::groth16 {
namespace {

// union_ms (kernel-busy) against a brute-force sweep over every elementary segment.
TEST(StageTimingsTest, KernelBusyIsTheUnionOfIntervals) {
  std::mt19937_64 rng(snarkd::testing::test_seed());
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<DeviceInterval> v(rng() % 12);
    std::vector<double> points;
    for (auto& d : v) {
      d.start_ms = double(rng() % 1000) / 10;
      d.end_ms = d.start_ms + double(rng() % 300) / 10;
      points.push_back(d.start_ms);
      points.push_back(d.end_ms);
    }
    std::sort(points.begin(), points.end());
    double want = 0;
    for (size_t i = 0; i + 1 < points.size(); ++i) {
      double mid = (points[i] + points[i + 1]) / 2;
      bool covered = false;
      for (const auto& d : v) covered = covered || (d.start_ms <= mid && mid < d.end_ms);
      if (covered) want += points[i + 1] - points[i];
    }
    StageTimings t;
    t.device = v;
    EXPECT_NEAR(t.kernel_busy_ms(), want, 1e-9);
    double sum = 0;
    for (const auto& d : v) sum += d.ms();
    EXPECT_LE(t.kernel_busy_ms(), sum + 1e-9);
  }
}

}  // namespace
}  // namespace snarkd::groth16
