// snarkd/groth16: a proving key with a real circuit's QAP and verifying key shape but random
// query points, for benchmarks of circuits too large for a quick setup. It exercises every
// prover stage with the right sizes and sparsity; proofs made with it do NOT verify (the points
// are not derived from a trapdoor), so benchmarks label its results as unverified.
#pragma once

#include <algorithm>
#include <vector>

#include "base/random.h"
#include "base/thread_pool.h"
#include "groth16/keys.h"
#include "groth16/setup.h"
#include "poly/domain.h"

namespace snarkd::groth16 {

// count distinct points P + (first + i) Q in parallel: each chunk starts with one scalar
// multiplication and then adds Q.
template <class C>
std::vector<ec::Affine<C>> progression_points(size_t count, const ec::Jacobian<C>& p,
                                              const ec::Jacobian<C>& q, ThreadPool& pool) {
  std::vector<ec::Affine<C>> out(count);
  pool.parallel_for(count, [&](size_t begin, size_t end) {
    std::vector<ec::Jacobian<C>> jac(end - begin);
    auto acc = p.add(ec::mul_vartime(q, ff::BigInt<1>::from_u64(begin)));
    for (auto& j : jac) {
      j = acc;
      acc = acc.add(q);
    }
    ec::batch_to_affine<C>(jac, std::span<ec::Affine<C>>(out).subspan(begin, end - begin));
  }, 4 * pool.size());
  return out;
}

template <class E>
Result<ProvingKey<E>> synthetic_key(const r1cs::ConstraintSystem<Fr<E>>& cs,
                                    poly::QuotientConvention convention, RandomSource& rng,
                                    ThreadPool& pool = ThreadPool::global()) {
  using F = Fr<E>;
  using G1 = typename E::G1;
  using G2 = typename E::G2;
  ASSIGN_OR_RETURN(ProvingKey<E> pk, circuit_part<E>(cs, convention, "synthetic key"));
  auto g1 = [&](size_t n) {
    auto p = ec::mul_vartime(G1::generator(), F::random(rng).to_canonical());
    auto q = ec::mul_vartime(G1::generator(), F::random(rng).to_canonical());
    return progression_points<G1>(n, p, q, pool);
  };
  auto g2 = [&](size_t n) {
    auto p = ec::mul_vartime(G2::generator(), F::random(rng).to_canonical());
    auto q = ec::mul_vartime(G2::generator(), F::random(rng).to_canonical());
    return progression_points<G2>(n, p, q, pool);
  };
  const size_t nv = pk.num_variables;
  // As a real setup gives: the identity for a variable absent from A (a_query) or from B (b1, b2),
  // so density compression and the query sizes match a real key of the circuit (three in four
  // variables of a PoRep partition are absent from B).
  auto present = [&](const r1cs::SparseMatrix<F>& m) {
    std::vector<uint8_t> in(nv, 0);
    for (uint32_t v : m.column) in[v] = 1;
    return in;
  };
  auto spread = [&](auto points, const std::vector<uint8_t>& in) {
    decltype(points) out(nv);
    size_t next = 0;
    for (size_t i = 0; i < nv; ++i) {
      if (in[i]) out[i] = points[next++];
    }
    return out;
  };
  const auto in_a = present(pk.a), in_b = present(pk.b);
  const size_t b_count = size_t(std::count(in_b.begin(), in_b.end(), uint8_t(1)));
  pk.a_query = spread(g1(size_t(std::count(in_a.begin(), in_a.end(), uint8_t(1)))), in_a);
  pk.b1_query = spread(g1(b_count), in_b);
  pk.b2_query = spread(g2(b_count), in_b);
  pk.c_query = g1(nv - pk.num_public - 1);
  pk.h_query = g1(poly::quotient_scalar_count(convention, pk.domain_size()));
  auto one1 = g1(4);
  auto one2 = g2(4);
  pk.vk.alpha1 = one1[0];
  pk.beta1 = one1[1];
  pk.delta1 = one1[2];
  pk.vk.beta2 = one2[0];
  pk.vk.gamma2 = one2[1];
  pk.vk.delta2 = one2[2];
  pk.vk.ic = g1(pk.num_public + 1);
  return pk;
}

}  // namespace snarkd::groth16
