// snarkd/server: a client of a running daemon (used by `snarkd status|keys|submit|await|cancel`,
// `snarkd prove --addr` and `snarkd bench daemon`). Errors carry the gRPC code and message.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "base/status.h"
#include "snarkd/v1/prover.grpc.pb.h"

namespace snarkd::server {

class Client {
 public:
  // addr: "unix:///path" or "host:port".
  static std::unique_ptr<Client> connect(const std::string& addr, size_t max_message_bytes = size_t(512) << 20);

  Result<v1::KeyInfo> register_key(const v1::RegisterKeyRequest& req);
  Result<v1::KeyInfo> preload_key(const std::string& id);
  Result<v1::KeyInfo> evict_key(const std::string& id);
  Result<v1::ListKeysResponse> list_keys();
  Result<std::string> verifying_key(const std::string& id);
  Result<v1::SubmitProofResponse> submit(const v1::SubmitProofRequest& req);
  Result<v1::ProofResult> await(uint64_t job, uint64_t timeout_ms);
  Result<v1::ProofResult> prove(const v1::SubmitProofRequest& req);
  Result<v1::CancelProofResponse> cancel(uint64_t job);
  Result<v1::Status> status();
  Result<std::string> metrics();

 private:
  explicit Client(std::unique_ptr<v1::Prover::Stub> stub) : stub_(std::move(stub)) {}
  std::unique_ptr<v1::Prover::Stub> stub_;
};

}  // namespace snarkd::server
