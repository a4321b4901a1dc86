// snarkd/engine (internal): a loaded key behind a curve-free interface, so the pipeline is
// written once for both curves. Each implementation knows how to synthesize a partition's
// witness, run prove_start on a device's backend for its curve, and finish a proof.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/hash.h"
#include "base/status.h"
#include "circuits/circuit.h"
#include "ec/curve_id.h"
#include "engine/engine.h"
#include "filecoin/c2.h"
#include "groth16/prover.h"
#include "poly/quotient.h"

namespace snarkd::engine::internal {

// One device's backends, one per curve (made when the engine starts).
struct DeviceBackends {
  int device = 0;  // the engine's device number
  std::string kind;  // "cpu" or "gpu"
  std::unique_ptr<groth16::Backend<ec::bls12_381::Engine>> bls12_381;
  std::unique_ptr<groth16::Backend<ec::bn254::Engine>> bn254;

  template <class E>
  groth16::Backend<E>& get() {
    if constexpr (std::is_same_v<E, ec::bls12_381::Engine>) return *bls12_381;
    else return *bn254;
  }
};

// What a job carries for its partitions. Its bytes are charged to the budget from the job's
// arrival until the job ends and the last partition using them lets go.
struct JobInputs {
  std::string witness;  // .wtns bytes
  std::string witness_name = "witness";
  uint64_t seed = 1;
  Reservation memory;   // witness.size() bytes
  // A PoRep C2 job: the C1 and every partition's public inputs, derived from the ids (checked
  // against the C1 at submission; each partition's circuit inputs are checked against them).
  std::shared_ptr<const filecoin::C1Output> c1;
  std::vector<filecoin::PartitionInputs> porep_inputs;
};

// A partition's curve-specific state between stages: the witness, then the pending proof.
class PartitionData {
 public:
  virtual ~PartitionData() = default;
};

// What a key's source says: a .zkey file, or a registered circuit family's spec
// ("builtin:<spec>", a test key made by a seeded setup with snarkjs's quotient convention;
// "builtin:divide-by-z:<spec>" for bellperson's; "builtin:synthetic:<spec>" random points in
// place of a setup, for benchmarks at sizes a setup would take minutes for: its proofs do not
// verify); or "bellperson:<spec>[@<path>]", a bellperson `.params` file for a registered circuit
// (its matrices from the circuit; a porep:SIZE circuit's file, when no path is given, is found
// where Filecoin's tools keep it).
struct KeySource {
  enum class Kind { kZkey, kBuiltin, kParams };
  Kind kind = Kind::kZkey;
  std::string text;  // as registered (canonical for kBuiltin)
  std::string path;  // kZkey, kParams
  ec::CurveId curve = ec::CurveId::kBn254;
  std::shared_ptr<const circuits::Circuit> circuit;  // kBuiltin
  poly::QuotientConvention convention = poly::QuotientConvention::kSnarkjsOddCoset;  // kBuiltin
  bool synthetic = false;  // kBuiltin
  // A porep:SIZE circuit (kBuiltin or kParams): the size's registered proof (V1_1; V1's circuit
  // is the same), which C2 jobs on the key must match in sector size.
  const filecoin::SealProof* porep = nullptr;
  // kParams: the file's size and modification time at registration, its identity (a 47 GB
  // parameter file is not hashed whole).
  uint64_t file_size = 0;
  int64_t file_mtime = 0;
};

class CircuitKey {
 public:
  virtual ~CircuitKey() = default;
  virtual ec::CurveId curve() const = 0;
  virtual size_t host_bytes() const = 0;
  // Host bytes one partition holds from synthesis to its result: the witness and scratch, and
  // a, b, c when the backend evaluates them on the host (the CPU backend; a GPU backend
  // evaluates on the device and stages the witness in pinned buffers charged on their own).
  virtual size_t partition_bytes(bool abc_on_host) const = 0;
  virtual uint32_t num_variables() const = 0;
  virtual uint32_t num_public() const = 0;
  virtual uint32_t log_domain_size() const = 0;

  virtual Result<std::unique_ptr<PartitionData>> synthesize(const JobInputs& in, uint32_t partition) const = 0;
  virtual Result<groth16::StageTimings> prove_start(DeviceBackends& device, PartitionData& data) const = 0;
  virtual Result<PartitionProof> finish(PartitionData& data, bool verify) const = 0;
  virtual std::string verifying_key_json() const = 0;  // snarkjs verification_key.json
  virtual Status write_cache(const std::string& path, const Hash128& source) const = 0;
  // Tells the device to drop its copy (before this key is freed).
  virtual void forget(DeviceBackends& device) const = 0;
  // Hands the key to the engine's only device (Backend::adopt_key), freeing the host parts that
  // device will not read again; host_bytes() then counts what is left and what the backend holds.
  // Returns a note for the key's load event. An error means the key was partly freed and must
  // be loaded again; a backend that proves from the host key leaves it whole (not an error).
  virtual Result<std::string> adopt(DeviceBackends& device) = 0;
};

Result<KeySource> parse_key_source(const std::string& source);
// The key's identity: the file's content hash, or the hash of a built-in spec.
Result<Hash128> key_source_hash(const KeySource& source);
// Host bytes a key of this source will take, before loading it (for the budget).
Result<size_t> estimate_key_bytes(const KeySource& source);

// Loads from the WARM cache file when it is valid, else from the source (and then writes the
// cache when cache_path is set). `note` says which, and why a cache was not used.
Result<std::shared_ptr<CircuitKey>> load_circuit_key(const KeySource& source, const Hash128& hash,
                                                     const std::string& cache_path, bool& from_cache,
                                                     std::string& note);

}  // namespace snarkd::engine::internal
