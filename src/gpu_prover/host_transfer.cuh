// snarkd/gpu_prover (internal): host -> device transfers: the staged uploader (two pinned
// buffers, fill overlapped with copy) and host buffers the device copies from; the
// launch-size helper and the clock the backend's timings use.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>

#include "base/status.h"
#include "gpu/cuda_check.cuh"

namespace snarkd::gpu_prover {

namespace detail {

constexpr uint32_t kThreads = 256;
inline uint32_t blocks_for(size_t n) { return uint32_t((std::max<size_t>(n, 1) + kThreads - 1) / kThreads); }

using Clock = std::chrono::steady_clock;
inline double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// Host -> device copies through two pinned buffers, so a copy of any size needs no pinned
// memory of its size and the fill of one buffer overlaps the transfer of the other.
class StagedUploader {
 public:
  static constexpr size_t kChunkBytes = size_t(64) << 20;

  static Result<std::unique_ptr<StagedUploader>> create() {
    auto u = std::make_unique<StagedUploader>();
    for (int i = 0; i < 2; ++i) {
      SNARKD_CUDA_RETURN_IF_ERROR(cudaMallocHost(&u->buffer_[i], kChunkBytes));
      SNARKD_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&u->done_[i], cudaEventDisableTiming));
    }
    SNARKD_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&u->stream_, cudaStreamNonBlocking));
    return std::move(u);
  }
  StagedUploader() = default;
  StagedUploader(const StagedUploader&) = delete;
  StagedUploader& operator=(const StagedUploader&) = delete;
  ~StagedUploader() {
    for (int i = 0; i < 2; ++i) {
      if (done_[i]) cudaEventDestroy(done_[i]);
      if (buffer_[i]) cudaFreeHost(buffer_[i]);
    }
    if (stream_) cudaStreamDestroy(stream_);
  }

  // Copies `count` elements of `Out` to dst; fill(out, first, k) writes elements
  // [first, first + k) into `out`.
  template <class Out, class Fill>
  Status upload(Out* dst, size_t count, Fill&& fill) {
    const size_t per = kChunkBytes / sizeof(Out);
    int which = 0;
    for (size_t first = 0; first < count; first += per, which ^= 1) {
      const size_t k = std::min(per, count - first);
      SNARKD_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(done_[which]));
      Out* staging = static_cast<Out*>(buffer_[which]);
      fill(staging, first, k);
      SNARKD_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(dst + first, staging, k * sizeof(Out),
                                                  cudaMemcpyHostToDevice, stream_));
      SNARKD_CUDA_RETURN_IF_ERROR(cudaEventRecord(done_[which], stream_));
    }
    SNARKD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream_));
    return Status();
  }
  cudaStream_t stream() const { return stream_; }

 private:
  void* buffer_[2] = {nullptr, nullptr};
  cudaEvent_t done_[2] = {nullptr, nullptr};
  cudaStream_t stream_ = nullptr;
};

// Host memory the device copies from (a streamed key's points in the device layout, a, b, c
// evaluated on the host): page-locked when the driver grants it, so copies are plain DMA with
// no staging, else ordinary memory (the driver then stages each copy itself: correct, slower).
template <class T>
class HostBuffer {
 public:
  HostBuffer() = default;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  ~HostBuffer() { release(); }

  Status allocate(size_t count, const char* what) {
    release();
    count_ = count;
    if (count == 0) return Status();
    if (cudaMallocHost(reinterpret_cast<void**>(&data_), count * sizeof(T)) == cudaSuccess) {
      pinned_ = true;
      return Status();
    }
    cudaGetLastError();  // clear the failed allocation's error
    data_ = static_cast<T*>(std::malloc(count * sizeof(T)));
    if (!data_) {
      return Status(StatusCode::kResourceExhausted,
                    "GPU backend: no host memory for " + std::to_string(count * sizeof(T)) + " bytes of " +
                        what);
    }
    return Status();
  }
  T* data() const { return data_; }
  size_t size() const { return count_; }
  bool pinned() const { return pinned_; }

 private:
  void release() {
    if (data_) pinned_ ? (void)cudaFreeHost(data_) : std::free(data_);
    data_ = nullptr;
    count_ = 0;
    pinned_ = false;
  }
  T* data_ = nullptr;
  size_t count_ = 0;
  bool pinned_ = false;
};

}  // namespace detail

}  // namespace snarkd::gpu_prover
