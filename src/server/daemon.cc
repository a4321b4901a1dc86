#include "server/daemon.h"

#include <grpcpp/grpcpp.h>
#include <httplib.h>
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/hash.h"
#include "engine/engine.h"
#include "snarkd/v1/prover.grpc.pb.h"

namespace snarkd::server {

namespace {

namespace pb = ::snarkd::v1;
using nlohmann::json;
using namespace std::chrono_literals;

// Minimal structured logging to stderr or a file.
class Log {
 public:
  void configure(const DaemonConfig& c) {
    std::lock_guard lock(mu_);
    level_ = c.log_level == "error" ? 0 : c.log_level == "warn" ? 1 : c.log_level == "info" ? 2 : 3;
    json_ = c.log_format == "json";
    file_ = c.log_file;
    reopen_locked();
  }
  void reopen() {
    std::lock_guard lock(mu_);
    reopen_locked();
  }
  void write(int level, const std::string& msg) {
    static const char* names[] = {"error", "warn", "info", "debug"};
    std::lock_guard lock(mu_);
    if (level > level_) return;
    const auto now = std::chrono::system_clock::now();
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
    std::ostream& out = out_.is_open() ? static_cast<std::ostream&>(out_) : std::cerr;
    if (json_) {
      out << json({{"ts_ms", ms}, {"level", names[level]}, {"msg", msg}}).dump() << "\n";
    } else {
      std::time_t t = std::chrono::system_clock::to_time_t(now);
      char buf[32];
      std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", std::gmtime(&t));
      out << buf << "." << (ms % 1000) << "Z " << names[level] << " " << msg << "\n";
    }
    out.flush();
  }

