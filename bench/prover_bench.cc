// Benchmarks of the prover's pieces on the CPU backend: NTT 2^16..2^20, MSM 2^12..2^18 (G1 and
// G2), and a whole proof of a 2^16-constraint built-in circuit. Threads: ThreadPool::global()
// (all cores, or SNARKD_THREADS). Normalized counters: ns per point / per element / per
// constraint.
#include <benchmark/benchmark.h>

#include <map>
#include <random>
#include <vector>

#include "base/random.h"
#include "ec/bls12_381.h"
#include "ec/bn254.h"
#include "groth16/prover.h"
#include "groth16/setup.h"
#include "msm/pippenger.h"
#include "poly/domain.h"
#include "circuits/chain/chain.h"

namespace {

using namespace snarkd;

template <class F>
void BM_Ntt(benchmark::State& state) {
  auto domain = *poly::Domain<F>::create(size_t(state.range(0)));
  std::mt19937_64 rng(1);
  std::vector<F> v(domain.size());
  for (auto& x : v) x = F::random(rng);
  for (auto _ : state) {
    domain.ntt(v);
    benchmark::DoNotOptimize(v.data());
  }
  state.counters["per_element"] = benchmark::Counter(
      double(domain.size()) * double(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Bases and scalars are made once per size and reused across benchmarks of that size.
template <class C>
struct MsmInput {
  std::vector<ec::Affine<C>> bases;
  std::vector<typename C::Scalar::Int> scalars;
};

template <class C>
const MsmInput<C>& msm_input(size_t n) {
  static std::map<size_t, MsmInput<C>> cache;
  auto it = cache.find(n);
  if (it != cache.end()) return it->second;
  MsmInput<C> in;
  std::mt19937_64 rng(2);
  // Distinct random bases: a running sum of random multiples keeps setup cheap.
  std::vector<ec::Jacobian<C>> jac(n);
  auto step = ec::mul_vartime(C::generator(), C::Scalar::random(rng).to_canonical());
  ec::Jacobian<C> acc = step;
  for (size_t i = 0; i < n; ++i) {
    jac[i] = acc;
    acc = acc.add(step).dbl();
  }
  in.bases.resize(n);
  ec::batch_to_affine<C>(jac, in.bases);
  in.scalars.resize(n);
  for (auto& s : in.scalars) s = C::Scalar::random(rng).to_canonical();
  return cache.emplace(n, std::move(in)).first->second;
}

template <class C>
void BM_Msm(benchmark::State& state) {
  const auto& in = msm_input<C>(size_t(1) << state.range(0));
  for (auto _ : state) {
    auto r = msm::msm<C>(std::span<const ec::Affine<C>>(in.bases),
                         std::span<const typename C::Scalar::Int>(in.scalars));
    benchmark::DoNotOptimize(r);
  }
  state.counters["per_point"] = benchmark::Counter(
      double(in.bases.size()) * double(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

template <class E>
void BM_Prove(benchmark::State& state) {
  using F = groth16::Fr<E>;
  auto [cs, w] = circuits::build_chain<F>({uint64_t(state.range(0)), 25, 1});
  SeededRandom rng(3);
  auto pk = *groth16::setup<E>(cs, poly::QuotientConvention::kSnarkjsOddCoset, rng);
  groth16::CpuBackend<E> backend;
  for (auto _ : state) {
    auto proof = groth16::prove<E>(pk, w, backend, rng);
    benchmark::DoNotOptimize(proof);
  }
  state.counters["per_constraint"] = benchmark::Counter(
      double(cs.num_constraints()) * double(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

namespace bls = ec::bls12_381;
namespace bn = ec::bn254;

BENCHMARK(BM_Ntt<bls::Fr>)->Name("ntt/bls12_381")->DenseRange(16, 20, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Ntt<bn::Fr>)->Name("ntt/bn254")->DenseRange(16, 20, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Msm<bls::G1>)->Name("msm/bls12_381/g1")->DenseRange(12, 18, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Msm<bls::G2>)->Name("msm/bls12_381/g2")->DenseRange(12, 18, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Msm<bn::G1>)->Name("msm/bn254/g1")->DenseRange(12, 18, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Msm<bn::G2>)->Name("msm/bn254/g2")->DenseRange(12, 18, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Prove<bls::Engine>)->Name("prove/bls12_381")->Arg(65000)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_Prove<bn::Engine>)->Name("prove/bn254")->Arg(65000)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
