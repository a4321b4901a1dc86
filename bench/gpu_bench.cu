// GPU kernel benchmarks (run on the GPU machine by scripts/gpu-check.sh): field multiplication,
// NTT, G1/G2 MSM and batch addition for BLS12-381 and BN254. Data resident on the device, CUDA
// events on one stream, median of >= 5 runs after warm-up. No Google Benchmark: the GPU machine
// lacks its library, so this is a static binary.
//
// Usage: gpu_bench [quick|msm|msm24 [g1|g2]|copies [g1|g2|all] [LOG]|field|batch|ntt LOG|affine]
// (quick: smaller sizes, for a smoke run; msm: MSMs 2^20..2^24 only; msm24: MSMs at 2^24 only;
// copies: precomputed copies of the bases against plain ones, 2^LOG (24); field: the multiplication
// forms only, with the FP64-pipe product beside them; batch: batch additions only; ntt LOG: the
// NTTs of 2^LOG only; affine: batch-affine against XYZZ addition rates, G1, and XYZZ over the
// FP64-pipe field) Each result line: kind, curve/field, size, median ms, and Gmul/s (field
// multiplications per second: measured for field-mul, from the operation count for
// NTT/MSM/batch-add).
#include "gpu/fp64_mont.h"
#include "gpu_bench_common.cuh"

namespace bench {
namespace {

constexpr int kChainLength = 512;


enum class MulVariant { kRows, kSplit, kPortable };

template <MulVariant kForm, class D>
__device__ __forceinline__ D mul_form(const D& a, const D& b) {
  if constexpr (kForm == MulVariant::kRows) return D::mul_rows(a, b);
  if constexpr (kForm == MulVariant::kSplit) return D::mul_split(a, b);
  return D::mul_portable(a, b);
}

// kChains independent multiplication chains per thread: 4 chains measure throughput (latency
// hidden by ILP and occupancy); 1 chain in 64-thread blocks measures a dependent sequence, as in
// MSM accumulation, where each product waits for the last.
template <class P, MulVariant kForm, int kChains>
__global__ void mul_chains(gpu::DevFp<P>* data, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (kChains * i + kChains - 1 >= n) return;
  gpu::DevFp<P> x[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = data[kChains * i + c];
  auto m = x[0];
  for (int k = 0; k < kChainLength; ++k) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) x[c] = mul_form<kForm>(x[c], m);
  }
#pragma unroll
  for (int c = 0; c < kChains; ++c) data[kChains * i + c] = x[c];
}

template <class P>
__global__ void compare_forms(const gpu::DevFp<P>* data, size_t n, unsigned long long* mismatches) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i + 1 >= n) return;
  using D = gpu::DevFp<P>;
  D a = data[i], b = data[i + 1];
  D x = D::mul_rows(a, b), y = D::mul_split(a, b), z = D::mul_portable(a, b);
  if (!(x == y) || !(x == z)) atomicAdd(mismatches, 1ull);
}

