// PoRep trees against Filecoin's published roots: CC sector CommD (go-commp-utils zerocomm),
// TreeD of a buffer with data[0] = 1 (curio lib/proof/treed_build_test.go), and the Poseidon
// hasher's vector (filecoin-hashers poseidon.rs test_poseidon_hasher); proofs of random trees
// hash back to their roots and name their leaf.
#include "filecoin/trees.h"

#include <gtest/gtest.h>

#include "base/hex.h"
#include "ff/bls12_381.h"
#include "filecoin/test_bytes.h"
#include "test_util.h"

namespace snarkd::filecoin {
namespace {

using testing::fr_bytes;
using testing::random_bytes;

using Fr = ff::bls12_381::Fr;


std::string tree_d_root(const SealProof& p, bool first_one) {
  std::vector<Bytes32> leaves(p.nodes(), Bytes32{});
  if (first_one) leaves[0][0] = 1;
  return to_hex(MerkleTree::build(std::move(leaves), tree_d_arities(p), TreeHash::kSha256).root());
}

TEST(TreesTest, TreeDMatchesPublishedRoots) {
  const SealProof& kib2 = seal_proofs()[5];
  const SealProof& mib8 = seal_proofs()[6];
  EXPECT_EQ(tree_d_root(kib2, false), "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833");
  EXPECT_EQ(tree_d_root(mib8, false), "65f29e5d98d246c38b388cfc06db1f6b021303c5a289000bdce832a9c3ec421c");
  EXPECT_EQ(tree_d_root(kib2, true), "ea995c54784720b449fc92b070adb6cf6635c2619a7a5e0054a24e88f252ec0d");
  EXPECT_EQ(tree_d_root(mib8, true), "23404a8880f9cbc72039cb8614359c2834845570fe95190bbd4d934142e8252c");
}

TEST(TreesTest, PoseidonHasherVector) {
  // Leaves [1, 0, 0, 1] in a binary Poseidon tree.
  const Bytes32 one = fr_bytes(1), zero = fr_bytes(0);
  const Bytes32 a[2] = {one, zero}, b[2] = {zero, one};
  EXPECT_EQ(to_hex(poseidon_node(a)), "5e0b807960ff39b3af9430dcb30759ec264fa274cc03c093c36b78beff942f04");
  auto t = MerkleTree::build({one, zero, zero, one}, {2, 2}, TreeHash::kPoseidon);
  EXPECT_EQ(to_hex(t.root()), "71e691e2e38bbbefd25a2bcbb872cc77ae746bae8563eb30ebd96ab2b7ebff1e");
  EXPECT_EQ(comm_r_of(one, zero), poseidon_node(a));
  (void)b;
}

TEST(TreesTest, ProofsHashToTheirRoots) {
  auto rng = snarkd::testing::make_rng();
  SNARKD_SEED_TRACE();
  struct Case {
    std::vector<unsigned> arities;
    TreeHash hash;
    MerkleProof::Kind kind;
  };
  for (const Case& c : {Case{{2, 2, 2, 2, 2}, TreeHash::kSha256, MerkleProof::Kind::kSingle},
                        Case{{8, 8}, TreeHash::kPoseidon, MerkleProof::Kind::kSingle},
                        Case{{8, 8}, TreeHash::kPoseidon, MerkleProof::Kind::kSub},
                        Case{{8, 8, 2}, TreeHash::kPoseidon, MerkleProof::Kind::kTop}}) {
    size_t n = 1;
    for (unsigned a : c.arities) n *= a;
    std::vector<Bytes32> leaves(n);
    for (auto& l : leaves) Fr::random(rng).to_bytes_le(l);
    const auto t = MerkleTree::build(leaves, c.arities, c.hash);
    for (uint64_t i : {uint64_t(0), uint64_t(n - 1), uint64_t(rng() % n)}) {
      auto p = t.proof(i, c.kind);
      EXPECT_EQ(p.leaf, leaves[i]);
      EXPECT_EQ(p.leaf_index(), i);
      EXPECT_EQ(*merkle_root(p, c.hash), t.root());
      p.path.back().hashes.front()[0] ^= 1;  // a sibling changed: another root
      EXPECT_NE(*merkle_root(p, c.hash), t.root());
    }
  }
}

}  // namespace
}  // namespace snarkd::filecoin
