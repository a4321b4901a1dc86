// snarkd/gpu: multi-scalar multiplication on the device (sort-based Pippenger), for G1 and G2.
//
//   1. digits:     each scalar's signed c-bit digits become (key = window * 2^(c-1) + bucket,
//                  value = point index | sign << 31); zero digits get a sentinel key that sorts
//                  after every real key
//   2. sort:       one CUB radix sort of all pairs: bucket assignment without atomics on points
//   3. end:        the index of the first sentinel, kept on the device (no host round trip), so
//                  zero digits cost no additions (a 0/1-heavy witness has mostly zero digits)
//   4. accumulate: the sorted array is cut into equal segments, one thread each, so the work is
//                  balanced whatever the bucket sizes (all-equal scalars put n points in one
//                  bucket); a thread writes the buckets that start and end inside its segment
//                  and keeps the pieces of runs that cross a segment boundary
//   5. combine:    the thread owning a run's first piece adds the continuation pieces
//   6. reduce:     sum_j (j + 1) B_j per window on the GPU in two levels (segments of 32
//                  buckets, then up to 32 blocks per window)
//   7. finish:     each window's parts come back (2 x 32 points at most) and are combined on the
//                  CPU.
// With precomputed bases (BaseCopies), copy j of the bases holds 2^(j c q) P_i and window
// w = j q + r reads copy j: the copies share q sets of buckets, so the reduction (two full
// additions a bucket) shrinks by windows / q for copies times the memory; copies = windows
// leaves a single window to reduce and no doublings.
//
// All device memory comes from a DeviceArena when the plan is created; run() allocates nothing,
// makes no device-wide call, and synchronizes only its own stream, once, at the end.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <cub/cub.cuh>
#include <span>
#include <string>
#include <vector>

#include "ec/point.h"
#include "gpu/arena.cuh"
#include "gpu/cuda_check.cuh"
#include "gpu/point.cuh"

namespace snarkd::gpu {

// How a query's bases lie on the device: `copies` blocks of `stride` points (the stride is
// passed with the bases), block j holding 2^(j * shift) P_i with shift = window_bits * q,
// q = ceil(windows / copies). One copy is the plain bases, whose window each run chooses.
struct BaseCopies {
  uint32_t copies = 1;
  uint32_t window_bits = 0;  // the window the copies were made for (0 with one copy)
  bool operator==(const BaseCopies&) const = default;
};

namespace msm_kernels {

constexpr uint32_t kSignBit = 1u << 31;

// Scalars are canonical, 8 little-endian 32-bit words.
__device__ __forceinline__ uint32_t window_of(const uint32_t* k, uint32_t offset, uint32_t c) {
  uint32_t word = offset / 32, shift = offset % 32;
  uint64_t v = word < 8 ? k[word] : 0;
  if (word + 1 < 8) v |= uint64_t(k[word + 1]) << 32;
  return uint32_t(v >> shift) & ((1u << c) - 1);
}

// Entry (w, i) goes to keys[w * n + i]. Window w reads copy w / q of the bases; its buckets are
// those of local window w % q. `indices` (optional) maps scalar i to its base.
static __global__ void digits(const uint32_t* scalars, const uint32_t* indices, uint32_t n, uint32_t c,
                       uint32_t windows, uint32_t per_copy, uint64_t stride, uint32_t* keys,
                       uint32_t* values) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint32_t* k = scalars + 8 * size_t(i);
  const uint32_t half = 1u << (c - 1);
  const uint32_t sentinel = per_copy * half;
  const uint32_t base = indices ? indices[i] : i;
  uint32_t carry = 0;
  for (uint32_t w = 0; w < windows; ++w) {
    uint32_t d = window_of(k, w * c, c) + carry;
    uint32_t negative = 0;
    carry = 0;
    if (d > half) {
      carry = 1;
      d = (1u << c) - d;
      negative = kSignBit;
    }
    uint32_t copy = w / per_copy, local = w % per_copy;
    keys[size_t(w) * n + i] = d == 0 ? sentinel : local * half + d - 1;
    values[size_t(w) * n + i] = uint32_t(copy * stride + base) | negative;
  }
}

// *end = index of the first sentinel key in the sorted array (m if there is none).
static __global__ void find_end(const uint32_t* keys, size_t m, uint32_t sentinel, size_t* end) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i >= m) return;
  bool here = keys[i] == sentinel;
  if (here && (i == 0 || keys[i - 1] != sentinel)) *end = i;
  if (!here && i + 1 == m) *end = m;
}

constexpr uint32_t kValid = 1u << 31, kContinues = 1u << 30, kKeyMask = kContinues - 1;

