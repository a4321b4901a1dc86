// snarkd/gpu: is a CUDA GPU usable here? The answer decides the backend at run time.
//
// This header is plain C++ so that every layer above can ask without including CUDA headers;
// the implementation is probe.cu when CUDA is compiled in, probe_stub.cc otherwise.
#pragma once

#include <string>
#include <vector>

namespace snarkd::gpu {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int compute_major = 0;
  int compute_minor = 0;
  int multiprocessors = 0;
  size_t total_memory_bytes = 0;
};

struct ProbeResult {
  bool cuda_compiled = false;     // built with nvcc
  std::vector<DeviceInfo> devices;  // usable devices (empty when none)
  std::string reason;             // why none is usable, when devices is empty

  bool usable() const { return !devices.empty(); }
};

// Never throws and never aborts: no driver, no device or any CUDA error yields usable() false.
ProbeResult probe_devices();

// The name of the backend the engine will pick: "gpu" or "cpu".
inline const char* selected_backend(const ProbeResult& probe) {
  return probe.usable() ? "gpu" : "cpu";
}

}  // namespace snarkd::gpu
