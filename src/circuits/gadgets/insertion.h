// snarkd/circuits/gadgets: inserting an element among its siblings at a position given by bits
// (storage-proofs-core gadgets/insertion.rs). Sizes 2, 4 and 8 are hand-optimized upstream
// (2, 8 and 22 rows); other sizes select every position from all candidates.
#pragma once

#include <cassert>
#include <span>
#include <vector>

#include "circuits/gadgets/num.h"

namespace snarkd::circuits {

// from[n] where n = sum 2^i bits[i] (bits least significant first): len(from) - 1 picks, the
// most significant bit first.
template <class CS>
AllocatedNum<CS> select(CS& cs, std::span<const AllocatedNum<CS>> from, std::span<const Boolean> bits) {
  assert(from.size() == (size_t(1) << bits.size()));
  std::vector<AllocatedNum<CS>> state(from.begin(), from.end());
  size_t half = state.size() / 2;
  for (size_t k = bits.size(); k-- > 0;) {
    auto scope = cs.ns("select bit", k);
    std::vector<AllocatedNum<CS>> next;
    next.reserve(half);
    for (size_t j = 0; j < half; ++j) next.push_back(pick(cs, bits[k], state[half + j], state[j]));
    state = std::move(next);
    half /= 2;
  }
  return state[0];
}

template <class CS>
std::vector<AllocatedNum<CS>> insert_2(CS& cs, const AllocatedNum<CS>& element, std::span<const Boolean> bits,
                                       std::span<const AllocatedNum<CS>> elements) {
  assert(bits.size() == 1 && elements.size() == 1);
  const auto& x = element;
  const auto& s = elements[0];
  std::vector<AllocatedNum<CS>> out;
  out.push_back(pick(cs, bits[0], s, x));
  out.push_back(pick(cs, bits[0], x, s));
  return out;
}

template <class CS>
std::vector<AllocatedNum<CS>> insert_4(CS& cs, const AllocatedNum<CS>& element, std::span<const Boolean> bits,
                                       std::span<const AllocatedNum<CS>> elements) {
  assert(bits.size() == 2 && elements.size() == 3);
  const Boolean &b0 = bits[0], &b1 = bits[1];
  const auto& a = element;
  const auto &b = elements[0], &c = elements[1], &d = elements[2];
  // pN_xy: output position N when the bits read (x unknown) ...
  const auto p0_x0 = pick(cs, b0, b, a);
  const auto p0 = pick(cs, b1, b, p0_x0);
  const auto p1_x0 = pick(cs, b0, a, b);
  const auto p1 = pick(cs, b1, c, p1_x0);
  const auto p2_x1 = pick(cs, b0, d, a);
  const auto p2 = pick(cs, b1, p2_x1, c);
  const auto p3_x1 = pick(cs, b0, a, d);
  const auto p3 = pick(cs, b1, p3_x1, d);
  return {p0, p1, p2, p3};
}

template <class CS>
std::vector<AllocatedNum<CS>> insert_8(CS& cs, const AllocatedNum<CS>& element, std::span<const Boolean> bits,
                                       std::span<const AllocatedNum<CS>> elements) {
  assert(bits.size() == 3 && elements.size() == 7);
  // Upstream requires the two low bits to be allocated and not negated.
  assert(bits[0].kind() == Boolean::Kind::kIs && bits[1].kind() == Boolean::Kind::kIs);
  const Boolean &b0 = bits[0], &b1 = bits[1], &b2 = bits[2];
  const auto& a = element;
  const auto &b = elements[0], &c = elements[1], &d = elements[2], &e = elements[3], &f = elements[4],
             &g = elements[5], &h = elements[6];
  const Boolean nor = Boolean::is(AllocatedBit::nor(cs, b0.bit(), b1.bit()));
  const Boolean both = Boolean::is(AllocatedBit::and_(cs, b0.bit(), b1.bit()));
  const auto p0_xx0 = pick(cs, nor, a, b);
  const auto p0 = pick(cs, b2, b, p0_xx0);
  const auto p1_x00 = pick(cs, b0, a, b);
  const auto p1_xx0 = pick(cs, b1, c, p1_x00);
  const auto p1 = pick(cs, b2, c, p1_xx0);
  const auto p2_x10 = pick(cs, b0, d, a);
  const auto p2_xx0 = pick(cs, b1, p2_x10, c);
  const auto p2 = pick(cs, b2, d, p2_xx0);
  const auto p3_xx0 = pick(cs, both, a, d);
  const auto p3 = pick(cs, b2, e, p3_xx0);
  const auto p4_xx1 = pick(cs, nor, a, f);
  const auto p4 = pick(cs, b2, p4_xx1, e);
  const auto p5_x01 = pick(cs, b0, a, f);
  const auto p5_xx1 = pick(cs, b1, g, p5_x01);
  const auto p5 = pick(cs, b2, p5_xx1, f);
  const auto p6_x11 = pick(cs, b0, h, a);
  const auto p6_xx1 = pick(cs, b1, p6_x11, g);
  const auto p6 = pick(cs, b2, p6_xx1, g);
  const auto p7_xx1 = pick(cs, both, a, h);
  const auto p7 = pick(cs, b2, p7_xx1, h);
  return {p0, p1, p2, p3, p4, p5, p6, p7};
}

// elements[0..n] ++ [element] ++ elements[n..], n = sum 2^i bits[i].
template <class CS>
std::vector<AllocatedNum<CS>> insert(CS& cs, const AllocatedNum<CS>& element, std::span<const Boolean> bits,
                                     std::span<const AllocatedNum<CS>> elements) {
  const size_t size = elements.size() + 1;
  assert((size_t(1) << bits.size()) == size);
  if (size == 2) return insert_2(cs, element, bits, elements);
  if (size == 4) return insert_4(cs, element, bits, elements);
  if (size == 8) return insert_8(cs, element, bits, elements);
  // Candidates: the result for each insertion index; then each position selected among them.
  std::vector<std::vector<AllocatedNum<CS>>> candidates(size);
  for (size_t index = 0; index < size; ++index) {
    auto& r = candidates[index];
    r.insert(r.end(), elements.begin(), elements.begin() + index);
    r.push_back(element);
    r.insert(r.end(), elements.begin() + index, elements.end());
  }
  std::vector<AllocatedNum<CS>> out;
  out.reserve(size);
  for (size_t pos = 0; pos < size; ++pos) {
    auto scope = cs.ns("choose", pos);
    std::vector<AllocatedNum<CS>> choices;
    choices.reserve(size);
    for (size_t index = 0; index < size; ++index) choices.push_back(candidates[index][pos]);
    out.push_back(select(cs, std::span<const AllocatedNum<CS>>(choices), bits));
  }
  return out;
}

}  // namespace snarkd::circuits
