// snarkd/gpu_prover (internal): a proving key as one device holds it: its points (resident, or a
// host copy in the device layout that each MSM streams), the density lists, the matrices in the
// form its a, b, c are evaluated from, the NTT tables; for a key evaluated on the host, the
// compact host matrices and the a, b, c buffers the slots copy from.
#pragma once

#include <cuda_runtime.h>

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "gpu/arena.cuh"
#include "gpu/batch_add.cuh"
#include "gpu/field_constants.cuh"
#include "gpu/msm.cuh"
#include "gpu/ntt.cuh"
#include "gpu_prover/gpu_backend.h"
#include "gpu_prover/host_transfer.cuh"
#include "r1cs/compact.h"

namespace snarkd::gpu_prover::detail {

// The device types of one curve.
template <class E>
struct Curve {
  using G1 = typename E::G1;
  using G2 = typename E::G2;
  using Fr = groth16::Fr<E>;
  using FrD = typename gpu::DeviceFieldOf<Fr>::type;
  using Ntt = gpu::DeviceNtt<typename Fr::Params>;
  using Msm1 = gpu::DeviceMsm<G1>;
  using Msm2 = gpu::DeviceMsm<G2>;
  using Add1 = gpu::DeviceBatchAdd<G1>;
  using Add2 = gpu::DeviceBatchAdd<G2>;
  using P1 = typename Msm1::Point;
  using P2 = typename Msm2::Point;
  static_assert(sizeof(FrD) == sizeof(Fr));
};

// Copies of the bases the slots' MSM plans allow: the option, or (0) up to kAutoBaseCopies.
inline uint32_t plan_copies(const GpuBackendOptions& o) { return o.base_copies ? o.base_copies : kAutoBaseCopies; }

// Where a key's a, b, c are evaluated: on the host, or on the device from CSR or compact rows.
enum class Matrices { kCpu, kCsr, kCompact };
inline const char* matrices_name(Matrices m) {
  return m == Matrices::kCsr ? "csr" : m == Matrices::kCompact ? "compact" : "cpu";
}

template <class FrD>
struct Csr {
  uint64_t* row_start = nullptr;
  uint32_t* column = nullptr;
  FrD* value = nullptr;
  uint32_t rows = 0;
};
// Compact rows (r1cs::CoefficientIndex): coefficients as u16 indices into the key's dictionary.
struct CompactRows {
  uint32_t* row_start = nullptr;
  uint32_t* column = nullptr;
  uint16_t* coeff = nullptr;
  uint32_t rows = 0;
};

// The key's matrices in the compact form, when their coefficients and sizes allow it.
template <class E>
std::optional<r1cs::CoefficientIndex<groth16::Fr<E>>> compact_index(const groth16::ProvingKey<E>& pk) {
  using Fr = groth16::Fr<E>;
  const r1cs::SparseMatrix<Fr>* ms[3] = {&pk.a, &pk.b, pk.c ? &*pk.c : nullptr};
  for (const auto* m : ms) {
    if (m && m->nonzeros() >= (size_t(1) << 32)) return std::nullopt;  // u32 row starts
  }
  auto index = r1cs::CoefficientIndex<Fr>::of(ms);
  if (!index.ok()) return std::nullopt;
  return std::move(*index);
}

// The proving key in device memory. Shared so that an evicted key stays alive until the proofs
// using it finish.
template <class E>
struct DeviceKey {
  using T = Curve<E>;
  using Fr = typename T::Fr;
  using FrD = typename T::FrD;
  using P1 = typename T::P1;
  using P2 = typename T::P2;

