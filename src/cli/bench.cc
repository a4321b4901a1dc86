#include "cli/bench.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <set>

#include "base/process_memory.h"
#include "base/thread_pool.h"
#include "cli/local_engine.h"
#include "engine/engine.h"
#include "registry/registry.h"

namespace snarkd::cli {

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The built-in circuit spec of one benchmark point (circuits registry syntax).
std::string circuit_spec(const BenchProveOptions& o, uint64_t constraints, unsigned boolean_percent) {
  const std::string curve = o.curve == Curve::kBn254 ? "bn128" : "bls12-381";
  if (o.shape == CircuitShape::kPartition) {
    return "partition:" + curve + ":" + std::to_string(constraints) + ":" + std::to_string(o.b_percent) + ":" +
           std::to_string(boolean_percent);
  }
  return "chain:" + curve + ":rows=" + std::to_string(constraints) + ":" + std::to_string(boolean_percent);
}

engine::BackendKind engine_backend(BackendChoice b) {
  return b == BackendChoice::kCpu   ? engine::BackendKind::kCpu
         : b == BackendChoice::kGpu ? engine::BackendKind::kGpu
                                    : engine::BackendKind::kAuto;
}

// One job of `partitions` proofs, run to its end; the error says what failed.
Result<engine::JobResult> run_job(engine::Engine& e, const std::string& key, uint32_t partitions, uint64_t seed) {
  engine::ProofRequest r;
  r.key_id = key;
  r.partitions = partitions;
  r.seed = seed;
  ASSIGN_OR_RETURN(const uint64_t id, e.submit(std::move(r)));
  ASSIGN_OR_RETURN(engine::JobResult done, e.await(id, std::chrono::hours(24)));
  if (done.state != engine::JobState::kCompleted) {
    return done.error.ok() ? internal_error(std::string("job ") + engine::job_state_name(done.state)) : done.error;
  }
  return done;
}

// The device kernel intervals of one partition, from the engine's timeline.
void print_kernels(std::ostream& out, const engine::Engine& e, uint64_t job, uint32_t partition) {
  std::vector<engine::TimelineEvent> kernels;
  for (auto& ev : e.timeline().snapshot()) {
    if (ev.job == job && ev.partition == int32_t(partition) && ev.stage.rfind("kernel.", 0) == 0) {
      kernels.push_back(std::move(ev));
    }
  }
  if (kernels.empty()) return;
  std::sort(kernels.begin(), kernels.end(), [](const auto& a, const auto& b) { return a.t_ns < b.t_ns; });
  out << "     device kernel intervals (CUDA events on the slot's stream):\n";
  const int64_t origin = kernels.front().t_ns;
  for (const auto& k : kernels) {
    out << "       " << std::left << std::setw(16) << k.stage.substr(7) << std::right << std::fixed
        << std::setprecision(2) << std::setw(11) << double(k.dur_ns) / 1e6 << " ms   at +"
        << double(k.t_ns - origin) / 1e6 << "\n";
  }
}

}  // namespace

