// snarkd/filecoin: PoRep's vanilla side end to end: challenges, the circuit's public inputs,
// sealing a (test) sector, its C1 output (commit phase 1), and verifying a C1 output the way a
// strict Filecoin verifier would (rust-fil-proofs storage-proofs-porep stacked/vanilla, with the
// Merkle paths and labeling parents that its verifier leaves to the SNARK checked here too).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "base/status.h"
#include "base/thread_pool.h"
#include "filecoin/c1.h"
#include "filecoin/graph.h"
#include "filecoin/seal_proof.h"
#include "filecoin/trees.h"

namespace snarkd::filecoin {

// Interactive PoRep (V1, V1_1): challenge j = 18k + i of partition k is
// (LE(SHA-256(replica_id || seed || u32_le(j))) mod (nodes − 1)) + 1.
std::vector<uint64_t> interactive_challenges(const SealProof& p, const Bytes32& replica_id, const Bytes32& seed,
                                             unsigned partition);

// Synthetic PoRep: `count` synthetic challenges from (replica_id, comm_r) (ChaCha20 keyed by a
// keyed BLAKE2b), of which the seed selects each partition's. `count` is min(nodes, 2^18) for
// real sectors; tests pass upstream's small counts.
uint64_t synthetic_challenge_count(const SealProof& p);
std::vector<uint64_t> synthetic_challenges(uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                           uint64_t count);
std::vector<uint64_t> synthetic_porep_challenges(uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                                 const Bytes32& seed, uint64_t count, unsigned per_partition,
                                                 unsigned partition);

// The challenges of `partition` for this kind of proof (NI-PoRep refused).
Result<std::vector<uint64_t>> porep_challenges(const SealProof& p, const Bytes32& replica_id, const Bytes32& comm_r,
                                               const Bytes32& seed, unsigned partition);

// The circuit's public inputs of one partition, in order: replica_id, comm_d, comm_r, then per
// challenge 18 values: the challenge (tree D), its 6 DRG and 8 expander parents (tree C), the
// challenge three more times (as a u64, tree R last, tree C). As little-endian Fr bytes.
struct PartitionInputs {
  std::vector<uint64_t> challenges;
  std::vector<Bytes32> inputs;
};
Result<PartitionInputs> public_inputs(const SealProof& p, const StackedGraph& graph, const Bytes32& replica_id,
                                      const Bytes32& comm_d, const Bytes32& comm_r, const Bytes32& seed,
                                      unsigned partition);

// A sealed sector, all in memory (test sizes: 2 KiB to 512 MiB).
struct SealedSector {
  const SealProof* proof = nullptr;
  Bytes32 prover_id{}, ticket{}, replica_id{};
  uint64_t sector = 0;
  std::vector<std::vector<Bytes32>> labels;  // [layer - 1][node]
  std::unique_ptr<MerkleTree> tree_d, tree_c, tree_r_last;
  Bytes32 comm_d{}, comm_c{}, comm_r_last{}, comm_r{};
};

struct SealTimings {
  double graph_ms = 0, tree_d_ms = 0, labels_ms = 0, tree_c_ms = 0, tree_r_ms = 0;
};

// Seals `data` (nodes × 32 bytes, every node a canonical field element): tree D, the labels of
// every layer, tree C over the columns, the replica and tree R last.
Result<SealedSector> seal_sector(const SealProof& p, const StackedGraph& graph, std::span<const Bytes32> data,
                                 const Bytes32& prover_id, uint64_t sector, const Bytes32& ticket,
                                 SealTimings* timings = nullptr, ThreadPool& pool = ThreadPool::global());

// What commit phase 1 reads of a sector: its ids and commitments, labels and tree proofs. A
// sealed sector has it all; a synthetic one (c1_synth.h) only what its challenges touch.
class SectorView {
 public:
  virtual ~SectorView() = default;
  virtual const SealProof& proof() const = 0;
  virtual const Bytes32& replica_id() const = 0;
  virtual const Bytes32& ticket() const = 0;
  virtual const Bytes32& comm_d() const = 0;
  virtual const Bytes32& comm_r() const = 0;
  virtual Bytes32 label(unsigned layer, uint32_t node) const = 0;  // layer 1..L
  virtual MerkleProof tree_d_proof(uint64_t node) const = 0;
  virtual MerkleProof tree_c_proof(uint64_t node) const = 0;
  virtual MerkleProof tree_r_last_proof(uint64_t node) const = 0;
};

// A sealed sector as a SectorView (it must outlive the view).
std::unique_ptr<SectorView> view_of(const SealedSector& s);

// Commit phase 1: the vanilla proofs of every partition's challenges for `seed`.
Result<C1Output> commit_phase1(const SectorView& s, const StackedGraph& graph, const Bytes32& seed);
inline Result<C1Output> commit_phase1(const SealedSector& s, const StackedGraph& graph, const Bytes32& seed) {
  return commit_phase1(*view_of(s), graph, seed);
}

// Everything a C1 output claims: the structure, comm_r = Poseidon2(comm_c, comm_r_last), every
// challenged node the derived one, every column at the graph's parents, every path hashing to
// its root, every label the hash of its parents, the encoding. Errors name the JSON path.
Status verify_c1(const C1Output& c1, const StackedGraph& graph, ThreadPool& pool = ThreadPool::global());

}  // namespace snarkd::filecoin
