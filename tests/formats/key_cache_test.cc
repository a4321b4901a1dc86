// The WARM-tier key cache: a round trip gives back the same key (both curves, with and without
// C), and a stale, truncated, corrupted or wrong-curve file is refused with a clear error.
#include "formats/key_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <fstream>

#include "base/hash.h"
#include "base/random.h"
#include "ec/bls12_381.h"
#include "ec/bn254.h"
#include "groth16/setup.h"
#include "circuits/chain/chain.h"
#include "test_util.h"

namespace snarkd::formats {
namespace {

template <class E>
bool same_key(const groth16::ProvingKey<E>& a, const groth16::ProvingKey<E>& b) {
  auto same_matrix = [](const auto& x, const auto& y) {
    return x.row_start == y.row_start && x.column == y.column && x.value == y.value;
  };
  return a.convention == b.convention && a.num_variables == b.num_variables && a.num_public == b.num_public &&
         a.log_domain_size == b.log_domain_size && a.vk.alpha1 == b.vk.alpha1 && a.vk.beta2 == b.vk.beta2 &&
         a.vk.gamma2 == b.vk.gamma2 && a.vk.delta2 == b.vk.delta2 && a.vk.ic == b.vk.ic && a.beta1 == b.beta1 &&
         a.delta1 == b.delta1 && same_matrix(a.a, b.a) && same_matrix(a.b, b.b) && a.c.has_value() == b.c.has_value() &&
         (!a.c || same_matrix(*a.c, *b.c)) && a.a_query == b.a_query && a.b_variables == b.b_variables &&
         a.b1_query == b.b1_query &&
         a.b2_query == b.b2_query && a.c_query == b.c_query && a.h_query == b.h_query;
}

std::vector<uint8_t> read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

template <class T>
class KeyCacheTest : public ::testing::Test {};
using Engines = ::testing::Types<ec::bn254::Engine, ec::bls12_381::Engine>;
TYPED_TEST_SUITE(KeyCacheTest, Engines);

TYPED_TEST(KeyCacheTest, RoundTripsAndRejectsBadFiles) {
  using E = TypeParam;
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed());
  auto [cs, w] = circuits::build_chain<groth16::Fr<E>>({300, 40, rng()});
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("snarkd_key_cache_" + std::to_string(::getpid()))).string();
  const Hash128 source = content_hash(std::string_view("some key source"));
  for (auto convention : {poly::QuotientConvention::kSnarkjsOddCoset, poly::QuotientConvention::kDivideByZ}) {
    auto pk = groth16::setup<E>(cs, convention, rng);
    ASSERT_TRUE(pk.ok());
    if (convention == poly::QuotientConvention::kSnarkjsOddCoset) pk->c.reset();  // as from a zkey
    ASSERT_TRUE(write_key_cache(*pk, source, path).ok());
    const auto bytes = read_all(path);
    auto back = read_key_cache<E>(bytes, path, source);
    ASSERT_TRUE(back.ok()) << back.status().to_string();
    EXPECT_TRUE(same_key(*pk, *back));

    auto stale = read_key_cache<E>(bytes, path, content_hash(std::string_view("another source")));
    ASSERT_FALSE(stale.ok());
    EXPECT_NE(stale.status().message().find("another key"), std::string::npos) << stale.status().message();
    for (size_t cut : {size_t(0), size_t(7), size_t(100), bytes.size() / 2, bytes.size() - 1}) {
      auto t = read_key_cache<E>(std::span(bytes).first(cut), path, source);
      EXPECT_FALSE(t.ok()) << "truncated to " << cut;
    }
    for (int i = 0; i < 20; ++i) {
      auto bad = bytes;
      bad[8 + rng() % (bad.size() - 8)] ^= uint8_t(1 + rng() % 255);
      auto c = read_key_cache<E>(bad, path, source);
      ASSERT_FALSE(c.ok());
      EXPECT_EQ(c.status().code(), StatusCode::kDataLoss) << c.status().to_string();
    }
    using Other = std::conditional_t<std::is_same_v<E, ec::bn254::Engine>, ec::bls12_381::Engine, ec::bn254::Engine>;
    auto other = read_key_cache<Other>(bytes, path, source);
    ASSERT_FALSE(other.ok());
    EXPECT_NE(other.status().message().find("another curve"), std::string::npos) << other.status().message();

    // A well-formed cache (checksum and all) whose B list the prover could not index with.
    ASSERT_GE(pk->b_variables.size(), 2u);
    for (int how = 0; how < 2; ++how) {
      auto broken = *pk;
      if (how == 0) std::swap(broken.b_variables[0], broken.b_variables[1]);  // not ascending
      if (how == 1) broken.b_variables.back() = broken.num_variables;        // out of range
      ASSERT_TRUE(write_key_cache(broken, source, path).ok());
      auto r = read_key_cache<E>(read_all(path), path, source);
      ASSERT_FALSE(r.ok()) << "case " << how;
      EXPECT_NE(r.status().message().find("B variable list"), std::string::npos) << r.status().message();
    }
  }
  std::filesystem::remove(path);
}

TEST(ContentHashTest, PiecewiseEqualsWholeAndInputsDiffer) {
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed());
  std::vector<uint8_t> data(10000);
  for (auto& b : data) b = uint8_t(rng());
  const Hash128 whole = content_hash(data);
  for (int trial = 0; trial < 50; ++trial) {
    ContentHasher h;
    size_t pos = 0;
    while (pos < data.size()) {
      const size_t k = std::min<size_t>(data.size() - pos, rng() % 37);
      h.update(std::span(data).subspan(pos, k));
      pos += k;
    }
    EXPECT_EQ(h.finish(), whole);
  }
  EXPECT_EQ(whole.hex().size(), 32u);
  // Every single-bit flip, and every length, gives another hash.
  std::set<std::pair<uint64_t, uint64_t>> seen{{whole.lo, whole.hi}};
  for (size_t bit = 0; bit < 800; ++bit) {
    auto flipped = data;
    flipped[bit / 8] ^= uint8_t(1u << (bit % 8));
    const Hash128 h = content_hash(flipped);
    EXPECT_TRUE(seen.insert({h.lo, h.hi}).second) << "bit " << bit;
  }
  std::vector<uint8_t> zeros;
  for (int len = 0; len < 64; ++len) {
    const Hash128 h = content_hash(zeros);
    EXPECT_TRUE(seen.insert({h.lo, h.hi}).second) << "length " << len;
    zeros.push_back(0);
  }
}

}  // namespace
}  // namespace snarkd::formats
