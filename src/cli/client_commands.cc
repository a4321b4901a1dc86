#include "cli/client_commands.h"

#include "filecoin/c2.h"
#include "filecoin/seal_proof.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "cli/commands.h"
#include "cuzk/v1/proving.grpc.pb.h"
#include "server/client.h"

namespace snarkd::cli {

namespace {

namespace pb = ::snarkd::v1;

int fail(const Status& s, const char* command) {
  std::cerr << "snarkd " << command << ": " << s.message() << "\n";
  return exit_code_for(s);
}

std::unique_ptr<server::Client> connect(const ClientOptions& c) {
  server::ClientOptions o;
  o.call_timeout = std::chrono::seconds(c.call_timeout_s);
  o.long_timeout = std::chrono::seconds(c.wait_timeout_s);
  return server::Client::connect(c.addr, o);
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status(StatusCode::kNotFound, "cannot open '" + path + "'");
  return std::string(std::istreambuf_iterator<char>(f), {});
}

Status write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::trunc);
  f << text << "\n";
  if (!f) return unavailable("cannot write '" + path + "'");
  return Status();
}

const char* state_name(pb::JobState s) {
  switch (s) {
    case pb::JOB_STATE_QUEUED: return "QUEUED";
    case pb::JOB_STATE_RUNNING: return "RUNNING";
    case pb::JOB_STATE_COMPLETED: return "COMPLETED";
    case pb::JOB_STATE_FAILED: return "FAILED";
    case pb::JOB_STATE_CANCELLED: return "CANCELLED";
    default: return "UNKNOWN";
  }
}

pb::Priority priority_of(const std::string& p) {
  if (p == "critical") return pb::PRIORITY_CRITICAL;
  if (p == "high") return pb::PRIORITY_HIGH;
  if (p == "low") return pb::PRIORITY_LOW;
  return pb::PRIORITY_NORMAL;
}

void print_key(const pb::KeyInfo& k, std::ostream& out) {
  static const char* tiers[] = {"cold", "warm", "hot"};
  out << k.key_id() << "  " << tiers[std::clamp(int(k.tier()), 0, 2)] << "  "
      << (k.curve() == pb::CURVE_BN254 ? "bn254" : "bls12-381") << "  " << (k.host_bytes() >> 20) << " MiB  in use "
      << k.in_use() << "  " << k.source() << "\n";
}

}  // namespace

int run_status(const ClientOptions& c, std::ostream& out) {
  auto s = connect(c)->status();
  if (!s.ok()) return fail(s.status(), "status");
  const auto& q = s->queues();
  out << std::fixed << std::setprecision(1) << "snarkd at " << c.addr << ": up " << s->uptime_seconds() << " s, "
      << (s->accepting() ? "accepting" : "draining") << "\n"
      << "partitions: " << q.queued() << " queued, " << q.synthesizing() << " synthesizing, " << q.waiting()
      << " waiting, " << q.proving() << " proving, " << q.finalizing() << " finalizing\n"
      << "jobs: " << q.jobs_queued() << " queued, " << q.jobs_running() << " running, " << s->jobs_completed()
      << " completed, " << s->jobs_failed() << " failed, " << s->jobs_cancelled() << " cancelled\n"
      << "memory: " << (s->memory_used_bytes() >> 20) << " of " << (s->memory_budget_bytes() >> 20) << " MiB budgeted (peak "
      << (s->memory_peak_bytes() >> 20) << "); resident " << (s->rss_bytes() >> 20) << " MiB\n";
  for (const auto& w : s->warnings()) out << "WARNING: " << w << "\n";
  for (const auto& d : s->devices()) {
    out << "device " << d.device() << " (" << d.backend() << "): " << d.busy_slots() << "/" << d.slots()
        << " slots busy, kernel-busy " << 100 * d.kernel_busy_fraction() << "%, slot-held "
        << 100 * d.slot_held_fraction() << "%\n";
  }
  for (const auto& k : s->keys()) print_key(k, out);
  if (!s->backend_note().empty()) out << "note: " << s->backend_note() << "\n";
  return 0;
}

