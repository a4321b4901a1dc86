// snarkd/groth16: a proving key with a real circuit's QAP and verifying key shape but random
// query points, for benchmarks of circuits too large for a quick setup. It exercises every
// prover stage with the right sizes and sparsity; proofs made with it do NOT verify (the points
// are not derived from a trapdoor), so benchmarks label its results as unverified.
#pragma once

#include <algorithm>
#include <span>
#include <vector>

#include "base/random.h"
#include "base/thread_pool.h"
#include "groth16/keys.h"
#include "groth16/setup.h"
#include "poly/domain.h"

namespace snarkd::groth16 {

// Adds the affine point m to every point of `row` in place, with one inversion for the row
// (Montgomery's trick): 5 products and a square a point where a Jacobian addition and its
// normalization take 13 and 5. A point equal to m or -m (never, for random points, but not
// excluded) takes the general addition.
template <class C>
void add_to_each(std::span<ec::Affine<C>> row, const ec::Affine<C>& m, std::vector<typename C::Field>& scratch) {
  using F = typename C::Field;
  scratch.resize(row.size());
  F acc = F::one();
  for (size_t i = 0; i < row.size(); ++i) {
    scratch[i] = acc;
    const F d = m.x - row[i].x;
    if (!row[i].infinity && !d.is_zero()) acc *= d;
  }
  F inv = acc.inverse();
  for (size_t i = row.size(); i-- > 0;) {
    ec::Affine<C>& p = row[i];
    const F d = m.x - p.x;
    if (p.infinity || d.is_zero()) {
      p = ec::Jacobian<C>::from_affine(p).add_mixed(m).to_affine();
      continue;
    }
    const F d_inv = inv * scratch[i];
    inv *= d;
    const F lambda = (m.y - p.y) * d_inv;
    const F x = lambda.square() - p.x - m.x;
    p.y = lambda * (p.x - x) - p.y;
    p.x = x;
  }
}

// Distinct points P + k Q, written to out[i] for k = 0, 1, ... over the i with keep[i] set
// (every i when keep is empty), the identity elsewhere; in parallel by chunks of the entries.
// A chunk starting at progression index k0 takes its first kLanes points P + (k0 + u) Q by a
// Jacobian chain and one normalization, then each further row of kLanes points from the row
// before by adding kLanes Q to all of them at once (add_to_each): point u of the chunk is
// P + (k0 + u mod kLanes) Q + (u div kLanes) kLanes Q, the same progression. Writing in place
// keeps a PoRep-sized key (about 80 GB of points) from needing a second copy of a query.
template <class C>
void fill_progression(std::span<ec::Affine<C>> out, const std::vector<uint8_t>& keep,
                      const ec::Jacobian<C>& p, const ec::Jacobian<C>& q, ThreadPool& pool) {
  constexpr size_t kLanes = 2048;
  const size_t count = out.size();
  // Chunks of at most 2^16 entries keep each thread's scratch small.
  const size_t chunks = std::min<size_t>(count, std::max<size_t>(4 * pool.size(), (count >> 16) + 1));
  if (chunks == 0) return;
  // The progression index of each chunk's first kept entry.
  std::vector<uint64_t> first(chunks + 1, 0);
  auto chunk_begin = [&](size_t j) { return count * j / chunks; };
  pool.parallel_for(chunks, [&](size_t lo, size_t hi) {
    for (size_t j = lo; j < hi; ++j) {
      first[j + 1] = keep.empty() ? chunk_begin(j + 1) - chunk_begin(j)
                                  : uint64_t(std::count(keep.begin() + chunk_begin(j),
                                                        keep.begin() + chunk_begin(j + 1), uint8_t(1)));
    }
  }, chunks);
  for (size_t j = 0; j < chunks; ++j) first[j + 1] += first[j];
  const ec::Affine<C> step = q.to_affine();
  const ec::Affine<C> row_step = ec::mul_vartime(q, ff::BigInt<1>::from_u64(kLanes)).to_affine();
  pool.parallel_for(chunks, [&](size_t lo, size_t hi) {
    std::vector<ec::Jacobian<C>> jac;
    std::vector<ec::Affine<C>> points;
    std::vector<typename C::Field> scratch;
    for (size_t j = lo; j < hi; ++j) {
      const size_t begin = chunk_begin(j), end = chunk_begin(j + 1);
      const size_t kept = first[j + 1] - first[j];
      points.resize(kept);
      const size_t lanes = std::min(kept, kLanes);
      jac.resize(lanes);
      auto acc = p.add(ec::mul_vartime(q, ff::BigInt<1>::from_u64(first[j])));
      for (size_t u = 0; u < lanes; ++u) {
        jac[u] = acc;
        acc = acc.add_mixed(step);
      }
      ec::batch_to_affine<C>(jac, std::span<ec::Affine<C>>(points.data(), lanes));
      for (size_t row = lanes; row < kept; row += lanes) {
        const size_t len = std::min(lanes, kept - row);
        std::copy_n(points.begin() + ptrdiff_t(row - lanes), len, points.begin() + ptrdiff_t(row));
        add_to_each<C>(std::span<ec::Affine<C>>(points.data() + row, len), row_step, scratch);
      }
      size_t u = 0;
      for (size_t i = begin; i < end; ++i) {
        out[i] = keep.empty() || keep[i] ? points[u++] : ec::Affine<C>::identity();
      }
    }
  }, chunks);
}

// Takes the system by value: a caller done with it moves it in, and its matrices become the key's.
template <class E>
Result<ProvingKey<E>> synthetic_key(r1cs::ConstraintSystem<Fr<E>> cs,
                                    poly::QuotientConvention convention, RandomSource& rng,
                                    ThreadPool& pool = ThreadPool::global()) {
  using F = Fr<E>;
  using G1 = typename E::G1;
  using G2 = typename E::G2;
  ASSIGN_OR_RETURN(ProvingKey<E> pk, circuit_part<E>(std::move(cs), convention, "synthetic key"));
  // Each query gets its own random P and Q.
  auto fill = [&]<class C>(std::vector<ec::Affine<C>>& out, size_t n, const std::vector<uint8_t>& keep) {
    auto p = ec::mul_vartime(C::generator(), F::random(rng).to_canonical());
    auto q = ec::mul_vartime(C::generator(), F::random(rng).to_canonical());
    out.resize(n);
    fill_progression<C>(out, keep, p, q, pool);
  };
  const size_t nv = pk.num_variables;
  // As a real setup gives: the identity for a variable absent from A, and B kept by density, so
  // the device's density compression and the query sizes match a real key of the circuit (three
  // in four variables of a PoRep partition are absent from B).
  const std::vector<uint8_t> all;
  {
    std::vector<uint8_t> in_a(nv, 0);
    for (uint32_t v : pk.a.variables_used(nv)) in_a[v] = 1;
    fill.template operator()<G1>(pk.a_query, nv, in_a);
  }
  pk.b_variables = pk.b.variables_used(nv);
  fill.template operator()<G1>(pk.b1_query, pk.b_variables.size(), all);
  fill.template operator()<G2>(pk.b2_query, pk.b_variables.size(), all);
  fill.template operator()<G1>(pk.c_query, nv - pk.num_public - 1, all);
  fill.template operator()<G1>(pk.h_query, poly::quotient_scalar_count(convention, pk.domain_size()), all);
  std::vector<ec::Affine<G1>> one1;
  std::vector<ec::Affine<G2>> one2;
  fill.template operator()<G1>(one1, 3, all);
  fill.template operator()<G2>(one2, 3, all);
  pk.vk.alpha1 = one1[0];
  pk.beta1 = one1[1];
  pk.delta1 = one1[2];
  pk.vk.beta2 = one2[0];
  pk.vk.gamma2 = one2[1];
  pk.vk.delta2 = one2[2];
  fill.template operator()<G1>(pk.vk.ic, pk.num_public + 1, all);
  return pk;
}

}  // namespace snarkd::groth16
