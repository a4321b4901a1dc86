#include "filecoin/seal_proof.h"

#include <bit>

#include "base/hex.h"
#include "base/sha256.h"

namespace snarkd::filecoin {

namespace {

constexpr uint64_t kKiB = 1024, kMiB = kKiB << 10, kGiB = kMiB << 10;

struct SizeRow {
  std::string_view size_name;
  uint64_t bytes;
  unsigned layers, partitions, challenges;
  TreeArities tree;
};

// filecoin-proofs constants.rs: LAYERS, POREP_PARTITIONS, the interactive minimum challenges
// (2 / 176) over the partitions rounded up, and the SectorShape of each size.
constexpr SizeRow kSizes[] = {
    {"2KiB", 2 * kKiB, 2, 1, 2, {8, 2, 0, 0}},
    {"8MiB", 8 * kMiB, 2, 1, 2, {8, 6, 0, 0}},
    {"512MiB", 512 * kMiB, 2, 1, 2, {8, 8, 0, 0}},
    {"32GiB", 32 * kGiB, 11, 10, 18, {8, 9, 8, 0}},
    {"64GiB", 64 * kGiB, 11, 10, 18, {8, 9, 8, 2}},
};

constexpr std::string_view kNames[] = {
    "StackedDrg2KiBV1",
    "StackedDrg8MiBV1",
    "StackedDrg512MiBV1",
    "StackedDrg32GiBV1",
    "StackedDrg64GiBV1",
    "StackedDrg2KiBV1_1",
    "StackedDrg8MiBV1_1",
    "StackedDrg512MiBV1_1",
    "StackedDrg32GiBV1_1",
    "StackedDrg64GiBV1_1",
    "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg8MiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg512MiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg32GiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg64GiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep",
    "StackedDrg8MiBV1_2_Feat_NonInteractivePoRep",
    "StackedDrg512MiBV1_2_Feat_NonInteractivePoRep",
    "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep",
    "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep",
};

std::vector<SealProof> make_table() {
  std::vector<SealProof> out;
  for (uint64_t id = 0; id < 20; ++id) {
    const SizeRow& row = kSizes[id % 5];
    SealProof p;
    p.id = id;
    p.name = kNames[id];
    p.size_name = row.size_name;
    p.sector_size = row.bytes;
    p.layers = row.layers;
    p.tree = row.tree;
    const unsigned kind = unsigned(id / 5);
    p.api = kind == 0 ? ApiVersion::kV1_0 : kind == 1 ? ApiVersion::kV1_1 : ApiVersion::kV1_2;
    p.feature = kind == 2 ? PorepFeature::kSynthetic : kind == 3 ? PorepFeature::kNonInteractive : PorepFeature::kNone;
    // NI-PoRep: 13 / 126 partitions of 2 / 18 challenges (26 / 2253 rounded up).
    p.partitions = kind == 3 ? (row.partitions == 1 ? 13 : 126) : row.partitions;
    p.challenges_per_partition = row.challenges;
    out.push_back(p);
  }
  return out;
}

}  // namespace

std::string TreeArities::name() const {
  return std::to_string(base_arity) + "-" + std::to_string(sub_arity) + "-" + std::to_string(top_arity);
}

unsigned SealProof::node_bits() const { return unsigned(std::countr_zero(nodes())); }

std::string SealProof::vanilla_variant() const { return "StackedDrg" + std::string(size_name) + "V1"; }

Bytes32 SealProof::porep_id() const {
  Bytes32 out{};
  for (int i = 0; i < 8; ++i) out[size_t(i)] = uint8_t(id >> (8 * i));
  return out;  // the nonce (bytes 8..15) is 0
}

std::span<const SealProof> seal_proofs() {
  static const std::vector<SealProof> table = make_table();
  return table;
}

Result<const SealProof*> seal_proof_by_id(uint64_t id) {
  if (id >= seal_proofs().size()) {
    return invalid_argument("registered seal proof " + std::to_string(id) + " does not exist (0..19)");
  }
  return &seal_proofs()[id];
}

Result<const SealProof*> parse_seal_proof(std::string_view text) {
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos && text.size() <= 6) {
    return seal_proof_by_id(std::stoull(std::string(text)));
  }
  for (const auto& p : seal_proofs()) {
    if (p.name == text) return &p;
    // Go's abi spells NI-PoRep "…V1_2_Feat_NiPoRep".
    if (p.feature == PorepFeature::kNonInteractive &&
        text == "StackedDrg" + std::string(p.size_name) + "V1_2_Feat_NiPoRep") {
      return &p;
    }
  }
  return invalid_argument("unknown registered seal proof '" + std::string(text) +
                          "' (a number 0..19 or a name like StackedDrg32GiBV1_1)");
}

Result<const SealProof*> default_seal_proof_for_size(std::string_view size_name) {
  for (const auto& p : seal_proofs()) {
    if (p.api == ApiVersion::kV1_1 && p.size_name == size_name) return &p;
  }
  return invalid_argument("unknown sector size '" + std::string(size_name) + "' (2KiB, 8MiB, 512MiB, 32GiB or 64GiB)");
}

Status check_provable(const SealProof& p) {
  if (p.feature == PorepFeature::kNonInteractive) {
    return Status(StatusCode::kUnimplemented,
                  std::string(p.name) +
                      ": non-interactive PoRep is not supported yet (its C2 output is a SnarkPack aggregate of the "
                      "partition proofs, which snarkd does not make)");
  }
  return Status();
}

Bytes32 prover_id_from_miner(uint64_t miner_id) {
  Bytes32 out{};
  size_t i = 0;
  do {
    uint8_t b = uint8_t(miner_id & 0x7f);
    miner_id >>= 7;
    if (miner_id) b |= 0x80;
    out[i++] = b;
  } while (miner_id);
  return out;
}

Bytes32 replica_id(const Bytes32& prover_id, uint64_t sector, const Bytes32& ticket, const Bytes32& comm_d,
                   const Bytes32& porep_id) {
  uint8_t sector_be[8];
  for (int i = 0; i < 8; ++i) sector_be[i] = uint8_t(sector >> (56 - 8 * i));
  Sha256 h;
  h.update(prover_id).update(sector_be).update(ticket).update(comm_d).update(porep_id);
  Bytes32 out = h.finish();
  out[31] &= 0x3f;
  return out;
}

Result<Bytes32> parse_bytes32(std::string_view hex, std::string_view what) {
  auto bytes = from_hex(hex);
  if (!bytes.ok()) return invalid_argument(std::string(what) + ": " + bytes.status().message());
  if (bytes->size() != 32) {
    return invalid_argument(std::string(what) + ": expected 32 bytes (64 hex digits), got " +
                            std::to_string(bytes->size()));
  }
  Bytes32 out;
  std::copy(bytes->begin(), bytes->end(), out.begin());
  return out;
}

}  // namespace snarkd::filecoin
