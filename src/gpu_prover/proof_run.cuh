// snarkd/gpu_prover (internal): one proof on one slot: the witness upload, a, b, c (evaluated on
// the device, or copied from the host's evaluation), the quotient's NTTs and the five MSMs
// (classified, batch-added, resident or streamed from the host), every stage bracketed by CUDA
// events on the slot's stream (device time, never host time).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "base/thread_pool.h"
#include "gpu/cuda_check.cuh"
#include "gpu/ntt.cuh"
#include "gpu_prover/device_key.cuh"
#include "gpu_prover/host_transfer.cuh"
#include "gpu_prover/kernels.cuh"
#include "gpu_prover/slot.cuh"
#include "groth16/prover.h"

namespace snarkd::gpu_prover::detail {

template <class E>
struct ProofRun {
  using T = Curve<E>;
  using G1 = typename T::G1;
  using G2 = typename T::G2;
  using Fr = typename T::Fr;
  using FrD = typename T::FrD;
  using P2 = typename T::P2;

  // Event bookkeeping of one proof on one slot.
  class Marks {
   public:
    explicit Marks(Slot<E>& s) : slot_(s) { slot_.used_events = 0; }
    Result<int> mark() {
      if (slot_.used_events == kEvents) return Status(StatusCode::kInternal, "GPU backend: out of events");
      int i = slot_.used_events++;
      SNARKD_CUDA_RETURN_IF_ERROR(cudaEventRecord(slot_.events[i], slot_.stream));
      return i;
    }
    void interval(std::string stage, int begin, int end) { spans_.push_back({std::move(stage), begin, end}); }
    // Once the stream has passed every mark.
    Status collect(cudaEvent_t epoch, std::vector<groth16::DeviceInterval>& out) const {
      for (const auto& s : spans_) {
        float a = 0, b = 0;
        SNARKD_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&a, epoch, slot_.events[s.begin]));
        SNARKD_CUDA_RETURN_IF_ERROR(cudaEventElapsedTime(&b, epoch, slot_.events[s.end]));
        out.push_back({s.stage, double(a), double(b)});
      }
      return Status();
    }

