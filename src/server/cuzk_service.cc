#include "server/cuzk_service.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <utility>

#include "cuzk/v1/proving.grpc.pb.h"
#include "filecoin/seal_proof.h"
#include "gpu/probe.h"

namespace snarkd::server {

namespace {

namespace pb = ::cuzk::v1;
using namespace std::chrono_literals;

struct PorepSize {
  const char* size_name;
  const char* circuit_id;
  uint64_t bytes;
};
constexpr std::array<PorepSize, 5> kPorepSizes{{{"2KiB", "porep-2k", uint64_t(2) << 10},
                                                {"8MiB", "porep-8m", uint64_t(8) << 20},
                                                {"512MiB", "porep-512m", uint64_t(512) << 20},
                                                {"32GiB", "porep-32g", uint64_t(32) << 30},
                                                {"64GiB", "porep-64g", uint64_t(64) << 30}}};

// The other kinds' circuit ids cuzk knows: named in UNIMPLEMENTED answers.
bool other_kind_circuit(std::string_view id) {
  return id.rfind("wpost-", 0) == 0 || id.rfind("winning-", 0) == 0 || id.rfind("snap-", 0) == 0;
}

const char* kind_name(int kind) {
  switch (kind) {
    case pb::POREP_SEAL_COMMIT: return "POREP_SEAL_COMMIT";
    case pb::SNAP_DEALS_UPDATE: return "SNAP_DEALS_UPDATE";
    case pb::WINDOW_POST_PARTITION: return "WINDOW_POST_PARTITION";
    case pb::WINNING_POST: return "WINNING_POST";
  }
  return "PROOF_KIND_UNSPECIFIED";
}

grpc::Status to_grpc(const Status& s) {
  if (s.ok()) return grpc::Status::OK;
  return grpc::Status(grpc::StatusCode(int(s.code())), s.message());
}

// cuzk's priorities: 0 is the kind's default (PoRep: NORMAL), unknown values NORMAL.
engine::Priority priority_of(int p) {
  switch (p) {
    case pb::LOW: return engine::Priority::kLow;
    case pb::HIGH: return engine::Priority::kHigh;
    case pb::CRITICAL: return engine::Priority::kCritical;
  }
  return engine::Priority::kNormal;
}

Result<uint64_t> parse_job_id(const std::string& id) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), v);
  if (ec != std::errc() || end != id.data() + id.size() || id.empty()) {
    return Status(StatusCode::kNotFound, "no job '" + id + "' (job ids are the numbers SubmitProof returns)");
  }
  return v;
}

class CuzkService final : public pb::ProvingEngine::Service {
 public:
  CuzkService(engine::Engine& e, CuzkOptions o) : engine_(e), options_(std::move(o)) {
    for (const auto& d : gpu::probe_devices().devices) gpus_[d.ordinal] = d;
  }

  grpc::Status SubmitProof(grpc::ServerContext*, const pb::SubmitProofRequest* req,
                           pb::SubmitProofResponse* out) override {
    const size_t ahead = engine_.status().jobs_queued;
    auto id = submit(*req);
    if (!id.ok()) return to_grpc(id.status());
    out->set_job_id(std::to_string(*id));
    out->set_queue_position(uint32_t(ahead));
    return grpc::Status::OK;
  }

  grpc::Status AwaitProof(grpc::ServerContext* ctx, const pb::AwaitProofRequest* req,
                          pb::AwaitProofResponse* out) override {
    auto id = parse_job_id(req->job_id());
    if (!id.ok()) return to_grpc(id.status());
    if (auto known = engine_.job(*id); !known.ok()) return to_grpc(known.status());
    return await(ctx, *id, req->timeout_ms(), /*cancel_on_disconnect=*/false, out);
  }

