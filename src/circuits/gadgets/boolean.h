// snarkd/circuits/gadgets: bits, as bellpepper-core 0.2.1's boolean.rs builds them.
//
// AllocatedBit is a variable constrained to 0/1 by (1 - a) * a = 0. Boolean is a constant, a
// bit, or a bit's negation; its operations fold constants and negations before allocating, in
// bellpepper's case order, so the rows (and the variable order) are bellpepper's.
#pragma once

#include <array>
#include <cstdint>

#include "r1cs/cs.h"

namespace snarkd::circuits {

using r1cs::Var;

// 2^i in F for i < 256, computed once.
template <class F>
const F& pow2(unsigned i) {
  static const std::array<F, 256> table = [] {
    std::array<F, 256> t;
    t[0] = F::one();
    for (size_t k = 1; k < t.size(); ++k) t[k] = t[k - 1].dbl();
    return t;
  }();
  return table[i];
}

template <class F>
F field_bit(bool b) {
  return b ? F::one() : F::zero();
}

struct AllocatedBit {
  Var var;
  bool value = false;

  // (1 - a) * a = 0
  template <class CS>
  static AllocatedBit alloc(CS& cs, bool value) {
    using F = typename CS::Field;
    const Var v = cs.alloc(field_bit<F>(value));
    cs.enforce("boolean constraint", [&](auto& a) { a.add(Var::one()).sub(v); },
               [&](auto& b) { b.add(v); }, [](auto&) {});
    return {v, value};
  }

  // (2a) * b = a + b - c
  template <class CS>
  static AllocatedBit xor_(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
    using F = typename CS::Field;
    const bool value = a.value != b.value;
    const Var c = cs.alloc(field_bit<F>(value));
    cs.enforce("xor constraint", [&](auto& l) { l.add(a.var).add(a.var); },
               [&](auto& l) { l.add(b.var); }, [&](auto& l) { l.add(a.var).add(b.var).sub(c); });
    return {c, value};
  }

  // a * b = c
  template <class CS>
  static AllocatedBit and_(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
    using F = typename CS::Field;
    const bool value = a.value && b.value;
    const Var c = cs.alloc(field_bit<F>(value));
    cs.enforce("and constraint", [&](auto& l) { l.add(a.var); }, [&](auto& l) { l.add(b.var); },
               [&](auto& l) { l.add(c); });
    return {c, value};
  }

  // a * (1 - b) = c
  template <class CS>
  static AllocatedBit and_not(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
    using F = typename CS::Field;
    const bool value = a.value && !b.value;
    const Var c = cs.alloc(field_bit<F>(value));
    cs.enforce("and not constraint", [&](auto& l) { l.add(a.var); },
               [&](auto& l) { l.add(Var::one()).sub(b.var); }, [&](auto& l) { l.add(c); });
    return {c, value};
  }

  // (1 - a) * (1 - b) = c
  template <class CS>
  static AllocatedBit nor(CS& cs, const AllocatedBit& a, const AllocatedBit& b) {
    using F = typename CS::Field;
    const bool value = !a.value && !b.value;
    const Var c = cs.alloc(field_bit<F>(value));
    cs.enforce("nor constraint", [&](auto& l) { l.add(Var::one()).sub(a.var); },
               [&](auto& l) { l.add(Var::one()).sub(b.var); }, [&](auto& l) { l.add(c); });
    return {c, value};
  }
};

class Boolean {
 public:
  enum class Kind : uint8_t { kConstant, kIs, kNot };

  Boolean() = default;
  static Boolean constant(bool value) { return Boolean(Kind::kConstant, value, Var{}); }
  static Boolean is(const AllocatedBit& bit) { return Boolean(Kind::kIs, bit.value, bit.var); }
  static Boolean is_not(const AllocatedBit& bit) { return Boolean(Kind::kNot, bit.value, bit.var); }

  Kind kind() const { return kind_; }
  bool is_constant() const { return kind_ == Kind::kConstant; }
  bool is_constant(bool v) const { return kind_ == Kind::kConstant && bit_ == v; }
  bool value() const { return kind_ == Kind::kNot ? !bit_ : bit_; }
  // The underlying bit (kIs / kNot).
  AllocatedBit bit() const { return {var_, bit_}; }
  Var var() const { return var_; }

  Boolean negate() const {
    switch (kind_) {
      case Kind::kConstant: return constant(!bit_);
      case Kind::kIs: return Boolean(Kind::kNot, bit_, var_);
      case Kind::kNot: return Boolean(Kind::kIs, bit_, var_);
    }
    return *this;
  }

  // lc + coeff * self (bellpepper's Boolean::lc(one, coeff) added to lc).
  template <class L, class F>
  void add_to(L& lc, const F& coeff) const {
    switch (kind_) {
      case Kind::kConstant:
        if (bit_) lc.add(Var::one(), coeff);
        break;
      case Kind::kIs:
        lc.add(var_, coeff);
        break;
      case Kind::kNot:
        lc.add(Var::one(), coeff).add(var_, -coeff);
        break;
    }
  }
  template <class L>
  void add_to(L& lc) const {
    switch (kind_) {
      case Kind::kConstant:
        if (bit_) lc.add(Var::one());
        break;
      case Kind::kIs:
        lc.add(var_);
        break;
      case Kind::kNot:
        lc.add(Var::one()).sub(var_);
        break;
    }
  }
  template <class L>
  void sub_from(L& lc) const {
    switch (kind_) {
      case Kind::kConstant:
        if (bit_) lc.sub(Var::one());
        break;
      case Kind::kIs:
        lc.sub(var_);
        break;
      case Kind::kNot:
        lc.sub(Var::one()).add(var_);
        break;
    }
  }