// Piece bookkeeping per segment: head = the part of a run that began in an earlier segment,
// tail = the part of a run that begins here and continues into the next segment.
template <class F>
struct Carries {
  DevXyzz<F>* head;
  DevXyzz<F>* tail;
  uint32_t* head_info;  // key | kValid | kContinues (the run goes on past this segment)
  uint32_t* tail_info;  // key | kValid
};

// Base v (index | sign bit), in the lane layout R of the kernel.
template <class F>
__device__ __forceinline__ DevAffine<typename PointLanes<F>::Reg> load_base(const DevAffine<F>* bases,
                                                                            uint32_t v) {
  auto p = PointLanes<F>::load(bases + (v & ~kSignBit));
  return (v & kSignBit) ? p.negate() : p;
}

// The accumulate, combine and reduce_groups kernels run PointLanes<F>::kLanes lanes per work
// item (two for G2), so their launches use kLanes times the threads.
//
template <class F>
__global__ void __launch_bounds__(kAccumulateThreads, accumulate_min_blocks<F>())
    accumulate(const DevAffine<F>* bases, const uint32_t* keys,
                           const uint32_t* values, const size_t* end_ptr, uint32_t segment,
                           uint32_t segments, DevXyzz<F>* buckets, Carries<F> carries) {
  using Lanes = PointLanes<F>;
  using R = typename Lanes::Reg;
  const uint32_t t = (blockIdx.x * blockDim.x + threadIdx.x) / Lanes::kLanes;
  const bool leader = threadIdx.x % Lanes::kLanes == 0;
  if (t >= segments) return;
  const size_t end = *end_ptr;
  const size_t a = size_t(t) * segment;
  uint32_t head_info = 0, tail_info = 0;
  if (a < end) {
    const size_t b = min(a + segment, end);
    const bool starts_before = a > 0 && keys[a - 1] == keys[a];
    const bool ends_after = b < end && keys[b] == keys[b - 1];
    bool first = true;
    uint32_t cur = keys[a];
    DevXyzz<R> acc = DevXyzz<R>::identity();
    // Loads run one entry ahead of the additions to hide their latency for points of 64 bytes a
    // lane (BN254). Not for 96 (BLS12-381): the G2 lanes' prefetch spilled 130 bytes under the
    // Karatsuba lane product (accumulation at 2^24 561.8 against 571.7 ms on an H100; with the
    // earlier product it was 1.56x faster), and G1's spilled its register budget (docs/perf.md).
    constexpr bool kPrefetch = sizeof(DevAffine<R>) <= 64;
    DevAffine<R> next = load_base(bases, values[a]);
    for (size_t s = a; s < b; ++s) {
      DevAffine<R> p = kPrefetch ? next : load_base(bases, values[s]);
      uint32_t k = keys[s];
      if (kPrefetch && s + 1 < b) next = load_base(bases, values[s + 1]);
      if (k != cur) {
        if (first && starts_before) {
          Lanes::store(&carries.head[t], acc);
          head_info = cur | kValid;
        } else {
          Lanes::store(&buckets[cur], acc);
        }
        first = false;
        cur = k;
        acc = DevXyzz<R>::identity();
      }
      acc = acc.add_affine(p);
    }
    if (first && starts_before) {
      Lanes::store(&carries.head[t], acc);
      head_info = cur | kValid | (ends_after ? kContinues : 0);
    } else if (ends_after) {
      Lanes::store(&carries.tail[t], acc);
      tail_info = cur | kValid;
    } else {
      Lanes::store(&buckets[cur], acc);
    }
  }
  if (leader) {
    carries.head_info[t] = head_info;
    carries.tail_info[t] = tail_info;
  }
}

template <class F>
__global__ void combine(uint32_t segments, DevXyzz<F>* buckets, Carries<F> carries) {
  using Lanes = PointLanes<F>;
  using R = typename Lanes::Reg;
  const uint32_t t = (blockIdx.x * blockDim.x + threadIdx.x) / Lanes::kLanes;
  if (t >= segments) return;
  uint32_t info = carries.tail_info[t];
  if (!(info & kValid)) return;
  DevXyzz<R> acc = Lanes::load(&carries.tail[t]);
  for (uint32_t u = t + 1; u < segments; ++u) {
    uint32_t h = carries.head_info[u];
    acc = acc.add(Lanes::load(&carries.head[u]));
    if (!(h & kContinues)) break;
  }
  Lanes::store(&buckets[info & kKeyMask], acc);
}

