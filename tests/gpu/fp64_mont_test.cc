// The FP64-pipe Montgomery product (src/gpu/fp64_mont.h) run on the host against GMP. The host
// computes the same IEEE round-to-nearest FMAs and additions as the device, so this checks the
// device's arithmetic; `gpu_bench field` compares the device's products with this host code.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "ff/bls12_381.h"
#include "ff/bn254.h"
#include "gmp_util.h"
#include "gpu/fp64_mont.h"
#include "test_util.h"

namespace snarkd::gpu::fp64 {
namespace {

using snarkd::testing::from_mpz;
using snarkd::testing::make_rng;
using snarkd::testing::to_mpz;

template <class P, int kN, int kL, Fp64Form kFp64Form>
struct Case {
  using Params = P;
  static constexpr int N = kN, L = kL;
  static constexpr Fp64Form kForm = kFp64Form;
};

template <class C>
class Fp64MontTest : public ::testing::Test {};

using Bls12381Fp = ff::bls12_381::FqParams;
using Cases = ::testing::Types<
    Case<Bls12381Fp, 8, 48, Fp64Form::kIntegerSums>, Case<Bls12381Fp, 8, 48, Fp64Form::kFloatLows>,
    Case<Bls12381Fp, 8, 48, Fp64Form::kMixedLows>, Case<Bls12381Fp, 8, 48, Fp64Form::kChainedFloat>,
    Case<Bls12381Fp, 8, 48, Fp64Form::kChainedMixed>,
    Case<Bls12381Fp, 8, 48, Fp64Form::kChainedIntegerLows>,
    Case<ff::bls12_381::FrParams, 5, 51, Fp64Form::kIntegerSums>,
    Case<ff::bn254::FqParams, 5, 51, Fp64Form::kIntegerSums>,
    Case<ff::bn254::FrParams, 5, 51, Fp64Form::kIntegerSums>>;
TYPED_TEST_SUITE(Fp64MontTest, Cases);

template <class C>
struct Harness {
  using H = ff::Fp<typename C::Params>;
  static constexpr int N = C::N, L = C::L;
  static constexpr size_t K = H::kLimbs;
  static constexpr Modulus<N, L> kMod = make_modulus<typename C::Params, N, L>();

