// snarkd/ff: BLS12-381 field parameters (the only per-curve input to the generic field code).
#pragma once

#include "ff/fp.h"
#include "ff/tower.h"

namespace snarkd::ff::bls12_381 {

struct FqParams {
  static constexpr size_t kLimbs = 6;
  static constexpr BigInt<6> kModulus = BigInt<6>::from_hex(
      "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab");
  static constexpr const char* kName = "BLS12-381 Fp";
};

struct FrParams {
  static constexpr size_t kLimbs = 4;
  static constexpr BigInt<4> kModulus = BigInt<4>::from_hex(
      "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
  static constexpr const char* kName = "BLS12-381 Fr";
};

using Fq = Fp<FqParams>;
using Fr = Fp<FrParams>;

struct Tower {
  using Base = Fq;
  static constexpr uint64_t kXiReal = 1;  // xi = 1 + u
};

using Fq2 = Fp2<Tower>;
using Fq6 = Fp6<Tower>;
using Fq12 = Fp12<Tower>;

}  // namespace snarkd::ff::bls12_381
