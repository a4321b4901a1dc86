// snarkd/gpu_prover (internal): a slot, the device workspace one proof runs in (an arena, a
// stream, events, pinned staging for the witness, the MSM and batch-addition plans), and the
// rules that size it: the shape a key needs and the slot's layout, written once (SlotPlan::layout
// sizes the arena for planning and SlotPlan::size lays it out by the same offsets).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <memory>

#include "gpu/arena.cuh"
#include "gpu/cuda_check.cuh"
#include "gpu_prover/device_key.cuh"
#include "gpu_prover/gpu_backend.h"

namespace snarkd::gpu_prover::detail {

// What a slot's buffers are sized for.
struct Shape {
  size_t variables = 0, domain = 0, h_count = 0;
  size_t stream_points = 0;  // points per chunk buffer (0: no streamed keys seen)
  // The most points one G2 MSM sees: B's dense count (a quarter of a PoRep partition's
  // variables), or a chunk when streamed. Sizing G2's workspace by it rather than by the
  // variables saves about 30 GB of device memory at 2^27.
  size_t g2_points = 0;
  // The most points one G1 MSM sees: the variables or H's count, or a chunk when streamed (a
  // streamed MSM runs chunk by chunk; sized for the whole query, a streamed 2^24 slot held
  // 4.9 GiB more, measured). G1's batch addition takes the lesser of this and the variables.
  size_t g1_points = 0;
  bool covers(const Shape& o) const {
    return variables >= o.variables && domain >= o.domain && h_count >= o.h_count &&
           stream_points >= o.stream_points && g2_points >= o.g2_points && g1_points >= o.g1_points;
  }
  Shape max(const Shape& o) const {
    return {std::max(variables, o.variables),         std::max(domain, o.domain),
            std::max(h_count, o.h_count),             std::max(stream_points, o.stream_points),
            std::max(g2_points, o.g2_points),         std::max(g1_points, o.g1_points)};
  }
  size_t add1_points() const { return std::min(variables, g1_points); }
};

// Where a slot's buffers lie in its arena (offsets) and the arena's size. First the witness,
// a (then H's scalars), the check flag and the streamed keys' two chunk buffers; then b and c,
// whose memory the MSMs reuse once the quotient has consumed them (a slot's stream runs its
// kernels in order): the gathered scalars of one run and the larger of G1's and G2's plans
// (MSM and batch addition; the MSMs run one after the other).
struct SlotLayout {
  size_t w = 0, a = 0, bad_row = 0, chunk[2] = {0, 0};
  size_t b = 0, c = 0;
  size_t gathered = 0, plans = 0;
  size_t bytes = 0;
};

inline constexpr int kEvents = 512;
// A streamed MSM runs in at most kStreamChunks chunks (so a proof's events stay bounded), each
// at least kMinStreamChunk points.
inline constexpr size_t kStreamChunks = 16;
inline constexpr size_t kMinStreamChunk = 1024;

template <class E>
struct Slot {
  using T = Curve<E>;
  cudaStream_t stream = nullptr;
  cudaEvent_t events[kEvents] = {};
  int used_events = 0;
  Shape shape;
  gpu::DeviceArena arena;
  typename T::FrD *w = nullptr, *a = nullptr, *b = nullptr, *c = nullptr;
  typename T::FrD* gathered = nullptr;  // one run's witness entries of a compressed query
  uint32_t index = 0;                   // in the backend's slots
  std::atomic<size_t> device_bytes{0};  // its arena's, readable while another thread owns it
  uint32_t* bad_row = nullptr;
  typename T::Msm1 msm1;
  typename T::Msm2 msm2;
  typename T::Add1 add1;
  typename T::Add2 add2;
  typename T::Fr* pinned = nullptr;  // staging: the witness
  size_t pinned_count = 0;
  std::shared_ptr<void> pinned_hold;  // GpuBackendOptions::reserve_host's handle for the staging
  uint32_t* pinned_bad_row = nullptr;
  // Streamed keys: two device chunk buffers (G2-sized, reused for G1), a copy stream, and
  // events saying a chunk has arrived / its buffer may be refilled.
  typename T::P2* chunk_device[2] = {nullptr, nullptr};
  cudaStream_t copy_stream = nullptr;
  cudaEvent_t chunk_ready[2] = {nullptr, nullptr}, chunk_free[2] = {nullptr, nullptr};

