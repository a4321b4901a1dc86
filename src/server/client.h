// snarkd/server: a client of a running daemon (used by `snarkd status|keys|submit|await|cancel`,
// `snarkd prove --addr` and `snarkd bench daemon`). Errors carry the gRPC code and message.
//
// Every call has a deadline, and the channel sends HTTP/2 keepalive pings while a call waits:
// a daemon that stops answering (stopped, wedged, its host gone) fails the call with
// UNAVAILABLE within keepalive + keepalive_timeout, not at the end of a proof's long deadline.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "base/status.h"
#include "snarkd/v1/prover.grpc.pb.h"

namespace snarkd::server {

struct ClientOptions {
  size_t max_message_bytes = size_t(512) << 20;
  // Deadline of the short calls (status, keys, submit, cancel, metrics).
  std::chrono::milliseconds call_timeout{std::chrono::seconds(30)};
  // Deadline of calls that wait for a proof or a key (Prove, AwaitProof without a timeout of
  // its own, RegisterKey): the daemon's default await limit (an hour) and a margin.
  std::chrono::milliseconds long_timeout{std::chrono::seconds(3600 + 60)};
  // A ping after this much silence on the connection; no answer within keepalive_timeout
  // closes it.
  std::chrono::milliseconds keepalive{std::chrono::seconds(5)};
  std::chrono::milliseconds keepalive_timeout{std::chrono::seconds(5)};
};

class Client {
 public:
  // addr: "unix:///path" or "host:port".
  static std::unique_ptr<Client> connect(const std::string& addr, const ClientOptions& options = {});

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
  Client(std::unique_ptr<v1::Prover::Stub> stub, std::string addr, ClientOptions options)
      : stub_(std::move(stub)), addr_(std::move(addr)), options_(options) {}
  template <class Response, class Fn>
  Result<Response> call(const char* name, std::chrono::milliseconds deadline, Fn&& fn);

  std::unique_ptr<v1::Prover::Stub> stub_;
  std::string addr_;
  ClientOptions options_;
};

}  // namespace snarkd::server
