// snarkd/circuits/gadgets: 32-bit words of Booleans (bellpepper-core 0.2.1 uint32.rs) and
// MultiEq (multieq.rs), which packs many small equalities into one row.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <span>

#include "circuits/gadgets/boolean.h"

namespace snarkd::circuits {

// Accumulates equalities lhs_k = rhs_k of n_k-bit values as sum 2^{offset_k} lhs_k = sum
// 2^{offset_k} rhs_k, and emits one row `lhs * 1 = rhs` when the next one would reach the
// field's capacity (NUM_BITS - 1), and once more at flush() (bellpepper: on drop).
template <class CS>
class MultiEq {
 public:
  using F = typename CS::Field;
  using Lc = typename CS::Lc;
  static constexpr unsigned kCapacity = unsigned(F::kModulusBits) - 1;

  explicit MultiEq(CS& cs) : cs_(cs) {}
  MultiEq(const MultiEq&) = delete;
  ~MultiEq() { flush(); }

  CS& cs() { return cs_; }

  template <class L, class R>
  void enforce_equal(unsigned num_bits, const L& lhs, const R& rhs) {
    if (kCapacity <= bits_used_ + num_bits) accumulate();
    if constexpr (Lc::kRecords) {
      lhs_.add(lhs, pow2<F>(bits_used_));
      rhs_.add(rhs, pow2<F>(bits_used_));
    }
    bits_used_ += num_bits;
  }

  void flush() {
    if (bits_used_ > 0) accumulate();
  }

 private:
  void accumulate() {
    cs_.enforce(
        "multieq", [&](auto& a) { if constexpr (Lc::kRecords) a.add(lhs_); },
        [](auto& b) { b.add(Var::one()); }, [&](auto& c) { if constexpr (Lc::kRecords) c.add(rhs_); });
    lhs_.clear();
    rhs_.clear();
    bits_used_ = 0;
  }

  CS& cs_;
  Lc lhs_, rhs_;
  unsigned bits_used_ = 0;
};

// The general form (modes that record rows): 32 Booleans, least significant first.
template <class CS>
class UInt32 {
 public:
  UInt32() = default;

  static UInt32 constant(uint32_t value) {
    UInt32 r;
    r.value_ = value;
    for (unsigned i = 0; i < 32; ++i) r.bits_[i] = Boolean::constant((value >> i) & 1);
    return r;
  }

  // 32 allocated bits, least significant first.
  static UInt32 alloc(CS& cs, uint32_t value) {
    UInt32 r;
    r.value_ = value;
    for (unsigned i = 0; i < 32; ++i) {
      auto scope = cs.ns("allocated bit", i);
      r.bits_[i] = Boolean::alloc(cs, (value >> i) & 1);
    }
    return r;
  }

  // bits[0] is the most significant.
  static UInt32 from_bits_be(std::span<const Boolean> bits) {
    UInt32 r;
    r.value_ = 0;
    for (unsigned i = 0; i < 32; ++i) {
      r.value_ = (r.value_ << 1) | uint32_t(bits[i].value());
      r.bits_[31 - i] = bits[i];
    }
    return r;
  }
  // Most significant first.
  void append_bits_be(std::vector<Boolean>& out) const {
    for (int i = 31; i >= 0; --i) out.push_back(bits_[i]);
  }

  uint32_t value() const { return value_; }
  const std::array<Boolean, 32>& bits() const { return bits_; }

  UInt32 rotr(unsigned by) const {
    by %= 32;
    UInt32 r;
    r.value_ = std::rotr(value_, int(by));
    for (unsigned i = 0; i < 32; ++i) r.bits_[i] = bits_[(i + by) % 32];
    return r;
  }

  UInt32 shr(unsigned by) const {
    UInt32 r;
    r.value_ = by >= 32 ? 0 : value_ >> by;
    for (unsigned i = 0; i < 32; ++i) r.bits_[i] = i + by < 32 ? bits_[i + by] : Boolean::constant(false);
    return r;
  }

  UInt32 xor_(CS& cs, const UInt32& other) const {
    UInt32 r;
    r.value_ = value_ ^ other.value_;
    for (unsigned i = 0; i < 32; ++i) {
      auto scope = cs.ns("xor of bit", i);
      r.bits_[i] = Boolean::xor_(cs, bits_[i], other.bits_[i]);
    }
    return r;
  }

  static UInt32 sha256_ch(CS& cs, const UInt32& a, const UInt32& b, const UInt32& c) {
    UInt32 r;
    r.value_ = (a.value_ & b.value_) ^ (~a.value_ & c.value_);
    for (unsigned i = 0; i < 32; ++i) {
      auto scope = cs.ns("ch", i);
      r.bits_[i] = Boolean::sha256_ch(cs, a.bits_[i], b.bits_[i], c.bits_[i]);
    }
    return r;
  }

