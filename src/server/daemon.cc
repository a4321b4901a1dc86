#include "server/daemon.h"

#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <httplib.h>
#include <netdb.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/hash.h"
#include "base/process_memory.h"
#include "engine/engine.h"
#include "server/cuzk_service.h"
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
      char frac[8];
      std::snprintf(frac, sizeof frac, ".%03d", int(ms % 1000));
      out << buf << frac << "Z " << names[level] << " " << msg << "\n";
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

Result<engine::Priority> priority_of(int p) {
  switch (p) {
    case pb::PRIORITY_UNSPECIFIED:
    case pb::PRIORITY_NORMAL: return engine::Priority::kNormal;
    case pb::PRIORITY_LOW: return engine::Priority::kLow;
    case pb::PRIORITY_HIGH: return engine::Priority::kHigh;
    case pb::PRIORITY_CRITICAL: return engine::Priority::kCritical;
  }
  return invalid_argument("priority " + std::to_string(p) + " is not one of LOW (1), NORMAL (2), HIGH (3), CRITICAL (4)");
}

// Hosts that mean every interface.
bool all_interfaces(const std::string& host) {
  return host.empty() || host == "0.0.0.0" || host == "::" || host == "[::]" || host == "*";
}

// "host:port" -> host (brackets of an IPv6 literal removed) and port.
std::pair<std::string, std::string> split_host_port(const std::string& addr) {
  const auto colon = addr.rfind(':');
  std::string host = addr.substr(0, colon), port = colon == std::string::npos ? "" : addr.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return {host, port};
}

// Whether a TCP address can be bound now without SO_REUSEPORT (which would let a second
// daemon share the port and take half of the calls). "" when it can, else why not.
std::string tcp_bind_problem(const std::string& addr) {
  auto [host, port] = split_host_port(addr);
  if (port == "0") return "";
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* res = nullptr;
  if (int rc = ::getaddrinfo(all_interfaces(host) ? nullptr : host.c_str(), port.c_str(), &hints, &res); rc != 0) {
    return std::string("cannot resolve it: ") + gai_strerror(rc);
  }
  std::string problem;
  for (addrinfo* a = res; a; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0) {
      problem = errno == EADDRINUSE ? "the address is in use (another snarkd?)" : std::strerror(errno);
    }
    ::close(fd);
    if (!problem.empty()) break;
  }
  ::freeaddrinfo(res);
  return problem;
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
  out->set_porep_size(k.porep_size);
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

json status_json(engine::Engine& e, const std::vector<std::string>& warnings) {
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
          {"memory",
           {{"budget_bytes", s.memory_budget},
            {"used_bytes", s.memory_used},
            {"peak_bytes", s.memory_peak},
            {"rss_bytes", rss_bytes()},  // the process's resident set: the budget does not bound it
            {"note", "the budget counts keys, witnesses and partition buffers, not every allocation; rss_bytes is "
                     "what the process holds"}}},
          {"warnings", warnings},
          {"totals", {{"completed", s.jobs_completed}, {"failed", s.jobs_failed}, {"cancelled", s.jobs_cancelled}}},
          {"uptime_seconds", s.uptime_ms / 1000.0},
          {"accepting", s.accepting},
          {"backend_note", e.backend_note()}};
}

class Service final : public pb::Prover::Service {
 public:
  Service(engine::Engine& e, const DaemonConfig& c, const std::vector<std::string>& warnings)
      : engine_(e), config_(c), warnings_(warnings) {}

