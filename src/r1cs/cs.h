// snarkd/r1cs: constraint systems that gadget code is written against, in four modes.
//
// Gadgets are templates over a constraint system `CS` and call
//   Var v = cs.alloc(value);            // private (aux) variable, in allocation order
//   Var x = cs.alloc_input(value);      // public input (ONE is input 0)
//   cs.enforce("label", [&](auto& a) {...}, [&](auto& b) {...}, [&](auto& c) {...});
//   auto scope = cs.ns("name");         // namespace for error messages, popped at scope end
// exactly like bellpepper-core's ConstraintSystem, and the mode decides what happens:
//   BuilderCS   records the rows (CSR A/B/C) and the assignment, as before;
//   WitnessCS   computes the assignment only: `enforce` is a no-op and linear combinations held
//               by gadgets (`CS::Lc`) are empty types, so the proving hot path builds nothing;
//   ShapeCS     keeps counts only (variables, rows, nonzeros, densities): a fingerprint of a
//               10^8-row circuit in memory proportional to its variables, in bits;
//   CheckingCS  evaluates every row as it is enforced and names the first one that fails.
//
// Rows are compared in their semantic form, which is what bellperson proves with: the terms of
// each side sorted (inputs, then aux, each by index), duplicate variables merged (coefficients
// added) and zero coefficients dropped.
//
// Variable order is bellperson's: inputs (ONE first) and aux are two sequences, each in
// allocation order. The assignment vector is [ONE, inputs..., aux...]: r1cs::ConstraintSystem's
// layout with num_public = inputs - 1.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "r1cs/r1cs.h"

namespace snarkd::r1cs {

// A variable: an input (index 0 is ONE) or an aux, by allocation ordinal.
struct Var {
  static constexpr uint32_t kAuxBit = 0x80000000u;
  uint32_t raw = 0;

  static constexpr Var one() { return {0}; }
  static constexpr Var input(uint32_t i) { return {i}; }
  static constexpr Var aux(uint32_t i) { return {i | kAuxBit}; }
  constexpr bool is_aux() const { return raw & kAuxBit; }
  constexpr uint32_t index() const { return raw & ~kAuxBit; }
  friend constexpr bool operator==(Var, Var) = default;
};

// A linear combination as gadgets build it: terms in any order, possibly repeated; canonical()
// gives the semantic form.
template <class F>
class Lc {
 public:
  struct Term {
    Var var;
    F coeff;
  };

  static constexpr bool kRecords = true;

  Lc& add(Var v) { return add(v, F::one()); }
  Lc& sub(Var v) { return add(v, -F::one()); }
  Lc& add(Var v, const F& coeff) {
    terms_.push_back({v, coeff});
    return *this;
  }
  Lc& add(const Lc& other) {
    terms_.insert(terms_.end(), other.terms_.begin(), other.terms_.end());
    return *this;
  }
  Lc& sub(const Lc& other) { return add(other, -F::one()); }
  Lc& add(const Lc& other, const F& coeff) {
    for (const auto& t : other.terms_) terms_.push_back({t.var, t.coeff * coeff});
    return *this;
  }
  void clear() { terms_.clear(); }
  bool empty() const { return terms_.empty(); }
  const std::vector<Term>& terms() const { return terms_; }

  // Sorted by (input before aux, index), duplicates merged, zeros dropped.
  void canonicalize() {
    if (terms_.size() > 1) {
      std::stable_sort(terms_.begin(), terms_.end(),
                       [](const Term& x, const Term& y) { return x.var.raw < y.var.raw; });
      size_t out = 0;
      for (size_t i = 0; i < terms_.size();) {
        Term t = terms_[i++];
        while (i < terms_.size() && terms_[i].var == t.var) t.coeff += terms_[i++].coeff;
        if (!t.coeff.is_zero()) terms_[out++] = t;
      }
      terms_.resize(out);
    } else if (terms_.size() == 1 && terms_[0].coeff.is_zero()) {
      terms_.clear();
    }
  }

