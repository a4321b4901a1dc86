// snarkd/cli: the file-based commands. Exit codes: 0 success (for verify: the proof is valid),
// 1 failure (verify: the proof is invalid), 2 bad input (unreadable, malformed, mismatched).
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "cli/backend_choice.h"
#include "cli/curve.h"

namespace snarkd::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;

// The exit code for a failed operation: 2 when the input is at fault (invalid, missing, changed,
// out of range, not permitted), 1 otherwise.
int exit_code_for(const Status& s);

struct ProveOptions {
  std::string zkey, witness, proof_out, public_out;
  bool timings = false;
  bool verify = true;  // self-verify before writing: never hand out a wrong proof
  BackendChoice backend = BackendChoice::kAuto;
};
int run_prove(const ProveOptions& o);

int run_verify(const std::string& vk_path, const std::string& public_path,
               const std::string& proof_path);

struct SetupOptions {
  std::string r1cs;           // a circom .r1cs, or empty for the built-in chain
  Curve curve = Curve::kBls12_381;  // for the built-in circuit
  uint64_t constraints = 1 << 10;
  unsigned boolean_percent = 25;
  uint64_t seed = 1;
  std::string zkey_out, vk_out, wtns_out;  // wtns_out: the built-in circuit's witness
  std::string params_out;  // a bellperson .params (BLS12-381, divide-by-Z H); --vk is then bellperson's .vk
  std::string porep;       // a PoRep sector size: its partition circuit (porep:SIZE) instead of the chain
};
int run_setup(const SetupOptions& o);

int run_info(const std::string& path);

}  // namespace snarkd::cli
