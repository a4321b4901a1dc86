// snarkd/circuits/chain: the "chain" family for demos, tests and benchmarks (no files needed).
//
// A squaring chain x_{i+1} = x_i^2 + k_i (one constraint per step) from a public input
// x_0 to a public output, interleaved with boolean constraints b (b - 1) = 0 on 0/1 witnesses
// that also feed the chain (x_{i+1} = x_i^2 + k_i + b). `boolean_percent` of the constraints are
// boolean ones, so the witness mixes random values with zeros and ones as real circuits do.
// Everything is derived from `seed`: the same parameters give the same circuit and witness.
#pragma once

#include <cstdint>
#include <random>

#include "base/thread_pool.h"
#include "r1cs/cs.h"
#include "r1cs/r1cs.h"

namespace snarkd::circuits {

using r1cs::ConstraintSystem;
using r1cs::Var;

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
std::vector<F> chain_witness(const detail::ChainValues<F>& v) {
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

// The witness alone in one pass, without the shape's vectors (what each proof of a built-in
// chain synthesizes; 2^24 rows used to take seconds in chain_values' five arrays). The draws
// are chain_values': the shape's rng gives every row's bit flag and then every row's constant,
// so a second copy of it, advanced past the flags, streams the constants.
template <class F>
std::vector<F> chain_witness(const ChainParams& p) {
  if (p.input_seed == 0) return chain_witness<F>(detail::chain_values<F>(p));  // one rng for all
  const uint64_t total = p.constraints < 2 ? 2 : p.constraints;
  std::mt19937_64 flags(p.seed), consts(p.seed), values(p.input_seed);
  consts.discard(total - 1);
  std::vector<F> w(total + 2);
  w[0] = F::one();
  F x = F::random(values);
  w[2] = x;
  F pending_bit = F::zero();
  size_t next = 3;
  for (uint64_t i = 0; i < total; ++i) {
    const bool is_bool = i + 1 < total && int(flags() % 100) < int(p.boolean_percent);
    const F k = F::random(consts);
    if (is_bool) {
      const F bit = F::from_u64(values() & 1);
      pending_bit = pending_bit + bit;
      w[next++] = bit;
      continue;
    }
    x = x.square() + k + pending_bit;
    pending_bit = F::zero();
    if (i + 1 < total) w[next++] = x;
  }
  w[1] = x;
  w.resize(next);
  return w;
}

// Variables: 0 the constant, 1 the output, 2 x_0; row i's bit or next chain value is 3 + i (the
// last row, always a chain step, produces the output instead). Rows:
//   bit row:   b * (b - 1) = 0
//   step row:  cur * cur = next - k_i - (the bits of the rows since the previous step)
// The values come out of one sequential pass (the chain is serial); the matrices are written
// straight into CSR by `pool`, so 2^26 rows take seconds where a builder took minutes.
template <class F>
std::pair<ConstraintSystem<F>, std::vector<F>> build_chain(const ChainParams& p,
                                                           ThreadPool& pool = ThreadPool::global()) {
  const auto v = detail::chain_values<F>(p);
  const std::vector<uint8_t>& is_bool = v.is_bool;
  const uint64_t total = is_bool.size();
  ConstraintSystem<F> cs;
  cs.num_public = 2;
  cs.num_variables = uint32_t(total + 2);
  auto w = chain_witness<F>(v);
  // Per row: the previous step row (total: none) and where its A, B, C terms start.
  std::vector<uint64_t> previous_step(total);
  cs.a.row_start.resize(total + 1);
  cs.b.row_start.resize(total + 1);
  cs.c.row_start.resize(total + 1);
  uint64_t last_step = total, nb = 0, nc = 0;
  for (uint64_t i = 0; i < total; ++i) {
    previous_step[i] = last_step;
    cs.a.row_start[i] = i;
    cs.b.row_start[i] = nb;
    cs.c.row_start[i] = nc;
    if (is_bool[i]) {
      nb += 2;
    } else {
      nb += 1;
      nc += 2 + (last_step == total ? i : i - last_step - 1);
      last_step = i;
    }
  }
  cs.a.row_start[total] = total;
  cs.b.row_start[total] = nb;
  cs.c.row_start[total] = nc;
  cs.a.column.resize(total);
  cs.a.value.assign(total, F::one());
  cs.b.column.resize(nb);
  cs.b.value.resize(nb);
  cs.c.column.resize(nc);
  cs.c.value.resize(nc);
  const F minus_one = -F::one();
  pool.parallel_for(total, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const uint64_t kb = cs.b.row_start[i];
      if (is_bool[i]) {
        const uint32_t bit = uint32_t(3 + i);
        cs.a.column[i] = bit;
        cs.b.column[kb] = bit;
        cs.b.value[kb] = F::one();
        cs.b.column[kb + 1] = 0;
        cs.b.value[kb + 1] = minus_one;
        continue;
      }
      const uint64_t prev = previous_step[i];
      const uint32_t cur = prev == total ? 2 : uint32_t(3 + prev);
      const uint32_t next = i + 1 == total ? 1 : uint32_t(3 + i);
      cs.a.column[i] = cur;
      cs.b.column[kb] = cur;
      cs.b.value[kb] = F::one();
      uint64_t kc = cs.c.row_start[i];
      cs.c.column[kc] = next;
      cs.c.value[kc++] = F::one();
      cs.c.column[kc] = 0;
      cs.c.value[kc++] = -v.consts[i];
      for (uint64_t j = prev == total ? 0 : prev + 1; j < i; ++j) {
        cs.c.column[kc] = uint32_t(3 + j);
        cs.c.value[kc++] = minus_one;
      }
    }
  });
  return {std::move(cs), std::move(w)};
}

}  // namespace snarkd::circuits

namespace snarkd::circuits {

// The chain in the constraint-system API (the shape mode counts it through this); the same
// rows and variables as build_chain, which writes CSR directly for speed.
template <class CS>
void synthesize_chain(CS& cs, const detail::ChainValues<typename CS::Field>& v) {
  const Var out = cs.alloc_input(v.out);
  Var cur = cs.alloc_input(v.xs[0]);
  std::vector<Var> pending_bits;
  size_t step = 0;
  for (size_t i = 0; i < v.is_bool.size(); ++i) {
    if (v.is_bool[i]) {
      const Var b = cs.alloc(v.bits[i]);
      cs.enforce("bit", [&](auto& a) { a.add(b); }, [&](auto& bb) { bb.add(b).sub(Var::one()); }, [](auto&) {});
      pending_bits.push_back(b);
      continue;
    }
    ++step;
    const Var next = i + 1 < v.is_bool.size() ? cs.alloc(v.xs[step]) : out;
    cs.enforce("step", [&](auto& a) { a.add(cur); }, [&](auto& b) { b.add(cur); }, [&](auto& c) {
      c.add(next).add(Var::one(), -v.consts[i]);
      for (const Var& b : pending_bits) c.sub(b);
    });
    pending_bits.clear();
    cur = next;
  }
}

}  // namespace snarkd::circuits
