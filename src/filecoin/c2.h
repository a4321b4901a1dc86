// snarkd/filecoin: PoRep C2's inputs, public inputs and parameter files.
//
// - The request: a C1 output (JSON or bincode, c1.h), or the wrapper Curio's cuzk client and
//   lotus-bench's `Commit2In` write, {"SectorNum": n, "Phase1Out": base64 of the C1 JSON,
//   "SectorSize": bytes}.
// - The public inputs of every partition are derived from the ids (prover, sector, ticket,
//   comm_d, comm_r, seed) the way `seal_commit_phase2`/`verify_seal` derive them, never read from
//   the C1; a C1 that disagrees with them (its replica_id, its challenges, anything verify_c1
//   checks) is refused, naming what differs.
// - Parameter files: `v28-stacked-proof-of-replication-merkletree-poseidon_hasher-U-V-W-
//   sha256_hasher-<id>.params|.vk`, <id> the SHA-256 of the public parameters' identifier
//   (rust-fil-proofs' cache_identifier), in $FIL_PROOFS_PARAMETER_CACHE (default
//   /var/tmp/filecoin-proof-parameters).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "base/thread_pool.h"
#include "filecoin/c1.h"
#include "filecoin/porep.h"
#include "filecoin/seal_proof.h"
#include "filecoin/stacked_circuit.h"
#include "r1cs/cs.h"

namespace snarkd::filecoin {

struct C2Input {
  C1Output c1;
  std::optional<uint64_t> sector;  // the wrapper's SectorNum
  std::string form;                // "C1 JSON", "C1 bincode" or "Commit2In"
};

// Any of the three forms. A bincode C1 names no proof: `bincode_proof` must then be given. Errors
// name the input and the field ("'c2.json': Phase1Out: …").
Result<C2Input> read_c2_input(std::span<const uint8_t> bytes, const SealProof* bincode_proof, std::string_view name);

// rust-fil-proofs' identifier of the PoRep public parameters (the same for V1 and V1_1 of a size).
std::string porep_parameter_identifier(const SealProof& p);
// Hex SHA-256 of the identifier (the parameter id in parameters.json).
std::string porep_parameter_id(const SealProof& p);
// "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-<id>" + ext.
std::string porep_parameter_file(const SealProof& p, std::string_view ext);
// $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters.
std::string parameter_cache_dir();

// The C1 checked against the ids, and every partition's public inputs derived from the ids:
// replica_id = H(prover_id, sector, ticket, comm_d, porep_id) must equal the C1's, and verify_c1
// must accept it (its challenges are the ones the seed selects, its proofs open to comm_d and
// comm_r). Refuses all-zero comm_d, comm_r or seed, as seal_commit_phase2 does.
Result<std::vector<PartitionInputs>> c2_public_inputs(const C1Output& c1, const Bytes32& prover_id, uint64_t sector,
                                                      ThreadPool& pool = ThreadPool::global());

// The public inputs of every partition of a proof of (registered proof, ids) — for verifying,
// as verify_seal derives them.
Result<std::vector<PartitionInputs>> seal_public_inputs(const SealProof& p, const Bytes32& prover_id, uint64_t sector,
                                                        const Bytes32& ticket, const Bytes32& seed,
                                                        const Bytes32& comm_d, const Bytes32& comm_r);

// One partition's assignment [ONE, inputs, aux] by the witness-only synthesis, written in place
// into one buffer sized from the shape (no copy: a 32 GiB partition's is 4.2 GB). Checks that the
// circuit's public inputs equal `expected`.
Status c2_witness(const C1Output& c1, unsigned partition, const PartitionInputs& expected,
                  r1cs::ValueBuffer<StackedField>& out);

}  // namespace snarkd::filecoin
