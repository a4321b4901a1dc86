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
#include "r1cs/r1cs.h"

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

template <class F>
std::vector<F> chain_witness(const ChainParams& p) {
  return chain_witness<F>(detail::chain_values<F>(p));
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
