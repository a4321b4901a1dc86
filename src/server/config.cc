#include "server/config.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

// toml++ header-only, without exceptions: the shared library's parser throws through a
// noexcept frame on some malformed input (an unterminated string aborted the process); this
// build reports every parse error as a value.
#undef TOML_HEADER_ONLY
#undef TOML_SHARED_LIB
#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 0
#include <toml++/toml.h>

namespace snarkd::server {

namespace {

class Reader {
 public:
  explicit Reader(std::string name) : name_(std::move(name)) {}

  Status check_unknown(const toml::table& t, const std::string& prefix, const std::set<std::string>& known) {
    for (const auto& [k, v] : t) {
      const std::string key(k.str());
      if (!known.count(key)) return bad(prefix + key, "unknown key");
    }
    return Status();
  }
  Status bad(const std::string& key, const std::string& why) const {
    return invalid_argument(name_ + ": " + key + ": " + why);
  }
  // An integer within [lo, hi] (when the key is present).
  template <class T>
  Status get_in(const toml::table& t, const std::string& prefix, const char* key, T& out, uint64_t lo, uint64_t hi) {
    const toml::node* n = t.get(key);
    if (!n) return Status();
    if (!n->is_integer()) return bad(prefix + key, "expected an integer");
    const int64_t v = n->as_integer()->get();
    if (v < 0 || uint64_t(v) < lo || uint64_t(v) > hi) {
      return bad(prefix + key, "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " +
                                   std::to_string(v));
    }
    out = T(v);
    return Status();
  }
  template <class T>
  Status get(const toml::table& t, const std::string& prefix, const char* key, T& out) {
    const toml::node* n = t.get(key);
    if (!n) return Status();
    if constexpr (std::is_same_v<T, bool>) {
      if (!n->is_boolean()) return bad(prefix + key, "expected true or false");
      out = n->as_boolean()->get();
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (!n->is_string()) return bad(prefix + key, "expected a string");
      out = n->as_string()->get();
    } else {
      if (!n->is_integer()) return bad(prefix + key, "expected an integer");
      const int64_t v = n->as_integer()->get();
      if (v < 0 || uint64_t(v) > uint64_t(std::numeric_limits<T>::max())) return bad(prefix + key, "out of range");
      out = T(v);
    }
    return Status();
  }
  // An integer of bytes, a string with a unit ("64GiB"), or "auto" (0).
  Status get_bytes(const toml::table& t, const std::string& prefix, const char* key, size_t& out) {
    const toml::node* n = t.get(key);
    if (!n) return Status();
    if (n->is_integer()) {
      if (n->as_integer()->get() < 0) return bad(prefix + key, "must not be negative");
      out = size_t(n->as_integer()->get());
      return Status();
    }
    if (!n->is_string()) return bad(prefix + key, "expected bytes (an integer, \"64GiB\" or \"auto\")");
    const std::string s = n->as_string()->get();
    if (s == "auto") {
      out = 0;
      return Status();
    }
    auto v = parse_bytes(s);
    if (!v.ok()) return bad(prefix + key, v.status().message());
    out = size_t(*v);
    return Status();
  }

 private:
  std::string name_;
};

}  // namespace

Result<uint64_t> parse_bytes(const std::string& text) {
  std::string s;
  for (char c : text) {
    if (c != ' ' && c != '_') s += c;
  }
  size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == 0) return invalid_argument("'" + text + "' is not a size (e.g. 64GiB)");
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + i, v);
  if (ec != std::errc()) return invalid_argument("'" + text + "' is too large");
  const std::string unit = s.substr(i);
  uint64_t mul = 0;
  if (unit.empty() || unit == "B") mul = 1;
  else if (unit == "KiB" || unit == "K") mul = uint64_t(1) << 10;
  else if (unit == "MiB" || unit == "M") mul = uint64_t(1) << 20;
  else if (unit == "GiB" || unit == "G") mul = uint64_t(1) << 30;
  else if (unit == "TiB" || unit == "T") mul = uint64_t(1) << 40;
  else if (unit == "KB") mul = 1000;
  else if (unit == "MB") mul = 1000 * 1000;
  else if (unit == "GB") mul = 1000ull * 1000 * 1000;
  else return invalid_argument("'" + text + "': unknown unit '" + unit + "' (B, KiB, MiB, GiB, TiB)");
  if (v > std::numeric_limits<uint64_t>::max() / mul) return invalid_argument("'" + text + "' is too large");
  return v * mul;
}

