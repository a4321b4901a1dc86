// The chain and partition families' fast builders: against the general-purpose CircuitBuilder
// and the constraint-system API (the shape mode's path), satisfied, sensitive, deterministic.
#include <gtest/gtest.h>

#include "circuits/chain/chain.h"
#include "circuits/partition/partition.h"
#include "ff/bls12_381.h"
#include "ff/bn254.h"
#include "r1cs/builder.h"
#include "test_util.h"

namespace snarkd::circuits {
namespace {

using r1cs::CircuitBuilder;
using r1cs::Variable;
using r1cs::SparseMatrix;
using r1cs::ConstraintSystem;
using r1cs::check_satisfied;
using Fr = ff::bn254::Fr;

template <class F>
class ChainTest : public ::testing::Test {};
using Fields = ::testing::Types<ff::bls12_381::Fr, ff::bn254::Fr>;
TYPED_TEST_SUITE(ChainTest, Fields);

TYPED_TEST(ChainTest, SatisfiedAndSensitive) {
  using F = TypeParam;
  SNARKD_SEED_TRACE();
  auto rng = snarkd::testing::make_rng();
  for (uint64_t n : {1u, 2u, 3u, 10u, 100u, 1000u}) {
    for (unsigned pct : {0u, 25u, 90u}) {
      ChainParams p{n, pct, rng()};
      auto [cs, w] = build_chain<F>(p);
      EXPECT_EQ(cs.num_constraints(), std::max<uint64_t>(n, 2));
      EXPECT_EQ(cs.num_public, 2u);
      ASSERT_TRUE(cs.validate().ok());
      ASSERT_TRUE(check_satisfied(cs, std::span<const F>(w)).ok()) << "n=" << n << " pct=" << pct;
      // Flip one private value: some constraint must fail, and it is named.
      size_t victim = 3 + rng() % (w.size() - 3 > 0 ? w.size() - 3 : 1);
      if (victim >= w.size()) victim = w.size() - 1;
      w[victim] += F::one();
      auto st = check_satisfied(cs, std::span<const F>(w));
      EXPECT_FALSE(st.ok());
      EXPECT_NE(st.message().find("constraint "), std::string::npos);
      // Same parameters, same circuit.
      auto again = build_chain<F>(p);
      EXPECT_EQ(again.first.a.column, cs.a.column);
    }
  }
  // A share of the witness is boolean.
  auto [cs, w] = build_chain<F>({1000, 50, 7});
  size_t bits = 0;
  for (const auto& v : w) bits += (v.is_zero() || v.is_one()) ? 1 : 0;
  EXPECT_GT(bits, 300u);
}

// The chain as the general-purpose CircuitBuilder states it: the reference for build_chain, which
// writes the same rows straight into CSR.
template <class F>
std::pair<ConstraintSystem<F>, std::vector<F>> chain_by_builder(const ChainParams& p) {
  CircuitBuilder<F> cb;
  using B = CircuitBuilder<F>;
  const auto v = detail::chain_values<F>(p);
  Variable out = cb.alloc_input(v.out);
  Variable cur = cb.alloc_input(v.xs[0]);
  size_t step = 0;
  std::vector<Variable> bit_vars;
  for (uint64_t i = 0; i < v.is_bool.size(); ++i) {
    if (v.is_bool[i]) {
      Variable b = cb.alloc(v.bits[i]);
      cb.enforce({{b, F::one()}}, {{b, F::one()}, {B::one(), -F::one()}}, {});
      bit_vars.push_back(b);
      continue;
    }
    ++step;
    Variable next = i + 1 == v.is_bool.size() ? out : cb.alloc(v.xs[step]);
    typename B::Lc rhs = {{next, F::one()}, {B::one(), -v.consts[i]}};
    for (auto b : bit_vars) rhs.push_back({b, -F::one()});
    bit_vars.clear();
    cb.enforce({{cur, F::one()}}, {{cur, F::one()}}, rhs);
    cur = next;
  }
  return cb.finish();
}

template <class F>
void expect_same_matrix(const SparseMatrix<F>& got, const SparseMatrix<F>& want, const char* name) {
  EXPECT_EQ(got.row_start, want.row_start) << name;
  EXPECT_EQ(got.column, want.column) << name;
  EXPECT_TRUE(got.value == want.value) << name;
}

TYPED_TEST(ChainTest, DirectCsrEqualsTheBuilder) {
  using F = TypeParam;
  SNARKD_SEED_TRACE();
  auto rng = snarkd::testing::make_rng();
  ThreadPool pool(3);  // several fill chunks even for small circuits
  for (uint64_t n : {1u, 2u, 3u, 17u, 1000u, 20000u}) {
    for (unsigned pct : {0u, 30u, 90u, 100u}) {
      ChainParams p{n, pct, rng()};
      auto [cs, w] = build_chain<F>(p, pool);
      auto [want_cs, want_w] = chain_by_builder<F>(p);
      EXPECT_EQ(cs.num_public, want_cs.num_public);
      EXPECT_EQ(cs.num_variables, want_cs.num_variables);
      expect_same_matrix(cs.a, want_cs.a, "A");
      expect_same_matrix(cs.b, want_cs.b, "B");
      expect_same_matrix(cs.c, want_cs.c, "C");
      EXPECT_TRUE(w == want_w) << "witness, n=" << n << " pct=" << pct;
    }
  }
}

TYPED_TEST(ChainTest, MultiplyMatchesRowDot) {
  using F = TypeParam;
  auto [cs, w] = build_chain<F>({5000, 30, 3});
  std::vector<F> a(cs.num_constraints() + 5, F::one());
  cs.a.multiply(std::span<const F>(w), std::span<F>(a), ThreadPool::global());
  for (size_t i = 0; i < cs.num_constraints(); i += 97) EXPECT_EQ(a[i], cs.a.row_dot(i, w));
  EXPECT_EQ(a.back(), F::one());  // the tail is left alone
}


// The witness-only synthesis of the chain equals the builder's witness, variable for variable,
// and satisfies the circuit; its shape does not depend on which nonzero input seed is used.
TEST(ChainWitnessTest, MatchesTheBuilderAndKeepsTheShape) {
  using F = ff::bn254::Fr;
  for (uint64_t constraints : {uint64_t(1), uint64_t(2), uint64_t(3), uint64_t(100), uint64_t(1000)}) {
    for (unsigned bp : {0u, 50u, 100u}) {
      for (uint64_t input_seed : {uint64_t(0), uint64_t(7), uint64_t(8)}) {
        ChainParams p{constraints, bp, 11, input_seed};
        auto [cs, w] = build_chain<F>(p);
        EXPECT_EQ(chain_witness<F>(p), w) << constraints << " " << bp << " " << input_seed;
        EXPECT_TRUE(check_satisfied<F>(cs, w).ok()) << constraints << " " << bp << " " << input_seed;
        if (input_seed == 8) {
          auto [cs7, w7] = build_chain<F>({constraints, bp, 11, 7});
          EXPECT_TRUE(check_satisfied<F>(cs, w7).ok()) << "the witness of input seed 7 fits the circuit of 8";
          if (constraints >= 100) {
            EXPECT_NE(w7, w);
          }
        }
      }
    }
  }
}

template <class F>
class PartitionTest : public ::testing::Test {};
TYPED_TEST_SUITE(PartitionTest, Fields);

// The partition shape: satisfied, every private variable in A and C, B holding exactly the
// checked bits (and the constant), the requested shares within sampling error, a wrong bit
// caught, and the same result whatever the thread count.
TYPED_TEST(PartitionTest, ShapeSatisfiedAndDeterministic) {
  using F = TypeParam;
  SNARKD_SEED_TRACE();
  auto rng = snarkd::testing::make_rng();
  ThreadPool one_thread(1);
  struct Shares {
    unsigned b, boolean;
  };
  for (uint64_t n : {uint64_t(1), uint64_t(2), uint64_t(10), uint64_t(20000)}) {
    for (Shares sh : {Shares{25, 90}, Shares{0, 100}, Shares{100, 0}, Shares{50, 50}}) {
      PartitionParams p{n, sh.b, sh.boolean, rng()};
      auto [cs, w] = build_partition<F>(p);
      const std::string where = "n=" + std::to_string(n) + " b=" + std::to_string(sh.b);
      EXPECT_EQ(cs.num_constraints(), n) << where;
      EXPECT_EQ(cs.num_public, 1u);
      ASSERT_EQ(cs.num_variables, n + 2) << where;
      ASSERT_TRUE(cs.validate().ok()) << where;
      ASSERT_TRUE(check_satisfied(cs, std::span<const F>(w)).ok()) << where;
      std::vector<uint8_t> in_a(w.size()), in_b(w.size()), in_c(w.size());
      for (uint32_t v : cs.a.column) in_a[v] = 1;
      for (uint32_t v : cs.b.column) in_b[v] = 1;
      for (uint32_t v : cs.c.column) in_c[v] = 1;
      size_t b_vars = 0, bits = 0;
      for (size_t v = 2; v < w.size(); ++v) {
        EXPECT_TRUE(in_a[v] && in_c[v]) << where << " variable " << v;
        b_vars += in_b[v];
        const bool bit = w[v].is_zero() || w[v].is_one();
        bits += bit;
        if (in_b[v]) {
          EXPECT_TRUE(bit) << where << " checked variable " << v;
        }
      }
      if (n == 20000) {
        EXPECT_NEAR(double(b_vars) / double(n), sh.b / 100.0, 0.02) << where;
        const double want = sh.b / 100.0 + (1 - sh.b / 100.0) * sh.boolean / 100.0;
        EXPECT_NEAR(double(bits) / double(n), want, 0.02) << where;
      }
      auto [cs1, w1] = build_partition<F>(p, one_thread);
      EXPECT_EQ(cs1.a.row_start, cs.a.row_start) << where;
      EXPECT_EQ(cs1.a.column, cs.a.column) << where;
      EXPECT_EQ(cs1.b.column, cs.b.column) << where;
      EXPECT_EQ(cs1.c.column, cs.c.column) << where;
      EXPECT_EQ(w1, w) << where;
      // The witness-only path (what a proof synthesizes) gives the builder's assignment.
      EXPECT_EQ(partition_witness<F>(p), w) << where;
      EXPECT_EQ(partition_witness<F>(p, one_thread), w) << where;
      // A checked bit set to 2 breaks its row.
      for (size_t v = 2; v < w.size(); ++v) {
        if (!in_b[v]) continue;
        w[v] = F::from_u64(2);
        EXPECT_FALSE(check_satisfied(cs, std::span<const F>(w)).ok()) << where;
        break;
      }
    }
  }
  // Another seed, another circuit.
  auto [a, wa] = build_partition<F>({1000, 25, 90, 1});
  auto [b, wb] = build_partition<F>({1000, 25, 90, 2});
  EXPECT_NE(a.b.column, b.b.column);
  EXPECT_NE(wa, wb);
}

}  // namespace
}  // namespace snarkd::circuits
