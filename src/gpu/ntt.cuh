// snarkd/gpu: radix-2 NTT on the device for the scalar fields.
//
// DeviceNtt<P> is a plan for one domain: it uploads the twiddles w^k and w^-k (k < n/2) once, at
// creation (the only allocation), and then transforms device buffers in place, ordered on the
// caller's stream: no allocation, no synchronization, no device-wide call. Natural order in and
// out. This first version runs one kernel per butterfly stage over global memory (log n passes);
// the baseline that shared-memory radix kernels are measured against (docs/perf.md).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "gpu/cuda_check.cuh"
#include "gpu/field.cuh"
#include "poly/domain.h"

namespace snarkd::gpu {

namespace kernels {

template <class F>
__global__ void bit_reverse(F* data, uint32_t log_n) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (1u << log_n)) return;
  uint32_t j = log_n ? __brev(i) >> (32 - log_n) : 0;
  if (i < j) {
    F t = data[i];
    data[i] = data[j];
    data[j] = t;
  }
}

// One decimation-in-time stage: butterflies of span 2^s, twiddle w^(j * n / 2^(s+1)).
template <class F>
__global__ void butterfly_stage(F* data, const F* twiddles, uint32_t log_n, uint32_t s) {
  uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= (1u << (log_n - 1))) return;
  uint32_t half = 1u << s;
  uint32_t j = b & (half - 1);
  uint32_t i = ((b >> s) << (s + 1)) | j;
  F w = twiddles[j << (log_n - 1 - s)];
  F u = data[i];
  F v = data[i + half] * w;
  data[i] = u + v;
  data[i + half] = u - v;
}

// The first `stages` stages after bit reversal stay inside blocks of 2^stages elements: one
// thread block loads its block into shared memory, runs them all, and writes back once.
template <class F>
__global__ void local_stages(F* data, const F* twiddles, uint32_t log_n, uint32_t stages) {
  extern __shared__ unsigned char smem_raw[];
  F* smem = reinterpret_cast<F*>(smem_raw);
  const uint32_t block_size = 1u << stages;
  F* base = data + size_t(blockIdx.x) * block_size;
  for (uint32_t i = threadIdx.x; i < block_size; i += blockDim.x) smem[i] = base[i];
  __syncthreads();
  for (uint32_t s = 0; s < stages; ++s) {
    uint32_t half = 1u << s;
    for (uint32_t b = threadIdx.x; b < block_size / 2; b += blockDim.x) {
      uint32_t j = b & (half - 1);
      uint32_t i = ((b >> s) << (s + 1)) | j;
      F w = twiddles[j << (log_n - 1 - s)];
      F u = smem[i];
      F v = smem[i + half] * w;
      smem[i] = u + v;
      smem[i + half] = u - v;
    }
    __syncthreads();
  }
  for (uint32_t i = threadIdx.x; i < block_size; i += blockDim.x) base[i] = smem[i];
}

// values[i] *= g^i: each thread raises g to its own index by square-and-multiply (about 2 log n
// multiplications per element; a precomputed power table is the cheaper form, not yet done).
template <class F>
__global__ void scale_by_powers(F* data, F g, uint32_t n) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  F p = F::one(), base = g;
  for (uint32_t e = i; e; e >>= 1) {
    if (e & 1) p = p * base;
    base = base * base;
  }
  data[i] = data[i] * p;
}

// a[i] = a[i] * b[i] - c[i]: the quotient's pointwise step.
template <class F>
__global__ void mul_sub(F* a, const F* b, const F* c, uint32_t n) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] * b[i] - c[i];
}

template <class F>
__global__ void scale(F* data, F c, uint32_t n) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * c;
}

}  // namespace kernels

template <class P>
class DeviceNtt {
 public:
  using F = DevFp<P>;
  using HostF = ff::Fp<P>;
  static constexpr uint32_t kThreads = 256;

