// snarkd/circuits/gadgets: Merkle inclusion (storage-proofs-core gadgets/por.rs) and the SHA-256
// tree hash of filecoin-hashers (the Poseidon one is in poseidon.h).
//
// A tree has base levels of one arity, then optionally one sub level and one top level of other
// arities (2, 4 or 8). Per level, leaf to root: log2(arity) index bits are allocated (least
// significant first), then the arity - 1 siblings, then `insert` puts the current node among
// them and the level's hash combines them. After the levels, all index bits are packed into one
// public input (the challenge), the root is allocated, the computed root is `equal` to it, and
// a public root is `inputize`d.
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "base/sha256.h"
#include "circuits/gadgets/insertion.h"
#include "circuits/gadgets/sha256.h"

namespace snarkd::circuits {

// base_arity^base_levels x sub_arity x top_arity (0 = no such level).
struct TreeShape {
  unsigned base_arity = 2;
  unsigned base_levels = 1;
  unsigned sub_arity = 0;
  unsigned top_arity = 0;

  std::vector<unsigned> level_arities() const {
    std::vector<unsigned> a(base_levels, base_arity);
    if (sub_arity) a.push_back(sub_arity);
    if (top_arity) a.push_back(top_arity);
    return a;
  }
  uint64_t leaves() const {
    uint64_t n = 1;
    for (unsigned a : level_arities()) n *= a;
    return n;
  }
};

// One level of an inclusion path: the siblings in order and the node's position among the
// arity children.
template <class F>
struct PathLevel {
  std::vector<F> siblings;
  unsigned index = 0;
};

// filecoin-hashers' SHA-256 tree hash: each child's 32-byte little-endian representation,
// concatenated, hashed, and the result's top two bits cleared (a 254-bit field element).
struct Sha256TreeHasher {
  template <class F>
  static F native(std::span<const F> children) {
    Sha256 h;
    for (const auto& c : children) {
      uint8_t repr[32];
      c.to_bytes_le(repr);
      h.update(repr);
    }
    auto d = h.finish();
    d[31] &= 0x3f;
    return *F::from_bytes_le(d);
  }

