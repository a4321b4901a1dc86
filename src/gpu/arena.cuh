// snarkd/gpu: a device arena: one cudaMalloc when a slot is created, bump sub-allocation after.
//
// Kernel plans (MSM, NTT, batch addition) take their workspace from an arena, so a slot sized
// once from the key and circuit never allocates on the proving path. Plans that share an arena
// may run one after another on that slot's streams; plans for different slots use different
// arenas, so slots on one GPU never touch each other's memory or call device-wide functions.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "gpu/cuda_check.cuh"

namespace snarkd::gpu {

class DeviceArena {
 public:
  static constexpr size_t kAlignment = 256;

  static size_t aligned(size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

  // `what` names the arena in the error when the device has too little free memory.
  static Result<DeviceArena> create(size_t bytes, const char* what = "device arena") {
    DeviceArena a;
    a.capacity_ = aligned(bytes);
    if (a.capacity_ && cudaMalloc(&a.base_, a.capacity_) != cudaSuccess) {
      cudaGetLastError();  // an out-of-memory error is not sticky; clear it
      a.base_ = nullptr;
      return Status(StatusCode::kResourceExhausted,
                    std::string(what) + ": the device has no room for " +
                        std::to_string(a.capacity_ >> 20) + " MiB");
    }
    return std::move(a);
  }

  DeviceArena() = default;
  DeviceArena(DeviceArena&& o) noexcept { swap(o); }
  DeviceArena& operator=(DeviceArena&& o) noexcept {
    swap(o);
    return *this;
  }
  DeviceArena(const DeviceArena&) = delete;
  DeviceArena& operator=(const DeviceArena&) = delete;
  ~DeviceArena() {
    if (base_) cudaFree(base_);
  }

  // `what` names the buffer in the error when the arena is too small.
  template <class T>
  Result<T*> allocate(size_t count, const char* what) {
    size_t bytes = aligned(count * sizeof(T));
    if (bytes > capacity_ - used_) {
      return Status(StatusCode::kResourceExhausted,
                    std::string("device arena: ") + what + " needs " + std::to_string(bytes) +
                        " bytes, " + std::to_string(capacity_ - used_) + " of " +
                        std::to_string(capacity_) + " left");
    }
    T* p = reinterpret_cast<T*>(static_cast<char*>(base_) + used_);
    used_ += bytes;
    return p;
  }

  // The buffer of `count` T at `offset` (a multiple of kAlignment), for arenas laid out by a
  // plan written once (offsets computed with the same rounding as allocate). Moves nothing.
  template <class T>
  Result<T*> place(size_t offset, size_t count, const char* what) const {
    const size_t bytes = aligned(count * sizeof(T));
    if (offset % kAlignment != 0 || offset > capacity_ || bytes > capacity_ - offset) {
      return Status(StatusCode::kInternal, std::string("device arena: ") + what + " at " + std::to_string(offset) +
                                               " (" + std::to_string(bytes) + " bytes) lies outside its " +
                                               std::to_string(capacity_) + " bytes");
    }
    return reinterpret_cast<T*>(static_cast<char*>(base_) + offset);
  }

  size_t capacity() const { return capacity_; }
  size_t used() const { return used_; }
  // Frees every sub-allocation at once; the caller guarantees no kernel still uses them.
  void reset() { used_ = 0; }
  // Moves the bump pointer to `offset` (at most capacity()). Rewinding lets two plans share
  // memory; the caller guarantees they never run at the same time (one after the other, each
  // finished before the next starts, on one stream).
  void set_used(size_t offset) { used_ = offset < capacity_ ? offset : capacity_; }

 private:
  void swap(DeviceArena& o) {
    std::swap(base_, o.base_);
    std::swap(capacity_, o.capacity_);
    std::swap(used_, o.used_);
  }
  void* base_ = nullptr;
  size_t capacity_ = 0, used_ = 0;
};

// Sums sub-allocation sizes exactly as DeviceArena::allocate rounds them, to size an arena.
class ArenaSizer {
 public:
  ArenaSizer& add(size_t bytes) {
    bytes_ += DeviceArena::aligned(bytes);
    return *this;
  }
  // Where the next sub-allocation starts, then counts it: offsets for DeviceArena::place.
  size_t take(size_t bytes) {
    const size_t at = bytes_;
    add(bytes);
    return at;
  }
  size_t bytes() const { return bytes_; }

 private:
  size_t bytes_ = 0;
};

}  // namespace snarkd::gpu
