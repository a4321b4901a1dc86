#include "cli/commands.h"

#include <chrono>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <type_traits>

#include "base/mapped_file.h"
#include "base/random.h"
#include "formats/bellperson.h"
#include "formats/circom.h"
#include "formats/snarkjs_json.h"
#include "formats/zkey.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "groth16/verifier.h"
#include "circuits/chain/chain.h"
#include "registry/registry.h"
#include "cli/local_engine.h"
#include "engine/engine.h"

namespace snarkd::cli {

namespace {

}  // namespace

int exit_code_for(const Status& s) {
  switch (s.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:
    case StatusCode::kFailedPrecondition:
    case StatusCode::kOutOfRange:
    case StatusCode::kPermissionDenied:
    case StatusCode::kUnimplemented:  // a request snarkd refuses (e.g. NI-PoRep), said why
      return kExitBadInput;
    default:
      return kExitFailure;
  }
}

namespace {

int bad_input(const Status& s, const char* command) {
  std::cerr << "snarkd " << command << ": " << s.message() << "\n";
  return kExitBadInput;
}

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

template <class E>
int verify(const nlohmann::json& vkj, const nlohmann::json& pubj, const nlohmann::json& proofj) {
  using F = groth16::Fr<E>;
  auto vk = formats::vk_from_json<E>(vkj);
  if (!vk.ok()) return bad_input(vk.status(), "verify");
  auto pub = formats::public_from_json<F>(pubj);
  if (!pub.ok()) return bad_input(pub.status(), "verify");
  auto proof = formats::proof_from_json<E>(proofj);
  if (!proof.ok()) return bad_input(proof.status(), "verify");
  auto ok = groth16::verify<E>(*vk, *pub, *proof);
  if (!ok.ok()) return bad_input(ok.status(), "verify");
  if (*ok) {
    std::cout << "OK!\n";
    return kExitOk;
  }
  std::cout << "Invalid proof\n";
  return kExitFailure;
}

template <class E>
int setup(const SetupOptions& o, const r1cs::ConstraintSystem<groth16::Fr<E>>& cs) {
  std::cerr << "setup: " << cs.num_constraints() << " constraints, " << cs.num_variables
            << " variables, " << cs.num_public << " public (" << curve_name(ec::curve_of<E>())
            << ")\n";
  OsRandom rng;
  auto t0 = std::chrono::steady_clock::now();
  auto progress = [&](const char* stage) {
    std::cerr << "setup: " << std::fixed << std::setprecision(1) << std::setw(9) << ms_since(t0)
              << " ms  " << stage << "\n";
  };
  // bellperson params carry the divide-by-Z H query; zkeys the snarkjs odd-coset one.
  const bool bellperson = !o.params_out.empty();
  if (bellperson && (!o.zkey_out.empty() || !std::is_same_v<E, ec::bls12_381::Engine>)) {
    return bad_input(invalid_argument("--params writes a BLS12-381 bellperson key and cannot be "
                                      "combined with --zkey"),
                     "setup");
  }
  auto pk = groth16::setup<E>(cs,
                              bellperson ? poly::QuotientConvention::kDivideByZ
                                         : poly::QuotientConvention::kSnarkjsOddCoset,
                              rng, ThreadPool::global(), progress);
  if (!pk.ok()) return bad_input(pk.status(), "setup");
  std::cerr << "setup: keys computed in " << std::fixed << std::setprecision(1) << ms_since(t0)
            << " ms (domain 2^" << pk->log_domain_size << ")\n";
  if (!o.zkey_out.empty()) {
    auto st = formats::write_zkey<E>(*pk, o.zkey_out);
    if (!st.ok()) return bad_input(st, "setup");
    std::cerr << "setup: wrote " << o.zkey_out << "\n";
  }
  if constexpr (std::is_same_v<E, ec::bls12_381::Engine>) {
    if (bellperson) {
      auto st = formats::write_params(*pk, o.params_out);
      if (!st.ok()) return bad_input(st, "setup");
      std::cerr << "setup: wrote " << o.params_out << "\n";
    }
  }
  if (!o.vk_out.empty()) {
    Status st;
    if constexpr (std::is_same_v<E, ec::bls12_381::Engine>) {
      st = bellperson ? formats::write_vk(*pk, o.vk_out) : formats::write_json_file(formats::vk_to_json<E>(pk->vk), o.vk_out);
    } else {
      st = formats::write_json_file(formats::vk_to_json<E>(pk->vk), o.vk_out);
    }
    if (!st.ok()) return bad_input(st, "setup");
    std::cerr << "setup: wrote " << o.vk_out << "\n";
  }
  return kExitOk;
}

}  // namespace

// Through an in-process engine, like the daemon: the engine chooses the backend, reads and
// checks the witness, proves, verifies (unless --no-verify) and encodes the proof.
int run_prove(const ProveOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  auto eng = make_local_engine({o.backend, o.verify, 1});
  if (!eng.ok()) {
    std::cerr << "snarkd prove: " << eng.status().message() << "\n";
    return kExitFailure;
  }
  engine::Engine& e = **eng;
  if (!e.backend_note().empty()) std::cerr << "snarkd prove: " << e.backend_note() << "\n";
  auto key = e.register_key(o.zkey);
  if (!key.ok()) return bad_input(key.status(), "prove");
  auto wfile = MappedFile::open(o.witness);
  if (!wfile.ok()) return bad_input(wfile.status(), "prove");
  engine::ProofRequest request;
  request.key_id = key->id;
  request.witness.assign(reinterpret_cast<const char*>(wfile->bytes().data()), wfile->bytes().size());
  request.witness_name = o.witness;
  auto job = e.submit(std::move(request));
  if (!job.ok()) {
    std::cerr << "snarkd prove: " << job.status().message() << "\n";
    return exit_code_for(job.status());
  }
  auto result = e.await(*job, std::chrono::hours(24 * 365));
  if (!result.ok()) {
    std::cerr << "snarkd prove: " << result.status().message() << "\n";
    return kExitFailure;
  }
  if (result->state != engine::JobState::kCompleted) {
    std::cerr << "snarkd prove: " << result->error.message() << " (nothing written)\n";
    return exit_code_for(result->error);
  }
  const engine::PartitionProof& proof = result->proofs.at(0);
  auto st = formats::write_json_file(nlohmann::json::parse(proof.proof_json), o.proof_out);
  if (st.ok()) st = formats::write_json_file(nlohmann::json::parse(proof.public_json), o.public_out);
  if (!st.ok()) {
    std::cerr << "snarkd prove: " << st.message() << "\n";
    return kExitFailure;
  }
  if (o.timings) {
    print_proof_stages(std::cerr, proof, result->timings.key_load_ms);
    std::cerr << "  " << std::left << std::setw(18) << "total" << std::right << std::fixed << std::setprecision(2)
              << std::setw(11) << ms_since(t0) << " ms\n";
  }
  return kExitOk;
}

int run_verify(const std::string& vk_path, const std::string& public_path,
               const std::string& proof_path) {
  auto vk = formats::read_json_file(vk_path);
  if (!vk.ok()) return bad_input(vk.status(), "verify");
  auto pub = formats::read_json_file(public_path);
  if (!pub.ok()) return bad_input(pub.status(), "verify");
  auto proof = formats::read_json_file(proof_path);
  if (!proof.ok()) return bad_input(proof.status(), "verify");
  auto curve = formats::curve_of_json(*vk, "'" + vk_path + "'");
  if (!curve.ok()) return bad_input(curve.status(), "verify");
  if (proof->is_object() && proof->contains("curve")) {
    auto pc = formats::curve_of_json(*proof, "'" + proof_path + "'");
    if (!pc.ok()) return bad_input(pc.status(), "verify");
    if (*pc != *curve) {
      return bad_input(invalid_argument("'" + proof_path + "' is a " + curve_name(*pc) +
                                        " proof but '" + vk_path + "' is a " + curve_name(*curve) +
                                        " key"),
                       "verify");
    }
  }
  return with_engine(*curve, [&]<class E>() { return verify<E>(*vk, *pub, *proof); });
}

int run_setup(const SetupOptions& o) {
  if (!o.porep.empty()) {
    // Test parameters for a PoRep partition circuit, in bellperson's format (a single-party
    // setup whose trapdoor this process knew: never for production).
    if (o.params_out.empty() || !o.r1cs.empty() || !o.zkey_out.empty() || !o.wtns_out.empty()) {
      return bad_input(invalid_argument("--porep writes bellperson parameters: give --params (and --vk), and no "
                                        "--r1cs, --zkey or --wtns"),
                       "setup");
    }
    auto circuit = registry::parse_circuit("porep:" + o.porep);
    if (!circuit.ok()) return bad_input(circuit.status().with_context("--porep"), "setup");
    const auto t0 = std::chrono::steady_clock::now();
    auto cs = (*circuit)->constraints(circuits::FieldTag<groth16::Fr<ec::bls12_381::Engine>>());
    if (!cs.ok()) return bad_input(cs.status(), "setup");
    std::cerr << "setup: " << (*circuit)->spec() << " synthesized in " << std::fixed << std::setprecision(1)
              << ms_since(t0) << " ms\n";
    return setup<ec::bls12_381::Engine>(o, *cs);
  }
  if (o.r1cs.empty()) {
    return with_engine(o.curve, [&]<class E>() {
      using F = groth16::Fr<E>;
      auto [cs, w] = circuits::build_chain<F>({o.constraints, o.boolean_percent, o.seed});
      if (!o.wtns_out.empty()) {
        auto st = formats::write_wtns<F>(std::span<const F>(w), o.wtns_out);
        if (!st.ok()) return bad_input(st, "setup");
        std::cerr << "setup: wrote " << o.wtns_out << "\n";
      }
      return setup<E>(o, cs);
    });
  }
  auto file = MappedFile::open(o.r1cs);
  if (!file.ok()) return bad_input(file.status(), "setup");
  auto bin = formats::parse_bin_file(file->bytes(), "r1cs", 1, "'" + o.r1cs + "'");
  if (!bin.ok()) return bad_input(bin.status(), "setup");
  auto curve = formats::curve_from_header(*bin, 1, true);
  if (!curve.ok()) return bad_input(curve.status(), "setup");
  return with_engine(*curve, [&]<class E>() {
    auto cs = formats::read_r1cs<groth16::Fr<E>>(file->bytes(), o.r1cs);
    if (!cs.ok()) return bad_input(cs.status(), "setup");
    return setup<E>(o, *cs);
  });
}

int run_info(const std::string& path) {
  auto file = MappedFile::open(path);
  if (!file.ok()) return bad_input(file.status(), "info");
  auto bytes = file->bytes();
  std::string magic = bytes.size() >= 4 ? std::string(reinterpret_cast<const char*>(bytes.data()), 4) : "";
  if (magic == "r1cs" || magic == "wtns" || magic == "zkey") {
    uint32_t max_version = magic == "wtns" ? 2 : 1;
    auto bin = formats::parse_bin_file(bytes, magic, max_version, "'" + path + "'");
    if (!bin.ok()) return bad_input(bin.status(), "info");
    auto curve = formats::curve_from_header(*bin, magic == "zkey" ? 2 : 1, magic != "zkey");
    if (!curve.ok()) return bad_input(curve.status(), "info");
    std::cout << path << ": " << magic << " v" << bin->version << ", " << curve_name(*curve)
              << ", " << bin->sections.size() << " sections, " << bytes.size() << " bytes\n";
    return with_engine(*curve, [&]<class E>() {
      using F = groth16::Fr<E>;
      if (magic == "r1cs") {
        formats::R1csInfo meta;
        auto cs = formats::read_r1cs<F>(bytes, path, &meta);
        if (!cs.ok()) return bad_input(cs.status(), "info");
        std::cout << "  constraints: " << cs->num_constraints() << "\n  wires: " << cs->num_variables
                  << "\n  outputs: " << meta.n_outputs << "\n  public inputs: " << meta.n_pub_inputs
                  << "\n  private inputs: " << meta.n_prv_inputs << "\n";
      } else if (magic == "wtns") {
        auto w = formats::read_wtns<F>(bytes, path);
        if (!w.ok()) return bad_input(w.status(), "info");
        std::cout << "  values: " << w->size() << "\n";
      } else {
        auto pk = formats::read_zkey<E>(bytes, path);
        if (!pk.ok()) return bad_input(pk.status(), "info");
        std::cout << "  protocol: groth16\n  variables: " << pk->num_variables
                  << "\n  public: " << pk->num_public << "\n  domain: 2^" << pk->log_domain_size
                  << "\n  coefficients: A " << pk->a.nonzeros() << ", B " << pk->b.nonzeros()
                  << "\n";
      }
      return kExitOk;
    });
  }
  auto j = formats::read_json_file(path);
  if (!j.ok()) return bad_input(invalid_argument("'" + path + "' is neither a .r1cs, .wtns, .zkey nor JSON"), "info");
  if (j->is_array()) {
    std::cout << path << ": public inputs, " << j->size() << " values\n";
  } else if (j->is_object() && j->contains("pi_a")) {
    std::cout << path << ": Groth16 proof (" << j->value("curve", "?") << ")\n";
  } else if (j->is_object() && j->contains("vk_alpha_1")) {
    std::cout << path << ": Groth16 verification key (" << j->value("curve", "?") << ", "
              << (j->contains("IC") ? (*j)["IC"].size() - 1 : 0) << " public inputs)\n";
  } else {
    std::cout << path << ": JSON of unknown kind\n";
  }
  return kExitOk;
}

}  // namespace snarkd::cli
