// snarkd/server: the daemon's configuration (TOML, docs/config.md). Every key has a default;
// an unknown key or a bad value is an error naming the key.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "engine/engine.h"

namespace snarkd::server {

struct DaemonConfig {
  std::string listen = "127.0.0.1:9820";  // "unix:///path" or "host:port"
  std::string http_listen = "127.0.0.1:9821";  // status/metrics; "" disables
  uint64_t max_message_bytes = uint64_t(256) << 20;  // Curio's cuzk client sends and takes up to 256 MiB
  uint32_t drain_seconds = 30;       // SIGTERM: time in-flight jobs get to finish
  uint32_t max_await_seconds = 3600;  // the longest AwaitProof/Prove wait
  // HTTP/2 keepalive: the daemon pings a silent client connection this often and drops it when
  // no answer comes within as long again; clients may ping it as often (snarkd's do every 5 s).
  uint32_t keepalive_seconds = 10;
  engine::EngineOptions engine;
  std::string key_dir;               // key cache (WARM) and uploaded zkeys ("": none)
  std::vector<std::string> preload;  // key sources registered and loaded at start
  // Directories RegisterKey{path} may register keys from (canonical; empty: clients cannot
  // register paths, only upload bytes or name built-in keys). docs/security.md.
  std::vector<std::string> register_dirs;
  uint64_t upload_quota = uint64_t(16) << 30;  // bytes of key_dir/uploads
  std::string timeline_path;         // written at shutdown ("": not written)
  std::string log_level = "info";    // error, warn, info, debug
  std::string log_format = "text";   // text or json
  std::string log_file;              // "" = stderr; reopened on SIGHUP
  // cuzk.v1: circuit id ("porep-32g") -> key source, for ids that should not use Filecoin's
  // parameter file in $FIL_PROOFS_PARAMETER_CACHE (e.g. a synthetic key for benchmarks).
  std::map<std::string, std::string> cuzk_keys;
};

// Parses TOML text; `name` prefixes errors ("snarkd.toml: engine.gpu_slots: ...").
Result<DaemonConfig> parse_config(const std::string& text, const std::string& name);
Result<DaemonConfig> load_config(const std::string& path);

// The paths the config names, checked before the daemon starts: log.file can be appended to,
// timeline.path's directory is writable, keys.dir is (or can be made) a writable directory,
// each keys.register_dirs entry is a directory (made canonical here). Errors name the key.
Status check_paths(DaemonConfig& config, const std::string& name);

// "64GiB", "512 MiB", "1000000" -> bytes.
Result<uint64_t> parse_bytes(const std::string& text);

}  // namespace snarkd::server
