// snarkd/cli: `snarkd bench engine` (the engine in-process on built-in circuits: per-proof
// lines, throughput, peak RSS and the utilization report), `snarkd bench porep` (the same for
// PoRep C2 jobs of c1-synth sectors) and `snarkd timeline FILE`.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "cli/curve.h"
#include "engine/engine.h"

namespace snarkd::cli {

struct BenchEngineOptions {
  Curve curve = Curve::kBn254;
  unsigned log_size = 12;  // constraints per partition: 2^k - 8
  unsigned boolean_percent = 50;
  unsigned proofs = 8;       // jobs
  unsigned concurrency = 2;  // jobs in flight (client threads)
  unsigned partitions = 1;   // per job
  engine::BackendKind backend = engine::BackendKind::kAuto;
  unsigned slots = 2;              // GPU slots per device
  unsigned cpu_workers = 1;        // CPU backend: prover workers per device
  unsigned devices = 0;            // GPUs to use (0: all) or CPU devices to model
  unsigned synthesis_workers = 2;
  bool verify = true;
  std::string timeline;  // JSON lines here and a Perfetto trace at <timeline>.trace.json
  // bench porep: PoRep C2 jobs of this sector size ("2KiB" … "64GiB"), one c1-synth CC sector
  // per proof (miner 1000, sectors 1..N), on `key_source` (default: the synthetic key of the
  // size, random points whose proofs cannot verify).
  std::string porep_size;
  std::string key_source;
  size_t gpu_memory_limit = 0;  // GpuBackendOptions::device_memory_limit
};

int run_bench_engine(const BenchEngineOptions& options, std::ostream& out);
int run_timeline(const std::string& path, std::ostream& out);

// `snarkd bench daemon` (cli/client_commands.cc, with the daemon): declared here so that builds
// without gRPC parse the same command line.
struct BenchDaemonOptions {
  std::string key = "builtin:chain:bn254:12:50";
  unsigned proofs = 8, concurrency = 2, partitions = 1;
  // "snarkd" (snarkd.v1 jobs of `key`) or "cuzk" (cuzk.v1 Prove calls, as Curio and cuzk-bench
  // make them: PoRep C2 of `c1`, a C1 JSON or Curio's wrapper, for miner_id and sector).
  std::string api = "snarkd";
  std::string c1;
  uint64_t miner_id = 1000, sector = 1;
};

}  // namespace snarkd::cli
