// Encodings: round trips, known answers, and one test per rejection reason.
#include <gtest/gtest.h>

#include "base/hex.h"
#include "ec/ec_test_util.h"
#include "ec/encoding.h"
#include "test_util.h"

namespace snarkd::ec {
namespace {

using snarkd::testing::make_rng;
using snarkd::testing::random_curve_point;
using snarkd::testing::random_subgroup_point;

namespace bls = bls12_381;

template <class T>
std::string error_of(const Result<T>& r) {
  return r.ok() ? std::string("<ok>") : r.status().message();
}

#define EXPECT_REJECTED(expr, text)                                       \
  do {                                                                    \
    auto result_ = (expr);                                                \
    EXPECT_FALSE(result_.ok());                                           \
    EXPECT_NE(error_of(result_).find(text), std::string::npos)            \
        << "message was: " << error_of(result_);                          \
  } while (0)

template <class C>
class ZcashTest : public ::testing::Test {};
using ZcashGroups = ::testing::Types<bls::G1, bls::G2>;
TYPED_TEST_SUITE(ZcashTest, ZcashGroups);

TYPED_TEST(ZcashTest, RoundTrip) {
  using C = TypeParam;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  for (int i = 0; i < 8; ++i) {
    auto p = random_subgroup_point<C>(rng).to_affine();
    auto c = encode_compressed(p);
    auto u = encode_uncompressed(p);
    EXPECT_EQ(*decode_compressed<C>(c), p);
    EXPECT_EQ(*decode_uncompressed<C>(u), p);
    // Negation flips only the sort flag.
    auto cn = encode_compressed(p.neg());
    EXPECT_EQ(cn[0] ^ c[0], kFlagLargestY);
    for (size_t k = 1; k < c.size(); ++k) EXPECT_EQ(cn[k], c[k]);
    EXPECT_EQ(*decode_compressed<C>(cn), p.neg());
  }
  auto inf = Affine<C>::identity();
  auto ci = encode_compressed(inf);
  EXPECT_EQ(ci[0], 0xc0);
  EXPECT_TRUE(decode_compressed<C>(ci)->is_identity());
  EXPECT_TRUE(decode_uncompressed<C>(encode_uncompressed(inf))->is_identity());
}

TYPED_TEST(ZcashTest, RejectsEachBadEncoding) {
  using C = TypeParam;
  using F = typename C::Field;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  auto p = random_subgroup_point<C>(rng).to_affine();
  auto c = encode_compressed(p);
  auto u = encode_uncompressed(p);
  std::vector<uint8_t> shorter(c.begin(), c.end() - 1);
  EXPECT_REJECTED(decode_compressed<C>(shorter), "expected");
  std::vector<uint8_t> longer(u.begin(), u.end());
  longer.push_back(0);
  EXPECT_REJECTED(decode_uncompressed<C>(longer), "bytes, got");

  auto no_flag = c;
  no_flag[0] &= 0x7f;
  EXPECT_REJECTED(decode_compressed<C>(no_flag), "compression flag (0x80) is not set");
  auto flagged = u;
  flagged[0] |= kFlagCompressed;
  EXPECT_REJECTED(decode_uncompressed<C>(flagged), "compression flag (0x80) is set");
  auto sorted = u;
  sorted[0] |= kFlagLargestY;
  EXPECT_REJECTED(decode_uncompressed<C>(sorted), "sort flag (0x20)");

  auto inf = encode_compressed(Affine<C>::identity());
  auto inf_sorted = inf;
  inf_sorted[0] |= kFlagLargestY;
  EXPECT_REJECTED(decode_compressed<C>(inf_sorted), "infinity flag is set together with the sort");
  auto inf_dirty = inf;
  inf_dirty[inf.size() - 1] = 1;
  EXPECT_REJECTED(decode_compressed<C>(inf_dirty), "coordinates are not zero");
  auto uinf_dirty = encode_uncompressed(Affine<C>::identity());
  uinf_dirty[5] = 7;
  EXPECT_REJECTED(decode_uncompressed<C>(uinf_dirty), "coordinates are not zero");

  // x >= p: the first field element written (x, or x.c1 for G2) set to p.
  auto big_x = c;
  const auto modulus = bls::Fq::kModulus;  // both groups' coordinates are over this Fp
  modulus.to_bytes_be(std::span<uint8_t>(big_x).subspan(0, 48));
  big_x[0] |= kFlagCompressed;
  EXPECT_REJECTED(decode_compressed<C>(big_x), "x coordinate is not canonical");
  auto big_y = u;
  modulus.to_bytes_be(std::span<uint8_t>(big_y).subspan(F::kBytes, 48));
  EXPECT_REJECTED(decode_uncompressed<C>(big_y), "y coordinate is not canonical");

  // An x with no point: find one by trial.
  for (;;) {
    F x = F::random(rng);
    if ((x.square() * x + C::b()).sqrt()) continue;
    Affine<C> fake = Affine<C>::from_xy(x, F::one());
    auto bytes = encode_compressed(fake);
    bytes[0] &= static_cast<uint8_t>(~kFlagLargestY);
    EXPECT_REJECTED(decode_compressed<C>(bytes), "is not the x-coordinate of a curve point");
    break;
  }
  auto off = u;
  off[u.size() - 1] ^= 1;  // y changed: off the curve
  EXPECT_REJECTED(decode_uncompressed<C>(off), "point is not on the curve");

  auto outside = random_curve_point<C>(rng);
  ASSERT_FALSE(C::in_subgroup(Jacobian<C>::from_affine(outside)));
  EXPECT_REJECTED(decode_compressed<C>(encode_compressed(outside)), "not in the prime-order subgroup");
  EXPECT_REJECTED(decode_uncompressed<C>(encode_uncompressed(outside)), "not in the prime-order subgroup");
}

TEST(Zcash, KnownAnswers) {
  // shared/reference/formats.md
  auto g1 = from_hex(
      "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
  auto enc = encode_compressed(bls::G1::generator());
  EXPECT_EQ(std::vector<uint8_t>(enc.begin(), enc.end()), *g1);
  auto g2 = from_hex(
      "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
      "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8");
  EXPECT_EQ(*decode_compressed<bls::G2>(*g2), bls::G2::generator());
  auto k1 = from_hex(
      "af95b8218cbee2f4fa48e6b6f1df4e8ee46fee73c270dba395dad523d10c9b35295ccfc92cf0a9db8a065e16dafbfaad");
  EXPECT_EQ(*decode_compressed<bls::G1>(*k1),
            mul_vartime(bls::G1::generator(), BigInt<1>::from_u64(123456789)).to_affine());
  auto k2 = from_hex(
      "8d0273f6bf31ed37c3b8d68083ec3d8e20b5f2cc170fa24b9b5be35b34ed013f9a921f1cad1644d4bdb14674247234c8"
      "049cd1dbb2d2c3581e54c088135fef36505a6823d61b859437bfc79b617030dc8b40e32bad1fa85b9c0f368af6d38d3c");
  EXPECT_EQ(*decode_compressed<bls::G2>(*k2),
            mul_vartime(bls::G2::generator(), BigInt<1>::from_u64(7)).to_affine());
  EXPECT_FALSE(*decode_compressed<bls::G2>(*k2) ==
               mul_vartime(bls::G2::generator(), BigInt<1>::from_u64(8)).to_affine());
}

template <class C>
class SnarkjsTest : public ::testing::Test {};
using AllGroups = ::testing::Types<bls::G1, bls::G2, bn254::G1, bn254::G2>;
TYPED_TEST_SUITE(SnarkjsTest, AllGroups);

TYPED_TEST(SnarkjsTest, BinaryRoundTripAndRejections) {
  using C = TypeParam;
  using F = typename C::Field;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  auto p = random_subgroup_point<C>(rng).to_affine();
  auto bytes = encode_snarkjs(p);
  EXPECT_EQ(*decode_snarkjs<C>(bytes), p);
  // The layout is x then y, each in Montgomery form, little-endian.
  std::array<uint8_t, F::kBytes> x_mont{};
  detail::write_montgomery_le(p.x, x_mont);
  EXPECT_TRUE(std::equal(x_mont.begin(), x_mont.end(), bytes.begin()));
  auto zero = encode_snarkjs(Affine<C>::identity());
  for (uint8_t b : zero) EXPECT_EQ(b, 0);
  EXPECT_TRUE(decode_snarkjs<C>(zero)->is_identity());

  std::vector<uint8_t> shorter(bytes.begin(), bytes.end() - 1);
  EXPECT_REJECTED(decode_snarkjs<C>(shorter), "expected");
  auto big = bytes;
  std::fill(big.begin(), big.begin() + F::kBytes, 0xff);
  EXPECT_REJECTED(decode_snarkjs<C>(big), "x coordinate is not canonical");
  auto big_y = bytes;
  std::fill(big_y.end() - 8, big_y.end(), 0xff);
  EXPECT_REJECTED(decode_snarkjs<C>(big_y), "y coordinate is not canonical");
  auto off = bytes;
  off[F::kBytes] ^= 1;
  EXPECT_REJECTED(decode_snarkjs<C>(off), "not on the curve");
  if constexpr (!std::is_same_v<C, bn254::G1>) {
    auto outside = random_curve_point<C>(rng);
    EXPECT_REJECTED(decode_snarkjs<C>(encode_snarkjs(outside)), "not in the prime-order subgroup");
  }
}

TYPED_TEST(SnarkjsTest, JsonRoundTripAndRejections) {
  using C = TypeParam;
  SNARKD_SEED_TRACE();
  auto rng = make_rng();
  auto p = random_subgroup_point<C>(rng).to_affine();
  auto j = to_snarkjs_json(p);
  EXPECT_EQ(*from_snarkjs_json<C>(j), p);
  if constexpr (requires { p.x.c1; }) {
    EXPECT_EQ(j[0][0], p.x.c0.to_decimal());
    EXPECT_EQ(j[1][1], p.y.c1.to_decimal());
    EXPECT_EQ(j[2], nlohmann::json::parse(R"(["1","0"])"));
    EXPECT_EQ(to_snarkjs_json(Affine<C>::identity()),
              nlohmann::json::parse(R"([["0","0"],["1","0"],["0","0"]])"));
  } else {
    EXPECT_EQ(j[0], p.x.to_decimal());
    EXPECT_EQ(j[2], "1");
    EXPECT_EQ(to_snarkjs_json(Affine<C>::identity()), nlohmann::json::parse(R"(["0","1","0"])"));
  }
  EXPECT_TRUE(from_snarkjs_json<C>(to_snarkjs_json(Affine<C>::identity()))->is_identity());

  EXPECT_REJECTED(from_snarkjs_json<C>(nlohmann::json::array({j[0], j[1]})), "expected an array");
  EXPECT_REJECTED(from_snarkjs_json<C>(nlohmann::json("x")), "expected an array");
  auto bad_z = j;
  bad_z[2] = j[0];
  EXPECT_REJECTED(from_snarkjs_json<C>(bad_z), "z must be 1");
  auto off = j;
  off[1] = j[0];
  EXPECT_REJECTED(from_snarkjs_json<C>(off), "not on the curve");
  auto junk = j;
  if constexpr (requires { p.x.c1; }) {
    junk[0][1] = "12z";
    EXPECT_REJECTED(from_snarkjs_json<C>(junk), "x");
    auto num = j;
    num[0][0] = 5;
    EXPECT_REJECTED(from_snarkjs_json<C>(num), "must be a decimal string");
    auto huge = j;
    huge[1][0] = decltype(p.x.c0)::kModulus.to_decimal();
    EXPECT_REJECTED(from_snarkjs_json<C>(huge), "not below p");
  } else {
    junk[0] = "12z";
    EXPECT_REJECTED(from_snarkjs_json<C>(junk), "x");
    auto huge = j;
    huge[1] = C::Field::kModulus.to_decimal();
    EXPECT_REJECTED(from_snarkjs_json<C>(huge), "not below p");
  }
}

}  // namespace
}  // namespace snarkd::ec
