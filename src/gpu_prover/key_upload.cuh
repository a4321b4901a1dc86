// snarkd/gpu_prover (internal): a proving key's placement on one device and its upload. The
// placement is the first of (points resident or streamed from the host) x (matrices on the
// device, compact or CSR, or a, b, c evaluated on the host) that leaves room for one slot; the
// upload converts the points to the device layout (density-compressed as bellperson stores
// them), makes the shifted copies of the bases, and uploads or prepares the matrices.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/thread_pool.h"
#include "gpu/arena.cuh"
#include "gpu/cuda_check.cuh"
#include "gpu_prover/device_key.cuh"
#include "gpu_prover/gpu_backend.h"
#include "gpu_prover/host_evaluation.cuh"
#include "gpu_prover/host_transfer.cuh"
#include "gpu_prover/slot.cuh"
#include "r1cs/compact.h"

namespace snarkd::gpu_prover::detail {

template <class E>
class KeyUpload {
 public:
  using T = Curve<E>;
  using G1 = typename T::G1;
  using G2 = typename T::G2;
  using Fr = typename T::Fr;
  using FrD = typename T::FrD;
  using Ntt = typename T::Ntt;
  using Msm1 = typename T::Msm1;
  using Msm2 = typename T::Msm2;
  using P1 = typename T::P1;
  using P2 = typename T::P2;

  // `slots`: the backend's slot count (each host-evaluated key keeps one a, b, c buffer a slot).
  KeyUpload(const GpuBackendOptions& options, StagedUploader& uploader, const SlotPlan<E>& slot_plan, size_t slots)
      : options_(options), uploader_(&uploader), slot_plan_(slot_plan), slots_(slots) {}

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

  // Places and uploads pk. `room`: the device bytes the backend may plan with for it (its free
  // memory and what the slots hold, or the configured limit, less the other keys); the NTT's
  // tables are taken off here. `consume`: adopt_key's key (the same object as pk), whose
  // streamed queries are freed as they are copied (fill_host_points); the caller frees the rest.
  Result<std::shared_ptr<DeviceKey<E>>> upload(const groth16::ProvingKey<E>& pk, uint64_t fp, size_t room,
                                               groth16::ProvingKey<E>* consume = nullptr) {
    RETURN_IF_ERROR(check_key(pk));
    auto key = std::make_shared<DeviceKey<E>>();
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
    // The NTT's tables (Ntt::create, outside the key's arena): half the domain's twiddles and
    // the coset powers' split tables, bounded here.
    room -= std::min(room, (pk.domain_size() / 2 + (size_t(1) << 17)) * sizeof(FrD));
    auto slot_need = [&](const Placement& p) -> Result<size_t> {
      key->streamed = p.streamed;
      key->matrices = p.form;
      return slot_plan_.bytes(slot_plan_.shape_for(*key));
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
        key->active_slots = uint32_t(std::clamp<size_t>(left / std::max<size_t>(slot, 1), 1, slots_));
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
      RETURN_IF_ERROR(prepare_host_evaluation(pk, *key, consume, coefficients, slots_, options_));
    }
    Fr shift = pk.convention == poly::QuotientConvention::kSnarkjsOddCoset
                   ? poly::root_of_unity<Fr>(pk.log_domain_size + 1)
                   : poly::coset_shift<Fr>();
    ASSIGN_OR_RETURN(key->ntt, Ntt::create(pk.log_domain_size, shift));
    key->z_inv = (shift.pow(ff::BigInt<1>::from_u64(pk.domain_size())) - Fr::one()).inverse();
    return key;
  }


 private:
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

  Status upload_csr(const r1cs::SparseMatrix<Fr>& m, Csr<FrD>& out, gpu::DeviceArena& arena) {
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
  static Status fill_host(HostBuffer<Pt>& out, std::span<const ec::Affine<C>> in,
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
  static Status fill_host_points(const groth16::ProvingKey<E>& pk, const QueryLists& lists, DeviceKey<E>& key,
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

  // How many copies of a resident key's points to keep: the option (as many of them as
  // key_memory_limit allows), or (option 0) up to kAutoBaseCopies, as many as leave `room`
  // (upload's room, less the NTT's tables) for the rest of the key and every slot's workspace.
  template <class PointsBytes>
  Result<uint32_t> choose_copies(PointsBytes&& points_bytes, size_t rest_bytes, size_t slot_bytes,
                                 size_t room) const {
    uint32_t copies = plan_copies(options_);
    const size_t limit = options_.key_memory_limit;
    while (copies > 1 && limit > 0 && points_bytes(copies) > limit) --copies;
    if (options_.base_copies != 0 || copies == 1) return copies;
    const size_t reserve = slots_ * slot_bytes + rest_bytes;
    while (copies > 1 && points_bytes(copies) + reserve > room) --copies;
    return copies;
  }

  // Fills copies 1..k-1 of every query from copy 0 (the uploaded points), on the upload stream.
  Status make_copies(DeviceKey<E>& key, uint32_t k) {
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

  const GpuBackendOptions& options_;
  StagedUploader* uploader_;
  const SlotPlan<E>& slot_plan_;
  size_t slots_;
};

}  // namespace snarkd::gpu_prover::detail
