// snarkd/groth16: keys and proofs, generic over a pairing engine E (ec::bls12_381::Engine,
// ec::bn254::Engine).
//
// The proving key is in the layout the prover wants: affine points in our Montgomery form, the
// QAP matrices A and B (and C when the circuit has one) in CSR form. Variables are numbered as
// in circom: 0 is the constant, then num_public public ones, then the private ones.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
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
  // B is kept by density, as bellperson keeps it: b1_query[k] and b2_query[k] belong to variable
  // b_variables[k] (strictly ascending), and every variable not listed has the identity in both.
  // About three in four variables of a Filecoin PoRep partition are absent from B; a full-length
  // B would hold some 30 GB of identities there.
  std::vector<uint32_t> b_variables;
  std::vector<G1Affine<E>> b1_query;  // b_variables.size()
  std::vector<G2Affine<E>> b2_query;  // b_variables.size()
  std::vector<G1Affine<E>> c_query;   // private variables: num_variables - num_public - 1
  std::vector<G1Affine<E>> h_query;   // quotient_scalar_count(convention, domain size)

  // Backend::adopt_key took the points (and, where it evaluates on the device, the matrices)
  // over and freed them here: the vectors are empty, only that backend proves with this key, and
  // prove_finish and the verifier still have everything they read (vk, beta1, delta1, sizes).
  bool adopted = false;

  uint64_t domain_size() const { return uint64_t(1) << log_domain_size; }
};

// Host bytes the key holds (its vectors' capacities and the struct).
template <class E>
size_t key_host_bytes(const ProvingKey<E>& pk) {
  auto bytes = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
  auto matrix = [&](const auto& m) { return bytes(m.row_start) + bytes(m.column) + bytes(m.value); };
  return sizeof(pk) + bytes(pk.vk.ic) + matrix(pk.a) + matrix(pk.b) + (pk.c ? matrix(*pk.c) : 0) +
         bytes(pk.a_query) + bytes(pk.b_variables) + bytes(pk.b1_query) + bytes(pk.b2_query) +
         bytes(pk.c_query) + bytes(pk.h_query);
}

// The query lengths against the key's sizes, and b_variables strictly ascending below
// num_variables; `who` names the key in the error.
template <class E>
Status check_query_sizes(const ProvingKey<E>& pk, std::string_view who) {
  const size_t nv = pk.num_variables;
  auto fail = [&](const std::string& what) { return invalid_argument(std::string(who) + ": " + what); };
  if (nv < size_t(pk.num_public) + 1) return fail("fewer variables than public inputs plus the constant");
  if (pk.vk.ic.size() != size_t(pk.num_public) + 1) {
    return fail("IC has " + std::to_string(pk.vk.ic.size()) + " points for " +
                std::to_string(pk.num_public) + " public inputs (+1)");
  }
  if (pk.a_query.size() != nv) {
    return fail("A query has " + std::to_string(pk.a_query.size()) + " points for " + std::to_string(nv) +
                " variables");
  }
  if (pk.b1_query.size() != pk.b_variables.size() || pk.b2_query.size() != pk.b_variables.size()) {
    return fail("B queries have " + std::to_string(pk.b1_query.size()) + " (G1) and " +
                std::to_string(pk.b2_query.size()) + " (G2) points for " +
                std::to_string(pk.b_variables.size()) + " variables in B");
  }
  for (size_t k = 0; k < pk.b_variables.size(); ++k) {
    if (pk.b_variables[k] >= nv || (k > 0 && pk.b_variables[k] <= pk.b_variables[k - 1])) {
      return fail("B variable list is not strictly ascending below " + std::to_string(nv) + " at entry " +
                  std::to_string(k));
    }
  }
  if (pk.c_query.size() != nv - pk.num_public - 1) {
    return fail("C query has " + std::to_string(pk.c_query.size()) + " points for " +
                std::to_string(nv - pk.num_public - 1) + " private variables");
  }
  const size_t h_count = poly::quotient_scalar_count(pk.convention, pk.domain_size());
  if (pk.h_query.size() != h_count) {
    return fail("H has " + std::to_string(pk.h_query.size()) + " points, expected " + std::to_string(h_count));
  }
  return Status();
}

// Sets B from full-length queries (one point per variable), keeping the variables whose B1 or
// B2 point is not the identity. Compacts in place, so the peak is the full length once.
template <class E>
void set_b_from_full(ProvingKey<E>& pk, std::vector<G1Affine<E>> b1, std::vector<G2Affine<E>> b2) {
  pk.b_variables.clear();
  size_t kept = 0;
  for (size_t j = 0; j < b1.size() && j < b2.size(); ++j) {
    if (b1[j].infinity && b2[j].infinity) continue;
    pk.b_variables.push_back(uint32_t(j));
    b1[kept] = b1[j];
    b2[kept] = b2[j];
    ++kept;
  }
  b1.resize(kept);
  b2.resize(kept);
  b1.shrink_to_fit();
  b2.shrink_to_fit();
  pk.b1_query = std::move(b1);
  pk.b2_query = std::move(b2);
}

// One point per variable (count of them): points[k] at variables[k], the identity elsewhere.
template <class C>
std::vector<ec::Affine<C>> expand_by_density(std::span<const ec::Affine<C>> points,
                                             std::span<const uint32_t> variables, size_t count) {
  std::vector<ec::Affine<C>> out(count, ec::Affine<C>::identity());
  for (size_t k = 0; k < variables.size() && k < points.size(); ++k) {
    if (variables[k] < count) out[variables[k]] = points[k];
  }
  return out;
}

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
