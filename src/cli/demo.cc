#include "cli/demo.h"

#include <chrono>
#include <iomanip>

#include "base/random.h"
#include "base/thread_pool.h"
#include "gpu/probe.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "groth16/verifier.h"
#include "circuits/chain/chain.h"

namespace snarkd::cli {

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

void row(std::ostream& out, const char* name, double ms, int indent = 2) {
  out << std::string(size_t(indent), ' ') << std::left << std::setw(18 - indent) << name
      << std::right << std::fixed << std::setprecision(1) << std::setw(10) << ms << " ms\n";
}

template <class E>
int demo(const DemoOptions& o, std::ostream& out) {
  using F = groth16::Fr<E>;
  OsRandom rng;
  auto t0 = std::chrono::steady_clock::now();
  auto [cs, witness] = circuits::build_chain<F>({o.constraints, o.boolean_percent, o.seed});
  double synth_ms = ms_since(t0);
  out << "circuit: chain, " << cs.num_constraints() << " constraints (" << o.boolean_percent
      << "% boolean), " << cs.num_variables << " variables, " << cs.num_public
      << " public\n";

  t0 = std::chrono::steady_clock::now();
  auto pk = groth16::setup<E>(cs, o.convention, rng);
  if (!pk.ok()) {
    out << "setup failed: " << pk.status().to_string() << "\n";
    return 1;
  }
  double setup_ms = ms_since(t0);
  out << "domain: 2^" << pk->log_domain_size << ", H convention " << poly::quotient_convention_name(o.convention) << "\n";

  std::string note;
  auto backend = make_backend<E>(o.backend, {}, &note);
  if (!backend.ok()) {
    out << "backend: " << backend.status().message() << "\n";
    return 1;
  }
  out << "backend: " << (*backend)->name() << (note.empty() ? "" : " (" + note + ")") << "\n";
  groth16::StageTimings timings;
  t0 = std::chrono::steady_clock::now();
  auto proof = groth16::prove<E>(*pk, witness, **backend, rng, &timings);
  double prove_ms = ms_since(t0);
  if (!proof.ok()) {
    out << "prove failed: " << proof.status().to_string() << "\n";
    return 1;
  }
  t0 = std::chrono::steady_clock::now();
  auto ok = groth16::verify<E>(pk->vk, std::span<const F>(witness).subspan(1, cs.num_public),
                               *proof);
  double verify_ms = ms_since(t0);

  out << "timings (" << ThreadPool::global().size() << " threads):\n";
  row(out, "synthesize", synth_ms);
  row(out, "setup", setup_ms);
  row(out, "prove", prove_ms);
  print_stage_timings(out, timings, 4);
  row(out, "verify", verify_ms);
  if (!ok.ok()) {
    out << "verify error: " << ok.status().to_string() << "\n";
    return 1;
  }
  out << (*ok ? "proof verified: OK" : "proof did NOT verify") << "\n";
  return *ok ? 0 : 1;
}

}  // namespace

int run_demo(const DemoOptions& o, std::ostream& out) {
  out << "snarkd demo: " << curve_name(o.curve) << " Groth16\n";
  return with_engine(o.curve, [&]<class E>() { return demo<E>(o, out); });
}

}  // namespace snarkd::cli
