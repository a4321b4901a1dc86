// snarkd/engine: the timeline. Every transition of a job or partition is an event on a track
// (a CPU worker, a device slot, a device's kernel track), in nanoseconds since the engine
// started (steady clock). Exported as JSON lines (one event per line, the format
// `snarkd timeline` reads back) and as Chrome/Perfetto trace-event JSON.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace snarkd::engine {

struct TimelineEvent {
  int64_t t_ns = 0;    // start
  int64_t dur_ns = 0;  // 0 for an instant event
  uint64_t job = 0;
  int32_t partition = -1;  // -1: the job as a whole
  std::string track;   // "synth-0", "dev0-slot1", "dev0-kernels", "finalize-0", "engine"
  std::string stage;   // "synthesize", "prove", "finalize", "queue", "key_load", kernel stages, ...
  std::string detail;  // free text: errors, key id, priority
  int32_t device = -1;  // the device a track belongs to (-1: a CPU track)
};

class Timeline {
 public:
  using Clock = std::chrono::steady_clock;
  explicit Timeline(size_t max_events = size_t(1) << 22);

  Clock::time_point origin() const { return origin_; }
  int64_t now_ns() const { return to_ns(Clock::now()); }
  int64_t to_ns(Clock::time_point t) const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t - origin_).count();
  }

  void record(TimelineEvent e);
  std::vector<TimelineEvent> snapshot() const;
  uint64_t dropped() const;  // events past max_events (the newest are dropped)

  Status write_jsonl(const std::string& path) const;
  Status write_chrome_trace(const std::string& path) const;

 private:
  const Clock::time_point origin_ = Clock::now();
  const size_t max_events_;
  mutable std::mutex mu_;
  std::vector<TimelineEvent> events_;
  uint64_t dropped_ = 0;
};

std::string event_to_json_line(const TimelineEvent& e);
// Reads a JSON-lines timeline; errors name the line.
Result<std::vector<TimelineEvent>> read_timeline_jsonl(const std::string& path);
std::string chrome_trace_json(const std::vector<TimelineEvent>& events);

// The utilization report of `snarkd timeline` and the engine bench.
struct StageStats {
  std::string stage;
  size_t count = 0;
  double p50_ms = 0, p90_ms = 0, max_ms = 0, total_ms = 0;
};
struct IdleGap {
  double start_ms = 0, ms = 0;
  std::string waiting_for;  // "synthesis", "queue", "finalize", "no work"
};
struct DeviceUtilization {
  int device = 0;
  double wall_ms = 0;         // first to last slot activity on the device
  double slot_held_ms = 0;    // union of the slots' prove intervals
  double kernel_busy_ms = 0;  // union of the kernel intervals (CUDA events); 0 on the CPU backend
  bool has_kernels = false;
  std::vector<IdleGap> gaps;  // no slot held, longest first (at most 10)
  double idle_ms = 0;         // total of all gaps
};
struct TimelineReport {
  double wall_ms = 0;
  size_t jobs = 0, partitions = 0;
  std::vector<StageStats> stages;
  std::vector<DeviceUtilization> devices;
};
TimelineReport summarize_timeline(const std::vector<TimelineEvent>& events);
std::string format_report(const TimelineReport& r);

}  // namespace snarkd::engine
