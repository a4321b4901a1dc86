// GPU kernel benchmarks (run on the GPU machine by scripts/gpu-check.sh): field multiplication
// throughput and NTT times, data resident on the device, timed with CUDA events on one stream,
// median of 7 runs after 2 warm-ups. No Google Benchmark: the GPU machine lacks its library.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "ff/bls12_381.h"
#include "ff/bn254.h"
#include "gpu/field_constants.cuh"
#include "gpu/ntt.cuh"
#include "gpu/msm.cuh"
#include "ec/bls12_381.h"
#include "ec/bn254.h"

namespace {

using namespace snarkd;

#define CHECK(expr)                                                                         \
  do {                                                                                      \
    cudaError_t e_ = (expr);                                                                \
    if (e_ != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s failed: %s\n", #expr, cudaGetErrorString(e_));               \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

constexpr int kChainLength = 512;

// Four independent multiplication chains per thread (latency hidden by ILP and occupancy).
template <class P>
__global__ void mul_chains(gpu::DevFp<P>* data, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (4 * i + 3 >= n) return;
  auto a = data[4 * i], b = data[4 * i + 1], c = data[4 * i + 2], d = data[4 * i + 3];
  auto m = a;
  for (int k = 0; k < kChainLength; ++k) {
    a = a * m;
    b = b * m;
    c = c * m;
    d = d * m;
  }
  data[4 * i] = a;
  data[4 * i + 1] = b;
  data[4 * i + 2] = c;
  data[4 * i + 3] = d;
}

template <class Fn>
double median_ms(Fn&& launch, int warmups = 2, int runs = 7) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> times;
  for (int i = 0; i < warmups + runs; ++i) {
    CHECK(cudaEventRecord(start));
    launch();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (i >= warmups) times.push_back(ms);
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

template <class P>
void bench_mul(const char* name) {
  using H = ff::Fp<P>;
  const size_t n = size_t(1) << 22;  // 2^20 threads x 4 chains
  std::mt19937_64 rng(1);
  std::vector<H> h(n);
  for (auto& v : h) v = H::random(rng);
  gpu::DevFp<P>* d;
  CHECK(cudaMalloc(&d, n * sizeof(H)));
  CHECK(cudaMemcpy(d, h.data(), n * sizeof(H), cudaMemcpyHostToDevice));
  size_t threads = n / 4;
  double ms = median_ms([&] { mul_chains<P><<<uint32_t((threads + 255) / 256), 256>>>(d, n); });
  CHECK(cudaGetLastError());
  double muls = double(n) * kChainLength;
  std::printf("field-mul  %-14s %10.3f ms  %8.2f Gmul/s\n", name, ms, muls / ms / 1e6);
  CHECK(cudaFree(d));
}

template <class P>
void bench_ntt(const char* name, uint32_t max_log) {
  using H = ff::Fp<P>;
  std::mt19937_64 rng(2);
  std::vector<uint32_t> sizes = {16, 18, 20, 22, 24, 26};
  if (max_log > 26) sizes.push_back(max_log);
  for (uint32_t log_n : sizes) {
    auto plan = gpu::DeviceNtt<P>::create(log_n);
    if (!plan.ok()) {
      std::printf("ntt %s 2^%u: %s\n", name, log_n, plan.status().to_string().c_str());
      return;
    }
    size_t n = size_t(1) << log_n;
    std::vector<H> h(n);
    for (auto& v : h) v = H::random(rng);
    gpu::DevFp<P>* d;
    CHECK(cudaMalloc(&d, n * sizeof(H)));
    CHECK(cudaMemcpy(d, h.data(), n * sizeof(H), cudaMemcpyHostToDevice));
    double ms = median_ms([&] { (void)plan->forward(d, nullptr); });
    std::printf("ntt        %-14s 2^%-2u %10.3f ms\n", name, log_n, ms);
    CHECK(cudaFree(d));
  }
}

// G1 MSM with random 255-bit scalars. Bases: 2^20 distinct random points, tiled for larger
// sizes (generating distinct points on the host dominates otherwise; noted in docs/perf.md).
template <class C>
void bench_msm(const char* name, uint32_t max_log) {
  using P = typename C::Field::Params;
  using H = typename C::Field;
  const size_t distinct = size_t(1) << 20;
  std::mt19937_64 rng(3);
  std::vector<ec::Jacobian<C>> jac(distinct);
  auto step = ec::mul_vartime(C::generator(), C::Scalar::random(rng).to_canonical());
  ec::Jacobian<C> acc = step;
  for (size_t i = 0; i < distinct; ++i) {
    jac[i] = acc;
    acc = acc.add(step).dbl();
  }
  std::vector<ec::Affine<C>> aff(distinct);
  ec::batch_to_affine<C>(jac, aff);
  struct Raw {
    H x, y;
  };
  for (uint32_t log_n = 16; log_n <= max_log; log_n += 2) {
    size_t n = size_t(1) << log_n;
    std::vector<Raw> raw(n);
    for (size_t i = 0; i < n; ++i) raw[i] = Raw{aff[i % distinct].x, aff[i % distinct].y};
    std::vector<typename C::Scalar::Int> scalars(n);
    for (auto& s : scalars) s = C::Scalar::random(rng).to_canonical();
    gpu::DevAffine<P>* dbases;
    uint32_t* dscalars;
    CHECK(cudaMalloc(&dbases, n * sizeof(Raw)));
    CHECK(cudaMalloc(&dscalars, n * 32));
    CHECK(cudaMemcpy(dbases, raw.data(), n * sizeof(Raw), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dscalars, scalars.data(), n * 32, cudaMemcpyHostToDevice));
    auto plan = gpu::DeviceMsm<C>::create(n);
    if (!plan.ok()) {
      std::printf("msm %s 2^%u: %s\n", name, log_n, plan.status().to_string().c_str());
      return;
    }
    double ms = median_ms([&] { (void)plan->run(dbases, dscalars, n, nullptr); }, 1, 5);
    gpu::MsmStageTimes st;
    (void)plan->run(dbases, dscalars, n, nullptr, &st);
    std::printf("msm-g1     %-14s 2^%-2u %10.3f ms  (c = %u; digits %.2f sort %.2f bounds %.2f "
                "accumulate %.2f reduce %.2f)\n",
                name, log_n, ms, plan->window_bits(), st.digits, st.sort, st.bounds,
                st.accumulate, st.reduce);
    CHECK(cudaFree(dbases));
    CHECK(cudaFree(dscalars));
  }
}

}  // namespace

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("gpu_bench: no GPU\n");
    return 1;
  }
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  bench_mul<ff::bls12_381::FqParams>("bls12_381/Fp");
  bench_mul<ff::bls12_381::FrParams>("bls12_381/Fr");
  bench_mul<ff::bn254::FqParams>("bn254/Fp");
  bench_mul<ff::bn254::FrParams>("bn254/Fr");
  bench_ntt<ff::bls12_381::FrParams>("bls12_381/Fr", 27);
  bench_ntt<ff::bn254::FrParams>("bn254/Fr", 26);
  bench_msm<ec::bls12_381::G1>("bls12_381", 24);
  bench_msm<ec::bn254::G1>("bn254", 24);
  return 0;
}
