// snarkd/gpu: multi-scalar multiplication on the device, first version (sort-based Pippenger).
//
//   1. digits:     every point's signed c-bit digits, as keys (window << c | bucket) with the
//                  point index and sign as values; zero digits go to a per-window sentinel bucket
//   2. sort:       one CUB radix sort of all (key, value) pairs: bucket assignment without
//                  atomics on points
//   3. bounds:     each bucket's run in the sorted array
//   4. accumulate: one thread per bucket sums its points with XYZZ mixed additions
//   5. reduce:     per window, a thread block forms sum_j (j + 1) B_j from segment sums
//   6. finish:     the window sums (windows x one point) come back and are combined on the CPU.
// Workspace is allocated once, for a maximum size, when the plan is created; run() allocates
// nothing, makes no device-wide call, and synchronizes only its own stream at the end.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cub/cub.cuh>
#include <vector>

#include "ec/point.h"
#include "gpu/cuda_check.cuh"
#include "gpu/point.cuh"

namespace snarkd::gpu {

namespace msm_kernels {

// Scalars are canonical, 8 little-endian 32-bit words.
__device__ __forceinline__ uint32_t window_of(const uint32_t* k, uint32_t offset, uint32_t c) {
  uint32_t word = offset / 32, shift = offset % 32;
  uint64_t v = word < 8 ? k[word] : 0;
  if (word + 1 < 8) v |= uint64_t(k[word + 1]) << 32;
  return uint32_t(v >> shift) & ((1u << c) - 1);
}

__global__ void digits(const uint32_t* scalars, uint32_t n, uint32_t c, uint32_t windows,
                       uint32_t* keys, uint32_t* values) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint32_t* k = scalars + 8 * size_t(i);
  const uint32_t half = 1u << (c - 1);
  uint32_t carry = 0;
  for (uint32_t w = 0; w < windows; ++w) {
    uint32_t d = window_of(k, w * c, c) + carry;
    uint32_t bucket, negative = 0;
    if (d > half) {
      carry = 1;
      d = (1u << c) - d;
      negative = 1;
    } else {
      carry = 0;
    }
    bucket = d == 0 ? half : d - 1;  // `half` is the window's sentinel (skipped)
    keys[size_t(w) * n + i] = (w << c) | bucket;
    values[size_t(w) * n + i] = i | (negative << 31);
  }
}

__global__ void bounds(const uint32_t* keys, uint32_t m, uint32_t* starts, uint32_t* ends) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  uint32_t k = keys[i];
  if (i == 0 || keys[i - 1] != k) starts[k] = i;
  if (i + 1 == m || keys[i + 1] != k) ends[k] = i + 1;
}

template <class P>
__global__ void accumulate(const DevAffine<P>* bases, const uint32_t* values,
                           const uint32_t* starts, const uint32_t* ends, uint32_t c,
                           uint32_t windows, DevXyzz<P>* buckets) {
  uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t per_window = 1u << (c - 1);
  if (t >= windows * per_window) return;
  uint32_t w = t / per_window, j = t % per_window;
  uint32_t key = (w << c) | j;
  DevXyzz<P> acc = DevXyzz<P>::identity();
  for (uint32_t s = starts[key]; s < ends[key]; ++s) {
    uint32_t v = values[s];
    DevAffine<P> p = bases[v & 0x7fffffffu];
    if (v >> 31) p.y = DevFp<P>::zero() - p.y;
    acc = acc.add_affine(p);
  }
  buckets[t] = acc;
}

// One block per window: thread t owns buckets [lo, lo + len); its share of sum_j (j + 1) B_j is
// sum_k (k + 1) B_{lo+k} + lo * sum_k B_{lo+k}.
template <class P, uint32_t kThreads>
__global__ void reduce_windows(const DevXyzz<P>* buckets, uint32_t c, DevXyzz<P>* window_sums) {
  __shared__ DevXyzz<P> partial[kThreads];
  const uint32_t per_window = 1u << (c - 1);
  const DevXyzz<P>* b = buckets + size_t(blockIdx.x) * per_window;
  uint32_t len = (per_window + kThreads - 1) / kThreads;
  uint32_t lo = threadIdx.x * len;
  uint32_t hi = min(lo + len, per_window);
  DevXyzz<P> running = DevXyzz<P>::identity(), total = DevXyzz<P>::identity();
  for (uint32_t j = hi; j-- > lo;) {
    running = running.add(b[j]);
    total = total.add(running);
  }
  // total += lo * running (running is now the segment sum), by double-and-add.
  DevXyzz<P> scaled = DevXyzz<P>::identity();
  for (int bit = 31; bit >= 0; --bit) {
    scaled = scaled.dbl();
    if ((lo >> bit) & 1) scaled = scaled.add(running);
  }
  partial[threadIdx.x] = lo < hi ? total.add(scaled) : DevXyzz<P>::identity();
  __syncthreads();
  for (uint32_t stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] = partial[threadIdx.x].add(partial[threadIdx.x + stride]);
    __syncthreads();
  }
  if (threadIdx.x == 0) window_sums[blockIdx.x] = partial[0];
}

}  // namespace msm_kernels

