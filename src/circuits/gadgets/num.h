// snarkd/circuits/gadgets: field elements as variables (bellpepper-core 0.2.1 num.rs), the
// small row helpers of storage-proofs-core (gadgets/constraint.rs, pick), and multipack.
#pragma once

#include <span>
#include <vector>

#include "circuits/gadgets/boolean.h"

namespace snarkd::circuits {

// A linear combination with its value (bellpepper's Num): sums of bits and numbers that have
// not been given a variable of their own.
template <class CS>
struct Num {
  using F = typename CS::Field;
  F value = F::zero();
  typename CS::Lc lc;

  void add_bool_with_coeff(const Boolean& bit, const F& coeff) {
    if (bit.value()) value += coeff;
    if constexpr (CS::Lc::kRecords) bit.add_to(lc, coeff);
  }
};

template <class CS>
struct AllocatedNum {
  using F = typename CS::Field;
  Var var;
  F value = F::zero();

  static AllocatedNum alloc(CS& cs, const F& value) { return {cs.alloc(value), value}; }
  static AllocatedNum alloc_input(CS& cs, const F& value) { return {cs.alloc_input(value), value}; }

  // A public input equal to this number: input * 1 = num.
  AllocatedNum inputize(CS& cs) const {
    const Var input = cs.alloc_input(value);
    cs.enforce("enforce input is correct", [&](auto& a) { a.add(input); },
               [](auto& b) { b.add(Var::one()); }, [&](auto& c) { c.add(var); });
    return {input, value};
  }

  // Non-strict decomposition: NUM_BITS allocated bits, least significant first, then one row
  // 0 * 0 = sum 2^i b_i - x (bellpepper's "unpacking constraint", A and B empty).
  std::vector<Boolean> to_bits_le(CS& cs) const {
    constexpr unsigned kBits = unsigned(F::kModulusBits);
    const auto canonical = value.to_canonical();
    std::vector<Boolean> bits;
    bits.reserve(kBits);
    for (unsigned i = 0; i < kBits; ++i) {
      auto scope = cs.ns("bit", i);
      bits.push_back(Boolean::alloc(cs, canonical.bit(i)));
    }
    cs.enforce("unpacking constraint", [](auto&) {}, [](auto&) {}, [&](auto& c) {
      if constexpr (CS::Lc::kRecords) {
        for (unsigned i = 0; i < kBits; ++i) c.add(bits[i].var(), pow2<F>(i));
        c.sub(var);
      }
    });
    return bits;
  }
};

// c = cond ? a : b, with (b - a) * cond = b - c.
template <class CS>
AllocatedNum<CS> pick(CS& cs, const Boolean& cond, const AllocatedNum<CS>& a, const AllocatedNum<CS>& b) {
  const auto c = AllocatedNum<CS>::alloc(cs, cond.value() ? a.value : b.value);
  cs.enforce("pick", [&](auto& l) { l.add(b.var).sub(a.var); }, [&](auto& l) { cond.add_to(l); },
             [&](auto& l) { l.add(b.var).sub(c.var); });
  return c;
}

// a * 1 = b
template <class CS>
void equal(CS& cs, const AllocatedNum<CS>& a, const AllocatedNum<CS>& b) {
  cs.enforce("equal", [&](auto& l) { l.add(a.var); }, [](auto& l) { l.add(Var::one()); },
             [&](auto& l) { l.add(b.var); });
}

// res = a + b, with (a + b) * 1 = res.
template <class CS>
AllocatedNum<CS> add(CS& cs, const AllocatedNum<CS>& a, const AllocatedNum<CS>& b) {
  const auto res = AllocatedNum<CS>::alloc(cs, a.value + b.value);
  cs.enforce("sum constraint", [&](auto& l) { l.add(a.var).add(b.var); },
             [](auto& l) { l.add(Var::one()); }, [&](auto& l) { l.add(res.var); });
  return res;
}

// One allocated number from the first CAPACITY bits (least significant first):
// (sum 2^i b_i) * 1 = num.
template <class CS>
AllocatedNum<CS> pack_bits(CS& cs, std::span<const Boolean> bits) {
  using F = typename CS::Field;
  constexpr size_t kCapacity = F::kModulusBits - 1;
  Num<CS> num;
  for (size_t i = 0; i < bits.size() && i < kCapacity; ++i) num.add_bool_with_coeff(bits[i], pow2<F>(unsigned(i)));
  const auto packed = AllocatedNum<CS>::alloc(cs, num.value);
  cs.enforce("packing constraint", [&](auto& a) { if constexpr (CS::Lc::kRecords) a.add(num.lc); },
             [](auto& b) { b.add(Var::one()); }, [&](auto& c) { c.add(packed.var); });
  return packed;
}

// One public input per CAPACITY-bit chunk (least significant first): (sum 2^i b_i) * 1 = input.
template <class CS>
void pack_into_inputs(CS& cs, std::span<const Boolean> bits) {
  using F = typename CS::Field;
  constexpr size_t kCapacity = F::kModulusBits - 1;
  for (size_t start = 0, chunk = 0; start < bits.size(); start += kCapacity, ++chunk) {
    Num<CS> num;
    for (size_t i = start; i < bits.size() && i < start + kCapacity; ++i) {
      num.add_bool_with_coeff(bits[i], pow2<F>(unsigned(i - start)));
    }
    auto scope = cs.ns("packing", chunk);
    const Var input = cs.alloc_input(num.value);
    cs.enforce("packing constraint", [&](auto& a) { if constexpr (CS::Lc::kRecords) a.add(num.lc); },
               [](auto& b) { b.add(Var::one()); }, [&](auto& c) { c.add(input); });
  }
}

// Bytes to bits, most significant bit of each byte first (multipack::bytes_to_bits).
inline std::vector<bool> bytes_to_bits(std::span<const uint8_t> bytes) {
  std::vector<bool> bits;
  bits.reserve(8 * bytes.size());
  for (uint8_t byte : bytes) {
    for (int i = 7; i >= 0; --i) bits.push_back((byte >> i) & 1);
  }
  return bits;
}

}  // namespace snarkd::circuits