int run_keys(const ClientOptions& c, const std::string& register_source, bool preload, const std::string& evict,
             std::ostream& out) {
  auto client = connect(c);
  if (!register_source.empty()) {
    pb::RegisterKeyRequest req;
    const bool builtin = register_source.rfind("builtin:", 0) == 0;
    req.set_path(builtin ? register_source : std::filesystem::absolute(register_source).string());
    req.set_preload(preload);
    auto k = client->register_key(req);
    if (!k.ok()) return fail(k.status(), "keys");
    print_key(*k, out);
  }
  if (!evict.empty()) {
    auto k = client->evict_key(evict);
    if (!k.ok()) return fail(k.status(), "keys");
  }
  if (register_source.empty()) {
    auto list = client->list_keys();
    if (!list.ok()) return fail(list.status(), "keys");
    for (const auto& k : list->keys()) print_key(k, out);
  }
  return 0;
}

int run_submit(const ClientOptions& c, const SubmitOptions& s, std::ostream& out) {
  pb::SubmitProofRequest req;
  req.set_key_id(s.key);
  req.set_request_id(s.request_id);
  req.set_priority(priority_of(s.priority));
  req.set_partitions(s.partitions);
  req.set_seed(s.seed);
  req.set_timeout_ms(s.timeout_ms);
  if (!s.witness_path.empty()) {
    auto w = read_file(s.witness_path);
    if (!w.ok()) return fail(w.status(), "submit");
    req.set_witness(*w);
  }
  if (!s.porep_c1.empty()) {
    if (s.miner_id.has_value() == !s.prover_id.empty()) {
      return fail(invalid_argument("give exactly one of --miner-id and --prover-id"), "submit");
    }
    filecoin::Bytes32 prover{};
    if (s.miner_id) {
      prover = filecoin::prover_id_from_miner(*s.miner_id);
    } else {
      auto id = filecoin::parse_bytes32(s.prover_id, "--prover-id");
      if (!id.ok()) return fail(id.status(), "submit");
      prover = *id;
    }
    auto c1 = read_file(s.porep_c1);
    if (!c1.ok()) return fail(c1.status(), "submit");
    auto* p = req.mutable_porep();
    p->set_c1(*c1);
    p->set_prover_id(std::string(prover.begin(), prover.end()));
    if (s.sector) {
      p->set_has_sector(true);
      p->set_sector(*s.sector);
    }
    p->set_name(s.porep_c1);
  }
  auto r = connect(c)->submit(req);
  if (!r.ok()) return fail(r.status(), "submit");
  out << r->job_id() << "\n";
  return 0;
}

int run_await(const ClientOptions& c, uint64_t job, uint64_t timeout_ms, const std::string& proof_out,
              const std::string& public_out, const std::string& bytes_out, std::ostream& out) {
  auto r = connect(c)->await(job, timeout_ms);
  if (!r.ok()) return fail(r.status(), "await");
  out << "job " << r->job_id() << " " << state_name(r->state()) << " (" << r->partitions_done() << "/"
      << r->partitions() << " partitions, " << std::fixed << std::setprecision(1) << r->timings().total_ms()
      << " ms)";
  if (!r->error_message().empty()) out << ": " << r->error_message();
  out << "\n";
  if (r->state() != pb::JOB_STATE_COMPLETED) return kExitFailure;
  if (!proof_out.empty() && r->proofs_size() > 0) {
    if (Status st = write_file(proof_out, r->proofs(0).proof_json()); !st.ok()) return fail(st, "await");
  }
  if (!public_out.empty() && r->proofs_size() > 0) {
    if (Status st = write_file(public_out, r->proofs(0).public_json()); !st.ok()) return fail(st, "await");
  }
  if (!bytes_out.empty()) {
    std::string all;
    for (const auto& p : r->proofs()) all += p.proof();
    if (Status st = write_file(bytes_out, all); !st.ok()) return fail(st, "await");
  }
  return 0;
}

int run_cancel(const ClientOptions& c, uint64_t job, std::ostream& out) {
  auto r = connect(c)->cancel(job);
  if (!r.ok()) return fail(r.status(), "cancel");
  out << "job " << job << " " << state_name(r->state()) << "\n";
  return 0;
}