// Kernel time of each stage in milliseconds, from CUDA events on the MSM's stream.
struct MsmStageTimes {
  float digits = 0, sort = 0, bounds = 0, accumulate = 0, reduce = 0;
};

// C: the host curve config (ec::bls12_381::G1, ec::bn254::G1).
template <class C>
class DeviceMsm {
 public:
  using P = typename C::Field::Params;
  static constexpr uint32_t kReduceThreads = 128;

  static Result<DeviceMsm> create(size_t max_points, uint32_t window_bits = 0) {
    DeviceMsm m;
    m.max_points_ = max_points;
    m.c_ = window_bits ? window_bits : default_window(max_points);
    m.windows_ = (uint32_t(C::Scalar::kModulusBits) + 1 + m.c_ - 1) / m.c_;
    size_t entries = size_t(m.windows_) * max_points;
    size_t key_space = size_t(m.windows_) << m.c_;
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMalloc(&m.keys_in_, entries * 4));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMalloc(&m.keys_out_, entries * 4));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMalloc(&m.values_in_, entries * 4));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMalloc(&m.values_out_, entries * 4));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMalloc(&m.starts_, key_space * 4));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMalloc(&m.ends_, key_space * 4));
    SNARKD_CUDA_RETURN_IF_ERROR(
        cudaMalloc(&m.buckets_, (size_t(m.windows_) << (m.c_ - 1)) * sizeof(DevXyzz<P>)));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMalloc(&m.window_sums_, m.windows_ * sizeof(DevXyzz<P>)));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMallocHost(&m.host_sums_, m.windows_ * sizeof(DevXyzz<P>)));
    SNARKD_CUDA_RETURN_IF_ERROR(cub::DeviceRadixSort::SortPairs(
        nullptr, m.sort_bytes_, m.keys_in_, m.keys_out_, m.values_in_, m.values_out_,
        int64_t(entries), 0, m.key_bits()));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMalloc(&m.sort_temp_, m.sort_bytes_));
    for (auto& e : m.events_) SNARKD_CUDA_RETURN_IF_ERROR(cudaEventCreate(&e));
    return std::move(m);
  }

  DeviceMsm() = default;
  DeviceMsm(DeviceMsm&& o) noexcept { swap(o); }
  DeviceMsm& operator=(DeviceMsm&& o) noexcept {
    swap(o);
    return *this;
  }
  ~DeviceMsm() {
    for (void* p : {(void*)keys_in_, (void*)keys_out_, (void*)values_in_, (void*)values_out_,
                    (void*)starts_, (void*)ends_, (void*)buckets_, (void*)window_sums_,
                    sort_temp_}) {
      if (p) cudaFree(p);
    }
    if (host_sums_) cudaFreeHost(host_sums_);
    for (auto e : events_) {
      if (e) cudaEventDestroy(e);
    }
  }

  uint32_t window_bits() const { return c_; }

  // sum_i scalars[i] * bases[i] for device arrays (bases as DevAffine, scalars canonical).
  Result<ec::Jacobian<C>> run(const DevAffine<P>* bases, const uint32_t* scalars, size_t n,
                              cudaStream_t stream, MsmStageTimes* times = nullptr) {
    if (n > max_points_) {
      return invalid_argument("MSM of " + std::to_string(n) + " points exceeds the plan's " +
                              std::to_string(max_points_));
    }
    if (n == 0) return ec::Jacobian<C>::identity();
    const uint32_t t = 256;
    const size_t entries = size_t(windows_) * n;
    const size_t key_space = size_t(windows_) << c_;
    auto mark = [&](int i) { return times ? cudaEventRecord(events_[i], stream) : cudaSuccess; };
    SNARKD_CUDA_RETURN_IF_ERROR(mark(0));
    msm_kernels::digits<<<uint32_t((n + t - 1) / t), t, 0, stream>>>(scalars, uint32_t(n), c_,
                                                                     windows_, keys_in_, values_in_);
    SNARKD_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    SNARKD_CUDA_RETURN_IF_ERROR(mark(1));
    size_t bytes = sort_bytes_;
    SNARKD_CUDA_RETURN_IF_ERROR(cub::DeviceRadixSort::SortPairs(
        sort_temp_, bytes, keys_in_, keys_out_, values_in_, values_out_, int64_t(entries), 0,
        key_bits(), stream));
    SNARKD_CUDA_RETURN_IF_ERROR(mark(2));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(starts_, 0, key_space * 4, stream));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(ends_, 0, key_space * 4, stream));
    msm_kernels::bounds<<<uint32_t((entries + t - 1) / t), t, 0, stream>>>(
        keys_out_, uint32_t(entries), starts_, ends_);
    SNARKD_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    SNARKD_CUDA_RETURN_IF_ERROR(mark(3));
    const uint32_t bucket_threads = windows_ << (c_ - 1);
    msm_kernels::accumulate<P><<<(bucket_threads + 127) / 128, 128, 0, stream>>>(
        bases, values_out_, starts_, ends_, c_, windows_, buckets_);
    SNARKD_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    SNARKD_CUDA_RETURN_IF_ERROR(mark(4));
    msm_kernels::reduce_windows<P, kReduceThreads>
        <<<windows_, kReduceThreads, 0, stream>>>(buckets_, c_, window_sums_);
    SNARKD_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    SNARKD_CUDA_RETURN_IF_ERROR(mark(5));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(host_sums_, window_sums_,
                                                windows_ * sizeof(DevXyzz<P>),
                                                cudaMemcpyDeviceToHost, stream));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
    if (times) {
      float* slots[5] = {&times->digits, &times->sort, &times->bounds, &times->accumulate,
                         &times->reduce};
      for (int i = 0; i < 5; ++i) {
        SNARKD_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(slots[i], events_[i], events_[i + 1]));
      }
    }
    static_assert(sizeof(DevXyzz<P>) == sizeof(ec::Xyzz<C>));
    const auto* sums = reinterpret_cast<const ec::Xyzz<C>*>(host_sums_);
    ec::Jacobian<C> acc = ec::Jacobian<C>::identity();
    for (uint32_t w = windows_; w-- > 0;) {
      for (uint32_t d = 0; d < c_; ++d) acc = acc.dbl();
      acc = acc.add(sums[w].to_jacobian());
    }
    return acc;
  }

 private:
  // One thread accumulates one bucket, so a window whose digits take few values (the top
  // window when c does not divide the scalar width) puts n / 2^(width) points on one thread:
  // at c = 14 the top window of a 255-bit scalar has 3 bits and one bucket got n/8 points
  // (5.4 s for 2^20 points; docs/perf.md). c = 8 and c = 16 divide 256, so every window is full.
  // Load-balanced accumulation (splitting long runs) is the real fix and comes next.
  static uint32_t default_window(size_t n) { return n >= (size_t(1) << 17) ? 16 : 8; }
  int key_bits() const {
    int bits = 0;
    while ((size_t(1) << bits) < (size_t(windows_) << c_)) ++bits;
    return bits;
  }
  void swap(DeviceMsm& o) {
    std::swap(max_points_, o.max_points_);
    std::swap(c_, o.c_);
    std::swap(windows_, o.windows_);
    std::swap(keys_in_, o.keys_in_);
    std::swap(keys_out_, o.keys_out_);
    std::swap(values_in_, o.values_in_);
    std::swap(values_out_, o.values_out_);
    std::swap(starts_, o.starts_);
    std::swap(ends_, o.ends_);
    std::swap(buckets_, o.buckets_);
    std::swap(window_sums_, o.window_sums_);
    std::swap(host_sums_, o.host_sums_);
    std::swap(sort_temp_, o.sort_temp_);
    std::swap(sort_bytes_, o.sort_bytes_);
    std::swap(events_, o.events_);
  }

  size_t max_points_ = 0;
  uint32_t c_ = 0, windows_ = 0;
  uint32_t *keys_in_ = nullptr, *keys_out_ = nullptr, *values_in_ = nullptr,
           *values_out_ = nullptr, *starts_ = nullptr, *ends_ = nullptr;
  DevXyzz<P>* buckets_ = nullptr;
  DevXyzz<P>* window_sums_ = nullptr;
  void* host_sums_ = nullptr;
  void* sort_temp_ = nullptr;
  size_t sort_bytes_ = 0;
  std::array<cudaEvent_t, 6> events_{};
};

}  // namespace snarkd::gpu