 private:
  void reopen_locked() {
    if (out_.is_open()) out_.close();
    if (!file_.empty()) out_.open(file_, std::ios::app);
  }
  std::mutex mu_;
  int level_ = 2;
  bool json_ = false;
  std::string file_;
  std::ofstream out_;
};

Log& logger() {
  static Log log;
  return log;
}

grpc::Status to_grpc(const Status& s) {
  if (s.ok()) return grpc::Status::OK;
  return grpc::Status(grpc::StatusCode(int(s.code())), s.message());
}

engine::Priority priority_of(pb::Priority p) {
  switch (p) {
    case pb::PRIORITY_LOW: return engine::Priority::kLow;
    case pb::PRIORITY_HIGH: return engine::Priority::kHigh;
    case pb::PRIORITY_CRITICAL: return engine::Priority::kCritical;
    default: return engine::Priority::kNormal;
  }
}

pb::JobState state_of(engine::JobState s) {
  switch (s) {
    case engine::JobState::kQueued: return pb::JOB_STATE_QUEUED;
    case engine::JobState::kRunning: return pb::JOB_STATE_RUNNING;
    case engine::JobState::kCompleted: return pb::JOB_STATE_COMPLETED;
    case engine::JobState::kFailed: return pb::JOB_STATE_FAILED;
    case engine::JobState::kCancelled: return pb::JOB_STATE_CANCELLED;
  }
  return pb::JOB_STATE_UNSPECIFIED;
}

void fill_key(const engine::KeyInfo& k, pb::KeyInfo* out) {
  out->set_key_id(k.id);
  out->set_source(k.source);
  out->set_curve(k.curve == ec::CurveId::kBn254 ? pb::CURVE_BN254 : pb::CURVE_BLS12_381);
  out->set_tier(k.tier == engine::KeyTier::kHot    ? pb::KEY_TIER_HOT
                : k.tier == engine::KeyTier::kWarm ? pb::KEY_TIER_WARM
                                                   : pb::KEY_TIER_COLD);
  out->set_host_bytes(k.host_bytes);
  out->set_num_variables(k.num_variables);
  out->set_num_public(k.num_public);
  out->set_log_domain_size(k.log_domain_size);
  out->set_in_use(k.in_use);
  out->set_builtin(k.builtin);
  for (int d : k.devices) out->add_devices(d);
}

void fill_result(const engine::JobResult& r, pb::ProofResult* out) {
  out->set_job_id(r.job_id);
  out->set_state(state_of(r.state));
  if (!r.error.ok()) {
    out->set_error_message(r.error.message());
    out->set_error_code(int(r.error.code()));
  }
  for (const auto& p : r.proofs) {
    auto* q = out->add_proofs();
    q->set_proof(std::string(p.bytes.begin(), p.bytes.end()));
    q->set_proof_json(p.proof_json);
    q->set_public_json(p.public_json);
  }
  auto* t = out->mutable_timings();
  t->set_queue_ms(r.timings.queue_ms);
  t->set_key_load_ms(r.timings.key_load_ms);
  t->set_synthesis_ms(r.timings.synthesis_ms);
  t->set_wait_ms(r.timings.wait_ms);
  t->set_kernel_busy_ms(r.timings.kernel_busy_ms);
  t->set_slot_held_ms(r.timings.slot_held_ms);
  t->set_finalize_ms(r.timings.finalize_ms);
  t->set_total_ms(r.timings.total_ms);
  out->set_request_id(r.request_id);
  out->set_key_id(r.key_id);
  out->set_partitions(r.partitions);
  out->set_partitions_done(r.partitions_done);
  out->set_retries(r.retries);
}

// Kernel-busy over uptime, and slot-held over uptime times slots.
struct DeviceFractions {
  double kernel_busy, slot_held;
};
DeviceFractions fractions(const engine::DeviceStatus& d) {
  const double up = std::max(d.uptime_ms, 1.0);
  return {d.kernel_busy_ms / up, d.slot_held_ms / (up * std::max(1u, d.slots))};
}

json status_json(engine::Engine& e) {
  const auto s = e.status();
  json devices = json::array();
  for (const auto& d : s.devices) {
    const auto f = fractions(d);
    devices.push_back({{"device", d.device},
                       {"backend", d.backend},
                       {"slots", d.slots},
                       {"busy_slots", d.busy_slots},
                       {"kernel_busy_seconds", d.kernel_busy_ms / 1000.0},
                       {"kernel_busy_fraction", f.kernel_busy},
                       {"slot_held_fraction", f.slot_held}});
  }
  json keys = json::array();
  for (const auto& k : s.keys) {
    keys.push_back({{"key_id", k.id},
                    {"source", k.source},
                    {"curve", ec::curve_snarkjs_name(k.curve)},
                    {"tier", engine::key_tier_name(k.tier)},
                    {"host_bytes", k.host_bytes},
                    {"in_use", k.in_use}});
  }
  json jobs = json::array();
  for (const auto& j : e.jobs()) {
    jobs.push_back({{"job_id", j.job_id},
                    {"request_id", j.request_id},
                    {"key_id", j.key_id},
                    {"priority", engine::priority_name(j.priority)},
                    {"state", engine::job_state_name(j.state)},
                    {"partitions", j.partitions},
                    {"partitions_done", j.partitions_done},
                    {"error", j.error.ok() ? "" : j.error.message()}});
  }
  return {{"queues",
           {{"queued", s.queued},
            {"synthesizing", s.synthesizing},
            {"waiting", s.waiting},
            {"proving", s.proving},
            {"finalizing", s.finalizing},
            {"jobs_queued", s.jobs_queued},
            {"jobs_running", s.jobs_running}}},
          {"devices", devices},
          {"keys", keys},
          {"jobs", jobs},
          {"memory", {{"budget_bytes", s.memory_budget}, {"used_bytes", s.memory_used}, {"peak_bytes", s.memory_peak}}},
          {"totals", {{"completed", s.jobs_completed}, {"failed", s.jobs_failed}, {"cancelled", s.jobs_cancelled}}},
          {"uptime_seconds", s.uptime_ms / 1000.0},
          {"accepting", s.accepting},
          {"backend_note", e.backend_note()}};
}

class Service final : public pb::Prover::Service {
 public:
  Service(engine::Engine& e, const DaemonConfig& c) : engine_(e), config_(c) {}

