// snarkd/server: the daemon. A gRPC server (snarkd.v1.Prover, proto/snarkd/v1/prover.proto)
// and an HTTP server (/metrics, /status, /healthz) in front of one Engine.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "server/config.h"

namespace snarkd::server {

class Daemon {
 public:
  // Creates the engine, registers and preloads the configured keys, and starts listening.
  static Result<std::unique_ptr<Daemon>> start(DaemonConfig config);
  virtual ~Daemon() = default;

  // The bound addresses (a port of 0 in the config becomes the real one).
  virtual std::string grpc_address() const = 0;
  virtual std::string http_address() const = 0;  // "" when disabled

  // Stops accepting, lets running jobs finish within the drain deadline, fails the rest,
  // writes the timeline and stops both servers. Idempotent.
  virtual void stop() = 0;
  virtual void reopen_log() = 0;
};

// `snarkd serve --config FILE`: runs until SIGTERM or SIGINT (SIGHUP reopens the log file).
int run_serve(const std::string& config_path);

}  // namespace snarkd::server