  // <lc, assignment>, with inputs and aux looked up separately.
  F evaluate(std::span<const F> inputs, std::span<const F> aux) const {
    F acc = F::zero();
    for (const auto& t : terms_) acc += t.coeff * (t.var.is_aux() ? aux[t.var.index()] : inputs[t.var.index()]);
    return acc;
  }

 private:
  std::vector<Term> terms_;
};

// What WitnessCS hands gadgets for the linear combinations they keep: every operation is a
// no-op the compiler removes.
template <class F>
struct NoLc {
  static constexpr bool kRecords = false;
  template <class... A>
  NoLc& add(A&&...) { return *this; }
  template <class... A>
  NoLc& sub(A&&...) { return *this; }
  void clear() {}
};

// A namespace guard that does nothing (its destructor is user-provided so a named guard is "used").
struct NoScope {
  ~NoScope() {}
};

// Counts of a circuit's shape, as bellperson's prover sees it.
struct ShapeStats {
  uint64_t inputs = 1;        // with ONE
  uint64_t aux = 0;
  uint64_t constraints = 0;   // as synthesized, without the per-input rows
  uint64_t nnz_a = 0, nnz_b = 0, nnz_c = 0;  // semantic terms, with the per-input rows
  uint64_t a_aux_density = 0;    // aux variables with a term in some A
  uint64_t b_input_density = 0;  // inputs (ONE included) with a term in some B
  uint64_t b_aux_density = 0;    // aux variables with a term in some B
  // Order-sensitive digest of every semantic row (variables and coefficients): two modes or
  // two implementations that agree on it produced the same rows in the same order.
  uint64_t digest = 0;

  // bellperson appends `input_i * 0 = 0` for every input after synthesis.
  uint64_t total_constraints() const { return constraints + inputs; }
  friend bool operator==(const ShapeStats&, const ShapeStats&) = default;
};

namespace detail {

inline uint64_t mix64(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdULL;
  return h ^ (h >> 33);
}

template <class F>
uint64_t digest_lc(uint64_t h, const Lc<F>& lc) {
  h = mix64(h, lc.terms().size());
  for (const auto& t : lc.terms()) {
    h = mix64(h, t.var.raw);
    const auto& m = t.coeff.montgomery();
    for (size_t i = 0; i < F::kLimbs; ++i) h = mix64(h, m[i]);
  }
  return h;
}

// A growable bit set for densities.
class BitSet {
 public:
  void push() {
    if ((size_ & 63) == 0) words_.push_back(0);
    ++size_;
  }
  // Returns whether the bit was clear.
  bool set(uint64_t i) {
    uint64_t& w = words_[i >> 6];
    const uint64_t m = uint64_t(1) << (i & 63);
    const bool was_clear = !(w & m);
    w |= m;
    return was_clear;
  }

 private:
  std::vector<uint64_t> words_;
  uint64_t size_ = 0;
};

}  // namespace detail

// A growable array of field elements that does not zero what it is about to overwrite (the
// witness hot path writes each aux value once). F must be trivially copyable.
template <class F>
class ValueBuffer {
 public:
  ValueBuffer() = default;
  ValueBuffer(const ValueBuffer& o) { *this = o; }
  ValueBuffer(ValueBuffer&& o) noexcept { *this = std::move(o); }
  ValueBuffer& operator=(ValueBuffer&& o) noexcept {
    if (this != &o) {
      data_ = std::move(o.data_);
      size_ = std::exchange(o.size_, 0);
      capacity_ = std::exchange(o.capacity_, 0);
    }
    return *this;
  }
  ValueBuffer& operator=(const ValueBuffer& o) {
    if (this != &o) {
      size_ = 0;
      reserve(o.size_);
      if (o.size_) std::memcpy(static_cast<void*>(data_.get()), o.data_.get(), o.size_ * sizeof(F));
      size_ = o.size_;
    }
    return *this;
  }
  void push_back(const F& v) {
    if (size_ == capacity_) reserve(2 * capacity_ + 1024);
    std::memcpy(static_cast<void*>(data_.get() + size_), &v, sizeof(F));
    ++size_;
  }
  // Room for `extra` more pushes without a capacity check each (ensure, then push_unchecked).
  void ensure(size_t extra) {
    if (capacity_ - size_ < extra) reserve(2 * capacity_ + extra);
  }
  void push_unchecked(const F& v) { std::memcpy(static_cast<void*>(data_.get() + size_++), &v, sizeof(F)); }
  void reserve(size_t n) {
    if (n <= capacity_) return;
    std::unique_ptr<F[], Free> bigger(static_cast<F*>(std::malloc(n * sizeof(F))));
    if (!bigger) throw std::bad_alloc();
    if (size_) std::memcpy(static_cast<void*>(bigger.get()), data_.get(), size_ * sizeof(F));
    data_ = std::move(bigger);
    capacity_ = n;
  }
  void clear() { size_ = 0; }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  const F* data() const { return data_.get(); }
  const F* begin() const { return data_.get(); }
  const F* end() const { return data_.get() + size_; }
  F& operator[](size_t i) { return data_[i]; }
  const F& operator[](size_t i) const { return data_[i]; }
  F& back() { return data_[size_ - 1]; }

