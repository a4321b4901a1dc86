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
  return 0;
}
