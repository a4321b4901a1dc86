// snarkd/gpu: short Weierstrass points (a = 0) on the device over any device field (DevFp for G1,
// DevFp2 for G2): affine inputs and XYZZ accumulators, the same formulas as ec/point.h (EFD
// madd-2008-s, add-2008-s, dbl-2008-s-1).
//
// DevAffine encodes the identity as (0, 0), which is never on a curve with b != 0, so the host's
// ec::Affine (x, y, flag) converts without a separate flag array. An all-zero DevXyzz (ZZ = 0) is
// the identity, so a zeroed buffer is a buffer of identities.
#pragma once

#include "gpu/field.cuh"

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

  // dbl-2008-s-1. Out of line, like add(): only add_affine is on the accumulation hot path, and
  // inlining every point operation made the GPU suite's PTX 130 MB (ptxas ran for minutes).
  __device__ __noinline__ DevXyzz dbl() const {
    if (is_identity()) return *this;
    F u = Y + Y;
    F v = u * u;
    F w = u * v;
    F s = X * v;
    F x2 = X * X;
    F m = x2 + x2 + x2;
    DevXyzz r;
    r.X = m * m - (s + s);
    r.Y = m * (s - r.X) - w * Y;
    r.ZZ = v * ZZ;
    r.ZZZ = w * ZZZ;
    return r;
  }

  // madd-2008-s; q is affine. Negation of q is by the caller (y -> -y).
  __device__ __forceinline__ DevXyzz add_affine(const DevAffine<F>& q) const {
    if (q.is_identity()) return *this;
    if (is_identity()) return {q.x, q.y, F::one(), F::one()};
    F u2 = q.x * ZZ;
    F s2 = q.y * ZZZ;
    F p = u2 - X;
    F rr = s2 - Y;
    if (p.is_zero()) {
      if (rr.is_zero()) return dbl();
      return identity();
    }
    F pp = p * p;
    F ppp = p * pp;
    F qq = X * pp;
    DevXyzz r;
    r.X = rr * rr - ppp - (qq + qq);
    r.Y = rr * (qq - r.X) - Y * ppp;
    r.ZZ = ZZ * pp;
    r.ZZZ = ZZZ * ppp;
    return r;
  }

  // add-2008-s
  __device__ __noinline__ DevXyzz add(const DevXyzz& q) const {
    if (is_identity()) return q;
    if (q.is_identity()) return *this;
    F u1 = X * q.ZZ;
    F u2 = q.X * ZZ;
    F s1 = Y * q.ZZZ;
    F s2 = q.Y * ZZZ;
    F p = u2 - u1;
    F rr = s2 - s1;
    if (p.is_zero()) {
      if (rr.is_zero()) return dbl();
      return identity();
    }
    F pp = p * p;
    F ppp = p * pp;
    F qq = u1 * pp;
    DevXyzz r;
    r.X = rr * rr - ppp - (qq + qq);
    r.Y = rr * (qq - r.X) - s1 * ppp;
    r.ZZ = ZZ * q.ZZ * pp;
    r.ZZZ = ZZZ * q.ZZZ * ppp;
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