  grpc::Status Prove(grpc::ServerContext* ctx, const pb::ProveRequest* req, pb::ProveResponse* out) override {
    if (!req->has_submit()) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "missing submit field");
    auto id = submit(req->submit());
    if (!id.ok()) return to_grpc(id.status());
    // The caller alone waits for this job: if it goes away, the job is cancelled.
    return await(ctx, *id, 0, /*cancel_on_disconnect=*/true, out->mutable_result());
  }

  grpc::Status CancelProof(grpc::ServerContext*, const pb::CancelProofRequest* req,
                           pb::CancelProofResponse* out) override {
    auto id = parse_job_id(req->job_id());
    if (!id.ok()) return to_grpc(id.status());
    auto before = engine_.job(*id);
    if (!before.ok()) return to_grpc(before.status());
    auto after = engine_.cancel(*id);
    if (!after.ok()) return to_grpc(after.status());
    out->set_was_running(!engine::is_terminal(before->state) && *after == engine::JobState::kCancelled);
    return grpc::Status::OK;
  }

  grpc::Status GetStatus(grpc::ServerContext*, const pb::GetStatusRequest*, pb::GetStatusResponse* out) override {
    const auto s = engine_.status();
    for (const auto& d : s.devices) {
      if (d.backend != "gpu") continue;
      auto* g = out->add_gpus();
      g->set_ordinal(uint32_t(d.device));
      if (auto it = gpus_.find(d.device); it != gpus_.end()) {
        g->set_name(it->second.name);
        g->set_vram_total_bytes(it->second.total_memory_bytes);
      }
      if (d.busy_slots > 0) g->set_current_proof_kind("porep-c2");
    }
    for (const auto& k : s.keys) {
      if (k.porep_size.empty()) continue;
      auto id = porep_circuit_id(k.porep_size);
      if (!id.ok()) continue;
      auto* srs = out->add_loaded_srs();
      srs->set_circuit_id(*id);
      srs->set_tier(k.tier == engine::KeyTier::kHot    ? pb::SRSStatus::HOT
                    : k.tier == engine::KeyTier::kWarm ? pb::SRSStatus::WARM
                                                       : pb::SRSStatus::COLD);
      srs->set_size_bytes(k.host_bytes);
      srs->set_ref_count(k.in_use);
    }
    uint32_t pending = 0, running = 0;
    for (const auto& j : engine_.jobs()) {
      if (j.state == engine::JobState::kQueued) ++pending;
      if (j.state == engine::JobState::kRunning) ++running;
    }
    auto* q = out->add_queues();
    q->set_proof_kind("porep-c2");
    q->set_pending(pending);
    q->set_in_progress(running);
    out->set_total_proofs_completed(s.jobs_completed);
    out->set_total_proofs_failed(s.jobs_failed);
    out->set_uptime_seconds(uint64_t(s.uptime_ms / 1000));
    // snarkd budgets all host memory, pinned or not: the budget's use and size.
    out->set_pinned_memory_bytes(s.memory_used);
    out->set_pinned_memory_limit_bytes(s.memory_budget);
    return grpc::Status::OK;
  }

  grpc::Status GetMetrics(grpc::ServerContext*, const pb::GetMetricsRequest*, pb::GetMetricsResponse* out) override {
    out->set_prometheus_text(engine_.metrics().render_prometheus());
    return grpc::Status::OK;
  }

  grpc::Status PreloadSRS(grpc::ServerContext*, const pb::PreloadSrsRequest* req, pb::PreloadSrsResponse* out) override {
    auto key = key_of_circuit(req->circuit_id());
    if (!key.ok()) return to_grpc(key.status());
    out->set_already_loaded(key->tier == engine::KeyTier::kHot);
    const auto t0 = std::chrono::steady_clock::now();
    if (Status st = engine_.preload_key(key->id); !st.ok()) return to_grpc(st);
    out->set_load_time_ms(uint64_t(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count()));
    log(2, "cuzk.v1 PreloadSRS " + req->circuit_id() + ": key " + key->id + " (" + key->source + ")");
    return grpc::Status::OK;
  }

  grpc::Status EvictSRS(grpc::ServerContext*, const pb::EvictSrsRequest* req, pb::EvictSrsResponse* out) override {
    auto key = key_of_circuit(req->circuit_id());
    if (!key.ok()) return to_grpc(key.status());
    const bool hot = key->tier == engine::KeyTier::kHot;
    if (hot) {
      if (Status st = engine_.evict_key(key->id); !st.ok()) return to_grpc(st);
    }
    out->set_was_loaded(hot);
    out->set_freed_bytes(hot ? key->host_bytes : 0);
    return grpc::Status::OK;
  }

 private:
  void log(int level, const std::string& message) const {
    if (options_.log) options_.log(level, message);
  }

  Result<engine::KeyInfo> key_of_circuit(const std::string& circuit_id) {
    if (other_kind_circuit(circuit_id)) {
      return Status(StatusCode::kUnimplemented,
                    "circuit '" + circuit_id + "': snarkd proves PoRep C2 only (porep-2k … porep-64g) so far");
    }
    ASSIGN_OR_RETURN(std::string size, porep_size_of_circuit(circuit_id));
    auto it = options_.keys.find(circuit_id);
    const std::string source = it != options_.keys.end() ? it->second : "bellperson:porep:" + size;
    return engine_.register_key(source);
  }

  // The engine request of a cuzk submission; refusals name the field.
  Result<uint64_t> submit(const pb::SubmitProofRequest& req) {
    const int kind = int(req.proof_kind());
    if (kind == pb::SNAP_DEALS_UPDATE || kind == pb::WINDOW_POST_PARTITION || kind == pb::WINNING_POST) {
      return Status(StatusCode::kUnimplemented, std::string("proof_kind ") + kind_name(kind) +
                                                    ": snarkd does not prove this kind yet (only POREP_SEAL_COMMIT)");
    }
    if (kind != pb::POREP_SEAL_COMMIT) {
      return invalid_argument("invalid proof_kind: " + std::to_string(kind) + " (" + kind_name(kind) + ")");
    }
    // The sector size: sector_size, else the registered proof's (ProofShare sends 0).
    const PorepSize* size = nullptr;
    if (req.sector_size() != 0) {
      for (const auto& s : kPorepSizes) {
        if (s.bytes == req.sector_size()) size = &s;
      }
      if (!size) return invalid_argument("sector_size " + std::to_string(req.sector_size()) + " is not a PoRep sector size");
    }
    if (req.registered_proof() != 0 || !size) {
      auto proof = filecoin::seal_proof_by_id(req.registered_proof());
      if (!proof.ok()) return invalid_argument("registered_proof: " + proof.status().message());
      const PorepSize* by_proof = nullptr;
      for (const auto& s : kPorepSizes) {
        if (s.bytes == (*proof)->sector_size) by_proof = &s;
      }
      if (!by_proof) return invalid_argument("registered_proof " + std::to_string(req.registered_proof()) + ": no size");
      if (size && size != by_proof) {
        return invalid_argument("sector_size " + std::to_string(req.sector_size()) + " disagrees with registered_proof " +
                                std::to_string(req.registered_proof()) + " (" + std::string((*proof)->name) + ")");
      }
      size = by_proof;
    }
    if (req.vanilla_proof().empty()) return invalid_argument("vanilla_proof is empty (PoRep C2 needs the C1 output)");
    ASSIGN_OR_RETURN(auto key, key_of_circuit(size->circuit_id));
    engine::ProofRequest r;
    r.request_id = req.request_id();
    r.key_id = key.id;
    r.priority = priority_of(int(req.priority()));
    engine::PorepRequest porep;
    porep.c1 = req.vanilla_proof();
    porep.c1_name = "vanilla_proof";
    porep.prover_id = filecoin::prover_id_from_miner(req.miner_id());
    porep.sector = req.sector_number();
    r.porep = std::move(porep);
    auto id = engine_.submit(std::move(r));
    if (id.ok()) {
      log(3, "cuzk.v1 job " + std::to_string(*id) + " (request '" + req.request_id() + "', " + size->circuit_id + ")");
    }
    return id;
  }

  grpc::Status await(grpc::ServerContext* ctx, uint64_t job, uint64_t timeout_ms, bool cancel_on_disconnect,
                     pb::AwaitProofResponse* out) {
    const uint64_t limit = uint64_t(options_.max_await_seconds) * 1000;
    const uint64_t wait = timeout_ms == 0 ? limit : std::min(timeout_ms, limit);
    out->set_job_id(std::to_string(job));
    auto r = await_job(engine_, ctx, job, wait, cancel_on_disconnect, options_.log);
    if (r.ok()) {
      fill(*r, out);
      return grpc::Status::OK;
    }
    if (r.status().code() == StatusCode::kDeadlineExceeded) {  // cuzk answers a wait's end in the message
      out->set_status(pb::AwaitProofResponse::TIMEOUT);
      out->set_error_message(r.status().message());
      return grpc::Status::OK;
    }
    return to_grpc(r.status());
  }

  static void fill(const engine::JobResult& r, pb::AwaitProofResponse* out) {
    switch (r.state) {
      case engine::JobState::kCompleted: {
        out->set_status(pb::AwaitProofResponse::COMPLETED);
        std::string proof;
        for (const auto& p : r.proofs) proof.append(reinterpret_cast<const char*>(p.bytes.data()), p.bytes.size());
        out->set_proof(std::move(proof));
        break;
      }
      case engine::JobState::kCancelled: out->set_status(pb::AwaitProofResponse::CANCELLED); break;
      default: out->set_status(pb::AwaitProofResponse::FAILED); break;
    }
    if (!r.error.ok()) out->set_error_message(r.error.message());
    auto ms = [](double v) { return uint64_t(std::max(0.0, v) + 0.5); };
    out->set_queue_wait_ms(ms(r.timings.queue_ms));
    out->set_srs_load_ms(ms(r.timings.key_load_ms));
    out->set_synthesis_ms(ms(r.timings.synthesis_ms));
    out->set_gpu_compute_ms(ms(r.timings.kernel_busy_ms));
    out->set_total_ms(ms(r.timings.total_ms));
  }

  engine::Engine& engine_;
  CuzkOptions options_;
  std::map<int, gpu::DeviceInfo> gpus_;
};

}  // namespace

