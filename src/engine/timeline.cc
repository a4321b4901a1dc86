#include "engine/timeline.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace snarkd::engine {

using nlohmann::json;

Timeline::Timeline(size_t max_events) : max_events_(max_events) {}

void Timeline::record(TimelineEvent e) {
  std::lock_guard lock(mu_);
  if (events_.size() >= max_events_) {
    ++dropped_;
    return;
  }
  events_.push_back(std::move(e));
}

std::vector<TimelineEvent> Timeline::snapshot() const {
  std::lock_guard lock(mu_);
  return events_;
}

uint64_t Timeline::dropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

std::string event_to_json_line(const TimelineEvent& e) {
  json j = {{"t_ns", e.t_ns}, {"dur_ns", e.dur_ns}, {"job", e.job},       {"partition", e.partition},
            {"track", e.track}, {"stage", e.stage},   {"detail", e.detail}, {"device", e.device}};
  return j.dump();
}

namespace {

Status write_text(const std::string& path, const std::string& text, const char* what) {
  std::ofstream f(path, std::ios::trunc);
  if (!f) return unavailable(std::string(what) + ": cannot create '" + path + "'");
  f << text;
  if (!f) return unavailable(std::string(what) + ": cannot write '" + path + "'");
  return Status();
}

// Sorted by start; the union's total length and its pieces.
std::vector<std::pair<int64_t, int64_t>> merge(std::vector<std::pair<int64_t, int64_t>> v) {
  std::sort(v.begin(), v.end());
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const auto& iv : v) {
    if (!out.empty() && iv.first <= out.back().second) {
      out.back().second = std::max(out.back().second, iv.second);
    } else {
      out.push_back(iv);
    }
  }
  return out;
}
int64_t total(const std::vector<std::pair<int64_t, int64_t>>& merged) {
  int64_t t = 0;
  for (const auto& iv : merged) t += iv.second - iv.first;
  return t;
}

double percentile(std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t i = size_t(p * double(sorted.size() - 1) + 0.5);
  return sorted[std::min(i, sorted.size() - 1)];
}

}  // namespace

Status Timeline::write_jsonl(const std::string& path) const {
  std::string text;
  for (const auto& e : snapshot()) text += event_to_json_line(e) + "\n";
  return write_text(path, text, "timeline");
}

Status Timeline::write_chrome_trace(const std::string& path) const {
  return write_text(path, chrome_trace_json(snapshot()), "timeline trace");
}

Result<std::vector<TimelineEvent>> read_timeline_jsonl(const std::string& path) {
  std::ifstream f(path);
  if (!f) return Status(StatusCode::kNotFound, "timeline: cannot open '" + path + "'");
  std::vector<TimelineEvent> out;
  std::string line;
  size_t number = 0;
  while (std::getline(f, line)) {
    ++number;
    if (line.empty()) continue;
    const std::string where = "timeline '" + path + "' line " + std::to_string(number);
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) return invalid_argument(where + ": not a JSON object");
    TimelineEvent e;
    try {
      e.t_ns = j.at("t_ns").get<int64_t>();
      e.dur_ns = j.at("dur_ns").get<int64_t>();
      e.job = j.at("job").get<uint64_t>();
      e.partition = j.at("partition").get<int32_t>();
      e.track = j.at("track").get<std::string>();
      e.stage = j.at("stage").get<std::string>();
      e.detail = j.value("detail", std::string());
      e.device = j.value("device", -1);
    } catch (const json::exception& ex) {
      return invalid_argument(where + ": " + ex.what());
    }
    if (e.dur_ns < 0) return invalid_argument(where + ": negative duration");
    out.push_back(std::move(e));
  }
  return out;
}

