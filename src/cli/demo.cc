#include "cli/demo.h"

#include <chrono>
#include <iomanip>

#include "base/thread_pool.h"
#include "cli/local_engine.h"

namespace snarkd::cli {

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void row(std::ostream& out, const char* name, double ms, int indent = 2) {
  out << std::string(size_t(indent), ' ') << std::left << std::setw(18 - indent) << name << std::right << std::fixed
      << std::setprecision(1) << std::setw(10) << ms << " ms\n";
}

}  // namespace

// The built-in chain circuit through an in-process engine, as the daemon would prove it: the key
// is made by the engine's seeded test setup (the "setup" row), the witness by the circuit's
// witness-only synthesis, and the proof is verified before it is returned.
int run_demo(const DemoOptions& o, std::ostream& out) {
  out << "snarkd demo: " << curve_name(o.curve) << " Groth16\n";
  const bool divide_by_z = o.convention == poly::QuotientConvention::kDivideByZ;
  const std::string source = std::string("builtin:") + (divide_by_z ? "divide-by-z:" : "") + "chain:" +
                             (o.curve == Curve::kBls12_381 ? "bls12-381" : "bn254") +
                             ":rows=" + std::to_string(o.constraints) + ":" + std::to_string(o.boolean_percent);
  auto eng = make_local_engine({o.backend, /*verify=*/true, 1});
  if (!eng.ok()) {
    out << "backend: " << eng.status().message() << "\n";
    return 1;
  }
  engine::Engine& e = **eng;
  auto key = e.register_key(source);
  if (!key.ok()) {
    out << "key: " << key.status().message() << "\n";
    return 2;
  }
  auto t0 = std::chrono::steady_clock::now();
  Status st = e.preload_key(key->id);
  const double setup_ms = ms_since(t0);
  if (!st.ok()) {
    out << "setup failed: " << st.to_string() << "\n";
    return 1;
  }
  const engine::KeyInfo info = *e.key(key->id);
  out << "circuit: " << info.source << ", " << o.constraints << " constraints (" << o.boolean_percent
      << "% boolean), " << info.num_variables << " variables, " << info.num_public << " public\n";
  out << "domain: 2^" << info.log_domain_size << ", H convention " << poly::quotient_convention_name(o.convention)
      << "\n";
  const auto status = e.status();
  out << "backend: " << (status.devices.empty() ? "?" : status.devices[0].backend)
      << (e.backend_note().empty() ? "" : " (" + e.backend_note() + ")") << "\n";

  engine::ProofRequest request;
  request.key_id = key->id;
  request.seed = o.seed;
  t0 = std::chrono::steady_clock::now();
  auto job = e.submit(request);
  auto result = job.ok() ? e.await(*job, std::chrono::hours(24 * 365)) : Result<engine::JobResult>(job.status());
  const double job_ms = ms_since(t0);
  if (!result.ok()) {
    out << "prove failed: " << result.status().to_string() << "\n";
    return 1;
  }
  out << "timings (" << ThreadPool::global().size() << " threads):\n";
  row(out, "setup", setup_ms);
  row(out, "synthesize", result->timings.synthesis_ms);
  if (result->state != engine::JobState::kCompleted) {
    out << "prove failed: " << result->error.to_string() << "\n";
    out << "proof did NOT verify\n";
    return 1;
  }
  const engine::ProveStages& s = result->proofs.at(0).stages;
  row(out, "prove", s.slot_held_ms);
  row(out, "evaluate", s.evaluate_ms, 4);
  row(out, "quotient", s.quotient_ms, 4);
  row(out, "msm.a", s.msm_a_ms, 4);
  row(out, "msm.b1", s.msm_b1_ms, 4);
  row(out, "msm.b2", s.msm_b2_ms, 4);
  row(out, "msm.c", s.msm_c_ms, 4);
  row(out, "msm.h", s.msm_h_ms, 4);
  if (s.kernel_busy_ms > 0) row(out, "kernel-busy", s.kernel_busy_ms, 4);
  row(out, "assemble+verify", s.finalize_ms);
  row(out, "job total", job_ms);
  out << "proof verified: OK\n";
  return 0;
}

}  // namespace snarkd::cli
