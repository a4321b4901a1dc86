#include "engine/metrics.h"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace snarkd::engine {

namespace {

std::string escape_label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  std::ostringstream o;
  o << std::setprecision(17) << v;
  return o.str();
}

// Adds a label to a rendered set: `{a="1"}` + le -> `{a="1",le="0.5"}`.
std::string with_label(const std::string& set, const std::string& key, const std::string& value) {
  const std::string extra = key + "=\"" + value + "\"";
  if (set.empty()) return "{" + extra + "}";
  return set.substr(0, set.size() - 1) + "," + extra + "}";
}

}  // namespace

std::string MetricsRegistry::label_text(const Labels& labels) {
  if (labels.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i) out += ",";
    out += labels[i].first + "=\"" + escape_label(labels[i].second) + "\"";
  }
  return out + "}";
}

void MetricsRegistry::declare(const std::string& name, Type type, const std::string& help,
                              std::vector<double> buckets) {
  std::lock_guard lock(mu_);
  if (families_.count(name)) return;
  Family f;
  f.type = type;
  f.help = help;
  f.buckets = std::move(buckets);
  families_[name] = std::move(f);
}

MetricsRegistry::Series& MetricsRegistry::series_locked(const std::string& name, const Labels& labels) {
  auto& family = families_[name];  // an undeclared name becomes an untyped counter
  auto& s = family.series[label_text(labels)];
  if (family.type == Type::kHistogram && s.bucket_counts.size() != family.buckets.size()) {
    s.bucket_counts.assign(family.buckets.size(), 0);
  }
  return s;
}

void MetricsRegistry::add(const std::string& name, const Labels& labels, double value) {
  std::lock_guard lock(mu_);
  series_locked(name, labels).value += value;
}

void MetricsRegistry::set(const std::string& name, const Labels& labels, double value) {
  std::lock_guard lock(mu_);
  series_locked(name, labels).value = value;
}

void MetricsRegistry::observe(const std::string& name, const Labels& labels, double value) {
  std::lock_guard lock(mu_);
  const auto& buckets = families_[name].buckets;
  auto& s = series_locked(name, labels);
  for (size_t i = 0; i < buckets.size(); ++i) {
    if (value <= buckets[i]) {
      ++s.bucket_counts[i];
      break;
    }
  }
  ++s.count;
  s.sum += value;
}

void MetricsRegistry::set_collector(std::function<void(MetricsRegistry&)> collect) {
  std::lock_guard lock(mu_);
  collect_ = std::move(collect);
}

double MetricsRegistry::value(const std::string& name, const Labels& labels) const {
  std::lock_guard lock(mu_);
  auto f = families_.find(name);
  if (f == families_.end()) return 0;
  auto s = f->second.series.find(label_text(labels));
  return s == f->second.series.end() ? 0 : s->second.value;
}

uint64_t MetricsRegistry::count(const std::string& name, const Labels& labels) const {
  std::lock_guard lock(mu_);
  auto f = families_.find(name);
  if (f == families_.end()) return 0;
  auto s = f->second.series.find(label_text(labels));
  return s == f->second.series.end() ? 0 : s->second.count;
}

std::string MetricsRegistry::render_prometheus() {
  std::function<void(MetricsRegistry&)> collect;
  {
    std::lock_guard lock(mu_);
    collect = collect_;
  }
  if (collect) collect(*this);
  std::lock_guard lock(mu_);
  std::ostringstream o;
  for (const auto& [name, f] : families_) {
    const char* type = f.type == Type::kCounter ? "counter" : f.type == Type::kGauge ? "gauge" : "histogram";
    o << "# HELP " << name << " " << f.help << "\n# TYPE " << name << " " << type << "\n";
    for (const auto& [labels, s] : f.series) {
      if (f.type != Type::kHistogram) {
        o << name << labels << " " << number(s.value) << "\n";
        continue;
      }
      uint64_t cumulative = 0;
      for (size_t i = 0; i < f.buckets.size(); ++i) {
        cumulative += s.bucket_counts[i];
        o << name << "_bucket" << with_label(labels, "le", number(f.buckets[i])) << " " << cumulative << "\n";
      }
      o << name << "_bucket" << with_label(labels, "le", "+Inf") << " " << s.count << "\n";
      o << name << "_sum" << labels << " " << number(s.sum) << "\n";
      o << name << "_count" << labels << " " << s.count << "\n";
    }
  }
  return o.str();
}

}  // namespace snarkd::engine