   private:
    struct Span {
      std::string stage;
      int begin, end;
    };
    Slot<E>& slot_;
    std::vector<Span> spans_;
  };

  // Copies host field elements into the slot's pinned staging (in parallel) and uploads them.
  // The copy's interval starts after the host copy, so host time is never counted as device time.
  static Result<int> stage_upload(Slot<E>& slot, Marks& marks, std::span<const Fr> src, FrD* dst,
                           size_t offset_in_pinned, const char* stage) {
    Fr* staging = slot.pinned + offset_in_pinned;
    ThreadPool::global().parallel_for(src.size(), [&](size_t lo, size_t hi) {
      std::memcpy(static_cast<void*>(staging + lo), src.data() + lo, (hi - lo) * sizeof(Fr));
    });
    ASSIGN_OR_RETURN(int begin, marks.mark());
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(dst, staging, src.size() * sizeof(Fr),
                                                cudaMemcpyHostToDevice, slot.stream));
    ASSIGN_OR_RETURN(int end, marks.mark());
    marks.interval(stage, begin, end);
    return end;
  }

  // One run's scalars: a compressed query's witness entries gathered into the slot, else the
  // source (the witness, or H's scalars) read in place. Canonical 8-word integers.
  static Result<const uint32_t*> run_scalars(Slot<E>& slot, const FrD* source, const uint32_t* dense, size_t lo,
                                      size_t len) {
    if (!dense) return reinterpret_cast<const uint32_t*>(source + lo);
    kernels::gather<<<blocks_for(len), kThreads, 0, slot.stream>>>(source, dense + lo, len,
                                                                                slot.gathered);
    SNARKD_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    return reinterpret_cast<const uint32_t*>(slot.gathered);
  }

  // One query's MSM over resident bases, in runs of at most `per` points (what the slot's
  // workspace was sized for; MSMs are linear, so the runs' results add up). A witness query is
  // classified first: the bases of its ones are added up, the rest go to Pippenger. A single
  // run may read the key's shifted copies of its bases.
  template <class C, class Add, class Msm>
  static Result<ec::Jacobian<C>> resident_msm(Slot<E>& slot, Marks& marks, Add& add, Msm& msm,
                                       const typename Msm::Point* bases, size_t n, size_t per,
                                       const gpu::BaseCopies& copies, const uint32_t* dense,
                                       const FrD* source, bool classify, const char* name,
                                       bool check_flag) {
    ec::Jacobian<C> sum = ec::Jacobian<C>::identity();
    per = std::max<size_t>(per, 1);
    const size_t runs = (n + per - 1) / per;
    const gpu::BaseCopies use = runs <= 1 ? copies : gpu::BaseCopies{};
    for (size_t k = 0; k < runs; ++k) {
      const size_t lo = k * per, len = std::min(per, n - lo);
      const auto* at = bases + lo;
      ASSIGN_OR_RETURN(int b0, marks.mark());
      ASSIGN_OR_RETURN(const uint32_t* scalars, run_scalars(slot, source, dense, lo, len));
      if (!classify) {
        ASSIGN_OR_RETURN(auto part, msm.run(at, len, Msm::prefer(len, use), scalars, len, nullptr, slot.stream));
        ASSIGN_OR_RETURN(int m1, marks.mark());
        marks.interval(std::string("msm.") + name, b0, m1);
        sum = sum.add(part);
        continue;
      }
      RETURN_IF_ERROR(add.launch(at, scalars, len, slot.stream));
      ASSIGN_OR_RETURN(int b1, marks.mark());
      marks.interval(std::string("batch.") + name, b0, b1);
      ASSIGN_OR_RETURN(auto split, add.finish(slot.stream));
      if (check_flag && *slot.pinned_bad_row != 0xffffffffu) {
        return invalid_argument("witness does not satisfy constraint " + std::to_string(*slot.pinned_bad_row));
      }
      sum = sum.add(split.ones_sum);
      if (split.others > 0) {
        ASSIGN_OR_RETURN(int m0, marks.mark());
        ASSIGN_OR_RETURN(auto rest, msm.run(at, len, Msm::prefer(split.others, use), add.other_scalars(),
                                            split.others, add.other_indices(), slot.stream));
        ASSIGN_OR_RETURN(int m1, marks.mark());
        marks.interval(std::string("msm.") + name, m0, m1);
        sum = sum.add(rest);
      }
    }
    return sum;
  }

  // `abc`: a, b, c evaluated on the host (3n), when the key's matrices are kCpu.
  // The slot is already sized for the key (SlotPlan::size); `epoch`: the backend's clock.
  static Status run(Slot<E>& slot, const DeviceKey<E>& key, const groth16::ProvingKey<E>& pk,
                    std::span<const Fr> witness, const Fr* abc, cudaEvent_t epoch, groth16::PendingProof<E>& out) {
    const size_t n = key.n(), nv = key.num_variables;
    const bool on_device = key.matrices != Matrices::kCpu;
    Marks marks(slot);
    cudaStream_t st = slot.stream;
    const uint32_t grid_n = blocks_for(n);

    // Evaluate: a = A w, b = B w, c = C w (checked against a * b) or a * b.
    ASSIGN_OR_RETURN(int u1, stage_upload(slot, marks, witness, slot.w, 0, "upload.witness"));
    *slot.pinned_bad_row = 0xffffffffu;
    if (on_device) {
      FrD* const abc[3] = {slot.a, slot.b, slot.c};
      for (FrD* v : abc) SNARKD_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(v, 0, n * sizeof(FrD), st));
      const uint32_t rows = key.matrices == Matrices::kCsr ? key.qa.rows : key.ka.rows;
      const uint32_t grid_rows = blocks_for(rows);
      auto rows_into = [&](const Csr<FrD>& q, const CompactRows& k, FrD* out) {
        if (key.matrices == Matrices::kCsr) {
          kernels::sparse_rows<<<grid_rows, kThreads, 0, st>>>(q.row_start, q.column, q.value,
                                                                       slot.w, rows, out);
        } else {
          kernels::compact_rows<<<grid_rows, kThreads, 0, st>>>(
              k.row_start, k.column, k.coeff, key.dictionary, key.one_index, slot.w, rows, out);
        }
      };
      rows_into(key.qa, key.ka, slot.a);
      rows_into(key.qb, key.kb, slot.b);
      if (key.has_c) {
        rows_into(key.qc, key.kc, slot.c);
        SNARKD_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(slot.bad_row, 0xff, sizeof(uint32_t), st));
        kernels::check_rows<<<grid_rows, kThreads, 0, st>>>(slot.a, slot.b, slot.c, rows, slot.bad_row);
        SNARKD_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(slot.pinned_bad_row, slot.bad_row, sizeof(uint32_t),
                                                    cudaMemcpyDeviceToHost, st));
      } else {
        kernels::product<<<grid_n, kThreads, 0, st>>>(slot.a, slot.b, slot.c, uint32_t(n));
      }
      SNARKD_CUDA_RETURN_IF_ERROR(cudaGetLastError());
      ASSIGN_OR_RETURN(int e1, marks.mark());
      marks.interval("evaluate", u1, e1);
    } else {
      // Evaluated by prove_start before it took the slot; copied straight from its buffer.
      if (!abc) return internal_error("GPU backend: a, b, c were not evaluated on the host");
      ASSIGN_OR_RETURN(int c0, marks.mark());
      FrD* const to[3] = {slot.a, slot.b, slot.c};
      for (int i = 0; i < 3; ++i) {
        SNARKD_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(to[i], abc + size_t(i) * n, n * sizeof(Fr),
                                                    cudaMemcpyHostToDevice, st));
      }
      ASSIGN_OR_RETURN(int c1, marks.mark());
      marks.interval("upload.abc", c0, c1);
    }
    out.timings.key_matrices = matrices_name(key.matrices);
    out.timings.active_slots = key.active_slots;

    // Quotient: each of a, b, c to the coset by an inverse NTT (natural -> bit-reversed), the
    // coset powers and a forward NTT (bit-reversed -> natural): no permutation pass.
    const char* names[3] = {"ntt.a", "ntt.b", "ntt.c"};
    FrD* vs[3] = {slot.a, slot.b, slot.c};
    for (int i = 0; i < 3; ++i) {
      ASSIGN_OR_RETURN(int q0, marks.mark());
      RETURN_IF_ERROR(key.ntt.inverse(vs[i], gpu::NttOrder::kNatural, gpu::NttOrder::kBitReversed, st));
      RETURN_IF_ERROR(key.ntt.scale_by_coset(vs[i], false, gpu::NttOrder::kBitReversed, st));
      RETURN_IF_ERROR(key.ntt.forward(vs[i], gpu::NttOrder::kBitReversed, gpu::NttOrder::kNatural, st));
      ASSIGN_OR_RETURN(int q1, marks.mark());
      marks.interval(names[i], q0, q1);
    }
    ASSIGN_OR_RETURN(int h0, marks.mark());
    RETURN_IF_ERROR(key.ntt.mul_sub(slot.a, slot.b, slot.c, st));
    if (key.convention == poly::QuotientConvention::kDivideByZ) {
      RETURN_IF_ERROR(key.ntt.scale(slot.a, key.z_inv, st));
      RETURN_IF_ERROR(key.ntt.coset_inverse(slot.a, st));
    }
    kernels::from_montgomery<<<blocks_for(key.h_count), kThreads, 0, st>>>(slot.a, key.h_count);
    kernels::from_montgomery<<<blocks_for(nv), kThreads, 0, st>>>(slot.w, nv);
    SNARKD_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    ASSIGN_OR_RETURN(int h1, marks.mark());
    marks.interval("quotient", h0, h1);

    if (key.streamed) return streamed_msms(slot, marks, key, epoch, out);

    // The five MSMs, from here on in the memory b and c held.
    const size_t g1 = slot.shape.g1_points, g2 = slot.shape.g2_points;
    ASSIGN_OR_RETURN(out.a, (resident_msm<G1>(slot, marks, slot.add1, slot.msm1, key.a, key.a_count,
                                              std::min(g1, slot.shape.add1_points()), key.copies_g1(key.a_count),
                                              key.a_dense, slot.w, true, "a", key.has_c)));
    ASSIGN_OR_RETURN(out.b1, (resident_msm<G1>(slot, marks, slot.add1, slot.msm1, key.b1, key.b_count,
                                               slot.shape.add1_points(), key.copies_g1(key.b_count),
                                               key.b_dense, slot.w, true, "b1", false)));
    ASSIGN_OR_RETURN(out.b2, (resident_msm<G2>(slot, marks, slot.add2, slot.msm2, key.b2, key.b_count, g2,
                                               key.copies_g2(key.b_count), key.b_dense, slot.w, true, "b2",
                                               false)));
    ASSIGN_OR_RETURN(out.c, (resident_msm<G1>(slot, marks, slot.add1, slot.msm1, key.c, key.c_count,
                                              slot.shape.add1_points(), key.copies_g1(key.c_count),
                                              key.c_dense, slot.w, true, "c", false)));
    ASSIGN_OR_RETURN(out.h, (resident_msm<G1>(slot, marks, slot.add1, slot.msm1, key.h, key.h_count, g1,
                                              key.copies_g1(key.h_count), nullptr, slot.a, false, "h",
                                              false)));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(st));
    RETURN_IF_ERROR(marks.collect(epoch, out.timings.device));
    fill_stage_totals(out.timings);
    out.timings.key_base_copies = key.base_copies;
    return Status();
  }

  // One MSM over the key's host copy: chunk k + 1 is copied on the copy stream while chunk k is
  // classified and multiplied on the compute stream; the streams order themselves through
  // events, so the host only enqueues. MSMs are linear, so the chunk results add up.
  template <class C, class Add, class Msm>
  static Result<ec::Jacobian<C>> streamed_msm(Slot<E>& slot, Marks& marks, Add& add, Msm& msm,
                                       const HostBuffer<typename Msm::Point>& points,
                                       const FrD* source, const uint32_t* dense, bool classify,
                                       const char* name) {
    using Pt = typename Msm::Point;
    const size_t n = points.size();
    const size_t per = std::min(slot.shape.stream_points * sizeof(P2) / sizeof(Pt),
                                std::max(kMinStreamChunk, (n + kStreamChunks - 1) / kStreamChunks));
    const size_t chunks = (n + per - 1) / per;
    Pt* device[2] = {reinterpret_cast<Pt*>(slot.chunk_device[0]), reinterpret_cast<Pt*>(slot.chunk_device[1])};
    auto stage_chunk = [&](size_t k) -> Status {
      const int b = int(k & 1);
      // The kernels that read this buffer last (recorded after them; a fresh event is complete).
      SNARKD_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(slot.copy_stream, slot.chunk_free[b], 0));
      const size_t lo = k * per, len = std::min(per, n - lo);
      SNARKD_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(device[b], points.data() + lo, len * sizeof(Pt),
                                                  cudaMemcpyHostToDevice, slot.copy_stream));
      SNARKD_CUDA_RETURN_IF_ERROR(cudaEventRecord(slot.chunk_ready[b], slot.copy_stream));
      return Status();
    };
    ec::Jacobian<C> sum = ec::Jacobian<C>::identity();
    if (n == 0) return sum;
    RETURN_IF_ERROR(stage_chunk(0));
    for (size_t k = 0; k < chunks; ++k) {
      const int b = int(k & 1);
      const size_t lo = k * per, len = std::min(per, n - lo);
      SNARKD_CUDA_RETURN_IF_ERROR(cudaStreamWaitEvent(slot.stream, slot.chunk_ready[b], 0));
      ASSIGN_OR_RETURN(int m0, marks.mark());
      ASSIGN_OR_RETURN(const uint32_t* chunk_scalars, run_scalars(slot, source, dense, lo, len));
      if (classify) RETURN_IF_ERROR(add.launch(device[b], chunk_scalars, len, slot.stream));
      if (k + 1 < chunks) RETURN_IF_ERROR(stage_chunk(k + 1));  // overlaps this chunk's kernels
      if (classify) {
        ASSIGN_OR_RETURN(auto split, add.finish(slot.stream));
        sum = sum.add(split.ones_sum);
        if (split.others > 0) {
          ASSIGN_OR_RETURN(auto rest,
                           msm.run(device[b], len, gpu::BaseCopies{}, add.other_scalars(),
                                   split.others, add.other_indices(), slot.stream));
          sum = sum.add(rest);
        }
      } else {
        ASSIGN_OR_RETURN(auto part, msm.run(device[b], len, gpu::BaseCopies{}, chunk_scalars, len,
                                            nullptr, slot.stream));
        sum = sum.add(part);
      }
      SNARKD_CUDA_RETURN_IF_ERROR(cudaEventRecord(slot.chunk_free[b], slot.stream));
      ASSIGN_OR_RETURN(int m1, marks.mark());
      marks.interval(std::string("msm.") + name, m0, m1);
    }
    return sum;
  }

  static Status streamed_msms(Slot<E>& slot, Marks& marks, const DeviceKey<E>& key, cudaEvent_t epoch,
                              groth16::PendingProof<E>& out) {
    // The satisfiability flag is read before any MSM (the resident path reads it later).
    SNARKD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(slot.stream));
    if (key.has_c && *slot.pinned_bad_row != 0xffffffffu) {
      return invalid_argument("witness does not satisfy constraint " + std::to_string(*slot.pinned_bad_row));
    }
    // The host copies are compressed as the resident queries are: a query with a list gets each
    // chunk's witness entries gathered.
    const FrD* w = slot.w;
    ASSIGN_OR_RETURN(out.a, (streamed_msm<G1>(slot, marks, slot.add1, slot.msm1, key.host_a, w, key.a_dense, true, "a")));
    ASSIGN_OR_RETURN(out.b1, (streamed_msm<G1>(slot, marks, slot.add1, slot.msm1, key.host_b1, w, key.b_dense, true, "b1")));
    ASSIGN_OR_RETURN(out.b2, (streamed_msm<G2>(slot, marks, slot.add2, slot.msm2, key.host_b2, w, key.b_dense, true, "b2")));
    ASSIGN_OR_RETURN(out.c, (streamed_msm<G1>(slot, marks, slot.add1, slot.msm1, key.host_c, w, key.c_dense, true, "c")));
    ASSIGN_OR_RETURN(out.h, (streamed_msm<G1>(slot, marks, slot.add1, slot.msm1, key.host_h, slot.a, nullptr, false, "h")));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(slot.stream));
    RETURN_IF_ERROR(marks.collect(epoch, out.timings.device));
    fill_stage_totals(out.timings);
    out.timings.key_streamed = true;
    out.timings.key_base_copies = key.base_copies;
    out.timings.key_host_pinned = key.host_pinned();
    return Status();
  }

  // The per-stage fields hold device time for this backend (host wall times mean little when
  // the host only enqueues); evaluate on the CPU keeps its host time.
  static void fill_stage_totals(groth16::StageTimings& t) {
    auto sum = [&](std::initializer_list<const char*> stages) {
      double total = 0;
      for (const auto& d : t.device) {
        for (const char* s : stages) {
          if (d.stage == s) total += d.ms();
        }
      }
      return total;
    };
    t.evaluate_ms += sum({"upload.witness", "evaluate", "upload.abc"});
    t.quotient_ms = sum({"ntt.a", "ntt.b", "ntt.c", "quotient"});
    t.msm_a_ms = sum({"batch.a", "msm.a"});
    t.msm_b1_ms = sum({"batch.b1", "msm.b1"});
    t.msm_b2_ms = sum({"batch.b2", "msm.b2"});
    t.msm_c_ms = sum({"batch.c", "msm.c"});
    t.msm_h_ms = sum({"msm.h"});
  }
};

}  // namespace snarkd::gpu_prover::detail
