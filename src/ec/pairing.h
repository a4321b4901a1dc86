// snarkd/ec: optimal ate pairing and multi-pairing for the BLS12 and BN families, written once.
//
// An engine config E supplies G1, G2 (curve configs), Tower, kFamily, the curve seed |x| as kX
// and its sign as kXNegative. Miller loop: Q stays in homogeneous projective coordinates on the
// twist; each step yields a line with three Fp2 coefficients (times yP, times xP, constant)
// whose position in Fp12 depends on the twist type (derivation in docs/pairing.md).
//
// The final exponentiation raises to m * (p^12 - 1) / r with the same m that blst, gnark and
// @noble/curves use, so values compare equal with them: m = 3 for BLS12 (hard part
// (x-1)^2 (x+p)(x^2+p^2-1) + 3) and m = 2x(6x^2+3x+1) for BN (Fuentes-Castaneda et al.). Any m
// coprime to r gives a non-degenerate bilinear pairing; tests check both the identity against an
// independent big-integer exponent and the values against noble.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "ec/endomorphism.h"
#include "ec/point.h"
#include "ff/tower.h"

namespace snarkd::ec {

enum class PairingFamily { kBls12, kBn };

template <class E>
class Pairing {
 public:
  using G1 = typename E::G1;
  using G2 = typename E::G2;
  using F = typename G1::Field;
  using F2 = typename G2::Field;
  using F12 = ff::Fp12<typename E::Tower>;
  using G1Affine = Affine<G1>;
  using G2Affine = Affine<G2>;
  using Pair = std::pair<G1Affine, G2Affine>;

  // Product of the Miller functions of all pairs with one shared squaring chain. Pairs with an
  // identity point contribute 1.
  static F12 miller_loop(std::span<const Pair> pairs) {
    std::vector<Pair> live;
    live.reserve(pairs.size());
    for (const auto& pr : pairs) {
      if (!pr.first.infinity && !pr.second.infinity) live.push_back(pr);
    }
    F12 f = F12::one();
    if (live.empty()) return f;
    std::vector<Projective> t(live.size());
    for (size_t i = 0; i < live.size(); ++i) t[i] = {live[i].second.x, live[i].second.y, F2::one()};

    const auto& digits = loop_digits();
    for (size_t d = 1; d < digits.size(); ++d) {  // digits[0] == 1 is T = Q
      f = f.square();
      for (size_t i = 0; i < live.size(); ++i) f = mul_by_line(f, doubling_step(t[i]), live[i].first);
      if (digits[d] != 0) {
        for (size_t i = 0; i < live.size(); ++i) {
          G2Affine q = digits[d] > 0 ? live[i].second : live[i].second.neg();
          f = mul_by_line(f, addition_step(t[i], q), live[i].first);
        }
      }
    }
    if constexpr (E::kFamily == PairingFamily::kBls12) {
      if (E::kXNegative) f = f.conjugate();
    } else {
      // BN: two more lines, through pi(Q) and -pi^2(Q).
      for (size_t i = 0; i < live.size(); ++i) {
        G2Affine q1 = psi(live[i].second);
        G2Affine q2 = psi(q1).neg();
        f = mul_by_line(f, addition_step(t[i], q1), live[i].first);
        f = mul_by_line(f, addition_step(t[i], q2), live[i].first);
      }
    }
    return f;
  }

  static F12 final_exponentiation(const F12& f) {
    // Easy part: f^((p^6 - 1)(p^2 + 1)); the result lies in the cyclotomic subgroup.
    F12 t = f.conjugate() * f.inverse();
    t = t.frobenius(2) * t;
    if constexpr (E::kFamily == PairingFamily::kBls12) {
      return hard_part_bls12(t);
    } else {
      return hard_part_bn(t);
    }
  }

  static F12 pairing(const G1Affine& p, const G2Affine& q) {
    Pair pr{p, q};
    return final_exponentiation(miller_loop(std::span<const Pair>(&pr, 1)));
  }

  static F12 multi_pairing(std::span<const Pair> pairs) {
    return final_exponentiation(miller_loop(pairs));
  }

  // prod e(P_i, Q_i) == 1, the shape of every Groth16 verification equation.
  static bool pairing_product_is_one(std::span<const Pair> pairs) {
    return multi_pairing(pairs).is_one();
  }

 private:
  struct Projective {
    F2 X, Y, Z;  // x = X/Z, y = Y/Z on the twist
  };
  // Value at P: cy * yP + cx * xP + c0, placed in Fp12 per twist type.
  struct Line {
    F2 cy, cx, c0;
  };

  // Signed digits of the loop scalar, most significant first: |x| for BLS12, NAF(6x+2) for BN.
  static const std::vector<int8_t>& loop_digits() {
    static const std::vector<int8_t> digits = [] {
      std::vector<int8_t> out;  // least significant first while building
      if constexpr (E::kFamily == PairingFamily::kBls12) {
        for (uint64_t v = E::kX; v; v >>= 1) out.push_back(int8_t(v & 1));
      } else {
        ff::u128 v = ff::u128(E::kX) * 6 + 2;
        while (v) {
          if (v & 1) {
            int8_t digit = (v & 3) == 3 ? -1 : 1;
            out.push_back(digit);
            v = digit > 0 ? v - 1 : v + 1;
          } else {
            out.push_back(0);
          }
          v >>= 1;
        }
      }
      return std::vector<int8_t>(out.rbegin(), out.rend());
    }();
    return digits;
  }

