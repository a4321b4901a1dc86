// snarkd/ec: short Weierstrass points y^2 = x^3 + b (a = 0) in affine, Jacobian and XYZZ
// coordinates, written once for every group (G1 over Fp, G2 over Fp2) of both curves.
//
// A curve config C supplies:
//   using Field;  using Scalar;            coordinate field and scalar field (Fr)
//   static Field b();                       the curve coefficient
//   static Affine<C> generator();
//   static bool in_subgroup(const Jacobian<C>&);   fast check where one exists
//   static constexpr const char* kName;     "BLS12-381 G1", used in error messages
//
// Formulas are the EFD's a = 0 formulas, named at each function. Functions ending in _vartime
// branch on secret-independent but data-dependent values (identity, equal inputs, scalar bits)
// and must not see secrets.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "ff/bigint.h"

namespace snarkd::ec {

using ff::BigInt;

template <class C>
struct Affine {
  using F = typename C::Field;
  F x{}, y{};
  bool infinity = true;

  static Affine identity() { return {}; }
  static Affine from_xy(const F& x, const F& y) { return {x, y, false}; }

  bool is_identity() const { return infinity; }
  // y^2 == x^3 + b; the identity counts as on the curve.
  bool is_on_curve() const { return infinity || y.square() == x.square() * x + C::b(); }
  Affine neg() const { return infinity ? *this : Affine{x, -y, false}; }

  friend bool operator==(const Affine& a, const Affine& b) {
    if (a.infinity || b.infinity) return a.infinity == b.infinity;
    return a.x == b.x && a.y == b.y;
  }
};

// x = X/Z^2, y = Y/Z^3; Z = 0 is the identity.
template <class C>
struct Jacobian {
  using F = typename C::Field;
  F X = F::one(), Y = F::one(), Z = F::zero();

  static Jacobian identity() { return {}; }
  static Jacobian from_affine(const Affine<C>& a) {
    if (a.infinity) return identity();
    return {a.x, a.y, F::one()};
  }
  bool is_identity() const { return Z.is_zero(); }
  Jacobian neg() const { return {X, -Y, Z}; }

  // Y^2 = X^3 + b Z^6.
  bool is_on_curve() const {
    if (is_identity()) return true;
    F z2 = Z.square();
    F z6 = z2.square() * z2;
    return Y.square() == X.square() * X + C::b() * z6;
  }

  // dbl-2009-l
  Jacobian dbl() const {
    if (is_identity()) return *this;
    F a = X.square();
    F b = Y.square();
    F c = b.square();
    F d = ((X + b).square() - a - c).dbl();
    F e = a.dbl() + a;
    F f = e.square();
    Jacobian r;
    r.X = f - d.dbl();
    r.Y = e * (d - r.X) - c.dbl().dbl().dbl();
    r.Z = (Y * Z).dbl();
    return r;
  }

  // add-2007-bl, with the doubling and inverse cases handled.
  Jacobian add(const Jacobian& q) const {
    if (is_identity()) return q;
    if (q.is_identity()) return *this;
    F z1z1 = Z.square();
    F z2z2 = q.Z.square();
    F u1 = X * z2z2;
    F u2 = q.X * z1z1;
    F s1 = Y * q.Z * z2z2;
    F s2 = q.Y * Z * z1z1;
    F h = u2 - u1;
    F rr = (s2 - s1).dbl();
    if (h.is_zero()) return rr.is_zero() ? dbl() : identity();
    F i = h.dbl().square();
    F j = h * i;
    F v = u1 * i;
    Jacobian r;
    r.X = rr.square() - j - v.dbl();
    r.Y = rr * (v - r.X) - (s1 * j).dbl();
    r.Z = ((Z + q.Z).square() - z1z1 - z2z2) * h;
    return r;
  }

  // madd-2007-bl (q has Z = 1).
  Jacobian add_mixed(const Affine<C>& q) const {
    if (q.infinity) return *this;
    if (is_identity()) return from_affine(q);
    F z1z1 = Z.square();
    F u2 = q.x * z1z1;
    F s2 = q.y * Z * z1z1;
    F h = u2 - X;
    F rr = (s2 - Y).dbl();
    if (h.is_zero()) return rr.is_zero() ? dbl() : identity();
    F hh = h.square();
    F i = hh.dbl().dbl();
    F j = h * i;
    F v = X * i;
    Jacobian r;
    r.X = rr.square() - j - v.dbl();
    r.Y = rr * (v - r.X) - (Y * j).dbl();
    r.Z = (Z + h).square() - z1z1 - hh;
    return r;
  }

  Affine<C> to_affine() const {
    if (is_identity()) return Affine<C>::identity();
    F zinv = Z.inverse();
    F zinv2 = zinv.square();
    return Affine<C>::from_xy(X * zinv2, Y * zinv2 * zinv);
  }

  // Projective equality: X1 Z2^2 = X2 Z1^2 and Y1 Z2^3 = Y2 Z1^3.
  friend bool operator==(const Jacobian& a, const Jacobian& b) {
    if (a.is_identity() || b.is_identity()) return a.is_identity() == b.is_identity();
    F az2 = a.Z.square();
    F bz2 = b.Z.square();
    return a.X * bz2 == b.X * az2 && a.Y * bz2 * b.Z == b.Y * az2 * a.Z;
  }
};

// x = X/ZZ, y = Y/ZZZ with ZZ^3 = ZZZ^2; ZZ = 0 is the identity. The bucket representation of
// Pippenger: mixed additions cost 8M + 2S and need no doubling check on the hot path.
template <class C>
struct Xyzz {
  using F = typename C::Field;
  F X = F::one(), Y = F::one(), ZZ = F::zero(), ZZZ = F::zero();

