#include "cli/porep_commands.h"

#include <chrono>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>

#include "base/hex.h"
#include "base/mapped_file.h"
#include "cli/commands.h"
#include "base/process_memory.h"
#include "cli/local_engine.h"
#include "ec/bls12_381.h"
#include "filecoin/c1_synth.h"
#include "filecoin/c2.h"
#include "filecoin/porep.h"
#include "formats/bellperson.h"
#include "groth16/verifier.h"

namespace snarkd::cli {

namespace {

using namespace filecoin;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

int fail(std::ostream& err, const char* command, const Status& st) {
  err << "snarkd porep " << command << ": " << st.message() << "\n";
  return exit_code_for(st);
}

struct SectorIds {
  const SealProof* proof = nullptr;
  Bytes32 prover_id{}, ticket{}, seed{};
};

Result<SectorIds> sector_ids(const PorepSectorArgs& a, const SealProof* proof) {
  SectorIds s;
  if (proof) {
    s.proof = proof;
  } else {
    auto p = parse_seal_proof(a.registered_proof);
    if (!p.ok()) return p.status().with_context("--registered-proof");
    s.proof = *p;
  }
  if (a.miner_id.has_value() == !a.prover_id.empty()) {
    return invalid_argument("give exactly one of --miner-id and --prover-id");
  }
  if (a.miner_id) {
    s.prover_id = prover_id_from_miner(*a.miner_id);
  } else {
    ASSIGN_OR_RETURN(s.prover_id, parse_bytes32(a.prover_id, "--prover-id"));
  }
  ASSIGN_OR_RETURN(s.ticket, parse_bytes32(a.ticket, "--ticket"));
  ASSIGN_OR_RETURN(s.seed, parse_bytes32(a.seed, "--seed"));
  return s;
}

// --sector-size, and --registered-proof when given (it must be of that size); else the size's
// V1_1 kind.
Result<const SealProof*> proof_for_size(const std::string& size, const std::string& registered_proof) {
  auto size_proof = default_seal_proof_for_size(size);
  if (!size_proof.ok()) return size_proof.status().with_context("--sector-size");
  if (registered_proof.empty()) return *size_proof;
  auto p = parse_seal_proof(registered_proof);
  if (!p.ok()) return p.status().with_context("--registered-proof");
  if ((*p)->sector_size != (*size_proof)->sector_size) {
    return invalid_argument("--registered-proof " + std::string((*p)->name) + " is not a " + size + " proof");
  }
  return *p;
}

std::string fr_decimal(const Bytes32& b) {
  auto v = ff::bls12_381::Fr::from_bytes_le(b);
  return v ? v->to_decimal() : "?";
}

}  // namespace

int run_porep_parents(const std::string& registered_proof, uint64_t node, bool json, std::ostream& out,
                      std::ostream& err) {
  auto p = parse_seal_proof(registered_proof);
  if (!p.ok()) return fail(err, "parents", p.status().with_context("--registered-proof"));
  if (node >= (*p)->nodes()) {
    return fail(err, "parents", invalid_argument("--node " + std::to_string(node) + ": a " + std::string((*p)->size_name) +
                                                     " sector has nodes 0.." + std::to_string((*p)->nodes() - 1)));
  }
  const StackedGraph graph(**p);
  const auto parents = graph.parents(uint32_t(node));
  std::vector<uint32_t> drg(parents.begin(), parents.begin() + kDrgDegree);
  std::vector<uint32_t> exp(parents.begin() + kDrgDegree, parents.end());
  if (json) {
    nlohmann::ordered_json j;
    j["registered_proof"] = (*p)->name;
    j["node"] = node;
    j["drg_parents"] = drg;
    j["exp_parents"] = exp;
    out << j.dump() << "\n";
    return 0;
  }
  auto list = [](const std::vector<uint32_t>& v) {
    std::string s;
    for (uint32_t x : v) {
      if (!s.empty()) s += ' ';
      s += std::to_string(x);
    }
    return s;
  };
  out << (*p)->name << " node " << node << "\n"
      << "drg_parents  " << list(drg) << "\n"
      << "exp_parents  " << list(exp) << "\n";
  return 0;
}

int run_porep_public_inputs(const PorepPublicInputsOptions& o, std::ostream& out, std::ostream& err) {
  auto ids = sector_ids(o.sector, nullptr);
  if (!ids.ok()) return fail(err, "public-inputs", ids.status());
  auto comm_d = parse_bytes32(o.comm_d, "--comm-d");
  if (!comm_d.ok()) return fail(err, "public-inputs", comm_d.status());
  auto comm_r = parse_bytes32(o.comm_r, "--comm-r");
  if (!comm_r.ok()) return fail(err, "public-inputs", comm_r.status());
  const SealProof& p = *ids->proof;
  if (Status st = check_provable(p); !st.ok()) return fail(err, "public-inputs", st);
  const Bytes32 rid = replica_id(ids->prover_id, o.sector.sector, ids->ticket, *comm_d, p.porep_id());
  const StackedGraph graph(p);
  nlohmann::ordered_json j;
  j["registered_proof"] = p.name;
  j["replica_id"] = to_hex(rid);
  j["partitions"] = nlohmann::ordered_json::array();
  for (unsigned k = 0; k < p.partitions; ++k) {
    auto in = public_inputs(p, graph, rid, *comm_d, *comm_r, ids->seed, k);
    if (!in.ok()) return fail(err, "public-inputs", in.status());
    nlohmann::ordered_json part;
    part["challenges"] = in->challenges;
    part["inputs"] = nlohmann::ordered_json::array();
    for (const auto& v : in->inputs) part["inputs"].push_back(to_hex(v));
    j["partitions"].push_back(std::move(part));
  }
  if (o.json) {
    out << j.dump(1) << "\n";
    return 0;
  }
  out << "registered proof  " << p.name << "\nreplica id        " << to_hex(rid) << "\n";
  for (unsigned k = 0; k < p.partitions; ++k) {
    const auto& part = j["partitions"][k];
    out << "partition " << k << ": " << part["inputs"].size() << " public inputs\n  challenges";
    for (const auto& c : part["challenges"]) out << " " << c.get<uint64_t>();
    out << "\n";
    size_t i = 0;
    for (const auto& v : part["inputs"]) {
      Bytes32 b = *parse_bytes32(v.get<std::string>(), "input");
      out << "  [" << std::setw(3) << i++ << "] " << v.get<std::string>() << " = " << fr_decimal(b) << "\n";
    }
  }
  return 0;
}

int run_porep_seal(const PorepSealOptions& o, std::ostream& out, std::ostream& err) {
  auto chosen = proof_for_size(o.sector_size, o.sector.registered_proof);
  if (!chosen.ok()) return fail(err, "seal", chosen.status());
  const SealProof* proof = *chosen;
  if (proof->sector_size > (uint64_t(512) << 20)) {
    return fail(err, "seal", invalid_argument("--sector-size " + o.sector_size +
                                              ": sealing is for test sectors (2KiB, 8MiB, 512MiB); for full-size C1 "
                                              "outputs use `snarkd porep c1-synth`"));
  }
  auto ids = sector_ids(o.sector, proof);
  if (!ids.ok()) return fail(err, "seal", ids.status());
  std::vector<Bytes32> data(proof->nodes(), Bytes32{});
  if (!o.data.empty()) {
    auto file = MappedFile::open(o.data);
    if (!file.ok()) return fail(err, "seal", file.status());
    if (file->bytes().size() != proof->sector_size) {
      return fail(err, "seal", invalid_argument("'" + o.data + "' has " + std::to_string(file->bytes().size()) +
                                                " bytes; a " + o.sector_size + " sector holds " +
                                                std::to_string(proof->sector_size)));
    }
    std::memcpy(data.data(), file->bytes().data(), file->bytes().size());
  }
  const auto t0 = Clock::now();
  const StackedGraph graph(*proof);
  SealTimings t;
  auto sealed = seal_sector(*proof, graph, data, ids->prover_id, o.sector.sector, ids->ticket, &t);
  if (!sealed.ok()) {
    Status st = sealed.status();
    return fail(err, "seal", o.data.empty() ? st : st.with_context("'" + o.data + "'"));
  }
  const double seal_ms = ms_since(t0);
  auto t1 = Clock::now();
  auto c1 = commit_phase1(*sealed, graph, ids->seed);
  if (!c1.ok()) return fail(err, "seal", c1.status());
  const double c1_ms = ms_since(t1);
  const std::string bytes = o.bincode ? write_c1_bincode(*c1) : write_c1_json(*c1);
  std::ofstream f(o.out, std::ios::binary);
  f.write(bytes.data(), std::streamsize(bytes.size()));
  if (!f.good()) return fail(err, "seal", internal_error("cannot write '" + o.out + "'"));
  out << "registered proof  " << proof->name << "\n"
      << "replica id        " << to_hex(sealed->replica_id) << "\n"
      << "comm_d            " << to_hex(sealed->comm_d) << "\n"
      << "comm_c            " << to_hex(sealed->comm_c) << "\n"
      << "comm_r_last       " << to_hex(sealed->comm_r_last) << "\n"
      << "comm_r            " << to_hex(sealed->comm_r) << "\n"
      << "C1 output         " << o.out << " (" << bytes.size() << " bytes, " << (o.bincode ? "bincode" : "JSON") << ", "
      << c1->vanilla_proofs.size() << " partition" << (c1->vanilla_proofs.size() > 1 ? "s" : "") << " of "
      << c1->vanilla_proofs.front().size() << " challenges)\n";
  err << std::fixed << std::setprecision(0) << "sealed in " << seal_ms << " ms (graph " << t.graph_ms << ", tree D "
      << t.tree_d_ms << ", labels " << t.labels_ms << ", tree C " << t.tree_c_ms << ", tree R last " << t.tree_r_ms
      << "), C1 in " << c1_ms << " ms\n";
  return 0;
}

int run_porep_c1_synth(const PorepSynthOptions& o, std::ostream& out, std::ostream& err) {
  auto chosen = proof_for_size(o.sector_size, o.sector.registered_proof);
  if (!chosen.ok()) return fail(err, "c1-synth", chosen.status());
  const SealProof* proof = *chosen;
  auto ids = sector_ids(o.sector, proof);
  if (!ids.ok()) return fail(err, "c1-synth", ids.status());
  const auto t0 = Clock::now();
  SynthTimings t;
  auto c1 = synthesize_c1(*proof, ids->prover_id, o.sector.sector, ids->ticket, ids->seed, &t);
  if (!c1.ok()) return fail(err, "c1-synth", c1.status());
  const double synth_ms = ms_since(t0);
  const auto t1 = Clock::now();
  const std::string bytes = o.bincode ? write_c1_bincode(*c1) : write_c1_json(*c1);
  std::ofstream f(o.out, std::ios::binary);
  f.write(bytes.data(), std::streamsize(bytes.size()));
  if (!f.good()) return fail(err, "c1-synth", internal_error("cannot write '" + o.out + "'"));
  f.close();
  out << "registered proof  " << proof->name << " (a synthesized CC sector: for testing and benchmarking only)\n"
      << "replica id        " << to_hex(c1->replica_id) << "\n"
      << "comm_d            " << to_hex(c1->comm_d) << "\n"
      << "comm_r            " << to_hex(c1->comm_r) << "\n"
      << "C1 output         " << o.out << " (" << bytes.size() << " bytes, " << (o.bincode ? "bincode" : "JSON") << ", "
      << c1->vanilla_proofs.size() << " partitions of " << c1->vanilla_proofs.front().size() << " challenges)\n";
  err << std::fixed << std::setprecision(0) << "synthesized in " << synth_ms << " ms (labels " << t.labels_ms
      << ", tree C " << t.tree_c_ms << ", tree R last " << t.tree_r_ms << ", proofs " << t.c1_ms << "), written in "
      << ms_since(t1) << " ms; peak RSS " << (peak_rss_bytes() >> 20) << " MiB\n";
  return 0;
}

int run_porep_check_c1(const std::string& path, const std::string& registered_proof, std::ostream& out,
                       std::ostream& err) {
  const SealProof* proof = nullptr;
  if (!registered_proof.empty()) {
    auto p = parse_seal_proof(registered_proof);
    if (!p.ok()) return fail(err, "check-c1", p.status().with_context("--registered-proof"));
    proof = *p;
  }
  auto file = MappedFile::open(path);
  if (!file.ok()) return fail(err, "check-c1", file.status());
  const auto t0 = Clock::now();
  auto c1 = read_c1(file->bytes(), proof, "'" + path + "'");
  if (!c1.ok()) return fail(err, "check-c1", c1.status());
  if (proof && c1->registered_proof != proof) {
    return fail(err, "check-c1", invalid_argument("'" + path + "' is a " + std::string(c1->registered_proof->name) +
                                                  " C1 output, not " + std::string(proof->name)));
  }
  const double read_ms = ms_since(t0);
  const auto t1 = Clock::now();
  const StackedGraph graph(*c1->registered_proof);
  if (Status st = verify_c1(*c1, graph); !st.ok()) return fail(err, "check-c1", st.with_context("'" + path + "'"));
  out << "'" << path << "': a valid " << c1->registered_proof->name << " C1 output: " << c1->vanilla_proofs.size()
      << " partition" << (c1->vanilla_proofs.size() > 1 ? "s" : "") << " of " << c1->vanilla_proofs.front().size()
      << " challenges, every path, column, label and the encoding checked\n"
      << "replica id  " << to_hex(c1->replica_id) << "\ncomm_d      " << to_hex(c1->comm_d) << "\ncomm_r      "
      << to_hex(c1->comm_r) << "\n";
  err << std::fixed << std::setprecision(0) << "read in " << read_ms << " ms, verified in " << ms_since(t1) << " ms\n";
  return 0;
}

int run_porep_c2(const PorepC2Options& o, std::ostream& out, std::ostream& err) {
  const auto t0 = Clock::now();
  const char* cmd = "c2";
  const SealProof* bincode_proof = nullptr;
  if (!o.registered_proof.empty()) {
    auto p = parse_seal_proof(o.registered_proof);
    if (!p.ok()) return fail(err, cmd, p.status().with_context("--registered-proof"));
    bincode_proof = *p;
  }
  if (o.miner_id.has_value() == !o.prover_id.empty()) {
    return fail(err, cmd, invalid_argument("give exactly one of --miner-id and --prover-id"));
  }
  Bytes32 prover{};
  if (o.miner_id) {
    prover = prover_id_from_miner(*o.miner_id);
  } else {
    auto id = parse_bytes32(o.prover_id, "--prover-id");
    if (!id.ok()) return fail(err, cmd, id.status());
    prover = *id;
  }
  auto backend = parse_backend(o.backend);
  if (!backend) return fail(err, cmd, invalid_argument("--backend: expected cpu, gpu or auto, got '" + o.backend + "'"));
  auto file = MappedFile::open(o.input);
  if (!file.ok()) return fail(err, cmd, file.status());
  // The registered proof decides the key; the engine reads the input again, and checks it.
  auto input = read_c2_input(file->bytes(), bincode_proof, "'" + o.input + "'");
  if (!input.ok()) return fail(err, cmd, input.status());
  const SealProof& proof = *input->c1.registered_proof;
  if (bincode_proof && bincode_proof != &proof) {
    return fail(err, cmd, invalid_argument("'" + o.input + "' is a " + std::string(proof.name) + " C1, not " +
                                               std::string(bincode_proof->name)));
  }
  std::string source = o.key;
  if (source.empty()) {
    source = "bellperson:porep:" + std::string(proof.size_name);
    if (!o.params.empty()) source += "@" + o.params;
  } else if (!o.params.empty()) {
    return fail(err, cmd, invalid_argument("give --params or --key, not both"));
  }
  // Partitions synthesize while earlier ones prove: two at a time, and one synthesized partition
  // waits for the slot (each holds its witness, 4.2 GB at 32 GiB: with the engine's default
  // queue of four, a 32 GiB C2 on one GPU peaked at 100.6 GiB of host memory).
  auto eng = make_local_engine({*backend, true, 1, std::min(2u, proof.partitions), size_t(o.gpu_memory_limit), 1});
  if (!eng.ok()) return fail(err, cmd, eng.status());
  engine::Engine& e = **eng;
  if (!e.backend_note().empty()) err << "snarkd porep c2: " << e.backend_note() << "\n";
  auto key = e.register_key(source);
  if (!key.ok()) {
    Status st = key.status();
    if (o.key.empty() && o.params.empty() && st.code() == StatusCode::kNotFound) {
      st = Status(st.code(), st.message() + " (pass --params FILE, set FIL_PROOFS_PARAMETER_CACHE, or make test "
                                            "parameters: snarkd setup --porep " + std::string(proof.size_name) +
                                            " --params FILE --vk FILE)");
    }
    return fail(err, cmd, st);
  }
  engine::ProofRequest request;
  request.key_id = key->id;
  engine::PorepRequest porep;
  porep.c1.assign(reinterpret_cast<const char*>(file->bytes().data()), file->bytes().size());
  porep.c1_name = o.input;
  porep.prover_id = prover;
  porep.sector = o.sector;
  request.porep = std::move(porep);
  auto job = e.submit(std::move(request));
  if (!job.ok()) return fail(err, cmd, job.status());
  auto result = e.await(*job, std::chrono::hours(24 * 365));
  if (!result.ok()) return fail(err, cmd, result.status());
  if (result->state != engine::JobState::kCompleted) {
    err << "snarkd porep c2: " << result->error.message() << " (nothing written)\n";
    return exit_code_for(result->error);
  }
  std::string bytes;
  for (const auto& p : result->proofs) bytes.append(reinterpret_cast<const char*>(p.bytes.data()), p.bytes.size());
  std::ofstream f(o.out, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), std::streamsize(bytes.size()));
  if (!f) return fail(err, cmd, invalid_argument("cannot write '" + o.out + "'"));
  if (o.timings) {
    for (size_t k = 0; k < result->proofs.size(); ++k) {
      err << "partition " << k << " ";
      print_proof_stages(err, result->proofs[k], k == 0 ? result->timings.key_load_ms : -1);
    }
    err << std::fixed << std::setprecision(0) << "synthesis " << result->timings.synthesis_ms << " ms (sum), kernel-busy "
        << result->timings.kernel_busy_ms << " ms (sum), slot held " << result->timings.slot_held_ms
        << " ms (sum), total " << ms_since(t0) << " ms; peak RSS " << (peak_rss_bytes() >> 20) << " MiB\n";
  }
  out << "wrote " << o.out << ": " << std::string(proof.name) << " proof, " << result->proofs.size() << " partition"
      << (result->proofs.size() > 1 ? "s" : "") << " x 192 bytes (" << bytes.size() << " bytes), "
      << (key->verifiable ? "verified" : "NOT verified: synthetic key") << "\n";
  return 0;
}