// Level 1: work item (window r, group g) sums buckets [g L, g L + L) of window r into
// T_g = sum_i (i + 1) B and S_g = sum_i B.
template <class F>
__global__ void reduce_groups(const DevXyzz<F>* buckets, uint32_t group, uint32_t groups_total,
                              DevXyzz<F>* weighted, DevXyzz<F>* sums) {
  using Lanes = PointLanes<F>;
  using R = typename Lanes::Reg;
  const uint32_t t = (blockIdx.x * blockDim.x + threadIdx.x) / Lanes::kLanes;
  if (t >= groups_total) return;
  const DevXyzz<F>* b = buckets + size_t(t) * group;  // windows are contiguous: r * N + g * L
  DevXyzz<R> running = DevXyzz<R>::identity(), total = DevXyzz<R>::identity();
  for (uint32_t i = group; i-- > 0;) {
    running = running.add(Lanes::load(&b[i]));
    total = total.add(running);
  }
  Lanes::store(&weighted[t], total);
  Lanes::store(&sums[t], running);
}

// Level 2, spread over `parts` blocks per window (one block per window left 13 blocks on 132 SMs
// and made G2's second level a long serial tail): block b = (window r, part) sums its share of
// the window's G groups into partial[b] = sum_g T_g and partial[gridDim.x + b] = sum_g g S_g. The
// host adds the parts (MSM run): summed serially by one device thread per window, they took a
// third of the second level (BLS12-381 G2 at 2^24: 42.8 ms, 28.5 with the host sum).
template <class F, uint32_t kThreads>
__global__ void reduce_windows(const DevXyzz<F>* weighted, const DevXyzz<F>* sums,
                               uint32_t groups, uint32_t parts, DevXyzz<F>* partial) {
  __shared__ DevXyzz<F> shared[kThreads];
  const uint32_t window = blockIdx.x / parts, part = blockIdx.x % parts;
  const DevXyzz<F>* tw = weighted + size_t(window) * groups;
  const DevXyzz<F>* ts = sums + size_t(window) * groups;
  const uint32_t per = (groups + parts * kThreads - 1) / (parts * kThreads);
  const uint32_t lo = min((part * kThreads + threadIdx.x) * per, groups);
  const uint32_t hi = min(lo + per, groups);
  DevXyzz<F> x = DevXyzz<F>::identity(), running = DevXyzz<F>::identity(),
             u = DevXyzz<F>::identity();
  for (uint32_t g = hi; g-- > lo;) {
    x = x.add(tw[g]);
    running = running.add(ts[g]);
    u = u.add(running);
  }
  // sum_{g in [lo, hi)} g S_g = U + lo V - V, with U = sum (g - lo + 1) S_g and V = sum S_g.
  DevXyzz<F> y = lo < hi ? u.add(running.mul_small(lo)).add(running.negate()) : DevXyzz<F>::identity();
  x = block_sum<F, kThreads>(x, shared);
  y = block_sum<F, kThreads>(y, shared);
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = x;
    partial[gridDim.x + blockIdx.x] = y;
  }
}

// The field shift_points works in: the MSM kernels' wide product, called out of line (the
// plain device type multiplies in the rows form). Same layout, so buffers are reinterpreted.
template <class F>
struct PrecomputeField;
template <class P>
struct PrecomputeField<DevFp<P>> {
  using type = DevFp<P, MulForm::kWideSingleOutOfLine>;
};
template <class P>
struct PrecomputeField<DevFp2<P>> {
  using type = DevFp2<P, MulForm::kWideSingleOutOfLine>;
};

// Points a shift_points thread converts with one inversion.
constexpr uint32_t kShiftBatch = 8;

// out[i] = 2^shift * in[i], affine in and out, for i = t + m * threads (m < kShiftBatch), so
// each m is a coalesced sweep. The doublings run in XYZZ; the thread's kShiftBatch results
// share one inversion (Montgomery's trick): an inversion costs about as many products as 60
// doublings (BLS12-381 Fp), so one a point made the copies 2.1-4.7x slower (docs/perf.md,
// fifteenth session). Phase 1 leaves (X, Y) in out[i] and keeps ZZ, ZZZ; phase 2 divides.
template <class F>
__global__ void shift_points(const DevAffine<F>* in, size_t n, uint32_t shift, DevAffine<F>* out) {
  using W = typename PrecomputeField<F>::type;
  static_assert(sizeof(W) == sizeof(F), "precompute field layout differs");
  const auto* src = reinterpret_cast<const DevAffine<W>*>(in);
  auto* dst = reinterpret_cast<DevAffine<W>*>(out);
  const size_t threads = size_t(gridDim.x) * blockDim.x;
  const size_t first = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  W zz[kShiftBatch], zzz[kShiftBatch], before[kShiftBatch];
  W running = W::one();  // product of ZZ ZZZ over the batch so far (1 for identities)
  for (uint32_t m = 0; m < kShiftBatch; ++m) {
    const size_t i = first + m * threads;
    zz[m] = W::one();
    zzz[m] = W::one();
    if (i < n) {
      DevXyzz<W> p = DevXyzz<W>::from_affine(src[i]);
      for (uint32_t s = 0; s < shift; ++s) p = p.dbl();
      if (p.is_identity()) {
        dst[i] = DevAffine<W>::identity();
      } else {
        dst[i] = {p.X, p.Y};
        zz[m] = p.ZZ;
        zzz[m] = p.ZZZ;
      }
    }
    before[m] = running;
    running = running * (zz[m] * zzz[m]);
  }
  W inv = running.inverse();  // 1 / (product of the factors up to m), walking down
  for (uint32_t m = kShiftBatch; m-- > 0;) {
    const size_t i = first + m * threads;
    // Recomputed (one product a point) rather than kept: a fourth array of 8 field elements.
    const W factor = zz[m] * zzz[m];
    const W factor_inv = inv * before[m];
    inv = inv * factor;
    if (i < n) {
      DevAffine<W> q = dst[i];
      if (!q.is_identity()) dst[i] = {q.x * (factor_inv * zzz[m]), q.y * (factor_inv * zz[m])};
    }
  }
}

}  // namespace msm_kernels

