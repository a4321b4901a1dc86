// Registered seal proofs against rust-filecoin-proofs-api's registry (ids, names, api
// versions) and filecoin-proofs' constants (layers, partitions, challenges, tree shapes);
// porep_id, prover_id and replica_id against their published layouts.
#include "filecoin/seal_proof.h"

#include <gtest/gtest.h>

#include "base/hex.h"

namespace snarkd::filecoin {
namespace {

TEST(SealProofTest, TableMatchesTheRegistry) {
  ASSERT_EQ(seal_proofs().size(), 20u);
  struct Row {
    uint64_t id;
    const char* name;
    uint64_t sector_size;
    unsigned layers, partitions, challenges;
    const char* tree;
    unsigned tree_levels;
    ApiVersion api;
    PorepFeature feature;
  };
  const Row rows[] = {
      {0, "StackedDrg2KiBV1", 2048, 2, 1, 2, "8-0-0", 2, ApiVersion::kV1_0, PorepFeature::kNone},
      {1, "StackedDrg8MiBV1", 8u << 20, 2, 1, 2, "8-0-0", 6, ApiVersion::kV1_0, PorepFeature::kNone},
      {2, "StackedDrg512MiBV1", 512u << 20, 2, 1, 2, "8-0-0", 8, ApiVersion::kV1_0, PorepFeature::kNone},
      {3, "StackedDrg32GiBV1", uint64_t(32) << 30, 11, 10, 18, "8-8-0", 10, ApiVersion::kV1_0, PorepFeature::kNone},
      {4, "StackedDrg64GiBV1", uint64_t(64) << 30, 11, 10, 18, "8-8-2", 11, ApiVersion::kV1_0, PorepFeature::kNone},
      {5, "StackedDrg2KiBV1_1", 2048, 2, 1, 2, "8-0-0", 2, ApiVersion::kV1_1, PorepFeature::kNone},
      {8, "StackedDrg32GiBV1_1", uint64_t(32) << 30, 11, 10, 18, "8-8-0", 10, ApiVersion::kV1_1, PorepFeature::kNone},
      {9, "StackedDrg64GiBV1_1", uint64_t(64) << 30, 11, 10, 18, "8-8-2", 11, ApiVersion::kV1_1, PorepFeature::kNone},
      {10, "StackedDrg2KiBV1_1_Feat_SyntheticPoRep", 2048, 2, 1, 2, "8-0-0", 2, ApiVersion::kV1_2,
       PorepFeature::kSynthetic},
      {13, "StackedDrg32GiBV1_1_Feat_SyntheticPoRep", uint64_t(32) << 30, 11, 10, 18, "8-8-0", 10,
       ApiVersion::kV1_2, PorepFeature::kSynthetic},
      {15, "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep", 2048, 2, 13, 2, "8-0-0", 2, ApiVersion::kV1_2,
       PorepFeature::kNonInteractive},
      {18, "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep", uint64_t(32) << 30, 11, 126, 18, "8-8-0", 10,
       ApiVersion::kV1_2, PorepFeature::kNonInteractive},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(r.name);
    const SealProof& p = seal_proofs()[r.id];
    EXPECT_EQ(p.id, r.id);
    EXPECT_EQ(p.name, r.name);
    EXPECT_EQ(p.sector_size, r.sector_size);
    EXPECT_EQ(p.layers, r.layers);
    EXPECT_EQ(p.partitions, r.partitions);
    EXPECT_EQ(p.challenges_per_partition, r.challenges);
    EXPECT_EQ(p.tree.name(), r.tree);
    EXPECT_EQ(p.tree.levels(), r.tree_levels);
    // The tree's leaves are the sector's nodes.
    uint64_t leaves = 1;
    for (unsigned i = 0; i < p.tree.base_levels; ++i) leaves *= 8;
    if (p.tree.sub_arity) leaves *= p.tree.sub_arity;
    if (p.tree.top_arity) leaves *= p.tree.top_arity;
    EXPECT_EQ(leaves, p.nodes());
    EXPECT_EQ(p.api, r.api);
    EXPECT_EQ(p.feature, r.feature);
    EXPECT_EQ((*parse_seal_proof(r.name))->id, p.id);
    EXPECT_EQ((*parse_seal_proof(std::to_string(r.id)))->id, r.id);
  }
  // The C1's vanilla_proofs key is the plain V1 name of the size for every kind.
  EXPECT_EQ(seal_proofs()[13].vanilla_variant(), "StackedDrg32GiBV1");
  EXPECT_EQ(seal_proofs()[9].vanilla_variant(), "StackedDrg64GiBV1");
  // The sizes' node counts: 2 KiB = 64 nodes, 32 GiB = 2^30.
  EXPECT_EQ(seal_proofs()[0].node_bits(), 6u);
  EXPECT_EQ(seal_proofs()[3].node_bits(), 30u);
}

TEST(SealProofTest, ParsingAndRefusals) {
  EXPECT_EQ((*parse_seal_proof("StackedDrg32GiBV1_2_Feat_NiPoRep"))->id, 18u);  // Go abi's spelling
  EXPECT_EQ((*default_seal_proof_for_size("8MiB"))->name, "StackedDrg8MiBV1_1");
  for (const char* bad : {"20", "StackedDrg1GiBV1", "", "-1", "999999999999"}) {
    auto p = parse_seal_proof(bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_NE(p.status().message().find("registered seal proof"), std::string::npos) << p.status().message();
  }
  EXPECT_FALSE(default_seal_proof_for_size("1GiB").ok());
  EXPECT_TRUE(check_provable(seal_proofs()[8]).ok());
  EXPECT_TRUE(check_provable(seal_proofs()[13]).ok());
  const Status ni = check_provable(seal_proofs()[18]);
  EXPECT_EQ(ni.code(), StatusCode::kUnimplemented);
  EXPECT_NE(ni.message().find("non-interactive PoRep is not supported"), std::string::npos);
}

TEST(SealProofTest, Ids) {
  // porep_id = u64_le(id) || u64_le(nonce 0) || 16 zero bytes.
  EXPECT_EQ(to_hex(seal_proofs()[8].porep_id()), "08" + std::string(62, '0'));
  EXPECT_EQ(to_hex(seal_proofs()[19].porep_id()), "13" + std::string(62, '0'));
  // prover_id: LEB128 of the actor id (filecoin.md: miner 1000 -> e807, then zeros).
  EXPECT_EQ(to_hex(prover_id_from_miner(1000)), "e807" + std::string(60, '0'));
  EXPECT_EQ(to_hex(prover_id_from_miner(0)), std::string(64, '0'));
  EXPECT_EQ(to_hex(prover_id_from_miner(127)), "7f" + std::string(62, '0'));
  EXPECT_EQ(to_hex(prover_id_from_miner(128)), "8001" + std::string(60, '0'));
  EXPECT_EQ(to_hex(prover_id_from_miner(~uint64_t(0))), "ffffffffffffffffff01" + std::string(44, '0'));
  // replica_id: SHA-256(prover_id || u64_be(sector) || ticket || comm_d || porep_id), byte 31 &=
  // 0x3f. Expected value from Python's hashlib over that layout (miner 1000, sector 42, ticket
  // 00..1f, comm_d 64..83, StackedDrg32GiBV1_1).
  Bytes32 ticket, comm_d;
  for (int i = 0; i < 32; ++i) {
    ticket[size_t(i)] = uint8_t(i);
    comm_d[size_t(i)] = uint8_t(100 + i);
  }
  EXPECT_EQ(to_hex(replica_id(prover_id_from_miner(1000), 42, ticket, comm_d, seal_proofs()[8].porep_id())),
            "235a6c01edb362a8fe6dea2330ca141ddf63cbbeb06855ffb808d80b1f924a2a");
  EXPECT_EQ(to_hex(*parse_bytes32("0x" + std::string(62, '0') + "ff", "ticket")), std::string(62, '0') + "ff");
  auto short_hex = parse_bytes32("abcd", "--ticket");
  ASSERT_FALSE(short_hex.ok());
  EXPECT_NE(short_hex.status().message().find("--ticket: expected 32 bytes"), std::string::npos);
  EXPECT_FALSE(parse_bytes32(std::string(64, 'g'), "--seed").ok());
}

}  // namespace
}  // namespace snarkd::filecoin
