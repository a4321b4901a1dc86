// snarkd/r1cs: the built-in circuit family for demos, tests and benchmarks (no files needed).
//
// "chain": a squaring chain x_{i+1} = x_i^2 + k_i (one constraint per step) from a public input
// x_0 to a public output, interleaved with boolean constraints b (b - 1) = 0 on 0/1 witnesses
// that also feed the chain (x_{i+1} = x_i^2 + k_i + b). `boolean_percent` of the constraints are
// boolean ones, so the witness mixes random values with zeros and ones as real circuits do.
// Everything is derived from `seed`: the same parameters give the same circuit and witness.
#pragma once

#include <cstdint>
#include <random>

#include "r1cs/builder.h"

namespace snarkd::r1cs {

struct ChainParams {
  uint64_t constraints = 1 << 10;
  unsigned boolean_percent = 25;
  uint64_t seed = 1;
};

template <class F>
std::pair<ConstraintSystem<F>, std::vector<F>> build_chain(const ChainParams& p) {
  std::mt19937_64 rng(p.seed);
  CircuitBuilder<F> cb;
  using B = CircuitBuilder<F>;
  // Outputs come first among public variables (circom's order): allocate the output slot now
  // and patch its value at the end through the last constraint.
  std::vector<typename B::Entry> none;
  F x0 = F::random(rng);
  // Compute the chain first so the output value is known before allocation.
  uint64_t total = p.constraints < 2 ? 2 : p.constraints;
  std::vector<int> is_bool(total, 0);
  for (uint64_t i = 0; i + 1 < total; ++i) is_bool[i] = int(rng() % 100) < int(p.boolean_percent);
  is_bool[total - 1] = 0;  // the last constraint produces the output
  std::vector<F> consts(total);
  for (auto& k : consts) k = F::random(rng);
  std::vector<F> bits(total);
  F x = x0;
  std::vector<F> xs;
  xs.reserve(total + 1);
  xs.push_back(x);
  F pending_bit = F::zero();
  for (uint64_t i = 0; i < total; ++i) {
    if (is_bool[i]) {
      bits[i] = F::from_u64(rng() & 1);
      pending_bit = pending_bit + bits[i];
      continue;
    }
    x = x.square() + consts[i] + pending_bit;
    pending_bit = F::zero();
    xs.push_back(x);
  }
  Variable out = cb.alloc_input(x);
  Variable in = cb.alloc_input(x0);
  Variable cur = in;
  size_t step = 0;
  std::vector<Variable> bit_vars;
  for (uint64_t i = 0; i < total; ++i) {
    if (is_bool[i]) {
      Variable b = cb.alloc(bits[i]);
      cb.enforce({{b, F::one()}}, {{b, F::one()}, {B::one(), -F::one()}}, none);
      bit_vars.push_back(b);
      continue;
    }
    ++step;
    bool last = i + 1 == total;
    Variable next = last ? out : cb.alloc(xs[step]);
    // cur * cur = next - k_i - sum(bits since the previous step)
    typename B::Lc rhs = {{next, F::one()}, {B::one(), -consts[i]}};
    for (auto b : bit_vars) rhs.push_back({b, -F::one()});
    bit_vars.clear();
    cb.enforce({{cur, F::one()}}, {{cur, F::one()}}, rhs);
    cur = next;
  }
  return cb.finish();
}

}  // namespace snarkd::r1cs
