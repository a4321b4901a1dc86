// Built without CUDA: the GPU backend reports itself unavailable and the CPU backend runs.
#include "ec/bls12_381.h"
#include "ec/bn254.h"
#include "gpu_prover/gpu_backend.h"

namespace snarkd::gpu_prover {

bool gpu_backend_compiled() { return false; }

namespace {
template <class E>
Result<std::unique_ptr<groth16::Backend<E>>> not_built() {
  return unavailable("GPU backend: this build has no CUDA support (configure with nvcc present)");
}
}  // namespace

template <>
Result<std::unique_ptr<groth16::Backend<ec::bls12_381::Engine>>> make_gpu_backend(
    const GpuBackendOptions&) {
  return not_built<ec::bls12_381::Engine>();
}
template <>
Result<std::unique_ptr<groth16::Backend<ec::bn254::Engine>>> make_gpu_backend(
    const GpuBackendOptions&) {
  return not_built<ec::bn254::Engine>();
}

}  // namespace snarkd::gpu_prover