  static Result<std::unique_ptr<Slot>> create(uint32_t index) {
    auto s = std::make_unique<Slot>();
    s->index = index;
    SNARKD_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&s->copy_stream, cudaStreamNonBlocking));
    for (int i = 0; i < 2; ++i) {
      SNARKD_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&s->chunk_ready[i], cudaEventDisableTiming));
      SNARKD_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&s->chunk_free[i], cudaEventDisableTiming));
    }
    for (auto& e : s->events) SNARKD_CUDA_RETURN_IF_ERROR(cudaEventCreate(&e));
    return std::move(s);
  }
  ~Slot() {
    free_buffers();
    for (auto e : events) {
      if (e) cudaEventDestroy(e);
    }
    if (stream) cudaStreamDestroy(stream);
    if (copy_stream) cudaStreamDestroy(copy_stream);
    for (int i = 0; i < 2; ++i) {
      if (chunk_ready[i]) cudaEventDestroy(chunk_ready[i]);
      if (chunk_free[i]) cudaEventDestroy(chunk_free[i]);
    }
  }
  void free_buffers() {
    msm1 = typename T::Msm1();
    msm2 = typename T::Msm2();
    add1 = typename T::Add1();
    add2 = typename T::Add2();
    arena = gpu::DeviceArena();
    if (pinned) cudaFreeHost(pinned);
    if (pinned_bad_row) cudaFreeHost(pinned_bad_row);
    pinned = nullptr;
    pinned_bad_row = nullptr;
    pinned_hold.reset();
    for (int i = 0; i < 2; ++i) chunk_device[i] = nullptr;  // in the arena
    shape = Shape();
    device_bytes = 0;
  }
};

// The slot rules of one backend's options: the shape a key needs, the layout of a slot of a
// shape, and the sizing of a slot.
template <class E>
class SlotPlan {
 public:
  using T = Curve<E>;
  explicit SlotPlan(const GpuBackendOptions& o) : options_(o) {}

  static size_t stream_chunk_points(const DeviceKey<E>& key) {
    const size_t most = std::max<size_t>(key.num_variables, key.h_count);
    return std::max(kMinStreamChunk, (most + kStreamChunks - 1) / kStreamChunks);
  }

  // What a slot needs to prove with this key: a streamed key's MSMs see one chunk at a time, a
  // resident key's at most msm_chunk_points.
  Shape shape_for(const DeviceKey<E>& key) const {
    const size_t nv = key.num_variables;
    if (!key.streamed) {
      const size_t cap = options_.msm_chunk_points ? options_.msm_chunk_points : SIZE_MAX;
      return {nv, key.n(), key.h_count, 0, std::min(key.b_count, cap), std::min(std::max(nv, key.h_count), cap)};
    }
    const size_t chunk = stream_chunk_points(key);
    return {nv, key.n(), key.h_count, chunk, std::min(nv, chunk), chunk};
  }

  // The slot's MSM plans take keys with any number of copies the options allow.
  typename T::Msm1::Config msm1_config(const Shape& shape) const { return {shape.g1_points, 0, plan_copies(options_)}; }
  typename T::Msm2::Config msm2_config(const Shape& shape) const { return {shape.g2_points, 0, plan_copies(options_)}; }