// Kernel time of each stage in milliseconds, from CUDA events on the MSM's stream.
struct MsmStageTimes {
  float digits = 0, sort = 0, accumulate = 0, reduce = 0;
  float reduce_top = 0;  // the part of `reduce` after the first level
  uint32_t window_bits = 0, windows = 0;
};

// C: the host curve config (ec::bls12_381::G1, ec::bn254::G2, ...).
template <class C>
class DeviceMsm {
 public:
  using F = typename DeviceFieldOf<typename C::Field>::type;
  using Point = DevAffine<F>;
  using Bucket = DevXyzz<F>;
  static constexpr uint32_t kScalarBits = uint32_t(C::Scalar::kModulusBits);
  static constexpr uint32_t kMaxWindowBits = 22;
  static constexpr uint32_t kGroup = 32;  // buckets per first-level reduction thread
  static constexpr uint32_t kMaxSegments = 1u << 20;
  static constexpr uint32_t kMinSegment = 32;
  // Second-level reduction threads: a block's shared array of points must fit in 48 KiB.
  static constexpr uint32_t kReduceThreads = sizeof(Bucket) <= 192 ? 128 : 64;
  static constexpr uint32_t kMaxReduceParts = 32;  // second-level blocks per window

  struct Config {
    size_t max_points = 0;
    uint32_t window_bits = 0;  // 0: chosen per run by the cost model
    // The most copies a run's bases may have (BaseCopies). The plan's own copies (precompute()
    // and run() without a BaseCopies) are copies_for(max_points, copies), or use window_bits
    // when it is set.
    uint32_t copies = 1;
  };

  // Window layout of one run.
  struct Shape {
    uint32_t c = 0, windows = 0, per_copy = 0;
    size_t entries = 0;
    uint32_t buckets_per_window() const { return 1u << (c - 1); }
    size_t buckets() const { return size_t(per_copy) << (c - 1); }
    uint32_t groups_per_window() const { return buckets_per_window() / group(); }
    uint32_t group() const { return std::min(kGroup, buckets_per_window()); }
    uint32_t reduce_parts() const {
      return std::clamp<uint32_t>(groups_per_window() / kReduceThreads, 1, kMaxReduceParts);
    }
    uint32_t segments() const {
      return uint32_t(std::clamp<size_t>((entries + kMinSegment - 1) / kMinSegment, 1, kMaxSegments));
    }
    uint32_t segment_length() const { return uint32_t((entries + segments() - 1) / segments()); }
    int key_bits() const {
      int bits = 1;
      while ((size_t(1) << bits) <= buckets()) ++bits;  // the sentinel key equals buckets()
      return bits;
    }
  };

  static uint32_t windows_for(uint32_t c) { return (kScalarBits + 1 + c - 1) / c; }

  // Count model in field multiplications: about 10 per mixed addition (W n of them) and 2 full
  // additions of 14 per bucket in the reduction (docs/perf.md).
  static double model_cost(size_t n, uint32_t c, uint32_t copies) {
    const uint32_t w = windows_for(c), q = (w + copies - 1) / copies;
    return 10.0 * w * double(n) + 28.0 * q * double(1u << (c - 1));
  }

