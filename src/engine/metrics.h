// snarkd/engine: a small metrics registry (counters, gauges, histograms with labels) rendered
// as Prometheus text exposition (version 0.0.4). Thread-safe.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace snarkd::engine {

// Label pairs in order, e.g. {{"state", "completed"}}.
using Labels = std::vector<std::pair<std::string, std::string>>;

class MetricsRegistry {
 public:
  enum class Type { kCounter, kGauge, kHistogram };

  // Declares a metric once (later declarations of the same name are ignored).
  void declare(const std::string& name, Type type, const std::string& help,
               std::vector<double> buckets = {});
  void add(const std::string& name, const Labels& labels, double value = 1);  // counters
  void set(const std::string& name, const Labels& labels, double value);      // gauges
  void observe(const std::string& name, const Labels& labels, double value);  // histograms

  // Run before each render (gauges computed on demand: queue depths, memory).
  void set_collector(std::function<void(MetricsRegistry&)> collect);

  double value(const std::string& name, const Labels& labels = {}) const;  // counters, gauges
  uint64_t count(const std::string& name, const Labels& labels = {}) const;  // histograms

  std::string render_prometheus();

 private:
  struct Series {
    double value = 0;
    std::vector<uint64_t> bucket_counts;  // histograms: per bucket (not cumulative)
    uint64_t count = 0;
    double sum = 0;
  };
  struct Family {
    Type type = Type::kCounter;
    std::string help;
    std::vector<double> buckets;
    std::map<std::string, Series> series;  // by rendered label set
  };
  static std::string label_text(const Labels& labels);
  Series& series_locked(const std::string& name, const Labels& labels);

  mutable std::mutex mu_;
  std::map<std::string, Family> families_;
  std::function<void(MetricsRegistry&)> collect_;
};

}  // namespace snarkd::engine
