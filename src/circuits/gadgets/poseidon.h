// snarkd/circuits/gadgets: Poseidon over BLS12-381 Fr as neptune 11.0.0 defines it for Filecoin
// (Strength::Standard, HashType::MerkleTree): its constants, the native hash and the legacy
// circuit `poseidon_hash`, row for row.
//
// Width t = arity + 1, S-box x^5, 8 full rounds, 55..60 partial rounds. state[0] is the domain
// tag 2^arity - 1, the inputs follow, the output is state[1]. The state is a row vector and
// every linear layer multiplies it on the right (s <- s * M). The optimized schedule moves the
// round constants through the linear layers (compressed constants) and factors the partial
// rounds' matrix into one pre-sparse matrix and one sparse matrix per partial round.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "circuits/gadgets/num.h"
#include "ff/bls12_381.h"

namespace snarkd::circuits {

using PoseidonField = ff::bls12_381::Fr;

struct PoseidonConstants {
  using F = PoseidonField;
  using Matrix = std::vector<std::vector<F>>;  // rows
  struct Sparse {
    std::vector<F> w_hat;   // column 0 (t values)
    std::vector<F> v_rest;  // row 0 without its first entry (t - 1 values)
  };

  unsigned arity = 0, width = 0, full_rounds = 8, partial_rounds = 0;
  F domain_tag;
  std::vector<F> round_constants;             // (full + partial) * width, Grain LFSR output
  std::vector<F> compressed_round_constants;  // full * width + partial
  Matrix mds, mds_inverse, pre_sparse;
  std::vector<Sparse> sparse;  // [0] is the first partial round's

  unsigned half_full() const { return full_rounds / 2; }
};

// The arities Filecoin uses: 2, 4, 8, 11, 16, 24, 36. Generated once, on first use.
bool poseidon_arity_supported(unsigned arity);
const PoseidonConstants& poseidon_constants(unsigned arity);

// The hash (neptune's default, the optimized schedule).
PoseidonField poseidon_hash(std::span<const PoseidonField> input);
// The textbook schedule from the uncompressed constants and M (a second, independent path).
PoseidonField poseidon_hash_reference(std::span<const PoseidonField> input);

namespace poseidon_detail {

// A state element: an allocated variable, or a linear combination with its value.
template <class CS>
struct Elt {
  using F = typename CS::Field;
  bool allocated = false;
  Var var;
  F value = F::zero();
  typename CS::Lc lc;

