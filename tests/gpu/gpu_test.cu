// GPU suite (run on the GPU machine by scripts/gpu-check.sh, not in CI): every kernel against
// the CPU code on fresh random inputs, including edge values.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ff/bls12_381.h"
#include "ff/bn254.h"
#include "gpu/field_constants.cuh"
#include "gpu/ntt.cuh"
#include "poly/domain.h"
#include "poly/quotient.h"

namespace snarkd::gpu {
namespace {

uint64_t seed() {
  static const uint64_t s = [] {
    if (const char* e = std::getenv("SNARKD_TEST_SEED")) return uint64_t(std::strtoull(e, nullptr, 10));
    return uint64_t(std::random_device{}()) << 32 | std::random_device{}();
  }();
  return s;
}
#define SEED_TRACE() SCOPED_TRACE("replay with SNARKD_TEST_SEED=" + std::to_string(seed()))

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

template <class T>
struct DeviceBuffer {
  T* ptr = nullptr;
  size_t n = 0;
  explicit DeviceBuffer(size_t count) : n(count) {
    EXPECT_EQ(cudaMalloc(&ptr, std::max<size_t>(1, n) * sizeof(T)), cudaSuccess);
  }
  ~DeviceBuffer() { cudaFree(ptr); }
  template <class H>
  void upload(const std::vector<H>& h) {
    static_assert(sizeof(H) == sizeof(T));
    ASSERT_EQ(cudaMemcpy(ptr, h.data(), n * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  template <class H>
  std::vector<H> download() const {
    std::vector<H> h(n);
    EXPECT_EQ(cudaMemcpy(h.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }
};

template <class P>
__global__ void field_ops(const DevFp<P>* a, const DevFp<P>* b, DevFp<P>* mul, DevFp<P>* add,
                          DevFp<P>* sub, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  mul[i] = a[i] * b[i];
  add[i] = a[i] + b[i];
  sub[i] = a[i] - b[i];
}

template <class P>
class GpuFieldTest : public ::testing::Test {};
using Params = ::testing::Types<ff::bls12_381::FqParams, ff::bls12_381::FrParams,
                                ff::bn254::FqParams, ff::bn254::FrParams>;
TYPED_TEST_SUITE(GpuFieldTest, Params);

TYPED_TEST(GpuFieldTest, MatchesCpu) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  using H = ff::Fp<TypeParam>;
  using D = DevFp<TypeParam>;
  SEED_TRACE();
  std::mt19937_64 rng(seed());
  const size_t n = 1 << 20;
  std::vector<H> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = H::random(rng);
    b[i] = H::random(rng);
  }
  // Edge values: 0, 1, p-1, and equal operands.
  a[0] = H::zero();
  b[1] = H::one();
  a[2] = -H::one();
  b[2] = -H::one();
  a[3] = b[3];
  DeviceBuffer<D> da(n), db(n), dm(n), dadd(n), dsub(n);
  da.upload(a);
  db.upload(b);
  field_ops<TypeParam><<<uint32_t((n + 255) / 256), 256>>>(da.ptr, db.ptr, dm.ptr, dadd.ptr, dsub.ptr, n);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  auto m = dm.template download<H>();
  auto s = dadd.template download<H>();
  auto d = dsub.template download<H>();
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    bad += !(m[i] == a[i] * b[i]) + !(s[i] == a[i] + b[i]) + !(d[i] == a[i] - b[i]);
  }
  EXPECT_EQ(bad, 0u);
}

template <class P>
class GpuNttTest : public ::testing::Test {};
using ScalarParams = ::testing::Types<ff::bls12_381::FrParams, ff::bn254::FrParams>;
TYPED_TEST_SUITE(GpuNttTest, ScalarParams);

TYPED_TEST(GpuNttTest, ForwardAndInverseMatchCpu) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  using H = ff::Fp<TypeParam>;
  using D = DevFp<TypeParam>;
  SEED_TRACE();
  std::mt19937_64 rng(seed() + 1);
  for (uint32_t log_n : {0u, 1u, 2u, 3u, 5u, 8u, 11u, 16u, 20u}) {
    auto plan = DeviceNtt<TypeParam>::create(log_n);
    ASSERT_TRUE(plan.ok()) << plan.status().to_string();
    auto domain = *poly::Domain<H>::create(log_n);
    const size_t n = domain.size();
    std::vector<H> x(n);
    for (auto& v : x) v = H::random(rng);
    DeviceBuffer<D> buf(n);
    buf.upload(x);
    ASSERT_TRUE(plan->forward(buf.ptr, nullptr).ok());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    auto gpu = buf.template download<H>();
    auto cpu = x;
    domain.ntt(cpu);
    EXPECT_TRUE(gpu == cpu) << "forward, n = 2^" << log_n;
    ASSERT_TRUE(plan->inverse(buf.ptr, nullptr).ok());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_TRUE(buf.template download<H>() == x) << "inverse, n = 2^" << log_n;
    // Coset forward against the CPU.
    H shift = H::random(rng);
    ASSERT_TRUE(plan->coset_forward(buf.ptr, shift, nullptr).ok());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    auto cpu_coset = x;
    domain.coset_ntt(cpu_coset, shift);
    EXPECT_TRUE(buf.template download<H>() == cpu_coset) << "coset, n = 2^" << log_n;
  }
}

// The quotient step on the device: both conventions' NTT passes and a*b - c, against the CPU.
TYPED_TEST(GpuNttTest, SnarkjsQuotientMatchesCpu) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  using H = ff::Fp<TypeParam>;
  using D = DevFp<TypeParam>;
  SEED_TRACE();
  std::mt19937_64 rng(seed() + 2);
  for (uint32_t log_n : {4u, 12u, 18u}) {
    auto plan = std::move(DeviceNtt<TypeParam>::create(log_n).value());
    auto domain = *poly::Domain<H>::create(log_n);
    size_t n = domain.size();
    std::vector<H> a(n), b(n), c(n);
    for (size_t i = 0; i < n; ++i) {
      a[i] = H::random(rng);
      b[i] = H::random(rng);
      c[i] = a[i] * b[i];
    }
    DeviceBuffer<D> da(n), db(n), dc(n);
    da.upload(a);
    db.upload(b);
    dc.upload(c);
    H shift = poly::root_of_unity<H>(log_n + 1);
    D* buffers[3] = {da.ptr, db.ptr, dc.ptr};
    for (D* p : buffers) {
      ASSERT_TRUE(plan.inverse(p, nullptr).ok());
      ASSERT_TRUE(plan.coset_forward(p, shift, nullptr).ok());
    }
    ASSERT_TRUE(plan.mul_sub(da.ptr, db.ptr, dc.ptr, nullptr).ok());
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    poly::compute_quotient<H>(domain, poly::QuotientConvention::kSnarkjsOddCoset, a, b, c);
    EXPECT_TRUE(da.template download<H>() == a) << "n = 2^" << log_n;
  }
}

}  // namespace
}  // namespace snarkd::gpu