  // Allocates a bit with this value (ONE bit constraint).
  template <class CS>
  static Boolean alloc(CS& cs, bool value) {
    return is(AllocatedBit::alloc(cs, value));
  }

  template <class CS>
  static Boolean xor_(CS& cs, const Boolean& a, const Boolean& b) {
    if (a.is_constant(false)) return b;
    if (b.is_constant(false)) return a;
    if (a.is_constant(true)) return b.negate();
    if (b.is_constant(true)) return a.negate();
    // a xor (not b) = not (a xor b)
    if (a.kind_ == Kind::kIs && b.kind_ == Kind::kNot) return xor_(cs, a, b.negate()).negate();
    if (a.kind_ == Kind::kNot && b.kind_ == Kind::kIs) return xor_(cs, b, a.negate()).negate();
    // (not a) xor (not b) = a xor b
    return is(AllocatedBit::xor_(cs, a.bit(), b.bit()));
  }

  template <class CS>
  static Boolean and_(CS& cs, const Boolean& a, const Boolean& b) {
    if (a.is_constant(false) || b.is_constant(false)) return constant(false);
    if (a.is_constant(true)) return b;
    if (b.is_constant(true)) return a;
    if (a.kind_ == Kind::kIs && b.kind_ == Kind::kNot) return is(AllocatedBit::and_not(cs, a.bit(), b.bit()));
    if (a.kind_ == Kind::kNot && b.kind_ == Kind::kIs) return is(AllocatedBit::and_not(cs, b.bit(), a.bit()));
    if (a.kind_ == Kind::kNot && b.kind_ == Kind::kNot) return is(AllocatedBit::nor(cs, a.bit(), b.bit()));
    return is(AllocatedBit::and_(cs, a.bit(), b.bit()));
  }

  // (a and b) xor ((not a) and c)
  template <class CS>
  static Boolean sha256_ch(CS& cs, const Boolean& a, const Boolean& b, const Boolean& c) {
    using F = typename CS::Field;
    const bool value = (a.value() && b.value()) != (!a.value() && c.value());
    if (a.is_constant() && b.is_constant() && c.is_constant()) return constant(value);
    if (a.is_constant(false)) return c;
    if (b.is_constant(false)) return and_(cs, a.negate(), c);
    if (c.is_constant(false)) return and_(cs, a, b);
    if (c.is_constant(true)) return and_(cs, a, b.negate()).negate();
    if (b.is_constant(true)) return and_(cs, a.negate(), c.negate()).negate();
    // a constant true falls through: b xor ((not a) and c) = ch with a = ONE.
    const Var ch = cs.alloc(field_bit<F>(value));
    // a (b - c) = ch - c
    cs.enforce(
        "ch computation",
        [&](auto& l) {
          b.add_to(l);
          c.sub_from(l);
        },
        [&](auto& l) { a.add_to(l); },
        [&](auto& l) {
          l.add(ch);
          c.sub_from(l);
        });
    return is(AllocatedBit{ch, value});
  }

  // (a and b) xor (a and c) xor (b and c)
  template <class CS>
  static Boolean sha256_maj(CS& cs, const Boolean& a, const Boolean& b, const Boolean& c) {
    using F = typename CS::Field;
    const int ones = int(a.value()) + int(b.value()) + int(c.value());
    const bool value = ones >= 2;
    if (a.is_constant() && b.is_constant() && c.is_constant()) return constant(value);
    if (a.is_constant(false)) return and_(cs, b, c);
    if (b.is_constant(false)) return and_(cs, a, c);
    if (c.is_constant(false)) return and_(cs, a, b);
    if (c.is_constant(true)) return and_(cs, a.negate(), b.negate()).negate();
    if (b.is_constant(true)) return and_(cs, a.negate(), c.negate()).negate();
    if (a.is_constant(true)) return and_(cs, b.negate(), c.negate()).negate();
    // maj is allocated before b and c (bellpepper's order).
    const Var maj = cs.alloc(field_bit<F>(value));
    Boolean bc;
    {
      auto scope = cs.ns("b and c");
      bc = and_(cs, b, c);
    }
    // (2 bc - b - c) * a = bc - maj
    cs.enforce(
        "maj computation",
        [&](auto& l) {
          bc.add_to(l);
          bc.add_to(l);
          b.sub_from(l);
          c.sub_from(l);
        },
        [&](auto& l) { a.add_to(l); },
        [&](auto& l) {
          bc.add_to(l);
          l.sub(maj);
        });
    return is(AllocatedBit{maj, value});
  }

 private:
  Boolean(Kind k, bool bit, Var v) : var_(v), kind_(k), bit_(bit) {}
  Var var_;
  Kind kind_ = Kind::kConstant;
  bool bit_ = false;
};

}  // namespace snarkd::circuits
