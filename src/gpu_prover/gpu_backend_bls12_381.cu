// The GPU backend for BLS12-381 (one translation unit per curve: they compile in parallel).
#include "ec/bls12_381.h"
#include "gpu_prover/gpu_backend_impl.cuh"

namespace snarkd::gpu_prover {

bool gpu_backend_compiled() { return true; }

template <>
Result<std::unique_ptr<groth16::Backend<ec::bls12_381::Engine>>> make_gpu_backend(
    const GpuBackendOptions& options) {
  return GpuBackend<ec::bls12_381::Engine>::create(options);
}

}  // namespace snarkd::gpu_prover
