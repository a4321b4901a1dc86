#include "engine/engine.h"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <atomic>

#include "base/hash.h"
#include "engine/circuit_key.h"
#include "gpu/probe.h"
#include "gpu_prover/gpu_backend.h"

namespace snarkd::engine {

const char* priority_name(Priority p) {
  switch (p) {
    case Priority::kCritical: return "critical";
    case Priority::kHigh: return "high";
    case Priority::kNormal: return "normal";
    case Priority::kLow: return "low";
  }
  return "normal";
}

std::optional<Priority> parse_priority(std::string_view name) {
  for (Priority p : {Priority::kCritical, Priority::kHigh, Priority::kNormal, Priority::kLow}) {
    if (name == priority_name(p)) return p;
  }
  return std::nullopt;
}

const char* job_state_name(JobState s) {
  switch (s) {
    case JobState::kQueued: return "queued";
    case JobState::kRunning: return "running";
    case JobState::kCompleted: return "completed";
    case JobState::kFailed: return "failed";
    case JobState::kCancelled: return "cancelled";
  }
  return "queued";
}

const char* key_tier_name(KeyTier t) {
  switch (t) {
    case KeyTier::kCold: return "cold";
    case KeyTier::kWarm: return "warm";
    case KeyTier::kHot: return "hot";
  }
  return "cold";
}

namespace {

using Clock = std::chrono::steady_clock;
using internal::CircuitKey;
using internal::DeviceBackends;
using internal::JobInputs;
using internal::KeySource;
using internal::PartitionData;

constexpr size_t kMaxRequestIdBytes = 256;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

struct KeyEntry {
  KeyInfo info;
  KeySource source;
  Hash128 hash;
  std::string cache_path;  // "" without a WARM tier
  std::shared_ptr<CircuitKey> hot;
  Reservation memory, memory_extra;  // the load-time estimate, and what the real key took beyond it
  size_t loaded_bytes = 0;            // the key's size when it was last loaded (0: never)
  uint32_t in_use = 0;
  bool loading = false;
  bool cached = false;  // the WARM file exists and is valid for this key
  Clock::time_point last_used = Clock::now();
};

class EngineImpl;

// Keeps a key HOT while a partition uses it.
class KeyLease {
 public:
  KeyLease() = default;
  KeyLease(EngineImpl* e, KeyEntry* entry, std::shared_ptr<CircuitKey> key)
      : engine_(e), entry_(entry), key_(std::move(key)) {}
  KeyLease(KeyLease&& o) noexcept { *this = std::move(o); }
  KeyLease& operator=(KeyLease&& o) noexcept {
    if (this != &o) {
      reset();
      engine_ = o.engine_;
      entry_ = o.entry_;
      key_ = std::move(o.key_);
      o.engine_ = nullptr;
      o.entry_ = nullptr;
    }
    return *this;
  }
  ~KeyLease() { reset(); }
  void reset();
  const CircuitKey* get() const { return key_.get(); }
  const CircuitKey* operator->() const { return key_.get(); }
  explicit operator bool() const { return key_ != nullptr; }

 private:
  EngineImpl* engine_ = nullptr;
  KeyEntry* entry_ = nullptr;
  std::shared_ptr<CircuitKey> key_;
};

struct Job;

struct Task {
  std::shared_ptr<Job> job;
  uint32_t index = 0;
  uint32_t attempt = 1;
  KeyLease key;
  Reservation memory;
  std::unique_ptr<PartitionData> data;
  Clock::time_point queued_at = Clock::now();
  // Set when the task did not fit the budget: the budget's generation it tried at. Workers pass
  // it over until the generation moves (memory was given back).
  std::optional<uint64_t> stalled_gen;
  ProveStages stages;  // from prove_start, for the partition's result
};

struct Job {
  uint64_t id = 0;
  uint64_t seq = 0;  // submission order
  ProofRequest request;
  Hash128 digest;  // of the request's content, for idempotency
  // Dropped when the job ends; a partition still synthesizing keeps its own reference.
  std::shared_ptr<JobInputs> inputs;
  JobState state = JobState::kQueued;
  Status error;
  std::vector<PartitionProof> proofs;
  std::vector<bool> done;
  uint32_t done_count = 0;
  JobTimings timings;
  uint32_t retries = 0;
  Clock::time_point submitted = Clock::now();
  std::optional<Clock::time_point> started, finished;
  std::optional<Clock::time_point> deadline;
  bool critical() const { return request.priority == Priority::kCritical; }
};

// Scheduling order: priority class, then the oldest job, then partition order.
bool before(const Task& a, const Task& b) {
  if (a.job->request.priority != b.job->request.priority) return a.job->request.priority < b.job->request.priority;
  if (a.job->seq != b.job->seq) return a.job->seq < b.job->seq;
  return a.index < b.index;
}

bool retryable(const Status& s) {
  switch (s.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kFailedPrecondition:  // e.g. a key file changed since it was registered
    case StatusCode::kPermissionDenied:
    case StatusCode::kNotFound:
    case StatusCode::kCancelled:
    case StatusCode::kResourceExhausted:
    case StatusCode::kDeadlineExceeded:
      return false;
    default:
      return true;
  }
}

struct DeviceState {
  std::unique_ptr<DeviceBackends> backends;
  uint32_t slots = 0, busy = 0;
  double kernel_busy_ms = 0, slot_held_ms = 0;
};

// The budget in bytes: the configured one, or MemoryBudget::auto_total() (read once).
size_t resolved_budget(EngineOptions& o) {
  if (o.memory_budget == 0) o.memory_budget = MemoryBudget::auto_total();
  return o.memory_budget;
}

class EngineImpl final : public Engine {
 public:
  explicit EngineImpl(EngineOptions o)
      : options_(std::move(o)),
        budget_(resolved_budget(options_), options_.critical_reserve ? options_.critical_reserve
                                                                     : resolved_budget(options_) / 8) {}

  Status start() {
    RETURN_IF_ERROR(make_devices());
    if (!options_.key_cache_dir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(options_.key_cache_dir, ec);
      if (ec) return unavailable("key cache directory '" + options_.key_cache_dir + "': " + ec.message());
    }
    declare_metrics();
    budget_.set_reclaimer([this](size_t need) { return evict_idle(need); });
    const uint32_t reserved = options_.reserve_critical ? 1 : 0;
    for (uint32_t i = 0; i < options_.synthesis_workers + reserved; ++i) {
      const bool only_critical = i >= options_.synthesis_workers;
      threads_.emplace_back([this, i, only_critical] { synthesis_loop("synth-" + std::to_string(i), only_critical); });
    }
    for (size_t d = 0; d < devices_.size(); ++d) {
      const uint32_t workers = devices_[d].slots;
      for (uint32_t s = 0; s < workers; ++s) {
        const bool only_critical = reserved && s + 1 == workers;
        threads_.emplace_back([this, d, s, only_critical] {
          prove_loop(int(d), s, "dev" + std::to_string(d) + "-slot" + std::to_string(s), only_critical);
        });
      }
    }
    for (uint32_t i = 0; i < std::max<uint32_t>(1, options_.finalizers); ++i) {
      threads_.emplace_back([this, i] { finalize_loop("finalize-" + std::to_string(i)); });
    }
    janitor_ = std::thread([this] { janitor_loop(); });
    return Status();
  }

  ~EngineImpl() override { shutdown(std::chrono::milliseconds(0)); }

  // ---- keys ----

