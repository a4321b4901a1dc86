// snarkd/engine: the proving engine. Keys stay resident, proof jobs are split into partitions
// that flow through a pipeline, and every transition is timed.
//
//   submit -> [synthesis queue] -> synthesis workers -> [prove queue, bounded]
//          -> prover workers (K slots per device) -> [finalize queue] -> finalizers -> result
//
// - Jobs: submit() is idempotent on the request id; await() has a real timeout; cancel()
//   removes queued partitions and stops running ones at the next stage boundary.
// - Scheduling: CRITICAL > HIGH > NORMAL > LOW, then oldest job, then partition order, decided
//   at every partition boundary. With reserve_critical, one synthesis worker, one prover worker
//   per device and critical_reserve bytes of the budget serve only CRITICAL work. A prover
//   worker prefers work whose key its device already holds.
// - Keys (KeyRegistry): HOT in memory (and resident on devices), WARM in a cache file,
//   COLD as the original file; idle keys are evicted LRU when memory is short.
// - Memory: keys, witnesses and a/b/c hold reservations against one budget (MemoryBudget).
// - Failures: a failed partition is retried (max_retries) unless its input is invalid; a
//   partition that keeps failing fails its job only. Worker exceptions become errors.
// - Observability: Timeline (JSON lines and Perfetto traces) and MetricsRegistry (Prometheus).
//
// No gRPC here: the server wraps this API.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "ec/curve_id.h"
#include "engine/memory_budget.h"
#include "engine/metrics.h"
#include "engine/timeline.h"

