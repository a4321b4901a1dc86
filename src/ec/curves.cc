// Curve constants and subgroup checks that need one-time derivation.
#include "ec/bls12_381.h"
#include "ec/bn254.h"

namespace snarkd::ec {

namespace {

template <class F>
F fp_from_hex(const char* hex) {
  return F::from_canonical_unchecked(F::Int::from_hex(hex));
}

template <class F>
F fp_from_dec(const char* dec) {
  return F::from_canonical_unchecked(*F::Int::from_decimal(dec));
}

}  // namespace

namespace bls12_381 {

Affine<G1> G1::generator() {
  static const Affine<G1> g = Affine<G1>::from_xy(
      fp_from_hex<Fq>("17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"),
      fp_from_hex<Fq>("08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1"));
  return g;
}

Affine<G2> G2::generator() {
  static const Affine<G2> g = Affine<G2>::from_xy(
      {fp_from_hex<Fq>("024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"),
       fp_from_hex<Fq>("13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e")},
      {fp_from_hex<Fq>("0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"),
       fp_from_hex<Fq>("0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be")});
  return g;
}

static const BigInt<2>& seed_squared() {
  static const BigInt<2> x2 = ff::resize<2>(ff::mul_wide(BigInt<1>::from_u64(kSeed),
                                                         BigInt<1>::from_u64(kSeed)));
  return x2;
}

const Fq& g1_endomorphism_beta() {
  static const Fq beta = [] {
    // beta = g^((p-1)/3) for the first g that is not a cube; of beta and beta^2, keep the one
    // whose phi acts as [-x^2] on the generator.
    auto e = Fq::kModulus - Fq::Int::from_u64(1);
    e.div_small(3);
    Fq cand = Fq::one();
    for (uint64_t g = 2; cand.is_one(); ++g) cand = Fq::from_u64(g).pow(e);
    Jacobian<G1> gen = Jacobian<G1>::from_affine(G1::generator());
    Jacobian<G1> want = mul_vartime(gen, seed_squared()).neg();
    Jacobian<G1> phi{gen.X * cand, gen.Y, gen.Z};
    return phi == want ? cand : cand.square();
  }();
  return beta;
}

bool G1::in_subgroup(const Jacobian<G1>& p) {
  Jacobian<G1> phi{p.X * g1_endomorphism_beta(), p.Y, p.Z};
  return phi == mul_vartime(p, seed_squared()).neg();
}

bool G2::in_subgroup(const Jacobian<G2>& p) {
  return psi(p) == mul_vartime(p, BigInt<1>::from_u64(kSeed)).neg();
}

}  // namespace bls12_381

namespace bn254 {

Affine<G1> G1::generator() { return Affine<G1>::from_xy(Fq::from_u64(1), Fq::from_u64(2)); }

const Fq2& G2::b() {
  static const Fq2 b = Fq2{Fq::from_u64(3), Fq::zero()} * Fq2::one().mul_by_xi().inverse();
  return b;
}

Affine<G2> G2::generator() {
  static const Affine<G2> g = Affine<G2>::from_xy(
      {fp_from_dec<Fq>("10857046999023057135944570762232829481370756359578518086990519993285655852781"),
       fp_from_dec<Fq>("11559732032986387107991004021392285783925812861821192530917403151452391805634")},
      {fp_from_dec<Fq>("8495653923123431417604973247489272438418190587263600148770280649306958101930"),
       fp_from_dec<Fq>("4082367875863433681332203403145435568316851327593401208105741076214120093531")});
  return g;
}

bool G2::in_subgroup(const Jacobian<G2>& p) {
  static const BigInt<2> six_x2 = [] {
    auto x2 = ff::resize<2>(ff::mul_wide(BigInt<1>::from_u64(kSeed), BigInt<1>::from_u64(kSeed)));
    x2.mul_add_small(6, 0);
    return x2;
  }();
  return psi(p) == mul_vartime(p, six_x2);
}

}  // namespace bn254

}  // namespace snarkd::ec
