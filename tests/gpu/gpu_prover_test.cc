// The GPU prover against the CPU prover: for the same r and s the proofs must be identical, on
// both curves and both H conventions, for witnesses that are mostly random, mixed and mostly
// bits, and on circuits whose size is and is not a power of two. Runs on the GPU machine
// (scripts/gpu-check.sh); skips where no GPU is usable.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "ec/bls12_381.h"
#include "ec/bn254.h"
#include "engine/engine.h"
#include "formats/circom.h"
#include "formats/zkey.h"
#include "gpu/probe.h"
#include "gpu_prover/gpu_backend.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "groth16/verifier.h"
#include "r1cs/builder.h"
#include "circuits/chain/chain.h"
#include "groth16/prover_cases.h"
#include "test_util.h"

namespace snarkd::gpu_prover {
namespace {

using poly::QuotientConvention;

template <class T>
class GpuProverTest : public ::testing::Test {
 protected:
  using E = typename T::Engine;
  using F = groth16::Fr<E>;

  std::unique_ptr<groth16::Backend<E>> gpu_backend(GpuBackendOptions o = {}) {
    auto b = make_gpu_backend<E>(o);
    if (!b.ok()) return nullptr;
    return std::move(*b);
  }

  struct Circuit {
    groth16::ProvingKey<E> pk;
    std::vector<F> witness;
  };
  Circuit circuit(uint64_t constraints, unsigned boolean_percent, SeededRandom& rng) {
    auto [cs, w] = circuits::build_chain<F>({constraints, boolean_percent, rng()});
    auto pk = groth16::setup<E>(cs, T::kConvention, rng);
    EXPECT_TRUE(pk.ok()) << pk.status().to_string();
    return {std::move(*pk), std::move(w)};
  }
  // 3000 (x, y = x^2) pairs, every third y checked again: most y are absent from B and A, C
  // has identities, so every query is density-compressed.
  Circuit sparse_circuit(SeededRandom& rng) {
    r1cs::CircuitBuilder<F> cb;
    auto one = r1cs::CircuitBuilder<F>::one();
    cb.alloc_input(F::random(rng));
    for (int i = 0; i < 3000; ++i) {
      const F x = i % 2 ? F::random(rng) : F::from_u64(rng() & 1);
      auto vx = cb.alloc(x);
      auto vy = cb.alloc(x * x);
      cb.enforce({{vx, F::one()}}, {{vx, F::one()}}, {{vy, F::one()}});
      if (i % 3 == 0) cb.enforce({{vy, F::one()}}, {{one, F::one()}}, {{vy, F::one()}});
    }
    auto [cs, w] = cb.finish();
    auto pk = groth16::setup<E>(cs, T::kConvention, rng);
    EXPECT_TRUE(pk.ok()) << pk.status().to_string();
    size_t absent_a = 0;
    for (const auto& p : pk->a_query) absent_a += p.infinity;
    EXPECT_GE(pk->num_variables - pk->b_variables.size(), 3000u) << "the circuit should leave most y out of B";
    EXPECT_GE(absent_a, 1900u);
    return {std::move(*pk), std::move(w)};
  }