  static Xyzz identity() { return {}; }
  static Xyzz from_affine(const Affine<C>& a) {
    if (a.infinity) return identity();
    return {a.x, a.y, F::one(), F::one()};
  }
  bool is_identity() const { return ZZ.is_zero(); }
  Xyzz neg() const { return {X, -Y, ZZ, ZZZ}; }

  // dbl-2008-s-1
  Xyzz dbl() const {
    if (is_identity()) return *this;
    F u = Y.dbl();
    F v = u.square();
    F w = u * v;
    F s = X * v;
    F x2 = X.square();
    F m = x2.dbl() + x2;
    Xyzz r;
    r.X = m.square() - s.dbl();
    r.Y = m * (s - r.X) - w * Y;
    r.ZZ = v * ZZ;
    r.ZZZ = w * ZZZ;
    return r;
  }

  // add-2008-s
  Xyzz add(const Xyzz& q) const {
    if (is_identity()) return q;
    if (q.is_identity()) return *this;
    F u1 = X * q.ZZ;
    F u2 = q.X * ZZ;
    F s1 = Y * q.ZZZ;
    F s2 = q.Y * ZZZ;
    F p = u2 - u1;
    F rr = s2 - s1;
    if (p.is_zero()) return rr.is_zero() ? dbl() : identity();
    F pp = p.square();
    F ppp = p * pp;
    F qq = u1 * pp;
    Xyzz r;
    r.X = rr.square() - ppp - qq.dbl();
    r.Y = rr * (qq - r.X) - s1 * ppp;
    r.ZZ = ZZ * q.ZZ * pp;
    r.ZZZ = ZZZ * q.ZZZ * ppp;
    return r;
  }

  // madd-2008-s
  Xyzz add_mixed(const Affine<C>& q) const {
    if (q.infinity) return *this;
    if (is_identity()) return from_affine(q);
    F u2 = q.x * ZZ;
    F s2 = q.y * ZZZ;
    F p = u2 - X;
    F rr = s2 - Y;
    if (p.is_zero()) return rr.is_zero() ? dbl() : identity();
    F pp = p.square();
    F ppp = p * pp;
    F qq = X * pp;
    Xyzz r;
    r.X = rr.square() - ppp - qq.dbl();
    r.Y = rr * (qq - r.X) - Y * ppp;
    r.ZZ = ZZ * pp;
    r.ZZZ = ZZZ * ppp;
    return r;
  }

  Jacobian<C> to_jacobian() const {
    if (is_identity()) return Jacobian<C>::identity();
    // With Zj = ZZ*ZZZ: Xj/Zj^2 = X/ZZ and Yj/Zj^3 = Y/ZZZ, using ZZ^3 = ZZZ^2.
    F zzz2 = ZZZ.square();
    Jacobian<C> r;
    r.Z = ZZ * ZZZ;
    r.X = X * ZZ * zzz2;
    r.Y = Y * zzz2 * ZZ.square() * ZZ;
    return r;
  }

  Affine<C> to_affine() const {
    if (is_identity()) return Affine<C>::identity();
    return Affine<C>::from_xy(X * ZZ.inverse(), Y * ZZZ.inverse());
  }
};

// [k]P with a fixed 4-bit window; variable time in k.
template <class C, size_t M>
Jacobian<C> mul_vartime(const Jacobian<C>& p, const BigInt<M>& k) {
  constexpr int kWindow = 4;
  std::array<Jacobian<C>, 1 << kWindow> table;
  table[0] = Jacobian<C>::identity();
  for (size_t i = 1; i < table.size(); ++i) table[i] = table[i - 1].add(p);
  Jacobian<C> acc = Jacobian<C>::identity();
  size_t bits = k.num_bits();
  size_t top = (bits + kWindow - 1) / kWindow * kWindow;
  for (size_t pos = top; pos > 0; pos -= kWindow) {
    for (int d = 0; d < kWindow; ++d) acc = acc.dbl();
    unsigned digit = 0;
    for (int b = kWindow - 1; b >= 0; --b) digit = digit << 1 | unsigned(k.bit(pos - kWindow + b));
    if (digit) acc = acc.add(table[digit]);
  }
  return acc;
}

template <class C, size_t M>
Jacobian<C> mul_vartime(const Affine<C>& p, const BigInt<M>& k) {
  return mul_vartime(Jacobian<C>::from_affine(p), k);
}

// [r]P == identity: the definition of subgroup membership, used by tests as the reference for
// the fast endomorphism checks.
template <class C>
bool in_subgroup_by_order(const Jacobian<C>& p) {
  return mul_vartime(p, C::Scalar::kModulus).is_identity();
}

// Normalizes many points with one inversion (Montgomery's trick). Identities map to identities.
template <class C>
void batch_to_affine(std::span<const Jacobian<C>> in, std::span<Affine<C>> out) {
  using F = typename C::Field;
  std::vector<F> prefix(in.size());
  F acc = F::one();
  for (size_t i = 0; i < in.size(); ++i) {
    prefix[i] = acc;
    if (!in[i].is_identity()) acc *= in[i].Z;
  }
  F inv = acc.inverse();
  for (size_t i = in.size(); i-- > 0;) {
    if (in[i].is_identity()) {
      out[i] = Affine<C>::identity();
      continue;
    }
    F zinv = inv * prefix[i];
    inv *= in[i].Z;
    F zinv2 = zinv.square();
    out[i] = Affine<C>::from_xy(in[i].X * zinv2, in[i].Y * zinv2 * zinv);
  }
}

}  // namespace snarkd::ec
