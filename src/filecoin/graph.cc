#include "filecoin/graph.h"

#include <bit>
#include <cstring>

#include "base/blake2b.h"
#include "base/sha256.h"

namespace snarkd::filecoin {

namespace {

uint32_t load_le32(const uint8_t* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24; }
uint64_t load_le64(const uint8_t* p) { return uint64_t(load_le32(p)) | uint64_t(load_le32(p + 4)) << 32; }
uint64_t load_be64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | p[i];
  return v;
}
void store_be64(uint8_t* p, uint64_t v) {
  for (int i = 7; i >= 0; --i, v >>= 8) p[i] = uint8_t(v);
}

Sha256Digest domain_seed(std::string_view dst, const Bytes32& porep_id) {
  Sha256 h;
  h.update(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(dst.data()), dst.size())).update(porep_id);
  return h.finish();
}

inline void quarter(uint32_t* x, int a, int b, int c, int d) {
  x[a] += x[b]; x[d] = std::rotl(x[d] ^ x[a], 16);
  x[c] += x[d]; x[b] = std::rotl(x[b] ^ x[c], 12);
  x[a] += x[b]; x[d] = std::rotl(x[d] ^ x[a], 8);
  x[c] += x[d]; x[b] = std::rotl(x[b] ^ x[c], 7);
}

}  // namespace

void chacha8_keystream(const std::array<uint8_t, 32>& key, std::span<uint8_t> out) {
  uint32_t init[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};  // "expand 32-byte k"
  for (int i = 0; i < 8; ++i) init[4 + i] = load_le32(key.data() + 4 * i);
  for (uint64_t block = 0; block * 64 < out.size(); ++block) {
    init[12] = uint32_t(block);
    init[13] = uint32_t(block >> 32);
    init[14] = init[15] = 0;
    uint32_t x[16];
    std::memcpy(x, init, sizeof x);
    for (int round = 0; round < 8; round += 2) {
      quarter(x, 0, 4, 8, 12);
      quarter(x, 1, 5, 9, 13);
      quarter(x, 2, 6, 10, 14);
      quarter(x, 3, 7, 11, 15);
      quarter(x, 0, 5, 10, 15);
      quarter(x, 1, 6, 11, 12);
      quarter(x, 2, 7, 8, 13);
      quarter(x, 3, 4, 9, 14);
    }
    for (int i = 0; i < 16; ++i) {
      const uint32_t w = x[i] + init[i];
      for (int b = 0; b < 4; ++b) {
        const size_t at = size_t(block * 64 + uint64_t(4 * i + b));
        if (at < out.size()) out[at] = uint8_t(w >> (8 * b));
      }
    }
  }
}

StackedGraph::StackedGraph(uint64_t nodes, const Bytes32& porep_id, bool v1_0) : nodes_(nodes), v1_0_(v1_0) {
  const auto drg = domain_seed("Filecoin_DRSample", porep_id);
  std::copy_n(drg.begin(), 28, drg_seed_.begin());
  const auto feistel = domain_seed("Filecoin_Feistel", porep_id);
  for (int i = 0; i < 4; ++i) keys_[size_t(i)] = load_le64(feistel.data() + 8 * i);
  // The permuted domain: the smallest 4^k >= 8 * nodes (k >= 1), in two k-bit halves.
  uint64_t pow4 = 4;
  unsigned log4 = 1;
  while (pow4 < nodes * kExpDegree) {
    pow4 *= 4;
    ++log4;
  }
  half_bits_ = log4;
  right_mask_ = (uint64_t(1) << log4) - 1;
  left_mask_ = right_mask_ << log4;
}

void StackedGraph::drg_parents(uint32_t node, std::span<uint32_t, kDrgDegree> out) const {
  if (node < 2) {
    std::fill(out.begin(), out.end(), 0u);
    return;
  }
  std::array<uint8_t, 32> seed;
  std::copy(drg_seed_.begin(), drg_seed_.end(), seed.begin());
  for (int i = 0; i < 4; ++i) seed[size_t(28 + i)] = uint8_t(node >> (8 * i));
  uint8_t stream[80];  // 10 draws of a u64
  chacha8_keystream(seed, stream);
  const uint64_t meta = uint64_t(node) * 5;
  const uint64_t buckets = uint64_t(std::bit_width(meta - 1));  // ceil(log2(meta)), meta >= 10
  const size_t first = v1_0_ ? 0 : 1;
  for (size_t k = 0; k < 5; ++k) {
    const uint64_t bucket = load_le64(stream + 16 * k) % buckets + 1;
    const uint64_t largest = std::min(meta, uint64_t(1) << bucket);
    const uint64_t smallest = std::max<uint64_t>(2, largest >> 1);
    const uint64_t distance = smallest + load_le64(stream + 16 * k + 8) % (largest - smallest + 1);
    const uint32_t parent = uint32_t((meta - distance) / 5);
    out[first + k] = parent == node ? node - 1 : parent;
  }
  out[v1_0_ ? 5 : 0] = node - 1;
}

uint64_t StackedGraph::feistel_encode(uint64_t index) const {
  uint64_t left = (index & left_mask_) >> half_bits_, right = index & right_mask_;
  for (int round = 0; round < 3; ++round) {
    uint8_t data[16];
    store_be64(data, right);
    store_be64(data + 8, keys_[size_t(round)]);
    const uint64_t f = load_be64(blake2b512(data).data()) & right_mask_;
    const uint64_t next_right = left ^ f;
    left = right;
    right = next_right;
  }
  return (left << half_bits_) | right;
}

void StackedGraph::exp_parents(uint32_t node, std::span<uint32_t, kExpDegree> out) const {
  const uint64_t n = nodes_ * kExpDegree;
  for (uint32_t i = 0; i < kExpDegree; ++i) {
    uint64_t t = feistel_encode(uint64_t(node) * kExpDegree + i);
    while (t >= n) t = feistel_encode(t);  // cycle-walk into the domain
    // V1 truncated the permuted index to 32 bits before dividing (32 and 64 GiB feel it).
    out[i] = v1_0_ ? uint32_t(t) / kExpDegree : uint32_t(t / kExpDegree);
  }
}

void StackedGraph::parents(uint32_t node, std::span<uint32_t, kParents> out) const {
  drg_parents(node, out.subspan<0, kDrgDegree>());
  exp_parents(node, out.subspan<kDrgDegree, kExpDegree>());
}

std::vector<uint32_t> StackedGraph::parents_cache(ThreadPool& pool) const {
  std::vector<uint32_t> out(size_t(nodes_) * kParents);
  pool.parallel_for(size_t(nodes_), [&](size_t begin, size_t end) {
    for (size_t v = begin; v < end; ++v) {
      parents(uint32_t(v), std::span<uint32_t, kParents>(out.data() + v * kParents, kParents));
    }
  });
  return out;
}

}  // namespace snarkd::filecoin