  grpc::Status RegisterKey(grpc::ServerContext*, const pb::RegisterKeyRequest* req, pb::KeyInfo* out) override {
    std::string source;
    if (req->source_case() == pb::RegisterKeyRequest::kPath) {
      auto s = allowed_path(req->path());
      if (!s.ok()) return to_grpc(s.status());
      source = *s;
    } else if (req->source_case() == pb::RegisterKeyRequest::kZkeyBytes) {
      auto s = store_upload(req->zkey_bytes());
      if (!s.ok()) return to_grpc(s.status());
      source = *s;
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
    auto r = request_of(req);
    if (!r.ok()) return to_grpc(r.status());
    auto id = engine_.submit(std::move(*r));
    if (!id.ok()) return to_grpc(id.status());
    out->set_job_id(*id);
    out->set_queue_position(uint32_t(ahead));
    return grpc::Status::OK;
  }

  grpc::Status AwaitProof(grpc::ServerContext* ctx, const pb::AwaitProofRequest* req, pb::ProofResult* out) override {
    return await(ctx, req->job_id(), req->timeout_ms(), /*cancel_on_disconnect=*/false, out);
  }

  grpc::Status Prove(grpc::ServerContext* ctx, const pb::SubmitProofRequest* req, pb::ProofResult* out) override {
    auto r = request_of(req);
    if (!r.ok()) return to_grpc(r.status());
    auto id = engine_.submit(std::move(*r));
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
    for (const auto& w : warnings_) out->add_warnings(w);
    out->set_rss_bytes(rss_bytes());
    return grpc::Status::OK;
  }

  grpc::Status GetMetrics(grpc::ServerContext*, const pb::GetMetricsRequest*, pb::Metrics* out) override {
    out->set_prometheus_text(engine_.metrics().render_prometheus());
    return grpc::Status::OK;
  }

 private:
  // The request's witness bytes are moved, not copied: the message is the server's own,
  // deserialized for this call, and nothing reads it after the handler.
  Result<engine::ProofRequest> request_of(const pb::SubmitProofRequest* request) const {
    auto& req = *const_cast<pb::SubmitProofRequest*>(request);
    engine::ProofRequest r;
    r.key_id = req.key_id();
    r.request_id = req.request_id();
    ASSIGN_OR_RETURN(r.priority, priority_of(int(req.priority())));
    r.witness = std::move(*req.mutable_witness());
    r.partitions = req.partitions() ? req.partitions() : 1;
    r.seed = req.seed() ? req.seed() : 1;
    r.timeout = std::chrono::milliseconds(req.timeout_ms());
    if (req.has_porep()) {
      const auto& p = req.porep();
      if (p.prover_id().size() != 32) {
        return invalid_argument("porep.prover_id must be 32 bytes, got " + std::to_string(p.prover_id().size()));
      }
      engine::PorepRequest porep;
      porep.c1 = p.c1();
      porep.c1_name = p.name().empty() ? "c1" : p.name();
      std::copy(p.prover_id().begin(), p.prover_id().end(), porep.prover_id.begin());
      if (p.has_sector()) porep.sector = p.sector();
      r.porep = std::move(porep);
    }
    return r;
  }

  // RegisterKey{path}: a built-in key, or a file under one of keys.register_dirs. Nothing is
  // looked at on disk before the path is known to be under one, so the answer says nothing
  // about other files (whether they exist, their size).
  Result<std::string> allowed_path(const std::string& path) const {
    namespace fs = std::filesystem;
    if (path.rfind("builtin:", 0) == 0) return path;
    // bellperson:<spec>[@<path>]: the file is checked as any path; without one, the daemon's own
    // parameter cache (FIL_PROOFS_PARAMETER_CACHE) is used.
    if (path.rfind("bellperson:", 0) == 0) {
      const size_t at = path.find('@');
      if (at == std::string::npos) return path;
      ASSIGN_OR_RETURN(std::string file, allowed_path(path.substr(at + 1)));
      return path.substr(0, at + 1) + file;
    }
    const Status denied(StatusCode::kPermissionDenied,
                        config_.register_dirs.empty()
                            ? "this daemon does not register keys by path (keys.register_dirs is empty); upload the "
                              "key's bytes instead"
                            : "'" + path + "' is not under keys.register_dirs");
    if (path.empty() || path.front() != '/') return denied;
    auto under = [&](const fs::path& p) {
      for (const auto& d : config_.register_dirs) {
        const auto rel = p.lexically_relative(d);
        if (!rel.empty() && *rel.begin() != ".." && rel != ".") return true;
      }
      return false;
    };
    const fs::path lexical = fs::path(path).lexically_normal();
    if (!under(lexical)) return denied;
    std::error_code ec;
    const fs::path canonical = fs::canonical(lexical, ec);  // a symlink must not lead out
    if (ec) return Status(StatusCode::kNotFound, "'" + path + "': " + ec.message());
    if (!under(canonical)) return denied;
    return canonical.string();
  }

  // RegisterKey{zkey_bytes}: written to a temporary file in keys.dir/uploads, read whole as a
  // key, and kept (as <content hash>.zkey) only when it loads; the directory stays within
  // keys.upload_quota, dropping the oldest uploads no registered key uses when it must.
  Result<std::string> store_upload(const std::string& bytes) {
    namespace fs = std::filesystem;
    if (config_.key_dir.empty()) {
      return Status(StatusCode::kFailedPrecondition, "uploading keys needs keys.dir in the daemon's config");
    }
    const fs::path dir = fs::path(config_.key_dir) / "uploads";
    const std::string hash = content_hash(std::string_view(bytes)).hex();
    const fs::path final_path = dir / (hash + ".zkey");
    std::lock_guard lock(upload_mu_);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (fs::exists(final_path, ec)) {
      fs::last_write_time(final_path, fs::file_time_type::clock::now(), ec);  // recently used
      return final_path.string();
    }
    RETURN_IF_ERROR(make_upload_room(dir, bytes.size()));
    const fs::path tmp = dir / (".incoming-" + hash);
    {
      std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
      f.write(bytes.data(), std::streamsize(bytes.size()));
      f.close();
      if (!f) {
        fs::remove(tmp, ec);
        return unavailable("cannot store the uploaded key in " + dir.string());
      }
    }
    if (Status st = engine::validate_key_file(tmp.string()); !st.ok()) {
      fs::remove(tmp, ec);
      return Status(st.code() == StatusCode::kNotFound ? StatusCode::kInvalidArgument : st.code(),
                    "the uploaded key was refused: " + st.message());
    }
    fs::rename(tmp, final_path, ec);
    if (ec) {
      fs::remove(tmp, ec);
      return unavailable("cannot store the uploaded key in " + dir.string());
    }
    return final_path.string();
  }

  Status make_upload_room(const std::filesystem::path& dir, uint64_t bytes) {
    namespace fs = std::filesystem;
    if (bytes > config_.upload_quota) {
      return Status(StatusCode::kResourceExhausted, "the key (" + engine::human_bytes(bytes) +
                                                        ") is larger than keys.upload_quota (" +
                                                        engine::human_bytes(config_.upload_quota) + ")");
    }
    std::set<std::string> in_use;
    for (const auto& k : engine_.keys()) in_use.insert(k.source);
    struct File {
      fs::file_time_type mtime;
      fs::path path;
      uint64_t size;
    };
    std::vector<File> removable;
    uint64_t total = 0;
    std::error_code ec;
    for (const auto& f : fs::directory_iterator(dir, ec)) {
      if (!f.is_regular_file(ec)) continue;
      const uint64_t size = f.file_size(ec);
      total += size;
      const bool stale = f.path().filename().string().rfind(".incoming-", 0) == 0;  // left by a crash
      if (stale || !in_use.count(f.path().string())) removable.push_back({f.last_write_time(ec), f.path(), size});
    }
    std::sort(removable.begin(), removable.end(), [](const File& a, const File& b) { return a.mtime < b.mtime; });
    for (const auto& f : removable) {
      if (total + bytes <= config_.upload_quota) break;
      if (fs::remove(f.path, ec)) {
        total -= f.size;
        logger().write(2, "uploads over keys.upload_quota: removed " + f.path.string());
      }
    }
    if (total + bytes > config_.upload_quota) {
      return Status(StatusCode::kResourceExhausted,
                    "keys.dir/uploads holds " + engine::human_bytes(total) + " of keys registered now; with this key (" +
                        engine::human_bytes(bytes) + ") it would pass keys.upload_quota (" +
                        engine::human_bytes(config_.upload_quota) + ")");
    }
    return Status();
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
    auto r = await_job(engine_, ctx, job, wait, cancel_on_disconnect,
                       [](int level, const std::string& m) { logger().write(level, m); });
    if (!r.ok()) return to_grpc(r.status());
    fill_result(*r, out);
    return grpc::Status::OK;
  }

  engine::Engine& engine_;
  const DaemonConfig& config_;
  const std::vector<std::string>& warnings_;
  std::mutex upload_mu_;
};

class DaemonImpl final : public Daemon {
 public:
  explicit DaemonImpl(DaemonConfig c) : config_(std::move(c)) {}
  ~DaemonImpl() override {
    stop();
    if (lock_fd_ >= 0) ::close(lock_fd_);
  }

