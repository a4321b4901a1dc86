// Shared pieces of the GPU benchmark (bench/gpu_bench*.cu): checks, CUDA-event timing,
// distinct device points and random scalars.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ec/bls12_381.h"
#include "ec/bn254.h"
#include "ff/bls12_381.h"
#include "ff/bn254.h"
#include "gpu/arena.cuh"
#include "gpu/batch_add.cuh"
#include "gpu/field_constants.cuh"
#include "gpu/msm.cuh"
#include "gpu/ntt.cuh"
#include "msm/pippenger.h"

namespace bench {

using namespace snarkd;

#define CHECK(expr)                                                                         \
  do {                                                                                      \
    cudaError_t e_ = (expr);                                                                \
    if (e_ != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s failed: %s\n", #expr, cudaGetErrorString(e_));               \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

#define CHECK_OK(expr)                                                                      \
  do {                                                                                      \
    const auto& s_ = (expr);                                                                     \
    if (!s_.ok()) {                                                                         \
      std::fprintf(stderr, "%s failed: %s\n", #expr, s_.status().to_string().c_str());      \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

inline void check_status(const Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s failed: %s\n", what, s.to_string().c_str());
    std::exit(1);
  }
}

// A plan and the arena it lives in; the caller keeps both for the plan's lifetime.
template <class Plan, class Config>
std::pair<gpu::DeviceArena, Plan> arena_and_plan(const Config& config) {
  auto bytes = Plan::workspace_bytes(config);
  CHECK_OK(bytes);
  auto arena = gpu::DeviceArena::create(*bytes);
  CHECK_OK(arena);
  auto plan = Plan::create(config, *arena);
  CHECK_OK(plan);
  return {std::move(*arena), std::move(*plan)};
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

// out[j m + i] = P_i + R_j in affine form: distinct points (P_i = (k0 + i q) G and R_j =
// (r0 + j q') G with random k0, q, r0, q') from two short host lists.
template <class F>
__global__ void expand_points(const gpu::DevAffine<F>* p, size_t m, const gpu::DevAffine<F>* r,
                              size_t n, gpu::DevAffine<F>* out) {
  size_t idx = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (idx >= n) return;
  out[idx] = gpu::DevXyzz<F>::from_affine(p[idx % m]).add_affine(r[idx / m]).to_affine();
}

template <class C>
std::vector<ec::Affine<C>> progression(size_t n, std::mt19937_64& rng) {
  auto acc = ec::mul_vartime(C::generator(), C::Scalar::random(rng).to_canonical());
  auto step = ec::mul_vartime(C::generator(), C::Scalar::random(rng).to_canonical());
  std::vector<ec::Jacobian<C>> jac(n);
  for (size_t i = 0; i < n; ++i) {
    jac[i] = acc;
    acc = acc.add(step);
  }
  std::vector<ec::Affine<C>> out(n);
  ec::batch_to_affine<C>(jac, out);
  return out;
}

// n distinct device points.
template <class C>
typename gpu::DeviceMsm<C>::Point* distinct_points(size_t n, std::mt19937_64& rng) {
  using M = gpu::DeviceMsm<C>;
  using Point = typename M::Point;
  const size_t m = std::min<size_t>(n, size_t(1) << 16);
  auto p = M::to_device_layout(progression<C>(m, rng));
  auto r = M::to_device_layout(progression<C>((n + m - 1) / m, rng));
  Point *dp, *dr, *out;
  CHECK(cudaMalloc(&dp, p.size() * sizeof(Point)));
  CHECK(cudaMalloc(&dr, r.size() * sizeof(Point)));
  CHECK(cudaMalloc(&out, n * sizeof(Point)));
  CHECK(cudaMemcpy(dp, p.data(), p.size() * sizeof(Point), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dr, r.data(), r.size() * sizeof(Point), cudaMemcpyHostToDevice));
  expand_points<typename M::F><<<uint32_t((n + 127) / 128), 128>>>(dp, m, dr, n, out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaFree(dp));
  CHECK(cudaFree(dr));
  return out;
}

inline uint32_t* random_scalars(size_t n, uint64_t seed, bool bls) {
  // Random 255-bit (BLS12-381 Fr) or 254-bit (BN254 Fr) canonical scalars.
  std::vector<uint32_t> words(8 * n);
  std::mt19937_64 rng(seed);
  for (size_t i = 0; i < n; ++i) {
    if (bls) {
      auto s = ff::bls12_381::Fr::random(rng).to_canonical();
      std::memcpy(&words[8 * i], &s, 32);
    } else {
      auto s = ff::bn254::Fr::random(rng).to_canonical();
      std::memcpy(&words[8 * i], &s, 32);
    }
  }
  uint32_t* d;
  CHECK(cudaMalloc(&d, words.size() * 4));
  CHECK(cudaMemcpy(d, words.data(), words.size() * 4, cudaMemcpyHostToDevice));
  return d;
}

// Base-field multiplications per point operation: a mixed XYZZ addition is about 10, a full one
// 14 (Fp2: x3).
template <class C>
constexpr double kFieldMulScale = sizeof(typename C::Field) > 64 ? 3.0 : 1.0;


// n device points (the (0, 0) encoding of the identity) as host points.
template <class C>
std::vector<ec::Affine<C>> download_points(const typename gpu::DeviceMsm<C>::Point* points, size_t n) {
  struct Raw {
    typename C::Field x, y;
  };
  static_assert(sizeof(Raw) == sizeof(typename gpu::DeviceMsm<C>::Point));
  std::vector<Raw> raw(n);
  CHECK(cudaMemcpy(raw.data(), points, n * sizeof(Raw), cudaMemcpyDeviceToHost));
  std::vector<ec::Affine<C>> out(n);
  for (size_t i = 0; i < n; ++i) {
    const bool identity = raw[i].x.is_zero() && raw[i].y.is_zero();
    out[i] = identity ? ec::Affine<C>::identity() : ec::Affine<C>::from_xy(raw[i].x, raw[i].y);
  }
  return out;
}

// The plan's MSM of the first n bases and scalars against the CPU's (msm::msm): a build variant
// that is fast but wrong stops here. Exits on a mismatch.
template <class C>
inline void check_msm(gpu::DeviceMsm<C>& plan, const typename gpu::DeviceMsm<C>::Point* bases,
                      const uint32_t* scalars, size_t n, const char* name) {
  std::vector<ff::BigInt<4>> host_scalars(n);
  static_assert(sizeof(ff::BigInt<4>) == 32);
  CHECK(cudaMemcpy(host_scalars.data(), scalars, n * 32, cudaMemcpyDeviceToHost));
  const std::vector<ec::Affine<C>> host_bases = download_points<C>(bases, n);
  auto got = plan.run(bases, n, scalars, n, nullptr, nullptr);
  CHECK_OK(got);
  const auto want = msm::msm<C, 4>(host_bases, host_scalars);
  if (!(got->to_affine() == want.to_affine())) {
    std::printf("FAILED: msm %s of 2^%d points differs from the CPU\n", name, std::countr_zero(n));
    std::exit(1);
  }
}

template <class C>
inline void bench_msm(const char* name, const char* group, uint32_t min_log, uint32_t max_log,
               uint32_t precompute_log) {
  using M = gpu::DeviceMsm<C>;
  std::mt19937_64 rng(3);
  const size_t max_n = size_t(1) << max_log;
  auto* bases = distinct_points<C>(max_n, rng);
  const bool bls = std::string(name) == "bls12_381";
  uint32_t* scalars = random_scalars(max_n, 4, bls);
  for (uint32_t log_n = min_log; log_n <= max_log; ++log_n) {
    if (log_n > 20 && log_n % 2 && log_n != max_log) continue;
    const size_t n = size_t(1) << log_n;
    for (uint32_t copies : {1u, 0u}) {
      if (copies == 0 && log_n != precompute_log) continue;
      // copies = 0 here means one precomputed copy per window (a single window to reduce).
      typename M::Config config{n, 0, 1};
      if (copies == 0) {
        config.window_bits = M::choose_window(n, 64);
        config.copies = M::windows_for(config.window_bits);
      }
      auto arena_plan = arena_and_plan<M>(config);
      auto& plan = arena_plan.second;
      if (copies == 1 && log_n == min_log) check_msm<C>(plan, bases, scalars, std::min<size_t>(n, size_t(1) << 16), name);
      typename M::Point* run_bases = bases;
      if (config.copies > 1) {
        CHECK(cudaMalloc(&run_bases, n * config.copies * sizeof(typename M::Point)));
        check_status(plan.precompute(bases, n, run_bases, nullptr), "precompute");
        CHECK(cudaDeviceSynchronize());
      }
      const int runs = log_n >= 26 ? 5 : 7;
      double ms = median_ms([&] { (void)plan.run(run_bases, n, scalars, n, nullptr, nullptr); }, 1, runs);
      gpu::MsmStageTimes st;
      CHECK_OK(plan.run(run_bases, n, scalars, n, nullptr, nullptr, &st));
      const uint32_t q = (st.windows + config.copies - 1) / config.copies;
      double muls = kFieldMulScale<C> * (10.0 * st.windows * double(n) +
                                         28.0 * q * double(1u << (st.window_bits - 1)));
      std::printf("msm-%s     %-16s 2^%-2u  %10.3f ms  %7.2f Gmul/s  (c = %u, %u windows, copies %u; "
                  "digits %.2f sort %.2f accumulate %.2f reduce %.2f, of it after level 1 %.2f)\n",
                  group, name, log_n, ms, muls / ms / 1e6, st.window_bits, st.windows, config.copies,
                  st.digits, st.sort, st.accumulate, st.reduce, st.reduce_top);
      if (run_bases != bases) CHECK(cudaFree(run_bases));
    }
  }
  CHECK(cudaFree(bases));
  CHECK(cudaFree(scalars));
}

// Batch addition from 2^min_log to 2^max_log distinct points, two witnesses each: every scalar
// 1 (each base is added), and random bits (each scalar 0 or 1 with probability 1/2, as in a
// Groth16 witness of bits), plus the classification and the compaction.
// Precomputed copies (BaseCopies) at one size, against the plain bases in the same process:
// for k copies the window copies_for picks, then a fixed c = 20; the precomputation's time too.
// Each result must equal the first plain run's (exits otherwise); the plain case runs first and
// last, so drift over the run shows.
template <class C>
inline void bench_copies(const char* name, const char* group, uint32_t log_n) {
  using M = gpu::DeviceMsm<C>;
  std::mt19937_64 rng(3);
  const size_t n = size_t(1) << log_n;
  auto* bases = distinct_points<C>(n, rng);
  uint32_t* scalars = random_scalars(n, 4, std::string(name) == "bls12_381");
  std::optional<ec::Affine<C>> plain;
  struct Case {
    uint32_t copies, window;
  };
  for (Case cs :
       {Case{1, 0}, Case{2, 0}, Case{3, 0}, Case{4, 0}, Case{2, 20}, Case{4, 20}, Case{1, 0}}) {
    typename M::Config config{n, cs.window, cs.copies};
    auto arena_plan = arena_and_plan<M>(config);
    auto& plan = arena_plan.second;
    typename M::Point* run_bases = bases;
    float precompute_ms = 0;
    if (cs.copies > 1) {
      CHECK(cudaMalloc(&run_bases, n * cs.copies * sizeof(typename M::Point)));
      cudaEvent_t e0, e1;
      CHECK(cudaEventCreate(&e0));
      CHECK(cudaEventCreate(&e1));
      CHECK(cudaEventRecord(e0));
      check_status(plan.precompute(bases, n, run_bases, nullptr), "precompute");
      CHECK(cudaEventRecord(e1));
      CHECK(cudaEventSynchronize(e1));
      CHECK(cudaEventElapsedTime(&precompute_ms, e0, e1));
      CHECK(cudaEventDestroy(e0));
      CHECK(cudaEventDestroy(e1));
    }
    auto got = plan.run(run_bases, n, scalars, n, nullptr, nullptr);
    CHECK_OK(got);
    if (!plain) plain = got->to_affine();
    if (!(got->to_affine() == *plain)) {
      std::printf("FAILED: msm %s %s with %u copies differs from the plain bases\n", group, name,
                  cs.copies);
      std::exit(1);
    }
    double ms =
        median_ms([&] { (void)plan.run(run_bases, n, scalars, n, nullptr, nullptr); }, 1, 5);
    gpu::MsmStageTimes st;
    CHECK_OK(plan.run(run_bases, n, scalars, n, nullptr, nullptr, &st));
    std::printf(
        "copies-%s    %-16s 2^%-2u  copies %u  c = %2u (%2u windows, %2u bucket sets)  %9.3f ms  "
        "(sort %.2f accumulate %.2f reduce %.2f)  precompute %.1f ms, bases %.2f GiB\n",
        group, name, log_n, cs.copies, st.window_bits, st.windows,
        (st.windows + cs.copies - 1) / cs.copies, ms, st.digits + st.sort, st.accumulate, st.reduce,
        precompute_ms, double(n) * cs.copies * sizeof(typename M::Point) / double(1u << 30));
    if (run_bases != bases) CHECK(cudaFree(run_bases));
  }
  CHECK(cudaFree(bases));
  CHECK(cudaFree(scalars));
}

template <class C>
inline void bench_batch_add(const char* name, uint32_t min_log, uint32_t max_log) {
  using B = gpu::DeviceBatchAdd<C>;
  std::mt19937_64 rng(5);
  const size_t max_n = size_t(1) << max_log;
  auto* bases = distinct_points<C>(max_n, rng);
  uint32_t* scalars;
  CHECK(cudaMalloc(&scalars, 8 * max_n * 4));
  for (const bool bits : {false, true}) {
    std::vector<uint32_t> words(8 * max_n, 0);
    for (size_t i = 0; i < max_n; ++i) words[8 * i] = bits ? uint32_t(rng() & 1) : 1;
    CHECK(cudaMemcpy(scalars, words.data(), words.size() * 4, cudaMemcpyHostToDevice));
    for (uint32_t log_n = min_log; log_n <= max_log; log_n += 2) {
      const size_t n = size_t(1) << log_n;
      auto arena_plan = arena_and_plan<B>(n);
      auto& plan = arena_plan.second;
      double ms = median_ms([&] { (void)plan.launch(bases, scalars, n, nullptr); }, 1, 7);
      auto outcome = plan.finish(nullptr);
      CHECK_OK(outcome);
      double muls = kFieldMulScale<C> * 10.0 * double(outcome->ones);
      std::printf("batch-add  %-16s 2^%-2u  %10.3f ms  %7.2f Gmul/s  (%s: %zu ones)\n", name, log_n,
                  ms, muls / ms / 1e6, bits ? "random bits" : "all scalars 1", outcome->ones);
    }
  }
  CHECK(cudaFree(bases));
  CHECK(cudaFree(scalars));
}

void run_field_and_ntt(bool quick);
// msm_only: the MSMs from 2^20 to 2^24, nothing else (a short run comparing MSM versions).
void run_g1(bool quick, bool msm_only);
void run_g2(bool quick, bool msm_only);
// Batch additions only, 2^22 and 2^24 (G2) or 2^26 (G1).
void run_batch_g1();
void run_copies_g1(uint32_t log_n);
void run_copies_g2(uint32_t log_n);
void run_batch_g2();
// NTTs of 2^log only, both scalar fields.
void run_ntt(uint32_t log);
// Batch-affine against XYZZ addition rates (G1, 2^26 additions).
void run_affine();

}  // namespace bench