  grpc::Status RegisterKey(grpc::ServerContext*, const pb::RegisterKeyRequest* req, pb::KeyInfo* out) override {
    std::string source;
    if (req->source_case() == pb::RegisterKeyRequest::kPath) {
      source = req->path();
    } else if (req->source_case() == pb::RegisterKeyRequest::kZkeyBytes) {
      if (config_.key_dir.empty()) {
        return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                            "uploading keys needs keys.dir in the daemon's config");
      }
      const auto& bytes = req->zkey_bytes();
      const std::string dir = config_.key_dir + "/uploads";
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      source = dir + "/" + content_hash(std::string_view(bytes)).hex() + ".zkey";
      if (!std::filesystem::exists(source)) {
        std::ofstream f(source + ".tmp", std::ios::binary);
        f.write(bytes.data(), std::streamsize(bytes.size()));
        f.close();
        if (!f || std::rename((source + ".tmp").c_str(), source.c_str()) != 0) {
          return grpc::Status(grpc::StatusCode::UNAVAILABLE, "cannot store the uploaded key in " + dir);
        }
      }
    } else {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "RegisterKey needs a path or zkey_bytes");
    }
    auto info = engine_.register_key(source);
    if (!info.ok()) return to_grpc(info.status());
    if (req->preload()) {
      if (Status st = engine_.preload_key(info->id); !st.ok()) return to_grpc(st);
      info = engine_.key(info->id);
    }
    logger().write(2, "registered key " + info->id + " from " + info->source);
    fill_key(*info, out);
    return grpc::Status::OK;
  }

  grpc::Status PreloadKey(grpc::ServerContext*, const pb::KeyRequest* req, pb::KeyInfo* out) override {
    if (Status st = engine_.preload_key(req->key_id()); !st.ok()) return to_grpc(st);
    return key_info(req->key_id(), out);
  }

  grpc::Status EvictKey(grpc::ServerContext*, const pb::KeyRequest* req, pb::KeyInfo* out) override {
    if (Status st = engine_.evict_key(req->key_id()); !st.ok()) return to_grpc(st);
    return key_info(req->key_id(), out);
  }

  grpc::Status ListKeys(grpc::ServerContext*, const pb::ListKeysRequest*, pb::ListKeysResponse* out) override {
    for (const auto& k : engine_.keys()) fill_key(k, out->add_keys());
    return grpc::Status::OK;
  }

  grpc::Status GetVerifyingKey(grpc::ServerContext*, const pb::KeyRequest* req, pb::VerifyingKey* out) override {
    auto vk = engine_.verifying_key(req->key_id());
    if (!vk.ok()) return to_grpc(vk.status());
    out->set_json(*vk);
    return grpc::Status::OK;
  }

  grpc::Status SubmitProof(grpc::ServerContext*, const pb::SubmitProofRequest* req, pb::SubmitProofResponse* out) override {
    const auto ahead = engine_.status().queued;
    auto id = engine_.submit(request_of(*req));
    if (!id.ok()) return to_grpc(id.status());
    out->set_job_id(*id);
    out->set_queue_position(uint32_t(ahead));
    return grpc::Status::OK;
  }

  grpc::Status AwaitProof(grpc::ServerContext* ctx, const pb::AwaitProofRequest* req, pb::ProofResult* out) override {
    return await(ctx, req->job_id(), req->timeout_ms(), /*cancel_on_disconnect=*/false, out);
  }

  grpc::Status Prove(grpc::ServerContext* ctx, const pb::SubmitProofRequest* req, pb::ProofResult* out) override {
    auto id = engine_.submit(request_of(*req));
    if (!id.ok()) return to_grpc(id.status());
    // The caller is the only one who knows this job: if it goes away, cancel the job.
    return await(ctx, *id, req->timeout_ms(), /*cancel_on_disconnect=*/true, out);
  }

  grpc::Status CancelProof(grpc::ServerContext*, const pb::CancelProofRequest* req, pb::CancelProofResponse* out) override {
    auto s = engine_.cancel(req->job_id());
    if (!s.ok()) return to_grpc(s.status());
    out->set_state(state_of(*s));
    return grpc::Status::OK;
  }

  grpc::Status GetStatus(grpc::ServerContext*, const pb::GetStatusRequest*, pb::Status* out) override {
    const auto s = engine_.status();
    auto* q = out->mutable_queues();
    q->set_queued(s.queued);
    q->set_synthesizing(s.synthesizing);
    q->set_waiting(s.waiting);
    q->set_proving(s.proving);
    q->set_finalizing(s.finalizing);
    q->set_jobs_queued(s.jobs_queued);
    q->set_jobs_running(s.jobs_running);
    for (const auto& d : s.devices) {
      auto* o = out->add_devices();
      const auto f = fractions(d);
      o->set_device(d.device);
      o->set_backend(d.backend);
      o->set_slots(d.slots);
      o->set_busy_slots(d.busy_slots);
      o->set_kernel_busy_fraction(f.kernel_busy);
      o->set_slot_held_fraction(f.slot_held);
      o->set_kernel_busy_seconds(d.kernel_busy_ms / 1000.0);
    }
    for (const auto& k : s.keys) fill_key(k, out->add_keys());
    out->set_memory_budget_bytes(s.memory_budget);
    out->set_memory_used_bytes(s.memory_used);
    out->set_memory_peak_bytes(s.memory_peak);
    out->set_uptime_seconds(s.uptime_ms / 1000.0);
    out->set_jobs_completed(s.jobs_completed);
    out->set_jobs_failed(s.jobs_failed);
    out->set_jobs_cancelled(s.jobs_cancelled);
    out->set_accepting(s.accepting);
    out->set_backend_note(engine_.backend_note());
    return grpc::Status::OK;
  }

