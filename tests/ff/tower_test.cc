// Extension-field laws and Frobenius maps for Fp2, Fp6, Fp12 of both curves. The Frobenius
// coefficients are checked against the definition x -> x^p computed by plain exponentiation.
#include <gtest/gtest.h>

#include "ff/bls12_381.h"
#include "ff/bn254.h"
#include "test_util.h"

namespace snarkd::ff {
namespace {

using snarkd::testing::make_rng;

template <class F>
class TowerTest : public ::testing::Test {};

// (element type, its extension degree over Fp)
template <class F, unsigned D>
struct Ext {
  using Type = F;
  static constexpr unsigned kDegree = D;
};

using Towers = ::testing::Types<Ext<bls12_381::Fq2, 2>, Ext<bls12_381::Fq6, 6>,
                                Ext<bls12_381::Fq12, 12>, Ext<bn254::Fq2, 2>, Ext<bn254::Fq6, 6>,
                                Ext<bn254::Fq12, 12>>;
TYPED_TEST_SUITE(TowerTest, Towers);

template <class F>
constexpr auto base_modulus() {
  if constexpr (requires(F f) { f.c0.c0.c0; }) return decltype(F{}.c0.c0.c0)::kModulus;
  else if constexpr (requires(F f) { f.c0.c0; }) return decltype(F{}.c0.c0)::kModulus;
  else return decltype(F{}.c0)::kModulus;
}

TYPED_TEST(TowerTest, FieldLaws) {
  using F = typename TypeParam::Type;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  for (int i = 0; i < 20; ++i) {
    F a = F::random(rng), b = F::random(rng), c = F::random(rng);
    EXPECT_TRUE(a * b == b * a);
    EXPECT_TRUE((a * b) * c == a * (b * c));
    EXPECT_TRUE(a * (b + c) == a * b + a * c);
    EXPECT_TRUE(a.square() == a * a);
    EXPECT_TRUE(a * F::one() == a);
    EXPECT_TRUE((a * a.inverse()).is_one() || a.is_zero());
    EXPECT_TRUE((a - a).is_zero());
    EXPECT_FALSE((a - b).is_zero() && !(a == b));
  }
}

TYPED_TEST(TowerTest, FrobeniusIsPowerOfP) {
  using F = typename TypeParam::Type;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  const auto p = base_modulus<F>();
  for (int i = 0; i < 3; ++i) {
    F a = F::random(rng), b = F::random(rng);
    F ap = a.pow(p);
    EXPECT_TRUE(a.frobenius(1) == ap);
    EXPECT_TRUE(a.frobenius(2) == ap.pow(p));
    EXPECT_TRUE(a.frobenius(3) == a.frobenius(1).frobenius(2));
    EXPECT_TRUE((a * b).frobenius(1) == a.frobenius(1) * b.frobenius(1));
    EXPECT_TRUE(a.frobenius(TypeParam::kDegree) == a);
    EXPECT_FALSE(a.frobenius(1) == a);  // a random element is not in Fp
  }
}

TEST(Fp2, SqrtRoundTrip) {
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  int non_squares = 0;
  for (int i = 0; i < 50; ++i) {
    auto a = bls12_381::Fq2::random(rng);
    auto root = a.square().sqrt();
    ASSERT_TRUE(root.has_value());
    EXPECT_TRUE(*root == a || *root == -a);
    if (a.legendre() == -1) {
      ++non_squares;
      EXPECT_FALSE(a.sqrt().has_value());
    }
    auto b = bn254::Fq2::random(rng);
    auto broot = b.square().sqrt();
    ASSERT_TRUE(broot.has_value());
    EXPECT_TRUE(*broot == b || *broot == -b);
  }
  EXPECT_GT(non_squares, 0);
  // Elements of Fp embedded in Fp2, square and non-square in Fp, both have roots in Fp2.
  for (uint64_t v : {2, 3, 5, 7}) {
    bls12_381::Fq2 e{bls12_381::Fq::from_u64(v), bls12_381::Fq::zero()};
    EXPECT_EQ(e.sqrt()->square(), e);
  }
}

TEST(Fp12, ConjugateIsFrobenius6) {
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  auto a = bls12_381::Fq12::random(rng);
  EXPECT_TRUE(a.frobenius(6) == a.conjugate());
  auto b = bn254::Fq12::random(rng);
  EXPECT_TRUE(b.frobenius(6) == b.conjugate());
}

}  // namespace
}  // namespace snarkd::ff

namespace snarkd::ff {
namespace {

template <class T>
void check_sparse_and_cyclotomic(std::mt19937_64& rng) {
  using F2 = Fp2<T>;
  using F6 = Fp6<T>;
  using F12 = Fp12<T>;
  for (int i = 0; i < 5; ++i) {
    F6 a = F6::random(rng);
    F2 b0 = F2::random(rng), b1 = F2::random(rng);
    F6 dense01{b0, b1, F2::zero()};
    F6 dense1{F2::zero(), b1, F2::zero()};
    EXPECT_TRUE(a.mul_by_01(b0, b1) == a * dense01);
    EXPECT_TRUE(a.mul_by_1(b1) == a * dense1);
    // The easy part of the final exponentiation lands in the cyclotomic subgroup.
    F12 f = F12::random(rng);
    F12 g = f.conjugate() * f.inverse();
    g = g.frobenius(2) * g;
    EXPECT_TRUE(g.cyclotomic_square() == g.square());
    uint64_t e = rng();
    EXPECT_TRUE(g.cyclotomic_pow(BigInt<1>::from_u64(e)) == g.pow(BigInt<1>::from_u64(e)));
    // Outside the subgroup the shortcut is wrong: the test can tell the two apart.
    EXPECT_FALSE(f.cyclotomic_square() == f.square());
  }
}

TEST(Fp12, SparseProductsAndCyclotomicSquaring) {
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  check_sparse_and_cyclotomic<bls12_381::Tower>(rng);
  check_sparse_and_cyclotomic<bn254::Tower>(rng);
}

}  // namespace
}  // namespace snarkd::ff
