#include <gtest/gtest.h>

#include "ff/bls12_381.h"
#include "ff/bn254.h"
#include "r1cs/builtin.h"
#include "test_util.h"

namespace snarkd::r1cs {
namespace {

using Fr = ff::bn254::Fr;

TEST(Builder, PublicVariablesAreNumberedFirst) {
  CircuitBuilder<Fr> cb;
  auto p = cb.alloc(Fr::from_u64(3));       // private, allocated first
  auto x = cb.alloc_input(Fr::from_u64(9)); // public
  cb.enforce({{p, Fr::one()}}, {{p, Fr::one()}}, {{x, Fr::one()}});
  auto [cs, w] = cb.finish();
  EXPECT_EQ(cs.num_public, 1u);
  EXPECT_EQ(cs.num_variables, 3u);
  EXPECT_EQ(w, (std::vector<Fr>{Fr::one(), Fr::from_u64(9), Fr::from_u64(3)}));
  EXPECT_EQ(cs.a.column, (std::vector<uint32_t>{2}));
  EXPECT_EQ(cs.c.column, (std::vector<uint32_t>{1}));
  EXPECT_TRUE(cs.validate().ok());
  EXPECT_TRUE(check_satisfied(cs, std::span<const Fr>(w)).ok());
  w[1] = Fr::from_u64(10);
  auto st = check_satisfied(cs, std::span<const Fr>(w));
  EXPECT_EQ(st.message(), "constraint 0 is not satisfied");
}

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

TYPED_TEST(ChainTest, MultiplyMatchesRowDot) {
  using F = TypeParam;
  auto [cs, w] = build_chain<F>({5000, 30, 3});
  std::vector<F> a(cs.num_constraints() + 5, F::one());
  cs.a.multiply(std::span<const F>(w), std::span<F>(a), ThreadPool::global());
  for (size_t i = 0; i < cs.num_constraints(); i += 97) EXPECT_EQ(a[i], cs.a.row_dot(i, w));
  EXPECT_EQ(a.back(), F::one());  // the tail is left alone
}

}  // namespace
}  // namespace snarkd::r1cs

namespace snarkd::r1cs {
namespace {

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

}  // namespace
}  // namespace snarkd::r1cs