namespace {

// toml++ 3.3.0 (Debian 12) reaches __builtin_unreachable on some non-ASCII characters where it
// looks for whitespace (bare positions, quoted keys, after a line-ending backslash; the config
// fuzzer found it at U+FBB6..U+FEFE, and U+00A1..U+0499 take the same path). So the text must be
// ASCII outside comments; a non-ASCII path is written with \uXXXX escapes in a "..." string.
Status check_ascii_outside_comments(std::string_view text, const std::string& name) {
  enum class State { kNormal, kComment, kString } state = State::kNormal;
  std::string_view close;  // in a string: its closing delimiter (", ', """ or ''')
  size_t line = 1, col = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    ++col;
    if (c == '\n') {
      ++line;
      col = 0;
      if (state == State::kComment || (state == State::kString && close.size() == 1)) state = State::kNormal;
      continue;
    }
    if (static_cast<unsigned char>(c) >= 0x80 && state != State::kComment) {
      return invalid_argument(name + ":" + std::to_string(line) + ":" + std::to_string(col) +
                              ": a non-ASCII character outside a comment (write it as a \\uXXXX escape in a "
                              "\"...\" string)");
    }
    auto skip = [&](size_t n) {  // the rest of an n-character delimiter
      i += n - 1;
      col += n - 1;
    };
    if (state == State::kNormal) {
      if (c == '#') {
        state = State::kComment;
      } else if (c == '"' || c == '\'') {
        const std::string_view triple = c == '"' ? "\"\"\"" : "\'\'\'";
        close = text.substr(i, 3) == triple ? triple : triple.substr(0, 1);
        skip(close.size());
        state = State::kString;
      }
    } else if (state == State::kString) {
      if (c == '\\' && close[0] == '"') {
        // An escape in a "..." string: the next character is taken as it is (a non-ASCII one is
        // still refused).
        if (i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) < 0x80 && text[i + 1] != '\n') skip(2);
      } else if (text.substr(i, close.size()) == close) {
        skip(close.size());
        state = State::kNormal;
      }
    }
  }
  return Status();
}

}  // namespace