std::string chrome_trace_json(const std::vector<TimelineEvent>& events) {
  // One process per device (and one for the CPU workers), one thread per track.
  std::map<std::string, int> tids;
  json trace = json::array();
  std::set<int> pids;
  for (const auto& e : events) {
    const int pid = e.device < 0 ? 0 : 1 + e.device;
    if (!tids.count(e.track)) {
      const int tid = int(tids.size()) + 1;
      tids[e.track] = tid;
      trace.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", e.track}}}});
      trace.push_back({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", pid}, {"tid", tid}, {"args", {{"sort_index", tid}}}});
    }
    if (pids.insert(pid).second) {
      const std::string name = pid == 0 ? "snarkd CPU workers" : "device " + std::to_string(pid - 1);
      trace.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", name}}}});
    }
    json ev = {{"name", e.stage},
               {"cat", e.track.find("kernels") != std::string::npos ? "kernel" : "snarkd"},
               {"pid", pid},
               {"tid", tids[e.track]},
               {"ts", double(e.t_ns) / 1000.0},
               {"args", {{"job", e.job}, {"partition", e.partition}, {"detail", e.detail}}}};
    if (e.dur_ns > 0) {
      ev["ph"] = "X";
      ev["dur"] = double(e.dur_ns) / 1000.0;
    } else {
      ev["ph"] = "i";
      ev["s"] = "t";
    }
    trace.push_back(std::move(ev));
  }
  return json({{"traceEvents", trace}, {"displayTimeUnit", "ms"}}).dump() + "\n";
}

TimelineReport summarize_timeline(const std::vector<TimelineEvent>& events) {
  TimelineReport r;
  if (events.empty()) return r;
  int64_t lo = events.front().t_ns, hi = lo;
  std::map<std::string, std::vector<double>> by_stage;
  std::set<uint64_t> jobs;
  using Ivs = std::vector<std::pair<int64_t, int64_t>>;
  std::map<int, Ivs> held, kernels;
  Ivs queued, synthesizing, finalizing;
  for (const auto& e : events) {
    lo = std::min(lo, e.t_ns);
    hi = std::max(hi, e.t_ns + e.dur_ns);
    if (e.stage == "submit") jobs.insert(e.job);
    if (e.stage == "finalize" && e.dur_ns > 0) ++r.partitions;
    if (e.dur_ns <= 0) continue;
    by_stage[e.stage].push_back(double(e.dur_ns) / 1e6);
    const std::pair<int64_t, int64_t> iv{e.t_ns, e.t_ns + e.dur_ns};
    if (e.device >= 0 && e.stage == "prove") held[e.device].push_back(iv);
    if (e.device >= 0 && e.track.find("kernels") != std::string::npos) kernels[e.device].push_back(iv);
    if (e.stage == "queue") queued.push_back(iv);
    if (e.stage == "synthesize") synthesizing.push_back(iv);
    if (e.stage == "finalize") finalizing.push_back(iv);
  }
  r.wall_ms = double(hi - lo) / 1e6;
  r.jobs = jobs.size();
  for (auto& [stage, v] : by_stage) {
    std::sort(v.begin(), v.end());
    StageStats s;
    s.stage = stage;
    s.count = v.size();
    s.p50_ms = percentile(v, 0.5);
    s.p90_ms = percentile(v, 0.9);
    s.max_ms = v.back();
    for (double x : v) s.total_ms += x;
    r.stages.push_back(s);
  }
  // How much of [a, b) the union of `ivs` covers.
  auto covered = [](const Ivs& ivs, int64_t a, int64_t b) {
    Ivs clipped;
    for (const auto& iv : ivs) {
      if (iv.first < b && iv.second > a) clipped.push_back({std::max(iv.first, a), std::min(iv.second, b)});
    }
    return clipped.empty() ? int64_t(0) : total(merge(std::move(clipped)));
  };
  for (auto& [device, ivs] : held) {
    DeviceUtilization u;
    u.device = device;
    const auto merged = merge(ivs);
    const int64_t first = merged.front().first, last = merged.back().second;
    u.wall_ms = double(last - first) / 1e6;
    u.slot_held_ms = double(total(merged)) / 1e6;
    if (kernels.count(device)) {
      u.has_kernels = true;
      u.kernel_busy_ms = double(total(merge(kernels[device]))) / 1e6;
    }
    for (size_t i = 1; i < merged.size(); ++i) {
      const int64_t a = merged[i - 1].second, b = merged[i].first;
      if (b <= a) continue;
      IdleGap g;
      g.start_ms = double(a - lo) / 1e6;
      g.ms = double(b - a) / 1e6;
      // Queued work for most of the gap means no slot took it (dispatch); otherwise the device
      // waited for whatever was running upstream.
      g.waiting_for = 2 * covered(queued, a, b) >= b - a ? "queue (dispatch)"
                      : covered(synthesizing, a, b) > 0  ? "synthesis"
                      : covered(finalizing, a, b) > 0    ? "finalize"
                                                         : "no work";
      u.idle_ms += g.ms;
      u.gaps.push_back(g);
    }
    std::sort(u.gaps.begin(), u.gaps.end(), [](const IdleGap& x, const IdleGap& y) { return x.ms > y.ms; });
    if (u.gaps.size() > 10) u.gaps.resize(10);
    r.devices.push_back(std::move(u));
  }
  return r;
}

std::string format_report(const TimelineReport& r) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(1);
  o << "timeline: " << r.jobs << " jobs, " << r.partitions << " partitions, " << r.wall_ms << " ms\n";
  o << "  stage                      count      p50 ms      p90 ms      max ms\n";
  for (const auto& s : r.stages) {
    o << "  " << std::left << std::setw(24) << s.stage << std::right << std::setw(8) << s.count
      << std::setw(12) << s.p50_ms << std::setw(12) << s.p90_ms << std::setw(12) << s.max_ms << "\n";
  }
  for (const auto& d : r.devices) {
    const double wall = d.wall_ms > 0 ? d.wall_ms : 1;
    o << "  device " << d.device << ": wall " << d.wall_ms << " ms, slot-held " << d.slot_held_ms << " ms ("
      << 100.0 * d.slot_held_ms / wall << "%)";
    if (d.has_kernels) {
      o << ", kernel-busy " << d.kernel_busy_ms << " ms (" << 100.0 * d.kernel_busy_ms / wall << "%)";
    } else {
      o << ", kernel-busy n/a (CPU backend)";
    }
    o << ", idle " << d.idle_ms << " ms\n";
    for (const auto& g : d.gaps) {
      o << "    idle " << g.ms << " ms at " << g.start_ms << " ms, waiting for " << g.waiting_for << "\n";
    }
  }
  return o.str();
}

}  // namespace snarkd::engine
