// snarkd/gpu: a device field over the FP64-pipe product (fp64_mont.h) with the interface of
// DevFp that the point formulas (point.cuh) use, so DevXyzz<Fp64Field<...>> runs the same
// madd-2008-s as the integer MSM, and Fp2Lane<Fp64Field<...>> the G2 lane pairs. The BLS12-381
// MSM kernels use it (point.cuh's switches say which groups); `gpu_bench affine` times it against
// the integer field.
//
// Elements are fully reduced (value below p, limbs in [0, 2^L)), so equality and the zero test
// compare limbs. The Montgomery R' = 2^(N L) equals the integer form's R for BLS12-381 Fp (8 x 48
// bits), so values convert between the two layouts by repacking the bits; for BN254 Fp (5 x 51
// bits) R' = R / 2, so a value is also halved on the way in and doubled on the way out.
#pragma once

#include "ff/bls12_381.h"
#include "ff/bn254.h"
#include "gpu/field.cuh"
#include "gpu/fp64_mont.h"

namespace snarkd::gpu {

// Limbs of each field's FP64 form.
template <class P>
struct Fp64Layout;
template <>
struct Fp64Layout<ff::bls12_381::FqParams> {
  static constexpr int N = 8, L = 48;
};
template <>
struct Fp64Layout<ff::bn254::FqParams> {
  static constexpr int N = 5, L = 51;
};

namespace constants {
static __constant__ fp64::Modulus<8, 48> kFp64Bls12_381Fq =
    fp64::make_modulus<ff::bls12_381::FqParams, 8, 48>();
static __constant__ fp64::Modulus<5, 51> kFp64Bn254Fq =
    fp64::make_modulus<ff::bn254::FqParams, 5, 51>();
}  // namespace constants

template <class P>
struct Fp64DeviceModulus;
template <>
struct Fp64DeviceModulus<ff::bls12_381::FqParams> {
  __device__ __forceinline__ static const auto& get() { return constants::kFp64Bls12_381Fq; }
};
template <>
struct Fp64DeviceModulus<ff::bn254::FqParams> {
  __device__ __forceinline__ static const auto& get() { return constants::kFp64Bn254Fq; }
};

// kOutOfLine: the product is one called copy instead of being inlined at each use (an inlined
// FP64 product is about a thousand instructions; the integer MSM kernels call theirs for the
// instruction cache's sake, docs/perf.md "instruction fetch").
template <class P, fp64::Fp64Form kForm, bool kOutOfLine = true>
struct Fp64Field {
  static constexpr int N = Fp64Layout<P>::N, L = Fp64Layout<P>::L;
  double v[N];

