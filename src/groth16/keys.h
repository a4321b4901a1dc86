// snarkd/groth16: keys and proofs, generic over a pairing engine E (ec::bls12_381::Engine,
// ec::bn254::Engine).
//
// The proving key is in the layout the prover wants: affine points in our Montgomery form, the
// QAP matrices A and B (and C when the circuit has one) in CSR form. Variables are numbered as
// in circom: 0 is the constant, then num_public public ones, then the private ones.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ec/point.h"
#include "poly/quotient.h"
#include "r1cs/r1cs.h"

namespace snarkd::groth16 {

template <class E>
using Fr = typename E::G1::Scalar;
template <class E>
using G1Affine = ec::Affine<typename E::G1>;
template <class E>
using G2Affine = ec::Affine<typename E::G2>;

template <class E>
struct VerifyingKey {
  G1Affine<E> alpha1;
  G2Affine<E> beta2, gamma2, delta2;
  std::vector<G1Affine<E>> ic;  // one per public variable, plus one for the constant

  size_t num_public() const { return ic.empty() ? 0 : ic.size() - 1; }
};

template <class E>
struct ProvingKey {
  VerifyingKey<E> vk;
  G1Affine<E> beta1, delta1;
  poly::QuotientConvention convention = poly::QuotientConvention::kSnarkjsOddCoset;
  uint32_t num_variables = 0;  // including the constant
  uint32_t num_public = 0;
  uint32_t log_domain_size = 0;

  // QAP rows (constraints, then snarkjs's public-input rows); fewer rows than the domain size.
  r1cs::SparseMatrix<Fr<E>> a, b;
  std::optional<r1cs::SparseMatrix<Fr<E>>> c;  // absent for snarkjs keys: c = a * b pointwise

  std::vector<G1Affine<E>> a_query;   // num_variables
  std::vector<G1Affine<E>> b1_query;  // num_variables
  std::vector<G2Affine<E>> b2_query;  // num_variables
  std::vector<G1Affine<E>> c_query;   // private variables: num_variables - num_public - 1
  std::vector<G1Affine<E>> h_query;   // quotient_scalar_count(convention, domain size)

  uint64_t domain_size() const { return uint64_t(1) << log_domain_size; }
};

template <class E>
struct Proof {
  G1Affine<E> a;
  G2Affine<E> b;
  G1Affine<E> c;

  friend bool operator==(const Proof& x, const Proof& y) {
    return x.a == y.a && x.b == y.b && x.c == y.c;
  }
};

}  // namespace snarkd::groth16
