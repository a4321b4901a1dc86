#include "filecoin/c2.h"

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "base/base64.h"
#include "base/hex.h"
#include "base/sha256.h"
#include "filecoin/graph.h"
#include "r1cs/cs.h"

namespace snarkd::filecoin {

namespace {

using nlohmann::json;

bool all_zero(const Bytes32& b) {
  for (uint8_t x : b) {
    if (x) return false;
  }
  return true;
}

Result<C2Input> read_wrapper(std::string_view text, const SealProof* bincode_proof, std::string_view name) {
  const std::string who = std::string(name);
  json top;
  try {
    top = json::parse(text);
  } catch (const json::exception& e) {
    return invalid_argument(who + ": not JSON: " + e.what());
  }
  if (!top.is_object()) return invalid_argument(who + ": expected a JSON object {\"SectorNum\", \"Phase1Out\", \"SectorSize\"}");
  C2Input out;
  out.form = "Commit2In";
  const auto num = top.find("SectorNum");
  if (num == top.end()) return invalid_argument(who + ": SectorNum: missing");
  if (!num->is_number_unsigned()) return invalid_argument(who + ": SectorNum: expected a non-negative integer");
  out.sector = num->get<uint64_t>();
  const auto p1 = top.find("Phase1Out");
  if (p1 == top.end() || !p1->is_string()) return invalid_argument(who + ": Phase1Out: expected a base64 string");
  auto c1_bytes = base64_decode(p1->get_ref<const std::string&>());
  if (!c1_bytes) return invalid_argument(who + ": Phase1Out: not padded standard base64");
  ASSIGN_OR_RETURN(out.c1, read_c1(*c1_bytes, bincode_proof, who + " Phase1Out"));
  const auto size = top.find("SectorSize");
  if (size != top.end()) {
    if (!size->is_number_unsigned()) return invalid_argument(who + ": SectorSize: expected a non-negative integer");
    const uint64_t s = size->get<uint64_t>();
    if (s != out.c1.registered_proof->sector_size) {
      return invalid_argument(who + ": SectorSize: " + std::to_string(s) + " but Phase1Out is a " +
                              std::string(out.c1.registered_proof->name) + " C1 (" +
                              std::to_string(out.c1.registered_proof->sector_size) + " bytes)");
    }
  }
  for (const auto& [key, value] : top.items()) {
    if (key != "SectorNum" && key != "Phase1Out" && key != "SectorSize") {
      return invalid_argument(who + ": " + key + ": unknown field (expected SectorNum, Phase1Out, SectorSize)");
    }
  }
  return out;
}

StackedField from_bytes(const Bytes32& b) { return *StackedField::from_bytes_le(b); }

}  // namespace

Result<C2Input> read_c2_input(std::span<const uint8_t> bytes, const SealProof* bincode_proof, std::string_view name) {
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  // A C1's JSON has only snake_case keys: the wrapper's key tells the two apart without a parse.
  if (text.find("\"Phase1Out\"") != std::string_view::npos) return read_wrapper(text, bincode_proof, name);
  size_t i = 0;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t')) ++i;
  C2Input out;
  out.form = i < text.size() && text[i] == '{' ? "C1 JSON" : "C1 bincode";
  ASSIGN_OR_RETURN(out.c1, read_c1(bytes, bincode_proof, name));
  return out;
}

std::string porep_parameter_identifier(const SealProof& p) {
  return "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8 base_graph: "
         "drgraph::BucketGraph{size: " +
         std::to_string(p.nodes()) + "; degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges { layers: " +
         std::to_string(p.layers) + ", max_count: " + std::to_string(p.challenges_per_partition) +
         " }, tree: merkletree-poseidon_hasher-" + p.tree.name() + " }";
}

std::string porep_parameter_id(const SealProof& p) {
  const std::string id = porep_parameter_identifier(p);
  const auto digest = sha256(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(id.data()), id.size()));
  return to_hex(digest);
}

std::string porep_parameter_file(const SealProof& p, std::string_view ext) {
  return "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-" + p.tree.name() + "-sha256_hasher-" +
         porep_parameter_id(p) + std::string(ext);
}