  __device__ __forceinline__ static const fp64::Modulus<N, L>& mod() {
    return Fp64DeviceModulus<P>::get();
  }
  __device__ __forceinline__ static Fp64Field zero() {
    Fp64Field r;
#pragma unroll
    for (int j = 0; j < N; ++j) r.v[j] = 0.0;
    return r;
  }
  __device__ __forceinline__ static Fp64Field one() {
    Fp64Field r;
#pragma unroll
    for (int j = 0; j < N; ++j) r.v[j] = mod().one[j];
    return r;
  }
  __device__ __forceinline__ bool is_zero() const {
    bool zero = true;
#pragma unroll
    for (int j = 0; j < N; ++j) zero &= v[j] == 0.0;
    return zero;
  }
  __device__ __forceinline__ friend bool operator==(const Fp64Field& a, const Fp64Field& b) {
    bool same = true;
#pragma unroll
    for (int j = 0; j < N; ++j) same &= a.v[j] == b.v[j];
    return same;
  }
  __device__ __forceinline__ friend Fp64Field operator+(const Fp64Field& a, const Fp64Field& b) {
    Fp64Field r;
    fp64::add_mod<N, L>(a.v, b.v, r.v, mod());
    return r;
  }
  __device__ __forceinline__ friend Fp64Field operator-(const Fp64Field& a, const Fp64Field& b) {
    Fp64Field r;
    fp64::sub_mod<N, L>(a.v, b.v, r.v, mod());
    return r;
  }
  // By value: a reference parameter would put the operands in local memory.
  __device__ __noinline__ static Fp64Field mul_out_of_line(Fp64Field a, Fp64Field b) {
    return mul_inline(a, b);
  }
  __device__ __forceinline__ static Fp64Field mul_inline(const Fp64Field& a, const Fp64Field& b) {
    Fp64Field r;
    fp64::mont_mul<N, L, kForm>(a.v, b.v, r.v, mod());
    return r;
  }
  __device__ __forceinline__ friend Fp64Field operator*(const Fp64Field& a, const Fp64Field& b) {
    if constexpr (kOutOfLine) {
      return mul_out_of_line(a, b);
    } else {
      return mul_inline(a, b);
    }
  }
  __device__ __forceinline__ Fp64Field square() const { return *this * *this; }
  __device__ __forceinline__ Fp64Field dbl() const { return *this + *this; }
  static constexpr bool kPairedProducts = false;
  __device__ __forceinline__ static FieldPair<Fp64Field> mul_pair(const Fp64Field& a,
                                                                  const Fp64Field& b,
                                                                  const Fp64Field& c,
                                                                  const Fp64Field& d) {
    return separate_products(a, b, c, d);
  }
  __device__ __forceinline__ static FieldPair<Fp64Field> square_pair(const Fp64Field& a,
                                                                     const Fp64Field& b) {
    return {a.square(), b.square()};
  }
  // 1 / a (zero for zero) through the integer form's inversion: off the hot paths (the
  // batch-affine benchmark).
  __device__ __forceinline__ Fp64Field inverse() const;
  // The integer form's register type of the same value (kernels that store through it).
  template <MulForm kTo>
  __device__ __forceinline__ DevFp<P, kTo> as() const;
};

// log2(R / R') between the integer layout (2K 32-bit words, R = 2^(64 K)) and the FP64 limbs.
template <class P>
constexpr int fp64_r_shift() {
  return 32 * DevFp<P>::N - Fp64Layout<P>::N * Fp64Layout<P>::L;
}

// Between the integer layout and the FP64 limbs: the bits repacked, after halving the value when
// R' = R / 2 (and doubling it on the way back).
template <class P, fp64::Fp64Form kForm, bool kOutOfLine>
__device__ __forceinline__ Fp64Field<P, kForm, kOutOfLine> to_fp64(const DevFp<P>& in) {
  using F = Fp64Field<P, kForm, kOutOfLine>;
  constexpr int kShift = fp64_r_shift<P>();
  static_assert(kShift == 0 || kShift == 1, "the two forms' Montgomery R differ by more than 2");
  DevFp<P> x = in;
  if constexpr (kShift == 1) x = in.halve();
  F r;
#pragma unroll
  for (int j = 0; j < F::N; ++j) {
    uint64_t limb = 0;
#pragma unroll
    for (int w = 0; w < DevFp<P>::N; ++w) {
      const int lo = 32 * w - j * F::L;  // bit position of word w within limb j
      if (lo > -32 && lo < F::L) limb |= lo >= 0 ? uint64_t(x.v[w]) << lo : uint64_t(x.v[w]) >> -lo;
    }
    r.v[j] = fp64::Radix<F::N, F::L>::to_double(limb & fp64::Radix<F::N, F::L>::kMask);
  }
  return r;
}
template <class P, fp64::Fp64Form kForm, bool kOutOfLine>
__device__ __forceinline__ DevFp<P> from_fp64(const Fp64Field<P, kForm, kOutOfLine>& x) {
  using F = Fp64Field<P, kForm, kOutOfLine>;
  DevFp<P> r;
#pragma unroll
  for (int w = 0; w < DevFp<P>::N; ++w) r.v[w] = 0;
#pragma unroll
  for (int j = 0; j < F::N; ++j) {
    const uint64_t limb = fp64::Radix<F::N, F::L>::to_int_unsigned(x.v[j]);
#pragma unroll
    for (int w = 0; w < DevFp<P>::N; ++w) {
      const int lo = j * F::L - 32 * w;  // bit position of limb j within word w
      if (lo > -F::L && lo < 32) r.v[w] |= uint32_t(lo >= 0 ? limb << lo : limb >> -lo);
    }
  }
  if constexpr (fp64_r_shift<P>() == 1) r = r + r;
  return r;
}

template <class P, fp64::Fp64Form kForm, bool kOutOfLine>
__device__ __forceinline__ Fp64Field<P, kForm, kOutOfLine>
Fp64Field<P, kForm, kOutOfLine>::inverse() const {
  return to_fp64<P, kForm, kOutOfLine>(from_fp64(*this).inverse());
}
template <class P, fp64::Fp64Form kForm, bool kOutOfLine>
template <MulForm kTo>
__device__ __forceinline__ DevFp<P, kTo> Fp64Field<P, kForm, kOutOfLine>::as() const {
  return from_fp64(*this).template as<kTo>();
}

}  // namespace snarkd::gpu
