// snarkd/filecoin: the PoRep C1 output (SealCommitPhase1Output) and its two encodings.
//
// - JSON, as filecoin-ffi writes it (rust-filecoin-proofs-api's struct): serde's field order,
//   externally tagged enums, 32-byte values as arrays of 32 integers, compact. The reader takes
//   the keys in any order (Curio's Go re-serialiser writes another).
// - bincode 1.x of filecoin-proofs' struct (supraseal's `commit-phase1-output`): the same data
//   without the registered proof, little-endian fixed-width integers, u64 lengths, u32 enum
//   variants, 32-byte values raw.
//
// Both readers check the structure against the registered proof (partition and challenge counts,
// path lengths and arities, column heights, parent counts, layer numbers) and that every 32-byte
// value is a canonical field element, and name the offending field: its JSON path
// (`vanilla_proofs.StackedDrg2KiBV1[0][1].comm_d_proofs.data.Single.path.path[3].index`) or,
// for bincode, the same path and the byte offset. What the proofs claim is checked apart
// (porep.h: verify_c1).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "filecoin/seal_proof.h"

namespace snarkd::filecoin {

// One level of a Merkle path: the arity − 1 siblings in position order (the node's own left
// out), and the node's position among them.
struct PathElement {
  std::vector<Bytes32> hashes;
  uint64_t index = 0;
  bool operator==(const PathElement&) const = default;
};

// storage-proofs-core's MerkleProof: Single (one tree), Sub (base trees under one sub level) or
// Top (and a top level). `path` holds the levels from the leaf up: base, then the sub level,
// then the top level.
struct MerkleProof {
  enum class Kind : uint32_t { kSingle = 0, kSub = 1, kTop = 2 };
  Kind kind = Kind::kSingle;
  Bytes32 root{}, leaf{};
  std::vector<PathElement> path;
  bool operator==(const MerkleProof&) const = default;

  // The leaf's position in the tree: Σ index_i · (product of the arities below level i).
  uint64_t leaf_index() const;
};

struct Column {
  uint32_t index = 0;          // the node
  std::vector<Bytes32> rows;   // its label in layers 1..L
  bool operator==(const Column&) const = default;
};

struct ColumnProof {
  Column column;
  MerkleProof inclusion_proof;  // into tree C
  bool operator==(const ColumnProof&) const = default;
};

struct ReplicaColumnProof {
  ColumnProof c_x;
  std::vector<ColumnProof> drg_parents;  // 6
  std::vector<ColumnProof> exp_parents;  // 8
  bool operator==(const ReplicaColumnProof&) const = default;
};

// A labeling proof (and the encoding proof, of the same shape): the 37 parent labels hashed
// into the label of `node` in layer `layer_index`.
struct LabelingProof {
  std::vector<Bytes32> parents;
  uint32_t layer_index = 0;
  uint64_t node = 0;
  bool operator==(const LabelingProof&) const = default;
};

// storage-proofs-porep's stacked vanilla Proof: one challenge.
struct VanillaProof {
  MerkleProof comm_d_proofs;      // into tree D (SHA-256, binary)
  MerkleProof comm_r_last_proof;  // into tree R last
  ReplicaColumnProof replica_column_proofs;
  std::vector<LabelingProof> labeling_proofs;  // layers 1..L
  LabelingProof encoding_proof;
  bool operator==(const VanillaProof&) const = default;
};

struct C1Output {
  const SealProof* registered_proof = nullptr;
  std::vector<std::vector<VanillaProof>> vanilla_proofs;  // [partition][challenge]
  Bytes32 comm_r{}, comm_d{}, replica_id{}, seed{}, ticket{};
  bool operator==(const C1Output& o) const {
    return registered_proof == o.registered_proof && vanilla_proofs == o.vanilla_proofs && comm_r == o.comm_r &&
           comm_d == o.comm_d && replica_id == o.replica_id && seed == o.seed && ticket == o.ticket;
  }
};

// filecoin-ffi's JSON (compact, serde's key order).
std::string write_c1_json(const C1Output& c1);
// `name` names the input in errors ("'c1.json'").
Result<C1Output> read_c1_json(std::string_view text, std::string_view name);

// filecoin-proofs' bincode (no registered proof in it: the caller names it).
std::string write_c1_bincode(const C1Output& c1);
Result<C1Output> read_c1_bincode(std::span<const uint8_t> bytes, const SealProof& proof, std::string_view name);

// Either form: JSON when the first non-blank byte is '{', else bincode of `bincode_proof`
// (which must then be given).
Result<C1Output> read_c1(std::span<const uint8_t> bytes, const SealProof* bincode_proof, std::string_view name);

// The structural checks both readers make, for a C1Output built in memory (errors use the JSON
// paths).
Status check_c1_structure(const C1Output& c1);

}  // namespace snarkd::filecoin
