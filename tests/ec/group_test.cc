// Group laws, coordinate systems, scalar multiplication, batch normalization and subgroup checks
// for G1 and G2 of both curves.
#include <gtest/gtest.h>

#include <vector>

#include "ec/ec_test_util.h"
#include "test_util.h"

namespace snarkd::ec {
namespace {

using snarkd::testing::make_rng;
using snarkd::testing::random_curve_point;
using snarkd::testing::random_subgroup_point;

template <class C>
class GroupTest : public ::testing::Test {};

using Groups = ::testing::Types<bls12_381::G1, bls12_381::G2, bn254::G1, bn254::G2>;
TYPED_TEST_SUITE(GroupTest, Groups);

TYPED_TEST(GroupTest, GeneratorIsValid) {
  using C = TypeParam;
  auto g = C::generator();
  EXPECT_TRUE(g.is_on_curve());
  EXPECT_FALSE(g.is_identity());
  EXPECT_TRUE(C::in_subgroup(Jacobian<C>::from_affine(g)));
  EXPECT_TRUE(in_subgroup_by_order(Jacobian<C>::from_affine(g)));
  auto off = g;
  off.y += C::Field::one();
  EXPECT_FALSE(off.is_on_curve());
}

TYPED_TEST(GroupTest, GroupLaws) {
  using C = TypeParam;
  using J = Jacobian<C>;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  for (int i = 0; i < 8; ++i) {
    J p = random_subgroup_point<C>(rng), q = random_subgroup_point<C>(rng),
      r = random_subgroup_point<C>(rng);
    EXPECT_TRUE(p.add(q) == q.add(p));
    EXPECT_TRUE(p.add(q).add(r) == p.add(q.add(r)));
    EXPECT_TRUE(p.add(J::identity()) == p);
    EXPECT_TRUE(J::identity().add(p) == p);
    EXPECT_TRUE(p.add(p.neg()).is_identity());
    EXPECT_TRUE(p.add(p) == p.dbl());
    EXPECT_FALSE(p.add(q) == p);  // negative twin
    EXPECT_TRUE(p.is_on_curve() && p.add(q).is_on_curve() && p.dbl().is_on_curve());
    // Mixed additions agree with full additions, including the doubling and inverse cases.
    auto qa = q.to_affine();
    EXPECT_TRUE(p.add_mixed(qa) == p.add(q));
    EXPECT_TRUE(q.add_mixed(qa) == q.dbl());
    EXPECT_TRUE(q.neg().add_mixed(qa).is_identity());
    EXPECT_TRUE(J::identity().add_mixed(qa) == q);
    // XYZZ agrees with Jacobian.
    using X = Xyzz<C>;
    X px = X::from_affine(p.to_affine());
    EXPECT_TRUE(px.add_mixed(qa).to_jacobian() == p.add(q));
    EXPECT_TRUE(px.add(X::from_affine(qa)).to_jacobian() == p.add(q));
    EXPECT_TRUE(px.dbl().to_jacobian() == p.dbl());
    EXPECT_TRUE(px.add(px).to_jacobian() == p.dbl());
    EXPECT_TRUE(px.add_mixed(p.to_affine()).to_affine() == p.dbl().to_affine());
    EXPECT_TRUE(px.add(px.neg()).is_identity());
    EXPECT_TRUE(px.add_mixed(p.neg().to_affine()).is_identity());
    EXPECT_TRUE(px.add_mixed(qa).add_mixed(qa).to_affine() == p.add(q.dbl()).to_affine());
  }
}

TYPED_TEST(GroupTest, ScalarMultiplication) {
  using C = TypeParam;
  using J = Jacobian<C>;
  using Fr = typename C::Scalar;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  J g = J::from_affine(C::generator());
  // Small scalars against repeated addition: window boundaries live here.
  J acc = J::identity();
  for (uint64_t k = 0; k <= 40; ++k) {
    EXPECT_TRUE(mul_vartime(g, BigInt<1>::from_u64(k)) == acc) << "k = " << k;
    acc = acc.add(g);
  }
  EXPECT_TRUE(mul_vartime(g, Fr::kModulus).is_identity());
  EXPECT_TRUE(mul_vartime(g, Fr::kModulus - Fr::Int::from_u64(1)) == g.neg());
  for (int i = 0; i < 4; ++i) {
    Fr a = Fr::random(rng), b = Fr::random(rng);
    J ga = mul_vartime(g, a.to_canonical());
    EXPECT_TRUE(mul_vartime(ga, b.to_canonical()) == mul_vartime(g, (a * b).to_canonical()));
    EXPECT_TRUE(ga.add(mul_vartime(g, b.to_canonical())) == mul_vartime(g, (a + b).to_canonical()));
    EXPECT_TRUE(mul_vartime(g, (-a).to_canonical()) == ga.neg());
  }
}

TYPED_TEST(GroupTest, BatchToAffine) {
  using C = TypeParam;
  using J = Jacobian<C>;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  for (size_t n : {0u, 1u, 2u, 3u, 7u, 16u, 33u}) {
    std::vector<J> points;
    for (size_t i = 0; i < n; ++i) {
      // Every third point is the identity; the rest have non-trivial Z.
      points.push_back(i % 3 == 1 ? J::identity() : random_subgroup_point<C>(rng).dbl());
    }
    std::vector<Affine<C>> out(n);
    batch_to_affine<C>(points, out);
    for (size_t i = 0; i < n; ++i) EXPECT_TRUE(out[i] == points[i].to_affine()) << "i = " << i;
  }
}

TYPED_TEST(GroupTest, SubgroupCheckMatchesOrder) {
  using C = TypeParam;
  using J = Jacobian<C>;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  int outside = 0;
  for (int i = 0; i < 6; ++i) {
    auto p = random_curve_point<C>(rng);
    ASSERT_TRUE(p.is_on_curve());
    J jp = J::from_affine(p);
    bool by_order = in_subgroup_by_order(jp);
    EXPECT_EQ(C::in_subgroup(jp), by_order);
    outside += by_order ? 0 : 1;
    J s = random_subgroup_point<C>(rng);
    EXPECT_TRUE(C::in_subgroup(s));
  }
  // G1 of BN254 has cofactor 1; every other group has a large one.
  if constexpr (!std::is_same_v<C, bn254::G1>) {
    EXPECT_GT(outside, 0);
  } else {
    EXPECT_EQ(outside, 0);
  }
}

}  // namespace
}  // namespace snarkd::ec
