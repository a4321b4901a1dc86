// snarkd/groth16: a proving key with a real circuit's QAP and verifying key shape but random
// query points, for benchmarks of circuits too large for a quick setup. It exercises every
// prover stage with the right sizes and sparsity; proofs made with it do NOT verify (the points
// are not derived from a trapdoor), so benchmarks label its results as unverified.
#pragma once

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
  pk.a_query = g1(nv);
  pk.b1_query = g1(nv);
  pk.b2_query = g2(nv);
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