  static Result<DeviceNtt> create(uint32_t log_n) {
    ASSIGN_OR_RETURN(auto domain, poly::Domain<HostF>::create(log_n));
    DeviceNtt plan;
    plan.log_n_ = log_n;
    size_t half = std::max<size_t>(1, domain.size() / 2);
    std::vector<HostF> fwd(half), inv(half);
    poly::Domain<HostF>::powers_into(domain.omega(), HostF::one(), fwd);
    poly::Domain<HostF>::powers_into(domain.omega_inv(), HostF::one(), inv);
    plan.size_inv_ = domain.size_inv();
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMalloc(&plan.twiddles_, 2 * half * sizeof(F)));
    SNARKD_CUDA_RETURN_IF_ERROR(
        cudaMemcpy(plan.twiddles_, fwd.data(), half * sizeof(F), cudaMemcpyHostToDevice));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMemcpy(plan.twiddles_ + half, inv.data(), half * sizeof(F),
                                           cudaMemcpyHostToDevice));
    plan.inverse_twiddles_ = plan.twiddles_ + half;
    return std::move(plan);
  }

  DeviceNtt() = default;
  DeviceNtt(DeviceNtt&& o) noexcept { *this = std::move(o); }
  DeviceNtt& operator=(DeviceNtt&& o) noexcept {
    std::swap(twiddles_, o.twiddles_);
    std::swap(inverse_twiddles_, o.inverse_twiddles_);
    std::swap(log_n_, o.log_n_);
    std::swap(size_inv_, o.size_inv_);
    return *this;
  }
  ~DeviceNtt() {
    if (twiddles_) cudaFree(twiddles_);
  }

  size_t size() const { return size_t(1) << log_n_; }

  Status forward(F* data, cudaStream_t stream) const { return run(data, twiddles_, stream); }

  // Evaluations at shift * w^i from coefficients (scale by powers of shift, then forward).
  Status coset_forward(F* data, const HostF& shift, cudaStream_t stream) const {
    F g;
    std::memcpy(&g, &shift, sizeof(F));
    kernels::scale_by_powers<<<blocks(size()), kThreads, 0, stream>>>(data, g, uint32_t(size()));
    RETURN_IF_ERROR(cuda_status(cudaGetLastError(), "scale_by_powers", __FILE__, __LINE__));
    return forward(data, stream);
  }

  // a = a * b - c on the device (the quotient's pointwise step).
  Status mul_sub(F* a, const F* b, const F* c, cudaStream_t stream) const {
    kernels::mul_sub<<<blocks(size()), kThreads, 0, stream>>>(a, b, c, uint32_t(size()));
    return cuda_status(cudaGetLastError(), "mul_sub", __FILE__, __LINE__);
  }

  Status inverse(F* data, cudaStream_t stream) const {
    RETURN_IF_ERROR(run(data, inverse_twiddles_, stream));
    F c;
    static_assert(sizeof(F) == sizeof(HostF));
    std::memcpy(&c, &size_inv_, sizeof(F));
    kernels::scale<<<blocks(size()), kThreads, 0, stream>>>(data, c, uint32_t(size()));
    return cuda_status(cudaGetLastError(), "scale kernel", __FILE__, __LINE__);
  }

 private:
  static uint32_t blocks(size_t n) { return uint32_t((n + kThreads - 1) / kThreads); }

  // Stages kept in shared memory: 2^10 elements of 32 bytes is 32 KiB, within the default
  // 48 KiB per block.
  static constexpr uint32_t kLocalStages = 10;

  Status run(F* data, const F* tw, cudaStream_t stream) const {
    if (log_n_ == 0) return Status();
    kernels::bit_reverse<<<blocks(size()), kThreads, 0, stream>>>(data, log_n_);
    uint32_t local = std::min(log_n_, kLocalStages);
    uint32_t block = 1u << local;
    kernels::local_stages<<<uint32_t(size() / block), std::min<uint32_t>(block / 2, 512),
                            block * sizeof(F), stream>>>(data, tw, log_n_, local);
    for (uint32_t s = local; s < log_n_; ++s) {
      kernels::butterfly_stage<<<blocks(size() / 2), kThreads, 0, stream>>>(data, tw, log_n_, s);
    }
    return cuda_status(cudaGetLastError(), "NTT kernels", __FILE__, __LINE__);
  }

  F* twiddles_ = nullptr;
  F* inverse_twiddles_ = nullptr;
  uint32_t log_n_ = 0;
  HostF size_inv_;
};

}  // namespace snarkd::gpu
