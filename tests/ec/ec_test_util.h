// Helpers for curve tests: random subgroup points and random curve points off the subgroup.
#pragma once

#include <optional>

#include "ec/bls12_381.h"
#include "ec/bn254.h"

namespace snarkd::testing {

template <class C, class Rng>
ec::Jacobian<C> random_subgroup_point(Rng& rng) {
  auto k = C::Scalar::random(rng);
  return ec::mul_vartime(C::generator(), k.to_canonical());
}

// A uniformly random point of the whole curve group E(F): for groups with a cofactor it is
// almost never in the prime-order subgroup.
template <class C, class Rng>
ec::Affine<C> random_curve_point(Rng& rng) {
  using F = typename C::Field;
  for (;;) {
    F x = F::random(rng);
    auto y = (x.square() * x + C::b()).sqrt();
    if (y) return ec::Affine<C>::from_xy(x, *y);
  }
}

}  // namespace snarkd::testing
