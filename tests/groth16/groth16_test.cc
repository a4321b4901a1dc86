// Setup, prove and verify on the built-in circuits, both curves and both quotient conventions,
// each positive check with its negative twin.
#include <gtest/gtest.h>

#include "ec/bls12_381.h"
#include "ec/bn254.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "groth16/synthetic_key.h"
#include "groth16/verifier.h"
#include "circuits/chain/chain.h"
#include "circuits/partition/partition.h"
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
    auto [cs, w] = circuits::build_chain<F>({n, 30, rng()});
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
  auto [cs, w] = circuits::build_partition<F>({200, 25, 90, rng()});
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
  EXPECT_EQ(synth->c_query.size(), real->c_query.size());
  EXPECT_EQ(synth->h_query.size(), real->h_query.size());
  for (size_t i = 0; i < synth->a_query.size(); ++i) {
    EXPECT_EQ(synth->a_query[i].is_identity(), real->a_query[i].is_identity()) << "A, variable " << i;
  }
  // B by density in both: the variables with a nonzero B coefficient, found here from the
  // constraint system itself, each with a real point.
  std::vector<uint32_t> used_in_b;
  for (uint32_t j = 0; j < cs.num_variables; ++j) {
    bool used = false;
    for (size_t k = 0; k < cs.b.column.size(); ++k) used |= cs.b.column[k] == j && !cs.b.value[k].is_zero();
    if (used) used_in_b.push_back(j);
  }
  EXPECT_EQ(real->b_variables, used_in_b);
  EXPECT_EQ(synth->b_variables, used_in_b);
  ASSERT_EQ(real->b1_query.size(), used_in_b.size());
  ASSERT_EQ(real->b2_query.size(), used_in_b.size());
  ASSERT_EQ(synth->b1_query.size(), used_in_b.size());
  ASSERT_EQ(synth->b2_query.size(), used_in_b.size());
  for (size_t k = 0; k < used_in_b.size(); ++k) {
    EXPECT_FALSE(real->b1_query[k].is_identity() || real->b2_query[k].is_identity()) << "B, entry " << k;
    EXPECT_FALSE(synth->b1_query[k].is_identity() || synth->b2_query[k].is_identity()) << "B, entry " << k;
  }
  EXPECT_GT(used_in_b.size(), 1u);
  EXPECT_LT(used_in_b.size(), real->a_query.size() / 2);  // about a quarter of the variables, and the constant
  auto synthetic_proof = prove<E>(*synth, w, backend, rng);
  ASSERT_TRUE(synthetic_proof.ok()) << synthetic_proof.status().to_string();
  EXPECT_FALSE(*verify<E>(synth->vk, publics, *synthetic_proof));
}

// The synthetic key's points: the k-th kept entry is P + kQ, across the fill's chunk boundaries
// (a 3-thread pool splits the entries into 12 chunks) and its rows of 2048 lanes (chunks of
// 2,500 and 5,000 kept entries take a second and third row, the last one partial), and every
// other entry is the identity. The expected points come from one Jacobian chain of full
// additions, normalized together.
template <class C, class F>
void check_progression(size_t count, std::initializer_list<unsigned> keep_percents, uint64_t seed) {
  SeededRandom rng(seed);
  ThreadPool pool(3);
  const auto p = ec::mul_vartime(C::generator(), F::random(rng).to_canonical());
  const auto q = ec::mul_vartime(C::generator(), F::random(rng).to_canonical());
  for (unsigned keep_percent : keep_percents) {
    std::vector<uint8_t> keep(count);
    for (auto& k : keep) k = rng() % 100 < keep_percent;
    std::vector<ec::Affine<C>> out(keep.size());
    fill_progression<C>(out, keep_percent == 100 ? std::vector<uint8_t>{} : keep, p, q, pool);
    std::vector<ec::Jacobian<C>> chain;
    auto expected = p;
    for (size_t i = 0; i < count; ++i) {
      if (keep_percent == 100 || keep[i]) {
        chain.push_back(expected);
        expected = expected.add(q);
      }
    }
    std::vector<ec::Affine<C>> want(chain.size());
    ec::batch_to_affine<C>(chain, std::span<ec::Affine<C>>(want));
    size_t k = 0, wrong = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      if (keep_percent != 100 && !keep[i]) {
        if (!out[i].is_identity()) ++wrong;
        continue;
      }
      const auto& w = want[k++];
      if (out[i].is_identity() || !(out[i].x == w.x && out[i].y == w.y)) {
        if (wrong++ == 0) ADD_FAILURE() << count << " entries, " << keep_percent << "% kept: first wrong entry " << i;
      }
    }
    EXPECT_EQ(wrong, 0u) << count << " entries, " << keep_percent << "% kept";
    EXPECT_EQ(k, chain.size());
  }
}

// The row addition against the Jacobian one, including the cases its shared inversion cannot
// take: a point equal to the one added (a doubling), its negation (the identity) and the identity.
TYPED_TEST(Groth16Test, RowAdditionMatchesJacobianAddition) {
  using E = typename TypeParam::Engine;
  using G1 = typename E::G1;
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed() + 12);
  auto random_point = [&] { return ec::mul_vartime(G1::generator(), Fr<E>::random(rng).to_canonical()).to_affine(); };
  const ec::Affine<G1> m = random_point();
  std::vector<ec::Affine<G1>> row;
  for (int i = 0; i < 50; ++i) row.push_back(random_point());
  row[7] = m;
  row[20] = m.neg();
  row[33] = ec::Affine<G1>::identity();
  const auto before = row;
  std::vector<typename G1::Field> scratch;
  add_to_each<G1>(std::span<ec::Affine<G1>>(row), m, scratch);
  for (size_t i = 0; i < row.size(); ++i) {
    EXPECT_EQ(row[i], ec::Jacobian<G1>::from_affine(before[i]).add(ec::Jacobian<G1>::from_affine(m)).to_affine())
        << "point " << i;
  }
  EXPECT_TRUE(row[20].is_identity());
}

