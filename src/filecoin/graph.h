// snarkd/filecoin: the stacked DRG graph of PoRep (storage-proofs-core drgraph.rs BucketGraph,
// storage-proofs-porep stacked/vanilla/graph.rs and crypto/feistel.rs), bit-exact.
//
// Every node has 14 parents: 6 from the bucket-sampled DRG (in the same layer), then 8
// expander parents from a 3-round Feistel permutation keyed by the porep id (in the previous
// layer).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "base/thread_pool.h"
#include "filecoin/seal_proof.h"

namespace snarkd::filecoin {

inline constexpr unsigned kDrgDegree = 6, kExpDegree = 8, kParents = 14;

class StackedGraph {
 public:
  // `v1_0`: the V1 graph (node − 1 in the DRG's last slot, expander targets truncated to 32 bits).
  StackedGraph(uint64_t nodes, const Bytes32& porep_id, bool v1_0);
  explicit StackedGraph(const SealProof& p) : StackedGraph(p.nodes(), p.porep_id(), p.uses_v1_0_graph()) {}

  uint64_t nodes() const { return nodes_; }
  void drg_parents(uint32_t node, std::span<uint32_t, kDrgDegree> out) const;
  void exp_parents(uint32_t node, std::span<uint32_t, kExpDegree> out) const;
  // 6 DRG, then 8 expander.
  void parents(uint32_t node, std::span<uint32_t, kParents> out) const;
  std::array<uint32_t, kParents> parents(uint32_t node) const {
    std::array<uint32_t, kParents> p;
    parents(node, p);
    return p;
  }
  // Every node's parents, node after node (rust-fil-proofs' parent cache file: 14 × u32 per
  // node), made in parallel.
  std::vector<uint32_t> parents_cache(ThreadPool& pool = ThreadPool::global()) const;

 private:
  uint64_t feistel_encode(uint64_t index) const;

  uint64_t nodes_;
  bool v1_0_;
  std::array<uint8_t, 28> drg_seed_{};
  std::array<uint64_t, 4> keys_{};
  unsigned half_bits_ = 0;
  uint64_t right_mask_ = 0, left_mask_ = 0;
};

// The ChaCha8 keystream (rand_chacha 0.3's ChaCha8Rng: DJB layout, 64-bit block counter from 0,
// stream 0): the first out.size() bytes for `key`.
void chacha8_keystream(const std::array<uint8_t, 32>& key, std::span<uint8_t> out);

}  // namespace snarkd::filecoin
