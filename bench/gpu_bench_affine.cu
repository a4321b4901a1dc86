// GPU benchmark (see gpu_bench.cu), `gpu_bench affine`: batch-affine additions against the XYZZ
// mixed additions of MSM accumulation, the measurement that decides whether buckets should be
// accumulated in affine form.
//
// A batch-affine addition of P and Q costs 1 product for lambda's denominator chain, 2 to undo
// it, 3 for lambda, x and y (6 in all) plus an inversion shared by the batch; the mixed XYZZ
// addition costs about 10. Both kernels read their points from HBM; the batch kernel also writes
// its sums and keeps the denominators' running products in a scratch buffer, as an accumulation
// built on it would.
#include "gpu/fp64_field.cuh"
#include "gpu_bench_common.cuh"

namespace bench {

namespace affine_kernels {

// Both kernels below hold points on the integer field, whatever the MSM uses (point.cuh's FP64
// switches), so they stay the baseline of the FP64 rows.
template <class F>
struct IntegerLanesOf;
template <class P>
struct IntegerLanesOf<gpu::DevFp<P>> {
  using type = gpu::FpPointLanes<P, false>;
};
template <class F>
using IntegerLanes = typename IntegerLanesOf<F>::type;

// Thread t adds per_thread consecutive points into one XYZZ accumulator (the accumulate
// kernel's inner loop, with its register budget).
template <class F>
__global__ void __launch_bounds__(gpu::kAccumulateThreads, gpu::accumulate_min_blocks<F>())
    xyzz_chains(const gpu::DevAffine<F>* points, size_t n, uint32_t per_thread,
                gpu::DevXyzz<F>* out) {
  using Lanes = IntegerLanes<F>;
  using R = typename Lanes::Reg;
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  gpu::DevXyzz<R> acc = gpu::DevXyzz<R>::identity();
  for (uint32_t i = 0; i < per_thread; ++i) {
    acc = acc.add_affine(Lanes::load(points + (t * per_thread + i) % n));
  }
  Lanes::store(out + t, acc);
}

// Thread t forms the sums out[t batch + i] = points[2 j] + points[2 j + 1], j = t batch + i,
// in affine form with one inversion per batch (Montgomery's trick). prefix[i T + t] holds the
// product of the first i denominators.
template <class F>
__global__ void __launch_bounds__(256)
    affine_batches(const gpu::DevAffine<F>* points, size_t n, uint32_t batch,
                   typename IntegerLanes<F>::Reg* prefix, gpu::DevAffine<F>* out) {
  using Lanes = IntegerLanes<F>;
  using R = typename Lanes::Reg;
  const size_t threads = size_t(gridDim.x) * blockDim.x;
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  auto pair = [&](uint32_t i) {
    const size_t j = t * batch + i;
    return std::pair{Lanes::load(points + (2 * j) % n), Lanes::load(points + (2 * j + 1) % n)};
  };
  R acc = R::one();
  for (uint32_t i = 0; i < batch; ++i) {
    auto [p, q] = pair(i);
    prefix[i * threads + t] = acc;
    acc = acc * (q.x - p.x);
  }
  R inv = acc.inverse();
  for (uint32_t i = batch; i-- > 0;) {
    auto [p, q] = pair(i);
    const R dx = q.x - p.x;
    const R d_inv = inv * prefix[i * threads + t];
    inv = inv * dx;
    const R lambda = (q.y - p.y) * d_inv;
    const R x = lambda.square() - p.x - q.x;
    const R y = lambda * (p.x - x) - p.y;
    out[t * batch + i] = {x.template as<gpu::MulForm::kRows>(),
                          y.template as<gpu::MulForm::kRows>()};
  }
}

// The XYZZ chains over the FP64-pipe field (src/gpu/fp64_field.cuh): points and sums convert
// between the layouts at the ends, so the sums can be compared with xyzz_chains' bit for bit.
template <class P, gpu::fp64::Fp64Form kForm, bool kOutOfLine>
__global__ void __launch_bounds__(gpu::kAccumulateThreads)
    fp64_xyzz_chains(const gpu::DevAffine<gpu::DevFp<P>>* points, size_t n, uint32_t per_thread,
                     gpu::DevXyzz<gpu::DevFp<P>>* out) {
  using F = gpu::Fp64Field<P, kForm, kOutOfLine>;
  const size_t t = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  gpu::DevXyzz<F> acc = gpu::DevXyzz<F>::identity();
  for (uint32_t i = 0; i < per_thread; ++i) {
    const auto q = points[(t * per_thread + i) % n];
    acc = acc.add_affine(
        {gpu::to_fp64<P, kForm, kOutOfLine>(q.x), gpu::to_fp64<P, kForm, kOutOfLine>(q.y)});
  }
  out[t] = {gpu::from_fp64(acc.X), gpu::from_fp64(acc.Y), gpu::from_fp64(acc.ZZ),
            gpu::from_fp64(acc.ZZZ)};
}

}  // namespace affine_kernels

// Times 2^k XYZZ chains of per_thread additions (the accumulate kernel's inner loop) and leaves
// their sums in acc.
template <class F>
double time_xyzz_chains(const gpu::DevAffine<F>* points, size_t n, size_t chains,
                        uint32_t per_thread, gpu::DevXyzz<F>* acc) {
  const uint32_t threads = gpu::kAccumulateThreads;
  const double ms = median_ms([&] {
    affine_kernels::xyzz_chains<F>
        <<<uint32_t(chains / threads), threads>>>(points, n, per_thread, acc);
  });
  CHECK(cudaGetLastError());
  return ms;
}

// Rates in additions per second for 2^log_adds additions, checked against the CPU on a sample.
template <class C>
void bench_affine(const char* name, uint32_t log_adds) {
  using M = gpu::DeviceMsm<C>;
  using Point = typename M::Point;
  using F = typename M::F;
  using R = typename affine_kernels::IntegerLanes<F>::Reg;
  std::mt19937_64 rng(5);
  const size_t adds = size_t(1) << log_adds;
  const size_t n = size_t(1) << 22;  // distinct points, read over and over
  Point* points = distinct_points<C>(n, rng);

  // XYZZ chains: 128 additions a thread.
  const uint32_t per_thread = 128;
  const size_t chains = adds / per_thread;
  gpu::DevXyzz<F>* acc;
  CHECK(cudaMalloc(&acc, chains * sizeof(gpu::DevXyzz<F>)));
  const double xyzz_ms = time_xyzz_chains<F>(points, n, chains, per_thread, acc);
  CHECK(cudaFree(acc));

  Point* sums;
  R* prefix;
  CHECK(cudaMalloc(&sums, adds * sizeof(Point)));
  CHECK(cudaMalloc(&prefix, adds * sizeof(R)));
  std::printf("affine     %-14s 2^%u additions: XYZZ mixed %8.2f ms (%.3f G/s)", name, log_adds,
              xyzz_ms, adds / xyzz_ms / 1e6);
  for (uint32_t batch : {32u, 128u, 512u}) {
    const uint32_t batch_threads = uint32_t(adds / batch);
    const double ms = median_ms([&] {
      affine_kernels::affine_batches<F>
          <<<batch_threads / 256, 256>>>(points, n, batch, prefix, sums);
    });
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    // The sums of a sample against the CPU's: the last 256, whose 512 inputs are contiguous
    // (2 adds is a multiple of n).
    const size_t sample = 256, first = adds - sample;
    if ((2 * first) % n + 2 * sample > n) std::exit(2);  // inputs would wrap around the points
    const auto got = download_points<C>(sums + first, sample);
    const auto in = download_points<C>(points + (2 * first) % n, 2 * sample);
    for (size_t i = 0; i < sample; ++i) {
      const auto want =
          ec::Jacobian<C>::from_affine(in[2 * i]).add_mixed(in[2 * i + 1]).to_affine();
      if (!(got[i] == want)) {
        std::printf("\nFAILED: batch-affine sum %zu (batch %u) differs from the CPU\n", first + i,
                    batch);
        std::exit(1);
      }
    }
    std::printf("; batch %u: %8.2f ms (%.3f G/s, %.2fx)", batch, ms, adds / ms / 1e6, xyzz_ms / ms);
  }
  std::printf("\n");
  CHECK(cudaFree(sums));
  CHECK(cudaFree(prefix));
  CHECK(cudaFree(points));
}

// G1 XYZZ chains, integer field against FP64 forms, same points, same process; every chain's sum
// must be the integer kernel's.
template <class C, gpu::fp64::Fp64Form kForm, bool kOutOfLine>
void time_fp64_xyzz(const char* name, const typename gpu::DeviceMsm<C>::Point* points, size_t n,
                    size_t chains, uint32_t per_thread, const std::vector<uint8_t>& want,
                    double integer_ms) {
  using P = typename C::Field::Params;
  using Acc = gpu::DevXyzz<gpu::DevFp<P>>;
  Acc* acc;
  CHECK(cudaMalloc(&acc, chains * sizeof(Acc)));
  CHECK(cudaMemset(acc, 0, chains * sizeof(Acc)));
  const uint32_t threads = gpu::kAccumulateThreads;
  const double ms = median_ms([&] {
    affine_kernels::fp64_xyzz_chains<P, kForm, kOutOfLine>
        <<<uint32_t(chains / threads), threads>>>(points, n, per_thread, acc);
  });
  CHECK(cudaGetLastError());
  std::vector<uint8_t> got(want.size());
  CHECK(cudaMemcpy(got.data(), acc, got.size(), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(acc));
  const double adds = double(chains) * per_thread;
  std::printf("affine-fp64 %-12s XYZZ chains, %s%s: %8.2f ms (%.3f G/s, %.2fx the integer field)\n",
              name, gpu::fp64::form_name(kForm), kOutOfLine ? "" : " (inlined)", ms,
              adds / ms / 1e6, integer_ms / ms);
  if (got != want) {
    std::printf("FAILED: FP64 XYZZ sums (%s, %s) differ from the integer field's\n", name,
                gpu::fp64::form_name(kForm));
    std::exit(1);
  }
}

// The chains of each form in kForms (out of line; kInlined adds the last form inlined).
template <class C, bool kInlined, gpu::fp64::Fp64Form... kForms>
void bench_fp64_xyzz(const char* name, uint32_t log_adds) {
  using F = typename gpu::DeviceMsm<C>::F;
  std::mt19937_64 rng(6);
  const size_t adds = size_t(1) << log_adds, n = size_t(1) << 22;
  auto* points = distinct_points<C>(n, rng);
  const uint32_t per_thread = 128;
  const size_t chains = adds / per_thread;
  gpu::DevXyzz<F>* acc;
  CHECK(cudaMalloc(&acc, chains * sizeof(gpu::DevXyzz<F>)));
  const double integer_ms = time_xyzz_chains<F>(points, n, chains, per_thread, acc);
  std::vector<uint8_t> want(chains * sizeof(gpu::DevXyzz<F>));
  CHECK(cudaMemcpy(want.data(), acc, want.size(), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(acc));
  std::printf("affine-fp64 %-12s XYZZ chains, 2^%u additions, integer field: %8.2f ms (%.3f G/s)\n",
              name, log_adds, integer_ms, adds / integer_ms / 1e6);
  (time_fp64_xyzz<C, kForms, true>(name, points, n, chains, per_thread, want, integer_ms), ...);
  if constexpr (kInlined) {
    constexpr gpu::fp64::Fp64Form kForms_[] = {kForms...};
    time_fp64_xyzz<C, kForms_[sizeof...(kForms) - 1], false>(name, points, n, chains, per_thread,
                                                             want, integer_ms);
  }
  CHECK(cudaFree(points));
}

void run_affine() {
  bench_affine<ec::bls12_381::G1>("bls12_381/G1", 26);
  bench_affine<ec::bn254::G1>("bn254/G1", 26);
  using gpu::fp64::Fp64Form;
  bench_fp64_xyzz<ec::bls12_381::G1, true, Fp64Form::kIntegerSums, Fp64Form::kFloatLows,
                  Fp64Form::kChainedFloat, Fp64Form::kChainedMixed>("bls12_381/G1", 24);
  bench_fp64_xyzz<ec::bn254::G1, false, Fp64Form::kIntegerSums>("bn254/G1", 24);
}

}  // namespace bench