  static uint32_t choose_window(size_t n, uint32_t copies) {
    uint32_t best = 2;
    double best_cost = 1e300;
    for (uint32_t c = 2; c <= kMaxWindowBits; ++c) {
      uint32_t w = windows_for(c);
      // A top window of few bits puts n / 2^(bits-1) points into each of its buckets, and the
      // pieces of such a long run are combined serially (c = 18 for 2^22 BLS12-381 points: 4
      // top bits, 841 ms of accumulation against 35 ms for a full window; docs/perf.md).
      uint32_t top_bits = kScalarBits + 1 - (w - 1) * c;
      if (2 * top_bits < c) continue;
      double cost = model_cost(n, c, copies);
      if (cost < best_cost) {
        best_cost = cost;
        best = c;
      }
    }
    return best;
  }

  // The copies to make of `count` bases: the window is chosen for an MSM of all of them.
  static BaseCopies copies_for(size_t count, uint32_t copies) {
    if (copies <= 1) return {};
    return {copies, choose_window(std::max<size_t>(count, 1), copies)};
  }
  // Bits between consecutive copies.
  static uint32_t shift_bits(const BaseCopies& b) {
    return b.window_bits * ((windows_for(b.window_bits) + b.copies - 1) / b.copies);
  }
  // The copies a run of n points should read: the plain bases (copy 0) when the model finds
  // them cheaper, as for a run much smaller than the copies were made for (their window is
  // then too wide: most of its buckets would be empty and still reduced).
  static BaseCopies prefer(size_t n, const BaseCopies& b) {
    if (b.copies <= 1) return {};
    const size_t m = std::max<size_t>(n, 1);
    return model_cost(m, b.window_bits, b.copies) <= model_cost(m, choose_window(m, 1), 1)
               ? b
               : BaseCopies{};
  }

  static Shape shape_for(size_t n, uint32_t c, uint32_t copies) {
    Shape s;
    s.c = c;
    s.windows = windows_for(c);
    s.per_copy = (s.windows + copies - 1) / copies;
    s.entries = size_t(s.windows) * n;
    return s;
  }

  // The largest workspace any run up to max_points needs.
  static Result<size_t> workspace_bytes(const Config& config) {
    ASSIGN_OR_RETURN(auto lim, limits(config));
    return sizer(lim).bytes();
  }

  static Result<DeviceMsm> create(const Config& config, DeviceArena& arena) {
    ASSIGN_OR_RETURN(auto lim, limits(config));
    DeviceMsm m;
    m.config_ = config;
    m.own_copies_ = config.copies <= 1        ? BaseCopies{}
                    : config.window_bits == 0 ? copies_for(config.max_points, config.copies)
                                              : BaseCopies{config.copies, config.window_bits};
    m.limits_ = lim;
    ASSIGN_OR_RETURN(m.keys_[0], arena.allocate<uint32_t>(lim.entries, "MSM keys"));
    ASSIGN_OR_RETURN(m.keys_[1], arena.allocate<uint32_t>(lim.entries, "MSM keys"));
    ASSIGN_OR_RETURN(m.values_[0], arena.allocate<uint32_t>(lim.entries, "MSM values"));
    ASSIGN_OR_RETURN(m.values_[1], arena.allocate<uint32_t>(lim.entries, "MSM values"));
    ASSIGN_OR_RETURN(m.buckets_, arena.allocate<Bucket>(lim.buckets, "MSM buckets"));
    ASSIGN_OR_RETURN(m.carries_.head, arena.allocate<Bucket>(lim.segments, "MSM carries"));
    ASSIGN_OR_RETURN(m.carries_.tail, arena.allocate<Bucket>(lim.segments, "MSM carries"));
    ASSIGN_OR_RETURN(m.carries_.head_info, arena.allocate<uint32_t>(lim.segments, "MSM carries"));
    ASSIGN_OR_RETURN(m.carries_.tail_info, arena.allocate<uint32_t>(lim.segments, "MSM carries"));
    ASSIGN_OR_RETURN(m.weighted_, arena.allocate<Bucket>(lim.groups, "MSM reduction"));
    ASSIGN_OR_RETURN(m.sums_, arena.allocate<Bucket>(lim.groups, "MSM reduction"));
    ASSIGN_OR_RETURN(m.partials_, arena.allocate<Bucket>(2 * lim.windows * kMaxReduceParts, "MSM reduction"));
    ASSIGN_OR_RETURN(m.end_, arena.allocate<size_t>(1, "MSM end"));
    ASSIGN_OR_RETURN(m.sort_temp_, arena.allocate<unsigned char>(lim.sort_bytes, "MSM sort"));
    m.sort_bytes_ = lim.sort_bytes;
    SNARKD_CUDA_RETURN_IF_ERROR(
        cudaMallocHost(&m.host_sums_, 2 * lim.windows * kMaxReduceParts * sizeof(Bucket)));
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
    if (host_sums_) cudaFreeHost(host_sums_);
    for (auto e : events_) {
      if (e) cudaEventDestroy(e);
    }
  }

