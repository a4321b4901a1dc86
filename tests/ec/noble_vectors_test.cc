// Compares snarkd's fields, towers, groups, encodings and pairings with vectors that
// @noble/curves generated for this run (tests/js/noble_vectors.mjs, a CTest fixture).
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "base/hex.h"
#include "ec/bls12_381.h"
#include "ec/bn254.h"
#include "ec/encoding.h"

namespace snarkd::ec {
namespace {

using nlohmann::json;

const json& vectors() {
  static const json v = [] {
    const char* path = std::getenv("SNARKD_NOBLE_VECTORS");
    if (!path) throw std::runtime_error("SNARKD_NOBLE_VECTORS is not set");
    std::ifstream in(path);
    if (!in) throw std::runtime_error(std::string("cannot open ") + path);
    return json::parse(in);
  }();
  return v;
}

#define NOBLE_TRACE() SCOPED_TRACE("noble vectors seed " + vectors()["seed"].get<std::string>())

template <class F>
F dec(const json& j) {
  auto r = F::from_decimal(j.get<std::string>());
  if (!r.ok()) throw std::runtime_error(r.status().to_string());
  return *r;
}

template <class T>
ff::Fp2<T> fp2(const json& j, size_t at = 0) {
  using B = typename T::Base;
  return {dec<B>(j[at]), dec<B>(j[at + 1])};
}
template <class T>
ff::Fp6<T> fp6(const json& j, size_t at = 0) {
  return {fp2<T>(j, at), fp2<T>(j, at + 2), fp2<T>(j, at + 4)};
}
template <class T>
ff::Fp12<T> fp12(const json& j) {
  return {fp6<T>(j, 0), fp6<T>(j, 6)};
}

template <class C>
Affine<C> point(const json& j) {
  if (j.is_null()) return Affine<C>::identity();
  if constexpr (requires(typename C::Field f) { f.c1; }) {
    return Affine<C>::from_xy(fp2<typename C::Tower>(j, 0), fp2<typename C::Tower>(j, 2));
  } else {
    return Affine<C>::from_xy(dec<typename C::Field>(j[0]), dec<typename C::Field>(j[1]));
  }
}

template <class F>
void check_field(const json& cases) {
  ASSERT_GT(cases.size(), 0u);
  for (const auto& c : cases) {
    F a = dec<F>(c["a"]), b = dec<F>(c["b"]);
    SCOPED_TRACE("a = " + c["a"].get<std::string>());
    EXPECT_EQ(a + b, dec<F>(c["add"]));
    EXPECT_EQ(a - b, dec<F>(c["sub"]));
    EXPECT_EQ(a * b, dec<F>(c["mul"]));
    EXPECT_EQ(a.square(), dec<F>(c["sqr"]));
    EXPECT_EQ(-a, dec<F>(c["neg"]));
    if (!c["inv"].is_null()) {
      EXPECT_EQ(a.inverse(), dec<F>(c["inv"]));
    }
    auto e = ff::BigInt<4>::from_decimal(c["e"].get<std::string>());
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(a.pow(*e), dec<F>(c["pow"]));
    EXPECT_EQ(a.legendre(), c["legendre"].get<int>());
    auto root = a.sqrt();
    EXPECT_EQ(root.has_value(), !c["sqrt"].is_null());
    if (root) {
      F theirs = dec<F>(c["sqrt"]);
      EXPECT_TRUE(*root == theirs || *root == -theirs);
    }
  }
}

template <class E>
void check_towers(const json& v) {
  using T = typename E::Tower;
  for (const auto& c : v["fp2"]) {
    auto a = fp2<T>(c["a"]), b = fp2<T>(c["b"]);
    EXPECT_EQ(a * b, fp2<T>(c["mul"]));
    EXPECT_EQ(a.square(), fp2<T>(c["sqr"]));
    EXPECT_EQ(a.inverse(), fp2<T>(c["inv"]));
    EXPECT_EQ(a.frobenius(1), fp2<T>(c["frob"]));
    EXPECT_EQ(a.mul_by_xi(), fp2<T>(c["mul_by_nonresidue"]));
    auto root = fp2<T>(c["square_of_a"]).sqrt();
    ASSERT_TRUE(root.has_value());
    auto theirs = fp2<T>(c["sqrt_of_square"]);
    EXPECT_TRUE(*root == theirs || *root == -theirs);
  }
  for (const auto& c : v["fp6"]) {
    auto a = fp6<T>(c["a"]), b = fp6<T>(c["b"]);
    EXPECT_TRUE(a * b == fp6<T>(c["mul"]));
    EXPECT_TRUE(a.square() == fp6<T>(c["sqr"]));
    EXPECT_TRUE(a.inverse() == fp6<T>(c["inv"]));
    EXPECT_TRUE(a.frobenius(1) == fp6<T>(c["frob1"]));
    EXPECT_TRUE(a.frobenius(2) == fp6<T>(c["frob2"]));
  }
  for (const auto& c : v["fp12"]) {
    auto a = fp12<T>(c["a"]), b = fp12<T>(c["b"]);
    EXPECT_TRUE(a * b == fp12<T>(c["mul"]));
    EXPECT_TRUE(a.square() == fp12<T>(c["sqr"]));
    EXPECT_TRUE(a.inverse() == fp12<T>(c["inv"]));
    EXPECT_TRUE(a.conjugate() == fp12<T>(c["conj"]));
    EXPECT_TRUE(a.frobenius(1) == fp12<T>(c["frob1"]));
    EXPECT_TRUE(a.frobenius(2) == fp12<T>(c["frob2"]));
    EXPECT_TRUE(a.frobenius(3) == fp12<T>(c["frob3"]));
    EXPECT_TRUE(Pairing<E>::final_exponentiation(a) == fp12<T>(c["final_exp"]));
  }
}

template <class C>
void check_group(const json& cases, bool zcash) {
  using Fr = typename C::Scalar;
  ASSERT_GT(cases.size(), 0u);
  for (const auto& c : cases) {
    auto k = dec<Fr>(c["k"]).to_canonical();
    auto k3 = dec<Fr>(c["k3"]).to_canonical();
    auto kg = point<C>(c["kG"]);
    auto k2g = point<C>(c["k2G"]);
    EXPECT_TRUE(kg.is_on_curve());
    EXPECT_EQ(mul_vartime(C::generator(), k).to_affine(), kg);
    EXPECT_EQ(Jacobian<C>::from_affine(kg).add_mixed(k2g).to_affine(), point<C>(c["sum"]));
    EXPECT_EQ(Xyzz<C>::from_affine(kg).add_mixed(k2g).to_affine(), point<C>(c["sum"]));
    EXPECT_EQ(Jacobian<C>::from_affine(kg).dbl().to_affine(), point<C>(c["double"]));
    EXPECT_EQ(mul_vartime(kg, k3).to_affine(), point<C>(c["k3_times_kG"]));
    if (zcash) {
      auto comp = from_hex(c["compressed"].get<std::string>());
      auto uncomp = from_hex(c["uncompressed"].get<std::string>());
      auto ours_c = encode_compressed(kg);
      auto ours_u = encode_uncompressed(kg);
      EXPECT_EQ(to_hex(ours_c), c["compressed"].get<std::string>());
      EXPECT_EQ(to_hex(ours_u), c["uncompressed"].get<std::string>());
      EXPECT_EQ(to_hex(encode_compressed(kg.neg())), c["neg_compressed"].get<std::string>());
      EXPECT_EQ(*decode_compressed<C>(*comp), kg);
      EXPECT_EQ(*decode_uncompressed<C>(*uncomp), kg);
    }
  }
}

template <class E>
void check_pairings(const json& cases) {
  using P = Pairing<E>;
  using T = typename E::Tower;
  ASSERT_GT(cases.size(), 0u);
  for (const auto& c : cases) {
    auto p = point<typename E::G1>(c["P"]);
    auto q = point<typename E::G2>(c["Q"]);
    auto p2 = point<typename E::G1>(c["P2"]);
    auto q2 = point<typename E::G2>(c["Q2"]);
    EXPECT_TRUE(P::pairing(p, q) == fp12<T>(c["e"]));
    std::vector<typename P::Pair> pairs = {{p, q}, {p2, q2}};
    EXPECT_TRUE(P::multi_pairing(pairs) == fp12<T>(c["product"]));
    EXPECT_FALSE(P::pairing(p2, q) == fp12<T>(c["e"]));
  }
}

TEST(NobleBls12_381, Fields) {
  NOBLE_TRACE();
  check_field<bls12_381::Fq>(vectors()["bls12_381"]["fp"]);
  check_field<bls12_381::Fr>(vectors()["bls12_381"]["fr"]);
}
TEST(NobleBls12_381, Towers) {
  NOBLE_TRACE();
  check_towers<bls12_381::Engine>(vectors()["bls12_381"]);
}
TEST(NobleBls12_381, G1) {
  NOBLE_TRACE();
  check_group<bls12_381::G1>(vectors()["bls12_381"]["g1"], true);
  const auto& inf = vectors()["bls12_381"]["g1_infinity"];
  EXPECT_EQ(to_hex(encode_compressed(bls12_381::G1Affine::identity())), inf["compressed"]);
  EXPECT_EQ(to_hex(encode_uncompressed(bls12_381::G1Affine::identity())), inf["uncompressed"]);
}
TEST(NobleBls12_381, G2) {
  NOBLE_TRACE();
  check_group<bls12_381::G2>(vectors()["bls12_381"]["g2"], true);
  const auto& inf = vectors()["bls12_381"]["g2_infinity"];
  EXPECT_EQ(to_hex(encode_compressed(bls12_381::G2Affine::identity())), inf["compressed"]);
  EXPECT_EQ(to_hex(encode_uncompressed(bls12_381::G2Affine::identity())), inf["uncompressed"]);
}
TEST(NobleBls12_381, Pairings) {
  NOBLE_TRACE();
  check_pairings<bls12_381::Engine>(vectors()["bls12_381"]["pairing"]);
}

TEST(NobleBn254, Fields) {
  NOBLE_TRACE();
  check_field<bn254::Fq>(vectors()["bn254"]["fp"]);
  check_field<bn254::Fr>(vectors()["bn254"]["fr"]);
}
TEST(NobleBn254, Towers) {
  NOBLE_TRACE();
  check_towers<bn254::Engine>(vectors()["bn254"]);
}
TEST(NobleBn254, G1) {
  NOBLE_TRACE();
  check_group<bn254::G1>(vectors()["bn254"]["g1"], false);
}
TEST(NobleBn254, G2) {
  NOBLE_TRACE();
  check_group<bn254::G2>(vectors()["bn254"]["g2"], false);
}
TEST(NobleBn254, Pairings) {
  NOBLE_TRACE();
  check_pairings<bn254::Engine>(vectors()["bn254"]["pairing"]);
}

}  // namespace
}  // namespace snarkd::ec
