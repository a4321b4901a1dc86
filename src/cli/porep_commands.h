// snarkd porep: Filecoin PoRep's vanilla side from the command line: a node's parents, a
// sector's challenges and public inputs, sealing test sectors into a C1 output, checking a C1.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace snarkd::cli {

// What identifies a sector's replica (the prover id given directly or from a miner id).
struct PorepSectorArgs {
  std::string registered_proof;  // number or name
  std::optional<uint64_t> miner_id;
  std::string prover_id;  // hex
  uint64_t sector = 0;
  std::string ticket, seed;  // hex
};

int run_porep_parents(const std::string& registered_proof, uint64_t node, bool json, std::ostream& out,
                      std::ostream& err);

struct PorepPublicInputsOptions {
  PorepSectorArgs sector;
  std::string comm_d, comm_r;  // hex
  bool json = false;
};
int run_porep_public_inputs(const PorepPublicInputsOptions& o, std::ostream& out, std::ostream& err);

struct PorepSealOptions {
  PorepSectorArgs sector;
  std::string sector_size;  // "2KiB", "8MiB", "512MiB"
  std::string data;         // a file of sector-size bytes (Fr32-padded); "": a CC sector of zeros
  std::string out;          // the C1 output
  bool bincode = false;     // write filecoin-proofs' bincode instead of JSON
};
int run_porep_seal(const PorepSealOptions& o, std::ostream& out, std::ostream& err);

// snarkd porep c1-synth: a consistent full-size C1 output of a CC sector without sealing it
// (for testing and benchmarking only: see filecoin/c1_synth.h).
struct PorepSynthOptions {
  PorepSectorArgs sector;
  std::string sector_size;  // "32GiB", "64GiB" (any size works)
  std::string out;
  bool bincode = false;
};
int run_porep_c1_synth(const PorepSynthOptions& o, std::ostream& out, std::ostream& err);

// Reads a C1 output (JSON, or bincode of `registered_proof`) and verifies everything it claims.
int run_porep_check_c1(const std::string& path, const std::string& registered_proof, std::ostream& out,
                       std::ostream& err);

// snarkd porep c2: a C1 output (JSON, bincode, or Curio's/lotus-bench's Commit2In wrapper) to
// the PoRep proof (partitions × 192 bytes), through an in-process engine: the public inputs are
// derived from the ids, every partition proof is verified before it is written.
struct PorepC2Options {
  std::string input;
  std::string registered_proof;  // required for a bincode C1
  std::optional<uint64_t> miner_id;
  std::string prover_id;          // hex
  std::optional<uint64_t> sector;  // required unless the wrapper carries SectorNum
  std::string params;             // bellperson .params; "": Filecoin's file in the parameter cache
  std::string key;                // any engine key source instead (e.g. builtin:synthetic:divide-by-z:porep:32GiB)
  std::string out;
  std::string backend = "auto";
  uint64_t gpu_memory_limit = 0;  // bytes of device memory the GPU backend plans in (0: all free)
  bool timings = true;
};
int run_porep_c2(const PorepC2Options& o, std::ostream& out, std::ostream& err);

// snarkd porep verify: a PoRep proof against its public data, as verify_seal checks it. Exit 0
// valid, 1 invalid, 2 bad input.
struct PorepVerifyOptions {
  PorepSectorArgs sector;
  std::string comm_d, comm_r;  // hex
  std::string vk;              // bellperson .vk; "": Filecoin's file in the parameter cache
  std::string proof;
};
int run_porep_verify(const PorepVerifyOptions& o, std::ostream& out, std::ostream& err);

}  // namespace snarkd::cli
