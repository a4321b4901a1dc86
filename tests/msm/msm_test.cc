// Pippenger against the naive sum of scalar multiplications, over every size 1..33 and a few
// larger ones, with scalars that stress the size classes and the signed digits.
#include <gtest/gtest.h>

#include <vector>

#include "ec/bls12_381.h"
#include "ec/bn254.h"
#include "msm/pippenger.h"
#include "test_util.h"

namespace snarkd::msm {
namespace {

using snarkd::testing::make_rng;

template <class C>
class MsmTest : public ::testing::Test {};
using Groups = ::testing::Types<ec::bls12_381::G1, ec::bls12_381::G2, ec::bn254::G1, ec::bn254::G2>;
TYPED_TEST_SUITE(MsmTest, Groups);

// Mostly random scalars, with zeros, ones, r-1, small values and digit-boundary patterns.
template <class C, class Rng>
typename C::Scalar::Int pick_scalar(Rng& rng) {
  using Fr = typename C::Scalar;
  using Int = typename Fr::Int;
  switch (rng() % 10) {
    case 0: return Int{};
    case 1: return Int::from_u64(1);
    case 2: return Fr::kModulus - Int::from_u64(1);
    case 3: return Int::from_u64(rng() % 64);
    case 4: {
      Int k;  // runs of ones: every window's digit goes negative and carries
      for (size_t i = 0; i + 1 < Int::kLimbs; ++i) k[i] = ~uint64_t(0);
      return k;
    }
    default: return Fr::random(rng).to_canonical();
  }
}

template <class C, class Rng>
void check_size(size_t n, Rng& rng) {
  std::vector<ec::Affine<C>> bases(n);
  std::vector<typename C::Scalar::Int> scalars(n);
  auto g = C::generator();
  for (size_t i = 0; i < n; ++i) {
    bases[i] = ec::mul_vartime(g, C::Scalar::random(rng).to_canonical()).to_affine();
    if (i % 7 == 3) bases[i] = bases[i > 0 ? i - 1 : 0];  // repeated bases hit doubling in buckets
    scalars[i] = pick_scalar<C>(rng);
  }
  if (n > 2) bases[1] = ec::Affine<C>::identity();
  auto fast = msm<C>(std::span<const ec::Affine<C>>(bases),
                     std::span<const typename C::Scalar::Int>(scalars));
  auto slow = msm_naive<C>(std::span<const ec::Affine<C>>(bases),
                           std::span<const typename C::Scalar::Int>(scalars));
  EXPECT_TRUE(fast == slow) << "n = " << n;
}

TYPED_TEST(MsmTest, MatchesNaiveSmallSizes) {
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  for (size_t n = 0; n <= 33; ++n) check_size<TypeParam>(n, rng);
}

TYPED_TEST(MsmTest, MatchesNaiveLarger) {
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  for (size_t n : {200u, 777u}) check_size<TypeParam>(n, rng);
}

TYPED_TEST(MsmTest, DetectsAWrongScalar) {
  using C = TypeParam;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  std::vector<ec::Affine<C>> bases(100);
  std::vector<typename C::Scalar::Int> scalars(100);
  for (size_t i = 0; i < bases.size(); ++i) {
    bases[i] = ec::mul_vartime(C::generator(), C::Scalar::random(rng).to_canonical()).to_affine();
    scalars[i] = C::Scalar::random(rng).to_canonical();
  }
  auto expected = msm_naive<C>(std::span<const ec::Affine<C>>(bases),
                               std::span<const typename C::Scalar::Int>(scalars));
  scalars[57][0] ^= 1;
  auto changed = msm<C>(std::span<const ec::Affine<C>>(bases),
                        std::span<const typename C::Scalar::Int>(scalars));
  EXPECT_FALSE(changed == expected);
}

TEST(MsmWindow, GrowsWithSize) {
  EXPECT_LE(choose_window(8, 255), choose_window(1 << 10, 255));
  EXPECT_LE(choose_window(1 << 10, 255), choose_window(1 << 20, 255));
  EXPECT_GE(choose_window(1 << 20, 255), 12u);
}

}  // namespace
}  // namespace snarkd::msm
