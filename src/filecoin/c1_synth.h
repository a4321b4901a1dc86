// snarkd/filecoin: full-size C1 outputs without sealing, for testing and benchmarking only.
//
// A 32 GiB or 64 GiB sector cannot be sealed on a test machine, but its C2 needs a C1 whose
// every claim holds. synthesize_c1 builds one for a CC sector (all-zero data, so tree D is the
// zero-commitment tree and comm_d is the CC CommD): the challenges and parents are the ones the
// graph derives from the replica id and the seed; the columns of parents that are not
// challenged hold random labels, the challenged nodes' labels are the hashes of their parents'
// rows; trees C and R last are sparse, every subtree without a touched node a random value.
// Every path hashes to its root, every label to its parents, comm_r = Poseidon2(comm_c,
// comm_r_last): the C2 circuit's witness satisfies the circuit, so proofs can be made and
// verified with test parameters. It is not a sealed sector: nothing proves storage.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <unordered_map>
#include <vector>

#include "base/thread_pool.h"
#include "filecoin/c1.h"
#include "filecoin/porep.h"
#include "filecoin/trees.h"

namespace snarkd::filecoin {

// A Merkle tree given only by a few leaves: every node whose subtree holds none of them is
// `fill(level, index)`.
class SparseTree {
 public:
  using Fill = std::function<Bytes32(unsigned level, uint64_t index)>;
  static SparseTree build(const std::map<uint64_t, Bytes32>& leaves, std::vector<unsigned> arities, TreeHash hash,
                          Fill fill, ThreadPool& pool = ThreadPool::global());
  const Bytes32& root() const { return root_; }
  Bytes32 node(unsigned level, uint64_t index) const;
  MerkleProof proof(uint64_t leaf, MerkleProof::Kind kind) const;

 private:
  std::vector<std::unordered_map<uint64_t, Bytes32>> known_;  // per level
  std::vector<unsigned> arities_;
  Fill fill_;
  Bytes32 root_{};
};

struct SynthTimings {
  double labels_ms = 0, tree_c_ms = 0, tree_r_ms = 0, c1_ms = 0;
};

// The C1 output of a CC sector of `p` (interactive PoRep: V1 or V1_1; synthetic PoRep derives
// its challenges from comm_r and NI-PoRep is not supported: both refused).
Result<C1Output> synthesize_c1(const SealProof& p, const Bytes32& prover_id, uint64_t sector, const Bytes32& ticket,
                               const Bytes32& seed, SynthTimings* timings = nullptr,
                               ThreadPool& pool = ThreadPool::global());

}  // namespace snarkd::filecoin