  uint64_t fingerprint = 0;
  gpu::DeviceArena arena;
  // Queries are density-compressed, as bellperson stores them: A and C keep only the variables
  // whose point is not the identity, B the host key's list (ProvingKey::b_variables); each
  // list is in *_dense (null: all variables). A variable absent from B (three in four in a
  // Filecoin PoRep circuit) then costs neither device memory nor MSM work; C's identities for
  // the constant and public inputs go too.
  // Each query holds `base_copies` blocks of its count of points (BaseCopies; copy 0 is the
  // plain bases), the copies' windows chosen for the query's count.
  P1 *a = nullptr, *b1 = nullptr, *c = nullptr, *h = nullptr;
  P2* b2 = nullptr;
  uint32_t base_copies = 1;
  gpu::BaseCopies copies_g1(size_t count) const { return T::Msm1::copies_for(count, base_copies); }
  gpu::BaseCopies copies_g2(size_t count) const { return T::Msm2::copies_for(count, base_copies); }
  uint32_t *a_dense = nullptr, *b_dense = nullptr, *c_dense = nullptr;
  size_t a_count = 0, b_count = 0, c_count = 0;
  Matrices matrices = Matrices::kCpu;
  Csr<FrD> qa, qb, qc;
  CompactRows ka, kb, kc;
  FrD* dictionary = nullptr;
  uint32_t one_index = 0xffffffffu;
  bool has_c = false;
  // Slots proofs with this key may use: as many as the device holds beside it (at least one).
  uint32_t active_slots = 1;
  typename T::Ntt ntt;
  uint32_t num_variables = 0, num_public = 0, log_n = 0;
  size_t h_count = 0;
  poly::QuotientConvention convention{};
  // The points did not fit (or exceed GpuBackendOptions::key_memory_limit): a copy in the
  // device layout stays in (pinned) host memory, converted once, and each MSM streams it
  // through the slot's chunk buffers. The copies are compressed by the same lists.
  bool streamed = false;
  // Adopted (Backend::adopt_key): the host key's points are gone, so it is never evicted to
  // make room for another key.
  bool adopted = false;
  // The streamed copy: every query by its list, in the device layout.
  size_t streamed_copy_bytes() const {
    return (a_count + b_count + c_count + h_count) * sizeof(P1) + b_count * sizeof(P2);
  }
  size_t streamed_host_bytes() const { return streamed ? streamed_copy_bytes() : 0; }
  std::shared_ptr<void> host_hold;  // GpuBackendOptions::reserve_host's handle for the copy
  HostBuffer<P1> host_a, host_b1, host_c, host_h;
  HostBuffer<P2> host_b2;
  bool host_pinned() const {
    return host_a.pinned() && host_b1.pinned() && host_c.pinned() && host_h.pinned() && host_b2.pinned();
  }
  Fr z_inv;  // 1 / (g^n - 1) for kDivideByZ
  size_t n() const { return size_t(1) << log_n; }

  // Evaluated on the host (matrices == kCpu). An adopted key's matrices move here in the compact
  // form (6 bytes a nonzero where the host key's CSR takes 36; columns are witness indices).
  struct HostMatrices {
    r1cs::CompactMatrix a, b, c;
    std::vector<Fr> dictionary;
    bool has_c = false;
    size_t bytes() const { return a.bytes() + b.bytes() + c.bytes() + dictionary.capacity() * sizeof(Fr); }
  };
  std::optional<HostMatrices> host_matrices;
  // Host buffers of a, b, c (3n each, page-locked where granted), one per slot: prove_start
  // takes one and evaluates into it before it waits for a slot, so one proof's a, b, c are
  // computed while another proof holds the device; the slot copies them from there.
  std::vector<std::unique_ptr<HostBuffer<Fr>>> abc_buffers;
  std::vector<HostBuffer<Fr>*> abc_free;
  std::shared_ptr<void> abc_hold;  // GpuBackendOptions::reserve_host's handle for the buffers
  std::mutex abc_mu;
  std::condition_variable abc_cv;
  HostBuffer<Fr>* take_abc() {
    std::unique_lock lock(abc_mu);
    abc_cv.wait(lock, [&] { return !abc_free.empty(); });
    auto* b = abc_free.back();
    abc_free.pop_back();
    return b;
  }
  void give_back_abc(HostBuffer<Fr>* b) {
    {
      std::lock_guard lock(abc_mu);
      abc_free.push_back(b);
    }
    abc_cv.notify_one();
  }
};

// One of a key's host a, b, c buffers, for one proof.
template <class E>
class AbcLease {
 public:
  explicit AbcLease(DeviceKey<E>& key) : key_(&key), buffer_(key.take_abc()) {}
  AbcLease(const AbcLease&) = delete;
  AbcLease& operator=(const AbcLease&) = delete;
  ~AbcLease() {
    if (buffer_) key_->give_back_abc(buffer_);
  }
  groth16::Fr<E>* data() const { return buffer_->data(); }

 private:
  DeviceKey<E>* key_ = nullptr;
  HostBuffer<groth16::Fr<E>>* buffer_ = nullptr;
};

}  // namespace snarkd::gpu_prover::detail
