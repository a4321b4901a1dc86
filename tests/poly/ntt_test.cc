// NTT, cosets and both quotient conventions against naive O(n^2) polynomial arithmetic.
#include <gtest/gtest.h>

#include <vector>

#include "ff/bls12_381.h"
#include "ff/bn254.h"
#include "poly/domain.h"
#include "poly/quotient.h"
#include "test_util.h"

namespace snarkd::poly {
namespace {

using snarkd::testing::make_rng;

template <class F>
class NttTest : public ::testing::Test {};
using ScalarFields = ::testing::Types<ff::bls12_381::Fr, ff::bn254::Fr>;
TYPED_TEST_SUITE(NttTest, ScalarFields);

template <class F>
F eval_poly(const std::vector<F>& coeffs, const F& x) {
  F acc = F::zero();
  for (size_t i = coeffs.size(); i-- > 0;) acc = acc * x + coeffs[i];
  return acc;
}

template <class F, class Rng>
std::vector<F> random_vector(size_t n, Rng& rng) {
  std::vector<F> v(n);
  for (auto& x : v) x = F::random(rng);
  return v;
}

TYPED_TEST(NttTest, RootsOfUnity) {
  using F = TypeParam;
  for (size_t k : {1u, 2u, 10u, 20u, 28u}) {
    F w = root_of_unity<F>(k);
    F half = w.pow(ff::BigInt<1>::from_u64(uint64_t(1) << (k - 1)));
    EXPECT_EQ(half, -F::one()) << "k = " << k;  // primitive: w^(n/2) = -1
    EXPECT_EQ(half.square(), F::one());
  }
  EXPECT_FALSE(Domain<F>::create(F::kTwoAdicity + 1).ok());
  EXPECT_FALSE(Domain<F>::create(29).ok());
  EXPECT_EQ(Domain<F>::for_size(1000)->size(), 1024u);
  EXPECT_EQ(Domain<F>::for_size(1024)->size(), 1024u);
}

TYPED_TEST(NttTest, MatchesNaiveEvaluation) {
  using F = TypeParam;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  for (size_t log = 0; log <= 7; ++log) {
    auto d = *Domain<F>::create(log);
    auto coeffs = random_vector<F>(d.size(), rng);
    auto values = coeffs;
    d.ntt(values);
    F x = F::one();
    for (size_t i = 0; i < d.size(); ++i) {
      EXPECT_EQ(values[i], eval_poly(coeffs, x)) << "n = " << d.size() << ", i = " << i;
      x *= d.omega();
    }
    F shift = F::random(rng);
    auto coset = coeffs;
    d.coset_ntt(coset, shift);
    EXPECT_EQ(coset.back(), eval_poly(coeffs, shift * d.omega().pow(ff::BigInt<1>::from_u64(d.size() - 1))));
    d.coset_intt(coset, shift);
    EXPECT_EQ(coset, coeffs);
    d.intt(values);
    EXPECT_EQ(values, coeffs);
  }
}

TYPED_TEST(NttTest, LargeRoundTripsUseThreads) {
  using F = TypeParam;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  for (size_t log : {12u, 15u}) {
    auto d = *Domain<F>::create(log);
    auto coeffs = random_vector<F>(d.size(), rng);
    auto values = coeffs;
    d.ntt(values);
    size_t probe = rng() % d.size();
    EXPECT_EQ(values[probe], eval_poly(coeffs, d.omega().pow(ff::BigInt<1>::from_u64(probe))));
    d.intt(values);
    EXPECT_EQ(values, coeffs);
  }
}

// (A B - C) for A, B random of degree < n and C interpolating a*b on the domain, so Z | AB - C.
template <class F, class Rng>
void make_qap_instance(const Domain<F>& d, Rng& rng, std::vector<F>& a, std::vector<F>& b,
                       std::vector<F>& c, std::vector<F>& product_minus_c) {
  size_t n = d.size();
  a = random_vector<F>(n, rng);
  b = random_vector<F>(n, rng);
  c.resize(n);
  for (size_t i = 0; i < n; ++i) c[i] = a[i] * b[i];
  auto ca = a, cb = b, cc = c;
  d.intt(ca);
  d.intt(cb);
  d.intt(cc);
  product_minus_c.assign(2 * n - 1, F::zero());
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) product_minus_c[i + j] += ca[i] * cb[j];
  for (size_t i = 0; i < n; ++i) product_minus_c[i] -= cc[i];
}

TYPED_TEST(NttTest, QuotientDivideByZ) {
  using F = TypeParam;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  for (size_t log : {1u, 3u, 5u}) {
    auto d = *Domain<F>::create(log);
    size_t n = d.size();
    std::vector<F> a, b, c, p;
    make_qap_instance(d, rng, a, b, c, p);
    // Long division of p by x^n - 1: h_k = p_{k+n} + h_{k+n}.
    std::vector<F> h(n - 1, F::zero());
    for (size_t k = n - 1; k-- > 0;) h[k] = p[k + n] + (k + n < n - 1 ? h[k + n] : F::zero());
    // Remainder must vanish.
    for (size_t k = 0; k < n; ++k) {
      EXPECT_EQ(p[k] + (k < n - 1 ? h[k] : F::zero()), F::zero());
    }
    compute_quotient(d, QuotientConvention::kDivideByZ, std::span<F>(a), std::span<F>(b),
                     std::span<F>(c));
    for (size_t k = 0; k < n - 1; ++k) EXPECT_EQ(a[k], h[k]) << "n = " << n << ", k = " << k;
    EXPECT_EQ(a[n - 1], F::zero());
  }
}

TYPED_TEST(NttTest, QuotientSnarkjsOddCoset) {
  using F = TypeParam;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  for (size_t log : {0u, 2u, 4u}) {
    auto d = *Domain<F>::create(log);
    size_t n = d.size();
    std::vector<F> a, b, c, p;
    make_qap_instance(d, rng, a, b, c, p);
    compute_quotient(d, QuotientConvention::kSnarkjsOddCoset, std::span<F>(a), std::span<F>(b),
                     std::span<F>(c));
    F w2n = root_of_unity<F>(log + 1);
    for (size_t k = 0; k < n; ++k) {
      F x = w2n.pow(ff::BigInt<1>::from_u64(2 * k + 1));
      EXPECT_EQ(a[k], eval_poly(p, x)) << "n = " << n << ", k = " << k;
    }
  }
}

}  // namespace
}  // namespace snarkd::poly
