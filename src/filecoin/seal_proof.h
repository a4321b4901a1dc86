// snarkd/filecoin: the registered seal proofs (Filecoin's RegisteredSealProof, rust-filecoin-
// proofs-api registry.rs) and the ids derived from them: porep_id, prover_id, replica_id.
//
// 32-byte values are kept as Filecoin stores them (the JSON arrays, Fr::to_repr(): little-endian
// for field elements).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace snarkd::filecoin {

using Bytes32 = std::array<uint8_t, 32>;

enum class ApiVersion { kV1_0, kV1_1, kV1_2 };
enum class PorepFeature { kNone, kSynthetic, kNonInteractive };

// A base/sub/top Poseidon tree (tree C and tree R last): `base_levels` levels of arity 8, then
// one level of `sub_arity` (0: none), then one of `top_arity` (0: none).
struct TreeArities {
  unsigned base_arity = 8, base_levels = 0, sub_arity = 0, top_arity = 0;
  std::string name() const;  // "8-8-0"
  unsigned levels() const { return base_levels + (sub_arity ? 1 : 0) + (top_arity ? 1 : 0); }
};

struct SealProof {
  uint64_t id = 0;             // the registered proof's number (Go abi = FFI value)
  std::string_view name;       // as serde writes it: "StackedDrg32GiBV1_1"
  std::string_view size_name;  // "32GiB"
  uint64_t sector_size = 0;    // bytes
  ApiVersion api = ApiVersion::kV1_0;
  PorepFeature feature = PorepFeature::kNone;
  unsigned layers = 0;
  unsigned partitions = 0;                // interactive (and synthetic) PoRep
  unsigned challenges_per_partition = 0;  // at most 18
  TreeArities tree;

  uint64_t nodes() const { return sector_size / 32; }
  unsigned node_bits() const;  // log2(nodes)
  // The key of `vanilla_proofs` in the C1 JSON: the plain V1 name of the size, for every kind.
  std::string vanilla_variant() const;
  // 32 bytes: u64_le(id) || u64_le(0) || 16 zero bytes.
  Bytes32 porep_id() const;
  bool uses_v1_0_graph() const { return api == ApiVersion::kV1_0; }
};

// Every registered seal proof, by id (0..19).
std::span<const SealProof> seal_proofs();
// A number (0..19) or a name ("StackedDrg2KiBV1_1", or Go abi's "…_Feat_NiPoRep").
Result<const SealProof*> parse_seal_proof(std::string_view text);
Result<const SealProof*> seal_proof_by_id(uint64_t id);
// The V1_1 kind of a sector size ("2KiB", "8MiB", "512MiB", "32GiB", "64GiB").
Result<const SealProof*> default_seal_proof_for_size(std::string_view size_name);
// Refuses what snarkd cannot prove yet (NI-PoRep, whose C2 output is an aggregate).
Status check_provable(const SealProof& p);

// The prover id of a miner actor: its unsigned LEB128, left-aligned in 32 zero bytes.
Bytes32 prover_id_from_miner(uint64_t miner_id);
// SHA-256(prover_id || u64_be(sector) || ticket || comm_d || porep_id), byte 31 &= 0x3f.
Bytes32 replica_id(const Bytes32& prover_id, uint64_t sector, const Bytes32& ticket, const Bytes32& comm_d,
                   const Bytes32& porep_id);

// 64 hex digits (an optional 0x) in byte order, as 32 bytes; errors name `what`.
Result<Bytes32> parse_bytes32(std::string_view hex, std::string_view what);

}  // namespace snarkd::filecoin
