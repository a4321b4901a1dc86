#include "cli/bench.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <iomanip>
#include <mutex>
#include <thread>

#include "base/process_memory.h"
#include "base/random.h"
#include "base/thread_pool.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "groth16/synthetic_key.h"
#include "groth16/verifier.h"
#include "circuits/chain/chain.h"
#include "circuits/partition/partition.h"

namespace snarkd::cli {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct RunResult {
  double wall_ms = 0;
  std::vector<groth16::StageTimings> timings;
  size_t verified = 0, failed = 0;
};

// `slots` threads each make `proofs` proofs back to back on one backend.
template <class E>
Result<RunResult> run_proofs(groth16::Backend<E>& backend, const groth16::ProvingKey<E>& pk,
                             const std::vector<groth16::Fr<E>>& witness, unsigned slots,
                             unsigned proofs, bool verify) {
  using F = groth16::Fr<E>;
  RunResult r;
  std::mutex mu;
  Status error;
  std::vector<groth16::Proof<E>> made;
  auto t0 = Clock::now();
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < slots; ++t) {
    threads.emplace_back([&] {
      OsRandom rng;
      for (unsigned i = 0; i < proofs; ++i) {
        groth16::StageTimings timings;
        auto proof = groth16::prove<E>(pk, witness, backend, rng, &timings);
        std::lock_guard lock(mu);
        if (!proof.ok()) {
          error = proof.status();
          return;
        }
        r.timings.push_back(std::move(timings));
        made.push_back(*proof);
      }
    });
  }
  for (auto& th : threads) th.join();
  r.wall_ms = ms_since(t0);
  if (!error.ok()) return error;
  if (verify) {
    auto publics = std::span<const F>(witness).subspan(1, pk.num_public);
    for (const auto& p : made) {
      auto ok = groth16::verify<E>(pk.vk, publics, p);
      (ok.ok() && *ok ? r.verified : r.failed)++;
    }
  }
  return r;
}

