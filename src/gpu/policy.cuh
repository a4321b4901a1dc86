// snarkd/gpu: the settled implementation choices of the MSM kernels, one row per base field. Every
// entry names the measurement that settled it (docs/perf.md); the alternatives stay reachable as
// types (MulForm, fp64::Fp64Form) so gpu_bench can time them side by side, but nothing else
// selects them. To try another choice in a whole prover, change the row and rebuild.
#pragma once

#include "ff/bls12_381.h"
#include "ff/bn254.h"
#include "gpu/field.cuh"
#include "gpu/fp64_mont.h"

namespace snarkd::gpu {

// Fields without a row of their own (the scalar fields, in tests): the integer field, paired wide
// products, the compiler's register choice.
template <class P>
struct KernelPolicy {
  static constexpr MulForm kG1Form = MulForm::kWideOutOfLine;
  static constexpr MulForm kG2Form = MulForm::kWideOutOfLine;
  static constexpr bool kG1OnFp64 = false;
  static constexpr bool kG2OnFp64 = false;
  static constexpr fp64::Fp64Form kFp64Form = fp64::Fp64Form::kIntegerSums;
  static constexpr int kAccumulateMinBlocksG1 = 1;
};

// BLS12-381 Fq (12 limbs).
template <>
struct KernelPolicy<ff::bls12_381::FqParams> {
  // Products: the 64-bit-accumulator CIOS out of line, in pairs. Wide against the PTX chains at
  // 2^24: G1 1.58x, G2 1.17x ("product forms measured"); paired against single under the
  // Karatsuba lane product: G2 accumulation 1.06x (562.2 -> 530.1 ms, H100, fourteenth session),
  // G1 1.32x ("paired products").
  static constexpr MulForm kG1Form = MulForm::kWideOutOfLine;
  static constexpr MulForm kG2Form = MulForm::kWideOutOfLine;
  // G1 on the FP64 pipe in the chained-float form: the 2^24 MSM 1.18x (186.7 -> 157.7 ms, H100),
  // whole proofs 1.07-1.08x ("The FP64 product measured"). G2 stays on the integers: 0.87x on
  // doubles (659.3 -> 753.7 ms; its accumulation spills 458 bytes, "BLS12-381 G2 on the FP64 field").
  static constexpr bool kG1OnFp64 = true;
  static constexpr bool kG2OnFp64 = false;
  static constexpr fp64::Fp64Form kFp64Form = fp64::Fp64Form::kChainedFloat;
  // G1 accumulation at 4 blocks an SM (216 registers, no spills): 1.06x against the compiler's
  // choice at 2^24 (158.8 -> 150.4 ms; 6 blocks 162.0 ms; "product forms measured").
  static constexpr int kAccumulateMinBlocksG1 = 4;
};

// BN254 Fq (8 limbs).
template <>
struct KernelPolicy<ff::bn254::FqParams> {
  // Wide against the PTX chains at 2^24: G1 1.52x, G2 1.18x; paired and single within 2% of each
  // other ("product forms measured").
  static constexpr MulForm kG1Form = MulForm::kWideOutOfLine;
  static constexpr MulForm kG2Form = MulForm::kWideOutOfLine;
  // The FP64 pipe ran the G1 MSM at 0.98x (82.9 -> 84.5 ms, H100): integers.
  static constexpr bool kG1OnFp64 = false;
  static constexpr bool kG2OnFp64 = false;
  static constexpr fp64::Fp64Form kFp64Form = fp64::Fp64Form::kIntegerSums;
  // 168 registers by the compiler's choice; a cap of 128 took 64.2 against 63.3 ms.
  static constexpr int kAccumulateMinBlocksG1 = 1;
};

}  // namespace snarkd::gpu