  Result<KeyInfo> register_key(const std::string& source) override {
    ASSIGN_OR_RETURN(KeySource s, internal::parse_key_source(source));
    ASSIGN_OR_RETURN(Hash128 h, internal::key_source_hash(s));
    const std::string id = "k" + h.hex().substr(0, 24);
    std::lock_guard lock(keys_mu_);
    auto it = keys_.find(id);
    if (it != keys_.end()) return info_locked(*it->second);
    auto e = std::make_unique<KeyEntry>();
    e->source = s;
    e->hash = h;
    e->info.id = id;
    e->info.source = s.text;
    e->info.curve = s.curve;
    e->info.builtin = s.kind == KeySource::Kind::kBuiltin;
    e->info.verifiable = !s.synthetic;
    if (s.porep) e->info.porep_size = std::string(s.porep->size_name);
    ASSIGN_OR_RETURN(e->info.estimated_bytes, internal::estimate_key_bytes(s));
    if (!options_.key_cache_dir.empty()) {
      e->cache_path = (std::filesystem::path(options_.key_cache_dir) / (h.hex() + ".snarkd-key")).string();
      e->cached = std::filesystem::exists(e->cache_path);
    }
    auto& ref = *e;
    keys_[id] = std::move(e);
    metrics_.add("snarkd_keys_registered_total", {});
    return info_locked(ref);
  }

  Status preload_key(const std::string& id) override {
    ASSIGN_OR_RETURN(KeyLease lease, acquire_key(id, /*critical=*/false, {}, 0));
    return Status();  // the lease ends here; the key stays HOT until evicted
  }

  Status evict_key(const std::string& id) override {
    std::lock_guard lock(keys_mu_);
    auto it = keys_.find(id);
    if (it == keys_.end()) return Status(StatusCode::kNotFound, "unknown key '" + id + "'");
    KeyEntry& e = *it->second;
    if (e.in_use > 0 || e.loading) {
      return Status(StatusCode::kFailedPrecondition,
                    "key '" + id + "' is in use by " + std::to_string(e.in_use) + " partitions");
    }
    evict_locked(e);
    return Status();
  }

  Result<KeyInfo> key(const std::string& id) override {
    std::lock_guard lock(keys_mu_);
    auto it = keys_.find(id);
    if (it == keys_.end()) return Status(StatusCode::kNotFound, "unknown key '" + id + "'");
    return info_locked(*it->second);
  }

  Result<std::string> verifying_key(const std::string& id) override {
    ASSIGN_OR_RETURN(KeyLease lease, acquire_key(id, /*critical=*/false, {}, 0));
    return lease->verifying_key_json();
  }

  std::vector<KeyInfo> keys() override {
    std::lock_guard lock(keys_mu_);
    std::vector<KeyInfo> out;
    for (auto& [id, e] : keys_) out.push_back(info_locked(*e));
    return out;
  }

  void release_lease(KeyEntry* e) {
    std::lock_guard lock(keys_mu_);
    if (e->in_use) --e->in_use;
    e->last_used = Clock::now();
  }

  // ---- jobs ----

  // The C1 of a PoRep request, and its partitions' public inputs derived from the ids.
  Result<std::pair<filecoin::C1Output, std::vector<filecoin::PartitionInputs>>> parse_porep(const PorepRequest& r,
                                                                                            const KeyInfo& info) {
    if (info.porep_size.empty()) {
      return invalid_argument("key '" + info.id + "' (" + info.source + ") is not a PoRep key (porep:SIZE)");
    }
    ASSIGN_OR_RETURN(const filecoin::SealProof* key_proof, filecoin::default_seal_proof_for_size(info.porep_size));
    const std::string name = "'" + r.c1_name + "'";
    ASSIGN_OR_RETURN(auto in, filecoin::read_c2_input(std::span<const uint8_t>(
                                                          reinterpret_cast<const uint8_t*>(r.c1.data()), r.c1.size()),
                                                      key_proof, name));
    const filecoin::SealProof& p = *in.c1.registered_proof;
    if (p.sector_size != key_proof->sector_size) {
      return invalid_argument(name + ": a " + std::string(p.name) + " C1 but key '" + info.id + "' proves " +
                              info.porep_size + " sectors");
    }
    if (r.sector && in.sector && *r.sector != *in.sector) {
      return invalid_argument(name + ": SectorNum " + std::to_string(*in.sector) + " but the request names sector " +
                              std::to_string(*r.sector));
    }
    const std::optional<uint64_t> sector = r.sector ? r.sector : in.sector;
    if (!sector) return invalid_argument(name + ": the sector number is required (the C1 does not carry it)");
    auto inputs = filecoin::c2_public_inputs(in.c1, r.prover_id, *sector);
    if (!inputs.ok()) return inputs.status().with_context(name);
    return std::pair(std::move(in.c1), std::move(*inputs));
  }

