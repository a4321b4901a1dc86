// snarkd/gpu_prover (internal): a, b, c evaluated on the host, for a key placed without its
// matrices on the device: the key's host matrices (an adopted key's move into the compact form)
// and a, b, c buffers, and one proof's evaluation into a buffer before it takes a slot.
#pragma once

#include <optional>
#include <span>

#include "base/thread_pool.h"
#include "gpu_prover/device_key.cuh"
#include "gpu_prover/gpu_backend.h"
#include "groth16/prover.h"
#include "r1cs/compact.h"

namespace snarkd::gpu_prover::detail {

// One buffer of a, b, c per slot (prove_start evaluates into one before it waits for a slot)
// and, for a key being adopted (`consume`, the same object as pk) whose coefficients allow it,
// its matrices in the compact form; the host key's CSR is then freed before the buffers are
// allocated, so the two never add up.
template <class E>
Status prepare_host_evaluation(const groth16::ProvingKey<E>& pk, DeviceKey<E>& key, groth16::ProvingKey<E>* consume,
                               std::optional<r1cs::CoefficientIndex<groth16::Fr<E>>>& coefficients,
                               size_t slots, const GpuBackendOptions& options) {
  using Fr = groth16::Fr<E>;
  if (consume) {
    if (!coefficients) coefficients = compact_index(pk);
    if (coefficients) {
      typename DeviceKey<E>::HostMatrices m;
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
  if (options.reserve_host) {
    ASSIGN_OR_RETURN(key.abc_hold, options.reserve_host(slots * per * sizeof(Fr), "GPU host a, b, c"));
  }
  for (size_t i = 0; i < slots; ++i) {
    auto buffer = std::make_unique<HostBuffer<Fr>>();
    RETURN_IF_ERROR(buffer->allocate(per, "a, b, c evaluated on the host"));
    key.abc_free.push_back(buffer.get());
    key.abc_buffers.push_back(std::move(buffer));
  }
  return Status();
}

// a, b, c of one proof on the host, into `abc` (3n: a, then b, then c), in parallel; the check
// against C as on the device.
template <class E>
Status evaluate_on_host(const DeviceKey<E>& key, const groth16::ProvingKey<E>& pk,
                        std::span<const groth16::Fr<E>> w, groth16::Fr<E>* abc) {
  using Fr = groth16::Fr<E>;
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

}  // namespace snarkd::gpu_prover::detail