std::string parameter_cache_dir() {
  const char* env = std::getenv("FIL_PROOFS_PARAMETER_CACHE");
  return env && *env ? std::string(env) : std::string("/var/tmp/filecoin-proof-parameters");
}

Result<std::vector<PartitionInputs>> seal_public_inputs(const SealProof& p, const Bytes32& prover_id, uint64_t sector,
                                                        const Bytes32& ticket, const Bytes32& seed,
                                                        const Bytes32& comm_d, const Bytes32& comm_r) {
  RETURN_IF_ERROR(check_provable(p));
  if (all_zero(comm_d)) return invalid_argument("comm_d is all zero (seal_commit_phase2 refuses it)");
  if (all_zero(comm_r)) return invalid_argument("comm_r is all zero (seal_commit_phase2 refuses it)");
  if (all_zero(seed)) return invalid_argument("the seed is all zero (seal_commit_phase2 refuses it)");
  const Bytes32 rid = replica_id(prover_id, sector, ticket, comm_d, p.porep_id());
  const StackedGraph graph(p);
  std::vector<PartitionInputs> out;
  for (unsigned k = 0; k < p.partitions; ++k) {
    ASSIGN_OR_RETURN(auto in, public_inputs(p, graph, rid, comm_d, comm_r, seed, k));
    out.push_back(std::move(in));
  }
  return out;
}

Result<std::vector<PartitionInputs>> c2_public_inputs(const C1Output& c1, const Bytes32& prover_id, uint64_t sector,
                                                      ThreadPool& pool) {
  if (!c1.registered_proof) return invalid_argument("the C1 names no registered proof");
  const SealProof& p = *c1.registered_proof;
  RETURN_IF_ERROR(check_provable(p));
  const Bytes32 rid = replica_id(prover_id, sector, c1.ticket, c1.comm_d, p.porep_id());
  if (rid != c1.replica_id) {
    return invalid_argument("replica_id: the C1's (" + to_hex(c1.replica_id) + ") is not the one of prover " +
                            to_hex(prover_id) + ", sector " + std::to_string(sector) + " and the C1's ticket and " +
                            "comm_d (" + to_hex(rid) + "): wrong miner or sector number, or another sector's C1");
  }
  ASSIGN_OR_RETURN(auto out, seal_public_inputs(p, prover_id, sector, c1.ticket, c1.seed, c1.comm_d, c1.comm_r));
  // Everything the vanilla proofs claim, their challenges (derived from replica_id and the seed)
  // included.
  const StackedGraph graph(p);
  RETURN_IF_ERROR(verify_c1(c1, graph, pool));
  return out;
}

Status c2_witness(const C1Output& c1, unsigned partition, const PartitionInputs& expected,
                  r1cs::ValueBuffer<StackedField>& out) {
  ASSIGN_OR_RETURN(const StackedValues values, stacked_values(c1, partition));
  const StackedShape shape = stacked_shape(*c1.registered_proof);
  const auto inputs = uint32_t(expected.inputs.size() + 1);
  r1cs::WitnessCS<StackedField> cs;
  cs.reserve_in_place(inputs, stacked_variables_bound(shape) - inputs);
  synthesize_stacked(cs, shape, values);
  const auto got = cs.inputs();  // ONE first
  if (got.size() != inputs) {
    return internal_error("partition " + std::to_string(partition) + ": the circuit has " +
                          std::to_string(got.size() - 1) + " public inputs, the derivation " +
                          std::to_string(inputs - 1));
  }
  for (size_t i = 0; i + 1 < inputs; ++i) {
    if (got[1 + i] != from_bytes(expected.inputs[i])) {
      return invalid_argument("partition " + std::to_string(partition) + ": public input " + std::to_string(i) +
                              " of the circuit (from the C1) differs from the one derived from the ids");
    }
  }
  if (!cs.take_assignment(out)) return internal_error("the witness buffer's input slots do not match");
  return Status();
}

}  // namespace snarkd::filecoin
