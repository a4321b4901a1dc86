// snarkd/gpu_prover: the GPU backend's implementation, instantiated once per curve
// (gpu_backend_bls12_381.cu, gpu_backend_bn254.cu) so the two compile in parallel.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/thread_pool.h"
#include "gpu/arena.cuh"
#include "gpu/batch_add.cuh"
#include "gpu/cuda_check.cuh"
#include "gpu/field_constants.cuh"
#include "gpu/msm.cuh"
#include "gpu/ntt.cuh"
#include "gpu_prover/gpu_backend.h"
#include "gpu_prover/host_transfer.cuh"
#include "gpu_prover/kernels.cuh"
#include "r1cs/compact.h"

namespace snarkd::gpu_prover {

template <class E>
class GpuBackend final : public groth16::Backend<E> {
 public:
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

  static Result<std::unique_ptr<groth16::Backend<E>>> create(const GpuBackendOptions& o) {
    if (o.slots == 0) return invalid_argument("GPU backend: slots must be at least 1");
    if (o.base_copies > kMaxBaseCopies) {
      return invalid_argument("GPU backend: base_copies must be at most " +
                              std::to_string(kMaxBaseCopies));
    }
    int count = 0;
    SNARKD_CUDA_RETURN_IF_ERROR(cudaGetDeviceCount(&count));
    if (o.device < 0 || o.device >= count) {
      return invalid_argument("GPU backend: device " + std::to_string(o.device) + " of " +
                              std::to_string(count));
    }
    auto b = std::unique_ptr<GpuBackend>(new GpuBackend(o));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaSetDevice(o.device));
    if (o.reserve_host) {
      ASSIGN_OR_RETURN(b->uploader_hold_, o.reserve_host(2 * detail::StagedUploader::kChunkBytes, "GPU upload staging"));
    }
    ASSIGN_OR_RETURN(b->uploader_, detail::StagedUploader::create());
    // The backend's clock: every interval is measured from this event.
    SNARKD_CUDA_RETURN_IF_ERROR(cudaEventCreate(&b->epoch_));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaEventRecord(b->epoch_, b->uploader_->stream()));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaEventSynchronize(b->epoch_));
    b->epoch_host_ = detail::Clock::now();
    for (uint32_t i = 0; i < o.slots; ++i) {
      auto s = std::make_unique<Slot>();
      s->index = i;
      SNARKD_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
      SNARKD_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&s->copy_stream, cudaStreamNonBlocking));
      for (int i = 0; i < 2; ++i) {
        SNARKD_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&s->chunk_ready[i], cudaEventDisableTiming));
        SNARKD_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&s->chunk_free[i], cudaEventDisableTiming));
      }
      for (auto& e : s->events) SNARKD_CUDA_RETURN_IF_ERROR(cudaEventCreate(&e));
      b->free_.push_back(s.get());
      b->slots_.push_back(std::move(s));
    }
    return std::unique_ptr<groth16::Backend<E>>(std::move(b));
  }

  ~GpuBackend() override {
    cudaSetDevice(options_.device);
    slots_.clear();
    keys_.clear();
    uploader_.reset();
    if (epoch_) cudaEventDestroy(epoch_);
  }

  const char* name() const override { return "gpu"; }
  uint32_t concurrency() const override { return uint32_t(slots_.size()); }

  void forget_key(const groth16::ProvingKey<E>& pk) override {
    std::lock_guard lock(key_mu_);
    keys_.erase(&pk);  // running proofs hold their own reference to the device copy
  }

  Result<size_t> adopt_key(groth16::ProvingKey<E>& pk) override {
    if (pk.adopted) return invalid_argument("GPU backend: the key was already adopted");
    SNARKD_CUDA_RETURN_IF_ERROR(cudaSetDevice(options_.device));
    std::lock_guard lock(key_mu_);
    const uint64_t fp = fingerprint(pk);
    auto it = keys_.find(&pk);
    if (it != keys_.end()) keys_.erase(it);
    auto key = upload_making_room(pk, fp, &pk);
    if (!key.ok()) return key.status().with_context("GPU backend: adopting the key");
    // What the upload left: the points (resident path) and the matrices the device evaluates.
    auto drop = [](auto& v) { std::decay_t<decltype(v)>().swap(v); };
    drop(pk.a_query);
    drop(pk.b1_query);
    drop(pk.b2_query);
    drop(pk.c_query);
    drop(pk.h_query);
    drop(pk.b_variables);
    if ((*key)->matrices != Matrices::kCpu || (*key)->host_matrices) {
      pk.a = r1cs::SparseMatrix<Fr>();
      pk.b = r1cs::SparseMatrix<Fr>();
      if (pk.c) pk.c = r1cs::SparseMatrix<Fr>();
    }
    pk.adopted = true;
    (*key)->adopted = true;
    keys_[&pk] = *key;
    return (*key)->streamed_host_bytes() + ((*key)->host_matrices ? (*key)->host_matrices->bytes() : 0);
  }

  Result<groth16::PendingProof<E>> prove_start(const groth16::ProvingKey<E>& pk,
                                               std::span<const Fr> witness) override {
    RETURN_IF_ERROR(groth16::check_witness_shape(pk, witness));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaSetDevice(options_.device));
    groth16::PendingProof<E> out;
    out.timings.device_epoch = epoch_host_;
    ASSIGN_OR_RETURN(auto key, resident_key(pk, out.timings.key_upload_ms));
    // Evaluated on the host: before waiting for a slot, so the device works on another proof
    // meanwhile (the engine runs a thread per slot).
    std::optional<AbcLease> abc;
    if (key->matrices == Matrices::kCpu) {
      auto e0 = detail::Clock::now();
      abc.emplace(*key);
      RETURN_IF_ERROR(evaluate_on_host(*key, pk, witness, abc->data()));
      out.timings.evaluate_ms = detail::ms_between(e0, detail::Clock::now());
    }
    auto t0 = detail::Clock::now();
    Slot* slot = acquire(key->active_slots);
    auto t1 = detail::Clock::now();
    out.timings.slot_wait_ms = detail::ms_between(t0, t1);
    Status st = run(*slot, *key, pk, witness, abc ? abc->data() : nullptr, out);
    if (!st.ok()) cudaStreamSynchronize(slot->stream);  // leave the slot idle for the next proof
    out.timings.slot_held_ms = detail::ms_between(t1, detail::Clock::now());
    release(slot);
    if (!st.ok()) return st;
    return out;
  }

 private:
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
  // Where a key's a, b, c are evaluated.
  enum class Matrices { kCpu, kCsr, kCompact };
  static const char* matrices_name(Matrices m) {
    return m == Matrices::kCsr ? "csr" : m == Matrices::kCompact ? "compact" : "cpu";
  }

  // The proving key in device memory. Shared so that an evicted key stays alive until the
  // proofs using it finish.
  struct DeviceKey {
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
    gpu::BaseCopies copies_g1(size_t count) const { return Msm1::copies_for(count, base_copies); }
    gpu::BaseCopies copies_g2(size_t count) const { return Msm2::copies_for(count, base_copies); }
    uint32_t *a_dense = nullptr, *b_dense = nullptr, *c_dense = nullptr;
    size_t a_count = 0, b_count = 0, c_count = 0;
    Matrices matrices = Matrices::kCpu;
    Csr qa, qb, qc;
    CompactRows ka, kb, kc;
    FrD* dictionary = nullptr;
    uint32_t one_index = 0xffffffffu;
    bool has_c = false;
    // Slots proofs with this key may use: as many as the device holds beside it (at least one).
    uint32_t active_slots = 1;
    Ntt ntt;
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
    detail::HostBuffer<P1> host_a, host_b1, host_c, host_h;
    detail::HostBuffer<P2> host_b2;
    bool host_pinned() const {
      return host_a.pinned() && host_b1.pinned() && host_c.pinned() && host_h.pinned() &&
             host_b2.pinned();
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
    std::vector<std::unique_ptr<detail::HostBuffer<Fr>>> abc_buffers;
    std::vector<detail::HostBuffer<Fr>*> abc_free;
    std::shared_ptr<void> abc_hold;  // GpuBackendOptions::reserve_host's handle for the buffers
    std::mutex abc_mu;
    std::condition_variable abc_cv;
    detail::HostBuffer<Fr>* take_abc() {
      std::unique_lock lock(abc_mu);
      abc_cv.wait(lock, [&] { return !abc_free.empty(); });
      auto* b = abc_free.back();
      abc_free.pop_back();
      return b;
    }
    void give_back_abc(detail::HostBuffer<Fr>* b) {
      {
        std::lock_guard lock(abc_mu);
        abc_free.push_back(b);
      }
      abc_cv.notify_one();
    }
  };
  // One of a key's host a, b, c buffers, for one proof.
  class AbcLease {
   public:
    explicit AbcLease(DeviceKey& key) : key_(&key), buffer_(key.take_abc()) {}
    AbcLease(const AbcLease&) = delete;
    AbcLease& operator=(const AbcLease&) = delete;
    ~AbcLease() {
      if (buffer_) key_->give_back_abc(buffer_);
    }
    Fr* data() const { return buffer_->data(); }

   private:
    DeviceKey* key_ = nullptr;
    detail::HostBuffer<Fr>* buffer_ = nullptr;
  };

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
      return {std::max(variables, o.variables), std::max(domain, o.domain),
              std::max(h_count, o.h_count),     std::max(stream_points, o.stream_points),
              std::max(g2_points, o.g2_points), std::max(g1_points, o.g1_points)};
    }
    size_t add1_points() const { return std::min(variables, g1_points); }
  };

  static constexpr int kEvents = 512;
  // A streamed MSM runs in at most kStreamChunks chunks (so a proof's events stay bounded), each
  // at least kMinStreamChunk points.
  static constexpr size_t kStreamChunks = 16;
  static constexpr size_t kMinStreamChunk = 1024;
  static size_t stream_chunk_points(const DeviceKey& key) {
    const size_t most = std::max<size_t>(key.num_variables, key.h_count);
    return std::max(kMinStreamChunk, (most + kStreamChunks - 1) / kStreamChunks);
  }
  // What a slot needs to prove with this key: a streamed key's MSMs see one chunk at a time, a
  // resident key's at most msm_chunk_points.
  Shape slot_shape(const DeviceKey& key) const {
    const size_t nv = key.num_variables;
    if (!key.streamed) {
      const size_t cap = options_.msm_chunk_points ? options_.msm_chunk_points : SIZE_MAX;
      return {nv, key.n(), key.h_count, 0, std::min(key.b_count, cap),
              std::min(std::max(nv, key.h_count), cap)};
    }
    const size_t chunk = stream_chunk_points(key);
    return {nv, key.n(), key.h_count, chunk, std::min(nv, chunk), chunk};
  }

  struct Slot {
    cudaStream_t stream = nullptr;
    cudaEvent_t events[kEvents] = {};
    int used_events = 0;
    Shape shape;
    gpu::DeviceArena arena;
    FrD *w = nullptr, *a = nullptr, *b = nullptr, *c = nullptr;
    FrD* gathered = nullptr;  // one run's witness entries of a compressed query
    uint32_t index = 0;       // in slots_
    std::atomic<size_t> device_bytes{0};  // its arena's, readable while another thread owns it
    uint32_t* bad_row = nullptr;
    Msm1 msm1;
    Msm2 msm2;
    Add1 add1;
    Add2 add2;
    Fr* pinned = nullptr;  // staging: the witness
    size_t pinned_count = 0;
    std::shared_ptr<void> pinned_hold;  // GpuBackendOptions::reserve_host's handle for the staging
    uint32_t* pinned_bad_row = nullptr;
    // Streamed keys: two device chunk buffers (G2-sized, reused for G1), a copy stream, and
    // events saying a chunk has arrived / its buffer may be refilled.
    P2* chunk_device[2] = {nullptr, nullptr};
    cudaStream_t copy_stream = nullptr;
    cudaEvent_t chunk_ready[2] = {nullptr, nullptr}, chunk_free[2] = {nullptr, nullptr};

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
      msm1 = Msm1();
      msm2 = Msm2();
      add1 = Add1();
      add2 = Add2();
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

  explicit GpuBackend(const GpuBackendOptions& o) : options_(o) {}

  // A free slot among the first `active` (a key the device holds beside fewer slots than the
  // backend has uses only those; the others keep their memory unallocated).
  Slot* acquire(uint32_t active) {
    std::unique_lock lock(slot_mu_);
    auto usable = [&] {
      return std::find_if(free_.begin(), free_.end(), [&](Slot* s) { return s->index < active; });
    };
    slot_cv_.wait(lock, [&] { return usable() != free_.end(); });
    auto it = usable();
    Slot* s = *it;
    free_.erase(it);
    return s;
  }
  void release(Slot* s) {
    {
      std::lock_guard lock(slot_mu_);
      free_.push_back(s);
    }
    slot_cv_.notify_all();  // waiters may differ in the slots they may take
  }

  // A cheap identity for a host key: its sizes and a sample of its points and coefficients.
  static uint64_t fingerprint(const groth16::ProvingKey<E>& pk) {
    uint64_t h = 1469598103934665603ull;
    auto mix = [&](const void* p, size_t bytes) {
      const auto* c = static_cast<const unsigned char*>(p);
      for (size_t i = 0; i < bytes; ++i) h = (h ^ c[i]) * 1099511628211ull;
    };
    auto mix_u64 = [&](uint64_t v) { mix(&v, sizeof(v)); };
    mix_u64(pk.num_variables);
    mix_u64(pk.num_public);
    mix_u64(pk.log_domain_size);
    mix_u64(uint64_t(pk.convention));
    mix_u64(pk.a.nonzeros());
    mix_u64(pk.b.nonzeros());
    mix_u64(pk.c ? pk.c->nonzeros() + 1 : 0);
    auto sample = [&](const auto& v) {
      mix_u64(v.size());
      if (!v.empty()) {
        mix(&v.front(), sizeof(v.front()));
        mix(&v[v.size() / 2], sizeof(v.front()));
        mix(&v.back(), sizeof(v.front()));
      }
    };
    sample(pk.a_query);
    sample(pk.b_variables);
    sample(pk.b1_query);
    sample(pk.b2_query);
    sample(pk.c_query);
    sample(pk.h_query);
    sample(pk.a.value);
    sample(pk.b.value);
    mix(&pk.vk.alpha1, sizeof(pk.vk.alpha1));
    mix(&pk.delta1, sizeof(pk.delta1));
    return h;
  }

  static Status check_key(const groth16::ProvingKey<E>& pk) {
    const size_t n = pk.domain_size();
    const size_t nv = pk.num_variables;
    if (pk.a.rows() > n || pk.b.rows() != pk.a.rows() || (pk.c && pk.c->rows() != pk.a.rows())) {
      return invalid_argument("proving key: QAP has " + std::to_string(pk.a.rows()) +
                              " rows for a domain of " + std::to_string(n));
    }
    RETURN_IF_ERROR(groth16::check_query_sizes(pk, "proving key"));
    const r1cs::SparseMatrix<Fr>* const matrices[3] = {&pk.a, &pk.b, pk.c ? &*pk.c : nullptr};
    for (const auto* m : matrices) {
      if (m && m->variables_referenced() > nv) {
        return invalid_argument("proving key: a QAP row references a variable past " +
                                std::to_string(nv));
      }
    }
    if (n >= (size_t(1) << 31) || nv >= (size_t(1) << 31)) {
      return invalid_argument("proving key: sizes above 2^31 are not supported on the GPU");
    }
    return Status();
  }

  Result<std::shared_ptr<DeviceKey>> resident_key(const groth16::ProvingKey<E>& pk, double& upload_ms) {
    std::lock_guard lock(key_mu_);
    auto it = keys_.find(&pk);
    // An adopted key's host vectors are gone: its address names it (forget_key comes before
    // it is freed).
    if (it != keys_.end() && pk.adopted && it->second->adopted) return it->second;
    if (pk.adopted) {
      return Status(StatusCode::kFailedPrecondition,
                    "GPU backend: the key was handed to this device (its host copy freed) and has since been "
                    "dropped from it; load the key again");
    }
    const uint64_t fp = fingerprint(pk);
    if (it != keys_.end() && it->second->fingerprint == fp) return it->second;
    if (it != keys_.end()) keys_.erase(it);  // another key now lives at this address
    auto t0 = detail::Clock::now();
    ASSIGN_OR_RETURN(auto key, upload_making_room(pk, fp));
    upload_ms = detail::ms_between(t0, detail::Clock::now());
    keys_[&pk] = key;
    return key;
  }

  // upload_key; when the device is full, once more after dropping the keys that can be uploaded
  // again (not after an adoption that already freed part of pk).
  Result<std::shared_ptr<DeviceKey>> upload_making_room(const groth16::ProvingKey<E>& pk, uint64_t fp,
                                                        groth16::ProvingKey<E>* consume = nullptr) {
    auto first = upload_key(pk, fp, consume);
    if (!first.ok() && first.status().code() == StatusCode::kResourceExhausted && !pk.adopted &&
        evict_unadopted()) {
      return upload_key(pk, fp, consume);
    }
    return first;
  }

  // Makes room on the device: drops every key that can be uploaded again (not the adopted ones,
  // whose host copies are gone). Keys in use stay alive through their shared owners.
  bool evict_unadopted() {
    bool any = false;
    for (auto it = keys_.begin(); it != keys_.end();) {
      if (it->second->adopted) {
        ++it;
      } else {
        it = keys_.erase(it);
        any = true;
      }
    }
    return any;
  }

  template <class C>
  static void fill_points(typename gpu::DeviceMsm<C>::Point* out, std::span<const ec::Affine<C>> in) {
    struct Raw {
      typename C::Field x, y;
    };
    static_assert(sizeof(Raw) == sizeof(*out));
    for (size_t i = 0; i < in.size(); ++i) {
      Raw r{in[i].infinity ? C::Field::zero() : in[i].x, in[i].infinity ? C::Field::zero() : in[i].y};
      std::memcpy(static_cast<void*>(out + i), &r, sizeof(Raw));
    }
  }

  template <class C>
  Status upload_points(typename gpu::DeviceMsm<C>::Point* dst, std::span<const ec::Affine<C>> src) {
    ThreadPool& pool = ThreadPool::global();
    return uploader_->upload(dst, src.size(), [&](auto* staging, size_t first, size_t k) {
      pool.parallel_for(k, [&](size_t lo, size_t hi) {
        fill_points<C>(staging + lo, src.subspan(first + lo, hi - lo));
      });
    });
  }

  // dst[i] = src[dense[i] - offset] (src[i] when dense is empty).
  template <class C>
  Status upload_points_at(typename gpu::DeviceMsm<C>::Point* dst, std::span<const ec::Affine<C>> src,
                          const std::vector<uint32_t>& dense, size_t offset) {
    if (dense.empty()) return upload_points<C>(dst, src);
    ThreadPool& pool = ThreadPool::global();
    return uploader_->upload(dst, dense.size(), [&](auto* staging, size_t first, size_t k) {
      pool.parallel_for(k, [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) {
          fill_points<C>(staging + i, src.subspan(dense[first + i] - offset, 1));
        }
      });
    });
  }

  // The variables whose query point is not the identity; empty when that is all of them.
  template <class Keep>
  static std::vector<uint32_t> dense_variables(size_t nv, Keep&& keep) {
    std::vector<uint32_t> dense;
    for (size_t i = 0; i < nv; ++i) {
      if (keep(i)) dense.push_back(uint32_t(i));
    }
    if (dense.size() == nv) dense.clear();
    return dense;
  }

  Result<uint32_t*> upload_index(const std::vector<uint32_t>& dense, gpu::DeviceArena& arena) {
    if (dense.empty()) return static_cast<uint32_t*>(nullptr);
    ASSIGN_OR_RETURN(uint32_t * out, arena.allocate<uint32_t>(dense.size(), "query density"));
    RETURN_IF_ERROR(upload_plain<uint32_t>(out, dense));
    return out;
  }

  template <class T>
  Status upload_plain(T* dst, std::span<const T> src) {
    ThreadPool& pool = ThreadPool::global();
    return uploader_->upload(dst, src.size(), [&](T* staging, size_t first, size_t k) {
      pool.parallel_for(k, [&](size_t lo, size_t hi) {
        std::memcpy(static_cast<void*>(staging + lo), src.data() + first + lo, (hi - lo) * sizeof(T));
      });
    });
  }

  Status upload_csr(const r1cs::SparseMatrix<Fr>& m, Csr& out, gpu::DeviceArena& arena) {
    out.rows = uint32_t(m.rows());
    ASSIGN_OR_RETURN(out.row_start, arena.allocate<uint64_t>(m.row_start.size(), "QAP rows"));
    ASSIGN_OR_RETURN(out.column, arena.allocate<uint32_t>(std::max<size_t>(m.nonzeros(), 1), "QAP columns"));
    ASSIGN_OR_RETURN(out.value, arena.allocate<FrD>(std::max<size_t>(m.nonzeros(), 1), "QAP coefficients"));
    RETURN_IF_ERROR(upload_plain<uint64_t>(out.row_start, m.row_start));
    RETURN_IF_ERROR(upload_plain<uint32_t>(out.column, m.column));
    return uploader_->upload(out.value, m.nonzeros(), [&](FrD* staging, size_t first, size_t k) {
      std::memcpy(static_cast<void*>(staging), m.value.data() + first, k * sizeof(FrD));
    });
  }

  static size_t csr_bytes(const r1cs::SparseMatrix<Fr>& m) {
    gpu::ArenaSizer s;
    s.add(m.row_start.size() * 8).add(std::max<size_t>(m.nonzeros(), 1) * 4);
    s.add(std::max<size_t>(m.nonzeros(), 1) * sizeof(FrD));
    return s.bytes();
  }

  // The variables whose point a query keeps (empty: all of them, or, for B and C, none: then the
  // query is num_variables identities indexed by the whole witness).
  struct QueryLists {
    std::vector<uint32_t> a, b, c;
  };

  // The host copy of a streamed query, laid out as a resident one: out[i] = in[dense[i] - offset];
  // with no list, `offset` identities, then `in`, then identities up to `count`.
  template <class C, class Pt>
  static Status fill_host(detail::HostBuffer<Pt>& out, std::span<const ec::Affine<C>> in,
                          const std::vector<uint32_t>& dense, size_t offset, size_t count) {
    RETURN_IF_ERROR(out.allocate(count, "streamed key points"));
    ThreadPool& pool = ThreadPool::global();
    if (!dense.empty()) {
      pool.parallel_for(count, [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) fill_points<C>(out.data() + i, in.subspan(dense[i] - offset, 1));
      });
      return Status();
    }
    const size_t end = std::min(count, offset + in.size());
    std::memset(static_cast<void*>(out.data()), 0, std::min(offset, count) * sizeof(Pt));  // identities
    if (end < count) std::memset(static_cast<void*>(out.data() + end), 0, (count - end) * sizeof(Pt));
    pool.parallel_for(end > offset ? end - offset : 0, [&](size_t lo, size_t hi) {
      fill_points<C>(out.data() + offset + lo, in.subspan(lo, hi - lo));
    });
    return Status();
  }

  // `consume` (adopt_key: the same key): each query's host points are freed once copied, so the
  // host holds one query twice at most, never the whole key.
  static Status fill_host_points(const groth16::ProvingKey<E>& pk, const QueryLists& lists, DeviceKey& key,
                                 groth16::ProvingKey<E>* consume) {
    using A1 = std::span<const ec::Affine<G1>>;
    using A2 = std::span<const ec::Affine<G2>>;
    const std::vector<uint32_t> none;
    auto done = [&](auto member) {
      if (!consume) return;
      consume->adopted = true;  // partly freed from here on
      auto& v = consume->*member;
      std::decay_t<decltype(v)>().swap(v);
    };
    using K = groth16::ProvingKey<E>;
    const size_t h_count = pk.h_query.size();
    RETURN_IF_ERROR((fill_host<G1>(key.host_a, A1(pk.a_query), lists.a, 0, key.a_count)));
    done(&K::a_query);
    // B's host points are already by density: in the order of its list.
    RETURN_IF_ERROR((fill_host<G1>(key.host_b1, A1(pk.b1_query), none, 0, key.b_count)));
    done(&K::b1_query);
    RETURN_IF_ERROR((fill_host<G2>(key.host_b2, A2(pk.b2_query), none, 0, key.b_count)));
    done(&K::b2_query);
    RETURN_IF_ERROR((fill_host<G1>(key.host_c, A1(pk.c_query), lists.c, pk.num_public + 1, key.c_count)));
    done(&K::c_query);
    RETURN_IF_ERROR((fill_host<G1>(key.host_h, A1(pk.h_query), none, 0, h_count)));
    done(&K::h_query);
    return Status();
  }

  static size_t compact_bytes(const r1cs::SparseMatrix<Fr>& m) {
    gpu::ArenaSizer s;
    s.add(m.row_start.size() * 4).add(std::max<size_t>(m.nonzeros(), 1) * 4);
    s.add(std::max<size_t>(m.nonzeros(), 1) * 2);
    return s.bytes();
  }

  Status upload_compact(const r1cs::SparseMatrix<Fr>& m, const r1cs::CoefficientIndex<Fr>& index,
                        CompactRows& out, gpu::DeviceArena& arena) {
    out.rows = uint32_t(m.rows());
    ASSIGN_OR_RETURN(out.row_start, arena.allocate<uint32_t>(m.row_start.size(), "QAP rows"));
    ASSIGN_OR_RETURN(out.column, arena.allocate<uint32_t>(std::max<size_t>(m.nonzeros(), 1), "QAP columns"));
    ASSIGN_OR_RETURN(out.coeff, arena.allocate<uint16_t>(std::max<size_t>(m.nonzeros(), 1), "QAP coefficient indices"));
    ThreadPool& pool = ThreadPool::global();
    RETURN_IF_ERROR(uploader_->upload(out.row_start, m.row_start.size(), [&](uint32_t* staging, size_t first, size_t k) {
      pool.parallel_for(k, [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) staging[i] = uint32_t(m.row_start[first + i]);
      });
    }));
    RETURN_IF_ERROR(upload_plain<uint32_t>(out.column, m.column));
    return uploader_->upload(out.coeff, m.nonzeros(), [&](uint16_t* staging, size_t first, size_t k) {
      index.indices(m, first, k, staging, pool);
    });
  }

  // The key's matrices in the compact form, when their coefficients and sizes allow it.
  static std::optional<r1cs::CoefficientIndex<Fr>> compact_index(const groth16::ProvingKey<E>& pk) {
    const r1cs::SparseMatrix<Fr>* ms[3] = {&pk.a, &pk.b, pk.c ? &*pk.c : nullptr};
    for (const auto* m : ms) {
      if (m && m->nonzeros() >= (size_t(1) << 32)) return std::nullopt;  // u32 row starts
    }
    auto index = r1cs::CoefficientIndex<Fr>::of(ms);
    if (!index.ok()) return std::nullopt;
    return std::move(*index);
  }

  // Device bytes the backend may plan with, less what other resident keys hold: the device's
  // free memory (less a margin) plus what the slots hold (they are resized for the key), or
  // device_memory_limit. Read once per key upload, never on a proof's path.
  Result<size_t> device_room() const {
    size_t free = 0, total = 0;
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free, &total));
    size_t held = 0;
    for (const auto& s : slots_) held += s->device_bytes.load();
    size_t room = free + held;
    room -= std::min(room, total / 64);  // the context, fragmentation
    if (options_.device_memory_limit) {
      size_t others = 0;
      for (const auto& [pk, key] : keys_) others += key->arena.capacity();
      const size_t limit = options_.device_memory_limit - std::min(options_.device_memory_limit, others);
      room = std::min(room, limit);
    }
    return room;
  }

  // `consume`: adopt_key's key (the same object as pk), whose streamed queries are freed as they
  // are copied (fill_host_points); the caller frees the rest.
  Result<std::shared_ptr<DeviceKey>> upload_key(const groth16::ProvingKey<E>& pk, uint64_t fp,
                                                groth16::ProvingKey<E>* consume = nullptr) {
    RETURN_IF_ERROR(check_key(pk));
    auto key = std::make_shared<DeviceKey>();
    key->fingerprint = fp;
    key->num_variables = pk.num_variables;
    key->num_public = pk.num_public;
    key->log_n = pk.log_domain_size;
    key->convention = pk.convention;
    key->h_count = poly::quotient_scalar_count(pk.convention, pk.domain_size());
    key->has_c = pk.c.has_value();
    const size_t nv = pk.num_variables, np = pk.num_public;
    QueryLists lists;
    lists.a = dense_variables(nv, [&](size_t i) { return !pk.a_query[i].infinity; });
    // B comes by density already (its list may also name variables whose points are the identity).
    if (pk.b_variables.size() < nv) lists.b = pk.b_variables;
    lists.c = dense_variables(nv, [&](size_t i) { return i > np && !pk.c_query[i - np - 1].infinity; });
    auto count_of = [&](const std::vector<uint32_t>& d) { return d.empty() ? nv : d.size(); };
    key->a_count = count_of(lists.a);
    // A key with no B variable (or no real C point) keeps that query full length, all
    // identities: an empty list means all variables.
    const bool b_none = pk.b_variables.empty();
    key->b_count = count_of(lists.b);
    // The constant's and the inputs' C identities keep C from being all dense, so an empty C
    // list means no real C point.
    key->c_count = count_of(lists.c);
    auto points_bytes = [&](uint32_t copies) {
      gpu::ArenaSizer points;
      points.add(copies * key->a_count * sizeof(P1)).add(copies * key->b_count * sizeof(P1));
      points.add(copies * key->c_count * sizeof(P1)).add(copies * key->h_count * sizeof(P1));
      points.add(copies * key->b_count * sizeof(P2));
      return points.bytes();
    };
    std::optional<r1cs::CoefficientIndex<Fr>> coefficients;
    if (options_.evaluate_on_device && options_.compact_matrices) coefficients = compact_index(pk);
    const Matrices device_form = !options_.evaluate_on_device ? Matrices::kCpu
                                 : coefficients               ? Matrices::kCompact
                                                              : Matrices::kCsr;
    // Everything but the points: the lists (they stay resident on both paths: a streamed query
    // is gathered the same way) and the matrices in the given form.
    auto rest_bytes = [&](Matrices form) {
      gpu::ArenaSizer rest;
      for (const auto* d : {&lists.a, &lists.b, &lists.c}) rest.add(std::max<size_t>(d->size(), 1) * 4);
      const r1cs::SparseMatrix<Fr>* ms[3] = {&pk.a, &pk.b, pk.c ? &*pk.c : nullptr};
      for (const auto* m : ms) {
        if (!m) continue;
        if (form == Matrices::kCsr) rest.add(csr_bytes(*m));
        if (form == Matrices::kCompact) rest.add(compact_bytes(*m));
      }
      if (form == Matrices::kCompact) rest.add(coefficients->dictionary().size() * sizeof(FrD));
      return rest.bytes();
    };
    // Placements in order of preference: the first that leaves room for one slot is taken;
    // one whose allocation still fails gives way to the next.
    struct Placement {
      bool streamed;
      Matrices form;
    };
    std::vector<Placement> placements;
    const bool points_over_limit = options_.key_memory_limit > 0 && points_bytes(1) > options_.key_memory_limit;
    for (bool streamed : {false, true}) {
      if (!streamed && points_over_limit) continue;
      placements.push_back({streamed, device_form});
      if (device_form != Matrices::kCpu) placements.push_back({streamed, Matrices::kCpu});
    }
    ASSIGN_OR_RETURN(size_t room, device_room());
    // The NTT's tables (Ntt::create, outside the key's arena): half the domain's twiddles and
    // the coset powers' split tables, bounded here.
    room -= std::min(room, (pk.domain_size() / 2 + (size_t(1) << 17)) * sizeof(FrD));
    auto slot_need = [&](const Placement& p) -> Result<size_t> {
      key->streamed = p.streamed;
      key->matrices = p.form;
      return slot_bytes(slot_shape(*key));
    };
    size_t first = placements.size() - 1;
    for (size_t i = 0; i < placements.size(); ++i) {
      ASSIGN_OR_RETURN(size_t slot, slot_need(placements[i]));
      const size_t bytes = rest_bytes(placements[i].form) + (placements[i].streamed ? 0 : points_bytes(1));
      if (bytes + slot <= room) {
        first = i;
        break;
      }
    }
    bool placed = false;
    uint32_t copies = 1;
    Status last;
    for (size_t i = first; i < placements.size() && !placed; ++i) {
      const Placement& p = placements[i];
      ASSIGN_OR_RETURN(const size_t slot, slot_need(p));
      const size_t rest = rest_bytes(p.form);
      copies = 1;
      if (!p.streamed) {
        ASSIGN_OR_RETURN(copies, choose_copies(points_bytes, rest, slot, room));
      }
      for (;; --copies) {  // fewer copies before the next placement
        auto whole = gpu::DeviceArena::create(rest + (p.streamed ? 0 : points_bytes(copies)),
                                              "GPU backend: the proving key");
        if (whole.ok()) {
          key->arena = std::move(*whole);
          placed = true;
        } else {
          last = whole.status();
        }
        if (placed || p.streamed || copies == 1) break;
      }
      if (placed) {
        const size_t left = room - std::min(room, key->arena.capacity());
        key->active_slots = uint32_t(std::clamp<size_t>(left / std::max<size_t>(slot, 1), 1, slots_.size()));
      }
    }
    if (!placed) {
      return Status(StatusCode::kResourceExhausted,
                    "GPU backend: the proving key does not fit the device even with its points "
                    "streamed and a, b, c evaluated on the CPU (" + last.message() + ")");
    }
    auto& ar = key->arena;
    if (!key->streamed) {
      const uint32_t k = copies;
      ASSIGN_OR_RETURN(key->a, ar.template allocate<P1>(k * key->a_count, "key A"));
      ASSIGN_OR_RETURN(key->b1, ar.template allocate<P1>(k * key->b_count, "key B1"));
      ASSIGN_OR_RETURN(key->c, ar.template allocate<P1>(k * key->c_count, "key C"));
      ASSIGN_OR_RETURN(key->h, ar.template allocate<P1>(k * key->h_count, "key H"));
      ASSIGN_OR_RETURN(key->b2, ar.template allocate<P2>(k * key->b_count, "key B2"));
      RETURN_IF_ERROR(upload_points_at<G1>(key->a, pk.a_query, lists.a, 0));
      RETURN_IF_ERROR(upload_points<G1>(key->h, pk.h_query));
      if (b_none) {
        SNARKD_CUDA_RETURN_IF_ERROR(
            cudaMemsetAsync(key->b1, 0, k * nv * sizeof(P1), uploader_->stream()));
        SNARKD_CUDA_RETURN_IF_ERROR(
            cudaMemsetAsync(key->b2, 0, k * nv * sizeof(P2), uploader_->stream()));
      } else {
        // In the order of B's list already.
        RETURN_IF_ERROR(upload_points<G1>(key->b1, pk.b1_query));
        RETURN_IF_ERROR(upload_points<G2>(key->b2, pk.b2_query));
      }
      if (lists.c.empty()) {
        // No C point is a real one: all identities (zero), indexed by the whole witness.
        SNARKD_CUDA_RETURN_IF_ERROR(
            cudaMemsetAsync(key->c, 0, k * nv * sizeof(P1), uploader_->stream()));
      } else {
        RETURN_IF_ERROR(upload_points_at<G1>(key->c, pk.c_query, lists.c, np + 1));
      }
      RETURN_IF_ERROR(make_copies(*key, k));
    } else {
      // An adopted key's copy replaces its host points, which the caller has accounted for.
      if (options_.reserve_host && !consume) {
        ASSIGN_OR_RETURN(key->host_hold, options_.reserve_host(key->streamed_copy_bytes(), "GPU streamed key copy"));
      }
      RETURN_IF_ERROR(fill_host_points(pk, lists, *key, consume));
    }
    ASSIGN_OR_RETURN(key->a_dense, upload_index(lists.a, ar));
    ASSIGN_OR_RETURN(key->b_dense, upload_index(lists.b, ar));
    ASSIGN_OR_RETURN(key->c_dense, upload_index(lists.c, ar));
    if (key->matrices == Matrices::kCsr) {
      RETURN_IF_ERROR(upload_csr(pk.a, key->qa, ar));
      RETURN_IF_ERROR(upload_csr(pk.b, key->qb, ar));
      if (pk.c) RETURN_IF_ERROR(upload_csr(*pk.c, key->qc, ar));
    } else if (key->matrices == Matrices::kCompact) {
      const auto& dict = coefficients->dictionary();
      ASSIGN_OR_RETURN(key->dictionary, ar.template allocate<FrD>(std::max<size_t>(dict.size(), 1), "QAP dictionary"));
      RETURN_IF_ERROR(uploader_->upload(key->dictionary, dict.size(), [&](FrD* staging, size_t first, size_t k) {
        std::memcpy(static_cast<void*>(staging), dict.data() + first, k * sizeof(FrD));
      }));
      for (size_t i = 0; i < dict.size(); ++i) {
        if (dict[i] == Fr::one()) key->one_index = uint32_t(i);
      }
      RETURN_IF_ERROR(upload_compact(pk.a, *coefficients, key->ka, ar));
      RETURN_IF_ERROR(upload_compact(pk.b, *coefficients, key->kb, ar));
      if (pk.c) RETURN_IF_ERROR(upload_compact(*pk.c, *coefficients, key->kc, ar));
    } else {
      RETURN_IF_ERROR(prepare_host_evaluation(pk, *key, consume, coefficients));
    }
    Fr shift = pk.convention == poly::QuotientConvention::kSnarkjsOddCoset
                   ? poly::root_of_unity<Fr>(pk.log_domain_size + 1)
                   : poly::coset_shift<Fr>();
    ASSIGN_OR_RETURN(key->ntt, Ntt::create(pk.log_domain_size, shift));
    key->z_inv = (shift.pow(ff::BigInt<1>::from_u64(pk.domain_size())) - Fr::one()).inverse();
    return key;
  }

  // A key whose a, b, c are evaluated on the host: one buffer of a, b, c per slot (prove_start
  // evaluates into one before it waits for a slot) and, for a key being adopted (`consume`, the
  // same object as pk) whose coefficients allow it, its matrices in the compact form; the host
  // key's CSR is then freed before the buffers are allocated, so the two never add up.
  Status prepare_host_evaluation(const groth16::ProvingKey<E>& pk, DeviceKey& key, groth16::ProvingKey<E>* consume,
                                 std::optional<r1cs::CoefficientIndex<Fr>>& coefficients) {
    if (consume) {
      if (!coefficients) coefficients = compact_index(pk);
      if (coefficients) {
        typename DeviceKey::HostMatrices m;
        auto a = r1cs::compact_rows(pk.a, *coefficients);
        auto b = r1cs::compact_rows(pk.b, *coefficients);
        Result<r1cs::CompactMatrix> c = pk.c ? r1cs::compact_rows(*pk.c, *coefficients) : r1cs::CompactMatrix();
        if (a.ok() && b.ok() && c.ok()) {  // else the host key keeps its CSR
          m.a = std::move(*a);
          m.b = std::move(*b);
          m.c = std::move(*c);
          m.dictionary = coefficients->dictionary();
          m.has_c = pk.c.has_value();
          key.host_matrices = std::move(m);
          consume->adopted = true;  // partly freed from here on
          consume->a = r1cs::SparseMatrix<Fr>();
          consume->b = r1cs::SparseMatrix<Fr>();
          if (consume->c) consume->c = r1cs::SparseMatrix<Fr>();
        }
      }
    }
    const size_t per = 3 * key.n();
    if (options_.reserve_host) {
      ASSIGN_OR_RETURN(key.abc_hold, options_.reserve_host(slots_.size() * per * sizeof(Fr), "GPU host a, b, c"));
    }
    for (size_t i = 0; i < slots_.size(); ++i) {
      auto buffer = std::make_unique<detail::HostBuffer<Fr>>();
      RETURN_IF_ERROR(buffer->allocate(per, "a, b, c evaluated on the host"));
      key.abc_free.push_back(buffer.get());
      key.abc_buffers.push_back(std::move(buffer));
    }
    return Status();
  }

  // a, b, c of one proof on the host, into `abc` (3n: a, then b, then c), in parallel; the check
  // against C as on the device.
  static Status evaluate_on_host(const DeviceKey& key, const groth16::ProvingKey<E>& pk,
                                 std::span<const Fr> w, Fr* abc) {
    const size_t n = key.n();
    std::span<Fr> a(abc, n), b(abc + n, n), c(abc + 2 * n, n);
    ThreadPool& pool = ThreadPool::global();
    if (!key.host_matrices) return groth16::evaluate_into<E>(pk, w, a, b, c, pool);
    const auto& m = *key.host_matrices;
    const std::span<const Fr> dict(m.dictionary);
    // Columns are witness indices (no aux bit), so the input count is never read.
    auto dot = [&](const r1cs::CompactMatrix& q, size_t i) {
      return i < q.rows() ? r1cs::compact_row_dot<Fr>(q, dict, w, 0, i) : Fr::zero();
    };
    return groth16::evaluate_rows<Fr>(
        m.a.rows(), m.has_c, [&](size_t i) { return dot(m.a, i); }, [&](size_t i) { return dot(m.b, i); },
        [&](size_t i) { return dot(m.c, i); }, a, b, c, pool);
  }

  // The slots' MSM plans take keys with any number of copies the options allow.
  uint32_t plan_copies() const {
    return options_.base_copies ? options_.base_copies : kAutoBaseCopies;
  }
  typename Msm1::Config msm1_config(const Shape& shape) const {
    return {shape.g1_points, 0, plan_copies()};
  }
  typename Msm2::Config msm2_config(const Shape& shape) const {
    return {shape.g2_points, 0, plan_copies()};
  }

  // Device bytes of a slot's workspace for circuits up to `shape`, laid out as size_slot does:
  // the witness, a (then H's scalars), the check flag and the chunk buffers; then b and c, whose
  // memory the MSMs reuse once the quotient has consumed them (a slot's stream runs its
  // kernels in order): the gathered scalars of one run and the larger of G1's and G2's
  // workspaces (MSM and batch addition; the MSMs run one after the other).
  Result<size_t> slot_bytes(const Shape& shape) const {
    ASSIGN_OR_RETURN(size_t m1, Msm1::workspace_bytes(msm1_config(shape)));
    ASSIGN_OR_RETURN(size_t m2, Msm2::workspace_bytes(msm2_config(shape)));
    ASSIGN_OR_RETURN(size_t b1, Add1::workspace_bytes(shape.add1_points()));
    ASSIGN_OR_RETURN(size_t b2, Add2::workspace_bytes(shape.g2_points));
    // One entry per allocation: each is aligned on its own (a, b, c of a 4-element domain are
    // 128 bytes each but take 256 apiece).
    gpu::ArenaSizer fixed, bc, msms;
    fixed.add(shape.variables * sizeof(FrD)).add(shape.domain * sizeof(FrD)).add(sizeof(uint32_t));
    fixed.add(shape.stream_points * sizeof(P2)).add(shape.stream_points * sizeof(P2));
    bc.add(shape.domain * sizeof(FrD)).add(shape.domain * sizeof(FrD));
    msms.add(shape.add1_points() * sizeof(FrD)).add(std::max(m1 + b1, m2 + b2));
    return fixed.bytes() + std::max(bc.bytes(), msms.bytes());
  }

  // How many copies of a resident key's points to keep: the option (as many of them as
  // key_memory_limit allows), or (option 0) up to kAutoBaseCopies, as many as leave `room`
  // (device_room, less the NTT's tables) for the rest of the key and every slot's workspace.
  template <class PointsBytes>
  Result<uint32_t> choose_copies(PointsBytes&& points_bytes, size_t rest_bytes, size_t slot_bytes,
                                 size_t room) const {
    uint32_t copies = plan_copies();
    const size_t limit = options_.key_memory_limit;
    while (copies > 1 && limit > 0 && points_bytes(copies) > limit) --copies;
    if (options_.base_copies != 0 || copies == 1) return copies;
    const size_t reserve = slots_.size() * slot_bytes + rest_bytes;
    while (copies > 1 && points_bytes(copies) + reserve > room) --copies;
    return copies;
  }

  // Fills copies 1..k-1 of every query from copy 0 (the uploaded points), on the upload stream.
  Status make_copies(DeviceKey& key, uint32_t k) {
    key.base_copies = k;
    if (k == 1) return Status();
    cudaStream_t st = uploader_->stream();
    RETURN_IF_ERROR(Msm1::precompute(key.copies_g1(key.a_count), key.a, key.a_count, key.a, st));
    RETURN_IF_ERROR(Msm1::precompute(key.copies_g1(key.b_count), key.b1, key.b_count, key.b1, st));
    RETURN_IF_ERROR(Msm2::precompute(key.copies_g2(key.b_count), key.b2, key.b_count, key.b2, st));
    RETURN_IF_ERROR(Msm1::precompute(key.copies_g1(key.c_count), key.c, key.c_count, key.c, st));
    RETURN_IF_ERROR(Msm1::precompute(key.copies_g1(key.h_count), key.h, key.h_count, key.h, st));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(st));
    return Status();
  }

  Status size_slot(Slot& slot, const Shape& need) {
    if (slot.shape.covers(need) && slot.arena.capacity() > 0) return Status();
    // Grows only when a larger circuit arrives; never per proof.
    SNARKD_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(slot.stream));
    const Shape shape = slot.shape.max(need);
    slot.free_buffers();
    ASSIGN_OR_RETURN(size_t bytes, slot_bytes(shape));
    ASSIGN_OR_RETURN(slot.arena,
                     gpu::DeviceArena::create(bytes, "GPU backend: a slot's workspace"));
    auto& ar = slot.arena;
    ASSIGN_OR_RETURN(slot.w, ar.template allocate<FrD>(shape.variables, "witness"));
    ASSIGN_OR_RETURN(slot.a, ar.template allocate<FrD>(shape.domain, "a"));
    ASSIGN_OR_RETURN(slot.bad_row, ar.template allocate<uint32_t>(1, "check flag"));
    if (shape.stream_points > 0) {
      for (int i = 0; i < 2; ++i) {
        ASSIGN_OR_RETURN(slot.chunk_device[i], ar.template allocate<P2>(shape.stream_points, "key chunk"));
      }
    }
    const size_t fixed = ar.used();
    ASSIGN_OR_RETURN(slot.b, ar.template allocate<FrD>(shape.domain, "b"));
    ASSIGN_OR_RETURN(slot.c, ar.template allocate<FrD>(shape.domain, "c"));
    const size_t bc_end = ar.used();
    ar.set_used(fixed);  // the MSMs' memory: b and c are consumed by then
    ASSIGN_OR_RETURN(slot.gathered, ar.template allocate<FrD>(shape.add1_points(), "gathered scalars"));
    const size_t shared = ar.used();
    ASSIGN_OR_RETURN(slot.msm1, Msm1::create(msm1_config(shape), ar));
    ASSIGN_OR_RETURN(slot.add1, Add1::create(shape.add1_points(), ar));
    const size_t g1_end = ar.used();
    ar.set_used(shared);
    ASSIGN_OR_RETURN(slot.msm2, Msm2::create(msm2_config(shape), ar));
    ASSIGN_OR_RETURN(slot.add2, Add2::create(shape.g2_points, ar));
    ar.set_used(std::max({bc_end, g1_end, ar.used()}));
    slot.device_bytes = ar.capacity();
    // The witness only (4 GB at 2^27): a, b, c evaluated on the host come from the key's buffers.
    slot.pinned_count = shape.variables;
    if (options_.reserve_host) {
      ASSIGN_OR_RETURN(slot.pinned_hold, options_.reserve_host(slot.pinned_count * sizeof(Fr), "GPU slot staging"));
    }
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMallocHost(&slot.pinned, slot.pinned_count * sizeof(Fr)));
    SNARKD_CUDA_RETURN_IF_ERROR(cudaMallocHost(&slot.pinned_bad_row, sizeof(uint32_t)));
    slot.shape = shape;
    return Status();
  }

  // Event bookkeeping of one proof on one slot.
  class Marks {
   public:
    explicit Marks(Slot& s) : slot_(s) { slot_.used_events = 0; }
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
    Slot& slot_;
    std::vector<Span> spans_;
  };

  // Copies host field elements into the slot's pinned staging (in parallel) and uploads them.
  // The copy's interval starts after the host copy, so host time is never counted as device time.
  Result<int> stage_upload(Slot& slot, Marks& marks, std::span<const Fr> src, FrD* dst,
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
  Result<const uint32_t*> run_scalars(Slot& slot, const FrD* source, const uint32_t* dense, size_t lo,
                                      size_t len) {
    if (!dense) return reinterpret_cast<const uint32_t*>(source + lo);
    kernels::gather<<<detail::blocks_for(len), detail::kThreads, 0, slot.stream>>>(source, dense + lo, len,
                                                                                slot.gathered);
    SNARKD_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    return reinterpret_cast<const uint32_t*>(slot.gathered);
  }

  // One query's MSM over resident bases, in runs of at most `per` points (what the slot's
  // workspace was sized for; MSMs are linear, so the runs' results add up). A witness query is
  // classified first: the bases of its ones are added up, the rest go to Pippenger. A single
  // run may read the key's shifted copies of its bases.
  template <class C, class Add, class Msm>
  Result<ec::Jacobian<C>> resident_msm(Slot& slot, Marks& marks, Add& add, Msm& msm,
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
  Status run(Slot& slot, const DeviceKey& key, const groth16::ProvingKey<E>& pk,
             std::span<const Fr> witness, const Fr* abc, groth16::PendingProof<E>& out) {
    const size_t n = key.n(), nv = key.num_variables;
    const bool on_device = key.matrices != Matrices::kCpu;
    RETURN_IF_ERROR(size_slot(slot, slot_shape(key)));
    Marks marks(slot);
    cudaStream_t st = slot.stream;
    const uint32_t grid_n = detail::blocks_for(n);

    // Evaluate: a = A w, b = B w, c = C w (checked against a * b) or a * b.
    ASSIGN_OR_RETURN(int u1, stage_upload(slot, marks, witness, slot.w, 0, "upload.witness"));
    *slot.pinned_bad_row = 0xffffffffu;
    if (on_device) {
      FrD* const abc[3] = {slot.a, slot.b, slot.c};
      for (FrD* v : abc) SNARKD_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(v, 0, n * sizeof(FrD), st));
      const uint32_t rows = key.matrices == Matrices::kCsr ? key.qa.rows : key.ka.rows;
      const uint32_t grid_rows = detail::blocks_for(rows);
      auto rows_into = [&](const Csr& q, const CompactRows& k, FrD* out) {
        if (key.matrices == Matrices::kCsr) {
          kernels::sparse_rows<<<grid_rows, detail::kThreads, 0, st>>>(q.row_start, q.column, q.value,
                                                                       slot.w, rows, out);
        } else {
          kernels::compact_rows<<<grid_rows, detail::kThreads, 0, st>>>(
              k.row_start, k.column, k.coeff, key.dictionary, key.one_index, slot.w, rows, out);
        }
      };
      rows_into(key.qa, key.ka, slot.a);
      rows_into(key.qb, key.kb, slot.b);
      if (key.has_c) {
        rows_into(key.qc, key.kc, slot.c);
        SNARKD_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(slot.bad_row, 0xff, sizeof(uint32_t), st));
        kernels::check_rows<<<grid_rows, detail::kThreads, 0, st>>>(slot.a, slot.b, slot.c, rows, slot.bad_row);
        SNARKD_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(slot.pinned_bad_row, slot.bad_row, sizeof(uint32_t),
                                                    cudaMemcpyDeviceToHost, st));
      } else {
        kernels::product<<<grid_n, detail::kThreads, 0, st>>>(slot.a, slot.b, slot.c, uint32_t(n));
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
    kernels::from_montgomery<<<detail::blocks_for(key.h_count), detail::kThreads, 0, st>>>(slot.a, key.h_count);
    kernels::from_montgomery<<<detail::blocks_for(nv), detail::kThreads, 0, st>>>(slot.w, nv);
    SNARKD_CUDA_RETURN_IF_ERROR(cudaGetLastError());
    ASSIGN_OR_RETURN(int h1, marks.mark());
    marks.interval("quotient", h0, h1);

    if (key.streamed) return streamed_msms(slot, marks, key, pk, out);

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
    RETURN_IF_ERROR(marks.collect(epoch_, out.timings.device));
    fill_stage_totals(out.timings);
    out.timings.key_base_copies = key.base_copies;
    return Status();
  }

  // One MSM over the key's host copy: chunk k + 1 is copied on the copy stream while chunk k is
  // classified and multiplied on the compute stream; the streams order themselves through
  // events, so the host only enqueues. MSMs are linear, so the chunk results add up.
  template <class C, class Add, class Msm>
  Result<ec::Jacobian<C>> streamed_msm(Slot& slot, Marks& marks, Add& add, Msm& msm,
                                       const detail::HostBuffer<typename Msm::Point>& points,
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

  Status streamed_msms(Slot& slot, Marks& marks, const DeviceKey& key,
                       const groth16::ProvingKey<E>& pk, groth16::PendingProof<E>& out) {
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
    RETURN_IF_ERROR(marks.collect(epoch_, out.timings.device));
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

  GpuBackendOptions options_;
  std::shared_ptr<void> uploader_hold_;  // reserve_host's handle for the upload buffers
  std::unique_ptr<detail::StagedUploader> uploader_;
  cudaEvent_t epoch_ = nullptr;
  detail::Clock::time_point epoch_host_{};
  std::mutex key_mu_;
  std::map<const groth16::ProvingKey<E>*, std::shared_ptr<DeviceKey>> keys_;
  std::mutex slot_mu_;
  std::condition_variable slot_cv_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<Slot*> free_;
};

}  // namespace snarkd::gpu_prover
