// snarkd/cli: an in-process engine for the one-shot commands (prove), so the CLI proves through
// the same pipeline as the daemon: one backend choice, one witness check, one proof encoder.
#pragma once

#include <memory>
#include <ostream>

#include "base/status.h"
#include "cli/backend_choice.h"
#include "engine/engine.h"

namespace snarkd::cli {

struct LocalEngineOptions {
  BackendChoice backend = BackendChoice::kAuto;
  bool verify = true;
  uint32_t slots = 1;  // GPU slots / CPU prover workers
  uint32_t synthesis_workers = 1;  // partitions synthesized at once (PoRep C2: several)
  size_t gpu_memory_limit = 0;     // GpuBackendOptions::device_memory_limit (0: the device's free memory)
  uint32_t prove_queue_depth = 4;  // synthesized partitions waiting for the prover, at most
};

Result<std::unique_ptr<engine::Engine>> make_local_engine(const LocalEngineOptions& o);

// The stages of one partition proof, as `--timings` prints them (stderr); load_ms < 0: no load row.
void print_proof_stages(std::ostream& out, const engine::PartitionProof& p, double load_ms, int indent = 0);

}  // namespace snarkd::cli
