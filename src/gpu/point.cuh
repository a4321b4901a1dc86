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
#include "gpu/policy.cuh"

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

// The multiplication form of the MSM kernels' registers: the field's row of KernelPolicy
// (gpu/policy.cuh). Every form computes the same product; they differ in speed by kernel.
template <class P>
constexpr MulForm msm_form(bool g2) {
  return g2 ? KernelPolicy<P>::kG2Form : KernelPolicy<P>::kG1Form;
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

// Whether the kernels that hold points through PointLanes (accumulation, combine, the first
// reduction level, sums of ones) compute on the FP64-pipe field (fp64_field.cuh), and in which
// form; points keep the integer layout in memory and convert on load and store. G2's lanes each
// hold their half of the Fp2 coordinates on that field. The field's row of KernelPolicy says.
template <class P>
constexpr bool msm_on_fp64(bool g2 = false) {
  return g2 ? KernelPolicy<P>::kG2OnFp64 : KernelPolicy<P>::kG1OnFp64;
}
template <class P>
constexpr fp64::Fp64Form msm_fp64_form() {
  return KernelPolicy<P>::kFp64Form;
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
// keep the compiler's choice. The blocks an SM are KernelPolicy's kAccumulateMinBlocksG1.
constexpr uint32_t kAccumulateThreads = 64;
template <class F>
struct BaseParamsOf;
template <class P, MulForm kForm>
struct BaseParamsOf<DevFp<P, kForm>> {
  using type = P;
};
template <class F>
constexpr int accumulate_min_blocks() {
  if constexpr (PointLanes<F>::kLanes != 1) {
    return 1;
  } else {
    return KernelPolicy<typename BaseParamsOf<F>::type>::kAccumulateMinBlocksG1;
  }
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