  static const F2& twist_b3() {
    static const F2 b3 = G2::b().dbl() + G2::b();
    return b3;
  }

  // Doubling in homogeneous coordinates (Costello-Lange-Naehrig / Aranha et al. 2010) with the
  // tangent line scaled by Fp2 factors that the final exponentiation removes.
  static Line doubling_step(Projective& t) {
    F2 a = (t.X * t.Y).halve();
    F2 b = t.Y.square();
    F2 c = t.Z.square();
    F2 e = twist_b3() * c;
    F2 f = e.dbl() + e;
    F2 g = (b + f).halve();
    F2 h = (t.Y + t.Z).square() - (b + c);
    F2 x2 = t.X.square();
    Line line{-h, x2.dbl() + x2, e - b};
    t.X = a * (b - f);
    F2 e2 = e.square();
    t.Y = g.square() - (e2.dbl() + e2);
    t.Z = b * h;
    return line;
  }

  // Mixed addition T + Q (Q affine on the twist) and the line through T and Q.
  static Line addition_step(Projective& t, const G2Affine& q) {
    F2 theta = t.Y - q.y * t.Z;
    F2 lambda = t.X - q.x * t.Z;
    F2 c = theta.square();
    F2 d = lambda.square();
    F2 e = lambda * d;
    F2 f = t.Z * c;
    F2 g = t.X * d;
    F2 h = e + f - g.dbl();
    Line line{lambda, -theta, theta * q.x - lambda * q.y};
    t.X = lambda * h;
    t.Y = theta * (g - h) - t.Y * e;
    t.Z = t.Z * e;
    return line;
  }

  // f * line, exploiting that a line has three of the six Fp2 coefficients: 13 Fp2
  // multiplications instead of 18.
  static F12 mul_by_line(const F12& f, const Line& l, const G1Affine& p) {
    F2 ly = l.cy.mul_by_base(p.y);
    F2 lx = l.cx.mul_by_base(p.x);
    typename F12::F6 t0, t1, cross;
    if constexpr (G2::kTwist == TwistType::kD) {
      // line = (ly, 0, 0) + (lx, c0, 0) w   (w^0; w^1, w^3)
      t0 = f.c0.mul_by_fp2(ly);
      t1 = f.c1.mul_by_01(lx, l.c0);
      cross = (f.c0 + f.c1).mul_by_01(ly + lx, l.c0);
    } else {
      // line = (c0, lx, 0) + (0, ly, 0) w   (w^0, w^2; w^3)
      t0 = f.c0.mul_by_01(l.c0, lx);
      t1 = f.c1.mul_by_1(ly);
      cross = (f.c0 + f.c1).mul_by_01(l.c0, lx + ly);
    }
    return {t0 + t1.mul_by_v(), cross - t0 - t1};
  }

  // f^x for the signed seed x, f in the cyclotomic subgroup (inverse = conjugate).
  static F12 exp_by_x(const F12& f) {
    F12 r = f.cyclotomic_pow(BigInt<1>::from_u64(E::kX));
    return E::kXNegative ? r.conjugate() : r;
  }

  // f^(3 * (p^4 - p^2 + 1) / r) = f^((x-1)^2 (x+p)(x^2+p^2-1) + 3).
  static F12 hard_part_bls12(const F12& f) {
    F12 t = exp_by_x(f) * f.conjugate();           // f^(x-1)
    F12 a = exp_by_x(t) * t.conjugate();           // f^((x-1)^2)
    F12 b = exp_by_x(a) * a.frobenius(1);          // a^(x+p)
    F12 c = exp_by_x(exp_by_x(b)) * b.frobenius(2) * b.conjugate();  // b^(x^2+p^2-1)
    return c * f.cyclotomic_square() * f;
  }

  // f^(2x(6x^2+3x+1) (p^4 - p^2 + 1) / r) = f^(l0 + l1 p + l2 p^2 + l3 p^3) with
  // l1 = 12x^3 + 6x^2 + 4x, l0 = l1 + 6x^2 + 2x + 1, l2 = l1 + 2x, l3 = l1 - 1.
  static F12 hard_part_bn(const F12& f) {
    F12 fx = exp_by_x(f);
    F12 fx2 = exp_by_x(fx);
    F12 fx3 = exp_by_x(fx2);
    F12 fx_2 = fx.cyclotomic_square();
    F12 fx2_2 = fx2.cyclotomic_square();
    F12 fx2_6 = fx2_2.cyclotomic_square() * fx2_2;
    F12 fx3_4 = fx3.cyclotomic_square().cyclotomic_square();
    F12 fx3_12 = fx3_4.cyclotomic_square() * fx3_4;
    F12 l1 = fx3_12 * fx2_6 * fx_2.cyclotomic_square();
    F12 l0 = l1 * fx2_6 * fx_2 * f;
    F12 l2 = l1 * fx_2;
    F12 l3 = l1 * f.conjugate();
    return l0 * l1.frobenius(1) * l2.frobenius(2) * l3.frobenius(3);
  }
};

}  // namespace snarkd::ec