  // Both backends, the same r and s: the MSM results and the proof bytes must agree.
  // Returns the GPU proof's timings.
  groth16::StageTimings expect_same_proof(groth16::Backend<E>& gpu, const Circuit& c,
                                          SeededRandom& rng, const std::string& what) {
    groth16::StageTimings timings;
    check_same_proof(gpu, c, rng, what, timings);
    return timings;
  }
  void check_same_proof(groth16::Backend<E>& gpu, const Circuit& c, SeededRandom& rng,
                        const std::string& what, groth16::StageTimings& timings) {
    groth16::CpuBackend<E> cpu;
    auto want = cpu.prove_start(c.pk, c.witness);
    auto got = gpu.prove_start(c.pk, c.witness);
    ASSERT_TRUE(want.ok()) << want.status().to_string();
    ASSERT_TRUE(got.ok()) << what << ": " << got.status().to_string();
    EXPECT_TRUE(got->a.to_affine() == want->a.to_affine()) << what << ": msm.a";
    EXPECT_TRUE(got->b1.to_affine() == want->b1.to_affine()) << what << ": msm.b1";
    EXPECT_TRUE(got->b2.to_affine() == want->b2.to_affine()) << what << ": msm.b2";
    EXPECT_TRUE(got->c.to_affine() == want->c.to_affine()) << what << ": msm.c";
    EXPECT_TRUE(got->h.to_affine() == want->h.to_affine()) << what << ": msm.h";
    timings = got->timings;
    F r = F::random(rng), s = F::random(rng);
    auto p_cpu = groth16::prove_finish(c.pk, *want, r, s);
    auto p_gpu = groth16::prove_finish(c.pk, *got, r, s);
    EXPECT_TRUE(p_cpu == p_gpu) << what << ": proofs differ";
    auto publics = std::span<const F>(c.witness).subspan(1, c.pk.num_public);
    auto ok = groth16::verify<E>(c.pk.vk, publics, p_gpu);
    ASSERT_TRUE(ok.ok());
    EXPECT_TRUE(*ok) << what << ": the GPU proof does not verify";
  }
};

TYPED_TEST_SUITE(GpuProverTest, snarkd::testing::ProverCases);

#define REQUIRE_GPU(backend)                                          \
  if (!(backend)) {                                                   \
    GTEST_SKIP() << "no usable GPU: " << gpu::probe_devices().reason; \
  }

TYPED_TEST(GpuProverTest, ProofsMatchTheCpuProver) {
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed());
  auto gpu = this->gpu_backend();
  REQUIRE_GPU(gpu);
  // 1 constraint, a non-power-of-two size, then powers of two (minus the public rows).
  for (uint64_t constraints : {uint64_t(1), uint64_t(1000), (uint64_t(1) << 14) - 8}) {
    for (unsigned boolean_percent : {0u, 25u, 90u}) {
      auto c = this->circuit(constraints, boolean_percent, rng);
      this->expect_same_proof(*gpu, c, rng,
                              std::to_string(constraints) + " constraints, " +
                                  std::to_string(boolean_percent) + "% boolean");
    }
  }
}

// circom's smallest circuits: one constraint a * b = c with c public (a domain of 4) and with
// no public input at all (a domain of 2). Every slot buffer is then smaller than the arena's
// alignment.
TYPED_TEST(GpuProverTest, TinyDomainsMatch) {
  using F = typename TestFixture::F;
  using E = typename TestFixture::E;
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed() + 7);
  auto gpu = this->gpu_backend();
  REQUIRE_GPU(gpu);
  for (bool public_output : {true, false}) {
    r1cs::CircuitBuilder<F> cb;
    const F a = F::random(rng), b = F::random(rng);
    auto out = public_output ? cb.alloc_input(a * b) : cb.alloc(a * b);
    auto va = cb.alloc(a);
    auto vb = cb.alloc(b);
    cb.enforce({{va, F::one()}}, {{vb, F::one()}}, {{out, F::one()}});
    auto [cs, w] = cb.finish();
    auto pk = groth16::setup<E>(cs, TypeParam::kConvention, rng);
    ASSERT_TRUE(pk.ok()) << pk.status().to_string();
    typename TestFixture::Circuit c{std::move(*pk), std::move(w)};
    EXPECT_LE(c.pk.log_domain_size, 2u);
    this->expect_same_proof(*gpu, c, rng, public_output ? "a * b = c, c public" : "a * b = c, nothing public");
  }
}

// Variables absent from a query (the identity point there) are dropped from the device copy of
// that query, as in Filecoin circuits where three in four variables are absent from B: here every
// y = x * x appears only in C, and a third of them also in A through y * 1 = y.
TYPED_TEST(GpuProverTest, SparseQueriesMatch) {
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed() + 8);
  auto gpu = this->gpu_backend();
  REQUIRE_GPU(gpu);
  auto c = this->sparse_circuit(rng);
  this->expect_same_proof(*gpu, c, rng, "sparse A, B and C queries");
}

TYPED_TEST(GpuProverTest, LargerCircuitsMatch) {
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed() + 1);
  auto gpu = this->gpu_backend();
  REQUIRE_GPU(gpu);
  for (unsigned log_n : {16u, 18u}) {
    auto c = this->circuit((uint64_t(1) << log_n) - 8, 90, rng);
    EXPECT_EQ(c.pk.log_domain_size, log_n);
    this->expect_same_proof(*gpu, c, rng, "2^" + std::to_string(log_n) + ", 90% boolean");
  }
}