template <class P>
void bench_mul(const char* name) {
  using H = ff::Fp<P>;
  const size_t n = size_t(1) << 22;  // 2^20 threads x 4 chains
  std::mt19937_64 rng(1);
  std::vector<H> h(n);
  for (auto& v : h) v = H::random(rng);
  // Edge values the chains' carries must survive.
  h[0] = H::zero();
  h[1] = H::one();
  h[2] = H::zero() - H::one();
  h[3] = H::zero() - H::one();
  gpu::DevFp<P>* d;
  unsigned long long* bad;
  CHECK(cudaMalloc(&d, n * sizeof(H)));
  CHECK(cudaMalloc(&bad, sizeof(unsigned long long)));
  CHECK(cudaMemcpy(d, h.data(), n * sizeof(H), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(bad, 0, sizeof(unsigned long long)));
  compare_forms<P><<<uint32_t((n + 255) / 256), 256>>>(d, n, bad);
  unsigned long long mismatches = 0;
  CHECK(cudaMemcpy(&mismatches, bad, sizeof(mismatches), cudaMemcpyDeviceToHost));
  const uint32_t grid4 = uint32_t((n / 4 + 255) / 256);
  const uint32_t grid1 = uint32_t((n / 16 + 63) / 64);  // 2^18 threads, one chain each
  using F = MulVariant;
  double rows = median_ms([&] { mul_chains<P, F::kRows, 4><<<grid4, 256>>>(d, n); });
  double split = median_ms([&] { mul_chains<P, F::kSplit, 4><<<grid4, 256>>>(d, n); });
  double portable = median_ms([&] { mul_chains<P, F::kPortable, 4><<<grid4, 256>>>(d, n); });
  double rows1 = median_ms([&] { mul_chains<P, F::kRows, 1><<<grid1, 64>>>(d, n / 16); });
  double split1 = median_ms([&] { mul_chains<P, F::kSplit, 1><<<grid1, 64>>>(d, n / 16); });
  CHECK(cudaGetLastError());
  double muls = double(n) * kChainLength, muls1 = double(n / 16) * kChainLength;
  std::printf("field-mul  %-16s        %10.3f ms  %7.2f Gmul/s  (4 chains: rows %.2f, split %.2f, "
              "portable %.2f Gmul/s; 1 chain: rows %.2f, split %.2f Gmul/s; forms agree: %s)\n",
              name, rows, muls / rows / 1e6, muls / rows / 1e6, muls / split / 1e6, muls / portable / 1e6, muls1 / rows1 / 1e6, muls1 / split1 / 1e6,
              mismatches == 0 ? "yes" : "NO");
  if (mismatches) std::printf("FAILED: %llu products differ between the forms\n", mismatches);
  CHECK(cudaFree(d));
  CHECK(cudaFree(bad));
}

// The FP64-pipe product (src/gpu/fp64_mont.h): N limbs of L bits, each a double.
template <int N>
struct Fp64Limbs {
  double v[N];
};

// The same chains as mul_chains, on the FP64 form. The modulus is a kernel parameter, so its
// limbs are constant-bank operands.
template <int N, int L, gpu::fp64::Fp64Form kForm, int kChains>
__global__ void fp64_chains(Fp64Limbs<N>* data, size_t n, const gpu::fp64::Modulus<N, L> mod) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (kChains * i + kChains - 1 >= n) return;
  Fp64Limbs<N> x[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = data[kChains * i + c];
  const auto m = x[0];
  for (int k = 0; k < kChainLength; ++k) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) gpu::fp64::mont_mul<N, L, kForm>(x[c].v, m.v, x[c].v, mod);
  }
#pragma unroll
  for (int c = 0; c < kChains; ++c) data[kChains * i + c] = x[c];
}

template <int N, int L, gpu::fp64::Fp64Form kForm>
__global__ void fp64_products(const Fp64Limbs<N>* data, size_t n,
                              const gpu::fp64::Modulus<N, L> mod, Fp64Limbs<N>* out) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i + 1 >= n) return;
  gpu::fp64::mont_mul<N, L, kForm>(data[i].v, data[i + 1].v, out[i].v, mod);
}