Result<engine::JobResult> await_job(engine::Engine& engine, grpc::ServerContext* ctx, uint64_t job, uint64_t wait_ms,
                                    bool cancel_on_disconnect,
                                    const std::function<void(int, const std::string&)>& log) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  for (;;) {
    auto r = engine.await(job, 100ms);
    if (r.ok() || r.status().code() != StatusCode::kDeadlineExceeded) return r;
    if (ctx->IsCancelled()) {
      if (cancel_on_disconnect) {
        (void)engine.cancel(job);
        if (log) log(1, "client went away: cancelled job " + std::to_string(job));
      }
      return Status(StatusCode::kCancelled, "the client cancelled the call");
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return Status(StatusCode::kDeadlineExceeded,
                    "job " + std::to_string(job) + " did not finish within " + std::to_string(wait_ms) + " ms");
    }
  }
}

Result<std::string> porep_circuit_id(std::string_view size_name) {
  for (const auto& s : kPorepSizes) {
    if (size_name == s.size_name) return std::string(s.circuit_id);
  }
  return invalid_argument("no PoRep circuit id for sector size '" + std::string(size_name) + "'");
}

Result<std::string> porep_size_of_circuit(std::string_view circuit_id) {
  for (const auto& s : kPorepSizes) {
    if (circuit_id == s.circuit_id) return std::string(s.size_name);
  }
  return invalid_argument("unknown circuit id '" + std::string(circuit_id) +
                          "' (expected porep-2k, porep-8m, porep-512m, porep-32g or porep-64g)");
}

std::unique_ptr<grpc::Service> make_cuzk_service(engine::Engine& engine, CuzkOptions options) {
  return std::make_unique<CuzkService>(engine, std::move(options));
}

}  // namespace snarkd::server
