// snarkd/gpu_prover: the Groth16 prover stages on a CUDA GPU, behind the same Backend contract
// as the CPU backend (groth16/prover.h).
//
// A backend owns one GPU. The proving key is made resident once per backend (points in the
// device layout, the QAP matrices for evaluation on the device, the NTT tables) and reused by
// every proof. K slots each own a device arena, a stream, events and pinned staging, sized once
// for the largest circuit seen; prove_start takes a free slot, runs evaluate, quotient and the
// five MSMs (with 0/1 classification and batch addition) on its stream, and frees the slot
// when the MSM results are on the host. Nothing on that path allocates or synchronizes the
// whole device, so slots used from different threads overlap.
//
// Plain C++: callers need no CUDA headers. Without CUDA compiled in, make_gpu_backend fails
// with kUnavailable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "base/status.h"
#include "groth16/prover.h"

namespace snarkd::gpu_prover {

struct GpuBackendOptions {
  int device = 0;
  uint32_t slots = 2;
  // a, b, c = A·w, B·w, C·w on the device from resident matrices (in the compact form when the
  // coefficients allow, see compact_matrices) when they fit beside the points and one slot;
  // otherwise, or with false, on the host before the proof takes a slot, into one of the key's
  // a, b, c buffers (one per slot), and uploaded from there (3 n elements a proof).
  bool evaluate_on_device = true;
  // Resident matrices as a dictionary of distinct coefficients and u16 indices (6 bytes a
  // nonzero with the column, where CSR takes 36): a PoRep partition's 722 M nonzeros take
  // 5.9 GB instead of 26. Keys with more than 65,536 distinct coefficients keep CSR.
  bool compact_matrices = true;
  // Points one MSM run takes at most: a longer query runs in pieces of this size whose results
  // add up, so a slot's MSM workspace (about 16 bytes a point per window, 34 GB for one run of
  // 2^27 points) stays bounded. 0: no limit. Runs in pieces use the plain bases (no copies).
  size_t msm_chunk_points = size_t(1) << 25;
  // Device bytes this backend plans for (keys and slots); 0: the device's free memory when a
  // key is uploaded. A key is placed in the first form that leaves room for one slot: points
  // and matrices resident; points resident, evaluation on the CPU; points streamed (below).
  size_t device_memory_limit = 0;
  // Bytes of points a key may keep resident (0: as many as fit). A key over the limit, or one
  // that does not fit, keeps its points in host memory and streams them through each slot in
  // chunks overlapped with the MSMs.
  size_t key_memory_limit = 0;
  // Shifted copies of each resident query's bases (gpu::BaseCopies): k copies cut the bucket
  // sets an MSM reduces from its windows to ceil(windows / k), for k times the points' device
  // memory and a precomputation at upload. 0: up to kAutoBaseCopies, as many as leave room for
  // every slot's workspace; 1: none. Streamed keys keep one. Default 1: on an H100, 4 copies
  // made BLS12-381 2^24 proofs 1.09x faster but its key upload 14.9 s instead of 1.4 s
  // (docs/perf.md, fifteenth session), a loss for a key used for fewer than ~120 proofs, and
  // a key that takes 4x its memory leaves less room for the next key.
  uint32_t base_copies = 1;
  // Page-locked host memory the backend keeps (a slot's staging, a streamed key's copy, a
  // host-evaluated key's a, b, c buffers, the upload buffers) is first reported here, when set, with its bytes and purpose; the handle
  // returned is held for as long as that memory lives, and an error refuses it. The engine
  // passes its memory budget's hook (MemoryBudget::host_hook). Unset: nothing is reported.
  std::function<Result<std::shared_ptr<void>>(size_t bytes, const std::string& what)> reserve_host;
};

inline constexpr uint32_t kAutoBaseCopies = 4;
inline constexpr uint32_t kMaxBaseCopies = 16;

// Whether this build has the CUDA backend at all.
bool gpu_backend_compiled();

template <class E>
Result<std::unique_ptr<groth16::Backend<E>>> make_gpu_backend(const GpuBackendOptions& options);

}  // namespace snarkd::gpu_prover
