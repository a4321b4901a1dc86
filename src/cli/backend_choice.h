// snarkd/cli: `--backend cpu|gpu|auto` and the stage-timing report shared by prove, demo and
// bench.
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "base/status.h"
#include "gpu/probe.h"
#include "gpu_prover/gpu_backend.h"
#include "groth16/prover.h"

namespace snarkd::cli {

enum class BackendChoice { kAuto, kCpu, kGpu };

inline std::optional<BackendChoice> parse_backend(std::string_view name) {
  if (name == "auto") return BackendChoice::kAuto;
  if (name == "cpu") return BackendChoice::kCpu;
  if (name == "gpu") return BackendChoice::kGpu;
  return std::nullopt;
}

// kAuto takes the GPU when one is usable and falls back to the CPU (saying why in `note`);
// kGpu fails when no GPU backend can be made.
template <class E>
Result<std::unique_ptr<groth16::Backend<E>>> make_backend(BackendChoice choice,
                                                          const gpu_prover::GpuBackendOptions& gpu,
                                                          std::string* note = nullptr) {
  if (choice == BackendChoice::kCpu) return std::unique_ptr<groth16::Backend<E>>(new groth16::CpuBackend<E>());
  auto probe = gpu::probe_devices();
  std::string why;
  if (probe.usable()) {
    auto b = gpu_prover::make_gpu_backend<E>(gpu);
    if (b.ok() || choice == BackendChoice::kGpu) return b;
    why = b.status().message();
  } else {
    why = probe.reason;
    if (choice == BackendChoice::kGpu) return unavailable("no usable GPU: " + probe.reason);
  }
  if (note) *note = "no GPU backend (" + why + "); using the CPU";
  return std::unique_ptr<groth16::Backend<E>>(new groth16::CpuBackend<E>());
}

// Stage rows (host or device time per stage), then for a device backend its kernel intervals,
// kernel-busy and slot-held totals.
void print_stage_timings(std::ostream& out, const groth16::StageTimings& t, int indent = 2);

}  // namespace snarkd::cli
