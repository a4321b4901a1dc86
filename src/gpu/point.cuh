// snarkd/gpu: short Weierstrass points (a = 0) on the device over any device field (DevFp for G1,
// DevFp2 for G2): affine inputs and XYZZ accumulators, the same formulas as ec/point.h (EFD
// madd-2008-s, add-2008-s, dbl-2008-s-1).
//
// DevAffine encodes the identity as (0, 0), which is never on a curve with b != 0, so the host's
// ec::Affine (x, y, flag) converts without a separate flag array. An all-zero DevXyzz (ZZ = 0) is
// the identity, so a zeroed buffer is a buffer of identities.
#pragma once

#include <type_traits>

#include "gpu/field.cuh"
#include "gpu/fp64_field.cuh"

namespace snarkd::gpu {

template <class F>
struct DevAffine {
  F x, y;
  __device__ __forceinline__ bool is_identity() const { return x.is_zero() && y.is_zero(); }
  __device__ __forceinline__ static DevAffine identity() { return {F::zero(), F::zero()}; }
  __device__ __forceinline__ DevAffine negate() const { return {x, F::zero() - y}; }
};

template <class F>
struct DevXyzz {
  F X, Y, ZZ, ZZZ;

  __device__ __forceinline__ static DevXyzz identity() {
    DevXyzz r;
    r.X = F::one();
    r.Y = F::one();
    r.ZZ = F::zero();
    r.ZZZ = F::zero();
    return r;
  }
  __device__ __forceinline__ static DevXyzz from_affine(const DevAffine<F>& q) {
    if (q.is_identity()) return identity();
    return {q.x, q.y, F::one(), F::one()};
  }
  __device__ __forceinline__ bool is_identity() const { return ZZ.is_zero(); }
  __device__ __forceinline__ DevXyzz negate() const { return {X, F::zero() - Y, ZZ, ZZZ}; }

  // The formulas below make their products in pairs (F::mul_pair, F::square_pair): with the
  // out-of-line product, a pair is one call whose two chains overlap.

  // dbl-2008-s-1. Out of line, like add(): only add_affine is on the accumulation hot path, and
  // inlining every point operation made the GPU suite's PTX 130 MB (ptxas ran for minutes).
  __device__ __noinline__ DevXyzz dbl() const {
    if (is_identity()) return *this;
    F u = Y + Y;
    auto [v, x2] = F::square_pair(u, X);
    auto [w, s] = F::mul_pair(u, v, X, v);
    F m = x2 + x2 + x2;
    DevXyzz r;
    r.X = m.square() - (s + s);
    auto [t, wy] = F::mul_pair(m, s - r.X, w, Y);
    r.Y = t - wy;
    auto [zz, zzz] = F::mul_pair(v, ZZ, w, ZZZ);
    r.ZZ = zz;
    r.ZZZ = zzz;
    return r;
  }

  // mdbl-2008-s-1: 2 q for affine q (ZZ = ZZZ = 1 saves the two Z multiplications).
  __device__ __noinline__ static DevXyzz double_affine(DevAffine<F> q) {
    F u = q.y + q.y;
    auto [v, x2] = F::square_pair(u, q.x);
    auto [w, s] = F::mul_pair(u, v, q.x, v);
    F m = x2 + x2 + x2;
    DevXyzz r;
    r.X = m.square() - (s + s);
    auto [t, wy] = F::mul_pair(m, s - r.X, w, q.y);
    r.Y = t - wy;
    r.ZZ = v;
    r.ZZZ = w;
    return r;
  }

