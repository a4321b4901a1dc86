// snarkd/gpu_prover: the GPU backend, instantiated once per curve (gpu_backend_bls12_381.cu,
// gpu_backend_bn254.cu) so the two compile in parallel. This file holds what the backend owns
// and decides: its slots (taken and given back), its resident keys (found, uploaded, adopted,
// evicted) and the device room it plans with; each concern it delegates has its own header:
//   device_key.cuh       a key as the device holds it (points, lists, matrices, a, b, c buffers)
//   key_upload.cuh       a key's placement on the device and its upload
//   host_evaluation.cuh  a, b, c evaluated on the host for keys placed without their matrices
//   slot.cuh             a slot, the shape a key needs of it and its layout (written once)
//   proof_run.cuh        one proof's stages on one slot, timed by CUDA events
//   host_transfer.cuh    staged uploads, host buffers the device copies from, the clock
//   kernels.cuh          the prover's own small kernels
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpu/cuda_check.cuh"
#include "gpu_prover/device_key.cuh"
#include "gpu_prover/gpu_backend.h"
#include "gpu_prover/host_evaluation.cuh"
#include "gpu_prover/host_transfer.cuh"
#include "gpu_prover/key_upload.cuh"
#include "gpu_prover/proof_run.cuh"
#include "gpu_prover/slot.cuh"

namespace snarkd::gpu_prover {

template <class E>
class GpuBackend final : public groth16::Backend<E> {
  using Fr = groth16::Fr<E>;
  using Slot = detail::Slot<E>;
  using DeviceKey = detail::DeviceKey<E>;
  using Matrices = detail::Matrices;

 public:
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
      ASSIGN_OR_RETURN(auto s, Slot::create(i));
      b->free_.push_back(s.get());
      b->slots_.push_back(std::move(s));
    }
    b->key_upload_ = std::make_unique<detail::KeyUpload<E>>(b->options_, *b->uploader_, b->slot_plan_, o.slots);
    return std::unique_ptr<groth16::Backend<E>>(std::move(b));
  }

  ~GpuBackend() override {
    cudaSetDevice(options_.device);
    slots_.clear();
    keys_.clear();
    key_upload_.reset();
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
    const uint64_t fp = detail::KeyUpload<E>::fingerprint(pk);
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
    std::optional<detail::AbcLease<E>> abc;
    if (key->matrices == Matrices::kCpu) {
      auto e0 = detail::Clock::now();
      abc.emplace(*key);
      RETURN_IF_ERROR(detail::evaluate_on_host<E>(*key, pk, witness, abc->data()));
      out.timings.evaluate_ms = detail::ms_between(e0, detail::Clock::now());
    }
    auto t0 = detail::Clock::now();
    Slot* slot = acquire(key->active_slots);
    auto t1 = detail::Clock::now();
    out.timings.slot_wait_ms = detail::ms_between(t0, t1);
    Status st = slot_plan_.size(*slot, slot_plan_.shape_for(*key));
    if (st.ok()) st = detail::ProofRun<E>::run(*slot, *key, pk, witness, abc ? abc->data() : nullptr, epoch_, out);
    if (!st.ok()) cudaStreamSynchronize(slot->stream);  // leave the slot idle for the next proof
    out.timings.slot_held_ms = detail::ms_between(t1, detail::Clock::now());
    release(slot);
    if (!st.ok()) return st;
    return out;
  }

 private:
  explicit GpuBackend(const GpuBackendOptions& o) : options_(o), slot_plan_(options_) {}

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
    const uint64_t fp = detail::KeyUpload<E>::fingerprint(pk);
    if (it != keys_.end() && it->second->fingerprint == fp) return it->second;
    if (it != keys_.end()) keys_.erase(it);  // another key now lives at this address
    auto t0 = detail::Clock::now();
    ASSIGN_OR_RETURN(auto key, upload_making_room(pk, fp));
    upload_ms = detail::ms_between(t0, detail::Clock::now());
    keys_[&pk] = key;
    return key;
  }

  // Uploads pk into the device room there is; when the device is full, once more after dropping
  // the keys that can be uploaded again (not after an adoption that already freed part of pk).
  Result<std::shared_ptr<DeviceKey>> upload_making_room(const groth16::ProvingKey<E>& pk, uint64_t fp,
                                                        groth16::ProvingKey<E>* consume = nullptr) {
    auto upload = [&]() -> Result<std::shared_ptr<DeviceKey>> {
      ASSIGN_OR_RETURN(size_t room, device_room());
      return key_upload_->upload(pk, fp, room, consume);
    };
    auto first = upload();
    if (!first.ok() && first.status().code() == StatusCode::kResourceExhausted && !pk.adopted &&
        evict_unadopted()) {
      return upload();
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

  GpuBackendOptions options_;
  detail::SlotPlan<E> slot_plan_;  // reads options_
  std::shared_ptr<void> uploader_hold_;  // reserve_host's handle for the upload buffers
  std::unique_ptr<detail::StagedUploader> uploader_;
  std::unique_ptr<detail::KeyUpload<E>> key_upload_;  // uses uploader_ and slot_plan_
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
