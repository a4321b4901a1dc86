// PoRep C2's witness-only synthesis, one partition on one thread, from a synthesized C1 (made
// once, outside the timing) into a reused buffer: the 2 KiB and 32 GiB shapes. Also the
// synthesized C1 itself.
#include <benchmark/benchmark.h>

#include "filecoin/c1_synth.h"
#include "filecoin/stacked_circuit.h"
#include "r1cs/cs.h"

namespace {

using namespace snarkd;
using namespace snarkd::filecoin;

Bytes32 filled(uint8_t b) {
  Bytes32 v;
  v.fill(b);
  return v;
}

void BM_PorepPartitionWitness(benchmark::State& state) {
  const SealProof& p = seal_proofs()[size_t(state.range(0))];
  ThreadPool one(1);
  auto c1 = synthesize_c1(p, prover_id_from_miner(1000), 1, filled(1), filled(2), nullptr, one);
  auto values = stacked_values(*c1, 0);
  const StackedShape shape = stacked_shape(p);
  // One buffer, reused as the engine reuses a slot's: the first synthesis (outside the timing)
  // touches its pages; on this VM a first touch of 4 GB costs ~10 s of page clearing.
  r1cs::WitnessCS<StackedField> cs;
  synthesize_stacked(cs, shape, *values);
  size_t aux = cs.assignment().size();
  for (auto _ : state) {
    cs.reset();
    synthesize_stacked(cs, shape, *values);
    benchmark::DoNotOptimize(cs);
  }
  state.SetLabel(std::string(p.name));
  state.counters["values"] = double(aux);
  state.counters["values/s"] = benchmark::Counter(double(aux), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_PorepPartitionWitness)->Arg(5)->Arg(8)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_C1Synth32GiB(benchmark::State& state) {
  ThreadPool one(1);
  for (auto _ : state) {
    auto c1 = synthesize_c1(seal_proofs()[8], prover_id_from_miner(1000), 1, filled(1), filled(2), nullptr, one);
    benchmark::DoNotOptimize(c1);
  }
}
BENCHMARK(BM_C1Synth32GiB)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