// 2^20 constraints (the upper size for byte-identical proofs): one key, witnesses that
// are mostly random, mixed and mostly bits. The chain's circuit shape depends on its boolean
// share, so each witness kind gets its own circuit and key.
TYPED_TEST(GpuProverTest, MillionConstraintCircuitsMatch) {
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed() + 6);
  auto gpu = this->gpu_backend();
  REQUIRE_GPU(gpu);
  for (unsigned boolean_percent : {0u, 50u, 90u}) {
    auto c = this->circuit((uint64_t(1) << 20) - 8, boolean_percent, rng);
    EXPECT_EQ(c.pk.log_domain_size, 20u);
    this->expect_same_proof(*gpu, c, rng,
                            "2^20, " + std::to_string(boolean_percent) + "% boolean");
  }
}

// Shifted copies of the bases (GpuBackendOptions::base_copies): none, two, three, and the
// default (as many as fit, up to kAutoBaseCopies: all of them on the GPU machine for this key);
// then a memory limit that holds two copies of the points but not three.
TYPED_TEST(GpuProverTest, BaseCopiesMatch) {
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed() + 9);
  REQUIRE_GPU(this->gpu_backend());
  auto c0 = this->circuit((uint64_t(1) << 14) - 8, 0, rng);
  auto c90 = this->circuit((uint64_t(1) << 14) - 8, 90, rng);
  for (uint32_t copies : {1u, 2u, 3u, 0u}) {
    GpuBackendOptions o;
    o.base_copies = copies;
    auto gpu = this->gpu_backend(o);
    REQUIRE_GPU(gpu);
    const uint32_t want = copies ? copies : kAutoBaseCopies;
    for (const auto* c : {&c0, &c90}) {
      auto t = this->expect_same_proof(*gpu, *c, rng, std::to_string(copies) + " base copies");
      EXPECT_EQ(t.key_base_copies, want);
      EXPECT_FALSE(t.key_streamed);
    }
  }
  // The points of one copy: A, B1, C and H in G1, B2 in G2, each by its density.
  using E = typename TestFixture::E;
  const auto& pk = c0.pk;
  auto real = [](const auto& query) {
    size_t k = 0;
    for (const auto& p : query) k += !p.infinity;
    return k;
  };
  const size_t g1 = 2 * sizeof(typename E::G1::Field), g2 = 2 * sizeof(typename E::G2::Field);
  const size_t b = pk.b_variables.empty() ? pk.num_variables : pk.b_variables.size();
  const size_t one_copy =
      (real(pk.a_query) + b + real(pk.c_query) + pk.h_query.size()) * g1 + b * g2;
  GpuBackendOptions o;
  o.base_copies = 4;
  o.key_memory_limit = one_copy * 5 / 2;
  auto gpu = this->gpu_backend(o);
  REQUIRE_GPU(gpu);
  auto t = this->expect_same_proof(*gpu, c0, rng, "base copies under a memory limit");
  EXPECT_EQ(t.key_base_copies, 2u);
  EXPECT_FALSE(t.key_streamed);
}

// The resident matrices in both forms: compact (the default; a chain circuit's coefficients
// are few) and CSR; a, b, c from either must give the CPU prover's proof.
TYPED_TEST(GpuProverTest, CompactAndCsrMatricesMatch) {
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed() + 11);
  auto c = this->circuit(3000, 25, rng);
  auto sparse = this->sparse_circuit(rng);
  for (bool compact : {true, false}) {
    GpuBackendOptions o;
    o.compact_matrices = compact;
    auto gpu = this->gpu_backend(o);
    REQUIRE_GPU(gpu);
    for (const auto* circuit : {&c, &sparse}) {
      auto t = this->expect_same_proof(*gpu, *circuit, rng, compact ? "compact matrices" : "CSR matrices");
      EXPECT_STREQ(t.key_matrices, compact ? "compact" : "csr");
    }
  }
}

// MSMs longer than msm_chunk_points run in pieces whose results add up: queries of 3,000 to
// 4,096 points in runs of 1,000 (and of 999, so no run boundary falls on a power of two), the
// compressed queries gathered run by run.
TYPED_TEST(GpuProverTest, MsmsInRunsMatch) {
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed() + 12);
  auto c = this->circuit(3000, 50, rng);
  auto sparse = this->sparse_circuit(rng);
  for (size_t per : {size_t(1000), size_t(999)}) {
    GpuBackendOptions o;
    o.msm_chunk_points = per;
    auto gpu = this->gpu_backend(o);
    REQUIRE_GPU(gpu);
    for (const auto* circuit : {&c, &sparse}) {
      auto t = this->expect_same_proof(*gpu, *circuit, rng, "MSM runs of " + std::to_string(per));
      size_t runs = 0;
      for (const auto& d : t.device) runs += d.stage == "msm.h";
      EXPECT_GE(runs, 3u) << "H's MSM should run in pieces";
    }
  }
}

