// snarkd: the command-line entry point. Subcommands are added as their layers land.
#include <CLI/CLI.hpp>

#include <iostream>
#include <random>

#include "cli/commands.h"
#include "cli/demo.h"
#include "cli/selfcheck.h"
#include "gpu/probe.h"

int main(int argc, char** argv) {
  CLI::App app{"snarkd: a GPU-accelerated Groth16 proving engine (BLS12-381, BN254)"};
  app.require_subcommand(1);

  auto* selfcheck = app.add_subcommand(
      "selfcheck", "Report the backend found and run a quick arithmetic self-test");
  unsigned long long seed = std::random_device{}();
  selfcheck->add_option("--seed", seed, "Seed for the random test inputs");

  std::string info_file;
  auto* info = app.add_subcommand(
      "info", "Describe FILE (.r1cs, .wtns, .zkey, snarkjs JSON), or without FILE the build and GPUs");
  info->add_option("file", info_file, "A file to describe");

  snarkd::cli::ProveOptions prove_options;
  auto* prove = app.add_subcommand(
      "prove", "Prove: snarkd prove KEY.zkey WITNESS.wtns proof.json public.json");
  prove->add_option("zkey", prove_options.zkey, "snarkjs Groth16 proving key")->required();
  prove->add_option("witness", prove_options.witness, "circom witness (.wtns)")->required();
  prove->add_option("proof", prove_options.proof_out, "Output proof.json")->required();
  prove->add_option("public", prove_options.public_out, "Output public.json")->required();
  prove->add_flag("--timings", prove_options.timings, "Print per-stage timings to stderr");
  bool no_verify = false;
  prove->add_flag("--no-verify", no_verify, "Skip verifying the proof before writing it");

  std::string vk_path, public_path, proof_path;
  auto* verify = app.add_subcommand(
      "verify", "Verify: snarkd verify verification_key.json public.json proof.json (exit 0 valid, 1 invalid, 2 bad input)");
  verify->add_option("vk", vk_path, "verification_key.json")->required();
  verify->add_option("public", public_path, "public.json")->required();
  verify->add_option("proof", proof_path, "proof.json")->required();

  snarkd::cli::SetupOptions setup_options;
  std::string setup_curve = "bls12-381";
  auto* setup = app.add_subcommand(
      "setup", "Make a test key (single-party, NOT a ceremony) for a .r1cs or the built-in circuit");
  setup->add_option("--r1cs", setup_options.r1cs, "circom .r1cs (default: the built-in chain)");
  setup->add_option("--curve", setup_curve, "Curve of the built-in circuit")->capture_default_str();
  setup->add_option("--constraints", setup_options.constraints, "Built-in circuit size")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t(1), uint64_t(1) << 27));
  setup->add_option("--boolean-percent", setup_options.boolean_percent, "Built-in circuit's boolean share")
      ->capture_default_str()
      ->check(CLI::Range(0u, 100u));
  setup->add_option("--seed", setup_options.seed, "Built-in circuit seed")->capture_default_str();
  setup->add_option("--zkey", setup_options.zkey_out, "Output snarkjs .zkey");
  setup->add_option("--vk", setup_options.vk_out, "Output verification_key.json");
  setup->add_option("--wtns", setup_options.wtns_out, "Output the built-in circuit's witness (.wtns)");

  snarkd::cli::DemoOptions demo_options;
  std::string demo_curve = "bls12-381", demo_convention = "snarkjs";
  auto* demo = app.add_subcommand(
      "demo", "Set up, prove and verify a built-in circuit, printing stage timings");
  demo->add_option("--curve", demo_curve, "bls12-381 or bn254")->capture_default_str();
  demo->add_option("--constraints", demo_options.constraints, "Number of constraints")
      ->capture_default_str()
      ->check(CLI::Range(uint64_t(1), uint64_t(1) << 27));
  demo->add_option("--boolean-percent", demo_options.boolean_percent,
                   "Share of boolean constraints")
      ->capture_default_str()
      ->check(CLI::Range(0u, 100u));
  demo->add_option("--convention", demo_convention,
                   "H convention: snarkjs (odd coset) or divide-by-z (bellperson)")
      ->capture_default_str();
  demo->add_option("--seed", demo_options.seed, "Seed for the circuit and witness")
      ->capture_default_str();

  CLI11_PARSE(app, argc, argv);

  if (*selfcheck) return snarkd::cli::run_selfcheck(std::cout, seed);
  if (*demo) {
    auto curve = snarkd::cli::parse_curve(demo_curve);
    if (!curve) {
      std::cerr << "snarkd demo: unknown curve '" << demo_curve << "' (bls12-381 or bn254)\n";
      return 2;
    }
    demo_options.curve = *curve;
    if (demo_convention == "snarkjs") {
      demo_options.convention = snarkd::poly::QuotientConvention::kSnarkjsOddCoset;
    } else if (demo_convention == "divide-by-z") {
      demo_options.convention = snarkd::poly::QuotientConvention::kDivideByZ;
    } else {
      std::cerr << "snarkd demo: unknown convention '" << demo_convention
                << "' (snarkjs or divide-by-z)\n";
      return 2;
    }
    return snarkd::cli::run_demo(demo_options, std::cout);
  }
  if (*prove) {
    prove_options.verify = !no_verify;
    return snarkd::cli::run_prove(prove_options);
  }
  if (*verify) return snarkd::cli::run_verify(vk_path, public_path, proof_path);
  if (*setup) {
    auto curve = snarkd::cli::parse_curve(setup_curve);
    if (!curve) {
      std::cerr << "snarkd setup: unknown curve '" << setup_curve << "'\n";
      return 2;
    }
    setup_options.curve = *curve;
    return snarkd::cli::run_setup(setup_options);
  }
  if (*info && !info_file.empty()) return snarkd::cli::run_info(info_file);
  if (*info) {
    auto probe = snarkd::gpu::probe_devices();
    std::cout << "snarkd " << SNARKD_VERSION << "\n"
              << "cuda: " << (probe.cuda_compiled ? "compiled in" : "not compiled in") << "\n"
              << "gpus: " << probe.devices.size() << "\n"
              << "backend: " << snarkd::gpu::selected_backend(probe) << "\n";
    if (!probe.usable()) std::cout << "reason: " << probe.reason << "\n";
    return 0;
  }
  return 0;
}
