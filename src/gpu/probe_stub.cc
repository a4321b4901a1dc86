// Used when the build has no CUDA compiler: the CPU backend is the only one.
#include "gpu/probe.h"

namespace snarkd::gpu {

ProbeResult probe_devices() {
  ProbeResult result;
  result.cuda_compiled = false;
  result.reason = "snarkd was built without CUDA (nvcc not found at configure time)";
  return result;
}

}  // namespace snarkd::gpu