// device_memory_limit from too small for anything to ample: the key takes the first placement
// that leaves room for a slot (points streamed or resident; a, b, c from the CPU or from
// resident matrices), each at least as preferred as the one before, and every proof is the CPU
// prover's. Then the window in which the points are resident and a, b, c come from the CPU
// (the 80 GB card's tier for a PoRep key without compact matrices): bisect for the smallest
// limit that holds the whole key with CSR matrices; that limit less the matrices' bytes must
// keep the points resident and evaluate on the CPU.
TYPED_TEST(GpuProverTest, PlacementsFollowTheDeviceMemoryLimit) {
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed() + 13);
  auto c = this->circuit((uint64_t(1) << 14) - 8, 25, rng);
  auto placement = [&](size_t limit) {
    GpuBackendOptions o;
    o.device_memory_limit = limit;
    o.compact_matrices = false;
    o.slots = 2;
    auto gpu = this->gpu_backend(o);
    if (!gpu) return -1;
    auto t = this->expect_same_proof(*gpu, c, rng, "device limit " + std::to_string(limit));
    EXPECT_GE(t.active_slots, 1u);
    EXPECT_LE(t.active_slots, 2u);
    return (t.key_streamed ? 0 : 2) + (std::string(t.key_matrices) == "cpu" ? 0 : 1);
  };
  REQUIRE_GPU(this->gpu_backend());
  int last = -1;
  std::set<int> seen;
  for (double limit = double(1 << 20); limit < double(size_t(1) << 29); limit *= 1.25) {
    const int rank = placement(size_t(limit));
    EXPECT_GE(rank, last) << "limit " << size_t(limit);
    last = rank;
    seen.insert(rank);
  }
  EXPECT_TRUE(seen.count(0)) << "a 1 MiB limit should stream the points and evaluate on the CPU";
  const size_t ample = size_t(1) << 34;
  ASSERT_EQ(placement(ample), 3) << "16 GiB should hold the whole key";
  size_t lo = size_t(1) << 20, hi = ample;  // placement(lo) < 3 == placement(hi)
  while (hi - lo > 1024) {
    const size_t mid = lo + (hi - lo) / 2;
    (placement(mid) == 3 ? hi : lo) = mid;
  }
  size_t csr = 0;
  for (const auto* m : {&c.pk.a, &c.pk.b, &*c.pk.c}) {
    csr += m->row_start.size() * sizeof(uint64_t) + m->nonzeros() * (sizeof(uint32_t) + sizeof(m->value[0]));
  }
  EXPECT_EQ(placement(hi - csr), 2) << "the smallest limit holding the key with CSR matrices is " << hi
                                    << "; without their " << csr << " bytes the points should stay resident";
}

TYPED_TEST(GpuProverTest, EvaluationOnTheCpuMatches) {
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed() + 2);
  GpuBackendOptions o;
  o.evaluate_on_device = false;
  auto gpu = this->gpu_backend(o);
  REQUIRE_GPU(gpu);
  auto c = this->circuit(3000, 25, rng);
  auto t = this->expect_same_proof(*gpu, c, rng, "CPU evaluation");
  EXPECT_STREQ(t.key_matrices, "cpu");
}

