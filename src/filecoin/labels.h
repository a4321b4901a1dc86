// snarkd/filecoin: SDR labels (storage-proofs-porep stacked/vanilla/create_label) and the
// encoding of a replica node.
//
// label(layer, node) = SHA-256(replica_id || u32_be(layer) || u64_be(node) || 20 zero bytes ||
// 37 parent labels), byte 31 &= 0x3f. Node 0 hashes no parents. Layer 1 takes its 6 DRG parents'
// labels (same layer) six times and the first once more; later layers take the 6 DRG parents'
// labels in the same layer and the 8 expander parents' in the layer before, twice, and the
// first 9 once more.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"
#include "base/thread_pool.h"
#include "filecoin/graph.h"
#include "filecoin/seal_proof.h"

namespace snarkd::filecoin {

inline constexpr unsigned kLabelParents = 37;

// `parents`: the node's 6 (layer 1) or 14 (later layers) parent labels, DRG first; expanded
// to the 37 the label hashes. Empty for node 0.
Bytes32 create_label(const Bytes32& replica_id, uint32_t layer, uint64_t node, std::span<const Bytes32> parents);
// The 37 hashed labels from the node's 6 or 14 parent labels (the labeling proof's `parents`).
std::array<Bytes32, kLabelParents> expand_label_parents(std::span<const Bytes32> parents);

// All labels of a sector: labels[layer - 1][node], layers 1..`layers`. `parents_cache` from
// StackedGraph::parents_cache.
std::vector<std::vector<Bytes32>> create_labels(const StackedGraph& graph, std::span<const uint32_t> parents_cache,
                                                const Bytes32& replica_id, unsigned layers);

// The replica node: key (the last layer's label) + data node, in Fr. Fails when the data node is
// not a canonical field element (Filecoin's data is Fr32-padded: its top two bits are zero).
Result<Bytes32> encode_node(const Bytes32& key, const Bytes32& data);

}  // namespace snarkd::filecoin
