// snarkd/ff: BN254 (alt_bn128, circom's default) field parameters.
#pragma once

#include "ff/fp.h"
#include "ff/tower.h"

namespace snarkd::ff::bn254 {

struct FqParams {
  static constexpr size_t kLimbs = 4;
  static constexpr BigInt<4> kModulus = BigInt<4>::from_hex(
      "30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47");
  static constexpr const char* kName = "BN254 Fp";
};

struct FrParams {
  static constexpr size_t kLimbs = 4;
  static constexpr BigInt<4> kModulus = BigInt<4>::from_hex(
      "30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001");
  static constexpr const char* kName = "BN254 Fr";
};

using Fq = Fp<FqParams>;
using Fr = Fp<FrParams>;

struct Tower {
  using Base = Fq;
  static constexpr uint64_t kXiReal = 9;  // xi = 9 + u
};

using Fq2 = Fp2<Tower>;
using Fq6 = Fp6<Tower>;
using Fq12 = Fp12<Tower>;

}  // namespace snarkd::ff::bn254
