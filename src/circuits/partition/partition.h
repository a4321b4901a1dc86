// snarkd/circuits/partition: a synthetic circuit with the shape of a Filecoin PoRep partition
// (every variable in A and C, `b_percent` of them in B, a mostly-boolean witness), for
// benchmarks at 10^8 rows; see build_partition.
#pragma once

#include <cstdint>

#include "base/thread_pool.h"
#include "r1cs/cs.h"
#include "r1cs/r1cs.h"

namespace snarkd::circuits {

using r1cs::ConstraintSystem;
using r1cs::Var;

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

// The witness alone (the witness-only mode of build_partition: no rows), in parallel: what a
// proof of the partition family synthesizes.
template <class F>
std::vector<F> partition_witness(const PartitionParams& p, ThreadPool& pool = ThreadPool::global()) {
  const uint64_t m = p.constraints < 1 ? 1 : p.constraints;
  std::vector<F> w(2 + m);
  w[0] = F::one();
  auto public_rng = detail::row_rng(p.seed, ~uint64_t(0));
  w[1] = F::random(public_rng);
  pool.parallel_for(m, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      auto rng = detail::row_rng(p.seed, i);
      const bool check = rng() % 100 < p.b_percent;
      if (check) {
        w[2 + i] = F::from_u64(rng() & 1);
      } else {
        const bool bit = rng() % 100 < p.boolean_percent;
        w[2 + i] = bit ? F::from_u64(rng() & 1) : F::random(rng);
      }
    }
  });
  return w;
}

}  // namespace snarkd::circuits

namespace snarkd::circuits {

// The partition circuit in the constraint-system API (for the shape mode); the same rows and
// variables as build_partition.
template <class CS>
void synthesize_partition(CS& cs, const PartitionParams& p) {
  using F = typename CS::Field;
  const uint64_t m = p.constraints < 1 ? 1 : p.constraints;
  auto public_rng = detail::row_rng(p.seed, ~uint64_t(0));
  Var prev = cs.alloc_input(F::random(public_rng));
  for (uint64_t i = 0; i < m; ++i) {
    auto rng = detail::row_rng(p.seed, i);
    const bool check = rng() % 100 < p.b_percent;
    F value;
    if (check) {
      value = F::from_u64(rng() & 1);
    } else {
      const bool bit = rng() % 100 < p.boolean_percent;
      value = bit ? F::from_u64(rng() & 1) : F::random(rng);
    }
    const Var v = cs.alloc(value);
    if (check) {
      cs.enforce("check", [&](auto& a) { a.add(v); }, [&](auto& b) { b.add(v); }, [&](auto& c) { c.add(v); });
    } else {
      cs.enforce("link", [&](auto& a) { a.add(v).add(prev); }, [](auto& b) { b.add(Var::one()); },
                 [&](auto& c) { c.add(v).add(prev); });
    }
    prev = v;
  }
}

}  // namespace snarkd::circuits
