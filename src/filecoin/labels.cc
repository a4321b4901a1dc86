#include "filecoin/labels.h"

#include <cstring>

#include "base/sha256.h"
#include "ff/bls12_381.h"

namespace snarkd::filecoin {

std::array<Bytes32, kLabelParents> expand_label_parents(std::span<const Bytes32> parents) {
  std::array<Bytes32, kLabelParents> out;
  for (size_t i = 0; i < kLabelParents; ++i) out[i] = parents[i % parents.size()];
  return out;
}

namespace {

// The 64-byte prefix, then the 37 parents: 1248 bytes hashed in one call.
Bytes32 label_of(uint8_t* buf, const Bytes32& replica_id, uint32_t layer, uint64_t node, size_t parent_bytes) {
  std::memcpy(buf, replica_id.data(), 32);
  for (int i = 0; i < 4; ++i) buf[32 + i] = uint8_t(layer >> (24 - 8 * i));
  for (int i = 0; i < 8; ++i) buf[36 + i] = uint8_t(node >> (56 - 8 * i));
  std::memset(buf + 44, 0, 20);
  Bytes32 out = sha256(std::span<const uint8_t>(buf, 64 + parent_bytes));
  out[31] &= 0x3f;
  return out;
}

}  // namespace

Bytes32 create_label(const Bytes32& replica_id, uint32_t layer, uint64_t node, std::span<const Bytes32> parents) {
  uint8_t buf[64 + 32 * kLabelParents];
  if (parents.empty()) return label_of(buf, replica_id, layer, node, 0);
  for (size_t i = 0; i < kLabelParents; ++i) std::memcpy(buf + 64 + 32 * i, parents[i % parents.size()].data(), 32);
  return label_of(buf, replica_id, layer, node, 32 * kLabelParents);
}

std::vector<std::vector<Bytes32>> create_labels(const StackedGraph& graph, std::span<const uint32_t> parents_cache,
                                                const Bytes32& replica_id, unsigned layers) {
  const size_t n = size_t(graph.nodes());
  std::vector<std::vector<Bytes32>> labels(layers, std::vector<Bytes32>(n));
  uint8_t buf[64 + 32 * kLabelParents];
  for (unsigned layer = 1; layer <= layers; ++layer) {
    auto& cur = labels[layer - 1];
    const Bytes32* prev = layer > 1 ? labels[layer - 2].data() : nullptr;
    cur[0] = label_of(buf, replica_id, layer, 0, 0);
    // Labels within a layer are sequential (DRG parents precede the node in the same layer).
    for (size_t v = 1; v < n; ++v) {
      const uint32_t* p = parents_cache.data() + v * kParents;
      const unsigned count = layer == 1 ? kDrgDegree : kParents;
      uint8_t* dst = buf + 64;
      for (unsigned i = 0; i < kDrgDegree; ++i) std::memcpy(dst + 32 * i, cur[p[i]].data(), 32);
      if (layer > 1) {
        for (unsigned i = kDrgDegree; i < kParents; ++i) std::memcpy(dst + 32 * i, prev[p[i]].data(), 32);
      }
      for (unsigned i = count; i < kLabelParents; ++i) std::memcpy(dst + 32 * i, dst + 32 * (i % count), 32);
      cur[v] = label_of(buf, replica_id, layer, v, 32 * kLabelParents);
    }
  }
  return labels;
}

Result<Bytes32> encode_node(const Bytes32& key, const Bytes32& data) {
  using Fr = ff::bls12_381::Fr;
  auto k = Fr::from_bytes_le(key);
  auto d = Fr::from_bytes_le(data);
  if (!k) return invalid_argument("label is not a canonical field element");
  if (!d) return invalid_argument("data node is not a canonical field element (Filecoin's data is Fr32-padded)");
  Bytes32 out;
  (*k + *d).to_bytes_le(out);
  return out;
}

}  // namespace snarkd::filecoin