int run_porep_verify(const PorepVerifyOptions& o, std::ostream& out, std::ostream& err) {
  using E = ec::bls12_381::Engine;
  const char* cmd = "verify";
  auto ids = sector_ids(o.sector, nullptr);
  if (!ids.ok()) return fail(err, cmd, ids.status());
  const SealProof& p = *ids->proof;
  auto comm_d = parse_bytes32(o.comm_d, "--comm-d");
  if (!comm_d.ok()) return fail(err, cmd, comm_d.status());
  auto comm_r = parse_bytes32(o.comm_r, "--comm-r");
  if (!comm_r.ok()) return fail(err, cmd, comm_r.status());
  for (const auto* c : {&*comm_d, &*comm_r}) {
    if (!ff::bls12_381::Fr::from_bytes_le(*c)) {
      return fail(err, cmd, invalid_argument(std::string(c == &*comm_d ? "--comm-d" : "--comm-r") +
                                             ": not a canonical field element"));
    }
  }
  auto inputs = seal_public_inputs(p, ids->prover_id, o.sector.sector, ids->ticket, ids->seed, *comm_d, *comm_r);
  if (!inputs.ok()) return fail(err, cmd, inputs.status());
  const std::string vk_path =
      o.vk.empty() ? parameter_cache_dir() + "/" + porep_parameter_file(p, ".vk") : o.vk;
  auto vk_file = MappedFile::open(vk_path);
  if (!vk_file.ok()) return fail(err, cmd, vk_file.status());
  auto vk = formats::read_vk(vk_file->bytes(), vk_path);
  if (!vk.ok()) return fail(err, cmd, vk.status());
  if (vk->num_public() != inputs->front().inputs.size()) {
    return fail(err, cmd, invalid_argument("'" + vk_path + "': IC has " + std::to_string(vk->ic.size()) +
                                           " points but a " + std::string(p.name) + " partition has " +
                                           std::to_string(inputs->front().inputs.size()) + " public inputs (+1)"));
  }
  auto proof_file = MappedFile::open(o.proof);
  if (!proof_file.ok()) return fail(err, cmd, proof_file.status());
  const auto bytes = proof_file->bytes();
  const size_t want = inputs->size() * formats::kBellpersonProofSize;
  if (bytes.size() != want) {
    return fail(err, cmd, invalid_argument("'" + o.proof + "': " + std::to_string(bytes.size()) + " bytes but a " +
                                           std::string(p.name) + " proof is " + std::to_string(inputs->size()) +
                                           " x 192 = " + std::to_string(want)));
  }
  bool valid = true;
  for (size_t k = 0; k < inputs->size(); ++k) {
    auto proof = formats::decode_proof(bytes.subspan(k * formats::kBellpersonProofSize, formats::kBellpersonProofSize));
    if (!proof.ok()) {
      return fail(err, cmd, proof.status().with_context("'" + o.proof + "' partition " + std::to_string(k) +
                                                        " (offset " + std::to_string(k * 192) + ")"));
    }
    std::vector<groth16::Fr<E>> publics;
    for (const Bytes32& b : (*inputs)[k].inputs) publics.push_back(*ff::bls12_381::Fr::from_bytes_le(b));
    auto ok = groth16::verify<E>(*vk, publics, *proof);
    if (!ok.ok()) return fail(err, cmd, ok.status());
    if (!*ok) {
      out << "partition " << k << ": invalid\n";
      valid = false;
    }
  }
  if (!valid) {
    out << "Invalid proof\n";
    return 1;
  }
  out << "OK: a valid " << p.name << " proof (" << inputs->size() << " partition" << (inputs->size() > 1 ? "s" : "")
      << ")\n";
  return 0;
}

}  // namespace snarkd::cli