  Result<SlotLayout> layout(const Shape& shape) const {
    using FrD = typename T::FrD;
    ASSIGN_OR_RETURN(size_t m1, T::Msm1::workspace_bytes(msm1_config(shape)));
    ASSIGN_OR_RETURN(size_t m2, T::Msm2::workspace_bytes(msm2_config(shape)));
    ASSIGN_OR_RETURN(size_t b1, T::Add1::workspace_bytes(shape.add1_points()));
    ASSIGN_OR_RETURN(size_t b2, T::Add2::workspace_bytes(shape.g2_points));
    // One entry per buffer: each is aligned on its own (a, b, c of a 4-element domain are 128
    // bytes each but take 256 apiece).
    SlotLayout l;
    gpu::ArenaSizer at;
    l.w = at.take(shape.variables * sizeof(FrD));
    l.a = at.take(shape.domain * sizeof(FrD));
    l.bad_row = at.take(sizeof(uint32_t));
    for (auto& c : l.chunk) c = at.take(shape.stream_points * sizeof(typename T::P2));
    gpu::ArenaSizer bc = at, msms = at;  // two uses of the same memory
    l.b = bc.take(shape.domain * sizeof(FrD));
    l.c = bc.take(shape.domain * sizeof(FrD));
    l.gathered = msms.take(shape.add1_points() * sizeof(FrD));
    l.plans = msms.take(std::max(m1 + b1, m2 + b2));
    l.bytes = std::max(bc.bytes(), msms.bytes());
    return l;
  }

  // Device bytes of a slot for circuits up to `shape`.
  Result<size_t> bytes(const Shape& shape) const {
    ASSIGN_OR_RETURN(SlotLayout l, layout(shape));
    return l.bytes;
  }

  // Grows the slot to cover `need` (and what it covered before) when it does not: only when a
  // larger circuit arrives, never per proof.
  Status size(Slot<E>& slot, const Shape& need) const {
    using FrD = typename T::FrD;
    if (slot.shape.covers(need) && slot.arena.capacity() > 0) return Status();
    SNARKD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(slot.stream));
    const Shape shape = slot.shape.max(need);
    slot.free_buffers();
    ASSIGN_OR_RETURN(const SlotLayout l, layout(shape));
    ASSIGN_OR_RETURN(slot.arena, gpu::DeviceArena::create(l.bytes, "GPU backend: a slot's workspace"));
    auto& ar = slot.arena;
    ASSIGN_OR_RETURN(slot.w, ar.template place<FrD>(l.w, shape.variables, "witness"));
    ASSIGN_OR_RETURN(slot.a, ar.template place<FrD>(l.a, shape.domain, "a"));
    ASSIGN_OR_RETURN(slot.bad_row, ar.template place<uint32_t>(l.bad_row, 1, "check flag"));
    if (shape.stream_points > 0) {
      for (int i = 0; i < 2; ++i) {
        ASSIGN_OR_RETURN(slot.chunk_device[i],
                         ar.template place<typename T::P2>(l.chunk[i], shape.stream_points, "key chunk"));
      }
    }
    ASSIGN_OR_RETURN(slot.b, ar.template place<FrD>(l.b, shape.domain, "b"));
    ASSIGN_OR_RETURN(slot.c, ar.template place<FrD>(l.c, shape.domain, "c"));
    ASSIGN_OR_RETURN(slot.gathered, ar.template place<FrD>(l.gathered, shape.add1_points(), "gathered scalars"));
    // The plans allocate their own buffers from l.plans on: G1's, then G2's over the same bytes.
    ar.set_used(l.plans);
    ASSIGN_OR_RETURN(slot.msm1, T::Msm1::create(msm1_config(shape), ar));
    ASSIGN_OR_RETURN(slot.add1, T::Add1::create(shape.add1_points(), ar));
    ar.set_used(l.plans);
    ASSIGN_OR_RETURN(slot.msm2, T::Msm2::create(msm2_config(shape), ar));
    ASSIGN_OR_RETURN(slot.add2, T::Add2::create(shape.g2_points, ar));
    ar.set_used(ar.capacity());
    slot.device_bytes = ar.capacity();
    // The witness only (4 GB at 2^27): a, b, c evaluated on the host come from the key's buffers.
    slot.pinned_count = shape.variables;
    if (options_.reserve_host) {
      ASSIGN_OR_RETURN(slot.pinned_hold,
                       options_.reserve_host(slot.pinned_count * sizeof(typename T::Fr), "GPU slot staging"));
    }
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMallocHost(&slot.pinned, slot.pinned_count * sizeof(typename T::Fr)));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMallocHost(&slot.pinned_bad_row, sizeof(uint32_t)));
    slot.shape = shape;
    return Status();
  }

 private:
  const GpuBackendOptions& options_;
};

}  // namespace snarkd::gpu_prover::detail