  // Each child: to_bits_le (255 allocated bits) and a constant zero to fill the byte; the bits
  // of each byte reversed (SHA-256 reads bytes most significant bit first); the digest's bytes
  // read back least significant bit first, and its first 254 bits packed into one number.
  template <class CS>
  static AllocatedNum<CS> circuit(CS& cs, std::span<const AllocatedNum<CS>> children) {
    std::vector<Boolean> message;
    message.reserve(256 * children.size());
    for (size_t i = 0; i < children.size(); ++i) {
      auto scope = cs.ns("num into bits", i);
      auto bits = children[i].to_bits_le(cs);
      while (bits.size() % 8) bits.push_back(Boolean::constant(false));
      for (size_t byte = 0; byte < bits.size(); byte += 8) {
        for (size_t k = 8; k-- > 0;) message.push_back(bits[byte + k]);
      }
    }
    std::vector<Boolean> digest;
    {
      auto scope = cs.ns("hash");
      digest = sha256(cs, message);
    }
    std::vector<Boolean> le;
    le.reserve(256);
    for (size_t byte = 0; byte < digest.size(); byte += 8) {
      for (size_t k = 8; k-- > 0;) le.push_back(digest[byte + k]);
    }
    le.resize(254);
    auto scope = cs.ns("pack le");
    return pack_bits(cs, std::span<const Boolean>(le));
  }
};

// The inclusion proof of `leaf` under `root` along `path` (one PathLevel per level of `shape`).
// Allocates, in order: the leaf, per level its index bits and siblings (then the insert and the
// hash), the packed challenge input, the root; a public root is then made an input.
// The levels of an inclusion path from `cur` up (per level: log2(arity) index bits, least
// significant first, the arity − 1 siblings, `insert`, the hash); the index bits of every level
// are appended to `path_bits`. Returns the computed root.
template <class CS, class Hasher>
AllocatedNum<CS> por_levels(CS& cs, std::span<const unsigned> arities, AllocatedNum<CS> cur,
                            std::span<const PathLevel<typename CS::Field>> path, std::vector<Boolean>& path_bits) {
  using Num = AllocatedNum<CS>;
  assert(path.size() == arities.size());
  for (size_t level = 0; level < arities.size(); ++level) {
    auto scope = cs.ns("level", level);
    const unsigned arity = arities[level];
    const unsigned nbits = unsigned(std::countr_zero(arity));
    std::vector<Boolean> bits;
    for (unsigned j = 0; j < nbits; ++j) bits.push_back(Boolean::alloc(cs, (path[level].index >> j) & 1));
    path_bits.insert(path_bits.end(), bits.begin(), bits.end());
    std::vector<Num> siblings;
    for (unsigned j = 0; j + 1 < arity; ++j) siblings.push_back(Num::alloc(cs, path[level].siblings[j]));
    const auto children = insert(cs, cur, std::span<const Boolean>(bits), std::span<const Num>(siblings));
    cur = Hasher::circuit(cs, std::span<const Num>(children));
  }
  return cur;
}

template <class CS, class Hasher>
void por(CS& cs, const TreeShape& shape, const typename CS::Field& leaf,
         std::span<const PathLevel<typename CS::Field>> path, const typename CS::Field& root, bool public_root) {
  using Num = AllocatedNum<CS>;
  const auto arities = shape.level_arities();
  std::vector<Boolean> path_bits;
  const Num cur = por_levels<CS, Hasher>(cs, arities, Num::alloc(cs, leaf), path, path_bits);
  {
    auto scope = cs.ns("path");
    pack_into_inputs(cs, std::span<const Boolean>(path_bits));
  }
  const Num rt = Num::alloc(cs, root);
  equal(cs, cur, rt);
  if (public_root) rt.inputize(cs);
}

// The inclusion proof of an allocated `leaf` under an allocated `root` with a private root (as
// storage-proofs-porep's StackedCircuit calls PoRCircuit: Root::Var for both, private): the
// levels, the packed challenge input, `root` equal to the computed one.
template <class CS, class Hasher>
void por_allocated(CS& cs, std::span<const unsigned> arities, const AllocatedNum<CS>& leaf,
                   std::span<const PathLevel<typename CS::Field>> path, const AllocatedNum<CS>& root) {
  std::vector<Boolean> path_bits;
  const auto cur = por_levels<CS, Hasher>(cs, arities, leaf, path, path_bits);
  {
    auto scope = cs.ns("path");
    pack_into_inputs(cs, std::span<const Boolean>(path_bits));
  }
  equal(cs, cur, root);
}

// A native tree over `leaves` (shape.leaves() of them): all levels, leaves first.
template <class F, class Hasher>
std::vector<std::vector<F>> build_tree(const TreeShape& shape, std::vector<F> leaves) {
  std::vector<std::vector<F>> levels{std::move(leaves)};
  for (unsigned arity : shape.level_arities()) {
    const auto& below = levels.back();
    std::vector<F> up(below.size() / arity);
    for (size_t i = 0; i < up.size(); ++i) up[i] = Hasher::native(std::span<const F>(below).subspan(arity * i, arity));
    levels.push_back(std::move(up));
  }
  return levels;
}

// The path of leaf `index` in a tree from build_tree.
template <class F>
std::vector<PathLevel<F>> tree_path(const TreeShape& shape, const std::vector<std::vector<F>>& levels, uint64_t index) {
  std::vector<PathLevel<F>> path;
  const auto arities = shape.level_arities();
  for (size_t level = 0; level < arities.size(); ++level) {
    const unsigned arity = arities[level];
    PathLevel<F> p;
    p.index = unsigned(index % arity);
    const uint64_t first = index - p.index;
    for (unsigned j = 0; j < arity; ++j) {
      if (j != p.index) p.siblings.push_back(levels[level][first + j]);
    }
    path.push_back(std::move(p));
    index /= arity;
  }
  return path;
}

}  // namespace snarkd::circuits
