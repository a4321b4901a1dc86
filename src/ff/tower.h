// snarkd/ff: the extension tower Fp2 -> Fp6 -> Fp12 used by pairings and G2, written once for
// both curve families.
//
//   Fp2  = Fp[u] / (u^2 + 1)          (both curves have p = 3 mod 4, so -1 is a non-square)
//   Fp6  = Fp2[v] / (v^3 - xi)        xi = kXiReal + u  (1 + u for BLS12-381, 9 + u for BN254)
//   Fp12 = Fp6[w] / (w^2 - v)
//
// A tower config T supplies `using Base = Fp<...>` and `static constexpr uint64_t kXiReal`.
// Frobenius coefficients gamma_{1,k} = xi^(k(p-1)/6) and gamma_{2,k} = N(gamma_{1,k}) are
// derived from xi once, on first use, so there is nothing per curve to transcribe.
#pragma once

#include <cassert>
#include <cstdint>
#include <optional>

#include "ff/fp.h"

namespace snarkd::ff {

// x^e by square-and-multiply for any ring element type with one(), square() and *; the
// exponent is public (its bits steer the branches).
template <class R, size_t M>
R pow_public(const R& x, const BigInt<M>& e) {
  R result = R::one();
  for (size_t i = e.num_bits(); i-- > 0;) {
    result = result.square();
    if (e.bit(i)) result = result * x;
  }
  return result;
}

template <class T>
struct Fp2 {
  using Base = typename T::Base;
  Base c0, c1;

  static constexpr size_t kBytes = 2 * Base::kBytes;

  static constexpr Fp2 zero() { return {}; }
  static constexpr Fp2 one() { return {Base::one(), Base::zero()}; }
  bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  bool is_one() const { return *this == one(); }
  friend bool operator==(const Fp2& a, const Fp2& b) { return a.c0 == b.c0 && a.c1 == b.c1; }

