// snarkd: the command-line entry point. Subcommands are added as their layers land.
#include <CLI/CLI.hpp>

#include <iostream>
#include <random>

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

  auto* info = app.add_subcommand("info", "Print the build configuration and GPUs found");

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
