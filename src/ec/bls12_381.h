// snarkd/ec: the BLS12-381 groups and pairing engine: constants, and the fast subgroup checks.
#pragma once

#include "ec/endomorphism.h"
#include "ec/pairing.h"
#include "ec/point.h"
#include "ff/bls12_381.h"

namespace snarkd::ec::bls12_381 {

using ff::bls12_381::Fq;
using ff::bls12_381::Fq12;
using ff::bls12_381::Fq2;
using ff::bls12_381::Fr;

// |x| for the curve seed x = -0xd201000000010000.
inline constexpr uint64_t kSeed = 0xd201000000010000ull;

struct G1 {
  using Field = Fq;
  using Scalar = Fr;
  static constexpr const char* kName = "BLS12-381 G1";
  static Fq b() { return Fq::from_u64(4); }
  static Affine<G1> generator();
  // phi(P) == [-x^2]P with phi(x, y) = (beta x, y) (Scott, "A note on group membership tests").
  static bool in_subgroup(const Jacobian<G1>& p);
};

struct G2 {
  using Field = Fq2;
  using Scalar = Fr;
  using Tower = ff::bls12_381::Tower;
  static constexpr TwistType kTwist = TwistType::kM;  // E': y^2 = x^3 + 4(1 + u)
  static constexpr const char* kName = "BLS12-381 G2";
  static Fq2 b() { return {Fq::from_u64(4), Fq::from_u64(4)}; }
  static Affine<G2> generator();
  // psi(Q) == [x]Q, since psi acts as p = x (mod r) on G2.
  static bool in_subgroup(const Jacobian<G2>& p);
};

struct Engine {
  using G1 = bls12_381::G1;
  using G2 = bls12_381::G2;
  using Tower = ff::bls12_381::Tower;
  static constexpr PairingFamily kFamily = PairingFamily::kBls12;
  static constexpr uint64_t kX = kSeed;
  static constexpr bool kXNegative = true;
};

using G1Affine = Affine<G1>;
using G2Affine = Affine<G2>;
using G1Jacobian = Jacobian<G1>;
using G2Jacobian = Jacobian<G2>;
using Pairing = ec::Pairing<Engine>;

// A primitive cube root of unity in Fp matching the eigenvalue -x^2 of phi on G1.
const Fq& g1_endomorphism_beta();

}  // namespace snarkd::ec::bls12_381
