// snarkd/server: the cuzk.v1 ProvingEngine service (proto/cuzk/v1/proving.proto), so that
// Curio's cuzk client works against snarkd unchanged. It maps every RPC onto the same engine as
// snarkd.v1 and is served on the same listener (docs/cuzk-compat.md).
#pragma once

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "base/status.h"
#include "engine/engine.h"

namespace snarkd::server {

struct CuzkOptions {
  uint32_t max_await_seconds = 3600;  // the longest Prove / AwaitProof wait
  // Circuit id ("porep-32g") -> engine key source; unnamed ids use Filecoin's parameter file
  // in $FIL_PROOFS_PARAMETER_CACHE (bellperson:porep:<size>).
  std::map<std::string, std::string> keys;
  std::function<void(int level, const std::string& message)> log;  // 0 error .. 3 debug
};

// Waits for a job in short slices (so a vanished caller is noticed): its result once terminal;
// kDeadlineExceeded after wait_ms; kCancelled when the call was cancelled (the job too when
// cancel_on_disconnect: the caller was the only one waiting for it). Both services' awaits.
Result<engine::JobResult> await_job(engine::Engine& engine, grpc::ServerContext* ctx, uint64_t job, uint64_t wait_ms,
                                    bool cancel_on_disconnect,
                                    const std::function<void(int, const std::string&)>& log);

std::unique_ptr<grpc::Service> make_cuzk_service(engine::Engine& engine, CuzkOptions options);

// PoRep circuit ids: "porep-2k", "porep-8m", "porep-512m", "porep-32g", "porep-64g" for the
// sector sizes "2KiB" … "64GiB"; errors name the id.
Result<std::string> porep_circuit_id(std::string_view size_name);
Result<std::string> porep_size_of_circuit(std::string_view circuit_id);

}  // namespace snarkd::server
