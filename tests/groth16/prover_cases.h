// The four prover configurations every Groth16 suite runs: both curves x both H conventions.
#pragma once

#include <gtest/gtest.h>

#include "ec/bls12_381.h"
#include "ec/bn254.h"
#include "poly/quotient.h"

namespace snarkd::testing {

template <class E, poly::QuotientConvention Q>
struct ProverCase {
  using Engine = E;
  static constexpr poly::QuotientConvention kConvention = Q;
};

using ProverCases =
    ::testing::Types<ProverCase<ec::bls12_381::Engine, poly::QuotientConvention::kSnarkjsOddCoset>,
                     ProverCase<ec::bls12_381::Engine, poly::QuotientConvention::kDivideByZ>,
                     ProverCase<ec::bn254::Engine, poly::QuotientConvention::kSnarkjsOddCoset>,
                     ProverCase<ec::bn254::Engine, poly::QuotientConvention::kDivideByZ>>;

}  // namespace snarkd::testing
