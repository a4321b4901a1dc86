// snarkd/gpu: prime-field arithmetic on the device, generic over the same parameter structs as
// ff::Fp<P>.
//
// Elements are N = 2 * P::kLimbs 32-bit limbs in Montgomery form with the same R = 2^(64 *
// P::kLimbs) as the CPU, so host ff::Fp<P> arrays copy to the device bit for bit. The modulus and
// -p^-1 mod 2^32 live in constant memory (one copy per translation unit), derived from P by
// constexpr code. Multiplication is CIOS with 64-bit accumulators; this is the correct baseline
// that tuned PTX versions are measured against (docs/perf.md).
#pragma once

#include <cstdint>

#include "ff/fp.h"

namespace snarkd::gpu {

template <class P>
struct FieldConstants {
  static constexpr int N = 2 * int(P::kLimbs);
  uint32_t modulus[N];
  uint32_t one[N];  // R mod p
  uint32_t inv;     // -p^-1 mod 2^32
};

template <class P>
constexpr FieldConstants<P> make_field_constants() {
  FieldConstants<P> c{};
  using H = ff::Fp<P>;
  for (int i = 0; i < FieldConstants<P>::N; ++i) {
    c.modulus[i] = uint32_t(H::kModulus[size_t(i) / 2] >> (32 * (i % 2)));
    c.one[i] = uint32_t(H::kR[size_t(i) / 2] >> (32 * (i % 2)));
  }
  c.inv = uint32_t(H::kInv);  // -p^-1 mod 2^64, reduced mod 2^32
  return c;
}

// Each field's constants: specialised in field_constants.cuh for the four fields.
template <class P>
struct DeviceConstants;

template <class P>
struct DevFp {
  static constexpr int N = FieldConstants<P>::N;
  uint32_t v[N];

  __device__ __forceinline__ static const FieldConstants<P>& k() {
    return DeviceConstants<P>::get();
  }
  __device__ __forceinline__ static DevFp zero() {
    DevFp r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.v[i] = 0;
    return r;
  }
  __device__ __forceinline__ static DevFp one() {
    DevFp r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.v[i] = k().one[i];
    return r;
  }
  __device__ __forceinline__ bool is_zero() const {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) acc |= v[i];
    return acc == 0;
  }
  __device__ __forceinline__ friend bool operator==(const DevFp& a, const DevFp& b) {
    uint32_t acc = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) acc |= a.v[i] ^ b.v[i];
    return acc == 0;
  }

  // x in [0, 2p) -> [0, p)
  __device__ __forceinline__ static void reduce_once(uint32_t* x) {
    uint32_t t[N];
    uint64_t borrow = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      uint64_t d = uint64_t(x[i]) - k().modulus[i] - borrow;
      t[i] = uint32_t(d);
      borrow = (d >> 32) & 1;
    }
    // borrow = 1: x < p, keep x.
#pragma unroll
    for (int i = 0; i < N; ++i) x[i] = borrow ? x[i] : t[i];
  }

  __device__ __forceinline__ friend DevFp operator+(const DevFp& a, const DevFp& b) {
    DevFp r;
    uint64_t carry = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      uint64_t s = uint64_t(a.v[i]) + b.v[i] + carry;
      r.v[i] = uint32_t(s);
      carry = s >> 32;
    }
    reduce_once(r.v);  // the spare top bit means no carry out
    return r;
  }
  __device__ __forceinline__ friend DevFp operator-(const DevFp& a, const DevFp& b) {
    DevFp r;
    uint64_t borrow = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      uint64_t d = uint64_t(a.v[i]) - b.v[i] - borrow;
      r.v[i] = uint32_t(d);
      borrow = (d >> 32) & 1;
    }
    if (borrow) {
      uint64_t carry = 0;
#pragma unroll
      for (int i = 0; i < N; ++i) {
        uint64_t s = uint64_t(r.v[i]) + k().modulus[i] + carry;
        r.v[i] = uint32_t(s);
        carry = s >> 32;
      }
    }
    return r;
  }

  // CIOS Montgomery multiplication, no-final-carry variant (the modulus has a spare top bit).
  __device__ __forceinline__ friend DevFp operator*(const DevFp& a, const DevFp& b) {
    uint32_t t[N + 1];
#pragma unroll
    for (int i = 0; i <= N; ++i) t[i] = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) {
      uint64_t carry = 0;
#pragma unroll
      for (int j = 0; j < N; ++j) {
        uint64_t s = uint64_t(a.v[j]) * b.v[i] + t[j] + carry;
        t[j] = uint32_t(s);
        carry = s >> 32;
      }
      t[N] = uint32_t(carry);
      uint32_t m = t[0] * k().inv;
      uint64_t s = uint64_t(m) * k().modulus[0] + t[0];
      carry = s >> 32;
#pragma unroll
      for (int j = 1; j < N; ++j) {
        s = uint64_t(m) * k().modulus[j] + t[j] + carry;
        t[j - 1] = uint32_t(s);
        carry = s >> 32;
      }
      t[N - 1] = t[N] + uint32_t(carry);
    }
    DevFp r;
#pragma unroll
    for (int i = 0; i < N; ++i) r.v[i] = t[i];
    reduce_once(r.v);
    return r;
  }
  __device__ __forceinline__ DevFp& operator*=(const DevFp& b) { return *this = *this * b; }
  __device__ __forceinline__ DevFp& operator+=(const DevFp& b) { return *this = *this + b; }
};

static_assert(sizeof(DevFp<ff::bls12_381::FqParams>) == sizeof(ff::bls12_381::Fq));

}  // namespace snarkd::gpu
