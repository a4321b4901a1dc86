// snarkd/ec: the untwist-Frobenius-twist endomorphism psi on G2, shared by the BN Miller loop
// and the fast G2 subgroup checks of both curves.
//
// For a D-type twist (E': y^2 = x^3 + b/xi, BN254) the untwisting map is (x, y) -> (x w^2, y w^3),
// so psi(x, y) = (conj(x) gamma_{1,2}, conj(y) gamma_{1,3}). For an M-type twist
// (E': y^2 = x^3 + b xi, BLS12-381) it is (x, y) -> (x w^-2, y w^-3) and the constants are
// inverted. On the r-torsion, psi acts as multiplication by p mod r.
#pragma once

#include "ec/point.h"
#include "ff/tower.h"

namespace snarkd::ec {

enum class TwistType { kD, kM };

// C is a G2 config with `using Tower` and `static constexpr TwistType kTwist`.
template <class C>
struct PsiConstants {
  using F2 = typename C::Field;
  F2 cx, cy;

  static const PsiConstants& get() {
    static const PsiConstants constants = [] {
      const auto& g = ff::FrobeniusCoefficients<typename C::Tower>::get();
      PsiConstants c;
      if constexpr (C::kTwist == TwistType::kD) {
        c.cx = g.gamma1[2];
        c.cy = g.gamma1[3];
      } else {
        c.cx = g.gamma1[2].inverse();
        c.cy = g.gamma1[3].inverse();
      }
      return c;
    }();
    return constants;
  }
};

template <class C>
Affine<C> psi(const Affine<C>& p) {
  if (p.infinity) return p;
  const auto& k = PsiConstants<C>::get();
  return Affine<C>::from_xy(p.x.conjugate() * k.cx, p.y.conjugate() * k.cy);
}

// Jacobian form: x = X/Z^2 maps to conj(X)/conj(Z)^2 * cx, so Z is conjugated too.
template <class C>
Jacobian<C> psi(const Jacobian<C>& p) {
  const auto& k = PsiConstants<C>::get();
  return {p.X.conjugate() * k.cx, p.Y.conjugate() * k.cy, p.Z.conjugate()};
}

}  // namespace snarkd::ec
