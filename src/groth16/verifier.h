// snarkd/groth16: verification, e(A, B) = e(alpha, beta) e(vk_x, gamma) e(C, delta), checked as
// one multi-pairing with a shared final exponentiation.
//
// Result<bool>: an error for malformed input (wrong number of public inputs), false for a
// proof that does not verify.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "ec/pairing.h"
#include "groth16/keys.h"
#include "msm/pippenger.h"

namespace snarkd::groth16 {

template <class E>
Result<bool> verify(const VerifyingKey<E>& vk, std::span<const Fr<E>> public_inputs,
                    const Proof<E>& proof) {
  using Int = typename Fr<E>::Int;
  if (vk.ic.empty()) return invalid_argument("verifying key has no IC points");
  if (public_inputs.size() != vk.num_public()) {
    return invalid_argument("expected " + std::to_string(vk.num_public()) +
                            " public inputs, got " + std::to_string(public_inputs.size()));
  }
  std::vector<Int> scalars(public_inputs.size());
  for (size_t i = 0; i < public_inputs.size(); ++i) scalars[i] = public_inputs[i].to_canonical();
  auto vk_x = msm::msm<typename E::G1>(std::span<const G1Affine<E>>(vk.ic).subspan(1),
                                        std::span<const Int>(scalars))
                  .add_mixed(vk.ic[0])
                  .to_affine();
  using P = ec::Pairing<E>;
  std::vector<typename P::Pair> pairs = {
      {proof.a.neg(), proof.b}, {vk.alpha1, vk.beta2}, {vk_x, vk.gamma2}, {proof.c, vk.delta2}};
  return P::pairing_product_is_one(pairs);
}

}  // namespace snarkd::groth16
