// snarkd/poly: radix-2 evaluation domains over a scalar field, the NTT, cosets, and the two
// Groth16 quotient conventions.
//
// Domain<F> holds the 2^k-th root of unity w and the twiddles w^0..w^(n/2-1). The root is
// z^((r-1)/2^s)^(2^(s-k)) for z the smallest quadratic non-residue (>= 2), the same choice
// ffjavascript (snarkjs) makes, so evaluation points agree with snarkjs keys point by point.
// All transforms work in place in natural order and use ThreadPool::global() for n >= 2^12.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/thread_pool.h"
#include "ff/bigint.h"

namespace snarkd::poly {

// The primitive 2^log_order-th root of unity of F (log_order <= F::kTwoAdicity).
template <class F>
F root_of_unity(size_t log_order) {
  static const F top = [] {
    F z = F::from_u64(2);
    while (z.legendre() != -1) z += F::one();
    return z.pow(F::kTwoAdicCofactor);
  }();
  F w = top;
  for (size_t i = log_order; i < F::kTwoAdicity; ++i) w = w.square();
  return w;
}

template <class F>
class Domain {
 public:
  static constexpr size_t kMaxLogSize = 28;

  static Result<Domain> create(size_t log_size) {
    if (log_size > F::kTwoAdicity || log_size > kMaxLogSize) {
      return invalid_argument(std::string(F::name()) + ": no evaluation domain of size 2^" +
                              std::to_string(log_size) + " (largest is 2^" +
                              std::to_string(std::min(F::kTwoAdicity, kMaxLogSize)) + ")");
    }
    Domain d;
    d.log_size_ = log_size;
    d.size_ = size_t(1) << log_size;
    d.omega_ = root_of_unity<F>(log_size);
    d.omega_inv_ = d.omega_.inverse();
    d.size_inv_ = F::from_u64(d.size_).inverse();
    d.twiddles_.resize(std::max<size_t>(1, d.size_ / 2));
    powers_into(d.omega_, F::one(), d.twiddles_);
    return d;
  }

  // Smallest domain holding at least n points.
  static Result<Domain> for_size(size_t n) {
    size_t log = 0;
    while ((size_t(1) << log) < n) ++log;
    return create(log);
  }

  size_t size() const { return size_; }
  size_t log_size() const { return log_size_; }
  const F& omega() const { return omega_; }
  const F& omega_inv() const { return omega_inv_; }
  const F& size_inv() const { return size_inv_; }

  // Coefficients -> evaluations at w^0..w^(n-1).
  void ntt(std::span<F> values) const {
    bit_reverse(values);
    butterflies(values);
  }
  // Evaluations -> coefficients: NTT, index reversal i -> n - i, scaling by 1/n.
  void intt(std::span<F> values) const {
    ntt(values);
    for (size_t i = 1; i < size_ / 2 + (size_ & 1); ++i) std::swap(values[i], values[size_ - i]);
    scale(values, size_inv_);
  }
  // Coefficients -> evaluations at shift * w^i.
  void coset_ntt(std::span<F> values, const F& shift) const {
    scale_by_powers(values, shift);
    ntt(values);
  }
  // Evaluations at shift * w^i -> coefficients.
  void coset_intt(std::span<F> values, const F& shift) const {
    intt(values);
    scale_by_powers(values, shift.inverse());
  }

  // values[i] *= c
  static void scale(std::span<F> values, const F& c) {
    parallel(values.size(), [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) values[i] *= c;
    });
  }
  // values[i] *= g^i
  static void scale_by_powers(std::span<F> values, const F& g) {
    parallel(values.size(), [&](size_t begin, size_t end) {
      F p = g.pow(ff::BigInt<1>::from_u64(begin));
      for (size_t i = begin; i < end; ++i) {
        values[i] *= p;
        p *= g;
      }
    });
  }
  // out[i] = start * g^i
  static void powers_into(const F& g, const F& start, std::span<F> out) {
    parallel(out.size(), [&](size_t begin, size_t end) {
      F p = start * g.pow(ff::BigInt<1>::from_u64(begin));
      for (size_t i = begin; i < end; ++i) {
        out[i] = p;
        p *= g;
      }
    });
  }

 private:
  static constexpr size_t kParallelThreshold = size_t(1) << 12;

  template <class Fn>
  static void parallel(size_t n, const Fn& fn) {
    if (n < kParallelThreshold) {
      fn(0, n);
    } else {
      ThreadPool::global().parallel_for(n, fn);
    }
  }

  void bit_reverse(std::span<F> values) const {
    if (log_size_ == 0) return;
    for (size_t i = 0; i < size_; ++i) {
      size_t j = reverse_bits(i);
      if (i < j) std::swap(values[i], values[j]);
    }
  }
  size_t reverse_bits(size_t i) const {
    size_t r = 0;
    for (size_t b = 0; b < log_size_; ++b) r |= ((i >> b) & 1) << (log_size_ - 1 - b);
    return r;
  }

  // Iterative decimation-in-time butterflies; every stage is split over butterfly indices, so
  // both early (many small blocks) and late (few large blocks) stages use every thread.
  void butterflies(std::span<F> a) const {
    for (size_t len = 2; len <= size_; len <<= 1) {
      size_t half = len / 2;
      size_t step = size_ / len;
      parallel(size_ / 2, [&](size_t begin, size_t end) {
        for (size_t b = begin; b < end; ++b) {
          size_t block = b / half, j = b % half;
          size_t i = block * len + j;
          F v = a[i + half] * twiddles_[j * step];
          a[i + half] = a[i] - v;
          a[i] += v;
        }
      });
    }
  }

  size_t log_size_ = 0;
  size_t size_ = 1;
  F omega_ = F::one();
  F omega_inv_ = F::one();
  F size_inv_ = F::one();
  std::vector<F> twiddles_;
};

}  // namespace snarkd::poly