int run_remote_prove(const ClientOptions& c, const std::string& zkey, const std::string& witness,
                     const std::string& proof_out, const std::string& public_out) {
  auto client = connect(c);
  pb::RegisterKeyRequest reg;
  reg.set_path(std::filesystem::absolute(zkey).string());
  auto key = client->register_key(reg);
  if (!key.ok() && (key.status().code() == StatusCode::kNotFound ||
                    key.status().code() == StatusCode::kPermissionDenied)) {
    // The daemon cannot see our file, or does not register paths from clients: upload it.
    auto bytes = read_file(zkey);
    if (!bytes.ok()) return fail(bytes.status(), "prove");
    reg.set_zkey_bytes(*bytes);
    key = client->register_key(reg);
  }
  if (!key.ok()) return fail(key.status(), "prove");
  auto w = read_file(witness);
  if (!w.ok()) return fail(w.status(), "prove");
  pb::SubmitProofRequest req;
  req.set_key_id(key->key_id());
  req.set_witness(*w);
  auto r = client->prove(req);
  if (!r.ok()) return fail(r.status(), "prove");
  if (r->state() != pb::JOB_STATE_COMPLETED) {
    return fail(Status(StatusCode(r->error_code()), r->error_message()), "prove");
  }
  if (Status st = write_file(proof_out, r->proofs(0).proof_json()); !st.ok()) return fail(st, "prove");
  if (Status st = write_file(public_out, r->proofs(0).public_json()); !st.ok()) return fail(st, "prove");
  return 0;
}

// The daemon's own utilization report (snarkd.v1 GetStatus): kernel-busy and slot-held shares of
// each device since the daemon started.
void print_utilization(server::Client& client, std::ostream& out) {
  auto s = client.status();
  if (!s.ok()) {
    out << "utilization: " << s.status().message() << "\n";
    return;
  }
  for (const auto& d : s->devices()) {
    out << std::fixed << std::setprecision(1) << "device " << d.device() << " (" << d.backend() << ", " << d.slots()
        << " slots): kernel-busy " << 100.0 * d.kernel_busy_fraction() << "% of the daemon's uptime ("
        << d.kernel_busy_seconds() << " s), slot-held " << 100.0 * d.slot_held_fraction() << "%\n";
  }
}

