// snarkd/gpu: the 0/1 split of a scalar vector, all on the device.
//
// Groth16 witnesses are mostly bits: a scalar of 0 contributes nothing and a scalar of 1 adds
// its base. launch() classifies every scalar (zero / one / other), sums the bases whose scalar is
// exactly 1 (a queue per warp, so the additions do not diverge, then a tree of block sums), and
// compacts the indices and scalars of the "other" class for a tail MSM (DeviceMsm::run with
// indices). The CPU never passes over the scalars; finish() waits on the caller's stream and
// brings back one point and three counts.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstring>
#include <cub/cub.cuh>
#include <string>

#include "ec/point.h"
#include "gpu/arena.cuh"
#include "gpu/cuda_check.cuh"
#include "gpu/point.cuh"

namespace snarkd::gpu {

namespace batch_kernels {

enum : uint8_t { kZero = 0, kOne = 1, kOther = 2 };

// counts[0..2]: zeros, ones, others (warp-aggregated atomics on three words).
static __global__ void classify(const uint32_t* scalars, size_t n, uint8_t* cls, uint32_t* other_flag,
                         unsigned long long* counts) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  uint8_t c = kZero;
  if (i < n) {
    const uint32_t* k = scalars + 8 * i;
    uint32_t high = k[1] | k[2] | k[3] | k[4] | k[5] | k[6] | k[7];
    c = high ? kOther : k[0] == 0 ? kZero : k[0] == 1 ? kOne : kOther;
    cls[i] = c;
    other_flag[i] = c == kOther;
  }
  const uint32_t lane = threadIdx.x % 32;
  uint32_t active = __ballot_sync(0xffffffffu, i < n);
  uint32_t zeros = __popc(__ballot_sync(0xffffffffu, i < n && c == kZero));
  uint32_t ones = __popc(__ballot_sync(0xffffffffu, c == kOne));
  uint32_t others = __popc(active) - zeros - ones;
  if (lane == 0 && active) {
    atomicAdd(&counts[0], zeros);
    atomicAdd(&counts[1], ones);
    atomicAdd(&counts[2], others);
  }
}

// positions = exclusive prefix sum of other_flag.
static __global__ void scatter_others(const uint32_t* scalars, const uint8_t* cls,
                               const uint32_t* positions, size_t n, uint32_t* indices,
                               uint32_t* compact) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= n || cls[i] != kOther) return;
  uint32_t p = positions[i];
  indices[p] = uint32_t(i);
#pragma unroll
  for (int w = 0; w < 8; ++w) compact[8 * size_t(p) + w] = scalars[8 * i + w];
}

// Each warp sums the bases of the ones among its `per_warp` entries into one partial sum per
// team of PointLanes<F>::kLanes lanes (one point). The warp reads its classes 32 at a time and
// appends the ones' indices to a queue in shared memory; whenever the queue holds a point for
// every team, every team adds one. The additions therefore never diverge: a thread scanning its
// own range and adding where the scalar is 1 left about half the warp idle at each step of a
// random-bits witness.
constexpr uint32_t kQueue = 64;  // pending < teams <= 32, plus at most 32 appended
template <class F>
__global__ void __launch_bounds__(kAccumulateThreads, accumulate_min_blocks<F>())
    sum_ones(const DevAffine<F>* bases, const uint8_t* cls, size_t n, uint32_t per_warp,
             DevXyzz<F>* partial) {
  using Lanes = PointLanes<F>;
  using R = typename Lanes::Reg;
  constexpr uint32_t kTeams = 32 / Lanes::kLanes;
  __shared__ uint32_t queues[kAccumulateThreads / 32][kQueue];
  uint32_t* queue = queues[threadIdx.x / 32];
  const uint32_t lane = threadIdx.x % 32, team = lane / Lanes::kLanes;
  const size_t warp = (blockIdx.x * size_t(blockDim.x) + threadIdx.x) / 32;
  const size_t lo = warp * per_warp, hi = min(n, lo + per_warp);
  uint32_t head = 0, tail = 0;  // the same in every lane
  DevXyzz<R> acc = DevXyzz<R>::identity();
  for (size_t from = lo; from < hi; from += 32) {
    const size_t i = from + lane;
    const bool one = i < hi && cls[i] == kOne;
    const uint32_t found = __ballot_sync(0xffffffffu, one);
    if (one) queue[(tail + __popc(found & ((1u << lane) - 1))) % kQueue] = uint32_t(i);
    tail += __popc(found);
    __syncwarp();
    for (; tail - head >= kTeams; head += kTeams) {
      acc = acc.add_affine(Lanes::load(bases + queue[(head + team) % kQueue]));
    }
    __syncwarp();  // the next appends may reuse the slots just read
  }
  if (team < tail - head) acc = acc.add_affine(Lanes::load(bases + queue[(head + team) % kQueue]));
  Lanes::store(&partial[warp * kTeams + team], acc);
}