  // The window a run of n points uses with the plan's own copies.
  uint32_t window_bits(size_t n) const { return window_for(n, own_copies_); }

  // out[j * count + i] = 2^(j * shift_bits(b)) * in[i] for j < b.copies (out may equal in for
  // its first copy). Done once per key; allocates nothing. The 4 copies of a BLS12-381 2^24 key's
  // queries took 14.9 s of its upload on an H100 (docs/perf.md, fifteenth session).
  static Status precompute(const BaseCopies& b, const Point* in, size_t count, Point* out,
                           cudaStream_t stream) {
    if (out != in && count > 0) {
      SNARKD_CUDA_RETURN_IF_ERROR(
          cudaMemcpyAsync(out, in, count * sizeof(Point), cudaMemcpyDeviceToDevice, stream));
    }
    const uint32_t threads = 128;
    const size_t workers = (count + msm_kernels::kShiftBatch - 1) / msm_kernels::kShiftBatch;
    const uint32_t blocks = uint32_t((workers + threads - 1) / threads);
    for (uint32_t j = 1; j < b.copies && count > 0; ++j) {
      const Point* from = out + (j - 1) * count;
      msm_kernels::shift_points<F>
          <<<blocks, threads, 0, stream>>>(from, count, shift_bits(b), out + j * count);
      SNARKD_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    }
    return Status();
  }
  Status precompute(const Point* in, size_t count, Point* out, cudaStream_t stream) const {
    return precompute(own_copies_, in, count, out, stream);
  }

  // sum_i scalars[i] * bases[indices ? indices[i] : i], scalars canonical (8 words each), all on
  // the device, over bases with the plan's own copies. `stride`: points per copy.
  Result<ec::Jacobian<C>> run(const Point* bases, size_t stride, const uint32_t* scalars, size_t n,
                              const uint32_t* indices, cudaStream_t stream,
                              MsmStageTimes* times = nullptr) {
    return run(bases, stride, own_copies_, scalars, n, indices, stream, times);
  }