int run_bench_prove(const BenchProveOptions& o, std::ostream& out) {
  const unsigned max_slots = *std::max_element(o.slot_counts.begin(), o.slot_counts.end());
  engine::EngineOptions eo;
  eo.backend = engine_backend(o.backend);
  eo.gpu_slots = max_slots;
  eo.cpu_workers = max_slots;
  eo.gpu_evaluate_on_device = !o.cpu_evaluate;
  eo.gpu_base_copies = o.base_copies;
  eo.gpu_key_memory_limit = o.key_memory_limit;
  // Witnesses are made per partition (as in the daemon), each on one thread: enough synthesis
  // workers that a slot does not wait for one (the memory budget bounds how many are held).
  eo.synthesis_workers = std::max(4u, 4 * max_slots);
  eo.prove_queue_depth = 2 * max_slots;
  eo.reserve_critical = false;
  eo.critical_reserve = 1;  // no CRITICAL work here: the whole budget serves the benchmark
  eo.max_retries = 0;
  eo.verify_proofs = true;  // a synthetic key's proofs are not checked (they cannot verify)
  auto made = engine::Engine::create(eo);
  if (!made.ok()) {
    out << "backend: " << made.status().message() << "\n";
    return 1;
  }
  engine::Engine& e = **made;
  const auto status0 = e.status();
  out << "snarkd bench prove: " << (o.circuit.empty() ? curve_name(o.curve) : "circuit " + o.circuit) << ", H convention "
      << poly::quotient_convention_name(o.convention) << ", " << o.proofs << " proofs per slot, through the engine\n"
      << "backend: " << status0.devices.front().backend << " x " << status0.devices.size() << " device"
      << (status0.devices.size() > 1 ? "s" : "") << (e.backend_note().empty() ? "" : " (" + e.backend_note() + ")")
      << ", " << max_slots << (max_slots > 1 ? " slots, " : " slot, ") << eo.synthesis_workers << " synthesis workers, "
      << ThreadPool::global().size() << " host threads; memory budget " << (status0.memory_budget >> 20) << " MiB\n";
  int status = 0;
  uint64_t seed = 1;
  // One point per (log size, boolean share), or the one --circuit.
  struct Point {
    std::string spec;
    unsigned log_n;
  };
  std::vector<Point> points;
  if (!o.circuit.empty()) {
    auto c = registry::parse_circuit(o.circuit);
    if (!c.ok()) {
      out << "circuit: " << c.status().message() << "\n";
      return 2;
    }
    unsigned log_n = 0;
    while ((uint64_t(1) << log_n) < (*c)->approximate_constraints() + 8) ++log_n;
    points.push_back({(*c)->spec(), log_n});
  } else {
    for (unsigned log_n : o.log_sizes) {
      for (unsigned bp : o.boolean_percents) {
        // The chain adds its public inputs and snarkjs's public rows: keep the rows within 2^k.
        const uint64_t constraints = o.constraints ? o.constraints : (uint64_t(1) << log_n) - 8;
        points.push_back({circuit_spec(o, constraints, bp), log_n});
      }
    }
  }
  {
    for (const Point& point : points) {
      const unsigned log_n = point.log_n;
      const bool real = o.key == KeyKind::kSetup || (o.key == KeyKind::kAuto && log_n <= o.setup_limit_log);
      const std::string source = std::string("builtin:") + (real ? "" : "synthetic:") +
                                 (o.convention == poly::QuotientConvention::kDivideByZ ? "divide-by-z:" : "") +
                                 point.spec;
      auto key = e.register_key(source);
      if (!key.ok()) {
        out << "key: " << key.status().message() << "\n";
        return 1;
      }
      auto t0 = Clock::now();
      if (Status st = e.preload_key(key->id); !st.ok()) {
        out << "key: " << st.message() << "\n";
        return 1;
      }
      const double key_ms = ms_since(t0);
      const engine::KeyInfo info = *e.key(key->id);
      out << "\n== 2^" << info.log_domain_size << " domain, " << info.source << ": " << info.num_variables
          << " variables, " << info.num_public << " public inputs; "
          << (real ? "setup key" : "synthetic key (random points: proofs not verifiable)") << "\n"
          << "   key (circuit and " << (real ? "setup" : "points") << ") " << std::fixed << std::setprecision(0)
          << key_ms << " ms; key in host memory " << (info.host_bytes >> 20) << " MiB\n";
      // Warm-up, outside the measured runs: the key goes resident, and one proof per slot at once
      // sizes every slot (a slot's arena and pinned staging are allocated on its first proof).
      (void)e.set_active_slots(max_slots);
      t0 = Clock::now();
      auto warm = run_job(e, key->id, max_slots, seed++);
      if (!warm.ok()) {
        out << "prove: " << warm.status().message() << "\n";
        return 1;
      }
      double upload_ms = 0;
      for (const auto& p : warm->proofs) upload_ms = std::max(upload_ms, p.stages.key_upload_ms);
      out << "   warm-up: " << max_slots << " proof" << (max_slots > 1 ? "s" : "") << " at once, "
          << std::setprecision(1) << ms_since(t0) << " ms (key upload " << upload_ms << " ms)\n";
      for (unsigned slots : o.slot_counts) {
        if (Status st = e.set_active_slots(slots); !st.ok()) {
          out << "slots: " << st.message() << "\n";
          return 1;
        }
        const int64_t from_ns = e.timeline().now_ns();
        t0 = Clock::now();
        auto r = run_job(e, key->id, slots * o.proofs, seed++);
        const double wall_ms = ms_since(t0);
        if (!r.ok()) {
          out << "prove: " << r.status().message() << "\n";
          status = 1;
          continue;
        }
        std::vector<engine::TimelineEvent> events;
        for (auto& ev : e.timeline().snapshot()) {
          if (ev.t_ns >= from_ns && ev.job == r->job_id) events.push_back(std::move(ev));
        }
        const auto report = engine::summarize_timeline(events);
        std::vector<double> held, busy;
        for (const auto& p : r->proofs) {
          held.push_back(p.stages.slot_held_ms);
          busy.push_back(p.stages.kernel_busy_ms);
        }
        const size_t count = r->proofs.size();
        out << "   " << slots << " slot" << (slots > 1 ? "s" : " ") << ": " << count << " proofs in "
            << std::setprecision(1) << wall_ms << " ms = " << std::setprecision(3) << 1000.0 * double(count) / wall_ms
            << " proofs/s, " << std::setprecision(1) << wall_ms / double(count) << " ms/proof";
        double union_busy = 0, window_ms = 0;
        for (const auto& d : report.devices) {
          union_busy += d.kernel_busy_ms;
          window_ms = std::max(window_ms, d.wall_ms);
        }
        if (union_busy > 0) {
          out << "; kernel-busy " << union_busy << " ms = " << 100.0 * union_busy / wall_ms
              << "% of wall; per proof: kernel-busy " << median(busy) << " ms";
        }
        out << ", slot held " << median(held) << " ms; synthesis " << r->timings.synthesis_ms / double(count)
            << " ms/proof";
        if (real) out << "; verified " << count << "/" << count;
        out << "\n";
        // The wall above includes filling the pipeline (the first witnesses); the device's window
        // runs from its first slot taking work to its last letting go.
        if (window_ms > 0) {
          out << "     device window " << window_ms << " ms = " << std::setprecision(3) << 1000.0 * double(count) / window_ms
              << " proofs/s" << std::setprecision(1);
          if (union_busy > 0) out << "; kernel-busy " << 100.0 * union_busy / window_ms << "% of the window";
          out << "\n";
        }
        for (const auto& d : report.devices) {
          if (d.idle_ms > 0.05 * wall_ms && !d.gaps.empty()) {
            out << "     device " << d.device << " idle " << d.idle_ms << " ms (longest gap " << d.gaps.front().ms
                << " ms, waiting for " << d.gaps.front().waiting_for << ")\n";
          }
        }
        if (slots == o.slot_counts.front()) {
          print_proof_stages(out, r->proofs.back(), -1, 3);
          print_kernels(out, e, r->job_id, uint32_t(count - 1));
        }
      }
      out << "   peak RSS of the process so far " << (peak_rss_bytes() >> 20) << " MiB\n";
      // The next size gets the memory (host and device).
      (void)e.evict_key(key->id);
    }
  }
  e.shutdown(0ms);
  return status;
}

}  // namespace snarkd::cli
