// snarkd/r1cs: the built-in circuit family for demos, tests and benchmarks (no files needed).
//
// "chain": a squaring chain x_{i+1} = x_i^2 + k_i (one constraint per step) from a public input
// x_0 to a public output, interleaved with boolean constraints b (b - 1) = 0 on 0/1 witnesses
// that also feed the chain (x_{i+1} = x_i^2 + k_i + b). `boolean_percent` of the constraints are
// boolean ones, so the witness mixes random values with zeros and ones as real circuits do.
// Everything is derived from `seed`: the same parameters give the same circuit and witness.
//
// "partition": a synthetic circuit with the shape of a Filecoin PoRep partition (every variable
// in A and C, `b_percent` of them in B, a mostly-boolean witness), for benchmarks at 10^8 rows;
// see build_partition.
#pragma once

#include <cstdint>
#include <random>

#include "base/thread_pool.h"
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

struct PartitionParams {
  uint64_t constraints = 1 << 10;
  unsigned b_percent = 25;         // rows that check a bit, so share of variables in B
  unsigned boolean_percent = 90;   // share of the unchecked variables that are bits too
  uint64_t seed = 1;
};

namespace detail {

// SplitMix64: row i's randomness is a function of (seed, i) alone, so rows fill in parallel and
// the result does not depend on the thread count.
struct SplitMix {
  uint64_t state;
  using result_type = uint64_t;
  static constexpr uint64_t min() { return 0; }
  static constexpr uint64_t max() { return ~uint64_t(0); }
  uint64_t operator()() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

inline SplitMix row_rng(uint64_t seed, uint64_t row) {
  SplitMix mix{seed};
  return SplitMix{mix() ^ (row * 0xd1b54a32d192ed03ULL)};
}

inline bool partition_checks_row(const PartitionParams& p, uint64_t row) {
  auto rng = row_rng(p.seed, row);
  return rng() % 100 < p.b_percent;
}

}  // namespace detail

// Row i allocates private variable v_i (index 2 + i; index 1 is one public input x, and
// v_{-1} means x):
//   check row (b_percent of rows):  v_i * v_i = v_i                        (v_i is a bit)
//   link row (the others):          (v_i + v_{i-1}) * 1 = v_i + v_{i-1}
// A link row holds for any values: the circuit exists for its shape (what the prover's memory,
// density compression, batch additions and MSM sizes see), like the synthetic keys it is proved
// with, not for a meaning. Every variable is in A and C; only the checked ones are in B, with the
// constant. Link-row values are bits with probability boolean_percent, random otherwise. The
// matrices are written straight into CSR by `pool`, so 2^27 rows take seconds, not the minutes
// of the builder.
template <class F>
std::pair<ConstraintSystem<F>, std::vector<F>> build_partition(const PartitionParams& p,
                                                                ThreadPool& pool = ThreadPool::global()) {
  const uint64_t m = p.constraints < 1 ? 1 : p.constraints;
  ConstraintSystem<F> cs;
  cs.num_public = 1;
  cs.num_variables = uint32_t(2 + m);
  std::vector<F> w(2 + m);
  w[0] = F::one();
  auto public_rng = detail::row_rng(p.seed, ~uint64_t(0));
  w[1] = F::random(public_rng);
  // Row starts: a check row has one term in A, B and C; a link row two in A and C, one in B.
  std::vector<uint8_t> checks(m);
  pool.parallel_for(m, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) checks[i] = detail::partition_checks_row(p, i);
  });
  for (auto* mat : {&cs.a, &cs.c}) mat->row_start.resize(m + 1);
  cs.b.row_start.resize(m + 1);
  uint64_t ac = 0;
  for (uint64_t i = 0; i < m; ++i) {
    cs.a.row_start[i] = cs.c.row_start[i] = ac;
    cs.b.row_start[i] = i;
    ac += checks[i] ? 1 : 2;
  }
  cs.a.row_start[m] = cs.c.row_start[m] = ac;
  cs.b.row_start[m] = m;
  for (auto* mat : {&cs.a, &cs.c}) {
    mat->column.resize(ac);
    mat->value.assign(ac, F::one());
  }
  cs.b.column.resize(m);
  cs.b.value.assign(m, F::one());
  pool.parallel_for(m, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const uint32_t v = uint32_t(2 + i), prev = uint32_t(i == 0 ? 1 : 1 + i);
      auto rng = detail::row_rng(p.seed, i);
      (void)rng();  // the draw that decided the row's kind
      const uint64_t k = cs.a.row_start[i];
      if (checks[i]) {
        cs.a.column[k] = cs.c.column[k] = v;
        cs.b.column[i] = v;
        w[v] = F::from_u64(rng() & 1);
      } else {
        cs.a.column[k] = cs.c.column[k] = v;
        cs.a.column[k + 1] = cs.c.column[k + 1] = prev;
        cs.b.column[i] = 0;
        const bool bit = rng() % 100 < p.boolean_percent;
        w[v] = bit ? F::from_u64(rng() & 1) : F::random(rng);
      }
    }
  });
  return {std::move(cs), std::move(w)};
}

}  // namespace snarkd::r1cs
