// Single-thread arithmetic benchmarks for both curves: field mul/square/inverse, group mixed
// addition and doubling, scalar multiplication and pairings. Each loop feeds its result back
// into the next iteration, so the figures are latencies (what a serial chain such as a
// Pippenger bucket sees), not throughput.
#include <benchmark/benchmark.h>

#include <random>

#include "ec/bls12_381.h"
#include "ec/bn254.h"

namespace {

using namespace snarkd;

// Field operations run 64 deep per benchmark iteration; the counter reports time per operation.
constexpr int kChain = 64;

void report_per_op(benchmark::State& state, int per_iteration) {
  state.counters["per_op"] = benchmark::Counter(
      double(per_iteration) * double(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

std::mt19937_64& rng() {
  static std::mt19937_64 r(42);
  return r;
}

template <class F>
void BM_FieldMul(benchmark::State& state) {
  F a = F::random(rng()), b = F::random(rng());
  for (auto _ : state) {
    for (int k = 0; k < kChain; ++k) a = a * b;
    benchmark::DoNotOptimize(a);
  }
  report_per_op(state, kChain);
}

// Baseline for the MULX/ADX assembly: the portable C++ CIOS, same inputs, same run.
template <class F>
void BM_FieldMulPortable(benchmark::State& state) {
  F a = F::random(rng()), b = F::random(rng());
  for (auto _ : state) {
    for (int k = 0; k < kChain; ++k) a = F::mul_portable(a, b);
    benchmark::DoNotOptimize(a);
  }
  report_per_op(state, kChain);
}

// Four independent chains: the throughput a Pippenger bucket pass can reach.
template <class F>
void BM_FieldMulThroughput(benchmark::State& state) {
  F a0 = F::random(rng()), a1 = F::random(rng()), a2 = F::random(rng()), a3 = F::random(rng());
  F b = F::random(rng());
  for (auto _ : state) {
    for (int k = 0; k < kChain; ++k) {
      a0 = a0 * b;
      a1 = a1 * b;
      a2 = a2 * b;
      a3 = a3 * b;
    }
    benchmark::DoNotOptimize(a0);
    benchmark::DoNotOptimize(a1);
    benchmark::DoNotOptimize(a2);
    benchmark::DoNotOptimize(a3);
  }
  report_per_op(state, 4 * kChain);
}

template <class F>
void BM_FieldSquare(benchmark::State& state) {
  F a = F::random(rng());
  for (auto _ : state) {
    for (int k = 0; k < kChain; ++k) a = a.square();
    benchmark::DoNotOptimize(a);
  }
  report_per_op(state, kChain);
}

template <class F>
void BM_FieldAdd(benchmark::State& state) {
  F a = F::random(rng()), b = F::random(rng());
  for (auto _ : state) {
    for (int k = 0; k < kChain; ++k) a = a + b;
    benchmark::DoNotOptimize(a);
  }
  report_per_op(state, kChain);
}

template <class F>
void BM_FieldInverse(benchmark::State& state) {
  F a = F::random(rng());
  for (auto _ : state) {
    a = a.inverse() + F::one();
    benchmark::DoNotOptimize(a);
  }
}

template <class C>
void BM_JacobianMixedAdd(benchmark::State& state) {
  auto g = C::generator();
  auto acc = ec::mul_vartime(g, C::Scalar::random(rng()).to_canonical());
  auto q = ec::mul_vartime(g, C::Scalar::random(rng()).to_canonical()).to_affine();
  for (auto _ : state) {
    acc = acc.add_mixed(q);
    benchmark::DoNotOptimize(acc);
  }
}

template <class C>
void BM_XyzzMixedAdd(benchmark::State& state) {
  auto g = C::generator();
  auto acc = ec::Xyzz<C>::from_affine(
      ec::mul_vartime(g, C::Scalar::random(rng()).to_canonical()).to_affine());
  auto q = ec::mul_vartime(g, C::Scalar::random(rng()).to_canonical()).to_affine();
  for (auto _ : state) {
    acc = acc.add_mixed(q);
    benchmark::DoNotOptimize(acc);
  }
}

template <class C>
void BM_JacobianDouble(benchmark::State& state) {
  auto acc = ec::mul_vartime(C::generator(), C::Scalar::random(rng()).to_canonical());
  for (auto _ : state) {
    acc = acc.dbl();
    benchmark::DoNotOptimize(acc);
  }
}

template <class C>
void BM_ScalarMul(benchmark::State& state) {
  auto p = ec::mul_vartime(C::generator(), C::Scalar::random(rng()).to_canonical());
  auto k = C::Scalar::random(rng()).to_canonical();
  for (auto _ : state) {
    p = ec::mul_vartime(p, k);
    benchmark::DoNotOptimize(p);
  }
}

template <class E>
void BM_Pairing(benchmark::State& state) {
  auto p = ec::mul_vartime(E::G1::generator(), E::G1::Scalar::random(rng()).to_canonical())
               .to_affine();
  auto q = ec::mul_vartime(E::G2::generator(), E::G1::Scalar::random(rng()).to_canonical())
               .to_affine();
  for (auto _ : state) benchmark::DoNotOptimize(ec::Pairing<E>::pairing(p, q));
}

template <class E>
void BM_MillerLoop(benchmark::State& state) {
  using P = ec::Pairing<E>;
  typename P::Pair pr{E::G1::generator(), E::G2::generator()};
  for (auto _ : state) {
    benchmark::DoNotOptimize(P::miller_loop(std::span<const typename P::Pair>(&pr, 1)));
  }
}

template <class E>
void BM_FinalExponentiation(benchmark::State& state) {
  using P = ec::Pairing<E>;
  auto f = P::F12::random(rng());
  for (auto _ : state) benchmark::DoNotOptimize(P::final_exponentiation(f));
}

namespace bls = ec::bls12_381;
namespace bn = ec::bn254;

BENCHMARK(BM_FieldMul<bls::Fq>)->Name("bls12_381/Fp/mul");
BENCHMARK(BM_FieldMulPortable<bls::Fq>)->Name("bls12_381/Fp/mul_portable");
BENCHMARK(BM_FieldMulThroughput<bls::Fq>)->Name("bls12_381/Fp/mul_x4_independent");
BENCHMARK(BM_FieldSquare<bls::Fq>)->Name("bls12_381/Fp/square");
BENCHMARK(BM_FieldAdd<bls::Fq>)->Name("bls12_381/Fp/add");
BENCHMARK(BM_FieldInverse<bls::Fq>)->Name("bls12_381/Fp/inverse");
BENCHMARK(BM_FieldMul<bls::Fr>)->Name("bls12_381/Fr/mul");
BENCHMARK(BM_FieldSquare<bls::Fr>)->Name("bls12_381/Fr/square");
BENCHMARK(BM_FieldInverse<bls::Fr>)->Name("bls12_381/Fr/inverse");
BENCHMARK(BM_FieldMul<bls::Fq2>)->Name("bls12_381/Fp2/mul");
BENCHMARK(BM_JacobianMixedAdd<bls::G1>)->Name("bls12_381/G1/jacobian_mixed_add");
BENCHMARK(BM_XyzzMixedAdd<bls::G1>)->Name("bls12_381/G1/xyzz_mixed_add");
BENCHMARK(BM_JacobianDouble<bls::G1>)->Name("bls12_381/G1/double");
BENCHMARK(BM_ScalarMul<bls::G1>)->Name("bls12_381/G1/scalar_mul");
BENCHMARK(BM_JacobianMixedAdd<bls::G2>)->Name("bls12_381/G2/jacobian_mixed_add");
BENCHMARK(BM_XyzzMixedAdd<bls::G2>)->Name("bls12_381/G2/xyzz_mixed_add");
BENCHMARK(BM_JacobianDouble<bls::G2>)->Name("bls12_381/G2/double");
BENCHMARK(BM_ScalarMul<bls::G2>)->Name("bls12_381/G2/scalar_mul");
BENCHMARK(BM_MillerLoop<bls::Engine>)->Name("bls12_381/miller_loop")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FinalExponentiation<bls::Engine>)->Name("bls12_381/final_exp")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Pairing<bls::Engine>)->Name("bls12_381/pairing")->Unit(benchmark::kMicrosecond);

BENCHMARK(BM_FieldMul<bn::Fq>)->Name("bn254/Fp/mul");
BENCHMARK(BM_FieldMulPortable<bn::Fq>)->Name("bn254/Fp/mul_portable");
BENCHMARK(BM_FieldMulThroughput<bn::Fq>)->Name("bn254/Fp/mul_x4_independent");
BENCHMARK(BM_FieldSquare<bn::Fq>)->Name("bn254/Fp/square");
BENCHMARK(BM_FieldAdd<bn::Fq>)->Name("bn254/Fp/add");
BENCHMARK(BM_FieldInverse<bn::Fq>)->Name("bn254/Fp/inverse");
BENCHMARK(BM_FieldMul<bn::Fr>)->Name("bn254/Fr/mul");
BENCHMARK(BM_FieldSquare<bn::Fr>)->Name("bn254/Fr/square");
BENCHMARK(BM_FieldInverse<bn::Fr>)->Name("bn254/Fr/inverse");
BENCHMARK(BM_FieldMul<bn::Fq2>)->Name("bn254/Fp2/mul");
BENCHMARK(BM_JacobianMixedAdd<bn::G1>)->Name("bn254/G1/jacobian_mixed_add");
BENCHMARK(BM_XyzzMixedAdd<bn::G1>)->Name("bn254/G1/xyzz_mixed_add");
BENCHMARK(BM_JacobianDouble<bn::G1>)->Name("bn254/G1/double");
BENCHMARK(BM_ScalarMul<bn::G1>)->Name("bn254/G1/scalar_mul");
BENCHMARK(BM_JacobianMixedAdd<bn::G2>)->Name("bn254/G2/jacobian_mixed_add");
BENCHMARK(BM_XyzzMixedAdd<bn::G2>)->Name("bn254/G2/xyzz_mixed_add");
BENCHMARK(BM_JacobianDouble<bn::G2>)->Name("bn254/G2/double");
BENCHMARK(BM_ScalarMul<bn::G2>)->Name("bn254/G2/scalar_mul");
BENCHMARK(BM_MillerLoop<bn::Engine>)->Name("bn254/miller_loop")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FinalExponentiation<bn::Engine>)->Name("bn254/final_exp")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Pairing<bn::Engine>)->Name("bn254/pairing")->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