  static Elt constant(const F& v) {
    Elt e;
    e.value = v;
    if constexpr (CS::Lc::kRecords) e.lc.add(Var::one(), v);
    return e;
  }
  static Elt variable(Var v, const F& value) {
    Elt e;
    e.allocated = true;
    e.var = v;
    e.value = value;
    return e;
  }
  static Elt of(const AllocatedNum<CS>& n) { return variable(n.var, n.value); }
  // acc += s * this
  void add_scaled_to(Elt& acc, const F& s) const {
    acc.value += s * value;
    if constexpr (CS::Lc::kRecords) {
      if (allocated) acc.lc.add(var, s);
      else acc.lc.add(lc, s);
    }
  }
};

// An allocated variable for e: itself, or a new one with e.lc * 1 = v.
template <class CS>
Var ensure_allocated(CS& cs, const Elt<CS>& e) {
  if (e.allocated) return e.var;
  const Var v = cs.alloc(e.value);
  cs.enforce("ensure allocated", [&](auto& a) { if constexpr (CS::Lc::kRecords) a.add(e.lc); },
             [](auto& b) { b.add(Var::one()); }, [&](auto& c) { c.add(v); });
  return v;
}

// v = x^2 for an allocated x: x * x = v.
template <class CS>
Var square(CS& cs, Var x, const typename CS::Field& value) {
  const Var v = cs.alloc(value);
  cs.enforce("x4", [&](auto& a) { a.add(x); }, [&](auto& b) { b.add(x); }, [&](auto& c) { c.add(v); });
  return v;
}

// l^5 + post (post may be absent), with l = e allocated first.
template <class CS>
Elt<CS> quintic_s_box(CS& cs, const Elt<CS>& e, const typename CS::Field* post) {
  using F = typename CS::Field;
  const Var l = ensure_allocated(cs, e);
  const F x = e.value, x2 = x.square(), x4 = x2.square();
  const Var l2 = cs.alloc(x2);
  cs.enforce("x2", [&](auto& a) { a.add(l); }, [&](auto& b) { b.add(l); }, [&](auto& c) { c.add(l2); });
  const Var l4 = square(cs, l2, x4);
  const F x5 = post ? x4 * x + *post : x4 * x;
  const Var l5 = cs.alloc(x5);
  cs.enforce("x5", [&](auto& a) { a.add(l); }, [&](auto& b) { b.add(l4); }, [&](auto& c) {
    c.add(l5);
    if (post) c.add(Var::one(), -*post);
  });
  return Elt<CS>::variable(l5, x5);
}

// (l + pre)^5 + post for an allocated l: the first round's S-box, 3 rows.
template <class CS>
Elt<CS> quintic_s_box_pre_add(CS& cs, const Elt<CS>& e, const typename CS::Field& pre, const typename CS::Field& post) {
  using F = typename CS::Field;
  const Var l = ensure_allocated(cs, e);
  const F x = e.value + pre, x2 = x.square(), x4 = x2.square(), x5 = x4 * x + post;
  auto l_plus_pre = [&](auto& lc) { lc.add(l).add(Var::one(), pre); };
  const Var l2 = cs.alloc(x2);
  cs.enforce("x2 pre", l_plus_pre, l_plus_pre, [&](auto& c) { c.add(l2); });
  const Var l4 = square(cs, l2, x4);
  const Var l5 = cs.alloc(x5);
  cs.enforce("x5 pre", l_plus_pre, [&](auto& b) { b.add(l4); }, [&](auto& c) {
    c.add(l5);
    c.add(Var::one(), -post);
  });
  return Elt<CS>::variable(l5, x5);
}

template <class CS>
void dense_mix(std::vector<Elt<CS>>& e, const PoseidonConstants::Matrix& m) {
  const size_t t = e.size();
  std::vector<Elt<CS>> next(t);
  for (size_t j = 0; j < t; ++j) {
    for (size_t i = 0; i < t; ++i) e[i].add_scaled_to(next[j], m[i][j]);
  }
  e = std::move(next);
}

template <class CS>
void sparse_mix(std::vector<Elt<CS>>& e, const PoseidonConstants::Sparse& m) {
  const size_t t = e.size();
  Elt<CS> first;
  for (size_t i = 0; i < t; ++i) e[i].add_scaled_to(first, m.w_hat[i]);
  for (size_t j = 1; j < t; ++j) {
    Elt<CS> next;
    e[j].add_scaled_to(next, PoseidonField::one());
    e[0].add_scaled_to(next, m.v_rest[j - 1]);
    e[j] = std::move(next);
  }
  e[0] = std::move(first);
}

}  // namespace poseidon_detail

// neptune's legacy circuit::poseidon_hash over allocated inputs (arity of them): 3 rows per
// input in the first round, 4 per S-box after it, one for the output; as many aux variables.
template <class CS>
AllocatedNum<CS> poseidon_hash(CS& cs, std::span<const AllocatedNum<CS>> input) {
  static_assert(std::is_same_v<typename CS::Field, PoseidonField>, "Poseidon is defined over BLS12-381 Fr");
  using namespace poseidon_detail;
  using F = PoseidonField;
  const PoseidonConstants& k = poseidon_constants(unsigned(input.size()));
  const unsigned t = k.width, h = k.half_full();
  const auto& c = k.compressed_round_constants;
  std::vector<Elt<CS>> e(t);
  for (unsigned i = 1; i < t; ++i) e[i] = Elt<CS>::of(input[i - 1]);
  unsigned round = 0;
  size_t off = 0;
  auto mix = [&] {
    if (round == h - 1) dense_mix(e, k.pre_sparse);
    else if (round > h - 1 && round < h + k.partial_rounds) sparse_mix(e, k.sparse[round - h]);
    else dense_mix(e, k.mds);
    ++round;
  };
  // First full round: the tag's S-box is a constant; the inputs get the pre- and post-keys.
  {
    auto scope = cs.ns("first round");
    const F tag = k.domain_tag + c[0];
    e[0] = Elt<CS>::constant(tag.square().square() * tag + c[t]);
    for (unsigned i = 1; i < t; ++i) e[i] = quintic_s_box_pre_add(cs, e[i], c[i], c[t + i]);
    off = 2 * t;
    mix();
  }
  auto full_round = [&](bool last) {
    for (unsigned i = 0; i < t; ++i) e[i] = quintic_s_box(cs, e[i], last ? nullptr : &c[off + i]);
    if (!last) off += t;
    mix();
  };
  for (unsigned r = 1; r < h; ++r) {
    auto scope = cs.ns("initial full round", r);
    full_round(false);
  }
  for (unsigned r = 0; r < k.partial_rounds; ++r) {
    auto scope = cs.ns("partial round", r);
    e[0] = quintic_s_box(cs, e[0], &c[off]);
    ++off;
    mix();
  }
  for (unsigned r = 0; r + 1 < h; ++r) {
    auto scope = cs.ns("final full round", r);
    full_round(false);
  }
  {
    auto scope = cs.ns("terminal full round");
    full_round(true);
  }
  auto scope = cs.ns("output");
  const Var out = ensure_allocated(cs, e[1]);
  return {out, e[1].value};
}

// filecoin-hashers' Poseidon tree hash: the legacy circuit of the children's arity.
struct PoseidonTreeHasher {
  template <class F>
  static F native(std::span<const F> children) {
    return poseidon_hash(children);
  }
  template <class CS>
  static AllocatedNum<CS> circuit(CS& cs, std::span<const AllocatedNum<CS>> children) {
    return poseidon_hash(cs, children);
  }
};

}  // namespace snarkd::circuits
