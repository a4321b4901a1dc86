// snarkd/msm: many scalar multiplications of one fixed base (key generation), by a table of
// [d * 2^(w i)] G for every w-bit window i and digit d: each product is one mixed addition per
// window, no doublings.
#pragma once

#include <span>
#include <vector>

#include "base/thread_pool.h"
#include "ec/point.h"

namespace snarkd::msm {

template <class C>
class FixedBaseTable {
 public:
  static constexpr size_t kWindow = 8;

  explicit FixedBaseTable(const ec::Affine<C>& base) {
    const size_t bits = C::Scalar::kModulusBits;
    windows_ = (bits + kWindow - 1) / kWindow;
    std::vector<ec::Jacobian<C>> table(windows_ << kWindow);
    ec::Jacobian<C> window_base = ec::Jacobian<C>::from_affine(base);
    for (size_t i = 0; i < windows_; ++i) {
      ec::Jacobian<C> acc = ec::Jacobian<C>::identity();
      for (size_t d = 0; d < (size_t(1) << kWindow); ++d) {
        table[(i << kWindow) + d] = acc;
        acc = acc.add(window_base);
      }
      window_base = acc;  // 2^w times the previous window base
    }
    table_.resize(table.size());
    ec::batch_to_affine<C>(table, table_);
  }

  template <size_t N>
  ec::Jacobian<C> mul(const ff::BigInt<N>& k) const {
    ec::Jacobian<C> acc = ec::Jacobian<C>::identity();
    for (size_t i = 0; i < windows_; ++i) {
      size_t digit = 0;
      for (size_t b = 0; b < kWindow; ++b) digit |= size_t(k.bit(i * kWindow + b)) << b;
      if (digit) acc = acc.add_mixed(table_[(i << kWindow) + digit]);
    }
    return acc;
  }

  // out[i] = scalars[i] * base, normalized to affine; threaded.
  template <size_t N>
  void mul_many(std::span<const ff::BigInt<N>> scalars, std::span<ec::Affine<C>> out,
                ThreadPool& pool = ThreadPool::global()) const {
    std::vector<ec::Jacobian<C>> tmp(scalars.size());
    pool.parallel_for(scalars.size(), [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) tmp[i] = mul(scalars[i]);
      ec::batch_to_affine<C>(std::span<const ec::Jacobian<C>>(tmp).subspan(begin, end - begin),
                             out.subspan(begin, end - begin));
    });
  }

 private:
  size_t windows_ = 0;
  std::vector<ec::Affine<C>> table_;
};

}  // namespace snarkd::msm