// One form's device products against the host's (the same code, tested against GMP), then its
// chains' throughput beside the integer wide product's, timed once per field in this process.
template <class P, int N, int L, gpu::fp64::Fp64Form kForm>
void time_fp64_form(const char* name, Fp64Limbs<N>* d, Fp64Limbs<N>* out,
                    const std::vector<Fp64Limbs<N>>& limbs, double int4, double int1) {
  using Limbs = Fp64Limbs<N>;
  constexpr auto mod = gpu::fp64::make_modulus<P, N, L>();
  const size_t n = limbs.size();
  const size_t checked = size_t(1) << 16;
  fp64_products<N, L, kForm><<<uint32_t((checked + 255) / 256), 256>>>(d, checked, mod, out);
  std::vector<Limbs> got(checked);
  CHECK(cudaMemcpy(got.data(), out, checked * sizeof(Limbs), cudaMemcpyDeviceToHost));
  size_t mismatches = 0;
  for (size_t i = 0; i + 1 < checked; ++i) {
    Limbs want;
    gpu::fp64::mont_mul<N, L, kForm>(limbs[i].v, limbs[i + 1].v, want.v, mod);
    if (std::memcmp(&want, &got[i], sizeof(Limbs)) != 0) ++mismatches;
  }
  const uint32_t grid4 = uint32_t((n / 4 + 255) / 256);
  const uint32_t grid1 = uint32_t((n / 16 + 63) / 64);
  const double fp4 = median_ms([&] { fp64_chains<N, L, kForm, 4><<<grid4, 256>>>(d, n, mod); });
  const double fp1 =
      median_ms([&] { fp64_chains<N, L, kForm, 1><<<grid1, 64>>>(d, n / 16, mod); });
  CHECK(cudaGetLastError());
  // The chains wrote over d: the next form starts from the same values.
  CHECK(cudaMemcpy(d, limbs.data(), n * sizeof(Limbs), cudaMemcpyHostToDevice));
  const double muls = double(n) * kChainLength, muls1 = double(n / 16) * kChainLength;
  std::printf(
      "field-fp64 %-14s %dx%d %-16s %9.3f ms  %7.2f Gmul/s  (integer wide %.2f: %.2fx; "
      "1 chain: fp64 %.2f, integer %.2f Gmul/s; device = host on %zu products: %s)\n",
      name, N, L, gpu::fp64::form_name(kForm), fp4, muls / fp4 / 1e6, muls / int4 / 1e6, int4 / fp4,
      muls1 / fp1 / 1e6, muls1 / int1 / 1e6, checked - 1, mismatches == 0 ? "yes" : "NO");
  if (mismatches) std::printf("FAILED: %zu FP64 products differ from the host's\n", mismatches);
}

// The FP64 forms of one field on the same 2^22 values, each beside the integer wide product.
template <class P, int N, int L, gpu::fp64::Fp64Form... kForms>
void bench_fp64_mul(const char* name) {
  using H = ff::Fp<P>;
  using Limbs = Fp64Limbs<N>;
  const size_t n = size_t(1) << 22;
  std::mt19937_64 rng(3);
  std::vector<H> h(n);
  for (auto& v : h) v = H::random(rng);
  h[0] = H::zero();
  h[1] = H::zero() - H::one();
  h[2] = H::zero() - H::one();
  std::vector<Limbs> limbs(n);
  for (size_t i = 0; i < n; ++i) gpu::fp64::to_limbs<N, L>(h[i].montgomery().limbs, limbs[i].v);
  Limbs *d, *out;
  gpu::DevFp<P>* d_int;
  CHECK(cudaMalloc(&d, n * sizeof(Limbs)));
  CHECK(cudaMalloc(&out, n * sizeof(Limbs)));
  CHECK(cudaMalloc(&d_int, n * sizeof(H)));
  CHECK(cudaMemcpy(d, limbs.data(), n * sizeof(Limbs), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_int, h.data(), n * sizeof(H), cudaMemcpyHostToDevice));
  const uint32_t grid4 = uint32_t((n / 4 + 255) / 256);
  const uint32_t grid1 = uint32_t((n / 16 + 63) / 64);
  const double int4 =
      median_ms([&] { mul_chains<P, MulVariant::kPortable, 4><<<grid4, 256>>>(d_int, n); });
  const double int1 =
      median_ms([&] { mul_chains<P, MulVariant::kPortable, 1><<<grid1, 64>>>(d_int, n / 16); });
  CHECK(cudaGetLastError());
  (time_fp64_form<P, N, L, kForms>(name, d, out, limbs, int4, int1), ...);
  CHECK(cudaFree(d));
  CHECK(cudaFree(out));
  CHECK(cudaFree(d_int));
}

