// snarkd/ec: the BN254 (alt_bn128) groups and pairing engine.
#pragma once

#include "ec/endomorphism.h"
#include "ec/pairing.h"
#include "ec/point.h"
#include "ff/bn254.h"

namespace snarkd::ec::bn254 {

using ff::bn254::Fq;
using ff::bn254::Fq12;
using ff::bn254::Fq2;
using ff::bn254::Fr;

inline constexpr uint64_t kSeed = 4965661367192848881ull;  // x, positive

struct G1 {
  using Field = Fq;
  using Scalar = Fr;
  static constexpr const char* kName = "BN254 G1";
  static Fq b() { return Fq::from_u64(3); }
  static Affine<G1> generator();
  // The cofactor of G1 is 1: every point on the curve is in the subgroup.
  static bool in_subgroup(const Jacobian<G1>&) { return true; }
};

struct G2 {
  using Field = Fq2;
  using Scalar = Fr;
  using Tower = ff::bn254::Tower;
  static constexpr TwistType kTwist = TwistType::kD;  // E': y^2 = x^3 + 3/(9 + u)
  static constexpr const char* kName = "BN254 G2";
  static const Fq2& b();
  static Affine<G2> generator();
  // psi(Q) == [6x^2]Q, since psi acts as p = 6x^2 (mod r) on G2 (El Housni et al. 2022).
  static bool in_subgroup(const Jacobian<G2>& p);
};

struct Engine {
  using G1 = bn254::G1;
  using G2 = bn254::G2;
  using Tower = ff::bn254::Tower;
  static constexpr PairingFamily kFamily = PairingFamily::kBn;
  static constexpr uint64_t kX = kSeed;
  static constexpr bool kXNegative = false;
};

using G1Affine = Affine<G1>;
using G2Affine = Affine<G2>;
using G1Jacobian = Jacobian<G1>;
using G2Jacobian = Jacobian<G2>;
using Pairing = ec::Pairing<Engine>;

}  // namespace snarkd::ec::bn254
