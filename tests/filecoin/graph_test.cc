// The stacked graph against rust-fil-proofs' published parent caches: the SHA-256 of the whole
// cache file (14 × u32 LE per node) listed in storage-proofs-porep/parent_cache.json, for 2 KiB
// and 8 MiB, V1 and V1_1. Every DRG draw (ChaCha8), every Feistel round (BLAKE2b) and the
// parent layout feed those digests.
#include "filecoin/graph.h"

#include <gtest/gtest.h>

#include "base/hex.h"
#include "base/sha256.h"

namespace snarkd::filecoin {
namespace {

std::string cache_digest(const StackedGraph& g) {
  const auto cache = g.parents_cache();
  std::vector<uint8_t> bytes(cache.size() * 4);
  for (size_t i = 0; i < cache.size(); ++i) {
    for (int b = 0; b < 4; ++b) bytes[4 * i + size_t(b)] = uint8_t(cache[i] >> (8 * b));
  }
  return to_hex(sha256(bytes));
}

TEST(GraphTest, ParentCachesOf2KiBMatchUpstream) {
  EXPECT_EQ(cache_digest(StackedGraph(seal_proofs()[0])),
            "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d");
  EXPECT_EQ(cache_digest(StackedGraph(seal_proofs()[5])),
            "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97");
}

TEST(GraphTest, ParentCachesOf8MiBMatchUpstream) {
  EXPECT_EQ(cache_digest(StackedGraph(seal_proofs()[1])),
            "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce");
  EXPECT_EQ(cache_digest(StackedGraph(seal_proofs()[6])),
            "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab");
}

TEST(GraphTest, ShapeOfTheParents) {
  // The V1_1 graph puts node - 1 first, V1 last; nodes 0 and 1 have all-zero DRG parents; every
  // DRG parent precedes its node; expander parents are nodes of the sector.
  const StackedGraph v11(seal_proofs()[8]), v1(seal_proofs()[3]);
  for (uint32_t node : {0u, 1u, 2u, 3u, 1000u, (1u << 30) - 1}) {
    const auto a = v11.parents(node), b = v1.parents(node);
    if (node < 2) {
      for (unsigned i = 0; i < kDrgDegree; ++i) EXPECT_EQ(a[i], 0u);
      continue;
    }
    EXPECT_EQ(a[0], node - 1);
    EXPECT_EQ(b[5], node - 1);
    for (unsigned i = 0; i < kDrgDegree; ++i) EXPECT_LT(a[i], node);
    for (unsigned i = kDrgDegree; i < kParents; ++i) EXPECT_LT(a[i], 1u << 30);
  }
  // V1 truncates the permuted expander index to 32 bits: at 32 GiB (2^33 permuted indices) its
  // expander parents all fall in the low 2^29 nodes.
  for (uint32_t node = 0; node < 200; ++node) {
    const auto b = v1.parents(node);
    for (unsigned i = kDrgDegree; i < kParents; ++i) EXPECT_LT(b[i], 1u << 29);
  }
}

}  // namespace
}  // namespace snarkd::filecoin