// A key over the memory limit keeps its points on the host and streams them in chunks.
TYPED_TEST(GpuProverTest, StreamedKeysMatch) {
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed() + 5);
  GpuBackendOptions o;
  o.key_memory_limit = 1;
  // The host memory the backend keeps is reported through the hook and given back with it.
  struct Ledger {
    std::mutex mu;
    int64_t outstanding = 0;
    std::set<std::string> seen;
  };
  auto ledger = std::make_shared<Ledger>();
  o.reserve_host = [ledger](size_t bytes, const std::string& what) -> Result<std::shared_ptr<void>> {
    std::lock_guard lock(ledger->mu);
    ledger->outstanding += int64_t(bytes);
    ledger->seen.insert(what);
    return std::shared_ptr<void>(new int(0), [ledger, bytes](void* p) {
      delete static_cast<int*>(p);
      std::lock_guard lock(ledger->mu);
      ledger->outstanding -= int64_t(bytes);
    });
  };
  auto gpu = this->gpu_backend(o);
  REQUIRE_GPU(gpu);
  for (unsigned boolean_percent : {0u, 90u}) {
    auto c = this->circuit((uint64_t(1) << 14) - 8, boolean_percent, rng);
    auto t = this->expect_same_proof(*gpu, c, rng, "streamed key");
    EXPECT_TRUE(t.key_streamed);
    EXPECT_TRUE(t.key_host_pinned) << "a small key's host copy should get page-locked memory";
    int h_chunks = 0, b2_chunks = 0;
    for (const auto& d : t.device) {
      h_chunks += d.stage == "msm.h";
      b2_chunks += d.stage == "msm.b2";
    }
    EXPECT_EQ(h_chunks, 16) << "2^14 H points in chunks of 1024";
    EXPECT_GT(b2_chunks, 1);
  }
  // Every query compressed (the copies and the gathers of the streamed path).
  auto sparse = this->sparse_circuit(rng);
  EXPECT_TRUE(this->expect_same_proof(*gpu, sparse, rng, "streamed sparse key").key_streamed);
  {
    std::lock_guard lock(ledger->mu);
    EXPECT_EQ(ledger->seen, (std::set<std::string>{"GPU upload staging", "GPU slot staging", "GPU streamed key copy"}));
    // The upload buffers, a slot's staging for the largest witness, and the keys' copies.
    EXPECT_GT(ledger->outstanding,
              int64_t(2 * (size_t(64) << 20) + sparse.pk.num_variables * sizeof(typename TestFixture::F)));
  }
  gpu.reset();
  EXPECT_EQ(ledger->outstanding, 0) << "every handle is given back with the backend";
  // The same circuit with the key resident is not streamed.
  auto resident = this->gpu_backend();
  auto c = this->circuit(3000, 25, rng);
  EXPECT_FALSE(this->expect_same_proof(*resident, c, rng, "resident key").key_streamed);
}

