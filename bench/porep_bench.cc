// PoRep C2's witness-only synthesis, one partition on one thread, from a synthesized C1 (made
// once, outside the timing) into a reused buffer: the 2 KiB and 32 GiB shapes. Also the
// synthesized C1 itself, and the compact matrices: recording them (one thread), their bytes, and
// evaluating a = A·w, b = B·w, c = C·w on the host (every thread), matrix by matrix and as the
// GPU backend's host placement does (one pass with the check).
#include <benchmark/benchmark.h>

#include <bit>
#include <chrono>

#include "filecoin/c1_synth.h"
#include "filecoin/stacked_circuit.h"
#include "groth16/prover.h"
#include "r1cs/compact.h"
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

r1cs::CompactSystem<StackedField> compact_of(const SealProof& p, double* ms = nullptr) {
  const StackedShape shape = stacked_shape(p);
  const auto t0 = std::chrono::steady_clock::now();
  r1cs::CompactCS<StackedField> cs;
  synthesize_stacked(cs, shape, blank_stacked_values(shape));
  auto sys = std::move(cs).finish();
  if (ms) *ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return std::move(*sys);
}

void BM_PorepCompactMatrices(benchmark::State& state) {
  const SealProof& p = seal_proofs()[size_t(state.range(0))];
  r1cs::CompactSystem<StackedField> sys;
  double build_ms = 0;
  for (auto _ : state) sys = compact_of(p, &build_ms);
  const double nnz = double(sys.a.nonzeros() + sys.b.nonzeros() + sys.c.nonzeros());
  state.SetLabel(std::string(p.name));
  state.counters["bytes"] = double(sys.bytes());
  state.counters["nonzeros"] = nnz;
  state.counters["dictionary"] = double(sys.dictionary.size());
  state.counters["bytes/nonzero"] = double(sys.bytes()) / nnz;
}
BENCHMARK(BM_PorepCompactMatrices)->Arg(5)->Arg(8)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

// Partition 0's witness of a synthesized C1 for this proof.
std::vector<StackedField> partition_witness(const SealProof& p) {
  auto c1 = synthesize_c1(p, prover_id_from_miner(1000), 1, filled(1), filled(2));
  auto values = stacked_values(*c1, 0);
  r1cs::WitnessCS<StackedField> cs;
  synthesize_stacked(cs, stacked_shape(p), *values);
  return cs.assignment();
}

// a, b and c one after another into one reused output (the peak is the matrices, the witness
// and one vector).
void BM_PorepCompactEvaluate(benchmark::State& state) {
  const SealProof& p = seal_proofs()[size_t(state.range(0))];
  const auto sys = compact_of(p);
  const std::vector<StackedField> w = partition_witness(p);
  std::vector<StackedField> out(sys.a.rows());
  double ms[3] = {0, 0, 0};
  for (auto _ : state) {
    const r1cs::CompactMatrix* m[3] = {&sys.a, &sys.b, &sys.c};
    for (int k = 0; k < 3; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      r1cs::evaluate_compact<StackedField>(*m[k], sys.dictionary, w, sys.num_inputs, out);
      ms[k] += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      benchmark::DoNotOptimize(out.data());
    }
  }
  const double n = double(state.iterations());
  state.SetLabel(std::string(p.name) + ", " + std::to_string(ThreadPool::global().size()) + " threads");
  state.counters["a_ms"] = ms[0] / n;
  state.counters["b_ms"] = ms[1] / n;
  state.counters["c_ms"] = ms[2] / n;
}
BENCHMARK(BM_PorepCompactEvaluate)->Arg(5)->Arg(8)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(2);

// The GPU backend's host placement (a 24 GB card): a, b and c in one parallel pass with the check
// a·b = c, from compact rows whose columns are witness indices, into one buffer of 3n (the
// domain), as prove_start does before it takes a slot.
void BM_PorepHostEvaluation(benchmark::State& state) {
  using F = StackedField;
  const SealProof& p = seal_proofs()[size_t(state.range(0))];
  const auto sys = compact_of(p);
  const std::vector<F> w = partition_witness(p);
  const size_t rows = sys.a.rows();
  const size_t n = std::bit_ceil(rows + sys.num_inputs);  // the domain, input rows included
  std::vector<F> abc(3 * n);
  const std::span<const F> dict(sys.dictionary), ws(w);
  auto dot = [&](const r1cs::CompactMatrix& m, size_t i) {
    return r1cs::compact_row_dot<F>(m, dict, ws, sys.num_inputs, i);
  };
  for (auto _ : state) {
    auto st = groth16::evaluate_rows<F>(
        rows, true, [&](size_t i) { return dot(sys.a, i); }, [&](size_t i) { return dot(sys.b, i); },
        [&](size_t i) { return dot(sys.c, i); }, std::span<F>(abc.data(), n), std::span<F>(abc.data() + n, n),
        std::span<F>(abc.data() + 2 * n, n), ThreadPool::global());
    if (!st.ok()) state.SkipWithError(st.message().c_str());
    benchmark::DoNotOptimize(abc.data());
  }
  state.SetLabel(std::string(p.name) + ", " + std::to_string(ThreadPool::global().size()) + " threads");
  state.counters["rows"] = double(rows);
  state.counters["nonzeros"] = double(sys.a.nonzeros() + sys.b.nonzeros() + sys.c.nonzeros());
  state.counters["rows/s"] = benchmark::Counter(double(rows), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_PorepHostEvaluation)->Arg(7)->Arg(8)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

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
