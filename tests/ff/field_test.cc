// Prime-field laws on random inputs, and GMP as an independent reference, for all four fields.
#include <gtest/gtest.h>

#include "ff/bls12_381.h"
#include "ff/bn254.h"
#include "gmp_util.h"
#include "test_util.h"

namespace snarkd::ff {
namespace {

using snarkd::testing::from_mpz;
using snarkd::testing::make_rng;
using snarkd::testing::to_mpz;

template <class F>
class FieldTest : public ::testing::Test {};

using Fields = ::testing::Types<bls12_381::Fq, bls12_381::Fr, bn254::Fq, bn254::Fr>;
TYPED_TEST_SUITE(FieldTest, Fields);

constexpr int kIterations = 200;

TYPED_TEST(FieldTest, RingAxioms) {
  using F = TypeParam;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  for (int i = 0; i < kIterations; ++i) {
    F a = F::random(rng), b = F::random(rng), c = F::random(rng);
    EXPECT_EQ(a + b, b + a);
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ((a + b) + c, a + (b + c));
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ(a + F::zero(), a);
    EXPECT_EQ(a * F::one(), a);
    EXPECT_EQ(a - a, F::zero());
    EXPECT_EQ(a + (-a), F::zero());
    EXPECT_EQ(a - b, a + (-b));
    EXPECT_EQ(a.square(), a * a);
    EXPECT_EQ(a.dbl(), a + a);
    EXPECT_EQ(a.halve().dbl(), a);
    if (!(a == b)) {
      EXPECT_FALSE(a - b == F::zero());  // negative twin of a - a == 0
    }
  }
  EXPECT_EQ(-F::zero(), F::zero());
  EXPECT_FALSE(F::one() == F::zero());
}

TYPED_TEST(FieldTest, InverseAndPow) {
  using F = TypeParam;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  EXPECT_TRUE(F::zero().inverse().is_zero());
  for (int i = 0; i < kIterations / 4; ++i) {
    F a = F::random(rng);
    if (a.is_zero()) continue;
    EXPECT_TRUE((a * a.inverse()).is_one());
    EXPECT_TRUE(a.pow(F::kModulus - F::Int::from_u64(1)).is_one());  // Fermat
    uint64_t e1 = rng(), e2 = rng() >> 1;
    EXPECT_EQ(a.pow(e1 >> 1) * a.pow(e2), a.pow((e1 >> 1) + e2));
  }
}

TYPED_TEST(FieldTest, SqrtAndLegendre) {
  using F = TypeParam;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  int non_squares = 0;
  EXPECT_EQ(F::zero().legendre(), 0);
  EXPECT_EQ(*F::zero().sqrt(), F::zero());
  for (int i = 0; i < kIterations / 2; ++i) {
    F a = F::random(rng), b = F::random(rng);
    auto root = a.square().sqrt();
    ASSERT_TRUE(root.has_value());
    EXPECT_TRUE(*root == a || *root == -a);
    EXPECT_EQ(a.square().legendre(), a.is_zero() ? 0 : 1);
    EXPECT_EQ(a.legendre() * b.legendre(), (a * b).legendre());
    if (a.legendre() == -1) {
      ++non_squares;
      EXPECT_FALSE(a.sqrt().has_value());
    } else {
      EXPECT_EQ(a.sqrt()->square(), a);
    }
  }
  EXPECT_GT(non_squares, 0);
}

TYPED_TEST(FieldTest, MatchesGmp) {
  using F = TypeParam;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  const mpz_class p = to_mpz(F::kModulus);
  // Derived constants against GMP: R = 2^(64N) mod p, R^2, and -p^-1 mod 2^64.
  mpz_class r = (mpz_class(1) << (64 * F::kLimbs)) % p;
  EXPECT_EQ(to_mpz(F::kR), r);
  EXPECT_EQ(to_mpz(F::kR2), (r * r) % p);
  EXPECT_EQ(to_mpz(F::one().montgomery()), r);
  for (int i = 0; i < kIterations; ++i) {
    F a = F::random(rng), b = F::random(rng);
    mpz_class ma = to_mpz(a.to_canonical()), mb = to_mpz(b.to_canonical());
    EXPECT_EQ(to_mpz((a * b).to_canonical()), (ma * mb) % p);
    EXPECT_EQ(F::mul_portable(a, b), a * b);  // the assembly and the C++ path agree
    EXPECT_EQ(to_mpz((a + b).to_canonical()), (ma + mb) % p);
    mpz_class diff = ((ma - mb) % p + p) % p;
    EXPECT_EQ(to_mpz((a - b).to_canonical()), diff);
    // Montgomery form is a*R mod p.
    EXPECT_EQ(to_mpz(a.montgomery()), (ma * r) % p);
    if (!a.is_zero()) {
      mpz_class inv;
      mpz_invert(inv.get_mpz_t(), ma.get_mpz_t(), p.get_mpz_t());
      EXPECT_EQ(to_mpz(a.inverse().to_canonical()), inv);
      EXPECT_EQ(a.legendre(), mpz_legendre(ma.get_mpz_t(), p.get_mpz_t()));
    }
    // Values near the modulus exercise the final subtraction.
    mpz_class near = p - 1 - (mpz_class(rng()) % 1000);
    F fn = F::from_canonical_unchecked(from_mpz<F::kLimbs>(near));
    EXPECT_EQ(to_mpz((fn * fn).to_canonical()), (near * near) % p);
    EXPECT_EQ(to_mpz((fn + fn).to_canonical()), (near + near) % p);
  }
}

TYPED_TEST(FieldTest, BytesAndDecimal) {
  using F = TypeParam;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  const mpz_class p = to_mpz(F::kModulus);
  for (int i = 0; i < kIterations / 4; ++i) {
    F a = F::random(rng);
    std::array<uint8_t, F::kBytes> be{}, le{};
    a.to_bytes_be(be);
    a.to_bytes_le(le);
    for (size_t k = 0; k < F::kBytes; ++k) EXPECT_EQ(be[k], le[F::kBytes - 1 - k]);
    EXPECT_EQ(*F::from_bytes_be(be), a);
    EXPECT_EQ(*F::from_bytes_le(le), a);
    std::string dec = a.to_decimal();
    EXPECT_EQ(dec, to_mpz(a.to_canonical()).get_str(10));
    EXPECT_EQ(*F::from_decimal(dec), a);
  }
  // Non-canonical encodings are rejected: p, p + 1 and all-ones.
  for (const mpz_class& bad :
       std::vector<mpz_class>{p, p + 1, (mpz_class(1) << (64 * F::kLimbs)) - 1}) {
    std::array<uint8_t, F::kBytes> be{};
    from_mpz<F::kLimbs>(bad).to_bytes_be(be);
    EXPECT_FALSE(F::from_bytes_be(be).has_value());
    EXPECT_FALSE(F::from_decimal(bad.get_str(10)).ok());
  }
  std::array<uint8_t, F::kBytes> pm1{};
  from_mpz<F::kLimbs>(p - 1).to_bytes_be(pm1);
  EXPECT_EQ(*F::from_bytes_be(pm1), -F::one());
  EXPECT_EQ(F::from_decimal("0").value(), F::zero());
  for (const char* bad : {"", "-1", "+1", "12a", " 1", "1.0", "0x10"}) {
    EXPECT_FALSE(F::from_decimal(bad).ok()) << bad;
  }
  EXPECT_NE(F::from_decimal(std::string(200, '9')).status().message().find(F::name()),
            std::string::npos);
}

TEST(FieldConstants, PublishedMontgomeryR) {
  // shared/reference/formats.md: Montgomery R for BLS12-381 Fr.
  EXPECT_EQ(bls12_381::Fr::kR, (BigInt<4>::from_hex(
                                   "1824b159acc5056f998c4fefecbc4ff55884b7fa0003480200000001fffffffe")));
  EXPECT_EQ(bls12_381::Fr::kTwoAdicity, 32u);
  EXPECT_EQ(bn254::Fr::kTwoAdicity, 28u);
}

}  // namespace
}  // namespace snarkd::ff
