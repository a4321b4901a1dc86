// snarkd/groth16: key generation for our own circuits (tests, benchmarks, the demo).
//
// A single-party setup with fresh toxic waste (tau, alpha, beta, gamma, delta) from `rng`,
// discarded on return. It is NOT a ceremony: use it only where one party may know the trapdoor.
// The QAP is built exactly as snarkjs builds it (the public-input rows A[m+i][i] = 1 appended to
// the constraints), so a key made here can be written as a snarkjs .zkey.
#pragma once

#include <functional>
#include <vector>

#include "base/random.h"
#include "base/status.h"
#include "base/thread_pool.h"
#include "ff/batch_inverse.h"
#include "groth16/keys.h"
#include "msm/fixed_base.h"
#include "poly/domain.h"

namespace snarkd::groth16 {

// The circuit half of a key: sizes, convention, the QAP (A, B, C with snarkjs's public-input rows
// appended: rows m..m+num_public have A = w_i), the domain. Points are left empty (setup,
// synthetic keys and the bellperson reader fill them). Takes the system by value so a caller
// done with it can move it in: at a PoRep partition's size its matrices are about 25 GB.
template <class E>
Result<ProvingKey<E>> circuit_part(r1cs::ConstraintSystem<Fr<E>> cs,
                                   poly::QuotientConvention convention, const char* context) {
  using F = Fr<E>;
  RETURN_IF_ERROR(cs.validate().with_context(context));
  ProvingKey<E> pk;
  pk.convention = convention;
  pk.num_variables = cs.num_variables;
  pk.num_public = cs.num_public;
  pk.a = std::move(cs.a);
  pk.b = std::move(cs.b);
  for (uint32_t i = 0; i <= cs.num_public; ++i) pk.a.add_row({{i, F::one()}});
  pk.b.add_empty_rows(cs.num_public + 1);
  cs.c.add_empty_rows(cs.num_public + 1);
  pk.c = std::move(cs.c);
  ASSIGN_OR_RETURN(auto domain, poly::Domain<F>::for_size(pk.a.rows()));
  pk.log_domain_size = uint32_t(domain.log_size());
  return pk;
}

// `progress`, when set, is called with the name of each stage as it starts.
template <class E>
Result<ProvingKey<E>> setup(const r1cs::ConstraintSystem<Fr<E>>& cs,
                            poly::QuotientConvention convention, RandomSource& rng,
                            ThreadPool& pool = ThreadPool::global(),
                            const std::function<void(const char*)>& progress = {}) {
  auto stage = [&](const char* name) {
    if (progress) progress(name);
  };
  using F = Fr<E>;
  ASSIGN_OR_RETURN(ProvingKey<E> pk, circuit_part<E>(cs, convention, "setup"));
  ASSIGN_OR_RETURN(auto domain, poly::Domain<F>::create(pk.log_domain_size));
  const size_t n = domain.size();

  auto nonzero = [&] {
    F x;
    do x = F::random(rng);
    while (x.is_zero());
    return x;
  };
  const F tau = nonzero(), alpha = nonzero(), beta = nonzero(), gamma = nonzero(),
          delta = nonzero();

  stage("QAP polynomials at tau");
  // Lagrange basis at tau: L_i = (tau^n - 1)/n * w^i / (tau - w^i).
  std::vector<F> lagrange(n);
  poly::Domain<F>::powers_into(domain.omega(), F::one(), lagrange);
  std::vector<F> denom(n);
  for (size_t i = 0; i < n; ++i) denom[i] = tau - lagrange[i];
  ff::batch_inverse<F>(denom);
  const F z_tau = tau.pow(ff::BigInt<1>::from_u64(n)) - F::one();
  const F z_over_n = z_tau * domain.size_inv();
  for (size_t i = 0; i < n; ++i) lagrange[i] = z_over_n * lagrange[i] * denom[i];

  // u_j(tau), v_j(tau), w_j(tau) for every variable.
  std::vector<F> u(pk.num_variables), v(pk.num_variables), w(pk.num_variables);
  auto accumulate = [&](const r1cs::SparseMatrix<F>& m, std::vector<F>& out) {
    for (size_t row = 0; row < m.rows(); ++row) {
      for (uint64_t k = m.row_start[row]; k < m.row_start[row + 1]; ++k) {
        out[m.column[k]] += m.value[k] * lagrange[row];
      }
    }
  };
  accumulate(pk.a, u);
  accumulate(pk.b, v);
  accumulate(*pk.c, w);

  using Int = typename F::Int;
  auto canonical = [](const std::vector<F>& xs) {
    std::vector<Int> out(xs.size());
    for (size_t i = 0; i < xs.size(); ++i) out[i] = xs[i].to_canonical();
    return out;
  };
  const F gamma_inv = gamma.inverse(), delta_inv = delta.inverse();
  std::vector<F> ic_scalars, c_scalars;
  for (uint32_t j = 0; j < pk.num_variables; ++j) {
    F combo = beta * u[j] + alpha * v[j] + w[j];
    if (j <= pk.num_public) {
      ic_scalars.push_back(combo * gamma_inv);
    } else {
      c_scalars.push_back(combo * delta_inv);
    }
  }
  std::vector<F> h_scalars(poly::quotient_scalar_count(convention, n));
  if (convention == poly::QuotientConvention::kSnarkjsOddCoset) {
    // Odd Lagrange points of the 2n domain, divided by delta.
    const F w2 = poly::root_of_unity<F>(domain.log_size() + 1);
    std::vector<F> points(n), den(n);
    poly::Domain<F>::powers_into(w2.square(), w2, points);  // w2^(2k+1)
    for (size_t k = 0; k < n; ++k) den[k] = tau - points[k];
    ff::batch_inverse<F>(den);
    const F scale = (tau.pow(ff::BigInt<1>::from_u64(2 * n)) - F::one()) *
                    F::from_u64(2 * n).inverse() * delta_inv;
    for (size_t k = 0; k < n; ++k) h_scalars[k] = scale * points[k] * den[k];
  } else {
    // tau^i Z(tau) / delta for i < n - 1.
    poly::Domain<F>::powers_into(tau, z_tau * delta_inv, h_scalars);
  }

  using G1 = typename E::G1;
  using G2 = typename E::G2;
  stage("fixed-base tables");
  const msm::FixedBaseTable<G1> g1(G1::generator());
  const msm::FixedBaseTable<G2> g2(G2::generator());
  auto g1_many = [&](const std::vector<F>& scalars) {
    std::vector<G1Affine<E>> out(scalars.size());
    auto ints = canonical(scalars);
    g1.mul_many(std::span<const Int>(ints), std::span<G1Affine<E>>(out), pool);
    return out;
  };
  stage("A query (G1)");
  pk.a_query = g1_many(u);
  // B by density: only the variables B uses get points (keys.h).
  pk.b_variables = pk.b.variables_used(pk.num_variables);
  std::vector<F> v_used(pk.b_variables.size());
  for (size_t k = 0; k < v_used.size(); ++k) v_used[k] = v[pk.b_variables[k]];
  stage("B query (G1)");
  pk.b1_query = g1_many(v_used);
  stage("B query (G2)");
  {
    pk.b2_query.resize(v_used.size());
    auto ints = canonical(v_used);
    g2.mul_many(std::span<const Int>(ints), std::span<G2Affine<E>>(pk.b2_query), pool);
  }
  stage("IC and C queries (G1)");
  pk.vk.ic = g1_many(ic_scalars);
  pk.c_query = g1_many(c_scalars);
  stage("H query (G1)");
  pk.h_query = g1_many(h_scalars);
  pk.vk.alpha1 = g1.mul(alpha.to_canonical()).to_affine();
  pk.beta1 = g1.mul(beta.to_canonical()).to_affine();
  pk.delta1 = g1.mul(delta.to_canonical()).to_affine();
  pk.vk.beta2 = g2.mul(beta.to_canonical()).to_affine();
  pk.vk.gamma2 = g2.mul(gamma.to_canonical()).to_affine();
  pk.vk.delta2 = g2.mul(delta.to_canonical()).to_affine();
  return pk;
}

}  // namespace snarkd::groth16