Result<DaemonConfig> parse_config(const std::string& text, const std::string& name) {
  RETURN_IF_ERROR(check_ascii_outside_comments(text, name));
  toml::parse_result parsed = toml::parse(std::string_view(text), std::string_view(name));
  if (!parsed) {
    const auto& e = parsed.error();
    std::ostringstream o;
    o << name << ":" << e.source().begin.line << ":" << e.source().begin.column << ": " << e.description();
    return invalid_argument(o.str());
  }
  const toml::table& root = parsed.table();
  DaemonConfig c;
  Reader r(name);
  RETURN_IF_ERROR(r.check_unknown(root, "", {"listen", "http_listen", "max_message_bytes", "drain_seconds",
                                             "max_await_seconds", "keepalive_seconds", "engine", "keys", "timeline",
                                             "log", "cuzk"}));
  RETURN_IF_ERROR(r.get(root, "", "listen", c.listen));
  RETURN_IF_ERROR(r.get(root, "", "http_listen", c.http_listen));
  size_t max_message = c.max_message_bytes;
  RETURN_IF_ERROR(r.get_bytes(root, "", "max_message_bytes", max_message));
  c.max_message_bytes = max_message;
  if (c.max_message_bytes < (uint64_t(1) << 20) || c.max_message_bytes > (uint64_t(2047) << 20)) {
    return r.bad("max_message_bytes", "must be between 1 MiB and 2047 MiB");
  }
  RETURN_IF_ERROR(r.get_in(root, "", "drain_seconds", c.drain_seconds, 0, 86400));
  RETURN_IF_ERROR(r.get_in(root, "", "max_await_seconds", c.max_await_seconds, 1, 7 * 86400));
  RETURN_IF_ERROR(r.get_in(root, "", "keepalive_seconds", c.keepalive_seconds, 1, 3600));
  if (c.listen.empty()) return r.bad("listen", "must not be empty");
  if (c.listen.rfind("unix://", 0) != 0 && c.listen.find(':') == std::string::npos) {
    return r.bad("listen", "expected unix:///path or host:port, got '" + c.listen + "'");
  }

  auto& e = c.engine;
  if (const auto* t = root.get_as<toml::table>("engine")) {
    const std::string p = "engine.";
    RETURN_IF_ERROR(r.check_unknown(
        *t, p,
        {"backend", "gpus", "gpu_slots", "gpu_key_memory_limit", "gpu_device_memory_limit", "gpu_base_copies", "gpu_adopts_keys",
         "cpu_devices",
         "cpu_workers", "synthesis_workers", "finalizers", "prove_queue_depth", "reserve_critical",
         "memory_budget", "critical_reserve", "max_retries", "verify_proofs", "keep_finished_jobs",
         "keep_finished_seconds"}));
    std::string backend = "auto";
    RETURN_IF_ERROR(r.get(*t, p, "backend", backend));
    if (backend == "auto") e.backend = engine::BackendKind::kAuto;
    else if (backend == "cpu") e.backend = engine::BackendKind::kCpu;
    else if (backend == "gpu") e.backend = engine::BackendKind::kGpu;
    else return r.bad("engine.backend", "expected auto, cpu or gpu, got '" + backend + "'");
    if (const toml::node* g = t->get("gpus")) {
      const auto* arr = g->as_array();
      if (!arr) return r.bad("engine.gpus", "expected a list of device numbers");
      if (arr->size() > 64) return r.bad("engine.gpus", "at most 64 devices");
      for (const auto& d : *arr) {
        if (!d.is_integer() || d.as_integer()->get() < 0 || d.as_integer()->get() > 1023) {
          return r.bad("engine.gpus", "expected device numbers (0..1023)");
        }
        e.gpus.push_back(int(d.as_integer()->get()));
      }
    }
    // Every count is bounded: each becomes threads, slots or buffers.
    RETURN_IF_ERROR(r.get_in(*t, p, "gpu_slots", e.gpu_slots, 1, 16));
    RETURN_IF_ERROR(r.get_bytes(*t, p, "gpu_key_memory_limit", e.gpu_key_memory_limit));
    RETURN_IF_ERROR(r.get_bytes(*t, p, "gpu_device_memory_limit", e.gpu_device_memory_limit));
    RETURN_IF_ERROR(r.get_in(*t, p, "gpu_base_copies", e.gpu_base_copies, 0, 16));
    RETURN_IF_ERROR(r.get(*t, p, "gpu_adopts_keys", e.gpu_adopts_keys));
    RETURN_IF_ERROR(r.get_in(*t, p, "cpu_devices", e.cpu_devices, 1, 64));
    RETURN_IF_ERROR(r.get_in(*t, p, "cpu_workers", e.cpu_workers, 1, 256));
    RETURN_IF_ERROR(r.get_in(*t, p, "synthesis_workers", e.synthesis_workers, 1, 256));
    RETURN_IF_ERROR(r.get_in(*t, p, "finalizers", e.finalizers, 1, 64));
    RETURN_IF_ERROR(r.get_in(*t, p, "prove_queue_depth", e.prove_queue_depth, 1, 4096));
    RETURN_IF_ERROR(r.get(*t, p, "reserve_critical", e.reserve_critical));
    RETURN_IF_ERROR(r.get_bytes(*t, p, "memory_budget", e.memory_budget));
    RETURN_IF_ERROR(r.get_bytes(*t, p, "critical_reserve", e.critical_reserve));
    if (e.memory_budget && e.critical_reserve > e.memory_budget) {
      return r.bad("engine.critical_reserve", "larger than engine.memory_budget");
    }
    RETURN_IF_ERROR(r.get_in(*t, p, "max_retries", e.max_retries, 0, 100));
    RETURN_IF_ERROR(r.get(*t, p, "verify_proofs", e.verify_proofs));
    uint64_t keep = e.keep_finished_jobs;
    RETURN_IF_ERROR(r.get_in(*t, p, "keep_finished_jobs", keep, 0, 1000000));
    e.keep_finished_jobs = size_t(keep);
    uint32_t keep_s = uint32_t(e.keep_finished_for.count() / 1000);
    RETURN_IF_ERROR(r.get_in(*t, p, "keep_finished_seconds", keep_s, 0, 30 * 86400));
    e.keep_finished_for = std::chrono::seconds(keep_s);
  } else if (root.get("engine")) {
    return r.bad("engine", "expected a table");
  }
  if (const auto* t = root.get_as<toml::table>("keys")) {
    RETURN_IF_ERROR(r.check_unknown(*t, "keys.", {"dir", "preload", "register_dirs", "upload_quota"}));
    RETURN_IF_ERROR(r.get(*t, "keys.", "dir", c.key_dir));
    auto strings = [&](const char* key, std::vector<std::string>& out) -> Status {
      const toml::node* n = t->get(key);
      if (!n) return Status();
      const auto* arr = n->as_array();
      if (!arr) return r.bad(std::string("keys.") + key, "expected a list of strings");
      if (arr->size() > 1024) return r.bad(std::string("keys.") + key, "at most 1024 entries");
      for (const auto& s : *arr) {
        if (!s.is_string() || s.as_string()->get().empty()) {
          return r.bad(std::string("keys.") + key, "expected non-empty strings");
        }
        out.push_back(s.as_string()->get());
      }
      return Status();
    };
    RETURN_IF_ERROR(strings("preload", c.preload));
    RETURN_IF_ERROR(strings("register_dirs", c.register_dirs));
    size_t quota = c.upload_quota;
    RETURN_IF_ERROR(r.get_bytes(*t, "keys.", "upload_quota", quota));
    c.upload_quota = quota;
  } else if (root.get("keys")) {
    return r.bad("keys", "expected a table");
  }
  e.key_cache_dir = c.key_dir.empty() ? "" : c.key_dir + "/cache";
  if (const auto* t = root.get_as<toml::table>("cuzk")) {
    RETURN_IF_ERROR(r.check_unknown(*t, "cuzk.", {"keys"}));
    if (const toml::node* n = t->get("keys")) {
      const auto* keys = n->as_table();
      if (!keys) return r.bad("cuzk.keys", "expected a table of circuit id = key source");
      static const std::set<std::string> ids{"porep-2k", "porep-8m", "porep-512m", "porep-32g", "porep-64g"};
      for (const auto& [id, source] : *keys) {
        const std::string name(id.str());
        if (!ids.count(name)) {
          return r.bad("cuzk.keys." + name, "not a PoRep circuit id (porep-2k, porep-8m, porep-512m, porep-32g, porep-64g)");
        }
        if (!source.is_string() || source.as_string()->get().empty()) {
          return r.bad("cuzk.keys." + name, "expected a key source string");
        }
        c.cuzk_keys[name] = source.as_string()->get();
      }
    }
  } else if (root.get("cuzk")) {
    return r.bad("cuzk", "expected a table");
  }
  if (const auto* t = root.get_as<toml::table>("timeline")) {
    RETURN_IF_ERROR(r.check_unknown(*t, "timeline.", {"path"}));
    RETURN_IF_ERROR(r.get(*t, "timeline.", "path", c.timeline_path));
  } else if (root.get("timeline")) {
    return r.bad("timeline", "expected a table");
  }
  if (const auto* t = root.get_as<toml::table>("log")) {
    RETURN_IF_ERROR(r.check_unknown(*t, "log.", {"level", "format", "file"}));
    RETURN_IF_ERROR(r.get(*t, "log.", "level", c.log_level));
    RETURN_IF_ERROR(r.get(*t, "log.", "format", c.log_format));
    RETURN_IF_ERROR(r.get(*t, "log.", "file", c.log_file));
    if (c.log_level != "error" && c.log_level != "warn" && c.log_level != "info" && c.log_level != "debug") {
      return r.bad("log.level", "expected error, warn, info or debug, got '" + c.log_level + "'");
    }
    if (c.log_format != "text" && c.log_format != "json") {
      return r.bad("log.format", "expected text or json, got '" + c.log_format + "'");
    }
  } else if (root.get("log")) {
    return r.bad("log", "expected a table");
  }
  return c;
}

