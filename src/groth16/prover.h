// snarkd/groth16: the prover as explicit stages (shared/DESIGN.md):
//   evaluate  a = A w, b = B w, c = C w (or a * b for keys without C), with the satisfiability
//             check when C is known;
//   quotient  the H-MSM scalars by the key's convention;
//   msm       msm.a, msm.b1, msm.b2 (G2), msm.c (private variables), msm.h;
//   assemble  pi_A, pi_B, pi_C from the MSM results and fresh r, s.
// A Backend runs the first three in prove_start; prove_finish (CPU, cheap) assembles, so a GPU
// slot is free again as soon as prove_start returns.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/random.h"
#include "base/status.h"
#include "base/thread_pool.h"
#include "groth16/keys.h"
#include "msm/pippenger.h"
#include "poly/quotient.h"

namespace snarkd::groth16 {

// One stretch of device work measured with events on the slot's stream, in milliseconds on
// the backend's clock (time since the backend started), so intervals of different proofs and
// slots of one backend can be merged.
struct DeviceInterval {
  std::string stage;  // "upload", "evaluate", "ntt.a", "batch.a", "msm.a", ...
  double start_ms = 0, end_ms = 0;
  double ms() const { return end_ms - start_ms; }
};

// Total length of the union of the intervals (overlaps counted once).
inline double union_ms(std::vector<DeviceInterval> v) {
  std::sort(v.begin(), v.end(),
            [](const DeviceInterval& a, const DeviceInterval& b) { return a.start_ms < b.start_ms; });
  double total = 0, lo = 0, hi = -1;
  for (const auto& d : v) {
    if (d.start_ms > hi) {
      if (hi > lo) total += hi - lo;
      lo = d.start_ms;
      hi = d.end_ms;
    } else {
      hi = std::max(hi, d.end_ms);
    }
  }
  if (hi > lo) total += hi - lo;
  return total;
}

// Host wall time of each stage in milliseconds (the names match the timeline's stage names);
// a device backend adds its kernel intervals and how long the proof waited for and held a slot.
struct StageTimings {
  double evaluate_ms = 0, quotient_ms = 0;
  double msm_a_ms = 0, msm_b1_ms = 0, msm_b2_ms = 0, msm_c_ms = 0, msm_h_ms = 0;
  double assemble_ms = 0;
  double key_upload_ms = 0;  // making the key resident on the device (first use only)
  bool key_streamed = false;  // the key's points were streamed from host memory
  bool key_host_pinned = false;  // ... from page-locked memory (no staging copies)
  uint32_t key_base_copies = 0;  // shifted copies of the key's bases on the device (0: none there)
  // Where a, b, c were evaluated: "cpu", or on the device from "csr" or "compact" matrices.
  const char* key_matrices = "cpu";
  uint32_t active_slots = 0;  // slots the GPU backend uses with this key (0: not a GPU backend)
  double slot_wait_ms = 0, slot_held_ms = 0;
  std::vector<DeviceInterval> device;
  // The host time of the device clock's zero, so device intervals can be placed on a host
  // timeline (the epoch event is synchronized once at backend start, to within microseconds).
  std::chrono::steady_clock::time_point device_epoch{};

  double total_ms() const {
    return evaluate_ms + quotient_ms + msm_a_ms + msm_b1_ms + msm_b2_ms + msm_c_ms + msm_h_ms +
           assemble_ms;
  }
  // Time the device was executing this proof's work (from CUDA events, not lock time).
  double kernel_busy_ms() const { return union_ms(device); }
};

template <class E>
struct PendingProof {
  ec::Jacobian<typename E::G1> a, b1, c, h;
  ec::Jacobian<typename E::G2> b2;
  StageTimings timings;
};

template <class E>
class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;
  // Stages evaluate, quotient and msm. The witness is w[0..num_variables) with w[0] = 1.
  virtual Result<PendingProof<E>> prove_start(const ProvingKey<E>& pk,
                                              std::span<const Fr<E>> witness) = 0;
  // Drops whatever the backend keeps for this key (a device-resident copy). Call before the
  // key's memory is freed or reused; proofs already running keep their copy until they end.
  virtual void forget_key(const ProvingKey<E>& /*pk*/) {}
  // Takes the key over, for an engine whose only device this backend is: makes it resident now
  // and frees, query by query, the parts of pk it will not read again (the points, now on the
  // device or in the backend's own host layout; the matrices when a, b, c are evaluated on the
  // device), so the host never holds a whole second copy. pk keeps what prove_finish and the
  // verifier read and is marked adopted; forget_key drops the backend's copy as before, after
  // which pk cannot prove. Returns the host bytes the backend holds for the key (a streamed
  // copy of its points), which the caller now accounts for. kUnimplemented (pk untouched): the
  // backend proves from the host key (the CPU backend). Any other error with pk.adopted set:
  // the key was partly freed and must be loaded again.
  virtual Result<size_t> adopt_key(ProvingKey<E>& /*pk*/) {
    return Status(StatusCode::kUnimplemented, std::string(name()) + " backend: proves from the host key");
  }
  // How many prove_start calls the backend runs at once (its slots); more calls wait.
  virtual uint32_t concurrency() const { return 1; }
};