// out[b] = sum of in[b * kThreads * per, (b + 1) * kThreads * per).
template <class F, uint32_t kThreads>
__global__ void sum_points(const DevXyzz<F>* in, size_t m, uint32_t per, DevXyzz<F>* out) {
  __shared__ DevXyzz<F> shared[kThreads];
  size_t lo = (size_t(blockIdx.x) * kThreads + threadIdx.x) * per;
  DevXyzz<F> acc = DevXyzz<F>::identity();
  for (size_t i = lo; i < min(m, lo + per); ++i) acc = acc.add(in[i]);
  acc = block_sum<F, kThreads>(acc, shared);
  if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

}  // namespace batch_kernels

template <class C>
class DeviceBatchAdd {
 public:
  using F = typename DeviceFieldOf<typename C::Field>::type;
  using Point = DevAffine<F>;
  using Bucket = DevXyzz<F>;
  static constexpr uint32_t kPerWarp = 2048;  // entries a warp of sum_ones scans
  static constexpr uint32_t kThreads = sizeof(Bucket) <= 192 ? 128 : 64;
  static constexpr uint32_t kPer = 8;

  struct Outcome {
    ec::Jacobian<C> ones_sum;
    size_t zeros = 0, ones = 0, others = 0;
  };

  static Result<size_t> workspace_bytes(size_t max_n) {
    max_n = std::max<size_t>(max_n, 1);
    ASSIGN_OR_RETURN(size_t scan, scan_bytes(max_n));
    ArenaSizer s;
    s.add(max_n).add(4 * max_n).add(4 * max_n).add(4 * max_n);  // classes, flags, positions, indices
    s.add(32 * max_n).add(3 * sizeof(unsigned long long));       // scalars, counts
    s.add(partials(max_n) * sizeof(Bucket)).add(partials(max_n) * sizeof(Bucket)).add(scan);
    return s.bytes();
  }