namespace snarkd::engine {

enum class Priority : int { kCritical = 0, kHigh = 1, kNormal = 2, kLow = 3 };
const char* priority_name(Priority p);
std::optional<Priority> parse_priority(std::string_view name);

enum class JobState { kQueued, kRunning, kCompleted, kFailed, kCancelled };
const char* job_state_name(JobState s);
inline bool is_terminal(JobState s) { return s != JobState::kQueued && s != JobState::kRunning; }

enum class KeyTier { kCold, kWarm, kHot };
const char* key_tier_name(KeyTier t);

enum class BackendKind { kCpu, kGpu, kAuto };

// Where a fault may be injected (tests and chaos drills): before each stage of a partition.
struct FaultPoint {
  uint64_t job = 0;
  uint32_t partition = 0;
  uint32_t attempt = 0;  // 1 for the first try
  std::string_view stage;  // "synthesize", "prove", "finalize"
  std::string_view request_id;
};

struct EngineOptions {
  BackendKind backend = BackendKind::kAuto;
  // GPU backend: the devices to use (empty: every usable one) and slots per device.
  std::vector<int> gpus;
  uint32_t gpu_slots = 2;
  size_t gpu_key_memory_limit = 0;  // GpuBackendOptions::key_memory_limit
  uint32_t gpu_base_copies = 1;     // GpuBackendOptions::base_copies (0: as many as fit, up to 4)
  bool gpu_evaluate_on_device = true;  // GpuBackendOptions::evaluate_on_device (false: a, b, c on the host)
  size_t gpu_device_memory_limit = 0;  // GpuBackendOptions::device_memory_limit (0: the device's free memory)
  // CPU backend: how many devices to model (each with its own prover workers and timeline
  // tracks; they share the host's cores) and prover workers per device.
  uint32_t cpu_devices = 1;
  uint32_t cpu_workers = 1;
  uint32_t synthesis_workers = 2;
  uint32_t finalizers = 1;
  // Synthesized partitions waiting for a prover, at most (beyond this, synthesis waits;
  // CRITICAL work is never held back by it).
  uint32_t prove_queue_depth = 4;
  bool reserve_critical = true;
  size_t memory_budget = 0;     // bytes; 0: MemoryBudget::auto_total()
  size_t critical_reserve = 0;  // bytes kept for CRITICAL work; 0: an eighth of the budget
  uint32_t max_retries = 1;     // extra attempts for a failed partition
  bool verify_proofs = true;    // verify each partition proof before returning it
  // With one device and that a GPU: a key is handed to it as it loads (Backend::adopt_key) and
  // its host copy of the points, and of the matrices the device evaluates, is freed; the device
  // copy then serves every proof until the key is evicted. A 32 GiB PoRep key keeps ~1 GB on the
  // host instead of ~80 GB (or its streamed copy, when the points do not fit the device).
  bool gpu_adopts_keys = true;
  size_t keep_finished_jobs = 1000;
  std::chrono::milliseconds keep_finished_for{std::chrono::minutes(10)};
  std::string key_cache_dir;  // WARM tier: preprocessed key files ("": no WARM tier)
  std::function<Status(const FaultPoint&)> fault_injector;
};

struct KeyInfo {
  std::string id;      // "k" + the content hash of the key's source
  std::string source;  // the path, or "builtin:..."
  ec::CurveId curve = ec::CurveId::kBn254;
  KeyTier tier = KeyTier::kCold;
  size_t host_bytes = 0;  // while HOT
  size_t estimated_bytes = 0;  // what a load reserves first: an estimate, the real size once loaded
  size_t partition_bytes = 0;  // reserved by each partition in flight (known once loaded)
  uint32_t num_variables = 0, num_public = 0, log_domain_size = 0;
  uint32_t in_use = 0;  // partitions holding the key now
  bool builtin = false;
  // False for a synthetic key (builtin:synthetic:…): random points, no trapdoor, so its proofs
  // cannot verify and are not checked; for benchmarks only.
  bool verifiable = true;
  // Keys of a porep:SIZE circuit ("2KiB", …; "" otherwise) take PoRep C2 jobs
  // (ProofRequest::porep).
  std::string porep_size;
  std::vector<int> devices;  // devices that ran a proof with it (its device copies)
  // How its last load went: from the source (with its parts' times) or the WARM cache, and its
  // adoption by the GPU (with its time). Empty until loaded.
  std::string load_note;
};

// PoRep C2's input: a C1 output as JSON or bincode, or Curio's/lotus-bench's Commit2In wrapper
// ({"SectorNum", "Phase1Out", "SectorSize"}), and the ids its public inputs are derived from.
struct PorepRequest {
  std::string c1;             // the file's bytes
  std::string c1_name = "c1"; // how errors name it (the CLI: the file's path)
  std::array<uint8_t, 32> prover_id{};
  std::optional<uint64_t> sector;  // required unless the wrapper carries SectorNum (then they must agree)
};

struct ProofRequest {
  std::string request_id;  // idempotency key ("" : none)
  std::string key_id;
  Priority priority = Priority::kNormal;
  std::string witness;      // .wtns bytes, for keys from a .zkey
  std::string witness_name = "witness";  // how errors name it (the CLI: the file's path)
  uint32_t partitions = 1;  // built-in circuits: proofs per job
  uint64_t seed = 1;        // built-in circuits: partition i proves the witness of (seed, i)
  // PoRep C2 on a porep:SIZE key: one partition per C1 partition (`partitions` is set from the
  // C1); the job's proof is the partitions' 192-byte proofs concatenated in order.
  std::optional<PorepRequest> porep;
  std::chrono::milliseconds timeout{0};  // 0: none; past it the job fails (kDeadlineExceeded)
};

// A partition's prover stages, as its backend timed them (milliseconds).
struct ProveStages {
  double evaluate_ms = 0, quotient_ms = 0;
  double msm_a_ms = 0, msm_b1_ms = 0, msm_b2_ms = 0, msm_c_ms = 0, msm_h_ms = 0;
  double key_upload_ms = 0;   // making the key resident on the device (first use)
  double kernel_busy_ms = 0;  // the device's kernel time (CUDA events; 0 on the CPU)
  double slot_held_ms = 0;    // the prover slot held
  double finalize_ms = 0;     // assembling the proof and verifying it
  // How the GPU backend holds the key (empty matrices on the CPU): where a, b, c were evaluated
  // ("cpu", "csr", "compact"), whether its points were streamed, the slots it may use.
  std::string matrices;
  bool points_streamed = false;
  uint32_t active_slots = 0;
};

struct PartitionProof {
  std::vector<uint8_t> bytes;  // BLS12-381: bellperson's 192 bytes; BN254: 256 uncompressed
  std::string proof_json;      // snarkjs proof.json
  std::string public_json;     // snarkjs public.json
  ProveStages stages;
  std::string backend;  // "cpu" or "gpu": the device kind that proved it
};

// Milliseconds; per job, summed over partitions where it says so.
struct JobTimings {
  double queue_ms = 0;      // submit to the first synthesis start
  double key_load_ms = 0;   // loading the key (when this job had to)
  double synthesis_ms = 0;  // sum
  double wait_ms = 0;       // sum: synthesized, waiting for a prover
  double kernel_busy_ms = 0;  // sum: union of the device kernel intervals (0 on the CPU)
  double slot_held_ms = 0;    // sum: time the partitions held a prover slot
  double finalize_ms = 0;     // sum, verification included
  double total_ms = 0;        // submit to done
};

struct JobResult {
  uint64_t job_id = 0;
  std::string request_id, key_id;
  Priority priority = Priority::kNormal;
  JobState state = JobState::kQueued;
  Status error;
  uint32_t partitions = 0, partitions_done = 0;
  std::vector<PartitionProof> proofs;  // in partition order, when completed
  JobTimings timings;
  uint32_t retries = 0;
};

struct DeviceStatus {
  int device = 0;
  std::string backend;  // "cpu" or "gpu"
  uint32_t slots = 0, busy_slots = 0;
  double kernel_busy_ms = 0, slot_held_ms = 0;  // since the engine started
  double uptime_ms = 0;
};

struct EngineStatus {
  size_t queued = 0, synthesizing = 0, waiting = 0, proving = 0, finalizing = 0;  // partitions
  size_t jobs_queued = 0, jobs_running = 0;
  uint64_t jobs_completed = 0, jobs_failed = 0, jobs_cancelled = 0;
  std::vector<DeviceStatus> devices;
  std::vector<KeyInfo> keys;
  size_t memory_budget = 0, memory_used = 0, memory_peak = 0;
  double uptime_ms = 0;
  bool accepting = true;
};

// Reads a key file whole, as a load would, and says what is wrong with it (uploads keep only
// files that pass).
Status validate_key_file(const std::string& path);

class Engine {
 public:
  static Result<std::unique_ptr<Engine>> create(EngineOptions options);
  virtual ~Engine() = default;

