// The GPU backend for BN254 (one translation unit per curve: they compile in parallel).
#include "ec/bn254.h"
#include "gpu_prover/gpu_backend_impl.cuh"

namespace snarkd::gpu_prover {

template <>
Result<std::unique_ptr<groth16::Backend<ec::bn254::Engine>>> make_gpu_backend(
    const GpuBackendOptions& options) {
  return GpuBackend<ec::bn254::Engine>::create(options);
}

}  // namespace snarkd::gpu_prover