namespace detail {

class StageClock {
 public:
  double lap_ms() {
    auto now = std::chrono::steady_clock::now();
    double ms = std::chrono::duration<double, std::milli>(now - last_).count();
    last_ = now;
    return ms;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

}  // namespace detail

// Witness length and the constant, checked before any work.
template <class E>
Status check_witness_shape(const ProvingKey<E>& pk, std::span<const Fr<E>> witness) {
  if (witness.size() != pk.num_variables) {
    return invalid_argument("witness has " + std::to_string(witness.size()) +
                            " values but the key expects " + std::to_string(pk.num_variables));
  }
  if (!witness[0].is_one()) return invalid_argument("witness[0] must be 1");
  return Status();
}

// Stage evaluate, one pass over the rows in parallel: a_i = dot_a(i), b_i = dot_b(i) and either
// c_i = dot_c(i), checked against a_i b_i, or c_i = a_i b_i (has_c false), for i < rows; zero
// from there to the spans' common length (the domain). The error names the first row that fails.
template <class F, class DotA, class DotB, class DotC>
Status evaluate_rows(size_t rows, bool has_c, const DotA& dot_a, const DotB& dot_b, const DotC& dot_c,
                     std::span<F> a, std::span<F> b, std::span<F> c, ThreadPool& pool) {
  const size_t n = a.size();
  if (b.size() != n || c.size() != n || rows > n) {
    return invalid_argument("evaluate: " + std::to_string(rows) + " rows into vectors of " + std::to_string(n) +
                            ", " + std::to_string(b.size()) + " and " + std::to_string(c.size()));
  }
  std::atomic<size_t> first_bad{SIZE_MAX};
  pool.parallel_for(n, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) {
      if (i >= rows) {
        a[i] = b[i] = c[i] = F::zero();
        continue;
      }
      const F x = dot_a(i), y = dot_b(i), xy = x * y;
      a[i] = x;
      b[i] = y;
      if (!has_c) {
        c[i] = xy;
        continue;
      }
      c[i] = dot_c(i);
      if (!(xy == c[i])) {
        size_t seen = first_bad.load(std::memory_order_relaxed);
        while (i < seen && !first_bad.compare_exchange_weak(seen, i, std::memory_order_relaxed)) {
        }
        break;  // later rows of this chunk cannot come first
      }
    }
  });
  if (first_bad.load() != SIZE_MAX) {
    return invalid_argument("witness does not satisfy constraint " + std::to_string(first_bad.load()));
  }
  return Status();
}

// Stage evaluate from the key's CSR matrices into domain-sized spans.
template <class E>
Status evaluate_into(const ProvingKey<E>& pk, std::span<const Fr<E>> witness, std::span<Fr<E>> a,
                     std::span<Fr<E>> b, std::span<Fr<E>> c, ThreadPool& pool) {
  const size_t n = pk.domain_size();
  if (pk.a.rows() > n || pk.b.rows() != pk.a.rows() || (pk.c && pk.c->rows() > pk.a.rows())) {
    return invalid_argument("proving key: QAP has " + std::to_string(pk.a.rows()) +
                            " rows for a domain of " + std::to_string(n));
  }
  const auto* mc = pk.c ? &*pk.c : nullptr;
  return evaluate_rows<Fr<E>>(
      pk.a.rows(), mc != nullptr, [&](size_t i) { return pk.a.row_dot(i, witness); },
      [&](size_t i) { return pk.b.row_dot(i, witness); }, [&](size_t i) { return i < mc->rows() ? mc->row_dot(i, witness) : Fr<E>::zero(); }, a,
      b, c, pool);
}

// Stage evaluate: fills a, b, c (domain-sized; rows past the QAP are zero).
template <class E>
Status evaluate(const ProvingKey<E>& pk, std::span<const Fr<E>> witness, std::vector<Fr<E>>& a,
                std::vector<Fr<E>>& b, std::vector<Fr<E>>& c, ThreadPool& pool) {
  const size_t n = pk.domain_size();
  a.resize(n);
  b.resize(n);
  c.resize(n);
  return evaluate_into<E>(pk, witness, a, b, c, pool);
}

template <class E>
class CpuBackend final : public Backend<E> {
 public:
  explicit CpuBackend(ThreadPool& pool = ThreadPool::global()) : pool_(pool) {}
  const char* name() const override { return "cpu"; }