template <class P>
void bench_ntt(const char* name, uint32_t min_log, uint32_t max_log) {
  using H = ff::Fp<P>;
  using O = gpu::NttOrder;
  std::mt19937_64 rng(2);
  size_t max_n = size_t(1) << max_log;
  std::vector<H> h(max_n);
  for (auto& v : h) v = H::random(rng);
  gpu::DevFp<P>* d;
  CHECK(cudaMalloc(&d, max_n * sizeof(H)));
  CHECK(cudaMemcpy(d, h.data(), max_n * sizeof(H), cudaMemcpyHostToDevice));
  for (uint32_t log_n = min_log; log_n <= max_log; ++log_n) {
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

void run_field_muls() {
  bench_mul<ff::bls12_381::FqParams>("bls12_381/Fp");
  bench_mul<ff::bls12_381::FrParams>("bls12_381/Fr");
  bench_mul<ff::bn254::FqParams>("bn254/Fp");
  bench_mul<ff::bn254::FrParams>("bn254/Fr");
  using gpu::fp64::Fp64Form;
  bench_fp64_mul<ff::bls12_381::FqParams, 8, 48, Fp64Form::kIntegerSums, Fp64Form::kFloatLows,
                 Fp64Form::kMixedLows, Fp64Form::kChainedFloat, Fp64Form::kChainedMixed,
                 Fp64Form::kChainedIntegerLows>("bls12_381/Fp");
  bench_fp64_mul<ff::bls12_381::FrParams, 5, 51, Fp64Form::kIntegerSums>("bls12_381/Fr");
  bench_fp64_mul<ff::bn254::FqParams, 5, 51, Fp64Form::kIntegerSums>("bn254/Fp");
}

void run_field_and_ntt(bool quick) {
  run_field_muls();
  bench_ntt<ff::bls12_381::FrParams>("bls12_381/Fr", 16, quick ? 20 : 27);
  bench_ntt<ff::bn254::FrParams>("bn254/Fr", 16, quick ? 20 : 27);
}

void run_ntt(uint32_t log) {
  bench_ntt<ff::bls12_381::FrParams>("bls12_381/Fr", log, log);
  bench_ntt<ff::bn254::FrParams>("bn254/Fr", log, log);
}

}  // namespace bench

using namespace bench;

int main(int argc, char** argv) {
  const bool msm24 = argc > 1 && std::string(argv[1]) == "msm24";
  const bool quick = msm24 || (argc > 1 && std::string(argv[1]) == "quick");
  const bool msm_only = msm24 || (argc > 1 && std::string(argv[1]) == "msm");
  const bool field_only = argc > 1 && std::string(argv[1]) == "field";
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("gpu_bench: no GPU\n");
    return 1;
  }
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs, %.1f GiB\n", prop.name, prop.multiProcessorCount,
              double(prop.totalGlobalMem) / (1u << 30));
  if (field_only) {
    run_field_muls();
    return 0;
  }
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "batch") {
    run_batch_g1();
    run_batch_g2();
    return 0;
  }
  if (mode == "copies") {  // copies [g1|g2] [LOG]: precomputed copies against the plain bases
    const std::string which = argc > 2 ? argv[2] : "";
    const int log = argc > 3 ? std::atoi(argv[3]) : 24;
    if (log < 10 || log > 26) {
      std::printf("gpu_bench copies: LOG must be 10..26\n");
      return 2;
    }
    if (which != "g2") run_copies_g1(uint32_t(log));
    if (which != "g1") run_copies_g2(uint32_t(log));
    return 0;
  }
  if (mode == "affine") {
    run_affine();
    return 0;
  }
  if (mode == "ntt") {
    const int log = argc > 2 ? std::atoi(argv[2]) : 0;
    if (log < 1 || log > 28) {
      std::printf("gpu_bench ntt LOG: LOG must be 1..28\n");
      return 2;
    }
    run_ntt(uint32_t(log));
    return 0;
  }
  // `msm24 g1` / `msm24 g2` time one group (variant builds that change only one group's kernels).
  const std::string group = msm24 && argc > 2 ? argv[2] : "";
  if (!msm_only) run_field_and_ntt(quick);
  if (group != "g2") run_g1(quick, msm_only);
  if (group != "g1") run_g2(quick, msm_only);
  return 0;
}