  // madd-2008-s; q is affine. Negation of q is by the caller (y -> -y).
  __device__ __forceinline__ DevXyzz add_affine(const DevAffine<F>& q) const {
    if (q.is_identity()) return *this;
    if (is_identity()) return {q.x, q.y, F::one(), F::one()};
    auto [u2, s2] = F::mul_pair(q.x, ZZ, q.y, ZZZ);
    F p = u2 - X;
    F rr = s2 - Y;
    if (p.is_zero()) {
      // this == q: double q itself, so the accumulator's address is never taken (a call on
      // *this put the whole accumulator in local memory: a 192-byte stack frame for BLS12-381).
      if (rr.is_zero()) return double_affine(q);
      return identity();
    }
    DevXyzz r;
    if constexpr (F::kPairedProducts) {
      auto [pp, r2] = F::square_pair(p, rr);
      auto [ppp, qq] = F::mul_pair(p, pp, X, pp);
      r.X = r2 - ppp - (qq + qq);
      auto [zz, zzz] = F::mul_pair(ZZ, pp, ZZZ, ppp);
      auto [t, yp] = F::mul_pair(rr, qq - r.X, Y, ppp);
      r.Y = t - yp;
      r.ZZ = zz;
      r.ZZZ = zzz;
    } else {
      // One product at a time, rr^2 as late as it can be: pairing forces it early, and the
      // longer-lived registers made the rows form of BLS12-381 G1 5% slower (docs/perf.md).
      F pp = p.square();
      F ppp = p * pp;
      F qq = X * pp;
      r.X = rr.square() - ppp - (qq + qq);
      r.Y = rr * (qq - r.X) - Y * ppp;
      r.ZZ = ZZ * pp;
      r.ZZZ = ZZZ * ppp;
    }
    return r;
  }

  // add-2008-s
  __device__ __noinline__ DevXyzz add(const DevXyzz& q) const {
    if (is_identity()) return q;
    if (q.is_identity()) return *this;
    auto [u1, u2] = F::mul_pair(X, q.ZZ, q.X, ZZ);
    auto [s1, s2] = F::mul_pair(Y, q.ZZZ, q.Y, ZZZ);
    F p = u2 - u1;
    F rr = s2 - s1;
    if (p.is_zero()) {
      if (rr.is_zero()) return dbl();
      return identity();
    }
    auto [pp, r2] = F::square_pair(p, rr);
    auto [ppp, qq] = F::mul_pair(p, pp, u1, pp);
    DevXyzz r;
    r.X = r2 - ppp - (qq + qq);
    auto [zz, zzz] = F::mul_pair(ZZ, q.ZZ, ZZZ, q.ZZZ);
    auto [zz_pp, zzz_ppp] = F::mul_pair(zz, pp, zzz, ppp);
    auto [t, sp] = F::mul_pair(rr, qq - r.X, s1, ppp);
    r.Y = t - sp;
    r.ZZ = zz_pp;
    r.ZZZ = zzz_ppp;
    return r;
  }

  // k * this by double-and-add (k small: bucket-reduction weights).
  __device__ __noinline__ DevXyzz mul_small(uint32_t k) const {
    DevXyzz r = identity();
    for (int bit = 31; bit >= 0; --bit) {
      r = r.dbl();
      if ((k >> bit) & 1) r = r.add(*this);
    }
    return r;
  }