  // The same over bases laid out as `copies` says (precompute): any copies whose window was
  // chosen by copies_for for at most max_points and at most Config::copies of them fit the plan.
  Result<ec::Jacobian<C>> run(const Point* bases, size_t stride, const BaseCopies& copies,
                              const uint32_t* scalars, size_t n, const uint32_t* indices,
                              cudaStream_t stream, MsmStageTimes* times = nullptr) {
    if (n > config_.max_points) {
      return invalid_argument("MSM of " + std::to_string(n) + " points exceeds the plan's " +
                              std::to_string(config_.max_points));
    }
    if (copies.copies == 0 ||
        (copies.copies > 1 && (copies.window_bits < 2 || copies.window_bits > kMaxWindowBits))) {
      return invalid_argument("MSM bases: copies need a window of 2.." +
                              std::to_string(kMaxWindowBits) + " bits");
    }
    if (size_t(copies.copies) * stride >= (size_t(1) << 31)) {
      return invalid_argument("MSM bases: copies x stride must stay below 2^31");
    }
    if (n == 0) return ec::Jacobian<C>::identity();
    // Bases must hold copies.copies * stride points; index i (or indices[i]) must be below stride.
    const Shape s = shape_for(n, window_for(n, copies), copies.copies);
    if (!fits(s)) {
      return invalid_argument(
          "MSM of " + std::to_string(n) + " points over " + std::to_string(copies.copies) +
          " copies (c = " + std::to_string(s.c) + ") needs more workspace than the plan has");
    }
    const uint32_t t = 256;
    auto mark = [&](int i) { return times ? cudaEventRecord(events_[i], stream) : cudaSuccess; };
    SNARKD_CUDA_RETURN_IF_ERROR(mark(0));
    msm_kernels::digits<<<uint32_t((n + t - 1) / t), t, 0, stream>>>(
        scalars, indices, uint32_t(n), s.c, s.windows, s.per_copy, stride, keys_[0], values_[0]);
    SNARKD_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    SNARKD_CUDA_RETURN_IF_ERROR(mark(1));
    cub::DoubleBuffer<uint32_t> keys(keys_[0], keys_[1]), values(values_[0], values_[1]);
    size_t bytes = sort_bytes_;
    SNARKD_CUDA_RETURN_IF_ERROR(cub::DeviceRadixSort::SortPairs(
        sort_temp_, bytes, keys, values, int64_t(s.entries), 0, s.key_bits(), stream));
    msm_kernels::find_end<<<uint32_t((s.entries + t - 1) / t), t, 0, stream>>>(
        keys.Current(), s.entries, uint32_t(s.buckets()), end_);
    SNARKD_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    SNARKD_CUDA_RETURN_IF_ERROR(mark(2));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(buckets_, 0, s.buckets() * sizeof(Bucket), stream));
    const uint32_t segments = s.segments();
    constexpr uint32_t lanes = PointLanes<F>::kLanes;
    auto blocks_for = [&](size_t items) { return uint32_t((items * lanes + 127) / 128); };
    constexpr uint32_t at = kAccumulateThreads;
    msm_kernels::accumulate<F><<<uint32_t((segments * lanes + at - 1) / at), at, 0, stream>>>(
        bases, keys.Current(), values.Current(), end_, s.segment_length(), segments, buckets_,
        carries_);
    SNARKD_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    msm_kernels::combine<F><<<blocks_for(segments), 128, 0, stream>>>(segments, buckets_, carries_);
    SNARKD_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    SNARKD_CUDA_RETURN_IF_ERROR(mark(3));
    const uint32_t groups = s.groups_per_window();
    const uint32_t groups_total = groups * s.per_copy;
    msm_kernels::reduce_groups<F><<<blocks_for(groups_total), 128, 0, stream>>>(
        buckets_, s.group(), groups_total, weighted_, sums_);
    SNARKD_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    SNARKD_CUDA_RETURN_IF_ERROR(mark(4));
    uint32_t log_group = 0;
    while ((1u << log_group) < s.group()) ++log_group;
    const uint32_t parts = s.reduce_parts();
    msm_kernels::reduce_windows<F, kReduceThreads><<<s.per_copy * parts, kReduceThreads, 0, stream>>>(
        weighted_, sums_, groups, parts, partials_);
    SNARKD_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    SNARKD_CUDA_RETURN_IF_ERROR(mark(5));
    const size_t part_count = size_t(s.per_copy) * parts;
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(host_sums_, partials_,
                                                2 * part_count * sizeof(Bucket),
                                                cudaMemcpyDeviceToHost, stream));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
    if (times) {
      float* slots[4] = {&times->digits, &times->sort, &times->accumulate, &times->reduce};
      for (int i = 0; i < 4; ++i) {
        SNARKD_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(slots[i], events_[i], events_[i + 1 + (i == 3)]));
      }
      SNARKD_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&times->reduce_top, events_[4], events_[5]));
      times->window_bits = s.c;
      times->windows = s.windows;
    }
    static_assert(sizeof(Bucket) == sizeof(ec::Xyzz<C>));
    // Window w = sum of its parts' T + 2^log_group * sum of their U; then Horner over windows.
    const auto* part = reinterpret_cast<const ec::Xyzz<C>*>(host_sums_);
    ec::Jacobian<C> acc = ec::Jacobian<C>::identity();
    for (uint32_t w = s.per_copy; w-- > 0;) {
      for (uint32_t d = 0; d < s.c; ++d) acc = acc.dbl();
      ec::Jacobian<C> t = ec::Jacobian<C>::identity(), u = ec::Jacobian<C>::identity();
      for (uint32_t p = 0; p < parts; ++p) {
        t = t.add(part[size_t(w) * parts + p].to_jacobian());
        u = u.add(part[part_count + size_t(w) * parts + p].to_jacobian());
      }
      for (uint32_t i = 0; i < log_group; ++i) u = u.dbl();
      acc = acc.add(t).add(u);
    }
    return acc;
  }

  // Host layout of device points: (x, y), the identity as (0, 0).
  static std::vector<Point> to_device_layout(std::span<const ec::Affine<C>> points) {
    struct Raw {
      typename C::Field x, y;
    };
    static_assert(sizeof(Raw) == sizeof(Point));
    std::vector<Point> out(points.size());
    for (size_t i = 0; i < points.size(); ++i) {
      Raw r{points[i].infinity ? C::Field::zero() : points[i].x,
            points[i].infinity ? C::Field::zero() : points[i].y};
      std::memcpy(&out[i], &r, sizeof(Raw));
    }
    return out;
  }

 private:
  struct Limits {
    size_t entries = 0, buckets = 0, segments = 0, groups = 0, windows = 0, sort_bytes = 0;
  };

  uint32_t window_for(size_t n, const BaseCopies& copies) const {
    if (copies.copies > 1) return copies.window_bits;
    return config_.window_bits ? config_.window_bits : choose_window(std::max<size_t>(n, 1), 1);
  }

  bool fits(const Shape& s) const {
    return s.entries <= limits_.entries && s.buckets() <= limits_.buckets &&
           s.segments() <= limits_.segments &&
           size_t(s.groups_per_window()) * s.per_copy <= limits_.groups &&
           s.per_copy <= limits_.windows;
  }

  // The workspace of every run the plan accepts: n <= max_points over the plain bases (a fixed
  // window, or one chosen for n) or over up to Config::copies copies made by copies_for (or
  // with the fixed window). run() checks each shape against these.
  static Result<Limits> limits(const Config& config) {
    if (config.copies == 0) return invalid_argument("MSM plan: copies must be at least 1");
    if (config.window_bits > kMaxWindowBits || config.window_bits == 1) {
      return invalid_argument("MSM plan: window_bits must be 2.." + std::to_string(kMaxWindowBits));
    }
    Limits lim;
    auto account = [&](const Shape& s, bool entries) {
      if (entries) {
        lim.entries = std::max(lim.entries, s.entries);
        lim.segments = std::max<size_t>(lim.segments, s.segments());
      }
      lim.buckets = std::max(lim.buckets, s.buckets());
      lim.groups = std::max<size_t>(lim.groups, size_t(s.groups_per_window()) * s.per_copy);
      lim.windows = std::max<size_t>(lim.windows, s.per_copy);
    };
    const size_t max = std::max<size_t>(config.max_points, 1);
    for (uint32_t k = 1; k <= config.copies; ++k) {
      if (config.window_bits) {  // a fixed window: plain runs and the plan's own copies
        if (k == 1 || k == config.copies) account(shape_for(max, config.window_bits, k), true);
        continue;
      }
      // The window grows with the points (a step function of n), so the entries, windows(c) n,
      // peak at the last n of each step: found by bisection. Copies made for m >= n points have
      // a window no narrower than n's, so no more entries; their buckets are those of some
      // c <= c(max).
      for (size_t lo = 1;;) {
        const uint32_t c = choose_window(lo, k);
        size_t last = lo, above = max + 1;  // choose_window(last) == c; above: past the step
        while (above - last > 1) {
          const size_t mid = last + (above - last) / 2;
          (choose_window(mid, k) == c ? last : above) = mid;
        }
        account(shape_for(last, c, k), true);
        if (last == max) break;
        lo = last + 1;
      }
      for (uint32_t c = 2; c <= choose_window(max, k); ++c) account(shape_for(max, c, k), false);
    }
    if (lim.entries >= (size_t(1) << 32)) {
      return invalid_argument("MSM plan: " + std::to_string(lim.entries) +
                              " digit entries exceed 2^32; split the MSM");
    }
    size_t sort_bytes = 0;
    cub::DoubleBuffer<uint32_t> k(nullptr, nullptr), v(nullptr, nullptr);
    SNARKD_CUDA_RETURN_IF_ERROR(
        cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, k, v, int64_t(lim.entries), 0, 32));
    lim.sort_bytes = sort_bytes;
    return lim;
  }

  static ArenaSizer sizer(const Limits& lim) {
    ArenaSizer s;
    for (int i = 0; i < 4; ++i) s.add(lim.entries * sizeof(uint32_t));  // keys, values x 2
    s.add(lim.buckets * sizeof(Bucket));
    s.add(lim.segments * sizeof(Bucket)).add(lim.segments * sizeof(Bucket));
    s.add(lim.segments * sizeof(uint32_t)).add(lim.segments * sizeof(uint32_t));
    s.add(lim.groups * sizeof(Bucket)).add(lim.groups * sizeof(Bucket));
    s.add(2 * lim.windows * kMaxReduceParts * sizeof(Bucket)).add(sizeof(size_t)).add(lim.sort_bytes);
    return s;
  }

  void swap(DeviceMsm& o) {
    std::swap(config_, o.config_);
    std::swap(own_copies_, o.own_copies_);
    std::swap(limits_, o.limits_);
    std::swap(keys_, o.keys_);
    std::swap(values_, o.values_);
    std::swap(buckets_, o.buckets_);
    std::swap(carries_, o.carries_);
    std::swap(weighted_, o.weighted_);
    std::swap(sums_, o.sums_);
    std::swap(partials_, o.partials_);
    std::swap(end_, o.end_);
    std::swap(sort_temp_, o.sort_temp_);
    std::swap(sort_bytes_, o.sort_bytes_);
    std::swap(host_sums_, o.host_sums_);
    std::swap(events_, o.events_);
  }

  Config config_;
  BaseCopies own_copies_;
  Limits limits_;
  std::array<uint32_t*, 2> keys_{}, values_{};
  Bucket* buckets_ = nullptr;
  msm_kernels::Carries<F> carries_{};
  Bucket *weighted_ = nullptr, *sums_ = nullptr, *partials_ = nullptr;
  size_t* end_ = nullptr;
  unsigned char* sort_temp_ = nullptr;
  size_t sort_bytes_ = 0;
  void* host_sums_ = nullptr;
  std::array<cudaEvent_t, 6> events_{};
};

}  // namespace snarkd::gpu