 private:
  static_assert(std::is_trivially_copyable_v<F>);
  struct Free {
    void operator()(F* p) const { std::free(p); }
  };
  std::unique_ptr<F[], Free> data_;
  size_t size_ = 0, capacity_ = 0;
};

// Fills three reused linear combinations from enforce's lambdas.
template <class L, class A, class B, class C>
void fill_rows(L& a, L& b, L& c, A&& fa, B&& fb, C&& fc) {
  a.clear();
  b.clear();
  c.clear();
  fa(a);
  fb(b);
  fc(c);
}

// Shared by the modes that hold values.
template <class F>
class ValuesBase {
 public:
  using Field = F;
  static constexpr bool kHasValues = true;

  ValuesBase() { inputs_.push_back(F::one()); }
  Var alloc(const F& value) {
    aux_.push_back(value);
    return Var::aux(uint32_t(aux_.size() - 1));
  }
  Var alloc_input(const F& value) {
    inputs_.push_back(value);
    return Var::input(uint32_t(inputs_.size() - 1));
  }
  const F& value(Var v) const { return v.is_aux() ? aux_[v.index()] : inputs_[v.index()]; }
  uint32_t num_inputs() const { return uint32_t(inputs_.size()); }
  uint32_t num_aux() const { return uint32_t(aux_.size()); }
  std::span<const F> inputs() const { return inputs_; }
  std::span<const F> aux() const { return {aux_.begin(), aux_.end()}; }
  void reserve_aux(size_t n) { aux_.reserve(n); }

  // [ONE, inputs..., aux...]
  std::vector<F> assignment() const {
    std::vector<F> w;
    w.reserve(inputs_.size() + aux_.size());
    w.insert(w.end(), inputs_.begin(), inputs_.end());
    w.insert(w.end(), aux_.begin(), aux_.end());
    return w;
  }

