// Pairing properties, and the final exponentiation against the exponent computed by GMP.
#include <gtest/gtest.h>

#include "ec/ec_test_util.h"
#include "gmp_util.h"
#include "test_util.h"

namespace snarkd::ec {
namespace {

using snarkd::testing::from_mpz;
using snarkd::testing::make_rng;
using snarkd::testing::to_mpz;

template <class E>
class PairingTest : public ::testing::Test {};
using Engines = ::testing::Types<bls12_381::Engine, bn254::Engine>;
TYPED_TEST_SUITE(PairingTest, Engines);

TYPED_TEST(PairingTest, Bilinearity) {
  using E = TypeParam;
  using P = Pairing<E>;
  using Fr = typename E::G1::Scalar;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  auto g1 = E::G1::generator();
  auto g2 = E::G2::generator();
  auto base = P::pairing(g1, g2);
  EXPECT_FALSE(base.is_one());                               // non-degenerate
  EXPECT_TRUE(base.pow(Fr::kModulus).is_one());              // order r
  EXPECT_TRUE(P::pairing(Affine<typename E::G1>::identity(), g2).is_one());
  EXPECT_TRUE(P::pairing(g1, Affine<typename E::G2>::identity()).is_one());
  for (int i = 0; i < 2; ++i) {
    Fr a = Fr::random(rng), b = Fr::random(rng);
    auto pa = mul_vartime(g1, a.to_canonical()).to_affine();
    auto qb = mul_vartime(g2, b.to_canonical()).to_affine();
    auto eab = P::pairing(pa, qb);
    EXPECT_TRUE(eab == base.pow((a * b).to_canonical()));
    EXPECT_TRUE(eab == P::pairing(mul_vartime(g1, (a * b).to_canonical()).to_affine(), g2));
    EXPECT_FALSE(eab == P::pairing(mul_vartime(g1, (a * b + Fr::one()).to_canonical()).to_affine(), g2));
    // e(P1 + P2, Q) = e(P1, Q) e(P2, Q)
    auto p2 = snarkd::testing::random_subgroup_point<typename E::G1>(rng);
    auto sum = Jacobian<typename E::G1>::from_affine(pa).add(p2).to_affine();
    EXPECT_TRUE(P::pairing(sum, qb) == eab * P::pairing(p2.to_affine(), qb));
    // e(-P, Q) = e(P, Q)^-1 = conj
    EXPECT_TRUE(P::pairing(pa.neg(), qb) == eab.conjugate());
  }
}

TYPED_TEST(PairingTest, MultiPairingAndProductCheck) {
  using E = TypeParam;
  using P = Pairing<E>;
  using Fr = typename E::G1::Scalar;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  Fr a = Fr::random(rng), b = Fr::random(rng);
  auto g1 = E::G1::generator();
  auto g2 = E::G2::generator();
  auto pa = mul_vartime(g1, a.to_canonical()).to_affine();
  auto qb = mul_vartime(g2, b.to_canonical()).to_affine();
  auto pab_neg = mul_vartime(g1, (-(a * b)).to_canonical()).to_affine();
  std::vector<typename P::Pair> pairs = {{pa, qb}, {pab_neg, g2}};
  EXPECT_TRUE(P::pairing_product_is_one(pairs));
  EXPECT_TRUE(P::multi_pairing(pairs).is_one());
  pairs[1].first = mul_vartime(g1, (-(a * b) + Fr::one()).to_canonical()).to_affine();
  EXPECT_FALSE(P::pairing_product_is_one(pairs));
  EXPECT_TRUE(P::multi_pairing(pairs) == P::pairing(pairs[0].first, pairs[0].second) *
                                             P::pairing(pairs[1].first, pairs[1].second));
  // Identity pairs contribute 1; an empty product is 1.
  pairs.push_back({Affine<typename E::G1>::identity(), g2});
  EXPECT_TRUE(P::multi_pairing(pairs) == P::pairing(pairs[0].first, pairs[0].second) *
                                             P::pairing(pairs[1].first, pairs[1].second));
  EXPECT_TRUE(P::multi_pairing({}).is_one());
}

// The final exponentiation's addition chain equals plain exponentiation by
// m * (p^12 - 1) / r, with the exponent computed independently by GMP.
TYPED_TEST(PairingTest, FinalExponentiationMatchesGmpExponent) {
  using E = TypeParam;
  using P = Pairing<E>;
  using F12 = typename P::F12;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  mpz_class p = to_mpz(E::G1::Field::kModulus);
  mpz_class r = to_mpz(E::G1::Scalar::kModulus);
  mpz_class x(std::to_string(E::kX));
  if (E::kXNegative) x = -x;
  mpz_class p12;
  mpz_pow_ui(p12.get_mpz_t(), p.get_mpz_t(), 12);
  ASSERT_EQ((p12 - 1) % r, 0);
  mpz_class m = E::kFamily == PairingFamily::kBls12 ? mpz_class(3) : 2 * x * (6 * x * x + 3 * x + 1);
  ASSERT_GT(m, 0);
  mpz_class exponent = m * ((p12 - 1) / r);
  auto e = from_mpz<80>(exponent);
  for (int i = 0; i < 2; ++i) {
    F12 f = F12::random(rng);
    EXPECT_TRUE(P::final_exponentiation(f) == f.pow(e));
    EXPECT_FALSE(P::final_exponentiation(f) == f.pow(from_mpz<80>(exponent + 1)));
  }
}

}  // namespace
}  // namespace snarkd::ec