// adopt_key: the backend takes the key over and the host copy's points (and the matrices the
// device evaluates) are freed; proofs stay equal to the CPU prover's with the untouched key.
TYPED_TEST(GpuProverTest, AdoptedKeysProveAsBefore) {
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed() + 11);
  using E = typename TestFixture::E;
  using F = typename TestFixture::F;
  // Resident; streamed; streamed with a, b, c evaluated on the host (the 24 GB card's placement),
  // where the matrices move into the backend in the compact form.
  for (int mode : {0, 1, 2}) {
    const bool streamed = mode > 0, host_evaluation = mode == 2;
    GpuBackendOptions o;
    if (streamed) o.key_memory_limit = 1;
    if (host_evaluation) o.evaluate_on_device = false;
    auto gpu = this->gpu_backend(o);
    REQUIRE_GPU(gpu);
    const std::string what = host_evaluation ? "adopted, streamed, evaluated on the host"
                             : streamed      ? "adopted, streamed"
                                             : "adopted, resident";
    auto c = this->circuit((uint64_t(1) << 14) - 8, 25, rng);
    const groth16::ProvingKey<E> reference = c.pk;  // the CPU prover's copy
    auto held = gpu->adopt_key(c.pk);
    ASSERT_TRUE(held.ok()) << what << ": " << held.status().to_string();
    EXPECT_TRUE(c.pk.adopted);
    EXPECT_TRUE(c.pk.a_query.empty() && c.pk.b1_query.empty() && c.pk.b2_query.empty() && c.pk.c_query.empty() &&
                c.pk.h_query.empty())
        << what << ": the host points should be freed";
    EXPECT_EQ(c.pk.a.nonzeros() + c.pk.b.nonzeros() + c.pk.c->nonzeros(), 0u)
        << what << ": the host key's CSR matrices go (to the device, or to the backend's compact form)";
    if (streamed) {
      // The backend's own host copy: at least the points of A, C and H in the device layout.
      size_t least = (reference.h_query.size() + reference.num_variables) * 2 * sizeof(typename E::G1::Field);
      // And the compact matrices: a u32 column and a u16 coefficient index a nonzero.
      if (host_evaluation) {
        least += (reference.a.nonzeros() + reference.b.nonzeros() + reference.c->nonzeros()) * 6;
      }
      EXPECT_GE(*held, least) << what;
    } else {
      EXPECT_EQ(*held, 0u);
    }
    EXPECT_FALSE(gpu->adopt_key(c.pk).ok()) << "a key is adopted once";
    groth16::CpuBackend<E> cpu;
    for (int round = 0; round < 2; ++round) {
      auto want = cpu.prove_start(reference, c.witness);
      auto got = gpu->prove_start(c.pk, c.witness);
      ASSERT_TRUE(want.ok()) << want.status().to_string();
      ASSERT_TRUE(got.ok()) << what << ": " << got.status().to_string();
      EXPECT_EQ(got->timings.key_streamed, streamed) << what;
      EXPECT_STREQ(got->timings.key_matrices, host_evaluation ? "cpu" : "compact") << what;
      EXPECT_EQ(got->timings.key_upload_ms, 0.0) << what << ": adopted keys are uploaded by adopt_key, not by a proof";
      EXPECT_TRUE(got->a.to_affine() == want->a.to_affine()) << what << ": msm.a";
      EXPECT_TRUE(got->b1.to_affine() == want->b1.to_affine()) << what << ": msm.b1";
      EXPECT_TRUE(got->b2.to_affine() == want->b2.to_affine()) << what << ": msm.b2";
      EXPECT_TRUE(got->c.to_affine() == want->c.to_affine()) << what << ": msm.c";
      EXPECT_TRUE(got->h.to_affine() == want->h.to_affine()) << what << ": msm.h";
      const F r = F::random(rng), s = F::random(rng);
      auto p_gpu = groth16::prove_finish(c.pk, *got, r, s);
      EXPECT_TRUE(p_gpu == groth16::prove_finish(reference, *want, r, s)) << what << ": proofs differ";
      auto ok = groth16::verify<E>(c.pk.vk, std::span<const F>(c.witness).subspan(1, c.pk.num_public), p_gpu);
      ASSERT_TRUE(ok.ok());
      EXPECT_TRUE(*ok) << what;
    }
    // A second key beside it proves, and the adopted one stays in place.
    auto other = this->circuit(3000, 50, rng);
    this->expect_same_proof(*gpu, other, rng, what + ": a second key beside it");
    EXPECT_TRUE(gpu->prove_start(c.pk, c.witness).ok()) << what;
    gpu->forget_key(c.pk);
    auto gone = gpu->prove_start(c.pk, c.witness);
    ASSERT_FALSE(gone.ok());
    EXPECT_EQ(gone.status().code(), StatusCode::kFailedPrecondition) << gone.status().to_string();
  }
}

TYPED_TEST(GpuProverTest, RejectsAWitnessThatDoesNotSatisfyTheCircuit) {
  SeededRandom rng(snarkd::testing::test_seed() + 3);
  auto c = this->circuit(500, 25, rng);
  auto bad = c.witness;
  bad.back() += TestFixture::F::one();
  // The first row the bad witness breaks, row by row from the host key.
  size_t first = 0;
  while (first < c.pk.a.rows() &&
         c.pk.a.row_dot(first, bad) * c.pk.b.row_dot(first, bad) == c.pk.c->row_dot(first, bad)) {
    ++first;
  }
  ASSERT_LT(first, c.pk.a.rows());
  // a, b, c evaluated on the device, and on the host before the slot is taken.
  for (bool on_device : {true, false}) {
    GpuBackendOptions o;
    o.evaluate_on_device = on_device;
    auto gpu = this->gpu_backend(o);
    REQUIRE_GPU(gpu);
    auto r = gpu->prove_start(c.pk, bad);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("does not satisfy constraint " + std::to_string(first)), std::string::npos)
        << (on_device ? "device: " : "host: ") << r.status().to_string();
    auto short_witness = std::vector<typename TestFixture::F>(c.witness.begin(), c.witness.end() - 1);
    EXPECT_FALSE(gpu->prove_start(c.pk, short_witness).ok());
    // The slot (and the host buffers) are usable again after the errors.
    this->expect_same_proof(*gpu, c, rng, "after a rejected witness");
  }
}

