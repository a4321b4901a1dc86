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

namespace snarkd::cli {

namespace {

int bad_input(const Status& s, const char* command) {
  std::cerr << "snarkd " << command << ": " << s.message() << "\n";
  return kExitBadInput;
}

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

Result<ec::CurveId> zkey_curve(const MappedFile& f) {
  ASSIGN_OR_RETURN(auto bin, formats::parse_bin_file(f.bytes(), "zkey", 1, "'" + f.path() + "'"));
  return formats::curve_from_header(bin, 2, /*is_scalar=*/false);
}

void print_timings(const groth16::StageTimings& t, const char* backend, double load_ms,
                   double verify_ms) {
  std::cerr << "timings (backend " << backend << "):\n";
  std::cerr << "  load            " << std::fixed << std::setprecision(2) << std::setw(11) << load_ms
            << " ms\n";
  print_stage_timings(std::cerr, t);
  std::cerr << "  verify          " << std::setw(11) << verify_ms << " ms\n";
}

template <class E>
int prove(const ProveOptions& o, const MappedFile& zkey) {
  using F = groth16::Fr<E>;
  auto t0 = std::chrono::steady_clock::now();
  auto pk = formats::read_zkey<E>(zkey.bytes(), o.zkey);
  if (!pk.ok()) return bad_input(pk.status(), "prove");
  auto wfile = MappedFile::open(o.witness);
  if (!wfile.ok()) return bad_input(wfile.status(), "prove");
  auto w = formats::read_wtns<F>(wfile->bytes(), o.witness);
  if (!w.ok()) return bad_input(w.status(), "prove");
  double load_ms = ms_since(t0);
  if (w->size() != pk->num_variables) {
    return bad_input(invalid_argument("'" + o.witness + "' has " + std::to_string(w->size()) +
                                      " values but '" + o.zkey + "' expects " +
                                      std::to_string(pk->num_variables) +
                                      " (a witness of another circuit?)"),
                     "prove");
  }
  std::string note;
  auto backend = make_backend<E>(o.backend, {}, &note);
  if (!backend.ok()) {
    std::cerr << "snarkd prove: " << backend.status().message() << "\n";
    return kExitFailure;
  }
  if (!note.empty()) std::cerr << "snarkd prove: " << note << "\n";
  OsRandom rng;
  groth16::StageTimings timings;
  auto proof = groth16::prove<E>(*pk, *w, **backend, rng, &timings);
  if (!proof.ok()) return bad_input(proof.status(), "prove");
  std::span<const F> publics = std::span<const F>(*w).subspan(1, pk->num_public);
  double verify_ms = 0;
  if (o.verify) {
    t0 = std::chrono::steady_clock::now();
    auto ok = groth16::verify<E>(pk->vk, publics, *proof);
    verify_ms = ms_since(t0);
    if (!ok.ok()) return bad_input(ok.status(), "prove");
    if (!*ok) {
      std::cerr << "snarkd prove: the proof does not verify: the witness does not satisfy the "
                   "circuit of '"
                << o.zkey << "' (nothing written)\n";
      return kExitBadInput;
    }
  }
  auto st = formats::write_json_file(formats::proof_to_json<E>(*proof), o.proof_out);
  if (st.ok()) st = formats::write_json_file(formats::public_to_json<F>(publics), o.public_out);
  if (!st.ok()) {
    std::cerr << "snarkd prove: " << st.message() << "\n";
    return kExitFailure;
  }
  if (o.timings) print_timings(timings, (*backend)->name(), load_ms, verify_ms);
  return kExitOk;
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
    auto st = formats::write_json_file(formats::vk_to_json<E>(pk->vk), o.vk_out);
    if (!st.ok()) return bad_input(st, "setup");
    std::cerr << "setup: wrote " << o.vk_out << "\n";
  }
  return kExitOk;
}

}  // namespace

int run_prove(const ProveOptions& o) {
  auto zkey = MappedFile::open(o.zkey);
  if (!zkey.ok()) return bad_input(zkey.status(), "prove");
  auto curve = zkey_curve(*zkey);
  if (!curve.ok()) return bad_input(curve.status(), "prove");
  return with_engine(*curve, [&]<class E>() { return prove<E>(o, *zkey); });
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