TYPED_TEST(Groth16Test, SyntheticProgressionFillsKeptEntriesInOrder) {
  using E = typename TypeParam::Engine;
  SNARKD_SEED_TRACE();
  const uint64_t seed = snarkd::testing::test_seed() + 11;
  check_progression<typename E::G1, Fr<E>>(1000, {100u, 30u, 0u}, seed);
  check_progression<typename E::G1, Fr<E>>(60000, {100u, 60u}, seed + 1);
  check_progression<typename E::G2, Fr<E>>(30000, {100u}, seed + 2);
}

TYPED_TEST(Groth16Test, FixedRandomnessIsDeterministic) {
  using E = typename TypeParam::Engine;
  using F = Fr<E>;
  SeededRandom rng(snarkd::testing::test_seed() + 1);
  auto [cs, w] = circuits::build_chain<F>({40, 50, 9});
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
  auto [cs, w] = circuits::build_chain<F>({20, 0, 5});
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

// The CPU backend proves from the host key: it declines adopt_key and leaves the key whole; a key
// whose host copy another backend took (pk.adopted, vectors empty) is refused by name, never
// proved from empty queries.
TYPED_TEST(Groth16Test, CpuBackendDeclinesAdoptionAndRefusesAdoptedKeys) {
  using E = typename TypeParam::Engine;
  using F = Fr<E>;
  SeededRandom rng(snarkd::testing::test_seed() + 3);
  auto [cs, w] = circuits::build_chain<F>({20, 0, 5});
  auto pk = *setup<E>(cs, TypeParam::kConvention, rng);
  CpuBackend<E> backend;
  auto declined = backend.adopt_key(pk);
  ASSERT_FALSE(declined.ok());
  EXPECT_EQ(declined.status().code(), StatusCode::kUnimplemented);
  EXPECT_FALSE(pk.adopted);
  EXPECT_EQ(pk.a_query.size(), pk.num_variables);
  ASSERT_TRUE(prove<E>(pk, w, backend, rng).ok());
  // What a GPU backend's adopt_key leaves behind.
  pk.adopted = true;
  pk.a_query.clear();
  pk.h_query.clear();
  auto refused = prove<E>(pk, w, backend, rng);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("A query has 0 points"), std::string::npos) << refused.status().message();
}

// B is kept by density: a key whose list the prover could not index with is refused by name,
// and the full-length helpers (for zkeys) invert each other.
TYPED_TEST(Groth16Test, BDensityListIsCheckedAndInvertible) {
  using E = typename TypeParam::Engine;
  using F = Fr<E>;
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed() + 3);
  auto [cs, w] = circuits::build_partition<F>({120, 10, 80, rng()});
  auto pk = *setup<E>(cs, TypeParam::kConvention, rng);
  ASSERT_GE(pk.b_variables.size(), 3u);
  ASSERT_LT(pk.b_variables.size(), pk.num_variables);
  CpuBackend<E> backend;
  auto expect_refused = [&](const ProvingKey<E>& key, const char* what) {
    auto r = prove<E>(key, w, backend, rng);
    ASSERT_FALSE(r.ok()) << what;
    EXPECT_NE(r.status().message().find(what), std::string::npos) << r.status().message();
  };
  auto k1 = pk;
  std::swap(k1.b_variables[1], k1.b_variables[2]);
  expect_refused(k1, "B variable list is not strictly ascending");
  auto k2 = pk;
  k2.b_variables.back() = pk.num_variables;
  expect_refused(k2, "B variable list is not strictly ascending below");
  auto k3 = pk;
  k3.b2_query.pop_back();
  expect_refused(k3, "B queries have");

  // Full length and back: identities exactly where a variable is not listed.
  using G1 = typename E::G1;
  using G2 = typename E::G2;
  auto full1 = expand_by_density<G1>(pk.b1_query, pk.b_variables, pk.num_variables);
  auto full2 = expand_by_density<G2>(pk.b2_query, pk.b_variables, pk.num_variables);
  ASSERT_EQ(full1.size(), pk.num_variables);
  size_t listed = 0;
  for (uint32_t j = 0; j < pk.num_variables; ++j) {
    const bool in_list = listed < pk.b_variables.size() && pk.b_variables[listed] == j;
    EXPECT_EQ(full1[j].is_identity(), !in_list) << "variable " << j;
    EXPECT_EQ(full2[j].is_identity(), !in_list) << "variable " << j;
    if (in_list) {
      EXPECT_TRUE(full1[j] == pk.b1_query[listed]);
      EXPECT_TRUE(full2[j] == pk.b2_query[listed]);
      ++listed;
    }
  }
  ProvingKey<E> back = pk;
  // A variable with a point in only one of the groups stays listed.
  const uint32_t lone = pk.b_variables[1];
  full2[lone] = G2Affine<E>::identity();
  set_b_from_full<E>(back, full1, full2);
  EXPECT_EQ(back.b_variables, pk.b_variables);
  EXPECT_TRUE(back.b1_query == pk.b1_query);
  EXPECT_TRUE(back.b2_query[1].is_identity());
  full1[lone] = G1Affine<E>::identity();
  set_b_from_full<E>(back, full1, full2);
  EXPECT_EQ(back.b_variables.size(), pk.b_variables.size() - 1);
  EXPECT_TRUE(std::find(back.b_variables.begin(), back.b_variables.end(), lone) == back.b_variables.end());
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
