#include "server/client.h"

#include <grpcpp/grpcpp.h>

namespace snarkd::server {

namespace {

// Waits for a proof: the caller's own limit and a margin for the reply, or the long deadline.
std::chrono::milliseconds wait_deadline(uint64_t timeout_ms, std::chrono::milliseconds long_timeout) {
  if (timeout_ms == 0) return long_timeout;
  return std::chrono::milliseconds(timeout_ms) + std::chrono::seconds(30);
}

}  // namespace

template <class Response, class Fn>
Result<Response> Client::call(const char* name, std::chrono::milliseconds deadline, Fn&& fn) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + deadline);
  Response out;
  grpc::Status s = fn(&ctx, &out);
  if (s.ok()) return out;
  std::string message = std::string(name) + ": " + s.error_message();
  if (s.error_code() == grpc::StatusCode::UNAVAILABLE) {
    message = std::string(name) + ": the daemon at " + addr_ + " is not answering (" + s.error_message() + ")";
  } else if (s.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED && s.error_message() == "Deadline Exceeded") {
    message = std::string(name) + ": no answer from " + addr_ + " within the client's deadline of " +
              std::to_string(deadline.count() / 1000) + " s";
  }
  return Status(StatusCode(int(s.error_code())), message);
}

std::unique_ptr<Client> Client::connect(const std::string& addr, const ClientOptions& o) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(int(o.max_message_bytes));
  args.SetMaxSendMessageSize(int(o.max_message_bytes));
  // Keepalive: ping a silent connection, also while a call waits with no data flowing (the
  // daemon permits pings this often: DaemonConfig::keepalive_seconds).
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, int(o.keepalive.count()));
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, int(o.keepalive_timeout.count()));
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  auto channel = grpc::CreateCustomChannel(addr, grpc::InsecureChannelCredentials(), args);
  return std::unique_ptr<Client>(new Client(v1::Prover::NewStub(channel), addr, o));
}

Result<v1::KeyInfo> Client::register_key(const v1::RegisterKeyRequest& req) {
  // Uploading or preloading a large key takes a while.
  return call<v1::KeyInfo>("RegisterKey", options_.long_timeout,
                           [&](auto* c, auto* o) { return stub_->RegisterKey(c, req, o); });
}
Result<v1::KeyInfo> Client::preload_key(const std::string& id) {
  v1::KeyRequest req;
  req.set_key_id(id);
  return call<v1::KeyInfo>("PreloadKey", options_.long_timeout,
                           [&](auto* c, auto* o) { return stub_->PreloadKey(c, req, o); });
}
Result<v1::KeyInfo> Client::evict_key(const std::string& id) {
  v1::KeyRequest req;
  req.set_key_id(id);
  return call<v1::KeyInfo>("EvictKey", options_.call_timeout,
                           [&](auto* c, auto* o) { return stub_->EvictKey(c, req, o); });
}
Result<v1::ListKeysResponse> Client::list_keys() {
  v1::ListKeysRequest req;
  return call<v1::ListKeysResponse>("ListKeys", options_.call_timeout,
                                    [&](auto* c, auto* o) { return stub_->ListKeys(c, req, o); });
}
Result<std::string> Client::verifying_key(const std::string& id) {
  v1::KeyRequest req;
  req.set_key_id(id);
  ASSIGN_OR_RETURN(auto vk, call<v1::VerifyingKey>("GetVerifyingKey", options_.long_timeout, [&](auto* c, auto* o) {
                     return stub_->GetVerifyingKey(c, req, o);
                   }));
  return vk.json();
}
Result<v1::SubmitProofResponse> Client::submit(const v1::SubmitProofRequest& req) {
  return call<v1::SubmitProofResponse>("SubmitProof", options_.call_timeout,
                                       [&](auto* c, auto* o) { return stub_->SubmitProof(c, req, o); });
}
Result<v1::ProofResult> Client::await(uint64_t job, uint64_t timeout_ms) {
  v1::AwaitProofRequest req;
  req.set_job_id(job);
  req.set_timeout_ms(timeout_ms);
  return call<v1::ProofResult>("AwaitProof", wait_deadline(timeout_ms, options_.long_timeout),
                               [&](auto* c, auto* o) { return stub_->AwaitProof(c, req, o); });
}
Result<v1::ProofResult> Client::prove(const v1::SubmitProofRequest& req) {
  return call<v1::ProofResult>("Prove", wait_deadline(req.timeout_ms(), options_.long_timeout),
                               [&](auto* c, auto* o) { return stub_->Prove(c, req, o); });
}
Result<v1::CancelProofResponse> Client::cancel(uint64_t job) {
  v1::CancelProofRequest req;
  req.set_job_id(job);
  return call<v1::CancelProofResponse>("CancelProof", options_.call_timeout,
                                       [&](auto* c, auto* o) { return stub_->CancelProof(c, req, o); });
}
Result<v1::Status> Client::status() {
  v1::GetStatusRequest req;
  return call<v1::Status>("GetStatus", options_.call_timeout,
                          [&](auto* c, auto* o) { return stub_->GetStatus(c, req, o); });
}
Result<std::string> Client::metrics() {
  v1::GetMetricsRequest req;
  ASSIGN_OR_RETURN(auto m, call<v1::Metrics>("GetMetrics", options_.call_timeout,
                                             [&](auto* c, auto* o) { return stub_->GetMetrics(c, req, o); }));
  return m.prometheus_text();
}

}  // namespace snarkd::server
