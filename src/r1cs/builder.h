// snarkd/r1cs: a small builder for native circuits.
//
//   CircuitBuilder<Fr> cb;
//   auto x = cb.alloc_input(value);        // public
//   auto y = cb.alloc(value * value);      // private
//   cb.enforce({{x, 1}}, {{x, 1}}, {{y, 1}});
//   auto [cs, witness] = cb.finish();
//
// Public variables may be allocated in any order relative to private ones; finish() numbers
// them first (after the constant), as circom does.
#pragma once

#include <initializer_list>
#include <utility>
#include <vector>

#include "r1cs/r1cs.h"

namespace snarkd::r1cs {

struct Variable {
  bool is_public = false;
  uint32_t ordinal = 0;  // among its kind; the constant is public ordinal 0
};

template <class F>
class CircuitBuilder {
 public:
  struct Entry {
    Variable var;
    F coeff;
  };
  using Lc = std::vector<Entry>;

  static Variable one() { return {true, 0}; }

  Variable alloc_input(const F& value) {
    public_values_.push_back(value);
    return {true, uint32_t(public_values_.size())};
  }
  Variable alloc(const F& value) {
    private_values_.push_back(value);
    return {false, uint32_t(private_values_.size() - 1)};
  }
  const F& value(Variable v) const {
    if (v.is_public) return v.ordinal == 0 ? one_ : public_values_[v.ordinal - 1];
    return private_values_[v.ordinal];
  }

  void enforce(Lc a, Lc b, Lc c) { constraints_.push_back({std::move(a), std::move(b), std::move(c)}); }

  std::pair<ConstraintSystem<F>, std::vector<F>> finish() const {
    ConstraintSystem<F> cs;
    cs.num_public = uint32_t(public_values_.size());
    cs.num_variables = 1 + cs.num_public + uint32_t(private_values_.size());
    auto index = [&](Variable v) { return v.is_public ? v.ordinal : 1 + cs.num_public + v.ordinal; };
    auto convert = [&](const Lc& lc) {
      LinearCombination<F> out;
      out.reserve(lc.size());
      for (const auto& e : lc) out.push_back({index(e.var), e.coeff});
      return out;
    };
    for (const auto& k : constraints_) {
      cs.a.add_row(convert(k.a));
      cs.b.add_row(convert(k.b));
      cs.c.add_row(convert(k.c));
    }
    std::vector<F> w;
    w.reserve(cs.num_variables);
    w.push_back(one_);
    w.insert(w.end(), public_values_.begin(), public_values_.end());
    w.insert(w.end(), private_values_.begin(), private_values_.end());
    return {std::move(cs), std::move(w)};
  }

  size_t num_constraints() const { return constraints_.size(); }

 private:
  struct Constraint {
    Lc a, b, c;
  };
  F one_ = F::one();
  std::vector<F> public_values_;
  std::vector<F> private_values_;
  std::vector<Constraint> constraints_;
};

}  // namespace snarkd::r1cs
