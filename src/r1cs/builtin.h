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
  // The circuit's shape (which rows are bits, the constants) comes from `seed`; the witness
  // values (the start value and the bits) from `input_seed` when it is set, so one key proves
  // many witnesses. Every nonzero input_seed gives the same shape; 0 draws the values from
  // `seed` too (a different shape from the same seed).
  uint64_t input_seed = 0;
};

namespace detail {

// The chain's values: its shape (which rows are bits, the constants) and the witness values.
template <class F>
struct ChainValues {
  std::vector<uint8_t> is_bool;
  std::vector<F> consts, bits, xs;  // xs: x_0, then one per chain step
  F out;
};

template <class F>
ChainValues<F> chain_values(const ChainParams& p) {
  std::mt19937_64 rng(p.seed);
  std::mt19937_64 input_rng(p.input_seed);
  auto& values = p.input_seed != 0 ? input_rng : rng;
  ChainValues<F> v;
  const F x0 = F::random(values);
  const uint64_t total = p.constraints < 2 ? 2 : p.constraints;
  v.is_bool.assign(total, 0);
  for (uint64_t i = 0; i + 1 < total; ++i) v.is_bool[i] = int(rng() % 100) < int(p.boolean_percent);
  v.is_bool[total - 1] = 0;  // the last constraint produces the output
  v.consts.resize(total);
  for (auto& k : v.consts) k = F::random(rng);
  v.bits.resize(total);
  F x = x0;
  v.xs.reserve(total + 1);
  v.xs.push_back(x);
  F pending_bit = F::zero();
  for (uint64_t i = 0; i < total; ++i) {
    if (v.is_bool[i]) {
      v.bits[i] = F::from_u64(values() & 1);
      pending_bit = pending_bit + v.bits[i];
      continue;
    }
    x = x.square() + v.consts[i] + pending_bit;
    pending_bit = F::zero();
    v.xs.push_back(x);
  }
  v.out = x;
  return v;
}

}  // namespace detail

// The witness alone, in build_chain's variable order (1, the output, x_0, then per constraint
// its bit or its next chain value): what a prover synthesizes per proof once the key exists.
template <class F>
std::vector<F> chain_witness(const ChainParams& p) {
  const auto v = detail::chain_values<F>(p);
  std::vector<F> w;
  w.reserve(v.is_bool.size() + 2);
  w.push_back(F::one());
  w.push_back(v.out);
  w.push_back(v.xs[0]);
  size_t step = 0;
  for (size_t i = 0; i < v.is_bool.size(); ++i) {
    if (v.is_bool[i]) {
      w.push_back(v.bits[i]);
    } else if (++step, i + 1 < v.is_bool.size()) {
      w.push_back(v.xs[step]);
    }
  }
  return w;
}

template <class F>
std::pair<ConstraintSystem<F>, std::vector<F>> build_chain(const ChainParams& p) {
  CircuitBuilder<F> cb;
  using B = CircuitBuilder<F>;
  std::vector<typename B::Entry> none;
  const auto v = detail::chain_values<F>(p);
  const auto& is_bool = v.is_bool;
  const auto& consts = v.consts;
  const auto& bits = v.bits;
  const auto& xs = v.xs;
  const uint64_t total = is_bool.size();
  const F x0 = xs[0];
  const F x = v.out;
  // Outputs come first among public variables (circom's order).
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
