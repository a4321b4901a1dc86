// snarkd/gpu: short Weierstrass points (a = 0) on the device, for the MSM kernels: affine
// inputs and XYZZ accumulators, the same formulas as ec/point.h (EFD madd-2008-s, add-2008-s,
// dbl-2008-s-1).
//
// DevAffine encodes the identity as (0, 0), which is never on a curve with b != 0, so the host's
// ec::Affine (x, y, flag) converts without a separate flag array.
#pragma once

#include "gpu/field.cuh"

namespace snarkd::gpu {

template <class P>
struct DevAffine {
  DevFp<P> x, y;
  __device__ __forceinline__ bool is_identity() const { return x.is_zero() && y.is_zero(); }
};

template <class P>
struct DevXyzz {
  using F = DevFp<P>;
  F X, Y, ZZ, ZZZ;

  __device__ __forceinline__ static DevXyzz identity() {
    DevXyzz r;
    r.X = F::one();
    r.Y = F::one();
    r.ZZ = F::zero();
    r.ZZZ = F::zero();
    return r;
  }
  __device__ __forceinline__ bool is_identity() const { return ZZ.is_zero(); }

  // dbl-2008-s-1
  __device__ __forceinline__ DevXyzz dbl() const {
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
  __device__ __forceinline__ DevXyzz add_affine(const DevAffine<P>& q) const {
    if (q.is_identity()) return *this;
    if (is_identity()) {
      DevXyzz r;
      r.X = q.x;
      r.Y = q.y;
      r.ZZ = F::one();
      r.ZZZ = F::one();
      return r;
    }
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
  __device__ __forceinline__ DevXyzz add(const DevXyzz& q) const {
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
};

}  // namespace snarkd::gpu