  static Result<DeviceBatchAdd> create(size_t max_n, DeviceArena& arena) {
    DeviceBatchAdd b;
    b.max_n_ = max_n;
    const size_t n = std::max<size_t>(max_n, 1);
    ASSIGN_OR_RETURN(b.cls_, arena.allocate<uint8_t>(n, "batch-add classes"));
    ASSIGN_OR_RETURN(b.flags_, arena.allocate<uint32_t>(n, "batch-add flags"));
    ASSIGN_OR_RETURN(b.positions_, arena.allocate<uint32_t>(n, "batch-add positions"));
    ASSIGN_OR_RETURN(b.indices_, arena.allocate<uint32_t>(n, "batch-add indices"));
    ASSIGN_OR_RETURN(b.compact_, arena.allocate<uint32_t>(8 * n, "batch-add scalars"));
    ASSIGN_OR_RETURN(b.counts_, arena.allocate<unsigned long long>(3, "batch-add counts"));
    ASSIGN_OR_RETURN(b.partial_[0], arena.allocate<Bucket>(partials(n), "batch-add partial sums"));
    ASSIGN_OR_RETURN(b.partial_[1], arena.allocate<Bucket>(partials(n), "batch-add partial sums"));
    ASSIGN_OR_RETURN(b.scan_bytes_, scan_bytes(n));
    ASSIGN_OR_RETURN(b.scan_temp_, arena.allocate<unsigned char>(b.scan_bytes_, "batch-add scan"));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMallocHost(&b.host_, sizeof(HostResult)));
    return std::move(b);
  }

  DeviceBatchAdd() = default;
  DeviceBatchAdd(DeviceBatchAdd&& o) noexcept { swap(o); }
  DeviceBatchAdd& operator=(DeviceBatchAdd&& o) noexcept {
    swap(o);
    return *this;
  }
  ~DeviceBatchAdd() {
    if (host_) cudaFreeHost(host_);
  }

  // Enqueues the whole split on `stream`; nothing waits.
  Status launch(const Point* bases, const uint32_t* scalars, size_t n, cudaStream_t stream) {
    if (n > max_n_) {
      return invalid_argument("batch addition of " + std::to_string(n) + " scalars exceeds the plan's " +
                              std::to_string(max_n_));
    }
    n_ = n;
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(counts_, 0, 3 * sizeof(unsigned long long), stream));
    if (n == 0) {
      SNARKD_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(partial_[0], 0, sizeof(Bucket), stream));
      result_ = partial_[0];
      return Status();
    }
    const uint32_t t = 256;
    const uint32_t grid = uint32_t((n + t - 1) / t);
    batch_kernels::classify<<<grid, t, 0, stream>>>(scalars, n, cls_, flags_, counts_);
    SNARKD_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    size_t bytes = scan_bytes_;
    SNARKD_CUDA_RETURN_IF_ERROR(
        cub::DeviceScan::ExclusiveSum(scan_temp_, bytes, flags_, positions_, int64_t(n), stream));
    batch_kernels::scatter_others<<<grid, t, 0, stream>>>(scalars, cls_, positions_, n, indices_,
                                                          compact_);
    SNARKD_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    batch_kernels::sum_ones<F><<<uint32_t(sum_ones_blocks(n)), kAccumulateThreads, 0, stream>>>(
        bases, cls_, n, kPerWarp, partial_[0]);
    SNARKD_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    size_t m = partials(n);
    int cur = 0;
    while (m > 1) {
      size_t blocks = (m + kThreads * kPer - 1) / (kThreads * kPer);
      batch_kernels::sum_points<F, kThreads><<<uint32_t(blocks), kThreads, 0, stream>>>(
          partial_[cur], m, kPer, partial_[1 - cur]);
      SNARKD_CUDA_RETURN_IF_ERROR(cudaGetLastError());
      cur = 1 - cur;
      m = blocks;
    }
    result_ = partial_[cur];
    return Status();
  }

  // Device results of the last launch (valid once the stream reaches them).
  const uint32_t* other_indices() const { return indices_; }
  const uint32_t* other_scalars() const { return compact_; }
  const uint8_t* classes() const { return cls_; }

  // Waits for the caller's stream (not the device) and returns the sum and the counts.
  Result<Outcome> finish(cudaStream_t stream) {
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(&host_->sum, result_, sizeof(Bucket),
                                                cudaMemcpyDeviceToHost, stream));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(host_->counts, counts_,
                                                3 * sizeof(unsigned long long),
                                                cudaMemcpyDeviceToHost, stream));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
    Outcome o;
    static_assert(sizeof(Bucket) == sizeof(ec::Xyzz<C>));
    ec::Xyzz<C> sum;
    std::memcpy(static_cast<void*>(&sum), &host_->sum, sizeof(sum));
    o.ones_sum = sum.to_jacobian();
    o.zeros = host_->counts[0];
    o.ones = host_->counts[1];
    o.others = host_->counts[2];
    return o;
  }

 private:
  struct HostResult {
    Bucket sum;
    unsigned long long counts[3];
  };
  // The grid of sum_ones: kPerWarp classes a warp.
  static size_t sum_ones_blocks(size_t n) {
    const size_t per_block = kPerWarp * (kAccumulateThreads / 32);
    return std::max<size_t>(1, (n + per_block - 1) / per_block);
  }
  // Partial sums of sum_ones: one a team (point) of every warp of its grid.
  static size_t partials(size_t n) {
    return sum_ones_blocks(n) * (kAccumulateThreads / PointLanes<F>::kLanes);
  }
  static Result<size_t> scan_bytes(size_t n) {
    size_t bytes = 0;
    SNARKD_CUDA_RETURN_IF_ERROR(cub::DeviceScan::ExclusiveSum(
        nullptr, bytes, static_cast<const uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr),
        int64_t(std::max<size_t>(n, 1))));
    return bytes;
  }
  void swap(DeviceBatchAdd& o) {
    std::swap(max_n_, o.max_n_);
    std::swap(n_, o.n_);
    std::swap(cls_, o.cls_);
    std::swap(flags_, o.flags_);
    std::swap(positions_, o.positions_);
    std::swap(indices_, o.indices_);
    std::swap(compact_, o.compact_);
    std::swap(counts_, o.counts_);
    std::swap(partial_, o.partial_);
    std::swap(result_, o.result_);
    std::swap(scan_temp_, o.scan_temp_);
    std::swap(scan_bytes_, o.scan_bytes_);
    std::swap(host_, o.host_);
  }

  size_t max_n_ = 0, n_ = 0;
  uint8_t* cls_ = nullptr;
  uint32_t *flags_ = nullptr, *positions_ = nullptr, *indices_ = nullptr, *compact_ = nullptr;
  unsigned long long* counts_ = nullptr;
  std::array<Bucket*, 2> partial_{};
  Bucket* result_ = nullptr;
  unsigned char* scan_temp_ = nullptr;
  size_t scan_bytes_ = 0;
  HostResult* host_ = nullptr;
};

}  // namespace snarkd::gpu