  // source: a .zkey path, or "builtin:[synthetic:][divide-by-z:]<circuit spec>" (a test key for a
  // registered circuit family, e.g. builtin:chain:<curve>:<log2 constraints>[:<boolean %>];
  // synthetic: random points instead of a setup, for benchmarks: its proofs do not verify), or
  // "bellperson:<circuit spec>[@<.params path>]" (bellperson parameters of a registered circuit;
  // for porep:SIZE without a path, Filecoin's file in $FIL_PROOFS_PARAMETER_CACHE). The same
  // source registers the same key (an id from its content; for .params, from the path, size and
  // modification time). Does not load it.
  virtual Result<KeyInfo> register_key(const std::string& source) = 0;
  virtual Status preload_key(const std::string& id) = 0;  // to HOT
  virtual Status evict_key(const std::string& id) = 0;    // to WARM (or COLD); fails while in use
  virtual Result<KeyInfo> key(const std::string& id) = 0;
  // snarkjs verification_key.json of a key (loads it when it is not HOT).
  virtual Result<std::string> verifying_key(const std::string& id) = 0;
  virtual std::vector<KeyInfo> keys() = 0;

  virtual Result<uint64_t> submit(ProofRequest request) = 0;
  // The result once the job is terminal; kDeadlineExceeded if it is not within `timeout`.
  virtual Result<JobResult> await(uint64_t job, std::chrono::milliseconds timeout) = 0;
  virtual Result<JobResult> job(uint64_t job) = 0;  // a snapshot, no waiting
  virtual Result<JobState> cancel(uint64_t job) = 0;
  // Every job the engine still holds (unfinished, and finished ones not yet pruned), without
  // their proofs, oldest first.
  virtual std::vector<JobResult> jobs() = 0;
  virtual EngineStatus status() = 0;
  // Prover slots per device that take work from now on (1 .. the slots the engine started with;
  // the CRITICAL reserve slot is not counted and always serves). Running proofs finish; for
  // benchmarks at several slot counts, and for operators who want a device's slots back.
  virtual Status set_active_slots(uint32_t per_device) = 0;

  // Stops accepting jobs, lets running ones finish until `deadline`, then fails the rest
  // (kUnavailable) and stops every worker. Idempotent; the destructor calls it with 0.
  virtual void shutdown(std::chrono::milliseconds deadline) = 0;

  virtual const Timeline& timeline() const = 0;
  virtual MetricsRegistry& metrics() = 0;
  virtual const MemoryBudget& memory() const = 0;
  virtual std::string backend_note() const = 0;  // e.g. why auto chose the CPU
};

}  // namespace snarkd::engine