 protected:
  std::vector<F> inputs_;
  ValueBuffer<F> aux_;
};

// The assignment alone: the proving hot path.
template <class F>
class WitnessCS : public ValuesBase<F> {
 public:
  using Lc = NoLc<F>;
  static constexpr bool kRecords = false;
  template <class A, class B, class C>
  void enforce(const char*, A&&, B&&, C&&) {}
  NoScope ns(const char*) { return {}; }
  NoScope ns(const char*, uint64_t) { return {}; }
  // Allocates one 0/1 variable per set bit of `positions`, lowest first, valued by the same
  // bit of `values` (word-at-a-time gadgets).
  void alloc_bits(uint64_t values, uint64_t positions) {
    static const F kBit[2] = {F::zero(), F::one()};
    auto& aux = this->aux_;
    aux.ensure(64);
    if ((positions & (positions + 1)) == 0) {  // bits 0..n-1: no search for the next bit
      const unsigned n = unsigned(std::bit_width(positions));
      for (unsigned i = 0; i < n; ++i) aux.push_unchecked(kBit[(values >> i) & 1]);
      return;
    }
    while (positions) {
      const int i = std::countr_zero(positions);
      aux.push_unchecked(kBit[(values >> i) & 1]);
      positions &= positions - 1;
    }
  }
  // Drops the values, keeps the capacity (to synthesize the next partition in place).
  void reset() {
    this->inputs_.resize(1);
    this->aux_.clear();
    prefix_ = 0;
  }
  // Synthesizes straight into the prover's layout [ONE, inputs..., aux...]: `inputs` slots (ONE
  // included) stay ahead of the aux values in one buffer of inputs + aux_capacity, and
  // take_assignment() fills them and hands the buffer over, without copying the aux values. Call
  // on a fresh or reset system. (Aux variables are then numbered from `inputs`; only this mode
  // reads them back.)
  void reserve_in_place(uint32_t inputs, size_t aux_capacity) {
    this->aux_.clear();
    this->aux_.reserve(size_t(inputs) + aux_capacity);
    for (uint32_t i = 0; i < inputs; ++i) this->aux_.push_back(F::zero());
    prefix_ = inputs;
  }
  // False (and nothing taken) when the circuit allocated another number of inputs.
  bool take_assignment(ValueBuffer<F>& out) {
    if (this->inputs_.size() != prefix_) return false;
    for (size_t i = 0; i < prefix_; ++i) this->aux_[i] = this->inputs_[i];
    out = std::move(this->aux_);
    reset();
    return true;
  }

 private:
  size_t prefix_ = 0;
};

// Rows and assignment, in CSR with bellperson's order.
//
// A piece (BuilderCS::piece) builds a later part of a circuit on its own, in parallel with other
// pieces: its variables are numbered from given first input and aux indices (where the whole
// circuit's would be at that point), so its rows are in the circuit's numbering already and
// append() concatenates them. It holds no ONE and only its own values.
template <class F>
class BuilderCS : public ValuesBase<F> {
 public:
  using Lc = r1cs::Lc<F>;
  static constexpr bool kRecords = true;

  BuilderCS() = default;
  static BuilderCS piece(uint32_t first_input, uint32_t first_aux) {
    BuilderCS p;
    p.inputs_.clear();
    p.input_base_ = first_input;
    p.aux_base_ = first_aux;
    return p;
  }
  Var alloc(const F& value) {
    this->aux_.push_back(value);
    return Var::aux(aux_base_ + uint32_t(this->aux_.size() - 1));
  }
  Var alloc_input(const F& value) {
    this->inputs_.push_back(value);
    return Var::input(input_base_ + uint32_t(this->inputs_.size() - 1));
  }
  const F& value(Var v) const {
    return v.is_aux() ? this->aux_[v.index() - aux_base_] : this->inputs_[v.index() - input_base_];
  }
  // With a piece's numbering: the indices the next input and aux variable get.
  uint32_t next_input() const { return input_base_ + this->num_inputs(); }
  uint32_t next_aux() const { return aux_base_ + this->num_aux(); }
  // Room for rows and nonzeros about to be enforced or appended (a hint).
  void reserve_rows(size_t rows, size_t nnz_a, size_t nnz_b, size_t nnz_c) {
    for (auto [m, nnz] : {std::pair{&ra_, nnz_a}, std::pair{&rb_, nnz_b}, std::pair{&rc_, nnz_c}}) {
      m->row_start.reserve(m->row_start.size() + rows);
      m->var.reserve(m->var.size() + nnz);
      m->value.reserve(m->value.size() + nnz);
    }
  }
  size_t nonzeros_a() const { return ra_.var.size(); }
  size_t nonzeros_b() const { return rb_.var.size(); }
  size_t nonzeros_c() const { return rc_.var.size(); }
  // Appends a piece numbered from where this system's numbering stands; the piece is emptied.
  Status append(BuilderCS&& p) {
    if (input_base_ != 0 || aux_base_ != 0) return internal_error("BuilderCS: append to a piece");
    if (p.input_base_ != this->num_inputs() || p.aux_base_ != this->num_aux()) {
      return internal_error("BuilderCS: a piece numbered from input " + std::to_string(p.input_base_) + ", aux " +
                            std::to_string(p.aux_base_) + " appended at input " + std::to_string(this->num_inputs()) +
                            ", aux " + std::to_string(this->num_aux()));
    }
    this->inputs_.insert(this->inputs_.end(), p.inputs_.begin(), p.inputs_.end());
    this->aux_.ensure(p.aux_.size());
    for (const F& v : p.aux_) this->aux_.push_unchecked(v);
    for (auto [to, from] : {std::pair{&ra_, &p.ra_}, std::pair{&rb_, &p.rb_}, std::pair{&rc_, &p.rc_}}) {
      const uint64_t at = to->var.size();
      to->var.insert(to->var.end(), from->var.begin(), from->var.end());
      to->value.insert(to->value.end(), from->value.begin(), from->value.end());
      for (size_t r = 1; r < from->row_start.size(); ++r) to->row_start.push_back(at + from->row_start[r]);
      *from = RawMatrix();
    }
    p = BuilderCS();
    return Status();
  }

