// snarkd/filecoin: PoRep's Merkle trees over 32-byte nodes (merkletree 0.23 as rust-fil-proofs
// uses it) and their proofs.
//
// - Tree D: SHA-256 binary tree over the unsealed data (the leaves are the data nodes as they
//   are; an inner node is SHA-256(left || right) with byte 31 &= 0x3f); its root is comm_d.
// - Trees C and R last: Poseidon trees of the sector's shape: arity-8 base levels, then a sub
//   level and a top level (32 GiB: 8-8-0, 64 GiB: 8-8-2). The base trees cover contiguous node
//   ranges, so the whole is one tree whose levels have those arities.
// - Tree C's leaves are the column hashes (Poseidon of a node's labels in every layer); tree R
//   last's are the replica nodes. comm_r = Poseidon2(comm_c, comm_r_last).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"
#include "base/thread_pool.h"
#include "filecoin/c1.h"
#include "filecoin/seal_proof.h"

namespace snarkd::filecoin {

enum class TreeHash { kSha256, kPoseidon };

Bytes32 sha256_node(const Bytes32& left, const Bytes32& right);
// Poseidon (neptune's MerkleTree constants) of 2, 4, 8, 11, 16, 24 or 36 canonical elements.
Bytes32 poseidon_node(std::span<const Bytes32> children);
// hash_single_column: Poseidon of a node's labels in layers 1..L (L = 2 or 11).
inline Bytes32 hash_column(std::span<const Bytes32> rows) { return poseidon_node(rows); }
inline Bytes32 comm_r_of(const Bytes32& comm_c, const Bytes32& comm_r_last) {
  const Bytes32 both[2] = {comm_c, comm_r_last};
  return poseidon_node(both);
}

// The level arities from the leaves up: tree D (all 2), trees C and R last (the sector's shape).
std::vector<unsigned> tree_d_arities(const SealProof& p);
std::vector<unsigned> tree_rc_arities(const SealProof& p);
MerkleProof::Kind tree_rc_kind(const SealProof& p);

class MerkleTree {
 public:
  // Every level, in memory; `leaves.size()` must be the product of the arities.
  static MerkleTree build(std::vector<Bytes32> leaves, std::vector<unsigned> arities, TreeHash hash,
                          ThreadPool& pool = ThreadPool::global());

  const Bytes32& root() const { return levels_.back().front(); }
  const Bytes32& leaf(uint64_t i) const { return levels_.front()[size_t(i)]; }
  // The proof of leaf `i`, path from the leaf up.
  MerkleProof proof(uint64_t i, MerkleProof::Kind kind) const;

 private:
  std::vector<std::vector<Bytes32>> levels_;
  std::vector<unsigned> arities_;
};

// The root a proof's leaf and path hash to (each level's arity is its hashes + 1). Fails on an
// arity the hash has no constants for, or a path index outside its group.
Result<Bytes32> merkle_root(const MerkleProof& proof, TreeHash hash);

}  // namespace snarkd::filecoin