  // (X / ZZ, Y / ZZZ) with one field inversion.
  __device__ __noinline__ DevAffine<F> to_affine() const {
    if (is_identity()) return DevAffine<F>::identity();
    F inv = (ZZ * ZZZ).inverse();
    return {X * (inv * ZZZ), Y * (inv * ZZ)};
  }
};

// The multiplication form of the MSM kernels' registers, by group and limb count. With paired
// products (split form only) and the prefetch, BN254 G2 accumulation at 2^24 runs 1.32x faster
// in the split form than in rows (docs/perf.md, "paired products"). Earlier, measured on
// the H200 at 2^20..2^24 (docs/perf.md, "GPU MSM, fourth version"): the split form made BN254 G1
// accumulation 1.26x and BLS12-381 G2 accumulation 1.10x faster, and BLS12-381 G1 (under its
// 128-register cap) and BN254 G2 slower. The product is called out of line (MulForm): at 2^24
// that made accumulation 1.17x (BLS12-381 G1), 1.04x (BN254 G1), 1.36x (BLS12-381 G2) and 1.19x
// (BN254 G2) faster. SNARKD_MSM_INLINE_MUL builds the inlined variant for such comparisons.
// All four now use the wide form (64-bit-accumulator CIOS, half the SASS of the PTX chains): at
// 2^24 it made the MSMs 1.58x (BLS12-381 G1), 1.52x (BN254 G1), 1.17x (BLS12-381 G2) and 1.18x
// (BN254 G2) faster than these forms (docs/perf.md, "product forms measured"); the split
// switches stay for builds with a SNARKD_MSM_WIDE_* switch at 0. SNARKD_MSM_PAIR_WIDE_* choose
// paired wide products (kWideOutOfLine) or single ones (kWideSingleOutOfLine): single ones made
// BLS12-381 G2 accumulation 1.06x faster and BLS12-381 G1 1.32x slower, and left both BN254
// kernels within 2%. Under the Karatsuba lane product (field.cuh) paired ones made BLS12-381 G2
// accumulation 1.06x faster instead (562.2 -> 530.1 ms at 2^24, H100; the MSM 649.6 -> 617.3 ms
// with the suites passing on that build, fourteenth session), so SNARKD_MSM_PAIR_WIDE_G2_12 is 1.
#ifndef SNARKD_MSM_SPLIT_G1_8
#define SNARKD_MSM_SPLIT_G1_8 1
#endif
#ifndef SNARKD_MSM_SPLIT_G1_12
#define SNARKD_MSM_SPLIT_G1_12 0
#endif
#ifndef SNARKD_MSM_SPLIT_G2_8
#define SNARKD_MSM_SPLIT_G2_8 1
#endif
#ifndef SNARKD_MSM_SPLIT_G2_12
#define SNARKD_MSM_SPLIT_G2_12 1
#endif
// SNARKD_MSM_WIDE_* select the 64-bit-accumulator product (MulForm::kWide*) instead.
#ifndef SNARKD_MSM_WIDE_G1_8
#define SNARKD_MSM_WIDE_G1_8 1
#endif
#ifndef SNARKD_MSM_WIDE_G1_12
#define SNARKD_MSM_WIDE_G1_12 1
#endif
#ifndef SNARKD_MSM_WIDE_G2_8
#define SNARKD_MSM_WIDE_G2_8 1
#endif
#ifndef SNARKD_MSM_WIDE_G2_12
#define SNARKD_MSM_WIDE_G2_12 1
#endif
#ifndef SNARKD_MSM_PAIR_WIDE_G1_8
#define SNARKD_MSM_PAIR_WIDE_G1_8 1
#endif
#ifndef SNARKD_MSM_PAIR_WIDE_G1_12
#define SNARKD_MSM_PAIR_WIDE_G1_12 1
#endif
#ifndef SNARKD_MSM_PAIR_WIDE_G2_8
#define SNARKD_MSM_PAIR_WIDE_G2_8 1
#endif
#ifndef SNARKD_MSM_PAIR_WIDE_G2_12
#define SNARKD_MSM_PAIR_WIDE_G2_12 1
#endif
template <class P>
constexpr MulForm msm_form(bool g2) {
  const bool twelve = DevFp<P>::N == 12;
  const bool split = g2 ? (twelve ? SNARKD_MSM_SPLIT_G2_12 : SNARKD_MSM_SPLIT_G2_8)
                        : (twelve ? SNARKD_MSM_SPLIT_G1_12 : SNARKD_MSM_SPLIT_G1_8);
  const bool wide = g2 ? (twelve ? SNARKD_MSM_WIDE_G2_12 : SNARKD_MSM_WIDE_G2_8)
                       : (twelve ? SNARKD_MSM_WIDE_G1_12 : SNARKD_MSM_WIDE_G1_8);
  const bool paired = g2 ? (twelve ? SNARKD_MSM_PAIR_WIDE_G2_12 : SNARKD_MSM_PAIR_WIDE_G2_8)
                         : (twelve ? SNARKD_MSM_PAIR_WIDE_G1_12 : SNARKD_MSM_PAIR_WIDE_G1_8);
#ifdef SNARKD_MSM_INLINE_MUL
  return wide ? MulForm::kWide : split ? MulForm::kSplit : MulForm::kRows;
#else
  if (wide) return paired ? MulForm::kWideOutOfLine : MulForm::kWideSingleOutOfLine;
  return split ? MulForm::kSplitOutOfLine : MulForm::kRowsOutOfLine;
#endif
}

// How kernels hold points of field F in registers. Fp points: one lane a point. Fp2 points: two
// lanes a point (Fp2Lane), each loading and storing its half of every coordinate of the same
// stored layout, so buffers are shared with one-lane kernels. The register field type carries the
// multiplication form (msm_form) or the FP64 field (msm_on_fp64).
template <class F>
struct PointLanes {
  using Reg = F;
  static constexpr uint32_t kLanes = 1;
  __device__ __forceinline__ static DevAffine<Reg> load(const DevAffine<F>* p) { return *p; }
  __device__ __forceinline__ static DevXyzz<Reg> load(const DevXyzz<F>* p) { return *p; }
  __device__ __forceinline__ static void store(DevXyzz<F>* p, const DevXyzz<Reg>& v) { *p = v; }
};

// SNARKD_MSM_FP64_G1_12 (BLS12-381, on by default) and SNARKD_MSM_FP64_G1_8 (BN254, off) make
// the G1 kernels that hold points through PointLanes (accumulation, combine, the first reduction
// level, sums of ones) compute on the FP64-pipe field (fp64_field.cuh): 8 x 48-bit limbs in form
// SNARKD_MSM_FP64_FORM (an Fp64Form, default chained-float), or 5 x 51 bits with integer sums.
// Points keep the integer layout in memory and convert on load and store. On an H100 at 2^24
// the BLS12-381 G1 MSM ran 1.18x faster (186.7 -> 157.7 ms; chained-mixed 162.6) and whole
// BLS12-381 proofs 1.07-1.08x; BN254 ran 0.98x (82.9 -> 84.5 ms), so it stays on the integers
// (docs/perf.md, "The FP64 product measured").
#ifndef SNARKD_MSM_FP64_G1_12
#define SNARKD_MSM_FP64_G1_12 1
#endif
#ifndef SNARKD_MSM_FP64_G1_8
#define SNARKD_MSM_FP64_G1_8 0
#endif
#ifndef SNARKD_MSM_FP64_FORM
#define SNARKD_MSM_FP64_FORM 3
#endif
// SNARKD_MSM_FP64_G2_12 / _G2_8: the same for the G2 kernels (each lane of a pair holds its half
// of the Fp2 coordinates on the FP64 field). Off: the BLS12-381 G2 MSM at 2^24 ran 0.87x so
// (659.3 -> 753.7 ms on an H100); its accumulation kernel, at 255 registers on the integers,
// spills 458 bytes on doubles (docs/perf.md, "BLS12-381 G2 on the FP64 field").
#ifndef SNARKD_MSM_FP64_G2_12
#define SNARKD_MSM_FP64_G2_12 0
#endif
#ifndef SNARKD_MSM_FP64_G2_8
#define SNARKD_MSM_FP64_G2_8 0
#endif
template <class P>
constexpr bool msm_on_fp64(bool g2 = false) {
  if constexpr (std::is_same_v<P, ff::bls12_381::FqParams>) {
    return g2 ? SNARKD_MSM_FP64_G2_12 : SNARKD_MSM_FP64_G1_12;
  }
  if constexpr (std::is_same_v<P, ff::bn254::FqParams>) {
    return g2 ? SNARKD_MSM_FP64_G2_8 : SNARKD_MSM_FP64_G1_8;
  }
  return false;
}
template <class P>
constexpr fp64::Fp64Form msm_fp64_form() {
  return Fp64Layout<P>::L == 48 ? fp64::Fp64Form(SNARKD_MSM_FP64_FORM)
                                : fp64::Fp64Form::kIntegerSums;
}

// How a kernel holds one stored base-field coordinate in registers: on the integer field in the
// product form msm_form picks (G1 or G2 kernels), or on the FP64-pipe field. in() converts a
// stored coordinate, out() converts back to the stored layout.
template <class P, bool kFp64, bool kG2>
struct CoordinateField {
  static constexpr MulForm kForm = msm_form<P>(kG2);
  using Reg = DevFp<P, kForm>;
  __device__ __forceinline__ static Reg in(const DevFp<P>& x) { return x.template as<kForm>(); }
  __device__ __forceinline__ static DevFp<P> out(const Reg& x) {
    return x.template as<MulForm::kRows>();
  }
};
template <class P, bool kG2>
struct CoordinateField<P, true, kG2> {
  static constexpr fp64::Fp64Form kForm = msm_fp64_form<P>();
  using Reg = Fp64Field<P, kForm, true>;
  __device__ __forceinline__ static Reg in(const DevFp<P>& x) { return to_fp64<P, kForm, true>(x); }
  __device__ __forceinline__ static DevFp<P> out(const Reg& x) { return from_fp64(x); }
};

// Fp points, one lane a point. Loads read the whole stored point at once, then convert.
template <class P, bool kFp64 = msm_on_fp64<P>()>
struct FpPointLanes {
  using Field = CoordinateField<P, kFp64, false>;
  using Reg = typename Field::Reg;
  static constexpr uint32_t kLanes = 1;
  __device__ __forceinline__ static DevAffine<Reg> load(const DevAffine<DevFp<P>>* p) {
    const DevAffine<DevFp<P>> q = *p;
    return {Field::in(q.x), Field::in(q.y)};
  }
  __device__ __forceinline__ static DevXyzz<Reg> load(const DevXyzz<DevFp<P>>* p) {
    const DevXyzz<DevFp<P>> q = *p;
    return {Field::in(q.X), Field::in(q.Y), Field::in(q.ZZ), Field::in(q.ZZZ)};
  }
  __device__ __forceinline__ static void store(DevXyzz<DevFp<P>>* p, const DevXyzz<Reg>& v) {
    *p = {Field::out(v.X), Field::out(v.Y), Field::out(v.ZZ), Field::out(v.ZZZ)};
  }
};

template <class P>
struct PointLanes<DevFp<P>> : FpPointLanes<P> {};

// Fp2 points, two lanes a point: each lane reads and writes its half of every coordinate through
// the pointer (a whole-point read would load both halves).
template <class P, bool kFp64 = msm_on_fp64<P>(true)>
struct Fp2PointLanes {
  using Field = CoordinateField<P, kFp64, true>;
  using Reg = Fp2Lane<typename Field::Reg>;
  static constexpr uint32_t kLanes = 2;
  __device__ __forceinline__ static Reg half_of(const DevFp2<P>& x) {
    return {Field::in((&x.c0)[Reg::half()])};
  }
  __device__ __forceinline__ static void set_half(DevFp2<P>& x, const Reg& v) {
    (&x.c0)[Reg::half()] = Field::out(v.v);
  }
  __device__ __forceinline__ static DevAffine<Reg> load(const DevAffine<DevFp2<P>>* p) {
    return {half_of(p->x), half_of(p->y)};
  }
  __device__ __forceinline__ static DevXyzz<Reg> load(const DevXyzz<DevFp2<P>>* p) {
    return {half_of(p->X), half_of(p->Y), half_of(p->ZZ), half_of(p->ZZZ)};
  }
  __device__ __forceinline__ static void store(DevXyzz<DevFp2<P>>* p, const DevXyzz<Reg>& v) {
    set_half(p->X, v.X);
    set_half(p->Y, v.Y);
    set_half(p->ZZ, v.ZZ);
    set_half(p->ZZZ, v.ZZZ);
  }
};

template <class P>
struct PointLanes<DevFp2<P>> : Fp2PointLanes<P> {};

// Register budget of the kernels whose loop adds affine points into one accumulator (MSM
// accumulation, sums of ones); launch them with kAccumulateThreads threads a block. MSM
// accumulation is latency-bound (ncu: 2 warps per scheduler, 0.42 eligible, an issue every 6.25
// cycles). With the PTX products 12-limb G1 ran 1.38x faster capped at 128 registers for 16
// warps an SM (447 -> 306 ms at 2^24). Under the wide product the cap no longer pays: at 4
// blocks an SM (216 registers, no spills, against 172 bytes spilled at 128) it ran 1.06x faster at
// 2^24 (158.8 -> 150.4 ms; 6 blocks, 168 registers: 162.0 ms; docs/perf.md, "product forms
// measured"). The 8-limb G1 (168 registers; 128 took 64.2 against 63.3 ms) and the G2 kernels
// keep the compiler's choice. The -D switches build variants for such timings.
constexpr uint32_t kAccumulateThreads = 64;
#ifndef SNARKD_ACCUMULATE_MIN_BLOCKS_G1_12
#define SNARKD_ACCUMULATE_MIN_BLOCKS_G1_12 4
#endif
#ifndef SNARKD_ACCUMULATE_MIN_BLOCKS_G1_8
#define SNARKD_ACCUMULATE_MIN_BLOCKS_G1_8 1
#endif
template <class F>
constexpr int accumulate_min_blocks() {
  if (PointLanes<F>::kLanes != 1) return 1;
  return sizeof(F) == 48 ? SNARKD_ACCUMULATE_MIN_BLOCKS_G1_12 : SNARKD_ACCUMULATE_MIN_BLOCKS_G1_8;
}

// Sum of one point per thread over a block of kThreads (a power of two), returned to every
// thread; `shared` holds kThreads points.
template <class F, uint32_t kThreads>
__device__ DevXyzz<F> block_sum(DevXyzz<F> v, DevXyzz<F>* shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (uint32_t stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) shared[threadIdx.x] = shared[threadIdx.x].add(shared[threadIdx.x + stride]);
    __syncthreads();
  }
  DevXyzz<F> r = shared[0];
  __syncthreads();
  return r;
}

}  // namespace snarkd::gpu
