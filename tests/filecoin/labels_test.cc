// SDR labels against rust-fil-proofs' `test_create_labels` (create_label/multi.rs): replica id
// [9; 32], 11 layers, the last label of the last layer, for graphs of 64 and 128 nodes, V1 with
// porep id [0; 32] and V1_1 with porep id [123; 32].
#include "filecoin/labels.h"

#include <gtest/gtest.h>

#include "base/hex.h"
#include "ff/bls12_381.h"
#include "test_util.h"

namespace snarkd::filecoin {
namespace {

std::string last_label(uint64_t nodes, uint8_t porep_byte, bool v1_0) {
  Bytes32 porep_id, replica_id;
  porep_id.fill(porep_byte);
  replica_id.fill(9);
  const StackedGraph g(nodes, porep_id, v1_0);
  const auto labels = create_labels(g, g.parents_cache(), replica_id, 11);
  return to_hex(labels.back().back());
}

TEST(LabelsTest, MatchUpstreamCreateLabelsVectors) {
  EXPECT_EQ(last_label(64, 0, true), "04ba0f9a6ba9fad35e4806d183a281eab3c25afa9a1bd5e3378da6f1f4f46204");
  EXPECT_EQ(last_label(128, 0, true), "86daa8c4521e197e48c1fae6c9a1e85ab894a8883b9f23cebe531ddcd1004c23");
  EXPECT_EQ(last_label(64, 123, false), "cfef0db78bf3b3ab9f1169774d2e7a77bc9054499d954834b51ca7c788110206");
  EXPECT_EQ(last_label(128, 123, false), "6d67c468cf81ab2289c1c9c72fa8777a232de4c1323dc0c6bd552ccc187c770f");
}

// The single-label path (what a labeling proof checks) agrees with the whole-layer path.
TEST(LabelsTest, SingleLabelsAgreeWithTheLayers) {
  const StackedGraph g(seal_proofs()[5]);
  auto rng = snarkd::testing::make_rng();
  SNARKD_SEED_TRACE();
  Bytes32 replica_id;
  for (auto& b : replica_id) b = uint8_t(rng());
  replica_id[31] &= 0x3f;
  const auto cache = g.parents_cache();
  const auto labels = create_labels(g, cache, replica_id, 2);
  for (uint32_t node : {0u, 1u, 2u, 17u, 63u}) {
    const auto p = g.parents(node);
    std::vector<Bytes32> l1, l2;
    for (unsigned i = 0; i < kDrgDegree; ++i) l1.push_back(labels[0][p[i]]);
    for (unsigned i = 0; i < kDrgDegree; ++i) l2.push_back(labels[1][p[i]]);
    for (unsigned i = kDrgDegree; i < kParents; ++i) l2.push_back(labels[0][p[i]]);
    EXPECT_EQ(create_label(replica_id, 1, node, node ? std::span<const Bytes32>(l1) : std::span<const Bytes32>()),
              labels[0][node]);
    EXPECT_EQ(create_label(replica_id, 2, node, node ? std::span<const Bytes32>(l2) : std::span<const Bytes32>()),
              labels[1][node]);
    // The 37 expanded parents: 6 x 6 + 1, and 14 + 14 + 9.
    const auto e1 = expand_label_parents(l1);
    EXPECT_EQ(e1[36], l1[0]);
    EXPECT_EQ(e1[35], l1[5]);
    const auto e2 = expand_label_parents(l2);
    EXPECT_EQ(e2[28], l2[0]);
    EXPECT_EQ(e2[36], l2[8]);
  }
}

TEST(LabelsTest, EncodingIsFieldAddition) {
  using Fr = ff::bls12_381::Fr;
  auto rng = snarkd::testing::make_rng();
  SNARKD_SEED_TRACE();
  const Fr k = Fr::random(rng), d = Fr::random(rng);
  Bytes32 kb, db, sum;
  k.to_bytes_le(kb);
  d.to_bytes_le(db);
  (k + d).to_bytes_le(sum);
  EXPECT_EQ(*encode_node(kb, db), sum);
  Bytes32 bad;
  bad.fill(0xff);
  auto e = encode_node(kb, bad);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("data node is not a canonical"), std::string::npos);
}

}  // namespace
}  // namespace snarkd::filecoin
