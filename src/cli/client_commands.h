// snarkd/cli: commands that talk to a running daemon over gRPC (built with the daemon only).
#pragma once

#include <cstdint>
#include <ostream>
#include <optional>
#include <string>

#include "cli/engine_bench.h"

namespace snarkd::cli {

struct ClientOptions {
  std::string addr = "127.0.0.1:9820";
  unsigned call_timeout_s = 30;    // deadline of short calls
  unsigned wait_timeout_s = 3660;  // deadline of calls that wait for a proof or a key
};

int run_status(const ClientOptions& c, std::ostream& out);
int run_keys(const ClientOptions& c, const std::string& register_source, bool preload, const std::string& evict,
             std::ostream& out);
struct SubmitOptions {
  std::string key, witness_path, request_id, priority = "normal";
  uint32_t partitions = 1;
  uint64_t seed = 1, timeout_ms = 0;
  // PoRep C2 on a porep:SIZE key: the C1 (JSON, bincode or Commit2In) and the ids.
  std::string porep_c1;
  std::optional<uint64_t> miner_id, sector;
  std::string prover_id;  // hex
};
int run_submit(const ClientOptions& c, const SubmitOptions& s, std::ostream& out);
// proof_out/public_out: the first partition's proof.json and public.json; bytes_out: every
// partition's proof bytes concatenated (a PoRep proof).
int run_await(const ClientOptions& c, uint64_t job, uint64_t timeout_ms, const std::string& proof_out,
              const std::string& public_out, const std::string& bytes_out, std::ostream& out);
int run_cancel(const ClientOptions& c, uint64_t job, std::ostream& out);
// `snarkd prove --addr`: registers the key (by path, or uploading it), proves through the
// daemon and writes proof.json and public.json; exit codes as for the in-process prove.
int run_remote_prove(const ClientOptions& c, const std::string& zkey, const std::string& witness,
                     const std::string& proof_out, const std::string& public_out);
int run_bench_daemon(const ClientOptions& c, const BenchDaemonOptions& b, std::ostream& out);

}  // namespace snarkd::cli
