#include "server/client.h"

#include <grpcpp/grpcpp.h>

namespace snarkd::server {

namespace {

Status from_grpc(const grpc::Status& s, const char* call) {
  if (s.ok()) return Status();
  return Status(StatusCode(int(s.error_code())), std::string(call) + ": " + s.error_message());
}

template <class Response, class Fn>
Result<Response> call(const char* name, Fn&& fn) {
  grpc::ClientContext ctx;
  Response out;
  grpc::Status s = fn(&ctx, &out);
  if (!s.ok()) return from_grpc(s, name);
  return out;
}

}  // namespace

std::unique_ptr<Client> Client::connect(const std::string& addr, size_t max_message_bytes) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(int(max_message_bytes));
  args.SetMaxSendMessageSize(int(max_message_bytes));
  auto channel = grpc::CreateCustomChannel(addr, grpc::InsecureChannelCredentials(), args);
  return std::unique_ptr<Client>(new Client(v1::Prover::NewStub(channel)));
}

Result<v1::KeyInfo> Client::register_key(const v1::RegisterKeyRequest& req) {
  return call<v1::KeyInfo>("RegisterKey", [&](auto* c, auto* o) { return stub_->RegisterKey(c, req, o); });
}
Result<v1::KeyInfo> Client::preload_key(const std::string& id) {
  v1::KeyRequest req;
  req.set_key_id(id);
  return call<v1::KeyInfo>("PreloadKey", [&](auto* c, auto* o) { return stub_->PreloadKey(c, req, o); });
}
Result<v1::KeyInfo> Client::evict_key(const std::string& id) {
  v1::KeyRequest req;
  req.set_key_id(id);
  return call<v1::KeyInfo>("EvictKey", [&](auto* c, auto* o) { return stub_->EvictKey(c, req, o); });
}
Result<v1::ListKeysResponse> Client::list_keys() {
  v1::ListKeysRequest req;
  return call<v1::ListKeysResponse>("ListKeys", [&](auto* c, auto* o) { return stub_->ListKeys(c, req, o); });
}
Result<std::string> Client::verifying_key(const std::string& id) {
  v1::KeyRequest req;
  req.set_key_id(id);
  ASSIGN_OR_RETURN(auto vk, call<v1::VerifyingKey>("GetVerifyingKey", [&](auto* c, auto* o) {
                     return stub_->GetVerifyingKey(c, req, o);
                   }));
  return vk.json();
}
Result<v1::SubmitProofResponse> Client::submit(const v1::SubmitProofRequest& req) {
  return call<v1::SubmitProofResponse>("SubmitProof", [&](auto* c, auto* o) { return stub_->SubmitProof(c, req, o); });
}
Result<v1::ProofResult> Client::await(uint64_t job, uint64_t timeout_ms) {
  v1::AwaitProofRequest req;
  req.set_job_id(job);
  req.set_timeout_ms(timeout_ms);
  return call<v1::ProofResult>("AwaitProof", [&](auto* c, auto* o) { return stub_->AwaitProof(c, req, o); });
}
Result<v1::ProofResult> Client::prove(const v1::SubmitProofRequest& req) {
  return call<v1::ProofResult>("Prove", [&](auto* c, auto* o) { return stub_->Prove(c, req, o); });
}
Result<v1::CancelProofResponse> Client::cancel(uint64_t job) {
  v1::CancelProofRequest req;
  req.set_job_id(job);
  return call<v1::CancelProofResponse>("CancelProof", [&](auto* c, auto* o) { return stub_->CancelProof(c, req, o); });
}
Result<v1::Status> Client::status() {
  v1::GetStatusRequest req;
  return call<v1::Status>("GetStatus", [&](auto* c, auto* o) { return stub_->GetStatus(c, req, o); });
}
Result<std::string> Client::metrics() {
  v1::GetMetricsRequest req;
  ASSIGN_OR_RETURN(auto m, call<v1::Metrics>("GetMetrics", [&](auto* c, auto* o) { return stub_->GetMetrics(c, req, o); }));
  return m.prometheus_text();
}

}  // namespace snarkd::server