  static UInt32 sha256_maj(CS& cs, const UInt32& a, const UInt32& b, const UInt32& c) {
    UInt32 r;
    r.value_ = (a.value_ & b.value_) ^ (a.value_ & c.value_) ^ (b.value_ & c.value_);
    for (unsigned i = 0; i < 32; ++i) {
      auto scope = cs.ns("maj", i);
      r.bits_[i] = Boolean::sha256_maj(cs, a.bits_[i], b.bits_[i], c.bits_[i]);
    }
    return r;
  }

  // The sum modulo 2^32 of 2..10 words: the full sum's bits (bitlen(n (2^32 - 1)) of them) are
  // allocated and their equality with the operands' bits goes through `meq`.
  static UInt32 addmany(MultiEq<CS>& meq, std::span<const UInt32> ops) {
    using F = typename CS::Field;
    using Lc = typename CS::Lc;
    CS& cs = meq.cs();
    uint64_t sum = 0;
    bool all_constants = true;
    for (const auto& op : ops) {
      sum += op.value_;
      for (const auto& b : op.bits_) all_constants &= b.is_constant();
    }
    if (all_constants) return constant(uint32_t(sum));
    Lc lhs, rhs;
    if constexpr (Lc::kRecords) {
      for (const auto& op : ops) {
        for (unsigned i = 0; i < 32; ++i) op.bits_[i].add_to(lhs, pow2<F>(i));
      }
    }
    const unsigned result_bits = unsigned(std::bit_width(uint64_t(ops.size()) * 0xffffffffull));
    UInt32 r;
    r.value_ = uint32_t(sum);
    for (unsigned i = 0; i < result_bits; ++i) {
      auto scope = cs.ns("result bit", i);
      const AllocatedBit bit = AllocatedBit::alloc(cs, (sum >> i) & 1);
      if constexpr (Lc::kRecords) rhs.add(bit.var, pow2<F>(i));
      if (i < 32) r.bits_[i] = Boolean::is(bit);
    }
    meq.enforce_equal(result_bits, lhs, rhs);
    return r;
  }

 private:
  std::array<Boolean, 32> bits_;
  uint32_t value_ = 0;
};


// The witness-only form: no variables are needed, so a word is its value and two masks (which
// bits are constants, which are negated bits), and each operation folds constants for all 32
// bits at once, allocating exactly the bits, in exactly the order, the general form does.
template <class F>
class UInt32<r1cs::WitnessCS<F>> {
  using CS = r1cs::WitnessCS<F>;

 public:
  UInt32() = default;

  static UInt32 constant(uint32_t value) { return UInt32(value, ~0u, 0); }
  static UInt32 alloc(CS& cs, uint32_t value) {
    cs.alloc_bits(value, 0xffffffffu);
    return UInt32(value, 0, 0);
  }
  static UInt32 from_bits_be(std::span<const Boolean> bits) {
    UInt32 r;
    for (unsigned i = 0; i < 32; ++i) {
      const Boolean& b = bits[i];
      const uint32_t m = 1u << (31 - i);
      if (b.value()) r.value_ |= m;
      if (b.is_constant()) r.const_ |= m;
      else if (b.kind() == Boolean::Kind::kNot) r.not_ |= m;
    }
    return r;
  }
  void append_bits_be(std::vector<Boolean>& out) const {
    for (int i = 31; i >= 0; --i) out.push_back(bit(unsigned(i)));
  }
  std::array<Boolean, 32> bits() const {
    std::array<Boolean, 32> b;
    for (unsigned i = 0; i < 32; ++i) b[i] = bit(i);
    return b;
  }
  uint32_t value() const { return value_; }

  UInt32 rotr(unsigned by) const {
    by %= 32;
    return UInt32(std::rotr(value_, int(by)), std::rotr(const_, int(by)), std::rotr(not_, int(by)));
  }
  UInt32 shr(unsigned by) const {
    if (by >= 32) return constant(0);
    const uint32_t filled = by == 0 ? 0 : ~(~0u >> by);  // the top `by` bits: constant zeros
    return UInt32(value_ >> by, (const_ >> by) | filled, not_ >> by);
  }

  UInt32 xor_(CS& cs, const UInt32& o) const {
    const uint32_t both = ~const_ & ~o.const_;
    cs.alloc_bits((value_ ^ not_) ^ (o.value_ ^ o.not_), both);
    const uint32_t n = (both & (not_ ^ o.not_)) | (const_ & ~o.const_ & (o.not_ ^ value_)) |
                       (o.const_ & ~const_ & (not_ ^ o.value_));
    return UInt32(value_ ^ o.value_, const_ & o.const_, n);
  }

