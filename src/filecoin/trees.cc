#include "filecoin/trees.h"

#include <cstring>

#include "base/sha256.h"
#include "circuits/gadgets/poseidon.h"

namespace snarkd::filecoin {

using Fr = ff::bls12_381::Fr;

Bytes32 sha256_node(const Bytes32& left, const Bytes32& right) {
  uint8_t buf[64];
  std::memcpy(buf, left.data(), 32);
  std::memcpy(buf + 32, right.data(), 32);
  Bytes32 out = sha256(std::span<const uint8_t>(buf, 64));
  out[31] &= 0x3f;
  return out;
}

Bytes32 poseidon_node(std::span<const Bytes32> children) {
  Fr in[36];
  for (size_t i = 0; i < children.size(); ++i) {
    // Callers pass canonical values (the readers check every domain); a non-canonical one would
    // be a bug upstream of here.
    auto v = Fr::from_bytes_le(children[i]);
    in[i] = v ? *v : Fr::zero();
  }
  Bytes32 out;
  circuits::poseidon_hash(std::span<const Fr>(in, children.size())).to_bytes_le(out);
  return out;
}

std::vector<unsigned> tree_d_arities(const SealProof& p) { return std::vector<unsigned>(p.node_bits(), 2); }

std::vector<unsigned> tree_rc_arities(const SealProof& p) {
  std::vector<unsigned> a(p.tree.base_levels, p.tree.base_arity);
  if (p.tree.sub_arity) a.push_back(p.tree.sub_arity);
  if (p.tree.top_arity) a.push_back(p.tree.top_arity);
  return a;
}

MerkleProof::Kind tree_rc_kind(const SealProof& p) {
  return p.tree.top_arity ? MerkleProof::Kind::kTop : p.tree.sub_arity ? MerkleProof::Kind::kSub : MerkleProof::Kind::kSingle;
}

MerkleTree MerkleTree::build(std::vector<Bytes32> leaves, std::vector<unsigned> arities, TreeHash hash,
                             ThreadPool& pool) {
  MerkleTree t;
  t.arities_ = std::move(arities);
  t.levels_.push_back(std::move(leaves));
  for (unsigned arity : t.arities_) {
    const auto& below = t.levels_.back();
    std::vector<Bytes32> up(below.size() / arity);
    pool.parallel_for(up.size(), [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) {
        up[i] = hash == TreeHash::kSha256 ? sha256_node(below[2 * i], below[2 * i + 1])
                                          : poseidon_node(std::span<const Bytes32>(below).subspan(arity * i, arity));
      }
    });
    t.levels_.push_back(std::move(up));
  }
  return t;
}

MerkleProof MerkleTree::proof(uint64_t i, MerkleProof::Kind kind) const {
  MerkleProof m;
  m.kind = kind;
  m.root = root();
  m.leaf = leaf(i);
  for (size_t level = 0; level < arities_.size(); ++level) {
    const unsigned arity = arities_[level];
    PathElement e;
    e.index = i % arity;
    const uint64_t first = i - e.index;
    for (unsigned j = 0; j < arity; ++j) {
      if (j != e.index) e.hashes.push_back(levels_[level][size_t(first + j)]);
    }
    m.path.push_back(std::move(e));
    i /= arity;
  }
  return m;
}

Result<Bytes32> merkle_root(const MerkleProof& proof, TreeHash hash) {
  Bytes32 cur = proof.leaf;
  std::vector<Bytes32> children;
  for (size_t level = 0; level < proof.path.size(); ++level) {
    const auto& e = proof.path[level];
    const size_t arity = e.hashes.size() + 1;
    if (e.index >= arity) return invalid_argument("path level " + std::to_string(level) + ": index " + std::to_string(e.index) + " outside a group of " + std::to_string(arity));
    if (hash == TreeHash::kSha256 ? arity != 2 : !circuits::poseidon_arity_supported(unsigned(arity))) {
      return invalid_argument("path level " + std::to_string(level) + ": no hash of arity " + std::to_string(arity));
    }
    children.assign(e.hashes.begin(), e.hashes.end());
    children.insert(children.begin() + ptrdiff_t(e.index), cur);
    cur = hash == TreeHash::kSha256 ? sha256_node(children[0], children[1]) : poseidon_node(children);
  }
  return cur;
}

}  // namespace snarkd::filecoin
