// Shared helpers of the GPU suite (tests/gpu/*.cu): seeds, device buffers, random points.
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include <random>
#include <vector>

#include "ff/bls12_381.h"
#include "ff/bn254.h"
#include "gpu/field_constants.cuh"
#include "gpu/ntt.cuh"
#include "gpu/point.cuh"
#include "gpu/msm.cuh"
#include "gpu/batch_add.cuh"
#include "gpu/arena.cuh"
#include "msm/pippenger.h"
#include "ec/bls12_381.h"
#include "ec/bn254.h"
#include "poly/domain.h"
#include "poly/quotient.h"

namespace snarkd::gpu::testing_support {

inline uint64_t seed() {
  static const uint64_t s = [] {
    if (const char* e = std::getenv("SNARKD_TEST_SEED")) return uint64_t(std::strtoull(e, nullptr, 10));
    return uint64_t(std::random_device{}()) << 32 | std::random_device{}();
  }();
  return s;
}
#define SEED_TRACE() SCOPED_TRACE("replay with SNARKD_TEST_SEED=" + std::to_string(seed()))

inline bool have_gpu() {
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


// Distinct points k0 G, (k0 + q) G, (k0 + 2q) G, ... for random k0, q.
template <class C>
inline std::vector<ec::Affine<C>> random_points(size_t n, std::mt19937_64& rng) {
  auto start = ec::mul_vartime(C::generator(), C::Scalar::random(rng).to_canonical());
  auto step = ec::mul_vartime(C::generator(), C::Scalar::random(rng).to_canonical());
  std::vector<ec::Jacobian<C>> jac(n);
  auto acc = start;
  for (size_t i = 0; i < n; ++i) {
    jac[i] = acc;
    acc = acc.add(step);
  }
  std::vector<ec::Affine<C>> out(n);
  ec::batch_to_affine<C>(jac, out);
  return out;
}

template <class C>
struct DeviceMsmRig {
  DeviceArena arena;
  DeviceMsm<C> plan;
};

template <class C>
DeviceMsmRig<C> make_msm(typename DeviceMsm<C>::Config config) {
  DeviceMsmRig<C> rig;
  auto bytes = DeviceMsm<C>::workspace_bytes(config);
  EXPECT_TRUE(bytes.ok()) << bytes.status().to_string();
  rig.arena = std::move(DeviceArena::create(*bytes).value());
  auto plan = DeviceMsm<C>::create(config, rig.arena);
  EXPECT_TRUE(plan.ok()) << plan.status().to_string();
  rig.plan = std::move(*plan);
  return rig;
}

template <class Int>
inline std::vector<uint32_t> scalar_words(const std::vector<Int>& scalars) {
  std::vector<uint32_t> words(8 * scalars.size());
  std::memcpy(words.data(), scalars.data(), 32 * scalars.size());
  return words;
}


}  // namespace snarkd::gpu::testing_support
