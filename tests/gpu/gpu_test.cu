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
#include "gpu/point.cuh"
#include "gpu/msm.cuh"
#include "msm/pippenger.h"
#include "ec/bls12_381.h"
#include "ec/bn254.h"
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

// XYZZ point arithmetic on the device against ec::Xyzz on the CPU: sums of chains of mixed
// additions (with repeated points, inverses and identities) and doublings.
template <class P>
__global__ void point_chains(const DevAffine<P>* pts, DevXyzz<P>* out, size_t n, int len) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  DevXyzz<P> acc = DevXyzz<P>::identity();
  for (int k = 0; k < len; ++k) acc = acc.add_affine(pts[(i + k) % n]);
  DevXyzz<P> twice = acc.add(acc);
  out[2 * i] = twice.dbl();
  out[2 * i + 1] = acc.add(DevXyzz<P>::identity());
}

template <class C>
class GpuPointTest : public ::testing::Test {};
using Groups = ::testing::Types<ec::bls12_381::G1, ec::bn254::G1>;
TYPED_TEST_SUITE(GpuPointTest, Groups);

TYPED_TEST(GpuPointTest, MatchesCpu) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  using C = TypeParam;
  using P = typename C::Field::Params;
  using H = typename C::Field;
  SEED_TRACE();
  std::mt19937_64 rng(seed() + 3);
  const size_t n = 4096;
  const int len = 5;
  std::vector<ec::Affine<C>> pts(n);
  for (size_t i = 0; i < n; ++i) {
    pts[i] = ec::mul_vartime(C::generator(), C::Scalar::random(rng).to_canonical()).to_affine();
  }
  pts[7] = pts[6];             // doubling inside a chain
  pts[11] = pts[10].neg();     // inverse: the chain passes through the identity
  pts[20] = ec::Affine<C>::identity();
  struct Raw {
    H x, y;
  };
  std::vector<Raw> raw(n);
  for (size_t i = 0; i < n; ++i) {
    raw[i] = pts[i].infinity ? Raw{H::zero(), H::zero()} : Raw{pts[i].x, pts[i].y};
  }
  DeviceBuffer<DevAffine<P>> dpts(n);
  dpts.upload(raw);
  DeviceBuffer<DevXyzz<P>> dout(2 * n);
  point_chains<P><<<uint32_t((n + 127) / 128), 128>>>(dpts.ptr, dout.ptr, n, len);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  auto got = dout.template download<ec::Xyzz<C>>();
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    ec::Xyzz<C> acc = ec::Xyzz<C>::identity();
    for (int k = 0; k < len; ++k) acc = acc.add_mixed(pts[(i + k) % n]);
    auto want_twice_dbl = acc.add(acc).dbl().to_affine();
    bad += !(got[2 * i].to_affine() == want_twice_dbl);
    bad += !(got[2 * i + 1].to_affine() == acc.to_affine());
  }
  EXPECT_EQ(bad, 0u);
}

template <class C>
std::vector<DevAffine<typename C::Field::Params>> to_device_layout(
    const std::vector<ec::Affine<C>>& pts) {
  using H = typename C::Field;
  struct Raw {
    H x, y;
  };
  std::vector<DevAffine<typename C::Field::Params>> out(pts.size());
  for (size_t i = 0; i < pts.size(); ++i) {
    Raw r = pts[i].infinity ? Raw{H::zero(), H::zero()} : Raw{pts[i].x, pts[i].y};
    std::memcpy(&out[i], &r, sizeof(r));
  }
  return out;
}

template <class C>
class GpuMsmTest : public ::testing::Test {};
TYPED_TEST_SUITE(GpuMsmTest, Groups);

TYPED_TEST(GpuMsmTest, MatchesCpuPippenger) {
  if (!have_gpu()) GTEST_SKIP() << "no GPU";
  using C = TypeParam;
  using P = typename C::Field::Params;
  using Int = typename C::Scalar::Int;
  SEED_TRACE();
  std::mt19937_64 rng(seed() + 4);
  for (size_t n : {1u, 2u, 3u, 17u, 100u, 1000u, 5000u}) {
    for (uint32_t c : {4u, 9u, 0u}) {
      std::vector<ec::Affine<C>> pts(n);
      std::vector<Int> scalars(n);
      for (size_t i = 0; i < n; ++i) {
        pts[i] = ec::mul_vartime(C::generator(), C::Scalar::random(rng).to_canonical()).to_affine();
        switch (rng() % 6) {
          case 0: scalars[i] = Int{}; break;
          case 1: scalars[i] = Int::from_u64(1); break;
          case 2: scalars[i] = C::Scalar::kModulus - Int::from_u64(1); break;
          default: scalars[i] = C::Scalar::random(rng).to_canonical();
        }
      }
      if (n > 3) {
        pts[2] = pts[1];  // repeated point
        pts[3] = ec::Affine<C>::identity();
      }
      auto plan = DeviceMsm<C>::create(n, c);
      ASSERT_TRUE(plan.ok()) << plan.status().to_string();
      DeviceBuffer<DevAffine<P>> dbases(n);
      dbases.upload(to_device_layout(pts));
      DeviceBuffer<uint32_t> dscalars(8 * n);
      std::vector<uint32_t> words(8 * n);
      std::memcpy(words.data(), scalars.data(), 32 * n);
      dscalars.upload(words);
      auto got = plan->run(dbases.ptr, dscalars.ptr, n, nullptr);
      ASSERT_TRUE(got.ok()) << got.status().to_string();
      auto want = msm::msm<C>(std::span<const ec::Affine<C>>(pts), std::span<const Int>(scalars));
      EXPECT_TRUE(*got == want) << "n = " << n << ", c = " << plan->window_bits();
    }
  }
}

}  // namespace
}  // namespace snarkd::gpu
