// Full-size synthesized C1 outputs: every claim checks out under the strict verifier, comm_d is
// Filecoin's published CC CommD of the size, the bincode form has the size supraseal's C1
// writer computes for 32 GiB (11,014,808 bytes), and both encodings read back the same.
#include "filecoin/c1_synth.h"

#include <gtest/gtest.h>

#include "base/hex.h"
#include "filecoin/test_bytes.h"
#include "test_util.h"

namespace snarkd::filecoin {
namespace {

using testing::fr_bytes;
using testing::random_bytes;


TEST(C1SynthTest, ThirtyTwoGiBIsConsistent) {
  auto rng = snarkd::testing::make_rng();
  SNARKD_SEED_TRACE();
  const SealProof& p = seal_proofs()[8];
  auto c1 = synthesize_c1(p, prover_id_from_miner(rng() % 100000), rng() % 1000000, random_bytes(rng), random_bytes(rng));
  ASSERT_TRUE(c1.ok()) << c1.status().to_string();
  EXPECT_EQ(to_hex(c1->comm_d), "077e5fde35c50a9303a55009e3498a4ebedff39c42b710b730d8ec7ac7afa63e");
  const StackedGraph graph(p);
  Status st = verify_c1(*c1, graph);
  ASSERT_TRUE(st.ok()) << st.to_string();
  const std::string bin = write_c1_bincode(*c1);
  EXPECT_EQ(bin.size(), 11014808u);
  auto from_bin = read_c1_bincode(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bin.data()), bin.size()), p,
                                  "'c1.bin'");
  ASSERT_TRUE(from_bin.ok()) << from_bin.status().to_string();
  EXPECT_TRUE(*from_bin == *c1);
  auto from_json = read_c1_json(write_c1_json(*c1), "'c1.json'");
  ASSERT_TRUE(from_json.ok()) << from_json.status().to_string();
  EXPECT_TRUE(*from_json == *c1);
  // A changed label of a parent column no longer hashes to the challenge's label.
  auto bad = *c1;
  bad.vanilla_proofs[3][5].replica_column_proofs.drg_parents[2].column.rows[4][0] ^= 1;
  EXPECT_FALSE(verify_c1(bad, graph).ok());
}

TEST(C1SynthTest, SixtyFourGiBAndRefusals) {
  auto rng = snarkd::testing::make_rng();
  SNARKD_SEED_TRACE();
  const SealProof& p = seal_proofs()[9];
  auto c1 = synthesize_c1(p, prover_id_from_miner(1000), 7, random_bytes(rng), random_bytes(rng));
  ASSERT_TRUE(c1.ok()) << c1.status().to_string();
  ASSERT_EQ(c1->vanilla_proofs[0][0].comm_r_last_proof.kind, MerkleProof::Kind::kTop);
  Status st = verify_c1(*c1, StackedGraph(p));
  EXPECT_TRUE(st.ok()) << st.to_string();
  auto synth = synthesize_c1(seal_proofs()[13], prover_id_from_miner(1000), 7, random_bytes(rng), random_bytes(rng));
  ASSERT_FALSE(synth.ok());
  EXPECT_NE(synth.status().message().find("synthetic PoRep derives its challenges from comm_r"), std::string::npos);
  auto ni = synthesize_c1(seal_proofs()[18], prover_id_from_miner(1000), 7, random_bytes(rng), random_bytes(rng));
  EXPECT_EQ(ni.status().code(), StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace snarkd::filecoin
