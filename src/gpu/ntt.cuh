// snarkd/gpu: NTT on the device for the scalar fields.
//
// A transform is a few passes over HBM, each doing up to 10 radix-2 stages on a tile of 2^10
// elements in shared memory. A tile for stages s..s+k-1 is the 2^k elements m * 2^s + lo (m <
// 2^k) of 2^b consecutive columns lo, so global loads stay coalesced (b = 3: 256-byte rows).
// 2^27 takes 4 passes instead of 27 stage launches.
//
// Orders: decimation in frequency (Gentleman-Sande) maps natural order to bit-reversed order and
// decimation in time (Cooley-Tukey) maps bit-reversed to natural, with the same twiddles and
// tiles, so a quotient pipeline (inverse to bit-reversed coefficients, coset scaling in that
// order, forward back to natural) never permutes. Natural-to-natural adds one bit-reversal pass.
//
// A plan owns its tables (twiddles w^k for k < n/2, inverse twiddles derived as -w^(n/2-k), and
// coset power tables), uploaded once at creation; every call is ordered on the caller's stream:
// no allocation, no synchronization, no device-wide call.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "gpu/cuda_check.cuh"
#include "gpu/field.cuh"
#include "poly/domain.h"

namespace snarkd::gpu {

enum class NttOrder { kNatural, kBitReversed };

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

// The butterflies' product: the 64-bit-accumulator form (half the SASS instructions of the PTX
// rows). At 2^27 on the H200 it made natural-order transforms 1.24x faster (107.1 -> 86.0 ms)
// and left the DIF pass alone (75.4 -> 75.6 ms) (docs/perf.md, "product forms measured").
template <class F>
__device__ __forceinline__ F butterfly_mul(const F& a, const F& b) {
  return F::mul_portable(a, b);
}

// w^e (forward) or w^-e = -w^(n/2 - e) (inverse), for e < n/2.
template <class F, bool kInverse>
__device__ __forceinline__ F twiddle(const F* tw, uint32_t e, uint32_t half_n) {
  if (!kInverse) return tw[e];
  return e == 0 ? F::one() : F::zero() - tw[half_n - e];
}

// Stages s..s+k-1 (DIT: ascending, DIF: descending) on tiles of 2^k rows x 2^log_b columns. The
// stage of span h = 2^(s+u) pairs (i, i + h) with twiddle w^(j n / 2h), j = i mod h.
// `scale` (optional) multiplies every output: 1/n on an inverse transform's last pass.
template <class F, bool kDif, bool kInverse>
__global__ void radix_pass(F* data, const F* tw, uint32_t log_n, uint32_t s, uint32_t k,
                           uint32_t log_b, const F* scale) {
  extern __shared__ unsigned char smem_raw[];
  F* tile = reinterpret_cast<F*>(smem_raw);
  const uint32_t cols = 1u << log_b, tile_n = 1u << (k + log_b);
  const uint32_t col_blocks_log = s - log_b;
  const uint32_t hi = blockIdx.x >> col_blocks_log;
  const uint32_t lo0 = (blockIdx.x & ((1u << col_blocks_log) - 1)) << log_b;
  const size_t base = (size_t(hi) << (s + k)) + lo0;
  for (uint32_t idx = threadIdx.x; idx < tile_n; idx += blockDim.x) {
    tile[idx] = data[base + (size_t(idx >> log_b) << s) + (idx & (cols - 1))];
  }
  __syncthreads();
  const uint32_t half_n = 1u << (log_n - 1);
  for (uint32_t step = 0; step < k; ++step) {
    const uint32_t u = kDif ? k - 1 - step : step;
    const uint32_t half = 1u << u;
    for (uint32_t bt = threadIdx.x; bt < tile_n / 2; bt += blockDim.x) {
      const uint32_t l = bt & (cols - 1), pair = bt >> log_b;
      const uint32_t jm = pair & (half - 1);
      const uint32_t m = ((pair >> u) << (u + 1)) | jm;
      const uint32_t j = (jm << s) + lo0 + l;  // global index mod 2^(s+u)
      const F w = twiddle<F, kInverse>(tw, j << (log_n - 1 - s - u), half_n);
      F& x = tile[(m << log_b) + l];
      F& y = tile[((m + half) << log_b) + l];
      if (kDif) {
        F a = x, b = y;
        x = a + b;
        y = butterfly_mul(a - b, w);
      } else {
        F a = x, b = butterfly_mul(y, w);
        x = a + b;
        y = a - b;
      }
    }
    __syncthreads();
  }
  for (uint32_t idx = threadIdx.x; idx < tile_n; idx += blockDim.x) {
    F v = tile[idx];
    if (scale) v = v * *scale;
    data[base + (size_t(idx >> log_b) << s) + (idx & (cols - 1))] = v;
  }
}

// data[i] *= g^e with e = i (natural order) or bitrev(i), g^e = lo[e mod 2^h] * hi[e >> h].
template <class F>
__global__ void scale_by_powers(F* data, const F* lo, const F* hi, uint32_t h, uint32_t log_n,
                                bool bit_reversed) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (1u << log_n)) return;
  uint32_t e = bit_reversed && log_n ? __brev(i) >> (32 - log_n) : i;
  data[i] = data[i] * (lo[e & ((1u << h) - 1)] * hi[e >> h]);
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
  static constexpr uint32_t kTileLog = 10;  // 2^10 x 32 bytes = 32 KiB of shared memory
  static constexpr uint32_t kColumnLog = 3;

  // coset_shift: the g of coset_forward / coset_inverse (evaluations at g w^i).
  static Result<DeviceNtt> create(uint32_t log_n, const HostF& coset_shift = HostF::one()) {
    ASSIGN_OR_RETURN(auto domain, poly::Domain<HostF>::create(log_n));
    if (log_n > 31) return invalid_argument("NTT sizes above 2^31 are not supported");
    DeviceNtt plan;
    plan.log_n_ = log_n;
    plan.shift_ = coset_shift;
    size_t half = std::max<size_t>(1, domain.size() / 2);
    std::vector<HostF> fwd(half);
    poly::Domain<HostF>::powers_into(domain.omega(), HostF::one(), fwd);
    // Coset tables: g^e = lo[e mod 2^h] * hi[e >> h], for g and g^-1.
    plan.power_split_ = (log_n + 1) / 2;
    const size_t lo_n = size_t(1) << plan.power_split_, hi_n = size_t(1) << (log_n - plan.power_split_);
    std::vector<HostF> tables(2 * (lo_n + hi_n));
    HostF g = coset_shift, g_inv = coset_shift.inverse();
    HostF g_step = g.pow(uint64_t(lo_n));
    HostF g_inv_step = g_inv.pow(uint64_t(lo_n));
    std::span<HostF> all(tables);
    poly::Domain<HostF>::powers_into(g, HostF::one(), all.subspan(0, lo_n));
    poly::Domain<HostF>::powers_into(g_step, HostF::one(), all.subspan(lo_n, hi_n));
    poly::Domain<HostF>::powers_into(g_inv, HostF::one(), all.subspan(lo_n + hi_n, lo_n));
    poly::Domain<HostF>::powers_into(g_inv_step, HostF::one(), all.subspan(2 * lo_n + hi_n, hi_n));
    HostF size_inv = domain.size_inv();
    const size_t total = half + tables.size() + 1;
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMalloc(&plan.memory_, total * sizeof(F)));
    plan.twiddles_ = plan.memory_;
    plan.powers_ = plan.memory_ + half;
    plan.size_inv_ = plan.powers_ + tables.size();
    SNARKD_CUDA_RETURN_IF_ERROR(
        cudaMemcpy(plan.twiddles_, fwd.data(), half * sizeof(F), cudaMemcpyHostToDevice));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMemcpy(plan.powers_, tables.data(),
                                           tables.size() * sizeof(F), cudaMemcpyHostToDevice));
    SNARKD_CUDA_RETURN_IF_ERROR(
        cudaMemcpy(plan.size_inv_, &size_inv, sizeof(F), cudaMemcpyHostToDevice));
    plan.lo_n_ = lo_n;
    plan.hi_n_ = hi_n;
    return std::move(plan);
  }

  DeviceNtt() = default;
  DeviceNtt(DeviceNtt&& o) noexcept { *this = std::move(o); }
  DeviceNtt& operator=(DeviceNtt&& o) noexcept {
    std::swap(memory_, o.memory_);
    std::swap(twiddles_, o.twiddles_);
    std::swap(powers_, o.powers_);
    std::swap(size_inv_, o.size_inv_);
    std::swap(log_n_, o.log_n_);
    std::swap(power_split_, o.power_split_);
    std::swap(lo_n_, o.lo_n_);
    std::swap(hi_n_, o.hi_n_);
    std::swap(shift_, o.shift_);
    return *this;
  }
  ~DeviceNtt() {
    if (memory_) cudaFree(memory_);
  }

  size_t size() const { return size_t(1) << log_n_; }
  uint32_t log_size() const { return log_n_; }
  const HostF& coset_shift() const { return shift_; }

  // Evaluations at w^i from coefficients (or back, for inverse), in the given orders.
  Status forward(F* data, NttOrder in, NttOrder out, cudaStream_t stream) const {
    return transform<false>(data, in, out, stream);
  }
  Status inverse(F* data, NttOrder in, NttOrder out, cudaStream_t stream) const {
    return transform<true>(data, in, out, stream);
  }
  Status forward(F* data, cudaStream_t stream) const {
    return forward(data, NttOrder::kNatural, NttOrder::kNatural, stream);
  }
  Status inverse(F* data, cudaStream_t stream) const {
    return inverse(data, NttOrder::kNatural, NttOrder::kNatural, stream);
  }

  // data[i] *= g^i (or g^-i), with i the coefficient index of position i in `order`.
  Status scale_by_coset(F* data, bool inverse_shift, NttOrder order, cudaStream_t stream) const {
    const F* lo = powers_ + (inverse_shift ? lo_n_ + hi_n_ : 0);
    kernels::scale_by_powers<<<blocks(size()), kThreads, 0, stream>>>(
        data, lo, lo + lo_n_, power_split_, log_n_, order == NttOrder::kBitReversed);
    return cuda_status(cudaGetLastError(), "scale_by_powers", __FILE__, __LINE__);
  }

  // Natural-order coefficients -> natural-order evaluations at g w^i.
  Status coset_forward(F* data, cudaStream_t stream) const {
    RETURN_IF_ERROR(scale_by_coset(data, false, NttOrder::kNatural, stream));
    return forward(data, stream);
  }
  // Natural-order evaluations at g w^i -> natural-order coefficients.
  Status coset_inverse(F* data, cudaStream_t stream) const {
    RETURN_IF_ERROR(inverse(data, stream));
    return scale_by_coset(data, true, NttOrder::kNatural, stream);
  }

  // a = a * b - c on the device (the quotient's pointwise step).
  Status mul_sub(F* a, const F* b, const F* c, cudaStream_t stream) const {
    kernels::mul_sub<<<blocks(size()), kThreads, 0, stream>>>(a, b, c, uint32_t(size()));
    return cuda_status(cudaGetLastError(), "mul_sub", __FILE__, __LINE__);
  }
  Status scale(F* data, const HostF& c, cudaStream_t stream) const {
    F d;
    std::memcpy(&d, &c, sizeof(F));
    kernels::scale<<<blocks(size()), kThreads, 0, stream>>>(data, d, uint32_t(size()));
    return cuda_status(cudaGetLastError(), "scale", __FILE__, __LINE__);
  }

 private:
  struct Pass {
    uint32_t s, k, log_b;
  };

  static uint32_t blocks(size_t n) { return uint32_t((n + kThreads - 1) / kThreads); }

  // Passes in DIT order (ascending stages); DIF runs them in reverse.
  std::vector<Pass> passes() const {
    std::vector<Pass> out;
    uint32_t s = 0;
    while (s < log_n_) {
      uint32_t log_b = s == 0 ? 0 : std::min(kColumnLog, s);
      uint32_t k = std::min(log_n_ - s, kTileLog - log_b);
      out.push_back({s, k, log_b});
      s += k;
    }
    return out;
  }

  template <bool kInverse>
  Status transform(F* data, NttOrder in, NttOrder out, cudaStream_t stream) const {
    if (log_n_ == 0) return Status();
    const bool dif = out == NttOrder::kBitReversed;
    if (in == out) {
      kernels::bit_reverse<<<blocks(size()), kThreads, 0, stream>>>(data, log_n_);
      RETURN_IF_ERROR(cuda_status(cudaGetLastError(), "bit_reverse", __FILE__, __LINE__));
    }
    std::vector<Pass> list = passes();
    if (dif) std::reverse(list.begin(), list.end());
    for (size_t i = 0; i < list.size(); ++i) {
      const Pass& p = list[i];
      const uint32_t tile_n = 1u << (p.k + p.log_b);
      const uint32_t threads = std::min(kThreads, tile_n / 2);
      const uint32_t grid = uint32_t(size() / tile_n);
      const F* scale = kInverse && i + 1 == list.size() ? size_inv_ : nullptr;
      const size_t smem = tile_n * sizeof(F);
      if (dif) {
        kernels::radix_pass<F, true, kInverse><<<grid, threads, smem, stream>>>(
            data, twiddles_, log_n_, p.s, p.k, p.log_b, scale);
      } else {
        kernels::radix_pass<F, false, kInverse><<<grid, threads, smem, stream>>>(
            data, twiddles_, log_n_, p.s, p.k, p.log_b, scale);
      }
      RETURN_IF_ERROR(cuda_status(cudaGetLastError(), "radix_pass", __FILE__, __LINE__));
    }
    return Status();
  }

  F* memory_ = nullptr;
  F* twiddles_ = nullptr;
  F* powers_ = nullptr;
  F* size_inv_ = nullptr;
  uint32_t log_n_ = 0, power_split_ = 0;
  size_t lo_n_ = 1, hi_n_ = 1;
  HostF shift_ = HostF::one();
};

}  // namespace snarkd::gpu
