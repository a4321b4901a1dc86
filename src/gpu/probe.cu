// CUDA implementation of the device probe. cudart is linked statically, so this runs (and
// reports "no driver") on machines without the NVIDIA driver.
#include <cuda_runtime.h>

#include <string>

#include "gpu/probe.h"

namespace snarkd::gpu {

namespace {

// A kernel that writes one value proves that code for our architecture can launch.
__global__ void probe_kernel(int* out) { *out = 42; }

std::string cuda_error_text(const char* call, cudaError_t err) {
  return std::string(call) + " failed: " + cudaGetErrorName(err) + " (" +
         std::to_string(int(err)) + "): " + cudaGetErrorString(err);
}

bool launch_check(int device, std::string& reason) {
  cudaError_t err = cudaSetDevice(device);
  if (err != cudaSuccess) {
    reason = cuda_error_text("cudaSetDevice", err);
    return false;
  }
  int* d_out = nullptr;
  err = cudaMalloc(&d_out, sizeof(int));
  if (err != cudaSuccess) {
    reason = cuda_error_text("cudaMalloc", err);
    return false;
  }
  probe_kernel<<<1, 1>>>(d_out);
  int host = 0;
  err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaMemcpy(&host, d_out, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_out);
  if (err != cudaSuccess) {
    reason = cuda_error_text("probe kernel", err);
    return false;
  }
  if (host != 42) {
    reason = "probe kernel returned a wrong value";
    return false;
  }
  return true;
}

}  // namespace

ProbeResult probe_devices() {
  ProbeResult result;
  result.cuda_compiled = true;
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    result.reason = cuda_error_text("cudaGetDeviceCount", err);
    return result;
  }
  if (count == 0) {
    result.reason = "no CUDA devices";
    return result;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    err = cudaGetDeviceProperties(&prop, i);
    if (err != cudaSuccess) {
      result.reason = cuda_error_text("cudaGetDeviceProperties", err);
      continue;
    }
    std::string why;
    if (!launch_check(i, why)) {
      result.reason = "device " + std::to_string(i) + ": " + why;
      continue;
    }
    DeviceInfo info;
    info.ordinal = i;
    info.name = prop.name;
    info.compute_major = prop.major;
    info.compute_minor = prop.minor;
    info.multiprocessors = prop.multiProcessorCount;
    info.total_memory_bytes = prop.totalGlobalMem;
    result.devices.push_back(info);
  }
  return result;
}

}  // namespace snarkd::gpu