  static UInt32 sha256_ch(CS& cs, const UInt32& a, const UInt32& b, const UInt32& c) {
    UInt32 r;
    for (unsigned i = 0; i < 32; ++i) {
      const Bit x = a.get(i), y = b.get(i), z = c.get(i);
      const bool v = (x.v && y.v) != (!x.v && z.v);
      Bit out;
      if (x.c && y.c && z.c) out = Bit::constant(v);
      else if (x.is(false)) out = z;
      else if (y.is(false)) out = and_(cs, x.negate(), z);
      else if (z.is(false)) out = and_(cs, x, y);
      else if (z.is(true)) out = and_(cs, x, y.negate()).negate();
      else if (y.is(true)) out = and_(cs, x.negate(), z.negate()).negate();
      else out = alloc_bit(cs, v);
      r.set(i, out);
    }
    return r;
  }

  static UInt32 sha256_maj(CS& cs, const UInt32& a, const UInt32& b, const UInt32& c) {
    UInt32 r;
    for (unsigned i = 0; i < 32; ++i) {
      const Bit x = a.get(i), y = b.get(i), z = c.get(i);
      const bool v = int(x.v) + int(y.v) + int(z.v) >= 2;
      Bit out;
      if (x.c && y.c && z.c) out = Bit::constant(v);
      else if (x.is(false)) out = and_(cs, y, z);
      else if (y.is(false)) out = and_(cs, x, z);
      else if (z.is(false)) out = and_(cs, x, y);
      else if (z.is(true)) out = and_(cs, x.negate(), y.negate()).negate();
      else if (y.is(true)) out = and_(cs, x.negate(), z.negate()).negate();
      else if (x.is(true)) out = and_(cs, y.negate(), z.negate()).negate();
      else {
        out = alloc_bit(cs, v);            // maj
        (void)and_(cs, y, z);              // then b and c
      }
      r.set(i, out);
    }
    return r;
  }

  // The sum's bits (bitlen(n (2^32 - 1)) of them) are allocated; the MultiEq rows are not
  // needed for values.
  static UInt32 addmany(MultiEq<CS>& meq, std::span<const UInt32> ops) {
    uint64_t sum = 0;
    bool all_constants = true;
    for (const auto& op : ops) {
      sum += op.value_;
      all_constants &= op.const_ == ~0u;
    }
    if (all_constants) return constant(uint32_t(sum));
    const unsigned result_bits = unsigned(std::bit_width(uint64_t(ops.size()) * 0xffffffffull));
    meq.cs().alloc_bits(sum, (uint64_t(1) << result_bits) - 1);
    return UInt32(uint32_t(sum), 0, 0);
  }

 private:
  // One bit: constant or not, its value, and (not constant) whether it is a negated variable.
  struct Bit {
    bool c = true, v = false, n = false;
    static Bit constant(bool v) { return {true, v, false}; }
    bool is(bool value) const { return c && v == value; }
    Bit negate() const { return {c, !v, c ? false : !n}; }
  };
  static Bit alloc_bit(CS& cs, bool v) {
    cs.alloc_bits(v, 1);
    return {false, v, false};
  }
  // Boolean::and_ folded: the result is an allocated (not negated) bit unless a constant folds.
  static Bit and_(CS& cs, const Bit& x, const Bit& y) {
    if (x.is(false) || y.is(false)) return Bit::constant(false);
    if (x.is(true)) return y;
    if (y.is(true)) return x;
    return alloc_bit(cs, x.v && y.v);
  }
  Bit get(unsigned i) const {
    const uint32_t m = 1u << i;
    return {bool(const_ & m), bool(value_ & m), bool(not_ & m)};
  }
  void set(unsigned i, const Bit& b) {
    const uint32_t m = 1u << i;
    if (b.v) value_ |= m;
    if (b.c) const_ |= m;
    else if (b.n) not_ |= m;
  }
  Boolean bit(unsigned i) const {
    const Bit b = get(i);
    if (b.c) return Boolean::constant(b.v);
    // The underlying variable's value is the bit's value, flipped when negated.
    return b.n ? Boolean::is_not(AllocatedBit{Var{}, !b.v}) : Boolean::is(AllocatedBit{Var{}, b.v});
  }
  UInt32(uint32_t v, uint32_t c, uint32_t n) : value_(v), const_(c), not_(n) {}

  uint32_t value_ = 0, const_ = 0, not_ = 0;

};

}  // namespace snarkd::circuits