  template <class A, class B, class C>
  void enforce(const char*, A&& fa, B&& fb, C&& fc) {
    fill_rows(a_, b_, c_, fa, fb, fc);
    append(a_, ra_);
    append(b_, rb_);
    append(c_, rc_);
  }
  NoScope ns(const char*) { return {}; }
  NoScope ns(const char*, uint64_t) { return {}; }
  size_t num_constraints() const { return ra_.row_start.size() - 1; }

  // The constraint system in snarkd's layout (without the per-input rows, which the prover
  // adds) and the assignment. From an rvalue the rows move into it (a 32 GiB PoRep partition's
  // take 29 GB; copied, the key's load held them twice).
  std::pair<ConstraintSystem<F>, std::vector<F>> finish() const& {
    BuilderCS copy(*this);
    return std::move(copy).finish();
  }
  std::pair<ConstraintSystem<F>, std::vector<F>> finish() && {
    ConstraintSystem<F> cs;
    // A piece is only appended (its numbering does not start at ONE).
    const uint32_t inputs = this->num_inputs();
    cs.num_public = inputs - 1;
    cs.num_variables = inputs + this->num_aux();
    auto convert = [&](RawMatrix& m, SparseMatrix<F>& out) {
      out.row_start = std::move(m.row_start);
      out.column = std::move(m.var);  // Var::raw becomes the witness index in place
      ThreadPool::global().parallel_for(out.column.size(), [&](size_t lo, size_t hi) {
        for (size_t k = lo; k < hi; ++k) {
          const Var v{out.column[k]};
          out.column[k] = v.is_aux() ? inputs + v.index() : v.index();
        }
      });
      out.value = std::move(m.value);
      m = RawMatrix();
    };
    convert(ra_, cs.a);
    convert(rb_, cs.b);
    convert(rc_, cs.c);
    return {std::move(cs), this->assignment()};
  }

 private:
  struct RawMatrix {
    std::vector<uint64_t> row_start{0};
    std::vector<uint32_t> var;
    std::vector<F> value;
  };
  static void append(Lc& lc, RawMatrix& m) {
    lc.canonicalize();
    for (const auto& t : lc.terms()) {
      m.var.push_back(t.var.raw);
      m.value.push_back(t.coeff);
    }
    m.row_start.push_back(m.var.size());
  }
  Lc a_, b_, c_;
  RawMatrix ra_, rb_, rc_;
  uint32_t input_base_ = 0, aux_base_ = 0;  // a piece's first indices
};

// Counts only; values are not kept (gadgets still compute them from default inputs).
template <class F>
class ShapeCS {
 public:
  using Field = F;
  using Lc = r1cs::Lc<F>;
  static constexpr bool kRecords = true;
  static constexpr bool kHasValues = false;

