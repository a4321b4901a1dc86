// snarkd/gpu: every CUDA call goes through SNARKD_CUDA_RETURN_IF_ERROR, which turns a failure
// into a Status naming the call, the file, the line and the CUDA error.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "base/status.h"

namespace snarkd::gpu {

inline Status cuda_status(cudaError_t err, const char* expr, const char* file, int line) {
  if (err == cudaSuccess) return Status();
  return Status(StatusCode::kInternal, std::string(expr) + " failed at " + file + ":" +
                                           std::to_string(line) + ": " + cudaGetErrorName(err) +
                                           ": " + cudaGetErrorString(err));
}

}  // namespace snarkd::gpu

#define SNARKD_CUDA_RETURN_IF_ERROR(expr) \
  RETURN_IF_ERROR(::snarkd::gpu::cuda_status((expr), #expr, __FILE__, __LINE__))