  mpz_class p = to_mpz(H::kModulus);
  mpz_class r_inv;  // 2^-(N L) mod p
  Harness() {
    mpz_class r = mpz_class(1) << (N * L);
    mpz_invert(r_inv.get_mpz_t(), r.get_mpz_t(), p.get_mpz_t());
  }
  struct Elem {
    double v[N];
  };
  Elem encode(const mpz_class& x) const {
    Elem e;
    to_limbs<N, L>(from_mpz<K>(x).limbs, e.v);
    return e;
  }
  // The limbs must be integers in [0, 2^L) and the value below p.
  ::testing::AssertionResult decode(const Elem& e, mpz_class* out) const {
    for (int j = 0; j < N; ++j) {
      const double v = e.v[j];
      if (!(v >= 0 && v < pow2(L) && v == std::floor(v))) {
        return ::testing::AssertionFailure()
               << "limb " << j << " = " << v << " is not an integer in [0, 2^" << L << ")";
      }
    }
    ff::BigInt<K> words;
    words.limbs = from_limbs<N, L, K>(e.v);
    *out = to_mpz(words);
    if (*out >= p)
      return ::testing::AssertionFailure() << "result " << out->get_str(16) << " is not below p";
    return ::testing::AssertionSuccess();
  }
  mpz_class expected(const mpz_class& a, const mpz_class& b) const {
    return mpz_class(a * b * r_inv % p);
  }
  Elem mul(const Elem& a, const Elem& b) const {
    Elem r;
    mont_mul<N, L, C::kForm>(a.v, b.v, r.v, kMod);
    return r;
  }
};

TYPED_TEST(Fp64MontTest, ModulusLimbsAndInverse) {
  Harness<TypeParam> h;
  constexpr int N = TypeParam::N, L = TypeParam::L;
  mpz_class p_from_limbs = 0;
  for (int j = N - 1; j >= 0; --j)
    p_from_limbs = (p_from_limbs << L) + mpz_class(std::to_string(h.kMod.limbs[j]));
  EXPECT_EQ(p_from_limbs, h.p);
  // inv * p == -1 mod 2^L
  mpz_class two_l = mpz_class(1) << L;
  mpz_class check = (mpz_class(std::to_string(h.kMod.inv)) * h.p + 1) % two_l;
  EXPECT_EQ(check, 0);
}

TYPED_TEST(Fp64MontTest, MatchesGmpOnRandomAndEdgeInputs) {
  SNARKD_SEED_TRACE();
  Harness<TypeParam> h;
  auto rng = make_rng();
  gmp_randclass gmp_rng(gmp_randinit_default);
  gmp_rng.seed(mpz_class(std::to_string(rng())));
  constexpr int L = TypeParam::L;
  std::vector<mpz_class> values = {0,
                                   1,
                                   2,
                                   h.p - 1,
                                   h.p - 2,
                                   (h.p - 1) / 2,
                                   (mpz_class(1) << L) - 1,
                                   mpz_class(1) << L,
                                   (mpz_class(1) << (2 * L)) - 1};
  // Values with every limb at its largest that are still below p.
  mpz_class all_ones = (mpz_class(1) << (TypeParam::N - 1) * L) - 1;
  values.push_back(all_ones);
  for (int i = 0; i < 200; ++i) values.push_back(gmp_rng.get_z_range(h.p));
  int checked = 0;
  for (const auto& a : values) {
    for (const auto& b : values) {
      if (a >= h.p || b >= h.p) continue;
      mpz_class got;
      ASSERT_TRUE(h.decode(h.mul(h.encode(a), h.encode(b)), &got))
          << "a=" << a.get_str(16) << " b=" << b.get_str(16);
      ASSERT_EQ(got, h.expected(a, b)) << "a=" << a.get_str(16) << " b=" << b.get_str(16);
      ++checked;
    }
  }
  EXPECT_GT(checked, 40000);
}

// Addition, subtraction and the Montgomery one, on the same values.
TYPED_TEST(Fp64MontTest, AddSubAndOneMatchGmp) {
  SNARKD_SEED_TRACE();
  Harness<TypeParam> h;
  constexpr int N = TypeParam::N, L = TypeParam::L;
  auto rng = make_rng();
  gmp_randclass gmp_rng(gmp_randinit_default);
  gmp_rng.seed(mpz_class(std::to_string(rng())));
  std::vector<mpz_class> values = {
      0, 1, h.p - 1, h.p - 2, (h.p - 1) / 2, (h.p + 1) / 2, (mpz_class(1) << L) - 1};
  for (int i = 0; i < 150; ++i) values.push_back(gmp_rng.get_z_range(h.p));
  for (const auto& a : values) {
    for (const auto& b : values) {
      typename Harness<TypeParam>::Elem sum, diff;
      add_mod<N, L>(h.encode(a).v, h.encode(b).v, sum.v, h.kMod);
      sub_mod<N, L>(h.encode(a).v, h.encode(b).v, diff.v, h.kMod);
      mpz_class got_sum, got_diff;
      ASSERT_TRUE(h.decode(sum, &got_sum)) << "a=" << a.get_str(16) << " b=" << b.get_str(16);
      ASSERT_TRUE(h.decode(diff, &got_diff)) << "a=" << a.get_str(16) << " b=" << b.get_str(16);
      ASSERT_EQ(got_sum, mpz_class((a + b) % h.p))
          << "a=" << a.get_str(16) << " b=" << b.get_str(16);
      ASSERT_EQ(got_diff, mpz_class(((a - b) % h.p + h.p) % h.p))
          << "a=" << a.get_str(16) << " b=" << b.get_str(16);
    }
  }
  typename Harness<TypeParam>::Elem one;
  std::copy(std::begin(h.kMod.one), std::end(h.kMod.one), one.v);
  mpz_class got_one;
  ASSERT_TRUE(h.decode(one, &got_one));
  EXPECT_EQ(got_one, mpz_class((mpz_class(1) << (N * L)) % h.p));
  // one is the identity of the product: x one / R' = x.
  const mpz_class x = gmp_rng.get_z_range(h.p);
  mpz_class got;
  ASSERT_TRUE(h.decode(h.mul(h.encode(x), one), &got));
  EXPECT_EQ(got, x);
}

// Outputs fed back as inputs, as in the benchmark's chains and the point formulas; and a result
// written over its own operand.
TYPED_TEST(Fp64MontTest, ChainsAndAliasing) {
  SNARKD_SEED_TRACE();
  Harness<TypeParam> h;
  auto rng = make_rng();
  gmp_randclass gmp_rng(gmp_randinit_default);
  gmp_rng.seed(mpz_class(std::to_string(rng())));
  for (int chain = 0; chain < 20; ++chain) {
    mpz_class x = gmp_rng.get_z_range(h.p), y = gmp_rng.get_z_range(h.p);
    auto ex = h.encode(x);
    const auto ey = h.encode(y);
    for (int step = 0; step < 500; ++step) {
      mont_mul<TypeParam::N, TypeParam::L, TypeParam::kForm>(ex.v, ey.v, ex.v,
                                                             h.kMod);  // r aliases a
      x = h.expected(x, y);
      mpz_class got;
      ASSERT_TRUE(h.decode(ex, &got)) << "chain " << chain << " step " << step;
      ASSERT_EQ(got, x) << "chain " << chain << " step " << step;
    }
  }
}

}  // namespace
}  // namespace snarkd::gpu::fp64