  Result<PendingProof<E>> prove_start(const ProvingKey<E>& pk,
                                      std::span<const Fr<E>> witness) override {
    using F = Fr<E>;
    using Int = typename F::Int;
    RETURN_IF_ERROR(check_witness_shape(pk, witness));
    RETURN_IF_ERROR(check_query_sizes(pk, "proving key"));
    PendingProof<E> out;
    detail::StageClock clock;
    std::vector<F> a, b, c;
    RETURN_IF_ERROR(evaluate(pk, witness, a, b, c, pool_));
    out.timings.evaluate_ms = clock.lap_ms();

    ASSIGN_OR_RETURN(auto domain, poly::Domain<F>::create(pk.log_domain_size));
    poly::compute_quotient<F>(domain, pk.convention, a, b, c);
    const size_t h_count = pk.h_query.size();
    std::vector<Int> h_scalars(h_count), w_scalars(witness.size()), b_scalars(pk.b_variables.size());
    to_canonical(std::span<const F>(a).first(h_count), h_scalars);
    to_canonical(witness, w_scalars);
    pool_.parallel_for(b_scalars.size(), [&](size_t begin, size_t end) {
      for (size_t k = begin; k < end; ++k) b_scalars[k] = w_scalars[pk.b_variables[k]];
    });
    out.timings.quotient_ms = clock.lap_ms();

    using G1 = typename E::G1;
    using G2 = typename E::G2;
    std::span<const Int> w(w_scalars);
    out.a = msm::msm<G1>(std::span<const G1Affine<E>>(pk.a_query), w, pool_);
    out.timings.msm_a_ms = clock.lap_ms();
    // B's points are those of b_variables, so its scalars are gathered to match.
    std::span<const Int> wb(b_scalars);
    out.b1 = msm::msm<G1>(std::span<const G1Affine<E>>(pk.b1_query), wb, pool_);
    out.timings.msm_b1_ms = clock.lap_ms();
    out.b2 = msm::msm<G2>(std::span<const G2Affine<E>>(pk.b2_query), wb, pool_);
    out.timings.msm_b2_ms = clock.lap_ms();
    out.c = msm::msm<G1>(std::span<const G1Affine<E>>(pk.c_query), w.subspan(pk.num_public + 1),
                         pool_);
    out.timings.msm_c_ms = clock.lap_ms();
    out.h = msm::msm<G1>(std::span<const G1Affine<E>>(pk.h_query), std::span<const Int>(h_scalars),
                         pool_);
    out.timings.msm_h_ms = clock.lap_ms();
    return out;
  }

 private:
  template <class F, class Int>
  void to_canonical(std::span<const F> in, std::vector<Int>& out) {
    pool_.parallel_for(in.size(), [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) out[i] = in[i].to_canonical();
    });
  }

  ThreadPool& pool_;
};

// Stage assemble: pi_A = alpha + A + r delta, pi_B = beta + B + s delta,
// pi_C = C + H + s pi_A + r pi_B1 - r s delta1.
template <class E>
Proof<E> prove_finish(const ProvingKey<E>& pk, PendingProof<E>& pending, const Fr<E>& r,
                      const Fr<E>& s) {
  detail::StageClock clock;
  using G1J = ec::Jacobian<typename E::G1>;
  auto rc = r.to_canonical(), sc = s.to_canonical();
  // r and s blind the proof; these multiplications are variable-time (see docs/security.md).
  G1J a = pending.a.add_mixed(pk.vk.alpha1).add(ec::mul_vartime(pk.delta1, rc));
  auto b2 = pending.b2.add_mixed(pk.vk.beta2).add(ec::mul_vartime(pk.vk.delta2, sc));
  G1J b1 = pending.b1.add_mixed(pk.beta1).add(ec::mul_vartime(pk.delta1, sc));
  G1J c = pending.c.add(pending.h)
              .add(ec::mul_vartime(a, sc))
              .add(ec::mul_vartime(b1, rc))
              .add(ec::mul_vartime(pk.delta1, (r * s).to_canonical()).neg());
  Proof<E> proof{a.to_affine(), b2.to_affine(), c.to_affine()};
  pending.timings.assemble_ms = clock.lap_ms();
  return proof;
}

// prove_start + prove_finish with r, s from `rng`.
template <class E>
Result<Proof<E>> prove(const ProvingKey<E>& pk, std::span<const Fr<E>> witness, Backend<E>& backend,
                       RandomSource& rng, StageTimings* timings = nullptr) {
  ASSIGN_OR_RETURN(auto pending, backend.prove_start(pk, witness));
  Fr<E> r = Fr<E>::random(rng), s = Fr<E>::random(rng);
  Proof<E> proof = prove_finish(pk, pending, r, s);
  if (timings) *timings = pending.timings;
  return proof;
}

}  // namespace snarkd::groth16
