#include "cli/local_engine.h"

#include <algorithm>
#include <iomanip>

#include "cli/commands.h"

namespace snarkd::cli {

Result<std::unique_ptr<engine::Engine>> make_local_engine(const LocalEngineOptions& o) {
  engine::EngineOptions eo;
  eo.backend = o.backend == BackendChoice::kCpu   ? engine::BackendKind::kCpu
               : o.backend == BackendChoice::kGpu ? engine::BackendKind::kGpu
                                                  : engine::BackendKind::kAuto;
  eo.gpu_slots = o.slots;
  eo.cpu_workers = o.slots;
  eo.synthesis_workers = std::max(1u, o.synthesis_workers);
  eo.finalizers = 1;
  eo.reserve_critical = false;
  eo.critical_reserve = 1;  // one request: the whole budget is its own
  eo.max_retries = 0;  // one shot: a failure is reported, not retried
  eo.verify_proofs = o.verify;
  eo.gpu_device_memory_limit = o.gpu_memory_limit;
  eo.prove_queue_depth = std::max(1u, o.prove_queue_depth);
  return engine::Engine::create(eo);
}

void print_proof_stages(std::ostream& out, const engine::PartitionProof& p, double load_ms, int indent) {
  const auto& t = p.stages;
  const std::string pad(size_t(indent), ' ');
  auto row = [&](const char* name, double ms) {
    out << pad << "  " << std::left << std::setw(18) << name << std::right << std::fixed << std::setprecision(2)
        << std::setw(11) << ms << " ms\n";
  };
  out << pad << "timings (backend " << p.backend << "):\n";
  if (load_ms >= 0) row("load", load_ms);
  row("evaluate", t.evaluate_ms);
  row("quotient", t.quotient_ms);
  row("msm.a", t.msm_a_ms);
  row("msm.b1", t.msm_b1_ms);
  row("msm.b2", t.msm_b2_ms);
  row("msm.c", t.msm_c_ms);
  row("msm.h", t.msm_h_ms);
  if (t.key_upload_ms > 0) row("key upload", t.key_upload_ms);
  row("slot held", t.slot_held_ms);
  if (t.kernel_busy_ms > 0) {
    row("kernel-busy", t.kernel_busy_ms);
    out << pad << "  kernel-busy / slot-held: " << std::setprecision(1) << 100.0 * t.kernel_busy_ms / t.slot_held_ms
        << "%\n";
  }
  row("assemble+verify", t.finalize_ms);
  if (t.active_slots > 0) {
    out << pad << "  key on the device: points " << (t.points_streamed ? "streamed from the host" : "resident")
        << ", a b c from " << (t.matrices == "cpu" ? "the CPU" : t.matrices + " matrices on the device") << ", "
        << t.active_slots << " slot" << (t.active_slots > 1 ? "s" : "") << "\n";
  }
}

}  // namespace snarkd::cli
