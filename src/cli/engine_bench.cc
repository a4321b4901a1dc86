#include "cli/engine_bench.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "base/process_memory.h"
#include "filecoin/c1.h"
#include "filecoin/c1_synth.h"
#include "filecoin/seal_proof.h"

namespace snarkd::cli {

namespace {

using Clock = std::chrono::steady_clock;

void progress_bar(unsigned done, unsigned total) {
  constexpr int kWidth = 30;
  const int filled = total ? int(kWidth * done / total) : kWidth;
  std::cerr << "\r[" << std::string(size_t(filled), '#') << std::string(size_t(kWidth - filled), ' ') << "] "
            << done << "/" << total << std::flush;
  if (done == total) std::cerr << "\n";
}

}  // namespace

int run_bench_engine(const BenchEngineOptions& o, std::ostream& out) {
  engine::EngineOptions eo;
  eo.backend = o.backend;
  eo.gpu_slots = o.slots;
  eo.cpu_workers = o.cpu_workers;
  eo.synthesis_workers = o.synthesis_workers;
  eo.verify_proofs = o.verify;
  eo.prove_queue_depth = std::max(4u, 2 * o.slots);
  eo.gpu_device_memory_limit = o.gpu_memory_limit;
  const bool porep = !o.porep_size.empty();
  // PoRep: one synthesized C1 per proof, made before the clock starts.
  std::vector<std::string> c1s;
  const filecoin::Bytes32 prover = filecoin::prover_id_from_miner(1000);
  if (porep) {
    auto proof = filecoin::default_seal_proof_for_size(o.porep_size);
    if (!proof.ok()) {
      out << "snarkd bench porep: --sector-size: " << proof.status().message() << "\n";
      return 2;
    }
    const auto s0 = Clock::now();
    filecoin::Bytes32 ticket, seed;
    ticket.fill(1);
    seed.fill(2);
    for (unsigned i = 0; i < o.proofs; ++i) {
      auto c1 = filecoin::synthesize_c1(**proof, prover, i + 1, ticket, seed);
      if (!c1.ok()) {
        out << "snarkd bench porep: c1-synth: " << c1.status().message() << "\n";
        return 1;
      }
      c1s.push_back(filecoin::write_c1_json(*c1));
    }
    out << o.proofs << " C1 outputs of " << (*proof)->name << " synthesized (miner 1000, sectors 1.." << o.proofs
        << ") in " << std::fixed << std::setprecision(0)
        << std::chrono::duration<double, std::milli>(Clock::now() - s0).count() << " ms\n";
  }
  if (o.devices > 0) {
    eo.cpu_devices = o.devices;
    for (unsigned d = 0; d < o.devices; ++d) eo.gpus.push_back(int(d));
  }
  auto made = engine::Engine::create(eo);
  if (!made.ok()) {
    out << "snarkd bench engine: " << made.status().message() << "\n";
    return 1;
  }
  auto& e = **made;
  const std::string source =
      porep ? (o.key_source.empty() ? "builtin:synthetic:divide-by-z:porep:" + o.porep_size : o.key_source)
            : "builtin:chain:" + std::string(ec::curve_snarkjs_name(o.curve)) + ":" + std::to_string(o.log_size) +
                  ":" + std::to_string(o.boolean_percent);
  auto key = e.register_key(source);
  if (!key.ok()) {
    out << "snarkd bench engine: " << key.status().message() << "\n";
    return 1;
  }
  const auto status0 = e.status();
  if (porep) {
    out << "snarkd bench porep: " << o.porep_size << " sectors, key " << source
        << (key->verifiable ? "" : " (synthetic: random points, the proofs cannot verify)") << ", " << o.proofs
        << " proofs, " << o.concurrency << " in flight\n";
  } else {
    out << "snarkd bench engine: " << curve_name(o.curve) << ", " << ((uint64_t(1) << o.log_size) - 8)
        << " constraints per partition (" << o.boolean_percent << "% boolean), " << o.partitions
        << " partitions per proof, " << o.proofs << " proofs, " << o.concurrency << " in flight\n";
  }
  out
      << "backend: " << status0.devices.front().backend << " x " << status0.devices.size() << " devices, "
      << status0.devices.front().slots << " slots each" << (e.backend_note().empty() ? "" : " (" + e.backend_note() + ")")
      << "; " << o.synthesis_workers << " synthesis workers; memory budget " << (status0.memory_budget >> 20) << " MiB\n";
  const auto l0 = Clock::now();
  if (Status st = e.preload_key(key->id); !st.ok()) {
    out << "snarkd bench engine: " << st.message() << "\n";
    return 1;
  }
  const auto loaded = e.key(key->id);
  const size_t load_peak = peak_rss_bytes();
  out << "key " << key->id << " loaded in " << std::fixed << std::setprecision(0)
      << std::chrono::duration<double, std::milli>(Clock::now() - l0).count() << " ms"
      << (porep ? "" : " (setup of the built-in circuit)") << "; host keeps "
      << ((loaded.ok() ? loaded->host_bytes : 0) >> 20) << " MiB of it; RSS " << (rss_bytes() >> 20)
      << " MiB now, " << (load_peak >> 20) << " MiB at the load's peak\n";
  if (loaded.ok() && !loaded->load_note.empty()) out << "key load: " << loaded->load_note << "\n";
  // The proving phase's own peak from here (the load's is above).
  const bool peak_reset = reset_peak_rss();

  const bool tty = ::isatty(STDERR_FILENO);
  std::atomic<unsigned> next{0};
  std::mutex mu;
  unsigned finished = 0, failed = 0;
  std::vector<double> walls;
  const auto t0 = Clock::now();
  std::vector<std::thread> clients;
  for (unsigned c = 0; c < std::max(1u, o.concurrency); ++c) {
    clients.emplace_back([&] {
      for (unsigned i = next++; i < o.proofs; i = next++) {
        engine::ProofRequest r;
        r.key_id = key->id;
        r.partitions = o.partitions;
        r.seed = i + 1;
        if (porep) {
          engine::PorepRequest p;
          p.c1 = c1s[i];
          p.c1_name = "c1 of sector " + std::to_string(i + 1);
          p.prover_id = prover;
          p.sector = i + 1;
          r.porep = std::move(p);
        }
        const auto s = Clock::now();
        auto id = e.submit(r);
        Result<engine::JobResult> res = id.ok() ? e.await(*id, std::chrono::hours(24)) : Result<engine::JobResult>(id.status());
        const double wall = std::chrono::duration<double, std::milli>(Clock::now() - s).count();
        std::lock_guard lock(mu);
        ++finished;
        std::ostringstream line;
        line << std::fixed << std::setprecision(1);
        if (!res.ok() || res->state != engine::JobState::kCompleted) {
          ++failed;
          line << "[" << finished << "/" << o.proofs << "] FAILED " << wall << " ms: "
               << (res.ok() ? res->error.to_string() : res.status().to_string()) << "\n";
        } else {
          walls.push_back(wall);
          // prove: slot time summed over partitions; queue: submit to the first synthesis;
          // waits: synthesized partitions waiting for a slot, summed.
          const auto& t = res->timings;
          if (porep) {  // cuzk-bench's line
            line << "[" << finished << "/" << o.proofs << "] COMPLETED — " << std::setprecision(2) << wall / 1000
                 << "s (prove=" << t.slot_held_ms / 1000 << "s, queue=" << (t.queue_ms + t.wait_ms) / 1000
                 << "s, kernel-busy=" << t.kernel_busy_ms / 1000 << "s, synthesis=" << t.synthesis_ms / 1000
                 << "s, " << res->proofs.size() << " partitions)\n";
          } else {
            line << "[" << finished << "/" << o.proofs << "] COMPLETED " << wall << " ms (prove=" << t.slot_held_ms
                 << " ms, queue=" << t.queue_ms << " ms, synthesis=" << t.synthesis_ms << " ms, waits="
                 << t.wait_ms << " ms, kernel-busy=" << t.kernel_busy_ms << " ms)\n";
          }
        }
        if (tty) std::cerr << "\r\33[2K";
        out << line.str() << std::flush;
        if (tty) progress_bar(finished, o.proofs);
      }
    });
  }
  for (auto& t : clients) t.join();
  const double wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  const unsigned ok = o.proofs - failed;
  out << std::fixed << std::setprecision(3) << "\n"
      << ok << "/" << o.proofs << " proofs completed in " << wall_s << " s: " << (ok ? wall_s / ok : 0) << " s/proof, "
      << std::setprecision(2) << (wall_s > 0 ? 60.0 * ok / wall_s : 0) << " proofs/min, "
      << (porep ? 3600.0 * ok / std::max(wall_s, 1e-9) : (wall_s > 0 ? double(ok) * o.partitions / wall_s : 0))
      << (porep ? " proofs/hour" : " partitions/s") << "; peak RSS "
      << (peak_rss_bytes() >> 20) << " MiB" << (peak_reset ? " while proving (the key load's above)" : "")
      << "; memory budget peak " << (e.memory().peak() >> 20) << " MiB"
      << (o.verify && key->verifiable ? "; every partition proof verified by the engine" : "") << "\n";
  const auto events = e.timeline().snapshot();
  out << engine::format_report(engine::summarize_timeline(events));
  if (!o.timeline.empty()) {
    Status a = e.timeline().write_jsonl(o.timeline);
    Status b = e.timeline().write_chrome_trace(o.timeline + ".trace.json");
    if (!a.ok() || !b.ok()) {
      out << "timeline: " << (a.ok() ? b : a).message() << "\n";
      return 1;
    }
    out << "timeline: " << o.timeline << " (JSON lines), " << o.timeline
        << ".trace.json (open in https://ui.perfetto.dev or chrome://tracing)\n";
  }
  e.shutdown(std::chrono::seconds(10));
  return failed ? 1 : 0;
}

int run_timeline(const std::string& path, std::ostream& out) {
  auto events = engine::read_timeline_jsonl(path);
  if (!events.ok()) {
    std::cerr << "snarkd timeline: " << events.status().message() << "\n";
    return 2;
  }
  out << engine::format_report(engine::summarize_timeline(*events));
  return 0;
}

}  // namespace snarkd::cli