  grpc::Status GetMetrics(grpc::ServerContext*, const pb::GetMetricsRequest*, pb::Metrics* out) override {
    out->set_prometheus_text(engine_.metrics().render_prometheus());
    return grpc::Status::OK;
  }

 private:
  engine::ProofRequest request_of(const pb::SubmitProofRequest& req) const {
    engine::ProofRequest r;
    r.key_id = req.key_id();
    r.request_id = req.request_id();
    r.priority = priority_of(req.priority());
    r.witness = req.witness();
    r.partitions = req.partitions() ? req.partitions() : 1;
    r.seed = req.seed() ? req.seed() : 1;
    r.timeout = std::chrono::milliseconds(req.timeout_ms());
    return r;
  }

  grpc::Status key_info(const std::string& id, pb::KeyInfo* out) {
    auto k = engine_.key(id);
    if (!k.ok()) return to_grpc(k.status());
    fill_key(*k, out);
    return grpc::Status::OK;
  }

  grpc::Status await(grpc::ServerContext* ctx, uint64_t job, uint64_t timeout_ms, bool cancel_on_disconnect,
                     pb::ProofResult* out) {
    const uint64_t limit = uint64_t(config_.max_await_seconds) * 1000;
    const uint64_t wait = timeout_ms == 0 ? limit : std::min(timeout_ms, limit);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait);
    for (;;) {
      // Short slices, so a vanished client is noticed.
      auto r = engine_.await(job, 100ms);
      if (r.ok()) {
        fill_result(*r, out);
        return grpc::Status::OK;
      }
      if (r.status().code() != StatusCode::kDeadlineExceeded) return to_grpc(r.status());
      if (ctx->IsCancelled()) {
        if (cancel_on_disconnect) {
          (void)engine_.cancel(job);
          logger().write(1, "client went away: cancelled job " + std::to_string(job));
        }
        return grpc::Status(grpc::StatusCode::CANCELLED, "the client cancelled the call");
      }
      if (std::chrono::steady_clock::now() >= deadline) {
        return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED,
                            "job " + std::to_string(job) + " did not finish within " + std::to_string(wait) + " ms");
      }
    }
  }

  engine::Engine& engine_;
  const DaemonConfig& config_;
};

class DaemonImpl final : public Daemon {
 public:
  explicit DaemonImpl(DaemonConfig c) : config_(std::move(c)) {}
  ~DaemonImpl() override { stop(); }

  Status init() {
    logger().configure(config_);
    if (!config_.key_dir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(config_.key_dir, ec);
      if (ec) return unavailable("keys.dir '" + config_.key_dir + "': " + ec.message());
    }
    auto e = engine::Engine::create(config_.engine);
    if (!e.ok()) return e.status();
    engine_ = std::move(*e);
    if (!engine_->backend_note().empty()) logger().write(1, engine_->backend_note());
    for (const auto& source : config_.preload) {
      auto k = engine_->register_key(source);
      if (!k.ok()) return k.status().with_context("keys.preload '" + source + "'");
      if (Status st = engine_->preload_key(k->id); !st.ok()) return st.with_context("keys.preload '" + source + "'");
      logger().write(2, "preloaded key " + k->id + " (" + source + ")");
    }
    service_ = std::make_unique<Service>(*engine_, config_);
    grpc::ServerBuilder b;
    int port = 0;
    b.AddListeningPort(config_.listen, grpc::InsecureServerCredentials(), &port);
    b.SetMaxReceiveMessageSize(int(config_.max_message_bytes));
    b.SetMaxSendMessageSize(int(config_.max_message_bytes));
    b.RegisterService(service_.get());
    server_ = b.BuildAndStart();
    if (!server_) return unavailable("cannot listen on '" + config_.listen + "'");
    if (config_.listen.rfind("unix://", 0) == 0) {
      grpc_address_ = config_.listen;
      const std::string path = config_.listen.substr(7);
      ::chmod(path.c_str(), 0660);  // owner and group only
    } else {
      grpc_address_ = config_.listen.substr(0, config_.listen.rfind(':')) + ":" + std::to_string(port);
    }
    if (!config_.http_listen.empty()) RETURN_IF_ERROR(start_http());
    logger().write(2, "snarkd serving gRPC on " + grpc_address_ +
                          (http_address_.empty() ? "" : ", HTTP on " + http_address_));
    return Status();
  }