  Result<uint64_t> submit(ProofRequest request) override {
    if (request.request_id.size() > kMaxRequestIdBytes) {
      return invalid_argument("request_id is " + std::to_string(request.request_id.size()) + " bytes; at most " +
                              std::to_string(kMaxRequestIdBytes) + " are allowed");
    }
    if (request.partitions == 0) return invalid_argument("partitions must be at least 1");
    if (request.partitions > 10000) return invalid_argument("at most 10000 partitions per job");
    ASSIGN_OR_RETURN(KeyInfo info, key(request.key_id));
    // A PoRep C2 job: read the C1 and derive the public inputs now, so bad input is refused at
    // once, naming the file and the field.
    std::shared_ptr<const filecoin::C1Output> c1;
    std::vector<filecoin::PartitionInputs> porep_inputs;
    if (request.porep) {
      ASSIGN_OR_RETURN(auto parsed, parse_porep(*request.porep, info));
      c1 = std::make_shared<const filecoin::C1Output>(std::move(parsed.first));
      porep_inputs = std::move(parsed.second);
      request.partitions = uint32_t(porep_inputs.size());
      if (!request.witness.empty()) return invalid_argument("a PoRep job takes a C1, not a witness");
    } else if (!info.builtin && info.porep_size.empty()) {
      if (request.witness.empty()) return invalid_argument("key '" + request.key_id + "' needs a witness (.wtns bytes)");
      if (request.partitions != 1) return invalid_argument("key '" + request.key_id + "' proves one partition per job");
    } else if (!request.witness.empty()) {
      return invalid_argument("key '" + request.key_id + "' is a built-in circuit: it takes a seed, not a witness");
    }
    ContentHasher h;
    const std::string head = request.key_id + "|" + std::to_string(int(request.priority)) + "|" +
                             std::to_string(request.partitions) + "|" + std::to_string(request.seed) + "|" +
                             std::to_string(request.timeout.count()) + "|";
    h.update(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(head.data()), head.size()));
    h.update(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(request.witness.data()), request.witness.size()));
    if (request.porep) {
      const std::string ids = "|porep|" + std::to_string(request.porep->sector.value_or(~uint64_t(0))) + "|";
      h.update(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(ids.data()), ids.size()));
      h.update(std::span<const uint8_t>(request.porep->prover_id));
      h.update(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(request.porep->c1.data()),
                                        request.porep->c1.size()));
    }
    const Hash128 digest = h.finish();

    // A retried request (its reply was lost) gets its job back before anything is charged.
    {
      std::lock_guard lock(mu_);
      if (auto known = existing_job_locked(request.request_id, digest)) return *known;
    }
    // The witness is in memory from now on: charge it, and refuse at once what can never fit.
    const bool critical = request.priority == Priority::kCritical;
    const size_t limit = budget_.limit(critical);
    const size_t witness_bytes = request.witness.size();
    const size_t key_bytes = info.host_bytes ? info.host_bytes : info.estimated_bytes;
    if (witness_bytes + key_bytes + info.partition_bytes > limit) {
      return Status(StatusCode::kResourceExhausted,
                    "a job on key '" + request.key_id + "' needs " +
                        (witness_bytes ? "its witness (" + human_bytes(witness_bytes) + ") + " : std::string()) +
                        "the key (" + human_bytes(key_bytes) + ")" +
                        (info.partition_bytes ? " + one partition (" + human_bytes(info.partition_bytes) + ")" : "") +
                        " but the memory budget allows " + human_bytes(limit) +
                        (critical ? "" : " for non-critical work"));
    }
    auto inputs = std::make_shared<JobInputs>();
    if (witness_bytes > 0) {
      const std::string what = "the witness of a job on key '" + request.key_id + "'";
      ASSIGN_OR_RETURN(inputs->memory, reserve_now(witness_bytes, critical, what));
      if (inputs->memory.bytes() < witness_bytes) {
        return Status(StatusCode::kResourceExhausted,
                      "the memory budget is full (" + human_bytes(budget_.used()) + " of " +
                          human_bytes(budget_.total()) + " in use): " + what + " (" + human_bytes(witness_bytes) +
                          ") is refused for now; retry later");
      }
    }
    inputs->witness = std::move(request.witness);
    inputs->witness_name = request.witness_name;
    inputs->seed = request.seed;
    inputs->c1 = std::move(c1);
    inputs->porep_inputs = std::move(porep_inputs);
    if (request.porep) {
      inputs->witness_name = request.porep->c1_name;
      request.porep->c1.clear();  // parsed: the job keeps the C1, not its bytes
    }
    request.witness.clear();

    std::unique_lock lock(mu_);
    if (!accepting_) return unavailable("the engine is shutting down");
    if (auto known = existing_job_locked(request.request_id, digest)) return *known;
    auto job = std::make_shared<Job>();
    job->id = new_job_id_locked();
    job->seq = job->id;
    job->digest = digest;
    job->inputs = std::move(inputs);
    job->request = std::move(request);
    job->proofs.resize(job->request.partitions);
    job->done.assign(job->request.partitions, false);
    if (job->request.timeout.count() > 0) job->deadline = job->submitted + job->request.timeout;
    jobs_[job->id] = job;
    if (!job->request.request_id.empty()) by_request_[job->request.request_id] = job->id;
    for (uint32_t i = 0; i < job->request.partitions; ++i) {
      auto t = std::make_unique<Task>();
      t->job = job;
      t->index = i;
      synth_queue_.push_back(std::move(t));
    }
    emit(job->id, -1, "engine", "submit", 0, 0,
         std::string(priority_name(job->request.priority)) + " key " + job->request.key_id + ", " +
             std::to_string(job->request.partitions) + " partitions");
    metrics_.add("snarkd_jobs_submitted_total", {{"priority", priority_name(job->request.priority)}});
    lock.unlock();
    synth_cv_.notify_all();
    return job->id;
  }

  // The job a request id already names: its id when the content is the same (queued, running
  // or completed), ALREADY_EXISTS when it differs and that job has not finished, nullopt when the
  // id is new (or empty) or its job failed, was cancelled or finished with other content: a
  // client's retry (Curio's resends the same id) then proves again.
  std::optional<Result<uint64_t>> existing_job_locked(const std::string& request_id, const Hash128& digest) {
    if (request_id.empty()) return std::nullopt;
    auto it = by_request_.find(request_id);
    if (it == by_request_.end()) return std::nullopt;
    auto j = jobs_.find(it->second);
    if (j == jobs_.end()) return std::nullopt;
    const JobState state = j->second->state;
    const bool same = j->second->digest == digest;
    if (is_terminal(state) && (state != JobState::kCompleted || !same)) return std::nullopt;
    if (same) return Result<uint64_t>(j->second->id);
    return Result<uint64_t>(Status(StatusCode::kAlreadyExists, "request id '" + request_id +
                                                                   "' was already used for a different request (job " +
                                                                   std::to_string(it->second) + ")"));
  }

  Result<JobResult> await(uint64_t id, std::chrono::milliseconds timeout) override {
    std::unique_lock lock(mu_);
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return Status(StatusCode::kNotFound, "unknown job " + std::to_string(id));
    std::shared_ptr<Job> job = it->second;
    const bool done = done_cv_.wait_for(lock, timeout, [&] { return is_terminal(job->state); });
    if (!done) {
      return Status(StatusCode::kDeadlineExceeded, "job " + std::to_string(id) + " is still " +
                                                       job_state_name(job->state) + " after " +
                                                       std::to_string(timeout.count()) + " ms");
    }
    return result_locked(*job);
  }

  Result<JobResult> job(uint64_t id) override {
    std::lock_guard lock(mu_);
    auto it = jobs_.find(id);
    if (it == jobs_.end()) return Status(StatusCode::kNotFound, "unknown job " + std::to_string(id));
    return result_locked(*it->second);
  }

  Result<JobState> cancel(uint64_t id) override {
    std::vector<std::unique_ptr<Task>> dropped;
    JobState state;
    {
      std::lock_guard lock(mu_);
      auto it = jobs_.find(id);
      if (it == jobs_.end()) return Status(StatusCode::kNotFound, "unknown job " + std::to_string(id));
      Job& job = *it->second;
      if (!is_terminal(job.state)) {
        end_job_locked(job, JobState::kCancelled, Status(StatusCode::kCancelled, "cancelled"), dropped);
      }
      state = job.state;
    }
    done_cv_.notify_all();
    synth_cv_.notify_all();
    return state;
  }

  std::vector<JobResult> jobs() override {
    std::lock_guard lock(mu_);
    std::vector<JobResult> out;
    for (const auto& [id, j] : jobs_) {
      out.push_back(result_locked(*j));
      out.back().proofs.clear();
    }
    return out;
  }

  Status set_active_slots(uint32_t per_device) override {
    const uint32_t reserved = options_.reserve_critical ? 1 : 0;
    uint32_t most = 0;
    for (const auto& d : devices_) most = std::max(most, d.slots - reserved);
    if (per_device < 1 || per_device > most) {
      return invalid_argument("active slots " + std::to_string(per_device) + ": the engine has 1 to " +
                              std::to_string(most) + " per device");
    }
    {
      std::lock_guard lock(mu_);
      active_slots_ = per_device;
    }
    prove_cv_.notify_all();
    return Status();
  }

  EngineStatus status() override {
    EngineStatus s;
    {
      std::lock_guard lock(mu_);
      s.queued = synth_queue_.size();
      s.synthesizing = synthesizing_;
      s.waiting = prove_queue_.size();
      s.proving = proving_;
      s.finalizing = finalize_queue_.size() + finalizing_;
      for (const auto& [id, j] : jobs_) {
        s.jobs_queued += j->state == JobState::kQueued;
        s.jobs_running += j->state == JobState::kRunning;
      }
      s.jobs_completed = completed_;
      s.jobs_failed = failed_;
      s.jobs_cancelled = cancelled_;
      s.accepting = accepting_;
      for (size_t d = 0; d < devices_.size(); ++d) {
        DeviceStatus ds;
        ds.device = int(d);
        ds.backend = devices_[d].backends->kind;
        ds.slots = devices_[d].slots;
        ds.busy_slots = devices_[d].busy;
        ds.kernel_busy_ms = devices_[d].kernel_busy_ms;
        ds.slot_held_ms = devices_[d].slot_held_ms;
        ds.uptime_ms = ms_between(timeline_.origin(), Clock::now());
        s.devices.push_back(ds);
      }
    }
    s.keys = keys();
    s.memory_budget = budget_.total();
    s.memory_used = budget_.used();
    s.memory_peak = budget_.peak();
    s.uptime_ms = ms_between(timeline_.origin(), Clock::now());
    return s;
  }

  void shutdown(std::chrono::milliseconds deadline) override {
    std::unique_lock lock(mu_);
    if (shut_down_) return;
    accepting_ = false;
    done_cv_.wait_for(lock, deadline, [&] {
      for (const auto& [id, j] : jobs_) {
        if (!is_terminal(j->state)) return false;
      }
      return true;
    });
    std::vector<std::unique_ptr<Task>> dropped;
    for (auto& [id, j] : jobs_) {
      if (!is_terminal(j->state)) {
        end_job_locked(*j, JobState::kFailed, unavailable("the engine shut down before the job finished"), dropped);
      }
    }
    stopping_ = true;
    shut_down_ = true;
    lock.unlock();
    dropped.clear();
    done_cv_.notify_all();
    synth_cv_.notify_all();
    prove_cv_.notify_all();
    finalize_cv_.notify_all();
    janitor_cv_.notify_all();
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
    if (janitor_.joinable()) janitor_.join();
  }

  const Timeline& timeline() const override { return timeline_; }
  MetricsRegistry& metrics() override { return metrics_; }
  const MemoryBudget& memory() const override { return budget_; }
  std::string backend_note() const override { return backend_note_; }

 private:
  // ---- devices ----

  Status make_devices() {
    BackendKind kind = options_.backend;
    std::vector<int> gpus = options_.gpus;
    if (kind != BackendKind::kCpu) {
      auto probe = gpu::probe_devices();
      if (!probe.usable() || !gpu_prover::gpu_backend_compiled()) {
        const std::string why = !gpu_prover::gpu_backend_compiled() ? "this build has no CUDA" : probe.reason;
        if (kind == BackendKind::kGpu) return unavailable("no usable GPU: " + why);
        backend_note_ = "no GPU backend (" + why + "); using the CPU";
        kind = BackendKind::kCpu;
      } else {
        kind = BackendKind::kGpu;
        if (gpus.empty()) {
          for (const auto& d : probe.devices) gpus.push_back(d.ordinal);
        }
      }
    }
    const uint32_t reserved = options_.reserve_critical ? 1 : 0;
    // A partition holds only its witness on a GPU: a, b, c live on the device, or, evaluated on
    // the host, in the key's own buffers, which the backend charges through reserve_host.
    abc_on_host_ = kind == BackendKind::kCpu;
    if (kind == BackendKind::kCpu) {
      for (uint32_t d = 0; d < std::max<uint32_t>(1, options_.cpu_devices); ++d) {
        DeviceState ds;
        ds.backends = std::make_unique<DeviceBackends>();
        ds.backends->device = int(d);
        ds.backends->kind = "cpu";
        ds.backends->bls12_381 = std::make_unique<groth16::CpuBackend<ec::bls12_381::Engine>>();
        ds.backends->bn254 = std::make_unique<groth16::CpuBackend<ec::bn254::Engine>>();
        ds.slots = std::max<uint32_t>(1, options_.cpu_workers) + reserved;
        devices_.push_back(std::move(ds));
      }
      return Status();
    }
    for (size_t d = 0; d < gpus.size(); ++d) {
      gpu_prover::GpuBackendOptions g;
      g.device = gpus[d];
      g.slots = std::max<uint32_t>(1, options_.gpu_slots) + reserved;
      g.key_memory_limit = options_.gpu_key_memory_limit;
      g.base_copies = options_.gpu_base_copies;
      g.evaluate_on_device = options_.gpu_evaluate_on_device;
      g.device_memory_limit = options_.gpu_device_memory_limit;
      // The backend's page-locked buffers count against the budget too (charged, never refused).
      g.reserve_host = budget_.host_hook();
      DeviceState ds;
      ds.backends = std::make_unique<DeviceBackends>();
      ds.backends->device = int(d);
      ds.backends->kind = "gpu";
      ASSIGN_OR_RETURN(ds.backends->bls12_381, gpu_prover::make_gpu_backend<ec::bls12_381::Engine>(g));
      ASSIGN_OR_RETURN(ds.backends->bn254, gpu_prover::make_gpu_backend<ec::bn254::Engine>(g));
      ds.slots = g.slots;
      devices_.push_back(std::move(ds));
    }
    return Status();
  }

  // ---- key registry ----

  KeyInfo info_locked(const KeyEntry& e) const {
    KeyInfo i = e.info;
    i.tier = e.hot ? KeyTier::kHot : e.cached ? KeyTier::kWarm : KeyTier::kCold;
    i.host_bytes = e.hot ? e.hot->host_bytes() : 0;
    i.partition_bytes = e.hot ? e.hot->partition_bytes(abc_on_host_) : i.partition_bytes;
    i.in_use = e.in_use;
    if (!e.hot) i.devices.clear();
    return i;
  }

  void forget_on_devices(const CircuitKey& key) {
    for (auto& d : devices_) key.forget(*d.backends);
  }

  void evict_locked(KeyEntry& e) {
    if (!e.hot) return;
    forget_on_devices(*e.hot);
    e.hot.reset();
    e.memory.release();
    e.memory_extra.release();
    e.info.devices.clear();
    emit(0, -1, "engine", "key_evict", 0, 0, e.info.id);
    metrics_.add("snarkd_key_evictions_total", {});
  }

  // The budget's reclaimer: evicts idle HOT keys, least recently used first (never `keep`).
  bool evict_idle(size_t need, const std::string& keep = {}) {
    std::lock_guard lock(keys_mu_);
    std::vector<KeyEntry*> idle;
    for (auto& [id, e] : keys_) {
      if (e->hot && e->in_use == 0 && !e->loading && id != keep) idle.push_back(e.get());
    }
    std::sort(idle.begin(), idle.end(), [](KeyEntry* a, KeyEntry* b) { return a->last_used < b->last_used; });
    size_t freed = 0;
    for (KeyEntry* e : idle) {
      if (freed >= need) break;
      freed += e->memory.bytes() + e->memory_extra.bytes();
      evict_locked(*e);
    }
    return freed > 0;
  }

  // The budget's try_reserve, evicting idle keys (never `keep`) once when the bytes do not fit:
  // an empty reservation when they still do not, an error when they never can.
  Result<Reservation> reserve_now(size_t bytes, bool critical, std::string_view what, const std::string& keep = {}) {
    ASSIGN_OR_RETURN(Reservation r, budget_.try_reserve(bytes, critical, what));
    if (r.bytes() < bytes && evict_idle(bytes, keep)) return budget_.try_reserve(bytes, critical, what);
    return r;
  }

  // Bytes the key's reservations hold now (0 when it is not HOT).
  size_t key_reserved_bytes(const std::string& id) {
    std::lock_guard lock(keys_mu_);
    auto it = keys_.find(id);
    return it == keys_.end() ? 0 : it->second->memory.bytes() + it->second->memory_extra.bytes();
  }

  // A lease on a HOT key, loading it first when needed. With `later` set, a load that does not
  // fit the budget now (after evicting idle keys) does not wait: *later becomes true and the
  // lease is empty. Without it, the load waits for memory until `give_up`.
  Result<KeyLease> acquire_key(const std::string& id, bool critical, const std::function<bool()>& give_up,
                               uint64_t job_id, double* load_ms = nullptr, bool* later = nullptr) {
    std::unique_lock lock(keys_mu_);
    auto it = keys_.find(id);
    if (it == keys_.end()) return Status(StatusCode::kNotFound, "unknown key '" + id + "'");
    KeyEntry& e = *it->second;
    keys_cv_.wait(lock, [&] { return !e.loading; });
    if (e.hot) {
      ++e.in_use;
      e.last_used = Clock::now();
      return KeyLease(this, &e, e.hot);
    }
    e.loading = true;
    // What the load reserves first: the estimate from the source, or the key's real size once
    // it was loaded before (an estimate above it could refuse a load that fits).
    const size_t known = e.loaded_bytes;
    lock.unlock();
    auto finish = [&](Status st) {
      std::lock_guard l(keys_mu_);
      e.loading = false;
      keys_cv_.notify_all();
      return st;
    };
    const auto t0 = Clock::now();
    auto estimate = known ? Result<size_t>(known) : internal::estimate_key_bytes(e.source);
    if (!estimate.ok()) return finish(estimate.status());
    const std::string what = "key '" + id + "'";
    Result<Reservation> memory = Reservation();
    if (later) {
      memory = reserve_now(*estimate, critical, what);
      if (memory.ok() && memory->bytes() < *estimate) {
        *later = true;
        (void)finish(Status());
        return KeyLease();
      }
    } else {
      memory = budget_.reserve(*estimate, critical, what, give_up);
    }
    if (!memory.ok()) return finish(memory.status());
    bool from_cache = false;
    std::string note;
    ++loads_in_flight_;
    auto loaded = internal::load_circuit_key(e.source, e.hash, e.cache_path, from_cache, note);
    --loads_in_flight_;
    if (!loaded.ok()) return finish(loaded.status().with_context("loading key '" + id + "'"));
    if (options_.gpu_adopts_keys && devices_.size() == 1 && devices_.front().backends->kind == "gpu") {
      const auto a0 = Clock::now();
      auto adopted = (*loaded)->adopt(*devices_.front().backends);
      if (!adopted.ok()) return finish(adopted.status().with_context("loading key '" + id + "' onto the GPU"));
      char took[48];
      std::snprintf(took, sizeof took, " in %.1f s", ms_between(a0, Clock::now()) / 1000.0);
      note += (note.empty() ? "" : "; ") + *adopted + took;
    }
    const size_t actual = (*loaded)->host_bytes();
    Reservation extra;
    if (actual < memory->bytes()) {
      memory->shrink(actual);
    } else if (actual > memory->bytes()) {
      // The bytes are already allocated: count them (waiting here would hold the key while
      // waiting, the pattern that deadlocks).
      extra = budget_.charge(actual - memory->bytes());
    }
    const auto t1 = Clock::now();
    emit(job_id, -1, "keys", "key_load", timeline_.to_ns(t0), timeline_.to_ns(t1) - timeline_.to_ns(t0),
         id + " " + note);
    metrics_.add("snarkd_key_loads_total", {{"from", from_cache ? "cache" : "source"}});
    metrics_.observe("snarkd_stage_seconds", {{"stage", "key_load"}}, ms_between(t0, t1) / 1000.0);
    if (load_ms) *load_ms = ms_between(t0, t1);
    std::lock_guard l(keys_mu_);
    e.hot = *loaded;
    e.memory = std::move(*memory);
    e.memory_extra = std::move(extra);
    e.cached = from_cache || (!e.cache_path.empty() && std::filesystem::exists(e.cache_path));
    e.info.num_variables = e.hot->num_variables();
    e.info.num_public = e.hot->num_public();
    e.info.log_domain_size = e.hot->log_domain_size();
    e.info.partition_bytes = e.hot->partition_bytes(abc_on_host_);
    e.loaded_bytes = actual;
    e.info.estimated_bytes = actual;
    e.info.load_note = note;
    e.loading = false;
    ++e.in_use;
    e.last_used = Clock::now();
    keys_cv_.notify_all();
    return KeyLease(this, &e, e.hot);
  }

  // Job ids never repeat, not even across restarts: each is at least the wall clock in
  // microseconds since 1970 when it is made, and above the previous one. A later run starts
  // above every id an earlier run handed out unless that run made more than one job per
  // microsecond or the clock was set back by more than the earlier run lasted. They stay below
  // 2^53 (exact in JSON numbers) until the year 2255.
  uint64_t new_job_id_locked() {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    const uint64_t us = uint64_t(std::chrono::duration_cast<std::chrono::microseconds>(now).count());
    last_job_id_ = std::max(last_job_id_ + 1, us);
    return last_job_id_;
  }

  // ---- pipeline ----

  void emit(uint64_t job, int32_t partition, std::string track, std::string stage, int64_t t_ns, int64_t dur_ns,
            std::string detail = {}, int32_t device = -1) {
    TimelineEvent e;
    e.t_ns = dur_ns == 0 && t_ns == 0 ? timeline_.now_ns() : t_ns;
    e.dur_ns = dur_ns;
    e.job = job;
    e.partition = partition;
    e.track = std::move(track);
    e.stage = std::move(stage);
    e.detail = std::move(detail);
    e.device = device;
    timeline_.record(std::move(e));
  }
  void span(const Task& t, const std::string& track, const std::string& stage, Clock::time_point a,
            Clock::time_point b, std::string detail = {}, int32_t device = -1) {
    const int64_t start = timeline_.to_ns(a);
    emit(t.job->id, int32_t(t.index), track, stage, start, std::max<int64_t>(1, timeline_.to_ns(b) - start),
         std::move(detail), device);
    metrics_.observe("snarkd_stage_seconds", {{"stage", stage}}, ms_between(a, b) / 1000.0);
  }

  Status inject(const Task& t, std::string_view stage) {
    if (!options_.fault_injector) return Status();
    return options_.fault_injector(FaultPoint{t.job->id, t.index, t.attempt, stage, t.job->request.request_id});
  }

  // Runs a stage body, turning exceptions into errors so a worker never dies.
  template <class Fn>
  static Status guarded(Fn&& fn) {
    try {
      return fn();
    } catch (const std::exception& ex) {
      return internal_error(std::string("exception: ") + ex.what());
    } catch (...) {
      return internal_error("unknown exception");
    }
  }

  // Picks the next task from `queue` for a worker; nullptr when none is eligible.
  template <class Eligible>
  static size_t pick(const std::vector<std::unique_ptr<Task>>& queue, Eligible&& eligible, size_t preferred = SIZE_MAX) {
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < queue.size(); ++i) {
      if (!eligible(*queue[i])) continue;
      if (best == SIZE_MAX || before(*queue[i], *queue[best])) best = i;
    }
    if (preferred != SIZE_MAX && best != SIZE_MAX &&
        queue[preferred]->job->request.priority == queue[best]->job->request.priority) {
      return preferred;
    }
    return best;
  }

  void synthesis_loop(const std::string& name, bool only_critical) {
    for (;;) {
      std::unique_ptr<Task> task;
      {
        std::unique_lock lock(mu_);
        for (;;) {
          if (stopping_) return;
          const uint64_t gen = budget_.generation();
          // Every worker may be busy while prove_queue_depth partitions wait: the bound is on
          // synthesized work waiting, not on synthesis in flight.
          const bool room = prove_queue_.size() + synthesizing_ < options_.prove_queue_depth + options_.synthesis_workers;
          bool stalled = false;
          const size_t i = pick(synth_queue_, [&](const Task& t) {
            if (t.stalled_gen && *t.stalled_gen == gen) {
              stalled = true;
              return false;
            }
            return t.job->critical() || (!only_critical && room);
          });
          if (i != SIZE_MAX) {
            task = std::move(synth_queue_[i]);
            synth_queue_.erase(synth_queue_.begin() + ptrdiff_t(i));
            break;
          }
          std::vector<std::unique_ptr<Task>> dropped;
          if (stalled && break_budget_deadlock_locked(gen, dropped)) {
            lock.unlock();
            dropped.clear();
            done_cv_.notify_all();
            lock.lock();
            continue;
          }
          // Giving memory back does not signal this queue: waiting tasks are looked at again
          // on a short clock.
          if (stalled) {
            synth_cv_.wait_for(lock, std::chrono::milliseconds(20));
          } else {
            synth_cv_.wait(lock);
          }
        }
        ++synthesizing_;
        Job& job = *task->job;
        if (job.state == JobState::kQueued) {
          job.state = JobState::kRunning;
          job.started = Clock::now();
          job.timings.queue_ms = ms_between(job.submitted, *job.started);
        }
      }
      run_synthesis(std::move(task), name);
      {
        std::lock_guard lock(mu_);
        --synthesizing_;
      }
      synth_cv_.notify_all();
    }
  }

  bool abandoned(const Job& job) {
    std::lock_guard lock(mu_);
    return is_terminal(job.state) || stopping_;
  }

  // Takes what a partition needs from the budget: a lease on its key (loaded if need be) and
  // the partition's bytes, never waiting while holding either (a task that held its key while
  // waiting for partition bytes could wait forever on another that holds its own key). When
  // they do not fit now, `later` is set and nothing is held. When they can never fit, even
  // with nothing else in the budget, the error says so with the sizes.
  Status admit(Task& task, const JobInputs& inputs, bool& later) {
    Job& job = *task.job;
    const bool critical = job.critical();
    later = false;
    task.stalled_gen = budget_.generation();  // read before trying: a release after it retries the task
    double load_ms = 0;
    ASSIGN_OR_RETURN(task.key, acquire_key(job.request.key_id, critical, {}, job.id, &load_ms, &later));
    if (load_ms > 0) {
      std::lock_guard lock(mu_);
      job.timings.key_load_ms += load_ms;
    }
    if (later) return Status();
    const size_t partition = task.key->partition_bytes(abc_on_host_);
    const size_t key = key_reserved_bytes(job.request.key_id);
    const size_t witness = inputs.memory.bytes();
    const size_t limit = budget_.limit(critical);
    const std::string what = "partition " + std::to_string(task.index) + " of job " + std::to_string(job.id);
    if (partition + key + witness > limit) {
      return Status(StatusCode::kResourceExhausted,
                    what + " needs " + human_bytes(partition) + " beside its key's " + human_bytes(key) +
                        (witness ? " and its witness's " + human_bytes(witness) : std::string()) +
                        " but the memory budget allows " + human_bytes(limit) +
                        (critical ? "" : " for non-critical work"));
    }
    ASSIGN_OR_RETURN(Reservation r, reserve_now(partition, critical, what, job.request.key_id));
    if (r.bytes() < partition) {
      later = true;
      task.key.reset();
      return Status();
    }
    task.memory = std::move(r);
    task.stalled_gen.reset();
    return Status();
  }

  void run_synthesis(std::unique_ptr<Task> task, const std::string& track) {
    Job& job = *task->job;
    std::shared_ptr<const JobInputs> inputs;
    {
      std::lock_guard lock(mu_);
      if (is_terminal(job.state) || stopping_) return;
      inputs = job.inputs;
    }
    const auto t0 = Clock::now();
    bool later = false;
    Status st = guarded([&]() -> Status {
      RETURN_IF_ERROR(admit(*task, *inputs, later));
      if (later) return Status();
      RETURN_IF_ERROR(inject(*task, "synthesize"));
      const auto s0 = Clock::now();
      ASSIGN_OR_RETURN(task->data, task->key->synthesize(*inputs, task->index));
      const auto s1 = Clock::now();
      span(*task, track, "synthesize", s0, s1);
      std::lock_guard lock(mu_);
      job.timings.synthesis_ms += ms_between(s0, s1);
      return Status();
    });
    inputs.reset();
    if (!st.ok()) return partition_failed(std::move(task), st, track, t0);
    if (later) {
      // Back to the queue, holding nothing, until memory is given back.
      task->key.reset();
      task->memory.release();
      budget_.note_wait();
      std::lock_guard lock(mu_);
      if (is_terminal(job.state) || stopping_) return;
      synth_queue_.push_back(std::move(task));
      return;
    }
    {
      std::lock_guard lock(mu_);
      if (is_terminal(job.state) || stopping_) return;
      task->queued_at = Clock::now();
      prove_queue_.push_back(std::move(task));
    }
    prove_cv_.notify_all();
  }

  // Called when no queued partition can be tried (every one waits for memory that has not
  // moved since it tried). If nothing is in flight either, nothing will ever give memory back:
  // the newest waiting job is failed, with the sizes, so its inputs go and the others can run.
  // Returns whether it failed a job.
  bool break_budget_deadlock_locked(uint64_t gen, std::vector<std::unique_ptr<Task>>& dropped) {
    Task* newest = nullptr;
    for (const auto& t : synth_queue_) {
      if (!t->stalled_gen || *t->stalled_gen != gen) return false;  // another worker may take it
      if (!newest || t->job->seq > newest->job->seq) newest = t.get();
    }
    if (!newest || synthesizing_ || !prove_queue_.empty() || proving_ || !finalize_queue_.empty() || finalizing_ ||
        loads_in_flight_ > 0) {
      return false;
    }
    size_t inputs = 0, waiting_jobs = 0;
    for (const auto& [id, j] : jobs_) {
      if (!is_terminal(j->state) && j->inputs) {
        inputs += j->inputs->memory.bytes();
        ++waiting_jobs;
      }
    }
    Job& job = *newest->job;
    end_job_locked(job, JobState::kFailed,
                   Status(StatusCode::kResourceExhausted,
                          "partition " + std::to_string(newest->index) + " never fit the memory budget (" +
                              human_bytes(budget_.used()) + " of " + human_bytes(budget_.total()) +
                              " held with nothing in flight to give any back; the inputs of " +
                              std::to_string(waiting_jobs) + " waiting jobs hold " + human_bytes(inputs) +
                              "): the newest waiting job is failed so the others can run"),
                   dropped);
    return true;
  }

  void prove_loop(int device, uint32_t slot, const std::string& track, bool only_critical) {
    DeviceState& dev = devices_[size_t(device)];
    for (;;) {
      std::unique_ptr<Task> task;
      {
        std::unique_lock lock(mu_);
        size_t i = SIZE_MAX;
        prove_cv_.wait(lock, [&] {
          if (stopping_) return true;
          if (!only_critical && slot >= active_slots_) return false;
          auto eligible = [&](const Task& t) { return !only_critical || t.job->critical(); };
          // Prefer the oldest eligible task of the best class whose key this device holds.
          size_t preferred = SIZE_MAX;
          for (size_t k = 0; k < prove_queue_.size(); ++k) {
            const Task& t = *prove_queue_[k];
            if (!eligible(t) || !key_on_device(t.job->request.key_id, device)) continue;
            if (preferred == SIZE_MAX || before(t, *prove_queue_[preferred])) preferred = k;
          }
          i = pick(prove_queue_, eligible, preferred);
          return i != SIZE_MAX;
        });
        if (stopping_) return;
        task = std::move(prove_queue_[i]);
        prove_queue_.erase(prove_queue_.begin() + ptrdiff_t(i));
        ++proving_;
        ++dev.busy;
        key_devices_[task->job->request.key_id].insert(device);
      }
      synth_cv_.notify_all();  // room in the prove queue
      run_prove(std::move(task), dev, device, track);
      {
        std::lock_guard lock(mu_);
        --proving_;
        --dev.busy;
      }
    }
  }

  bool key_on_device(const std::string& key, int device) const {
    auto it = key_devices_.find(key);
    return it != key_devices_.end() && it->second.count(device);
  }

  void run_prove(std::unique_ptr<Task> task, DeviceState& dev, int device, const std::string& track) {
    Job& job = *task->job;
    const auto now = Clock::now();
    span(*task, "queue", "queue", task->queued_at, now);
    {
      std::lock_guard lock(mu_);
      job.timings.wait_ms += ms_between(task->queued_at, now);
    }
    if (abandoned(job)) return;
    const auto t0 = Clock::now();
    groth16::StageTimings tm;
    Status st = guarded([&]() -> Status {
      RETURN_IF_ERROR(inject(*task, "prove"));
      ASSIGN_OR_RETURN(tm, task->key->prove_start(*dev.backends, *task->data));
      return Status();
    });
    const auto t1 = Clock::now();
    span(*task, track, "prove", t0, t1, st.ok() ? "" : st.message(), device);
    if (!st.ok()) return partition_failed(std::move(task), st, track, t0);
    const double busy = tm.kernel_busy_ms();
    task->stages = ProveStages{tm.evaluate_ms, tm.quotient_ms, tm.msm_a_ms, tm.msm_b1_ms, tm.msm_b2_ms,
                               tm.msm_c_ms,    tm.msm_h_ms,    tm.key_upload_ms, busy, ms_between(t0, t1), 0,
                               tm.active_slots > 0 ? tm.key_matrices : "", tm.key_streamed, tm.active_slots};
    if (!tm.device.empty() && tm.device_epoch != Clock::time_point{}) {
      const int64_t epoch_ns = timeline_.to_ns(tm.device_epoch);
      const std::string kernels = "dev" + std::to_string(device) + "-kernels";
      for (const auto& d : tm.device) {
        emit(job.id, int32_t(task->index), kernels, "kernel." + d.stage, epoch_ns + int64_t(d.start_ms * 1e6),
             std::max<int64_t>(1, int64_t(d.ms() * 1e6)), "", device);
      }
    }
    metrics_.add("snarkd_device_kernel_busy_seconds_total", {{"device", std::to_string(device)}}, busy / 1000.0);
    metrics_.add("snarkd_device_slot_held_seconds_total", {{"device", std::to_string(device)}}, ms_between(t0, t1) / 1000.0);
    {
      std::lock_guard lock(mu_);
      job.timings.kernel_busy_ms += busy;
      job.timings.slot_held_ms += ms_between(t0, t1);
      dev.kernel_busy_ms += busy;
      dev.slot_held_ms += ms_between(t0, t1);
      if (is_terminal(job.state) || stopping_) return;
      finalize_queue_.push_back(std::move(task));
    }
    finalize_cv_.notify_one();
  }

  void finalize_loop(const std::string& track) {
    for (;;) {
      std::unique_ptr<Task> task;
      {
        std::unique_lock lock(mu_);
        finalize_cv_.wait(lock, [&] { return stopping_ || !finalize_queue_.empty(); });
        if (stopping_) return;
        task = std::move(finalize_queue_.front());
        finalize_queue_.pop_front();
        ++finalizing_;
      }
      run_finalize(std::move(task), track);
      {
        std::lock_guard lock(mu_);
        --finalizing_;
      }
    }
  }

  void run_finalize(std::unique_ptr<Task> task, const std::string& track) {
    std::shared_ptr<Job> job = task->job;
    if (abandoned(*job)) return;
    const auto t0 = Clock::now();
    PartitionProof proof;
    Status st = guarded([&]() -> Status {
      RETURN_IF_ERROR(inject(*task, "finalize"));
      ASSIGN_OR_RETURN(proof, task->key->finish(*task->data, options_.verify_proofs));
      return Status();
    });
    const auto t1 = Clock::now();
    span(*task, track, "finalize", t0, t1, st.ok() ? "" : st.message());
    if (!st.ok()) return partition_failed(std::move(task), st, track, t0);
    proof.stages = task->stages;
    proof.stages.finalize_ms = ms_between(t0, t1);
    const uint32_t index = task->index;
    task.reset();  // frees the witness and its reservation, and the key lease
    std::vector<std::unique_ptr<Task>> dropped;
    {
      std::lock_guard lock(mu_);
      job->timings.finalize_ms += ms_between(t0, t1);
      if (is_terminal(job->state) || job->done[index]) return;
      job->done[index] = true;
      job->proofs[index] = std::move(proof);
      ++job->done_count;
      metrics_.add("snarkd_partitions_total", {{"result", "completed"}});
      if (job->done_count == job->request.partitions) {
        end_job_locked(*job, JobState::kCompleted, Status(), dropped);
      }
    }
    done_cv_.notify_all();
  }

  void partition_failed(std::unique_ptr<Task> task, const Status& st, const std::string& track,
                        Clock::time_point since) {
    std::shared_ptr<Job> job = task->job;
    const uint32_t index = task->index, attempt = task->attempt;
    emit(job->id, int32_t(index), track, "error", timeline_.to_ns(since), 0,
         "attempt " + std::to_string(attempt) + ": " + st.to_string());
    // Free what the failed attempt held before it waits in a queue again.
    task->data.reset();
    task->memory.release();
    task->key.reset();
    std::vector<std::unique_ptr<Task>> dropped;
    {
      std::lock_guard lock(mu_);
      if (is_terminal(job->state) || stopping_) return;
      if (retryable(st) && attempt <= options_.max_retries) {
        ++task->attempt;
        task->stalled_gen.reset();
        ++job->retries;
        metrics_.add("snarkd_partitions_total", {{"result", "retried"}});
        emit(job->id, int32_t(index), "engine", "retry", 0, 0, "attempt " + std::to_string(attempt + 1));
        synth_queue_.push_back(std::move(task));
      } else {
        metrics_.add("snarkd_partitions_total", {{"result", "failed"}});
        end_job_locked(*job, JobState::kFailed,
                       Status(st.code(), "partition " + std::to_string(index) + " (attempt " +
                                             std::to_string(attempt) + "): " + st.message()),
                       dropped);
      }
    }
    synth_cv_.notify_all();
    done_cv_.notify_all();
  }

  // Ends a job (completed, failed or cancelled) and takes its queued partitions out; the
  // caller destroys `dropped` after unlocking (their leases take the key lock).
  void end_job_locked(Job& job, JobState state, Status error, std::vector<std::unique_ptr<Task>>& dropped) {
    job.state = state;
    job.error = std::move(error);
    job.finished = Clock::now();
    job.timings.total_ms = ms_between(job.submitted, *job.finished);
    job.inputs.reset();  // the witness and its reservation go once no partition reads them
    auto take = [&](auto& queue) {
      for (auto it = queue.begin(); it != queue.end();) {
        if ((*it)->job.get() == &job) {
          dropped.push_back(std::move(*it));
          it = queue.erase(it);
        } else {
          ++it;
        }
      }
    };
    take(synth_queue_);
    take(prove_queue_);
    take(finalize_queue_);
    if (state == JobState::kCompleted) ++completed_;
    if (state == JobState::kFailed) ++failed_;
    if (state == JobState::kCancelled) ++cancelled_;
    metrics_.add("snarkd_jobs_finished_total", {{"state", job_state_name(state)}});
    metrics_.observe("snarkd_job_seconds", {{"state", job_state_name(state)}}, job.timings.total_ms / 1000.0);
    emit(job.id, -1, "engine", job_state_name(state), 0, 0, job.error.ok() ? "" : job.error.to_string());
  }

  JobResult result_locked(const Job& job) const {
    JobResult r;
    r.job_id = job.id;
    r.request_id = job.request.request_id;
    r.key_id = job.request.key_id;
    r.priority = job.request.priority;
    r.state = job.state;
    r.error = job.error;
    r.partitions = job.request.partitions;
    r.partitions_done = job.done_count;
    if (job.state == JobState::kCompleted) r.proofs = job.proofs;
    r.timings = job.timings;
    if (!job.finished) r.timings.total_ms = ms_between(job.submitted, Clock::now());
    r.retries = job.retries;
    return r;
  }

  // Deadlines and pruning of finished jobs.
  void janitor_loop() {
    std::unique_lock lock(mu_);
    while (!stopping_) {
      janitor_cv_.wait_for(lock, std::chrono::milliseconds(20));
      if (stopping_) break;
      const auto now = Clock::now();
      std::vector<std::unique_ptr<Task>> dropped;
      bool ended = false;
      std::vector<std::pair<Clock::time_point, uint64_t>> finished;
      for (auto& [id, j] : jobs_) {
        if (!is_terminal(j->state) && j->deadline && now >= *j->deadline) {
          end_job_locked(*j, JobState::kFailed,
                         Status(StatusCode::kDeadlineExceeded,
                                "the job did not finish within its timeout of " +
                                    std::to_string(j->request.timeout.count()) + " ms"),
                         dropped);
          ended = true;
        }
        if (is_terminal(j->state)) finished.push_back({*j->finished, id});
      }
      std::sort(finished.begin(), finished.end());
      const size_t excess = finished.size() > options_.keep_finished_jobs ? finished.size() - options_.keep_finished_jobs : 0;
      for (size_t k = 0; k < finished.size(); ++k) {
        if (k >= excess && now - finished[k].first < options_.keep_finished_for) continue;
        auto it = jobs_.find(finished[k].second);
        const std::string& rid = it->second->request.request_id;
        auto r = by_request_.find(rid);
        if (!rid.empty() && r != by_request_.end() && r->second == it->first) by_request_.erase(r);
        jobs_.erase(it);
      }
      if (!dropped.empty() || ended) {
        lock.unlock();
        dropped.clear();
        done_cv_.notify_all();
        synth_cv_.notify_all();
        lock.lock();
      }
    }
  }

  // ---- metrics ----

  void declare_metrics() {
    using T = MetricsRegistry::Type;
    auto& m = metrics_;
    m.declare("snarkd_jobs_submitted_total", T::kCounter, "Proof jobs accepted, by priority.");
    m.declare("snarkd_jobs_finished_total", T::kCounter, "Proof jobs that ended, by final state.");
    m.declare("snarkd_partitions_total", T::kCounter, "Partition outcomes: completed, retried, failed.");
    const std::vector<double> seconds = {0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300};
    m.declare("snarkd_stage_seconds", T::kHistogram, "Duration of pipeline stages.", seconds);
    m.declare("snarkd_job_seconds", T::kHistogram, "Submit-to-end time of jobs, by final state.", seconds);
    m.declare("snarkd_queue_depth", T::kGauge, "Partitions waiting in each queue.");
    m.declare("snarkd_partitions_active", T::kGauge, "Partitions in a stage now.");
    m.declare("snarkd_jobs", T::kGauge, "Jobs known to the engine, by state.");
    m.declare("snarkd_memory_budget_bytes", T::kGauge, "The host memory budget.");
    m.declare("snarkd_memory_reserved_bytes", T::kGauge, "Host memory reserved now.");
    m.declare("snarkd_memory_peak_bytes", T::kGauge, "Most host memory ever reserved at once.");
    m.declare("snarkd_keys", T::kGauge, "Registered keys by tier.");
    m.declare("snarkd_keys_registered_total", T::kCounter, "Key registrations.");
    m.declare("snarkd_key_loads_total", T::kCounter, "Key loads, from the WARM cache or the source.");
    m.declare("snarkd_key_evictions_total", T::kCounter, "Keys evicted from memory.");
    m.declare("snarkd_device_kernel_busy_seconds_total", T::kCounter,
              "Device time executing proof kernels (CUDA events; 0 on the CPU backend).");
    m.declare("snarkd_device_slot_held_seconds_total", T::kCounter, "Time prover slots were held, summed over slots.");
    m.declare("snarkd_device_slots", T::kGauge, "Prover slots per device.");
    m.declare("snarkd_uptime_seconds", T::kGauge, "Seconds since the engine started.");
    m.set_collector([this](MetricsRegistry& r) {
      EngineStatus s = status();
      r.set("snarkd_queue_depth", {{"queue", "synthesis"}}, double(s.queued));
      r.set("snarkd_queue_depth", {{"queue", "prove"}}, double(s.waiting));
      r.set("snarkd_partitions_active", {{"stage", "synthesizing"}}, double(s.synthesizing));
      r.set("snarkd_partitions_active", {{"stage", "proving"}}, double(s.proving));
      r.set("snarkd_partitions_active", {{"stage", "finalizing"}}, double(s.finalizing));
      r.set("snarkd_jobs", {{"state", "queued"}}, double(s.jobs_queued));
      r.set("snarkd_jobs", {{"state", "running"}}, double(s.jobs_running));
      r.set("snarkd_memory_budget_bytes", {}, double(s.memory_budget));
      r.set("snarkd_memory_reserved_bytes", {}, double(s.memory_used));
      r.set("snarkd_memory_peak_bytes", {}, double(s.memory_peak));
      size_t tiers[3] = {0, 0, 0};
      for (const auto& k : s.keys) ++tiers[int(k.tier)];
      for (KeyTier t : {KeyTier::kCold, KeyTier::kWarm, KeyTier::kHot}) {
        r.set("snarkd_keys", {{"tier", key_tier_name(t)}}, double(tiers[int(t)]));
      }
      for (const auto& d : s.devices) {
        r.set("snarkd_device_slots", {{"device", std::to_string(d.device)}, {"backend", d.backend}}, double(d.slots));
      }
      r.set("snarkd_uptime_seconds", {}, s.uptime_ms / 1000.0);
    });
  }

  EngineOptions options_;
  MemoryBudget budget_;
  bool abc_on_host_ = true;  // whether partitions' a, b, c live on the host (the CPU backend)
  Timeline timeline_;
  MetricsRegistry metrics_;
  std::string backend_note_;
  std::vector<DeviceState> devices_;

  std::mutex keys_mu_;  // taken after mu_ when both are needed
  std::condition_variable keys_cv_;
  std::map<std::string, std::unique_ptr<KeyEntry>> keys_;

  std::mutex mu_;
  std::condition_variable synth_cv_, prove_cv_, finalize_cv_, done_cv_, janitor_cv_;
  std::map<uint64_t, std::shared_ptr<Job>> jobs_;
  std::map<std::string, uint64_t> by_request_;
  std::vector<std::unique_ptr<Task>> synth_queue_, prove_queue_;
  std::deque<std::unique_ptr<Task>> finalize_queue_;
  std::map<std::string, std::set<int>> key_devices_;
  size_t synthesizing_ = 0, proving_ = 0, finalizing_ = 0;
  uint64_t last_job_id_ = 0;
  std::atomic<uint32_t> loads_in_flight_{0};  // key loads holding their reservation
  uint64_t completed_ = 0, failed_ = 0, cancelled_ = 0;
  bool accepting_ = true, stopping_ = false, shut_down_ = false;
  uint32_t active_slots_ = UINT32_MAX;  // set_active_slots (UINT32_MAX: all)

  std::vector<std::thread> threads_;
  std::thread janitor_;

  friend class KeyLease;
};

void KeyLease::reset() {
  if (engine_ && entry_) engine_->release_lease(entry_);
  engine_ = nullptr;
  entry_ = nullptr;
  key_.reset();
}

}  // namespace

Result<std::unique_ptr<Engine>> Engine::create(EngineOptions options) {
  if (options.prove_queue_depth == 0) return invalid_argument("engine: prove_queue_depth must be at least 1");
  if (options.synthesis_workers == 0) return invalid_argument("engine: synthesis_workers must be at least 1");
  auto e = std::make_unique<EngineImpl>(std::move(options));
  RETURN_IF_ERROR(e->start());
  return std::unique_ptr<Engine>(std::move(e));
}

}  // namespace snarkd::engine
