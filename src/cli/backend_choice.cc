#include "cli/backend_choice.h"

#include <iomanip>

namespace snarkd::cli {

void print_stage_timings(std::ostream& out, const groth16::StageTimings& t, int indent) {
  const std::string pad(size_t(indent), ' ');
  auto row = [&](const std::string& name, double ms) {
    out << pad << std::left << std::setw(18) << name << std::right << std::fixed
        << std::setprecision(2) << std::setw(11) << ms << " ms\n";
  };
  const bool device = !t.device.empty();
  row(std::string("evaluate") + (device ? "*" : ""), t.evaluate_ms);
  row(std::string("quotient") + (device ? "*" : ""), t.quotient_ms);
  row(std::string("msm.a") + (device ? "*" : ""), t.msm_a_ms);
  row(std::string("msm.b1") + (device ? "*" : ""), t.msm_b1_ms);
  row(std::string("msm.b2") + (device ? "*" : ""), t.msm_b2_ms);
  row(std::string("msm.c") + (device ? "*" : ""), t.msm_c_ms);
  row(std::string("msm.h") + (device ? "*" : ""), t.msm_h_ms);
  row("assemble", t.assemble_ms);
  if (!device) return;
  out << pad << "* device time from CUDA events on the slot's stream; intervals:\n";
  const double origin = t.device.front().start_ms;
  for (const auto& d : t.device) {
    out << pad << "  " << std::left << std::setw(16) << d.stage << std::right << std::fixed
        << std::setprecision(2) << std::setw(11) << d.ms() << " ms   at +" << std::setprecision(2)
        << (d.start_ms - origin) << "\n";
  }
  if (t.key_upload_ms > 0) row("key upload", t.key_upload_ms);
  if (t.key_base_copies > 1) out << pad << "key base copies   " << t.key_base_copies << "\n";
  row("slot wait", t.slot_wait_ms);
  row("slot held", t.slot_held_ms);
  row("kernel-busy", t.kernel_busy_ms());
  if (t.slot_held_ms > 0) {
    out << pad << "kernel-busy / slot-held: " << std::setprecision(1)
        << 100.0 * t.kernel_busy_ms() / t.slot_held_ms << "%\n";
  }
}

}  // namespace snarkd::cli
