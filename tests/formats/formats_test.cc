// Format round trips written by snarkd and read back, plus the container's rejection rungs.
// (Reading files made by circom/snarkjs is covered by tests/interop.)
#include <gtest/gtest.h>

#include <filesystem>

#include "base/mapped_file.h"
#include "ec/bls12_381.h"
#include "ec/bn254.h"
#include "formats/binfile.h"
#include "formats/circom.h"
#include "formats/snarkjs_json.h"
#include "formats/zkey.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "groth16/verifier.h"
#include "circuits/chain/chain.h"
#include "test_util.h"

namespace snarkd::formats {
namespace {

std::string temp_path(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("snarkd_formats_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

template <class E>
class FormatsTest : public ::testing::Test {};
using Engines = ::testing::Types<ec::bls12_381::Engine, ec::bn254::Engine>;
TYPED_TEST_SUITE(FormatsTest, Engines);

TYPED_TEST(FormatsTest, ZkeyWtnsJsonRoundTrip) {
  using E = TypeParam;
  using F = groth16::Fr<E>;
  SeededRandom rng(snarkd::testing::test_seed());
  auto [cs, w] = circuits::build_chain<F>({50, 30, 4});
  auto pk = *groth16::setup<E>(cs, poly::QuotientConvention::kSnarkjsOddCoset, rng);
  std::string zpath = temp_path("k.zkey"), wpath = temp_path("w.wtns");
  ASSERT_TRUE(write_zkey<E>(pk, zpath).ok());
  ASSERT_TRUE(write_wtns<F>(std::span<const F>(w), wpath).ok());
  auto zf = std::move(MappedFile::open(zpath).value());
  auto back = read_zkey<E>(zf.bytes(), zpath);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->num_variables, pk.num_variables);
  EXPECT_EQ(back->a.column, pk.a.column);
  EXPECT_EQ(back->a.value, pk.a.value);
  EXPECT_EQ(back->b.value, pk.b.value);
  EXPECT_TRUE(back->h_query == pk.h_query);
  // The file's B sections are full length; read back, B is by density again.
  EXPECT_EQ(back->b_variables, pk.b_variables);
  EXPECT_TRUE(back->b1_query == pk.b1_query);
  EXPECT_TRUE(back->b2_query == pk.b2_query);
  EXPECT_FALSE(back->c.has_value());  // zkeys carry no C: the prover uses a * b
  auto wf = std::move(MappedFile::open(wpath).value());
  auto w2 = read_wtns<F>(wf.bytes(), wpath);
  ASSERT_TRUE(w2.ok());
  EXPECT_EQ(*w2, w);

  groth16::CpuBackend<E> backend;
  auto proof = *groth16::prove<E>(*back, *w2, backend, rng);
  auto pj = proof_to_json<E>(proof);
  auto vkj = vk_to_json<E>(back->vk);
  auto pubj = public_to_json<F>(std::span<const F>(w).subspan(1, cs.num_public));
  auto proof2 = *proof_from_json<E>(nlohmann::json::parse(pj.dump()));
  auto vk2 = *vk_from_json<E>(nlohmann::json::parse(vkj.dump()));
  auto pub2 = *public_from_json<F>(pubj);
  EXPECT_TRUE(proof2 == proof);
  EXPECT_TRUE(*groth16::verify<E>(vk2, pub2, proof2));
  EXPECT_EQ(*curve_of_json(pj, "proof"), ec::curve_of<E>());
  // Negative twins: a field removed, the IC count disagreeing with nPublic.
  pj.erase("pi_c");
  EXPECT_NE(proof_from_json<E>(pj).status().message().find("pi_c"), std::string::npos);
  vkj["nPublic"] = 7;
  EXPECT_FALSE(vk_from_json<E>(vkj).ok());
}

TEST(BinFile, RejectsEachMalformedContainer) {
  BinWriter w("wtns", 2, 1);
  w.begin_section(1);
  w.u32(7);
  w.end_section();
  auto good = w.data();
  EXPECT_TRUE(parse_bin_file(good, "wtns", 2, "'x'").ok());
  EXPECT_NE(parse_bin_file(good, "zkey", 1, "'x'").status().message().find("not a .zkey file"),
            std::string::npos);
  auto v = good;
  v[4] = 9;
  EXPECT_NE(parse_bin_file(v, "wtns", 2, "'x'").status().message().find("unsupported version"),
            std::string::npos);
  auto longer = good;
  longer[16] = 0xff;  // section length byte
  EXPECT_NE(parse_bin_file(longer, "wtns", 2, "'x'").status().message().find("claims"),
            std::string::npos);
  auto trailing = good;
  trailing.push_back(0);
  EXPECT_NE(parse_bin_file(trailing, "wtns", 2, "'x'").status().message().find("trailing"),
            std::string::npos);
  std::vector<uint8_t> tiny(good.begin(), good.begin() + 6);
  EXPECT_NE(parse_bin_file(tiny, "wtns", 2, "'x'").status().message().find("truncated"),
            std::string::npos);
  BinWriter dup("wtns", 2, 2);
  dup.begin_section(1);
  dup.end_section();
  dup.begin_section(1);
  dup.end_section();
  EXPECT_NE(parse_bin_file(dup.data(), "wtns", 2, "'x'").status().message().find("twice"),
            std::string::npos);
}

TEST(Wtns, RejectsWrongPrimeAndSizes) {
  using F = ec::bn254::Fr;
  std::vector<F> w = {F::one(), F::from_u64(5)};
  std::string path = temp_path("bn.wtns");
  ASSERT_TRUE(write_wtns<F>(std::span<const F>(w), path).ok());
  auto f = std::move(MappedFile::open(path).value());
  auto wrong_curve = read_wtns<ec::bls12_381::Fr>(f.bytes(), path);
  ASSERT_FALSE(wrong_curve.ok());
  EXPECT_NE(wrong_curve.status().message().find("not the scalar field"), std::string::npos);
  std::vector<uint8_t> cut(f.bytes().begin(), f.bytes().end() - 1);
  EXPECT_FALSE(read_wtns<F>(cut, path).ok());
  EXPECT_EQ(*curve_from_header(*parse_bin_file(f.bytes(), "wtns", 2, "'w'"), 1, true),
            ec::CurveId::kBn254);
}

}  // namespace
}  // namespace snarkd::formats
