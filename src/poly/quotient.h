// snarkd/poly: the Groth16 quotient h from the constraint evaluations a, b, c.
//
// Two conventions, matching the two key formats (shared/DESIGN.md):
//  * kSnarkjsOddCoset: snarkjs zkeys hold H as the odd Lagrange points of the 2n domain. a, b, c
//    are interpolated, evaluated on the coset w_2n * <w_n> (the odd points), and the H-MSM
//    scalars are a*b - c there, with no division by Z: n scalars.
//  * kDivideByZ: bellperson keys hold [tau^i Z(tau) / delta]. The coset is g * <w_n> for a shift g
//    outside the domain; (a*b - c) / (g^n - 1) is interpolated back to the coefficients of
//    h = (A B - C) / Z, of degree <= n - 2: the first n - 1 are the scalars.
#pragma once

#include <span>

#include "poly/domain.h"

namespace snarkd::poly {

enum class QuotientConvention { kSnarkjsOddCoset, kDivideByZ };

inline const char* quotient_convention_name(QuotientConvention c) {
  return c == QuotientConvention::kSnarkjsOddCoset ? "snarkjs-odd-coset" : "divide-by-z";
}

// The coset shift for kDivideByZ: the smallest integer g >= 2 with g^n != 1 for every domain
// size (a quadratic non-residue has the full 2-adic part in its order, so g^n != 1 for n < r-1).
template <class F>
const F& coset_shift() {
  static const F g = [] {
    F z = F::from_u64(2);
    while (z.legendre() != -1) z += F::one();
    return z;
  }();
  return g;
}

// Number of H-MSM scalars the convention produces for a domain of size n.
inline size_t quotient_scalar_count(QuotientConvention c, size_t n) {
  return c == QuotientConvention::kSnarkjsOddCoset ? n : n - 1;
}

// a, b, c hold evaluations on the domain (length domain.size()); on return a holds the H-MSM
// scalars (quotient_scalar_count of them, the rest zero); b and c are scratch.
template <class F>
void compute_quotient(const Domain<F>& domain, QuotientConvention convention, std::span<F> a,
                      std::span<F> b, std::span<F> c) {
  const size_t n = domain.size();
  F shift;
  if (convention == QuotientConvention::kSnarkjsOddCoset) {
    shift = root_of_unity<F>(domain.log_size() + 1);
  } else {
    shift = coset_shift<F>();
  }
  for (auto v : {a, b, c}) {
    domain.intt(v);
    domain.coset_ntt(v, shift);
  }
  if (convention == QuotientConvention::kSnarkjsOddCoset) {
    for (size_t i = 0; i < n; ++i) a[i] = a[i] * b[i] - c[i];
    return;
  }
  // Z(g w^i) = g^n - 1 is the same at every coset point.
  F z_inv = (shift.pow(ff::BigInt<1>::from_u64(n)) - F::one()).inverse();
  for (size_t i = 0; i < n; ++i) a[i] = (a[i] * b[i] - c[i]) * z_inv;
  domain.coset_intt(a, shift);
}

}  // namespace snarkd::poly
