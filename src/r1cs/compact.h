// snarkd/r1cs: compact constraint matrices, for circuits whose coefficients are few distinct
// field elements (Filecoin's PoRep: ±1, powers of two, Poseidon's constants and MDS entries).
//
// Each nonzero is a column (the variable, u32) and a 16-bit index into the system's dictionary of
// distinct coefficients: 6 bytes where CSR takes 36. Rows start at u32 offsets (a PoRep
// partition's matrices hold at most 310 million nonzeros each). `CompactCS` records a circuit
// into this form without values, as the shape mode counts it; `evaluate_compact` computes M·w
// for one matrix on the host, in parallel over rows.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/status.h"
#include "base/thread_pool.h"
#include "r1cs/cs.h"
#include "r1cs/r1cs.h"

namespace snarkd::r1cs {

// A hash of a field element's limbs, for dictionaries of coefficients.
template <class F>
struct FieldHash {
  size_t operator()(const F& f) const {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (uint64_t l : f.montgomery().limbs) h = (h ^ l) * 0xff51afd7ed558ccdull;
    return size_t(h ^ (h >> 32));
  }
};

inline constexpr size_t kMaxDictionary = 65536;  // distinct coefficients a u16 index reaches

struct CompactMatrix {
  std::vector<uint32_t> row_start{0};
  std::vector<uint32_t> var;     // Var::raw: an input's index, or an aux index with kAuxBit
  std::vector<uint16_t> coeff;   // index into CompactSystem::dictionary
  size_t rows() const { return row_start.size() - 1; }
  size_t nonzeros() const { return var.size(); }
  size_t bytes() const { return row_start.capacity() * 4 + var.capacity() * 4 + coeff.capacity() * 2; }
};

template <class F>
struct CompactSystem {
  uint32_t num_inputs = 1;  // with ONE
  uint32_t num_aux = 0;
  std::vector<F> dictionary;
  CompactMatrix a, b, c;
  size_t bytes() const {
    return dictionary.capacity() * sizeof(F) + a.bytes() + b.bytes() + c.bytes();
  }
};

// Records rows as bellperson's semantic form (canonical terms), without values. Fails (ok()
// false) past 65,536 distinct coefficients or 2^32 nonzeros in one matrix.
template <class F>
class CompactCS {
 public:
  using Field = F;
  using Lc = r1cs::Lc<F>;
  static constexpr bool kRecords = true;
  static constexpr bool kHasValues = false;

  Var alloc(const F&) { return Var::aux(sys_.num_aux++); }
  Var alloc_input(const F&) { return Var::input(sys_.num_inputs++); }
  template <class A, class B, class C>
  void enforce(const char*, A&& fa, B&& fb, C&& fc) {
    fill_rows(a_, b_, c_, fa, fb, fc);
    append(a_, sys_.a);
    append(b_, sys_.b);
    append(c_, sys_.c);
  }
  NoScope ns(const char*) { return {}; }
  NoScope ns(const char*, uint64_t) { return {}; }
  uint32_t num_inputs() const { return sys_.num_inputs; }
  uint32_t num_aux() const { return sys_.num_aux; }
  void reserve(size_t rows, size_t nnz_a, size_t nnz_b, size_t nnz_c) {
    for (auto* m : {&sys_.a, &sys_.b, &sys_.c}) m->row_start.reserve(rows + 1);
    sys_.a.var.reserve(nnz_a), sys_.a.coeff.reserve(nnz_a);
    sys_.b.var.reserve(nnz_b), sys_.b.coeff.reserve(nnz_b);
    sys_.c.var.reserve(nnz_c), sys_.c.coeff.reserve(nnz_c);
  }

  // Trimmed to size (each vector briefly twice over, one at a time).
  Result<CompactSystem<F>> finish() && {
    if (!status_.ok()) return status_;
    for (auto* m : {&sys_.a, &sys_.b, &sys_.c}) {
      m->row_start.shrink_to_fit();
      m->var.shrink_to_fit();
      m->coeff.shrink_to_fit();
    }
    sys_.dictionary.shrink_to_fit();
    return std::move(sys_);
  }