TYPED_TEST(GpuProverTest, SlotsServeSeveralThreadsAndTimeHonestly) {
  using E = typename TestFixture::E;
  using F = typename TestFixture::F;
  SeededRandom rng(snarkd::testing::test_seed() + 4);
  GpuBackendOptions o;
  o.slots = 2;
  auto gpu = this->gpu_backend(o);
  REQUIRE_GPU(gpu);
  auto c = this->circuit(1u << 12, 50, rng);
  groth16::CpuBackend<E> cpu;
  auto want = *cpu.prove_start(c.pk, c.witness);
  const F r = F::random(rng), s = F::random(rng);
  const auto want_proof = groth16::prove_finish(c.pk, want, r, s);
  std::vector<groth16::StageTimings> timings(8);
  std::vector<int> same(8, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      auto p = gpu->prove_start(c.pk, c.witness);
      if (!p.ok()) return;
      same[t] = groth16::prove_finish(c.pk, *p, r, s) == want_proof;
      timings[t] = p->timings;
    });
  }
  for (auto& th : threads) th.join();
  int uploads = 0;
  for (int t = 0; t < 8; ++t) {
    EXPECT_TRUE(same[t]) << "thread " << t;
    const auto& tm = timings[t];
    uploads += tm.key_upload_ms > 0;
    ASSERT_FALSE(tm.device.empty());
    for (const auto& d : tm.device) {
      EXPECT_GE(d.ms(), 0.0) << d.stage;
      EXPECT_GE(d.start_ms, 0.0) << d.stage;
    }
    // Kernel time is measured on the device and can never exceed the wall time the slot was held.
    EXPECT_LE(tm.kernel_busy_ms(), tm.slot_held_ms + 0.05);
    EXPECT_GT(tm.kernel_busy_ms(), 0.0);
    bool has_h = false;
    for (const auto& d : tm.device) has_h |= d.stage == "msm.h";
    EXPECT_TRUE(has_h);
  }
  EXPECT_EQ(uploads, 1) << "the key must be uploaded once and then stay resident";
}

// The engine on the GPU backend with a .zkey (no C matrix) and a witness that does not satisfy
// it: the proof fails verification, the CPU reference prover proves it again, and only because
// that proof fails too is the witness blamed (INVALID_ARGUMENT, not retried). A good witness
// still proves.
TEST(GpuEngineTest, AnUnsatisfiedWitnessIsBlamedOnlyAfterTheCpuProverAgrees) {
  if (!gpu::probe_devices().usable()) GTEST_SKIP() << "no usable GPU: " << gpu::probe_devices().reason;
  using E = ec::bn254::Engine;
  using F = groth16::Fr<E>;
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed());
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("snarkd_gpu_engine_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto [cs, w] = circuits::build_chain<F>({3000, 30, rng()});
  auto pk = groth16::setup<E>(cs, QuotientConvention::kSnarkjsOddCoset, rng);
  ASSERT_TRUE(pk.ok());
  ASSERT_TRUE(formats::write_zkey<E>(*pk, (dir / "k.zkey").string()).ok());
  auto bad = w;
  bad[w.size() - 3] += F::one();
  ASSERT_TRUE(formats::write_wtns<F>(w, (dir / "w.wtns").string()).ok());
  ASSERT_TRUE(formats::write_wtns<F>(bad, (dir / "bad.wtns").string()).ok());
  auto read = [](const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  };
  engine::EngineOptions o;
  o.backend = engine::BackendKind::kGpu;
  o.memory_budget = size_t(4) << 30;
  o.max_retries = 2;
  auto e = engine::Engine::create(o);
  ASSERT_TRUE(e.ok()) << e.status().to_string();
  auto key = (*e)->register_key((dir / "k.zkey").string());
  ASSERT_TRUE(key.ok()) << key.status().to_string();
  engine::ProofRequest req;
  req.key_id = key->id;
  req.witness = read(dir / "bad.wtns");
  auto r = (*e)->await(*(*e)->submit(req), std::chrono::seconds(120));
  ASSERT_TRUE(r.ok()) << r.status().to_string();
  EXPECT_EQ(r->state, engine::JobState::kFailed);
  EXPECT_EQ(r->error.code(), StatusCode::kInvalidArgument) << r->error.to_string();
  EXPECT_NE(r->error.message().find("CPU reference prover"), std::string::npos) << r->error.message();
  EXPECT_EQ(r->retries, 0u);
  req.witness = read(dir / "w.wtns");
  auto ok = (*e)->await(*(*e)->submit(req), std::chrono::seconds(120));
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->state, engine::JobState::kCompleted) << ok->error.to_string();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace snarkd::gpu_prover
