// snarkd: the command-line entry point. Subcommands are added as their layers land.
#include <CLI/CLI.hpp>

#include <iostream>
#include <map>
#include <random>

#include "cli/bench.h"
#include "cli/engine_bench.h"
#ifdef SNARKD_HAVE_SERVER
#include "cli/client_commands.h"
#include "server/daemon.h"
#endif
#include "cli/circuit_commands.h"
#include "cli/commands.h"
#include "cli/demo.h"
#include "cli/porep_commands.h"
#include "cli/selfcheck.h"
#include "gpu/probe.h"

int main(int argc, char** argv) {
  CLI::App app{"snarkd: a GPU-accelerated Groth16 proving engine (BLS12-381, BN254)"};
  app.require_subcommand(1);

  auto* selfcheck = app.add_subcommand(
      "selfcheck", "Report the backend found and run a quick arithmetic self-test");
  unsigned long long seed = std::random_device{}();
  selfcheck->add_option("--seed", seed, "Seed for the random test inputs");

  auto* circuit_cmd = app.add_subcommand("circuit", "The built-in circuit families (list) and a circuit's shape (stats)");
  circuit_cmd->require_subcommand(1);
  auto* circuit_list = circuit_cmd->add_subcommand("list", "The registered circuit families and their spec syntax");
  std::string circuit_spec;
  bool circuit_json = false;
  auto* circuit_stats = circuit_cmd->add_subcommand(
      "stats", "Count a circuit's inputs, aux, constraints, nonzeros and densities (shape mode, no values kept)");
  circuit_stats->add_option("spec", circuit_spec, "e.g. sha256:512, poseidon:8, por:poseidon:8x2-8, chain:bn254:20")
      ->required();
  circuit_stats->add_flag("--json", circuit_json, "Print JSON");

  // snarkd porep: Filecoin PoRep's vanilla side.
  auto* porep = app.add_subcommand("porep", "Filecoin PoRep: parents, challenges and public inputs, test sectors and C1 outputs");
  porep->require_subcommand(1);
  const std::string proof_help = "registered seal proof: a number (0..19) or a name like StackedDrg32GiBV1_1";
  auto add_sector_args = [&](CLI::App* cmd, snarkd::cli::PorepSectorArgs& a, bool proof_required) {
    auto* rp = cmd->add_option("--registered-proof", a.registered_proof, proof_help);
    if (proof_required) rp->required();
    cmd->add_option("--miner-id", a.miner_id, "the miner's actor id (the prover id is its LEB128)");
    cmd->add_option("--prover-id", a.prover_id, "the prover id, 32 bytes hex");
    cmd->add_option("--sector", a.sector, "sector number")->required();
    cmd->add_option("--ticket", a.ticket, "the ticket, 32 bytes hex")->required();
    cmd->add_option("--seed", a.seed, "the interactive seed, 32 bytes hex")->required();
  };
  std::string parents_proof;
  uint64_t parents_node = 0;
  bool parents_json = false;
  auto* porep_parents = porep->add_subcommand("parents", "A node's 6 DRG and 8 expander parents");
  porep_parents->add_option("--registered-proof", parents_proof, proof_help)->required();
  porep_parents->add_option("--node", parents_node, "the node")->required();
  porep_parents->add_flag("--json", parents_json, "Print JSON");
  snarkd::cli::PorepPublicInputsOptions pi_options;
  auto* porep_inputs = porep->add_subcommand(
      "public-inputs", "The replica id and, per partition, the challenges and the circuit's public inputs (hex: Fr::to_repr bytes)");
  add_sector_args(porep_inputs, pi_options.sector, true);
  porep_inputs->add_option("--comm-d", pi_options.comm_d, "comm_d, 32 bytes hex")->required();
  porep_inputs->add_option("--comm-r", pi_options.comm_r, "comm_r, 32 bytes hex")->required();
  porep_inputs->add_flag("--json", pi_options.json, "Print JSON (keys replica_id, partitions[].challenges, partitions[].inputs)");
  snarkd::cli::PorepSealOptions seal_options;
  auto* porep_seal = porep->add_subcommand(
      "seal", "Seal a test sector for real (every layer and tree) and write its C1 output (SealCommitPhase1Output)");
  porep_seal->add_option("--sector-size", seal_options.sector_size, "2KiB, 8MiB or 512MiB")->required();
  add_sector_args(porep_seal, seal_options.sector, false);
  porep_seal->add_option("--data", seal_options.data, "the unsealed sector (Fr32-padded, sector-size bytes); default: a CC sector of zeros");
  porep_seal->add_option("--out", seal_options.out, "the C1 output file")->required();
  porep_seal->add_flag("--bincode", seal_options.bincode, "write filecoin-proofs' bincode (supraseal's commit-phase1-output) instead of JSON");
  snarkd::cli::PorepSynthOptions synth_options;
  auto* porep_synth = porep->add_subcommand(
      "c1-synth",
      "FOR TESTING AND BENCHMARKING ONLY: write a consistent full-size C1 output of a CC sector without sealing it "
      "(derived challenges and parents, random parent labels, sparse trees C and R; every path, label and comm_r "
      "checks out, nothing proves storage)");
  porep_synth->add_option("--sector-size", synth_options.sector_size, "32GiB or 64GiB (any size works)")->required();
  add_sector_args(porep_synth, synth_options.sector, false);
  porep_synth->add_option("--out", synth_options.out, "the C1 output file")->required();
  porep_synth->add_flag("--bincode", synth_options.bincode, "write filecoin-proofs' bincode instead of JSON");
  std::string check_path, check_proof;
  auto* porep_check = porep->add_subcommand(
      "check-c1", "Read a C1 output (JSON, or bincode with --registered-proof) and verify everything it claims");
  porep_check->add_option("file", check_path, "the C1 output")->required();
  porep_check->add_option("--registered-proof", check_proof, proof_help + " (required for bincode)");

  snarkd::cli::PorepC2Options c2_options;
  auto* porep_c2 = porep->add_subcommand(
      "c2", "PoRep commit phase 2: a C1 output to the proof (partitions x 192 bytes), through the engine, verified");
  porep_c2->add_option("input", c2_options.input,
                       "the C1 output: JSON, bincode (with --registered-proof), or Curio's/lotus-bench's Commit2In "
                       "{\"SectorNum\", \"Phase1Out\", \"SectorSize\"}")
      ->required();
  porep_c2->add_option("--registered-proof", c2_options.registered_proof, proof_help + " (required for bincode)");
  porep_c2->add_option("--miner-id", c2_options.miner_id, "the miner's actor id (the prover id is its LEB128)");
  porep_c2->add_option("--prover-id", c2_options.prover_id, "the prover id, 32 bytes hex");
  porep_c2->add_option("--sector", c2_options.sector, "sector number (required unless the input carries SectorNum)");
  porep_c2->add_option("--params", c2_options.params,
                       "bellperson .params (default: Filecoin's file in $FIL_PROOFS_PARAMETER_CACHE, "
                       "/var/tmp/filecoin-proof-parameters)");
  porep_c2->add_option("--key", c2_options.key,
                       "an engine key source instead of --params (e.g. builtin:synthetic:divide-by-z:porep:32GiB: "
                       "random points, the proof does not verify; for benchmarks)");
  porep_c2->add_option("--out", c2_options.out, "the proof file")->required();
  porep_c2->add_option("--backend", c2_options.backend, "cpu, gpu or auto")->capture_default_str();
  porep_c2->add_option("--gpu-memory-limit", c2_options.gpu_memory_limit,
                       "device bytes the GPU backend plans the key and its slot in, to act as a smaller card "
                       "(0: the device's free memory)")
      ->transform(CLI::AsSizeValue(true));

  snarkd::cli::PorepVerifyOptions verify_options;
  auto* porep_verify = porep->add_subcommand(
      "verify", "Check a PoRep proof against its public data, as verify_seal does (exit 0 valid, 1 invalid, 2 bad input)");
  add_sector_args(porep_verify, verify_options.sector, true);
  porep_verify->add_option("--comm-d", verify_options.comm_d, "comm_d, 32 bytes hex")->required();
  porep_verify->add_option("--comm-r", verify_options.comm_r, "comm_r, 32 bytes hex")->required();
  porep_verify->add_option("--vk", verify_options.vk,
                           "bellperson .vk (default: Filecoin's file in $FIL_PROOFS_PARAMETER_CACHE)");
  porep_verify->add_option("--proof", verify_options.proof, "the proof (partitions x 192 bytes)")->required();

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
  std::string prove_addr;
  prove->add_option("--addr", prove_addr, "Prove through a running daemon (unix:///path or host:port)");
  bool no_verify = false;
  prove->add_flag("--no-verify", no_verify, "Skip verifying the proof before writing it");
  std::string prove_backend = "auto";
  prove->add_option("--backend", prove_backend, "cpu, gpu or auto (the GPU when one is usable)")
      ->capture_default_str();

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
  setup->add_option("--vk", setup_options.vk_out, "Output the verifying key: snarkjs verification_key.json, or with --params bellperson's .vk");
  setup->add_option("--params", setup_options.params_out,
                    "Output a bellperson .params (BLS12-381; divide-by-Z H query)");
  setup->add_option("--wtns", setup_options.wtns_out, "Output the built-in circuit's witness (.wtns)");
  setup->add_option("--porep", setup_options.porep,
                    "PoRep test parameters: the partition circuit of this sector size (2KiB, 8MiB, 512MiB, 32GiB, "
                    "64GiB) in bellperson's format (--params, --vk); single-party, NOT for production");

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
  demo->add_option("--seed", demo_options.seed, "Seed for the witness")
      ->capture_default_str();
  std::string demo_backend = "auto";
  demo->add_option("--backend", demo_backend, "cpu, gpu or auto")->capture_default_str();

  auto* bench = app.add_subcommand("bench", "Benchmarks");
  bench->require_subcommand(1);
  snarkd::cli::BenchProveOptions bench_options;
  std::string bench_curve = "bls12-381", bench_backend = "auto", bench_convention = "snarkjs";
  auto* bench_prove = bench->add_subcommand(
      "prove", "Whole proofs on built-in circuits: per-stage device times, kernel-busy vs wall");
  bench_prove->add_option("--curve", bench_curve, "bls12-381 or bn254")->capture_default_str();
  bench_prove->add_option("--log-size", bench_options.log_sizes, "Domain sizes 2^k (list)")
      ->delimiter(',')
      ->check(CLI::Range(4u, 27u))
      ->capture_default_str();
  bench_prove->add_option("--boolean-percent", bench_options.boolean_percents,
                          "Boolean shares of the witness (list)")
      ->delimiter(',')
      ->check(CLI::Range(0u, 100u))
      ->capture_default_str();
  bench_prove->add_option("--slots", bench_options.slot_counts, "Slot counts to run (list)")
      ->delimiter(',')
      ->check(CLI::Range(1u, 8u))
      ->capture_default_str();
  bench_prove->add_option("--proofs", bench_options.proofs, "Proofs per slot")
      ->check(CLI::Range(1u, 1000u))
      ->capture_default_str();
  bench_prove->add_option("--backend", bench_backend, "cpu, gpu or auto")->capture_default_str();
  using snarkd::cli::CircuitShape;
  using snarkd::cli::KeyKind;
  bench_prove->add_option("--key", bench_options.key,
                          "setup (real, verifiable), synthetic (random points) or auto (default)")
      ->transform(CLI::CheckedTransformer(std::map<std::string, KeyKind>{
          {"auto", KeyKind::kAuto}, {"setup", KeyKind::kSetup}, {"synthetic", KeyKind::kSynthetic}}));
  bench_prove->add_option("--setup-limit", bench_options.setup_limit_log,
                          "auto: a real setup up to 2^k")
      ->capture_default_str();
  bench_prove->add_option("--convention", bench_convention, "snarkjs or divide-by-z")
      ->capture_default_str();
  bench_prove->add_flag("--cpu-evaluate", bench_options.cpu_evaluate,
                        "Evaluate a, b, c on the CPU and upload them");
  bench_prove
      ->add_option("--base-copies", bench_options.base_copies,
                   "GPU: shifted copies of the key's bases (fewer bucket sets to reduce "
                   "for more device memory); 0: as many as fit, up to 4; 1: none")
      ->check(CLI::Range(0u, 16u))
      ->capture_default_str();
  bench_prove
      ->add_option("--key-memory-limit", bench_options.key_memory_limit,
                   "GPU: bytes of key points the device may hold; a key over it streams its "
                   "points from pinned host memory for every proof (0: as many as fit)")
      ->capture_default_str();
  bench_prove->add_option("--shape", bench_options.shape,
                          "chain (default), or partition (a PoRep partition's densities: every "
                          "variable in A, --b-percent of them in B)")
      ->transform(CLI::CheckedTransformer(std::map<std::string, CircuitShape>{
          {"chain", CircuitShape::kChain}, {"partition", CircuitShape::kPartition}}));
  bench_prove->add_option("--constraints", bench_options.constraints,
                          "Constraints per circuit (one --log-size whose domain holds them); "
                          "default 2^k - 8")
      ->check(CLI::Range(uint64_t(1), uint64_t(1) << 31));
  bench_prove->add_option("--circuit", bench_options.circuit,
                          "any registered circuit spec instead of the chain/partition sweep (e.g. porep:32GiB; "
                          "`snarkd circuit list`); its curve is its own");
  bench_prove->add_option("--b-percent", bench_options.b_percent, "partition: share of variables in B")
      ->check(CLI::Range(0u, 100u))
      ->capture_default_str();

  snarkd::cli::BenchEngineOptions engine_options;
  std::string engine_curve = "bn254", engine_backend = "auto";
  bool engine_no_verify = false;
  auto* bench_engine = bench->add_subcommand(
      "engine", "The engine in-process on built-in circuits: per-proof times, throughput, utilization");
  bench_engine->add_option("--proofs,-n", engine_options.proofs, "Proof jobs")
      ->check(CLI::Range(1u, 1000000u))
      ->capture_default_str();
  bench_engine->add_option("--concurrency,-j", engine_options.concurrency, "Jobs in flight")
      ->check(CLI::Range(1u, 1024u))
      ->capture_default_str();
  bench_engine->add_option("--partitions", engine_options.partitions, "Partitions per job")
      ->check(CLI::Range(1u, 10000u))
      ->capture_default_str();
  bench_engine->add_option("--size", engine_options.log_size, "Constraints per partition: 2^k - 8")
      ->check(CLI::Range(4u, 26u))
      ->capture_default_str();
  bench_engine->add_option("--boolean-percent", engine_options.boolean_percent, "Boolean share of the witness")
      ->check(CLI::Range(0u, 100u))
      ->capture_default_str();
  bench_engine->add_option("--curve", engine_curve, "bls12-381 or bn254")->capture_default_str();
  bench_engine->add_option("--backend", engine_backend, "cpu, gpu or auto")->capture_default_str();
  bench_engine->add_option("--slots", engine_options.slots, "GPU slots per device")
      ->check(CLI::Range(1u, 8u))
      ->capture_default_str();
  bench_engine->add_option("--cpu-workers", engine_options.cpu_workers, "CPU backend: prover workers per device")
      ->check(CLI::Range(1u, 64u))
      ->capture_default_str();
  bench_engine->add_option("--devices", engine_options.devices,
                           "GPUs to use (0: all), or CPU devices to model on the CPU backend")
      ->capture_default_str();
  bench_engine->add_option("--synthesis-workers", engine_options.synthesis_workers, "Synthesis workers")
      ->check(CLI::Range(1u, 256u))
      ->capture_default_str();
  bench_engine->add_flag("--no-verify", engine_no_verify, "Do not verify each partition proof");
  bench_engine->add_option("--timeline", engine_options.timeline,
                           "Write the timeline (JSON lines) here, and a Perfetto trace beside it");

  snarkd::cli::BenchEngineOptions porep_bench;
  porep_bench.slots = 1;
  std::string porep_bench_backend = "auto", porep_bench_params;
  bool porep_bench_no_verify = false;
  auto* bench_porep = bench->add_subcommand(
      "porep", "PoRep C2 jobs of c1-synth sectors through the engine in-process, as cuzk-bench runs them: "
               "per-proof lines, s/proof, stage percentiles, utilization with idle gaps, the timeline");
  bench_porep->add_option("--sector-size", porep_bench.porep_size, "2KiB, 8MiB, 512MiB, 32GiB or 64GiB")->required();
  bench_porep->add_option("-c,-n,--proofs", porep_bench.proofs, "Proofs (sectors 1..N of miner 1000)")
      ->check(CLI::Range(1u, 100000u))
      ->capture_default_str();
  bench_porep->add_option("-j,--concurrency", porep_bench.concurrency, "Proofs in flight")
      ->check(CLI::Range(1u, 1024u))
      ->capture_default_str();
  bench_porep->add_option("--key", porep_bench.key_source,
                          "Key source (default builtin:synthetic:divide-by-z:porep:SIZE: random points, the proofs "
                          "cannot verify)");
  bench_porep->add_option("--params", porep_bench_params, "Test or Filecoin parameters (.params) instead of --key");
  bench_porep->add_option("--backend", porep_bench_backend, "cpu, gpu or auto")->capture_default_str();
  bench_porep->add_option("--slots", porep_bench.slots, "GPU slots per device")
      ->check(CLI::Range(1u, 8u))
      ->capture_default_str();
  bench_porep->add_option("--synthesis-workers", porep_bench.synthesis_workers, "Partitions synthesized at once")
      ->check(CLI::Range(1u, 256u))
      ->capture_default_str();
  bench_porep->add_option("--gpu-memory-limit", porep_bench.gpu_memory_limit,
                          "Device bytes the GPU backend plans in, to act as a smaller card (0: the device's free memory)")
      ->transform(CLI::AsSizeValue(true));
  bench_porep->add_flag("--no-verify", porep_bench_no_verify, "Do not verify each partition proof");
  bench_porep->add_option("--timeline", porep_bench.timeline,
                          "Write the timeline (JSON lines) here, and a Perfetto trace beside it");

  std::string timeline_path;
  auto* timeline = app.add_subcommand(
      "timeline", "Summarize a timeline file: per-stage p50/p90/max, device utilization, idle gaps");
  timeline->add_option("file", timeline_path, "timeline (JSON lines)")->required();

  // Daemon and client commands (the client ones take --addr).
  std::string config_path, addr = "127.0.0.1:9820";
  unsigned call_timeout_s = 30, wait_timeout_s = 3660;
  // Every client command: the address, and its deadlines (a daemon that stops answering is
  // noticed within seconds by keepalive pings whatever the deadline).
  auto client_flags = [&](CLI::App* cmd) {
    cmd->add_option("--addr", addr, "Daemon address")->capture_default_str();
    cmd->add_option("--call-timeout", call_timeout_s, "Deadline of short calls, seconds")
        ->capture_default_str()
        ->check(CLI::Range(1u, 86400u));
    cmd->add_option("--wait-timeout", wait_timeout_s,
                    "Deadline of calls that wait for a proof or a key (Prove, AwaitProof without --timeout-ms, "
                    "RegisterKey), seconds")
        ->capture_default_str()
        ->check(CLI::Range(1u, 7u * 86400u));
  };
  auto* serve = app.add_subcommand("serve", "Run the proving daemon (gRPC + HTTP status/metrics)");
  serve->add_option("--config", config_path, "snarkd.toml (docs/config.md)")->required();
  auto* status_cmd = app.add_subcommand("status", "Status of a running daemon");
  client_flags(status_cmd);
  std::string keys_register, keys_evict;
  bool keys_preload = false;
  auto* keys_cmd = app.add_subcommand("keys", "List, register, preload or evict a daemon's keys");
  client_flags(keys_cmd);
  keys_cmd->add_option("--register", keys_register, "A .zkey path on the daemon's disk or builtin:chain:...");
  keys_cmd->add_flag("--preload", keys_preload, "Load the registered key now");
  keys_cmd->add_option("--evict", keys_evict, "Evict this key id from memory");
#ifdef SNARKD_HAVE_SERVER
  snarkd::cli::SubmitOptions submit_options;
#else
  struct {
    std::string key, witness_path, request_id, priority;
    uint32_t partitions = 1;
    uint64_t seed = 1, timeout_ms = 0;
    std::string porep_c1;
    std::optional<uint64_t> miner_id, sector;
    std::string prover_id;
  } submit_options;
#endif
  auto* submit_cmd = app.add_subcommand("submit", "Submit a proof job to a daemon; prints the job id");
  client_flags(submit_cmd);
  submit_cmd->add_option("--key", submit_options.key, "Key id")->required();
  submit_cmd->add_option("--witness", submit_options.witness_path, "Witness (.wtns) for zkey keys");
  submit_cmd->add_option("--partitions", submit_options.partitions, "Built-in keys: partitions")->capture_default_str();
  submit_cmd->add_option("--seed", submit_options.seed, "Built-in keys: witness seed")->capture_default_str();
  submit_cmd->add_option("--priority", submit_options.priority, "critical, high, normal or low")->capture_default_str();
  submit_cmd->add_option("--request-id", submit_options.request_id, "Idempotency key");
  submit_cmd->add_option("--timeout-ms", submit_options.timeout_ms, "The job fails past this (0: none)");
  submit_cmd->add_option("--porep-c1", submit_options.porep_c1,
                         "PoRep C2 on a porep:SIZE key: the C1 output (JSON, bincode or Commit2In)");
  submit_cmd->add_option("--miner-id", submit_options.miner_id, "PoRep: the miner's actor id");
  submit_cmd->add_option("--prover-id", submit_options.prover_id, "PoRep: the prover id, 32 bytes hex");
  submit_cmd->add_option("--sector", submit_options.sector, "PoRep: the sector number");
  uint64_t job_id = 0, await_timeout = 0;
  std::string await_proof, await_public;
  auto* await_cmd = app.add_subcommand("await", "Wait for a daemon job; writes its first proof");
  client_flags(await_cmd);
  await_cmd->add_option("job", job_id, "Job id")->required();
  await_cmd->add_option("--timeout-ms", await_timeout, "Give up after (0: the daemon's limit)");
  await_cmd->add_option("--proof", await_proof, "Write proof.json here");
  await_cmd->add_option("--public", await_public, "Write public.json here");
  std::string await_bytes;
  await_cmd->add_option("--proof-bytes", await_bytes,
                        "Write every partition's proof bytes here, concatenated (a PoRep proof)");
  auto* cancel_cmd = app.add_subcommand("cancel", "Cancel a daemon job");
  client_flags(cancel_cmd);
  cancel_cmd->add_option("job", job_id, "Job id")->required();
  std::string daemon_key = "builtin:chain:bn254:12:50";
  unsigned daemon_n = 8, daemon_j = 2, daemon_partitions = 1;
  snarkd::cli::BenchDaemonOptions daemon_cuzk;
  auto* bench_daemon = bench->add_subcommand("daemon", "Whole proofs through a running daemon's gRPC API");
  client_flags(bench_daemon);
  bench_daemon->add_option("-n,-c,--proofs", daemon_n, "Jobs")->capture_default_str();
  bench_daemon->add_option("--api", daemon_cuzk.api,
                           "snarkd (snarkd.v1 jobs of --key) or cuzk (cuzk.v1 Prove calls of --c1, as Curio makes them)")
      ->capture_default_str();
  bench_daemon->add_option("--c1", daemon_cuzk.c1, "--api cuzk: a C1 JSON or Curio's {SectorNum, Phase1Out, SectorSize}");
  bench_daemon->add_option("--miner-id", daemon_cuzk.miner_id, "--api cuzk: the miner's actor id")->capture_default_str();
  bench_daemon->add_option("--sector", daemon_cuzk.sector, "--api cuzk: the sector number")->capture_default_str();
  bench_daemon->add_option("-j,--concurrency", daemon_j, "Jobs in flight")->capture_default_str();
  bench_daemon->add_option("--partitions", daemon_partitions, "Partitions per job")->capture_default_str();
  bench_daemon->add_option("--key", daemon_key, "Key source (a built-in circuit)")->capture_default_str();

  CLI11_PARSE(app, argc, argv);

#ifdef SNARKD_HAVE_SERVER
  const snarkd::cli::ClientOptions client{addr, call_timeout_s, wait_timeout_s};
  if (*serve) return snarkd::server::run_serve(config_path);
  if (*status_cmd) return snarkd::cli::run_status(client, std::cout);
  if (*keys_cmd) return snarkd::cli::run_keys(client, keys_register, keys_preload, keys_evict, std::cout);
  if (*submit_cmd) return snarkd::cli::run_submit(client, submit_options, std::cout);
  if (*await_cmd) return snarkd::cli::run_await(client, job_id, await_timeout, await_proof, await_public, await_bytes, std::cout);
  if (*cancel_cmd) return snarkd::cli::run_cancel(client, job_id, std::cout);
  if (*bench_daemon) {
    daemon_cuzk.key = daemon_key;
    daemon_cuzk.proofs = daemon_n;
    daemon_cuzk.concurrency = daemon_j;
    daemon_cuzk.partitions = daemon_partitions;
    return snarkd::cli::run_bench_daemon(client, daemon_cuzk, std::cout);
  }
  if (*prove && !prove_addr.empty()) {
    return snarkd::cli::run_remote_prove(snarkd::cli::ClientOptions{prove_addr, call_timeout_s, wait_timeout_s}, prove_options.zkey, prove_options.witness, prove_options.proof_out,
                                         prove_options.public_out);
  }
#else
  if (*serve || *status_cmd || *keys_cmd || *submit_cmd || *await_cmd || *cancel_cmd || *bench_daemon ||
      (*prove && !prove_addr.empty())) {
    std::cerr << "snarkd: this build has no daemon (gRPC, toml++ or cpp-httplib was missing at build time)\n";
    return 1;
  }
#endif

  auto backend_of = [](const std::string& name, const char* command) {
    auto b = snarkd::cli::parse_backend(name);
    if (!b) std::cerr << "snarkd " << command << ": unknown backend '" << name << "' (cpu, gpu or auto)\n";
    return b;
  };
  auto convention_of = [](const std::string& name, const char* command)
      -> std::optional<snarkd::poly::QuotientConvention> {
    if (name == "snarkjs") return snarkd::poly::QuotientConvention::kSnarkjsOddCoset;
    if (name == "divide-by-z") return snarkd::poly::QuotientConvention::kDivideByZ;
    std::cerr << "snarkd " << command << ": unknown convention '" << name
              << "' (snarkjs or divide-by-z)\n";
    return std::nullopt;
  };
  if (*bench_prove) {
    auto curve = snarkd::cli::parse_curve(bench_curve);
    if (!curve) {
      std::cerr << "snarkd bench prove: unknown curve '" << bench_curve << "'\n";
      return 2;
    }
    bench_options.curve = *curve;
    auto b = backend_of(bench_backend, "bench prove");
    auto conv = convention_of(bench_convention, "bench prove");
    if (!b || !conv) return 2;
    bench_options.backend = *b;
    bench_options.convention = *conv;
    if (bench_options.constraints != 0) {
      const auto& sizes = bench_options.log_sizes;
      if (sizes.size() != 1 || bench_options.constraints > (uint64_t(1) << sizes[0]) - 8) {
        std::cerr << "snarkd bench prove: --constraints " << bench_options.constraints
                  << " needs one --log-size k with 2^k - 8 >= it\n";
        return 2;
      }
    }
    return snarkd::cli::run_bench_prove(bench_options, std::cout);
  }

  if (*bench_engine) {
    auto curve = snarkd::cli::parse_curve(engine_curve);
    if (!curve) {
      std::cerr << "snarkd bench engine: unknown curve '" << engine_curve << "'\n";
      return 2;
    }
    engine_options.curve = *curve;
    auto b = backend_of(engine_backend, "bench engine");
    if (!b) return 2;
    engine_options.backend = *b == snarkd::cli::BackendChoice::kCpu   ? snarkd::engine::BackendKind::kCpu
                             : *b == snarkd::cli::BackendChoice::kGpu ? snarkd::engine::BackendKind::kGpu
                                                                      : snarkd::engine::BackendKind::kAuto;
    engine_options.verify = !engine_no_verify;
    return snarkd::cli::run_bench_engine(engine_options, std::cout);
  }
  if (*bench_porep) {
    auto b = backend_of(porep_bench_backend, "bench porep");
    if (!b) return 2;
    porep_bench.backend = *b == snarkd::cli::BackendChoice::kCpu   ? snarkd::engine::BackendKind::kCpu
                          : *b == snarkd::cli::BackendChoice::kGpu ? snarkd::engine::BackendKind::kGpu
                                                                   : snarkd::engine::BackendKind::kAuto;
    porep_bench.verify = !porep_bench_no_verify;
    if (!porep_bench_params.empty()) {
      if (!porep_bench.key_source.empty()) {
        std::cerr << "snarkd bench porep: give --params or --key, not both\n";
        return 2;
      }
      porep_bench.key_source = "bellperson:porep:" + porep_bench.porep_size + "@" + porep_bench_params;
    }
    return snarkd::cli::run_bench_engine(porep_bench, std::cout);
  }
  if (*timeline) return snarkd::cli::run_timeline(timeline_path, std::cout);
  if (*circuit_list) return snarkd::cli::run_circuit_list(std::cout);
  if (*porep_parents) return snarkd::cli::run_porep_parents(parents_proof, parents_node, parents_json, std::cout, std::cerr);
  if (*porep_inputs) return snarkd::cli::run_porep_public_inputs(pi_options, std::cout, std::cerr);
  if (*porep_seal) return snarkd::cli::run_porep_seal(seal_options, std::cout, std::cerr);
  if (*porep_synth) return snarkd::cli::run_porep_c1_synth(synth_options, std::cout, std::cerr);
  if (*porep_check) return snarkd::cli::run_porep_check_c1(check_path, check_proof, std::cout, std::cerr);
  if (*porep_c2) return snarkd::cli::run_porep_c2(c2_options, std::cout, std::cerr);
  if (*porep_verify) return snarkd::cli::run_porep_verify(verify_options, std::cout, std::cerr);
  if (*circuit_stats) return snarkd::cli::run_circuit_stats(circuit_spec, circuit_json, std::cout, std::cerr);
  if (*selfcheck) return snarkd::cli::run_selfcheck(std::cout, seed);
  if (*demo) {
    auto curve = snarkd::cli::parse_curve(demo_curve);
    if (!curve) {
      std::cerr << "snarkd demo: unknown curve '" << demo_curve << "' (bls12-381 or bn254)\n";
      return 2;
    }
    demo_options.curve = *curve;
    auto conv = convention_of(demo_convention, "demo");
    auto b = backend_of(demo_backend, "demo");
    if (!conv || !b) return 2;
    demo_options.convention = *conv;
    demo_options.backend = *b;
    return snarkd::cli::run_demo(demo_options, std::cout);
  }
  if (*prove) {
    prove_options.verify = !no_verify;
    auto b = backend_of(prove_backend, "prove");
    if (!b) return 2;
    prove_options.backend = *b;
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
