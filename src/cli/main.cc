// snarkd: the command-line entry point. Subcommands are added as their layers land.
#include <CLI/CLI.hpp>

#include <iostream>
#include <random>

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

  CLI11_PARSE(app, argc, argv);

  if (*selfcheck) return snarkd::cli::run_selfcheck(std::cout, seed);
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