  friend Fp2 operator+(const Fp2& a, const Fp2& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend Fp2 operator-(const Fp2& a, const Fp2& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  Fp2 operator-() const { return {-c0, -c1}; }
  Fp2& operator+=(const Fp2& b) { return *this = *this + b; }
  Fp2& operator-=(const Fp2& b) { return *this = *this - b; }
  Fp2& operator*=(const Fp2& b) { return *this = *this * b; }

  // Karatsuba: 3 base multiplications.
  friend Fp2 operator*(const Fp2& a, const Fp2& b) {
    Base t0 = a.c0 * b.c0;
    Base t1 = a.c1 * b.c1;
    Base t2 = (a.c0 + a.c1) * (b.c0 + b.c1);
    return {t0 - t1, t2 - t0 - t1};
  }
  // (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u: 2 multiplications.
  Fp2 square() const {
    Base t = c0 * c1;
    return {(c0 + c1) * (c0 - c1), t.dbl()};
  }
  Fp2 dbl() const { return {c0.dbl(), c1.dbl()}; }
  Fp2 halve() const { return {c0.halve(), c1.halve()}; }
  Fp2 mul_by_base(const Base& s) const { return {c0 * s, c1 * s}; }
  Fp2 conjugate() const { return {c0, -c1}; }
  Base norm() const { return c0.square() + c1.square(); }

  // Multiplication by xi = k + u: (a0 + a1 u)(k + u) = (k a0 - a1) + (a0 + k a1) u.
  Fp2 mul_by_xi() const {
    Base k0 = mul_small(c0, T::kXiReal);
    Base k1 = mul_small(c1, T::kXiReal);
    return {k0 - c1, c0 + k1};
  }

  Fp2 inverse() const {
    Base inv_norm = norm().inverse();
    return {c0 * inv_norm, -(c1 * inv_norm)};
  }

  // x^(p^power) is conjugation for odd powers.
  Fp2 frobenius(unsigned power) const { return power % 2 ? conjugate() : *this; }

  template <size_t M>
  Fp2 pow(const BigInt<M>& e) const {
    return pow_public(*this, e);
  }

  // 1, -1 or 0: an element of Fp2 is a square iff its norm is a square in Fp.
  int legendre() const { return norm().legendre(); }

  std::optional<Fp2> sqrt() const {
    if (c1.is_zero()) {
      if (auto r = c0.sqrt()) return Fp2{*r, Base::zero()};
      // c0 is a non-square, so -c0 is a square and (s u)^2 = -s^2 = c0.
      auto s = (-c0).sqrt();
      if (!s) return std::nullopt;
      return Fp2{Base::zero(), *s};
    }
    auto n = norm().sqrt();
    if (!n) return std::nullopt;
    Base d = (c0 + *n).halve();
    auto x0 = d.sqrt();
    if (!x0) {
      d = (c0 - *n).halve();
      x0 = d.sqrt();
      if (!x0) return std::nullopt;
    }
    Base x1 = c1 * x0->dbl().inverse();
    Fp2 root{*x0, x1};
    if (!(root.square() == *this)) return std::nullopt;
    return root;
  }

  template <class Rng>
  static Fp2 random(Rng& rng) {
    Base a = Base::random(rng);
    return {a, Base::random(rng)};
  }

 private:
  static Base mul_small(const Base& a, uint64_t k) {
    if (k == 1) return a;
    return a * Base::from_u64(k);
  }
};

// gamma_{1,k} = xi^(k(p-1)/6), gamma_{2,k} = gamma_{1,k}^(p+1) (an element of Fp) for k = 0..5.
template <class T>
struct FrobeniusCoefficients {
  Fp2<T> gamma1[6];
  Fp2<T> gamma2[6];

  static const FrobeniusCoefficients& get() {
    static const FrobeniusCoefficients coeffs = [] {
      using Base = typename T::Base;
      FrobeniusCoefficients c;
      auto e = Base::kModulus - Base::Int::from_u64(1);
      [[maybe_unused]] uint64_t rem = e.div_small(6);
      assert(rem == 0 && "p - 1 must be divisible by 6");
      Fp2<T> xi = Fp2<T>::one().mul_by_xi();
      Fp2<T> g = xi.pow(e);
      c.gamma1[0] = Fp2<T>::one();
      for (int k = 1; k < 6; ++k) c.gamma1[k] = c.gamma1[k - 1] * g;
      for (int k = 0; k < 6; ++k) c.gamma2[k] = c.gamma1[k] * c.gamma1[k].conjugate();
      return c;
    }();
    return coeffs;
  }
};

template <class T>
struct Fp6 {
  using F2 = Fp2<T>;
  F2 c0, c1, c2;  // c0 + c1 v + c2 v^2

  static Fp6 zero() { return {}; }
  static Fp6 one() { return {F2::one(), F2::zero(), F2::zero()}; }
  bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
  bool is_one() const { return *this == one(); }
  friend bool operator==(const Fp6& a, const Fp6& b) {
    return a.c0 == b.c0 && a.c1 == b.c1 && a.c2 == b.c2;
  }

  friend Fp6 operator+(const Fp6& a, const Fp6& b) {
    return {a.c0 + b.c0, a.c1 + b.c1, a.c2 + b.c2};
  }
  friend Fp6 operator-(const Fp6& a, const Fp6& b) {
    return {a.c0 - b.c0, a.c1 - b.c1, a.c2 - b.c2};
  }
  Fp6 operator-() const { return {-c0, -c1, -c2}; }
  Fp6& operator+=(const Fp6& b) { return *this = *this + b; }
  Fp6& operator-=(const Fp6& b) { return *this = *this - b; }
  Fp6& operator*=(const Fp6& b) { return *this = *this * b; }

  // Karatsuba-style interpolation: 6 Fp2 multiplications.
  friend Fp6 operator*(const Fp6& a, const Fp6& b) {
    F2 t0 = a.c0 * b.c0;
    F2 t1 = a.c1 * b.c1;
    F2 t2 = a.c2 * b.c2;
    F2 r0 = ((a.c1 + a.c2) * (b.c1 + b.c2) - t1 - t2).mul_by_xi() + t0;
    F2 r1 = (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1 + t2.mul_by_xi();
    F2 r2 = (a.c0 + a.c2) * (b.c0 + b.c2) - t0 - t2 + t1;
    return {r0, r1, r2};
  }
  // Chung-Hasan SQR2: 2 multiplications and 3 squarings in Fp2.
  Fp6 square() const {
    F2 s0 = c0.square();
    F2 ab = c0 * c1;
    F2 s1 = ab.dbl();
    F2 s2 = (c0 - c1 + c2).square();
    F2 bc = c1 * c2;
    F2 s3 = bc.dbl();
    F2 s4 = c2.square();
    return {s3.mul_by_xi() + s0, s4.mul_by_xi() + s1, s1 + s2 + s3 - s0 - s4};
  }
  Fp6 mul_by_fp2(const F2& s) const { return {c0 * s, c1 * s, c2 * s}; }
  // this * (b0 + b1 v): 5 Fp2 multiplications.
  Fp6 mul_by_01(const F2& b0, const F2& b1) const {
    F2 t0 = c0 * b0;
    F2 t1 = c1 * b1;
    return {t0 + (c2 * b1).mul_by_xi(), (c0 + c1) * (b0 + b1) - t0 - t1, t1 + c2 * b0};
  }
  // this * (b1 v): 3 Fp2 multiplications.
  Fp6 mul_by_1(const F2& b1) const { return {(c2 * b1).mul_by_xi(), c0 * b1, c1 * b1}; }
  // Multiplication by v: (c0 + c1 v + c2 v^2) v = xi c2 + c0 v + c1 v^2.
  Fp6 mul_by_v() const { return {c2.mul_by_xi(), c0, c1}; }

  template <size_t M>
  Fp6 pow(const BigInt<M>& e) const {
    return pow_public(*this, e);
  }

  Fp6 inverse() const {
    F2 a = c0.square() - (c1 * c2).mul_by_xi();
    F2 b = c2.square().mul_by_xi() - c0 * c1;
    F2 c = c1.square() - c0 * c2;
    F2 t = c0 * a + (c2 * b + c1 * c).mul_by_xi();
    F2 inv = t.inverse();
    return {a * inv, b * inv, c * inv};
  }

  // v = w^2, so coefficient k of v^k picks up gamma_{.,2k}.
  Fp6 frobenius(unsigned power) const {
    const auto& g = FrobeniusCoefficients<T>::get();
    switch (power % 6) {
      case 0: return *this;
      case 1: return {c0.conjugate(), c1.conjugate() * g.gamma1[2], c2.conjugate() * g.gamma1[4]};
      case 2: return {c0, c1 * g.gamma2[2], c2 * g.gamma2[4]};
      default: return frobenius(1).frobenius(power % 6 - 1);
    }
  }

  template <class Rng>
  static Fp6 random(Rng& rng) {
    F2 a = F2::random(rng);
    F2 b = F2::random(rng);
    return {a, b, F2::random(rng)};
  }
};

template <class T>
struct Fp12 {
  using F2 = Fp2<T>;
  using F6 = Fp6<T>;
  F6 c0, c1;  // c0 + c1 w

  static Fp12 zero() { return {}; }
  static Fp12 one() { return {F6::one(), F6::zero()}; }
  bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  bool is_one() const { return *this == one(); }
  friend bool operator==(const Fp12& a, const Fp12& b) { return a.c0 == b.c0 && a.c1 == b.c1; }

  friend Fp12 operator+(const Fp12& a, const Fp12& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend Fp12 operator-(const Fp12& a, const Fp12& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  Fp12 operator-() const { return {-c0, -c1}; }
  Fp12& operator*=(const Fp12& b) { return *this = *this * b; }

  // Karatsuba over Fp6: 3 Fp6 multiplications.
  friend Fp12 operator*(const Fp12& a, const Fp12& b) {
    F6 t0 = a.c0 * b.c0;
    F6 t1 = a.c1 * b.c1;
    F6 r1 = (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1;
    return {t0 + t1.mul_by_v(), r1};
  }
  // Complex squaring: 2 Fp6 multiplications.
  Fp12 square() const {
    F6 t = c0 * c1;
    F6 r0 = (c0 + c1) * (c0 + c1.mul_by_v()) - t - t.mul_by_v();
    return {r0, t + t};
  }

  Fp12 conjugate() const { return {c0, -c1}; }
  Fp12 inverse() const {
    F6 t = (c0.square() - c1.square().mul_by_v()).inverse();
    return {c0 * t, -(c1 * t)};
  }

  // Coefficients of w^k (c0: k = 0, 2, 4; c1: k = 1, 3, 5) pick up gamma_{.,k}.
  Fp12 frobenius(unsigned power) const {
    const auto& g = FrobeniusCoefficients<T>::get();
    switch (power % 12) {
      case 0: return *this;
      case 1:
        return {{c0.c0.conjugate(), c0.c1.conjugate() * g.gamma1[2],
                 c0.c2.conjugate() * g.gamma1[4]},
                {c1.c0.conjugate() * g.gamma1[1], c1.c1.conjugate() * g.gamma1[3],
                 c1.c2.conjugate() * g.gamma1[5]}};
      case 2:
        return {{c0.c0, c0.c1 * g.gamma2[2], c0.c2 * g.gamma2[4]},
                {c1.c0 * g.gamma2[1], c1.c1 * g.gamma2[3], c1.c2 * g.gamma2[5]}};
      default: return frobenius(2).frobenius(power % 12 - 2);
    }
  }

  // For elements of the cyclotomic subgroup (after the easy part of the final exponentiation),
  // where the inverse is the conjugate.
  template <size_t M>
  Fp12 pow(const BigInt<M>& e) const {
    return pow_public(*this, e);
  }

  // Squaring for elements of the cyclotomic subgroup (norm 1 over Fp6, as after the easy part
  // of the final exponentiation), Granger-Scott 2010. Viewing Fp12 as Fp4[w]/(w^3 - s) with
  // Fp4 = Fp2[s]/(s^2 - xi), s = w^3, f = A + B w + C w^2 squares to
  //   (3A^2 - 2 conj(A)) + (3 s C^2 + 2 conj(B)) w + (3B^2 - 2 conj(C)) w^2,
  // where conj negates the s part. Three Fp4 squarings instead of a full Fp12 squaring.
  // Wrong (silently) outside the subgroup.
  Fp12 cyclotomic_square() const {
    // A = c00 + c11 s, B = c10 + c02 s, C = c01 + c12 s (w^k basis: c0 = w^0,2,4; c1 = w^1,3,5).
    auto fp4_square = [](const F2& a, const F2& b, F2& re, F2& im) {
      F2 t0 = a.square();
      F2 t1 = b.square();
      re = t0 + t1.mul_by_xi();
      im = (a + b).square() - t0 - t1;
    };
    F2 a_re, a_im, b_re, b_im, c_re, c_im;
    fp4_square(c0.c0, c1.c1, a_re, a_im);
    fp4_square(c1.c0, c0.c2, b_re, b_im);
    fp4_square(c0.c1, c1.c2, c_re, c_im);
    auto times3_minus2 = [](const F2& sq, const F2& x) { return sq.dbl() + sq - x.dbl(); };
    auto times3_plus2 = [](const F2& sq, const F2& x) { return sq.dbl() + sq + x.dbl(); };
    Fp12 r;
    r.c0.c0 = times3_minus2(a_re, c0.c0);
    r.c1.c1 = times3_plus2(a_im, c1.c1);
    F2 s_c_re = c_im.mul_by_xi();  // s * (c_re + c_im s) = c_im xi + c_re s
    r.c1.c0 = times3_plus2(s_c_re, c1.c0);
    r.c0.c2 = times3_minus2(c_re, c0.c2);
    r.c0.c1 = times3_minus2(b_re, c0.c1);
    r.c1.c2 = times3_plus2(b_im, c1.c2);
    return r;
  }

  // this^e for this in the cyclotomic subgroup.
  template <size_t M>
  Fp12 cyclotomic_pow(const BigInt<M>& e) const {
    Fp12 result = one();
    for (size_t i = e.num_bits(); i-- > 0;) {
      result = result.cyclotomic_square();
      if (e.bit(i)) result *= *this;
    }
    return result;
  }

  template <class Rng>
  static Fp12 random(Rng& rng) {
    F6 a = F6::random(rng);
    return {a, F6::random(rng)};
  }
};

}  // namespace snarkd::ff
