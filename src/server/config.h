// snarkd/server: the daemon's configuration (TOML, docs/config.md). Every key has a default;
// an unknown key or a bad value is an error naming the key.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "engine/engine.h"

namespace snarkd::server {

struct DaemonConfig {
  std::string listen = "127.0.0.1:9820";  // "unix:///path" or "host:port"
  std::string http_listen = "127.0.0.1:9821";  // status/metrics; "" disables
  uint64_t max_message_bytes = uint64_t(512) << 20;
  uint32_t drain_seconds = 30;       // SIGTERM: time in-flight jobs get to finish
  uint32_t max_await_seconds = 3600;  // the longest AwaitProof/Prove wait
  engine::EngineOptions engine;
  std::string key_dir;               // key cache (WARM) and uploaded zkeys ("": none)
  std::vector<std::string> preload;  // key sources registered and loaded at start
  std::string timeline_path;         // written at shutdown ("": not written)
  std::string log_level = "info";    // error, warn, info, debug
  std::string log_format = "text";   // text or json
  std::string log_file;              // "" = stderr; reopened on SIGHUP
};

// Parses TOML text; `name` prefixes errors ("snarkd.toml: engine.gpu_slots: ...").
Result<DaemonConfig> parse_config(const std::string& text, const std::string& name);
Result<DaemonConfig> load_config(const std::string& path);

// "64GiB", "512 MiB", "1000000" -> bytes.
Result<uint64_t> parse_bytes(const std::string& text);

}  // namespace snarkd::server
