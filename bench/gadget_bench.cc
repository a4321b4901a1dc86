// Gadget witness throughput, one thread: the witness-only mode (the proving hot path) for the
// SHA-256 compression and Poseidon, against the native hashes (libcrypto's SHA-256, snarkd's
// Poseidon), and the other modes for scale.
//
//   build/release/bench/gadget_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <random>

#include "base/sha256.h"
#include "circuits/gadgets/poseidon.h"
#include "circuits/gadgets/sha256.h"

namespace {

using namespace snarkd;
using namespace snarkd::circuits;
using Fr = ff::bls12_381::Fr;

std::vector<bool> random_block() {
  std::mt19937_64 rng(7);
  std::vector<bool> bits(512);
  for (size_t i = 0; i < bits.size(); ++i) bits[i] = rng() & 1;
  return bits;
}

// One compression of 512 allocated message bits with the constant IV: 512 + 25,840 aux.
template <class CS>
void compression(CS& cs, const std::vector<bool>& block) {
  std::vector<Boolean> bits;
  bits.reserve(512);
  for (bool b : block) bits.push_back(Boolean::alloc(cs, b));
  benchmark::DoNotOptimize(sha256_block_no_padding(cs, bits));
}

void BM_Sha256CompressionWitness(benchmark::State& state) {
  const auto block = random_block();
  r1cs::WitnessCS<Fr> cs;
  cs.reserve_aux(1 << 15);
  uint64_t aux = 0;
  for (auto _ : state) {
    cs.reset();
    compression(cs, block);
    aux += cs.num_aux();
  }
  state.counters["compressions/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["aux/s"] = benchmark::Counter(double(aux), benchmark::Counter::kIsRate);
  state.counters["aux"] = double(cs.num_aux());
}
BENCHMARK(BM_Sha256CompressionWitness)->Unit(benchmark::kMicrosecond);

// Baseline: the same witness-only storage, but words as 32 Booleans (the general form that
// the recording modes use), folded bit by bit. A distinct type, so UInt32's witness-only form
// is not selected.
struct PerBitWitnessCS : r1cs::WitnessCS<Fr> {};

void BM_Sha256CompressionWitnessPerBit(benchmark::State& state) {
  const auto block = random_block();
  PerBitWitnessCS cs;
  cs.reserve_aux(1 << 15);
  for (auto _ : state) {
    cs.reset();
    compression(cs, block);
  }
  state.counters["compressions/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Sha256CompressionWitnessPerBit)->Unit(benchmark::kMicrosecond);

template <class CS>
void BM_Sha256CompressionMode(benchmark::State& state) {
  const auto block = random_block();
  for (auto _ : state) {
    CS cs;
    compression(cs, block);
    benchmark::DoNotOptimize(cs.num_aux());
  }
  state.counters["compressions/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Sha256CompressionMode<r1cs::ShapeCS<Fr>>)->Name("BM_Sha256CompressionShape")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Sha256CompressionMode<r1cs::BuilderCS<Fr>>)->Name("BM_Sha256CompressionBuilder")->Unit(benchmark::kMicrosecond);

// libcrypto: 55 bytes pad to exactly one block, so this is one compression (plus the call).
void BM_Sha256Native(benchmark::State& state) {
  uint8_t message[55] = {1, 2, 3};
  for (auto _ : state) {
    auto d = sha256(std::span<const uint8_t>(message, sizeof message));
    message[0] = d[0];
    benchmark::DoNotOptimize(d);
  }
  state.counters["compressions/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Sha256Native)->Unit(benchmark::kMicrosecond);

void BM_PoseidonWitness(benchmark::State& state) {
  const unsigned arity = unsigned(state.range(0));
  std::mt19937_64 rng(9);
  std::vector<Fr> input(arity);
  for (auto& x : input) x = Fr::random(rng);
  (void)poseidon_constants(arity);
  r1cs::WitnessCS<Fr> cs;
  uint64_t aux = 0;
  using CS = r1cs::WitnessCS<Fr>;
  for (auto _ : state) {
    cs.reset();
    std::vector<AllocatedNum<CS>> in;
    in.reserve(arity);
    for (const auto& x : input) in.push_back(AllocatedNum<CS>::alloc(cs, x));
    benchmark::DoNotOptimize(poseidon_hash(cs, std::span<const AllocatedNum<CS>>(in)));
    aux += cs.num_aux();
  }
  state.counters["hashes/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["aux/s"] = benchmark::Counter(double(aux), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PoseidonWitness)->Arg(2)->Arg(8)->Arg(11)->Unit(benchmark::kMicrosecond);

void BM_PoseidonNative(benchmark::State& state) {
  const unsigned arity = unsigned(state.range(0));
  std::mt19937_64 rng(9);
  std::vector<Fr> input(arity);
  for (auto& x : input) x = Fr::random(rng);
  for (auto _ : state) {
    input[0] = poseidon_hash(input);
    benchmark::DoNotOptimize(input[0]);
  }
  state.counters["hashes/s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PoseidonNative)->Arg(2)->Arg(8)->Arg(11)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