  std::string grpc_address() const override { return grpc_address_; }
  std::string http_address() const override { return http_address_; }
  void reopen_log() override { logger().reopen(); }

  void stop() override {
    std::lock_guard lock(stop_mu_);
    if (stopped_) return;
    stopped_ = true;
    logger().write(2, "draining (up to " + std::to_string(config_.drain_seconds) + " s)");
    if (engine_) engine_->shutdown(std::chrono::seconds(config_.drain_seconds));
    if (server_) server_->Shutdown(std::chrono::system_clock::now() + 5s);
    if (http_) http_->stop();
    if (http_thread_.joinable()) http_thread_.join();
    if (engine_ && !config_.timeline_path.empty()) {
      Status a = engine_->timeline().write_jsonl(config_.timeline_path);
      Status t = engine_->timeline().write_chrome_trace(config_.timeline_path + ".trace.json");
      if (!a.ok() || !t.ok()) logger().write(0, (a.ok() ? t : a).message());
    }
    logger().write(2, "stopped");
  }

 private:
  Status start_http() {
    const auto colon = config_.http_listen.rfind(':');
    if (colon == std::string::npos) return invalid_argument("http_listen: expected host:port");
    const std::string host = config_.http_listen.substr(0, colon);
    int port = 0;
    try {
      port = std::stoi(config_.http_listen.substr(colon + 1));
    } catch (...) {
      return invalid_argument("http_listen: bad port in '" + config_.http_listen + "'");
    }
    http_ = std::make_unique<httplib::Server>();
    http_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(engine_->metrics().render_prometheus(), "text/plain; version=0.0.4; charset=utf-8");
    });
    http_->Get("/status", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(status_json(*engine_).dump(1), "application/json");
    });
    http_->Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
      const bool ok = engine_->status().accepting;
      res.status = ok ? 200 : 503;
      res.set_content(ok ? "ok\n" : "draining\n", "text/plain");
    });
    if (port == 0) {
      port = http_->bind_to_any_port(host);
    } else if (!http_->bind_to_port(host, port)) {
      port = -1;
    }
    if (port <= 0) return unavailable("cannot listen on '" + config_.http_listen + "' (HTTP)");
    http_address_ = host + ":" + std::to_string(port);
    http_thread_ = std::thread([this] { http_->listen_after_bind(); });
    return Status();
  }

  DaemonConfig config_;
  std::unique_ptr<engine::Engine> engine_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<httplib::Server> http_;
  std::thread http_thread_;
  std::string grpc_address_, http_address_;
  std::mutex stop_mu_;
  bool stopped_ = false;
};

}  // namespace

Result<std::unique_ptr<Daemon>> Daemon::start(DaemonConfig config) {
  auto d = std::make_unique<DaemonImpl>(std::move(config));
  RETURN_IF_ERROR(d->init());
  return std::unique_ptr<Daemon>(std::move(d));
}

int run_serve(const std::string& config_path) {
  auto config = load_config(config_path);
  if (!config.ok()) {
    std::cerr << "snarkd serve: " << config.status().message() << "\n";
    return 2;
  }
  // Signals are taken by this thread alone (blocked before any other thread starts).
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  auto daemon = Daemon::start(std::move(*config));
  if (!daemon.ok()) {
    std::cerr << "snarkd serve: " << daemon.status().message() << "\n";
    return 1;
  }
  for (;;) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) continue;
    if (sig == SIGHUP) {
      (*daemon)->reopen_log();
      continue;
    }
    logger().write(2, std::string("received ") + (sig == SIGTERM ? "SIGTERM" : "SIGINT"));
    break;
  }
  (*daemon)->stop();
  return 0;
}

}  // namespace snarkd::server