 private:
  void append(Lc& lc, CompactMatrix& m) {
    lc.canonicalize();
    for (const auto& t : lc.terms()) {
      auto [it, fresh] = index_.try_emplace(t.coeff, uint32_t(sys_.dictionary.size()));
      if (fresh) {
        if (sys_.dictionary.size() == kMaxDictionary && status_.ok()) {
          (void)(status_ = invalid_argument("more than 65,536 distinct coefficients: the circuit is not compact"));
        }
        sys_.dictionary.push_back(t.coeff);
      }
      m.var.push_back(t.var.raw);
      m.coeff.push_back(uint16_t(it->second));
    }
    if (m.var.size() > UINT32_MAX && status_.ok()) {
      (void)(status_ = invalid_argument("more than 2^32 nonzeros in one matrix"));
    }
    m.row_start.push_back(uint32_t(m.var.size()));
  }
  CompactSystem<F> sys_;
  std::unordered_map<F, uint32_t, FieldHash<F>> index_;
  Lc a_, b_, c_;
  Status status_;
};

// The distinct coefficients of CSR matrices (a key's A, B, C), sorted by their limbs, and each
// one's u16 index: how a CSR key is stored compactly (the GPU backend's resident matrices).
// Fails (kInvalidArgument) past kMaxDictionary distinct values.
template <class F>
class CoefficientIndex {
 public:
  static Result<CoefficientIndex> of(std::span<const SparseMatrix<F>* const> matrices,
                                     ThreadPool& pool = ThreadPool::global()) {
    std::unordered_set<F, FieldHash<F>> all;
    std::mutex mu;
    std::atomic<bool> too_many{false};
    for (const SparseMatrix<F>* m : matrices) {
      if (!m) continue;
      pool.parallel_for(m->nonzeros(), [&](size_t lo, size_t hi) {
        std::unordered_set<F, FieldHash<F>> local;
        const F* last = nullptr;
        for (size_t k = lo; k < hi && !too_many.load(std::memory_order_relaxed); ++k) {
          const F& v = m->value[k];
          if (last && *last == v) continue;  // runs of one coefficient (mostly 1) are common
          last = &v;
          local.insert(v);
          if (local.size() > kMaxDictionary) too_many = true;
        }
        std::lock_guard lock(mu);
        all.insert(local.begin(), local.end());
        if (all.size() > kMaxDictionary) too_many = true;
      });
      if (too_many) {
        return invalid_argument("more than " + std::to_string(kMaxDictionary) +
                                " distinct coefficients: the matrices are not compact");
      }
    }
    CoefficientIndex out;
    out.dictionary_.assign(all.begin(), all.end());
    std::sort(out.dictionary_.begin(), out.dictionary_.end(), [](const F& x, const F& y) {
      const auto &a = x.montgomery().limbs, &b = y.montgomery().limbs;
      return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
    });
    out.index_.reserve(out.dictionary_.size());
    for (size_t i = 0; i < out.dictionary_.size(); ++i) out.index_.emplace(out.dictionary_[i], uint16_t(i));
    return out;
  }

  const std::vector<F>& dictionary() const { return dictionary_; }
  // The index of a coefficient of the matrices the index was made of.
  uint16_t operator()(const F& f) const { return index_.find(f)->second; }
  // coeff[k - first] = the index of m.value[k] for k in [first, first + count).
  void indices(const SparseMatrix<F>& m, size_t first, size_t count, uint16_t* coeff,
               ThreadPool& pool = ThreadPool::global()) const {
    pool.parallel_for(count, [&](size_t lo, size_t hi) {
      const F* last = nullptr;
      uint16_t last_index = 0;
      for (size_t k = lo; k < hi; ++k) {
        const F& v = m.value[first + k];
        if (!last || !(*last == v)) last = &v, last_index = (*this)(v);
        coeff[k] = last_index;
      }
    });
  }

 private:
  std::vector<F> dictionary_;
  std::unordered_map<F, uint16_t, FieldHash<F>> index_;
};

// Row i of m · w, w = [ONE, inputs..., aux...] (num_inputs counts ONE).
template <class F>
F compact_row_dot(const CompactMatrix& m, std::span<const F> dictionary, std::span<const F> w,
                  uint32_t num_inputs, size_t i) {
  F acc = F::zero();
  for (uint32_t k = m.row_start[i]; k < m.row_start[i + 1]; ++k) {
    const Var v{m.var[k]};
    const F& x = w[v.is_aux() ? num_inputs + v.index() : v.index()];
    const F& c = dictionary[m.coeff[k]];
    acc += c.is_one() ? x : c * x;
  }
  return acc;
}

// out[i] = row i of m · w for every row, in parallel.
template <class F>
void evaluate_compact(const CompactMatrix& m, std::span<const F> dictionary, std::span<const F> w,
                      uint32_t num_inputs, std::span<F> out, ThreadPool& pool = ThreadPool::global()) {
  pool.parallel_for(m.rows(), [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) out[i] = compact_row_dot(m, dictionary, w, num_inputs, i);
  });
}

// A CSR matrix in the compact form by `index` (made of it): its columns are plain witness
// indices (Var::input), so rows dot the whole witness as CSR's do. Fails past 2^32 nonzeros or
// a column with Var's aux bit.
template <class F>
Result<CompactMatrix> compact_rows(const SparseMatrix<F>& m, const CoefficientIndex<F>& index,
                                   ThreadPool& pool = ThreadPool::global()) {
  if (m.nonzeros() > UINT32_MAX) return invalid_argument("more than 2^32 nonzeros in one matrix");
  CompactMatrix out;
  out.row_start.resize(m.row_start.size());
  out.var.resize(m.nonzeros());
  out.coeff.resize(m.nonzeros());
  std::atomic<bool> wide{false};
  pool.parallel_for(m.row_start.size(), [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) out.row_start[i] = uint32_t(m.row_start[i]);
  });
  pool.parallel_for(m.nonzeros(), [&](size_t lo, size_t hi) {
    for (size_t k = lo; k < hi; ++k) {
      out.var[k] = m.column[k];
      if (m.column[k] & Var::kAuxBit) wide.store(true, std::memory_order_relaxed);
    }
  });
  if (wide) return invalid_argument("a column past 2^31: the matrix has no compact form");
  index.indices(m, 0, m.nonzeros(), out.coeff.data(), pool);
  return out;
}

}  // namespace snarkd::r1cs
