// snarkd/msm: multi-scalar multiplication sum_i k_i * P_i on the CPU (Pippenger).
//
// Scalars are sorted into size classes first: zeros are skipped, ones are summed with plain
// mixed additions, and the rest go through a bucket method with signed c-bit digits (buckets
// 1..2^(c-1), a negative digit adds the negated point), XYZZ buckets and mixed additions.
// Work is split by points across the pool's threads; each thread handles every window of its
// chunk, so there is no shared state. The window c minimizes the addition count
// windows * (points per thread + 2^c) for the chunk size.
//
// Inputs: bases in affine form (the proving key's layout) and canonical scalars (< r).
// Allocations: one bucket array per thread per call, none per point.
#pragma once

#include <algorithm>
#include <span>
#include <vector>

#include "base/thread_pool.h"
#include "ec/point.h"
#include "ff/bigint.h"

namespace snarkd::msm {

using ec::Affine;
using ec::Jacobian;
using ec::Xyzz;

// The window size that minimizes additions for `points` points of `scalar_bits`-bit scalars.
inline size_t choose_window(size_t points, size_t scalar_bits) {
  size_t best_c = 1;
  double best_cost = 1e300;
  for (size_t c = 1; c <= 20; ++c) {
    size_t windows = (scalar_bits + 1 + c - 1) / c;  // +1: the signed-digit carry
    double cost = double(windows) * (double(points) + double(size_t(1) << c));
    if (cost < best_cost) {
      best_cost = cost;
      best_c = c;
    }
  }
  return best_c;
}

namespace detail {

template <size_t N>
bool is_one(const ff::BigInt<N>& k) {
  if (k[0] != 1) return false;
  for (size_t i = 1; i < N; ++i) {
    if (k[i] != 0) return false;
  }
  return true;
}

// Bits [offset, offset + c) of k (c <= 20).
template <size_t N>
uint64_t window_bits(const ff::BigInt<N>& k, size_t offset, size_t c) {
  size_t limb = offset / 64, shift = offset % 64;
  if (limb >= N) return 0;
  uint64_t v = k[limb] >> shift;
  if (shift + c > 64 && limb + 1 < N) v |= k[limb + 1] << (64 - shift);
  return v & ((uint64_t(1) << c) - 1);
}

// Pippenger over one contiguous chunk; returns the chunk's sum.
template <class C, size_t N>
Jacobian<C> pippenger_chunk(std::span<const Affine<C>> bases, std::span<const ff::BigInt<N>> scalars,
                            size_t c, size_t scalar_bits) {
  const size_t windows = (scalar_bits + 1 + c - 1) / c;
  const size_t bucket_count = size_t(1) << (c - 1);
  std::vector<Xyzz<C>> buckets(bucket_count);
  // Signed digits are produced window by window; carries live in a per-point array.
  std::vector<uint8_t> carry(bases.size(), 0);
  std::vector<Jacobian<C>> window_sums(windows);
  Xyzz<C> ones = Xyzz<C>::identity();
  for (size_t w = 0; w < windows; ++w) {
    std::fill(buckets.begin(), buckets.end(), Xyzz<C>::identity());
    for (size_t i = 0; i < bases.size(); ++i) {
      const auto& k = scalars[i];
      if (w == 0) {
        // Size classes: decided once, on the first window.
        if (k.is_zero()) {
          carry[i] = 2;  // marker: skip in every window
          continue;
        }
        if (is_one(k)) {
          ones = ones.add_mixed(bases[i]);
          carry[i] = 2;
          continue;
        }
      }
      if (carry[i] == 2) continue;
      uint64_t digit = window_bits(k, w * c, c) + carry[i];
      if (digit > bucket_count) {  // digit - 2^c, negative
        carry[i] = 1;
        uint64_t neg = (uint64_t(1) << c) - digit;
        if (neg) buckets[neg - 1] = buckets[neg - 1].add_mixed(bases[i].neg());
      } else {
        carry[i] = 0;
        if (digit) buckets[digit - 1] = buckets[digit - 1].add_mixed(bases[i]);
      }
    }
    // sum_j j * bucket_j by a running sum from the top bucket down.
    Xyzz<C> running = Xyzz<C>::identity();
    Xyzz<C> total = Xyzz<C>::identity();
    for (size_t j = bucket_count; j-- > 0;) {
      running = running.add(buckets[j]);
      total = total.add(running);
    }
    window_sums[w] = total.to_jacobian();
  }
  Jacobian<C> acc = Jacobian<C>::identity();
  for (size_t w = windows; w-- > 0;) {
    for (size_t d = 0; d < c; ++d) acc = acc.dbl();
    acc = acc.add(window_sums[w]);
  }
  return acc.add(ones.to_jacobian());
}

}  // namespace detail

// sum_i scalars[i] * bases[i]; scalars canonical and < r (bits above scalar_bits are ignored).
template <class C, size_t N>
Jacobian<C> msm(std::span<const Affine<C>> bases, std::span<const ff::BigInt<N>> scalars,
                ThreadPool& pool = ThreadPool::global()) {
  const size_t n = std::min(bases.size(), scalars.size());
  if (n == 0) return Jacobian<C>::identity();
  const size_t scalar_bits = C::Scalar::kModulusBits;
  const size_t threads = std::min(pool.size(), std::max<size_t>(1, n / 64));
  const size_t c = choose_window((n + threads - 1) / threads, scalar_bits);
  std::vector<Jacobian<C>> partial(threads, Jacobian<C>::identity());
  pool.parallel_for(
      threads,
      [&](size_t begin, size_t end) {
        for (size_t t = begin; t < end; ++t) {
          size_t lo = t * n / threads, hi = (t + 1) * n / threads;
          partial[t] = detail::pippenger_chunk<C, N>(bases.subspan(lo, hi - lo),
                                                     scalars.subspan(lo, hi - lo), c, scalar_bits);
        }
      },
      threads);
  Jacobian<C> sum = Jacobian<C>::identity();
  for (const auto& p : partial) sum = sum.add(p);
  return sum;
}

// Reference: sum of scalar multiplications, for tests.
template <class C, size_t N>
Jacobian<C> msm_naive(std::span<const Affine<C>> bases, std::span<const ff::BigInt<N>> scalars) {
  Jacobian<C> acc = Jacobian<C>::identity();
  for (size_t i = 0; i < std::min(bases.size(), scalars.size()); ++i) {
    acc = acc.add(ec::mul_vartime(bases[i], scalars[i]));
  }
  return acc;
}

}  // namespace snarkd::msm