namespace {
std::string errno_text() { return std::strerror(errno); }
}  // namespace

Status check_paths(DaemonConfig& c, const std::string& name) {
  namespace fs = std::filesystem;
  auto bad = [&](const std::string& key, const std::string& path, const std::string& why) {
    return invalid_argument(name + ": " + key + " '" + path + "': " + why);
  };
  if (!c.log_file.empty()) {
    const int fd = ::open(c.log_file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0640);
    if (fd < 0) return bad("log.file", c.log_file, "cannot open for appending: " + errno_text());
    ::close(fd);
  }
  if (!c.timeline_path.empty()) {
    const fs::path dir = fs::absolute(fs::path(c.timeline_path)).parent_path();
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return bad("timeline.path", c.timeline_path, "its directory does not exist");
    if (::access(dir.c_str(), W_OK) != 0) return bad("timeline.path", c.timeline_path, "its directory is not writable");
    if (fs::is_directory(c.timeline_path, ec)) return bad("timeline.path", c.timeline_path, "is a directory");
  }
  if (!c.key_dir.empty()) {
    std::error_code ec;
    fs::create_directories(c.key_dir, ec);
    if (ec || !fs::is_directory(c.key_dir)) {
      return bad("keys.dir", c.key_dir, ec ? "cannot create it: " + ec.message() : "is not a directory");
    }
    if (::access(c.key_dir.c_str(), W_OK) != 0) return bad("keys.dir", c.key_dir, "is not writable");
  }
  for (auto& d : c.register_dirs) {
    std::error_code ec;
    const fs::path canonical = fs::canonical(d, ec);
    if (ec || !fs::is_directory(canonical)) return bad("keys.register_dirs", d, "is not a directory");
    d = canonical.string();
  }
  return Status();
}

Result<DaemonConfig> load_config(const std::string& path) {
  std::ifstream f(path);
  if (!f) return Status(StatusCode::kNotFound, "config '" + path + "': cannot open");
  std::stringstream s;
  s << f.rdbuf();
  return parse_config(s.str(), path);
}

}  // namespace snarkd::server
