// GPU kernel benchmarks (run on the GPU machine by scripts/gpu-check.sh): field multiplication,
// NTT, G1/G2 MSM and batch addition for BLS12-381 and BN254. Data resident on the device, CUDA
// events on one stream, median of >= 5 runs after warm-up. No Google Benchmark: the GPU machine
// lacks its library, so this is a static binary.
//
// Usage: gpu_bench [quick|msm]   (quick: smaller sizes, for a smoke run; msm: MSMs 2^20..2^24 only)
// Each result line: kind, curve/field, size, median ms, and Gmul/s (field multiplications per
// second: measured for field-mul, from the operation count for NTT/MSM/batch-add).
#include "gpu_bench_common.cuh"

namespace bench {
namespace {

constexpr int kChainLength = 512;


// Four independent multiplication chains per thread (latency hidden by ILP and occupancy).
template <class P, bool kPortable>
__global__ void mul_chains(gpu::DevFp<P>* data, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (4 * i + 3 >= n) return;
  auto a = data[4 * i], b = data[4 * i + 1], c = data[4 * i + 2], d = data[4 * i + 3];
  auto m = a;
  for (int k = 0; k < kChainLength; ++k) {
    if (kPortable) {
      using D = gpu::DevFp<P>;
      a = D::mul_portable(a, m);
      b = D::mul_portable(b, m);
      c = D::mul_portable(c, m);
      d = D::mul_portable(d, m);
    } else {
      a = a * m;
      b = b * m;
      c = c * m;
      d = d * m;
    }
  }
  data[4 * i] = a;
  data[4 * i + 1] = b;
  data[4 * i + 2] = c;
  data[4 * i + 3] = d;
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
  const uint32_t grid = uint32_t((threads + 255) / 256);
  double ptx = median_ms([&] { mul_chains<P, false><<<grid, 256>>>(d, n); });
  double portable = median_ms([&] { mul_chains<P, true><<<grid, 256>>>(d, n); });
  CHECK(cudaGetLastError());
  double muls = double(n) * kChainLength;
  std::printf("field-mul  %-16s        %10.3f ms  %7.2f Gmul/s  (portable CIOS %.2f Gmul/s: PTX %.2fx)\n",
              name, ptx, muls / ptx / 1e6, muls / portable / 1e6, portable / ptx);
  CHECK(cudaFree(d));
}

template <class P>
void bench_ntt(const char* name, uint32_t max_log) {
  using H = ff::Fp<P>;
  using O = gpu::NttOrder;
  std::mt19937_64 rng(2);
  size_t max_n = size_t(1) << max_log;
  std::vector<H> h(max_n);
  for (auto& v : h) v = H::random(rng);
  gpu::DevFp<P>* d;
  CHECK(cudaMalloc(&d, max_n * sizeof(H)));
  CHECK(cudaMemcpy(d, h.data(), max_n * sizeof(H), cudaMemcpyHostToDevice));
  for (uint32_t log_n = 16; log_n <= max_log; ++log_n) {
    auto plan = gpu::DeviceNtt<P>::create(log_n, H::from_u64(7));
    CHECK_OK(plan);
    double fwd = median_ms([&] { (void)plan->forward(d, O::kNatural, O::kBitReversed, nullptr); });
    double fwd_nat = median_ms([&] { (void)plan->forward(d, nullptr); });
    double inv = median_ms([&] { (void)plan->inverse(d, O::kBitReversed, O::kNatural, nullptr); });
    double coset = median_ms([&] {
      (void)plan->scale_by_coset(d, false, O::kBitReversed, nullptr);
      (void)plan->forward(d, O::kBitReversed, O::kNatural, nullptr);
    });
    double muls = double(size_t(1) << (log_n - 1)) * log_n;
    std::printf("ntt        %-16s 2^%-2u  %10.3f ms  %7.2f Gmul/s  (nat->nat %.3f, inverse %.3f, "
                "coset fwd %.3f ms)\n",
                name, log_n, fwd, muls / fwd / 1e6, fwd_nat, inv, coset);
  }
  CHECK(cudaFree(d));
}

}  // namespace

void run_field_and_ntt(bool quick) {
  bench_mul<ff::bls12_381::FqParams>("bls12_381/Fp");
  bench_mul<ff::bls12_381::FrParams>("bls12_381/Fr");
  bench_mul<ff::bn254::FqParams>("bn254/Fp");
  bench_mul<ff::bn254::FrParams>("bn254/Fr");
  bench_ntt<ff::bls12_381::FrParams>("bls12_381/Fr", quick ? 20 : 27);
  bench_ntt<ff::bn254::FrParams>("bn254/Fr", quick ? 20 : 27);
}

}  // namespace bench

using namespace bench;

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string(argv[1]) == "quick";
  const bool msm_only = argc > 1 && std::string(argv[1]) == "msm";
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("gpu_bench: no GPU\n");
    return 1;
  }
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs, %.1f GiB\n", prop.name, prop.multiProcessorCount,
              double(prop.totalGlobalMem) / (1u << 30));
  if (!msm_only) run_field_and_ntt(quick);
  run_g1(quick, msm_only);
  run_g2(quick, msm_only);
  return 0;
}