template <class E>
int bench_prove(const BenchProveOptions& o, std::ostream& out) {
  using F = groth16::Fr<E>;
  out << "snarkd bench prove: " << curve_name(o.curve) << ", H convention "
      << poly::quotient_convention_name(o.convention) << ", " << o.proofs
      << " proofs per slot count\n";
  std::string note;
  gpu_prover::GpuBackendOptions gopt;
  gopt.slots = *std::max_element(o.slot_counts.begin(), o.slot_counts.end());
  gopt.evaluate_on_device = !o.cpu_evaluate;
  gopt.base_copies = o.base_copies;
  gopt.key_memory_limit = o.key_memory_limit;
  auto backend = make_backend<E>(o.backend, gopt, &note);
  if (!backend.ok()) {
    out << "backend: " << backend.status().message() << "\n";
    return 1;
  }
  out << "backend: " << (*backend)->name() << (note.empty() ? "" : " (" + note + ")") << ", "
      << ThreadPool::global().size() << " host threads\n";
  OsRandom rng;
  int status = 0;
  for (unsigned log_n : o.log_sizes) {
    for (unsigned bp : o.boolean_percents) {
      // The chain adds its public inputs and snarkjs's public rows: keep the rows within 2^k.
      const uint64_t constraints = o.constraints ? o.constraints : (uint64_t(1) << log_n) - 8;
      auto t0 = Clock::now();
      const bool partition = o.shape == CircuitShape::kPartition;
      auto [cs, witness] = partition ? circuits::build_partition<F>({constraints, o.b_percent, bp, 1})
                                     : circuits::build_chain<F>({constraints, bp, 1});
      double synth_ms = ms_since(t0);
      const bool real = o.key == KeyKind::kSetup || (o.key == KeyKind::kAuto && log_n <= o.setup_limit_log);
      const uint64_t num_constraints = cs.num_constraints();
      const uint32_t num_variables = cs.num_variables;
      t0 = Clock::now();
      // A synthetic key takes over the system's matrices: at 2^27 a copy would not fit in RAM.
      auto pk = real ? groth16::setup<E>(cs, o.convention, rng)
                     : groth16::synthetic_key<E>(std::move(cs), o.convention, rng);
      if (!pk.ok()) {
        out << "key: " << pk.status().message() << "\n";
        return 1;
      }
      double key_ms = ms_since(t0);
      out << "\n== 2^" << pk->log_domain_size << " domain, "
          << (partition ? "partition shape (" + std::to_string(o.b_percent) + "% of variables in B), "
                        : std::string("chain, "))
          << num_constraints << " constraints, " << bp << "% boolean, " << num_variables
          << " variables; "
          << (real ? "setup key" : "synthetic key (proofs not verifiable)") << "\n"
          << "   synthesis " << std::fixed << std::setprecision(0) << synth_ms << " ms, key "
          << key_ms << " ms; key in host memory " << (groth16::key_host_bytes(*pk) >> 20) << " MiB ("
          << pk->b_variables.size() << " of " << pk->num_variables << " variables in B)\n";
      // Warm-up, outside the measured runs: the key goes resident, and one proof per slot at once
      // sizes every slot (a slot's arena and pinned staging are allocated on its first proof; one
      // warm-up proof used to leave the second slot to be sized inside the two-slot run).
      auto warm = run_proofs<E>(**backend, *pk, witness, gopt.slots, 1, real);
      if (!warm.ok()) {
        out << "prove: " << warm.status().message() << "\n";
        return 1;
      }
      double upload_ms = 0;
      uint32_t copies = 0;
      bool streamed = false;
      for (const auto& t : warm->timings) {
        upload_ms = std::max(upload_ms, t.key_upload_ms);
        copies = std::max(copies, t.key_base_copies);
        streamed = streamed || t.key_streamed;
      }
      out << "   warm-up: " << warm->timings.size() << " proof"
          << (warm->timings.size() > 1 ? "s" : "") << " at once, " << std::setprecision(1)
          << warm->wall_ms << " ms (key upload " << upload_ms << " ms"
          << (copies ? ", " + std::to_string(copies) + " base copies on the device" : std::string())
          << (streamed ? ", points streamed from host memory" : "") << ")\n";
      if (real && warm->failed) status = 1;
      for (unsigned slots : o.slot_counts) {
        auto r = run_proofs<E>(**backend, *pk, witness, slots, o.proofs, real);
        if (!r.ok()) {
          out << "prove: " << r.status().message() << "\n";
          return 1;
        }
        std::vector<groth16::DeviceInterval> all;
        std::vector<double> held, busy;
        for (const auto& t : r->timings) {
          all.insert(all.end(), t.device.begin(), t.device.end());
          held.push_back(t.slot_held_ms);
          busy.push_back(t.kernel_busy_ms());
        }
        const size_t count = r->timings.size();
        out << "   " << slots << " slot" << (slots > 1 ? "s" : " ") << ": " << count << " proofs in "
            << std::setprecision(1) << r->wall_ms << " ms = " << std::setprecision(3)
            << 1000.0 * double(count) / r->wall_ms << " proofs/s, " << std::setprecision(1)
            << r->wall_ms / double(count) << " ms/proof";
        if (!all.empty()) {
          const double union_busy = groth16::union_ms(all);
          out << "; kernel-busy " << union_busy << " ms = " << 100.0 * union_busy / r->wall_ms
              << "% of wall; per proof: kernel-busy " << median(busy) << " ms, slot held "
              << median(held) << " ms";
        }
        if (real) out << "; verified " << r->verified << "/" << count;
        out << "\n";
        if (real && r->failed) status = 1;
        if (slots == o.slot_counts.front()) {
          out << "   stages of the last proof:\n";
          print_stage_timings(out, r->timings.back(), 5);
        }
      }
      out << "   peak RSS of the process so far " << (peak_rss_bytes() >> 20) << " MiB\n";
    }
  }
  return status;
}

}  // namespace

int run_bench_prove(const BenchProveOptions& o, std::ostream& out) {
  return with_engine(o.curve, [&]<class E>() { return bench_prove<E>(o, out); });
}

}  // namespace snarkd::cli