// cuzk.v1, as cuzk-bench drives cuzk: N Prove calls, J at a time, each with its own request id.
int run_bench_cuzk(const ClientOptions& c, const BenchDaemonOptions& b, std::ostream& out) {
  namespace cz = ::cuzk::v1;
  auto c1 = read_file(b.c1);
  if (!c1.ok()) return fail(c1.status(), "bench daemon");
  // The registered proof, as Curio sends it with the C1 (the daemon picks the key by it).
  auto input = filecoin::read_c2_input(std::span(reinterpret_cast<const uint8_t*>(c1->data()), c1->size()), nullptr,
                                       b.c1);
  if (!input.ok()) return fail(input.status(), "bench daemon");
  const filecoin::SealProof& proof = *input->c1.registered_proof;
  grpc::ChannelArguments args;
  args.SetMaxSendMessageSize(256 << 20);  // Curio's limits
  args.SetMaxReceiveMessageSize(256 << 20);
  auto channel = grpc::CreateCustomChannel(c.addr, grpc::InsecureChannelCredentials(), args);
  auto stub = cz::ProvingEngine::NewStub(channel);
  out << "snarkd bench daemon --api cuzk: " << c.addr << ", " << b.c1 << " (" << proof.name << ", miner " << b.miner_id << ", sector "
      << b.sector << "), " << b.proofs << " proofs, " << b.concurrency << " in flight\n";
  std::atomic<unsigned> next{0};
  std::mutex mu;
  unsigned finished = 0, failed = 0;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < std::max(1u, b.concurrency); ++t) {
    threads.emplace_back([&] {
      for (unsigned i = next++; i < b.proofs; i = next++) {
        cz::ProveRequest req;
        auto* s = req.mutable_submit();
        s->set_request_id("bench-" + std::to_string(b.miner_id) + "-" + std::to_string(b.sector) + "-" +
                          std::to_string(i) + "-" + std::to_string(t0.time_since_epoch().count()));
        s->set_proof_kind(cz::POREP_SEAL_COMMIT);
        s->set_priority(cz::NORMAL);
        s->set_vanilla_proof(*c1);
        s->set_miner_id(b.miner_id);
        s->set_sector_number(b.sector);
        s->set_sector_size(proof.sector_size);
        s->set_registered_proof(proof.id);
        grpc::ClientContext ctx;
        ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(c.wait_timeout_s));
        cz::ProveResponse resp;
        const auto st = std::chrono::steady_clock::now();
        grpc::Status rpc = stub->Prove(&ctx, req, &resp);
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - st).count();
        std::lock_guard lock(mu);
        ++finished;
        const auto& r = resp.result();
        out << std::fixed << std::setprecision(1) << "[" << finished << "/" << b.proofs << "] ";
        if (!rpc.ok() || r.status() != cz::AwaitProofResponse::COMPLETED) {
          ++failed;
          out << "FAILED — " << wall << "s: " << (rpc.ok() ? r.error_message() : rpc.error_message()) << "\n";
        } else {
          out << "COMPLETED — " << wall << "s (prove=" << r.gpu_compute_ms() / 1000.0 << "s, queue="
              << r.queue_wait_ms() / 1000.0 << "s, synthesis=" << r.synthesis_ms() / 1000.0 << "s, "
              << r.proof().size() << " bytes)\n";
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const unsigned ok = b.proofs - failed;
  out << std::fixed << std::setprecision(3) << ok << "/" << b.proofs << " proofs in " << wall_s << " s: "
      << (ok ? wall_s / ok : 0) << " s/proof, " << std::setprecision(2) << 60.0 * ok / wall_s << " proofs/min\n";
  if (auto client = connect(c)) print_utilization(*client, out);
  return failed ? kExitFailure : 0;
}

int run_bench_daemon(const ClientOptions& c, const BenchDaemonOptions& b, std::ostream& out) {
  if (b.api == "cuzk") {
    if (b.c1.empty()) return fail(invalid_argument("--api cuzk needs --c1 (a C1 JSON or Curio's wrapper)"), "bench daemon");
    return run_bench_cuzk(c, b, out);
  }
  if (b.api != "snarkd") return fail(invalid_argument("--api must be snarkd or cuzk, got '" + b.api + "'"), "bench daemon");
  auto client = connect(c);
  pb::RegisterKeyRequest reg;
  reg.set_path(b.key);
  reg.set_preload(true);
  auto key = client->register_key(reg);
  if (!key.ok()) return fail(key.status(), "bench daemon");
  out << "snarkd bench daemon: " << c.addr << ", key " << key->key_id() << " (" << b.key << "), " << b.proofs
      << " proofs, " << b.concurrency << " in flight, " << b.partitions << " partitions each\n";
  std::atomic<unsigned> next{0};
  std::mutex mu;
  unsigned finished = 0, failed = 0;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < std::max(1u, b.concurrency); ++t) {
    threads.emplace_back([&] {
      auto mine = connect(c);
      for (unsigned i = next++; i < b.proofs; i = next++) {
        pb::SubmitProofRequest req;
        req.set_key_id(key->key_id());
        req.set_partitions(b.partitions);
        req.set_seed(i + 1);
        const auto s = std::chrono::steady_clock::now();
        auto r = mine->prove(req);
        const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count();
        std::lock_guard lock(mu);
        ++finished;
        out << std::fixed << std::setprecision(1) << "[" << finished << "/" << b.proofs << "] ";
        if (!r.ok() || r->state() != pb::JOB_STATE_COMPLETED) {
          ++failed;
          out << "FAILED " << wall << " ms: " << (r.ok() ? r->error_message() : r.status().message()) << "\n";
        } else {
          out << "COMPLETED " << wall << " ms (prove=" << r->timings().slot_held_ms()
              << " ms, queue=" << r->timings().queue_ms() << " ms, kernel-busy=" << r->timings().kernel_busy_ms()
              << " ms)\n";
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const unsigned ok = b.proofs - failed;
  out << std::fixed << std::setprecision(3) << ok << "/" << b.proofs << " proofs in " << wall_s << " s: "
      << (ok ? wall_s / ok : 0) << " s/proof, " << std::setprecision(2) << 60.0 * ok / wall_s << " proofs/min\n";
  print_utilization(*client, out);
  return failed ? kExitFailure : 0;
}

}  // namespace snarkd::cli