  Var alloc(const F&) {
    a_aux_.push();
    b_aux_.push();
    return Var::aux(uint32_t(stats_.aux++));
  }
  Var alloc_input(const F&) {
    b_input_.push();
    return Var::input(uint32_t(stats_.inputs++));
  }
  template <class A, class B, class C>
  void enforce(const char*, A&& fa, B&& fb, C&& fc) {
    fill_rows(a_, b_, c_, fa, fb, fc);
    for (auto* lc : {&a_, &b_, &c_}) {
      lc->canonicalize();
      stats_.digest = detail::digest_lc(stats_.digest, *lc);
    }
    stats_.nnz_a += a_.terms().size();
    stats_.nnz_b += b_.terms().size();
    stats_.nnz_c += c_.terms().size();
    for (const auto& t : a_.terms()) {
      if (t.var.is_aux() && a_aux_.set(t.var.index())) ++stats_.a_aux_density;
    }
    for (const auto& t : b_.terms()) {
      if (t.var.is_aux()) {
        if (b_aux_.set(t.var.index())) ++stats_.b_aux_density;
      } else if (b_input_.set(t.var.index())) {
        ++stats_.b_input_density;
      }
    }
    ++stats_.constraints;
  }
  NoScope ns(const char*) { return {}; }
  NoScope ns(const char*, uint64_t) { return {}; }
  uint32_t num_inputs() const { return uint32_t(stats_.inputs); }
  uint32_t num_aux() const { return uint32_t(stats_.aux); }

  // The counts, with the per-input rows (A = input_i, B = C = 0) added to nnz_a.
  ShapeStats stats() const {
    ShapeStats s = stats_;
    s.nnz_a += s.inputs;
    return s;
  }

 private:
  ShapeStats stats_;
  detail::BitSet a_aux_, b_aux_, b_input_;
  Lc a_, b_, c_;
  ShapeCS(const ShapeCS&) = delete;

 public:
  ShapeCS() { b_input_.push(); }  // ONE
};

// Evaluates each row when it is enforced; the first that fails is named with its namespace
// path, as bellpepper's TestConstraintSystem::which_is_unsatisfied does.
template <class F>
class CheckingCS : public ValuesBase<F> {
 public:
  using Lc = r1cs::Lc<F>;
  static constexpr bool kRecords = true;

  class Scope {
   public:
    explicit Scope(CheckingCS* cs) : cs_(cs) {}
    Scope(Scope&& o) noexcept : cs_(std::exchange(o.cs_, nullptr)) {}
    Scope(const Scope&) = delete;
    ~Scope() {
      if (cs_) cs_->path_.pop_back();
    }

   private:
    CheckingCS* cs_;
  };
  Scope ns(const char* name) {
    path_.emplace_back(name);
    return Scope(this);
  }
  Scope ns(const char* name, uint64_t index) {
    path_.push_back(std::string(name) + " " + std::to_string(index));
    return Scope(this);
  }

  template <class A, class B, class C>
  void enforce(const char* label, A&& fa, B&& fb, C&& fc) {
    fill_rows(a_, b_, c_, fa, fb, fc);
    const auto in = this->inputs();
    const auto aux = this->aux();
    if (!failure_.empty() || a_.evaluate(in, aux) * b_.evaluate(in, aux) == c_.evaluate(in, aux)) {
      ++constraints_;
      return;
    }
    failure_ = "constraint " + std::to_string(constraints_) + " '";
    for (const auto& p : path_) failure_ += p + "/";
    failure_ += std::string(label) + "' is not satisfied";
    ++constraints_;
  }
  size_t num_constraints() const { return constraints_; }
  bool satisfied() const { return failure_.empty(); }
  Status status() const { return failure_.empty() ? Status() : invalid_argument(failure_); }
  // The aux variable allocated `index`-th gets a wrong value (a bit flips; any other value
  // gains one): what a wrong witness looks like to the rows that use it. Gadgets go on
  // computing with the right value, so the rows that read the variable are the ones to fail.
  void tamper_with_aux(uint32_t index) { tamper_ = index; }
  Var alloc(const F& value) {
    const Var v = ValuesBase<F>::alloc(value);
    if (v.index() == tamper_) {
      F& x = this->aux_.back();
      x = x.is_zero() ? F::one() : x == F::one() ? F::zero() : x + F::one();
    }
    return v;
  }

 private:
  std::vector<std::string> path_;
  std::string failure_;
  size_t constraints_ = 0;
  uint32_t tamper_ = ~uint32_t(0);
  Lc a_, b_, c_;
};

}  // namespace snarkd::r1cs
