// snarkd/msm: multi-scalar multiplication sum_i k_i * P_i on the CPU (Pippenger).
//
// Scalars are sorted into size classes first: zeros are skipped, ones are summed with plain
// mixed additions, and the rest go through a bucket method with signed c-bit digits (buckets
// 1..2^(c-1), a negative digit adds the negated point), XYZZ buckets and mixed additions.
// Work is split by points across the pool's threads; each thread handles every window of its
// chunk, so there is no shared state. The window c minimizes the modelled cost
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
    // Weighting the 2^c reduction additions by their higher cost (full XYZZ additions, about
    // 2.5 batched-affine ones) picked smaller windows that measured slower (docs/perf.md).
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

// Bucket accumulation with batched affine additions. Each bucket holds an affine point; up to
// kBatch additions into distinct buckets share one field inversion (Montgomery's trick), so an
// addition costs about 6 multiplications instead of the 10 of an XYZZ mixed addition. A point
// whose bucket already waits in the current batch, or whose addition would be a doubling or
// give the identity, goes to the bucket's XYZZ overflow accumulator instead, so no pattern of
// scalars can make batches degenerate.
template <class C>
class AffineBuckets {
 public:
  using F = typename C::Field;
  static constexpr size_t kBatch = 512;

  explicit AffineBuckets(size_t count)
      : point_(count), has_(count, 0), pending_(count, 0), overflow_(count) {
    batch_bucket_.reserve(kBatch);
    batch_point_.reserve(kBatch);
    scratch_.resize(kBatch);
  }

  void reset() {
    std::fill(has_.begin(), has_.end(), 0);
    std::fill(overflow_.begin(), overflow_.end(), Xyzz<C>::identity());
  }

  void add(size_t bucket, const Affine<C>& p) {
    if (pending_[bucket]) {
      overflow_[bucket] = overflow_[bucket].add_mixed(p);
    } else if (!has_[bucket]) {
      point_[bucket] = p;
      has_[bucket] = 1;
    } else if (point_[bucket].x == p.x) {
      overflow_[bucket] = overflow_[bucket].add_mixed(p);  // doubling or inverse: rare
    } else {
      pending_[bucket] = 1;
      batch_bucket_.push_back(uint32_t(bucket));
      batch_point_.push_back(p);
      if (batch_bucket_.size() == kBatch) flush();
    }
  }

  // Applies the pending additions: lambda = (y2 - y1) / (x2 - x1) with one shared inversion.
  void flush() {
    const size_t n = batch_bucket_.size();
    if (n == 0) return;
    F acc = F::one();
    for (size_t i = 0; i < n; ++i) {
      scratch_[i] = acc;  // prefix product of the denominators before i
      acc *= batch_point_[i].x - point_[batch_bucket_[i]].x;
    }
    F inv = acc.inverse();
    for (size_t i = n; i-- > 0;) {
      Affine<C>& b = point_[batch_bucket_[i]];
      const Affine<C>& p = batch_point_[i];
      F dx = p.x - b.x;
      F dx_inv = inv * scratch_[i];
      inv *= dx;
      F lambda = (p.y - b.y) * dx_inv;
      F x3 = lambda.square() - b.x - p.x;
      b.y = lambda * (b.x - x3) - b.y;
      b.x = x3;
      pending_[batch_bucket_[i]] = 0;
    }
    batch_bucket_.clear();
    batch_point_.clear();
  }

  // sum_j (j + 1) * bucket_j, by a running sum from the top bucket down.
  Jacobian<C> weighted_sum() {
    flush();
    Xyzz<C> running = Xyzz<C>::identity();
    Xyzz<C> total = Xyzz<C>::identity();
    for (size_t j = point_.size(); j-- > 0;) {
      running = running.add(overflow_[j]);
      if (has_[j]) running = running.add_mixed(point_[j]);
      total = total.add(running);
    }
    return total.to_jacobian();
  }

 private:
  std::vector<Affine<C>> point_;
  std::vector<uint8_t> has_, pending_;
  std::vector<Xyzz<C>> overflow_;
  std::vector<uint32_t> batch_bucket_;
  std::vector<Affine<C>> batch_point_;
  std::vector<F> scratch_;
};

// Pippenger over one contiguous chunk; returns the chunk's sum.
template <class C, size_t N>
Jacobian<C> pippenger_chunk(std::span<const Affine<C>> bases, std::span<const ff::BigInt<N>> scalars,
                            size_t c, size_t scalar_bits) {
  const size_t windows = (scalar_bits + 1 + c - 1) / c;
  const size_t bucket_count = size_t(1) << (c - 1);
  AffineBuckets<C> buckets(bucket_count);
  // Signed digits are produced window by window; carries live in a per-point array
  // (2 marks a point settled by its size class or an identity base).
  std::vector<uint8_t> carry(bases.size(), 0);
  std::vector<Jacobian<C>> window_sums(windows);
  Xyzz<C> ones = Xyzz<C>::identity();
  for (size_t i = 0; i < bases.size(); ++i) {
    const auto& k = scalars[i];
    if (k.is_zero() || bases[i].infinity) {
      carry[i] = 2;
    } else if (is_one(k)) {
      ones = ones.add_mixed(bases[i]);
      carry[i] = 2;
    }
  }
  for (size_t w = 0; w < windows; ++w) {
    buckets.reset();
    for (size_t i = 0; i < bases.size(); ++i) {
      if (carry[i] == 2) continue;
      uint64_t digit = window_bits(scalars[i], w * c, c) + carry[i];
      if (digit > bucket_count) {  // digit - 2^c, negative
        carry[i] = 1;
        uint64_t neg = (uint64_t(1) << c) - digit;
        if (neg) buckets.add(neg - 1, bases[i].neg());
      } else {
        carry[i] = 0;
        if (digit) buckets.add(digit - 1, bases[i]);
      }
    }
    window_sums[w] = buckets.weighted_sum();
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