  Status init() {
    // Everything a config can get wrong, and the addresses, before any work (loading keys).
    RETURN_IF_ERROR(check_paths(config_, "config"));
    logger().configure(config_);
    RETURN_IF_ERROR(claim_addresses());
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
    service_ = std::make_unique<Service>(*engine_, config_, warnings_);
    // Curio's cuzk.v1 on the same listener, over the same engine.
    cuzk_service_ = make_cuzk_service(*engine_, {config_.max_await_seconds, config_.cuzk_keys,
                                                 [](int level, const std::string& m) { logger().write(level, m); }});
    grpc::ServerBuilder b;
    int port = 0;
    b.AddListeningPort(config_.listen, grpc::InsecureServerCredentials(), &port);
    b.SetMaxReceiveMessageSize(int(config_.max_message_bytes));
    b.SetMaxSendMessageSize(int(config_.max_message_bytes));
    // One daemon per port: without this gRPC sets SO_REUSEPORT and a second daemon would
    // share the port and take part of the calls.
    b.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    // Keepalive both ways: ping silent clients, drop those that do not answer, and let clients
    // ping as often as every second (snarkd's own do every 5 s), also while a call waits.
    const int keepalive_ms = int(config_.keepalive_seconds) * 1000;
    b.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, keepalive_ms);
    b.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, keepalive_ms);
    b.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    b.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
    b.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 1000);
    b.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
    b.RegisterService(service_.get());
    b.RegisterService(cuzk_service_.get());
    const bool unix_socket = config_.listen.rfind("unix://", 0) == 0;
    // A unix socket is created by bind() with the umask's mode: make it 0660 from the start.
    const mode_t old_umask = unix_socket ? ::umask(0117) : 0;
    server_ = b.BuildAndStart();
    if (unix_socket) ::umask(old_umask);
    if (!server_) return unavailable("listen: cannot listen on '" + config_.listen + "'");
    if (unix_socket) {
      grpc_address_ = config_.listen;
    } else {
      grpc_address_ = config_.listen.substr(0, config_.listen.rfind(':')) + ":" + std::to_string(port);
    }
    if (!config_.http_listen.empty()) RETURN_IF_ERROR(start_http());
    logger().write(2, "snarkd serving gRPC on " + grpc_address_ +
                          (http_address_.empty() ? "" : ", HTTP on " + http_address_));
    for (const auto& w : warnings_) logger().write(1, "WARNING: " + w);
    return Status();
  }

  // Refuses to start where another daemon listens (a second one would orphan a unix socket or
  // share a TCP port), and notes addresses open to every interface.
  Status claim_addresses() {
    if (config_.listen.rfind("unix://", 0) == 0) {
      const std::string path = config_.listen.substr(7);
      // The lock is held for the daemon's life; the kernel drops it when the process ends.
      const std::string lock_path = path + ".lock";
      lock_fd_ = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
      if (lock_fd_ < 0) return unavailable("listen: cannot open '" + lock_path + "': " + std::strerror(errno));
      if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
        return Status(StatusCode::kFailedPrecondition,
                      "listen: '" + config_.listen + "' is in use by another snarkd (it holds " + lock_path + ")");
      }
      struct stat st {};
      if (::lstat(path.c_str(), &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
          return Status(StatusCode::kFailedPrecondition,
                        "listen: '" + path + "' exists and is not a socket; refusing to replace it");
        }
        // A socket file: in use if something accepts on it, else left by a process that died.
        const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un a{};
        a.sun_family = AF_UNIX;
        std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
        const bool live = fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
        if (fd >= 0) ::close(fd);
        if (live) {
          return Status(StatusCode::kFailedPrecondition,
                        "listen: '" + config_.listen + "' is in use by another process");
        }
        ::unlink(path.c_str());
      }
    } else {
      if (std::string why = tcp_bind_problem(config_.listen); !why.empty()) {
        return Status(StatusCode::kFailedPrecondition, "listen: '" + config_.listen + "': " + why);
      }
      if (all_interfaces(split_host_port(config_.listen).first)) {
        warnings_.push_back("gRPC listens on all interfaces (" + config_.listen +
                            ") and has no authentication: anyone who can reach the port can submit proofs, register "
                            "and upload keys; put it behind TLS or a local proxy (docs/security.md)");
      }
    }
    if (!config_.http_listen.empty()) {
      if (std::string why = tcp_bind_problem(config_.http_listen); !why.empty()) {
        return Status(StatusCode::kFailedPrecondition, "http_listen: '" + config_.http_listen + "': " + why);
      }
      if (all_interfaces(split_host_port(config_.http_listen).first)) {
        warnings_.push_back("HTTP (/metrics, /status) listens on all interfaces (" + config_.http_listen +
                            ") and has no authentication (docs/security.md)");
      }
    }
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
    // httplib's default sets SO_REUSEPORT (a second daemon would share the port): address reuse
    // only, for quick restarts.
    http_->set_socket_options([](socket_t sock) {
      int yes = 1;
      ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    http_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(engine_->metrics().render_prometheus(), "text/plain; version=0.0.4; charset=utf-8");
    });
    http_->Get("/status", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(status_json(*engine_, warnings_).dump(1), "application/json");
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
    if (port <= 0) return unavailable("http_listen: cannot listen on '" + config_.http_listen + "'");
    http_address_ = host + ":" + std::to_string(port);
    http_thread_ = std::thread([this] { http_->listen_after_bind(); });
    return Status();
  }

  DaemonConfig config_;
  std::unique_ptr<engine::Engine> engine_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Service> cuzk_service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<httplib::Server> http_;
  std::thread http_thread_;
  std::string grpc_address_, http_address_;
  std::vector<std::string> warnings_;
  int lock_fd_ = -1;  // the unix socket's lock (closed with the process)
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
  if (config.ok()) {
    if (Status st = check_paths(*config, config_path); !st.ok()) config = st;
  }
  if (!config.ok()) {
    std::cerr << "snarkd serve: " << config.status().message() << "\n";
    return 2;
  }
  const uint32_t drain_seconds = config->drain_seconds;
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
    return daemon.status().code() == StatusCode::kInvalidArgument ? 2 : 1;
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
  // The drain runs beside this thread, which keeps taking signals: a second SIGTERM or SIGINT
  // ends the process at once, and so does a drain that overruns its deadline by 15 s (a wedged
  // handler must not keep the process alive).
  std::atomic<bool> stopped{false};
  std::thread drain([&] {
    (*daemon)->stop();
    stopped = true;
  });
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(drain_seconds + 15);
  while (!stopped) {
    timespec tick{0, 100 * 1000 * 1000};
    const int sig = sigtimedwait(&set, nullptr, &tick);
    if (sig == SIGTERM || sig == SIGINT) {
      logger().write(0, std::string("received a second ") + (sig == SIGTERM ? "SIGTERM" : "SIGINT") +
                            ": exiting now, without waiting for the drain");
      std::_Exit(1);
    }
    if (sig == SIGHUP) (*daemon)->reopen_log();
    if (!stopped && std::chrono::steady_clock::now() > limit) {
      logger().write(0, "the drain overran its deadline (" + std::to_string(drain_seconds) +
                            " s + 15 s): exiting now");
      std::_Exit(1);
    }
  }
  drain.join();
  return 0;
}

}  // namespace snarkd::server
