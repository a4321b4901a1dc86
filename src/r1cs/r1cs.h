// snarkd/r1cs: rank-1 constraint systems <A_i, w> * <B_i, w> = <C_i, w> in CSR form, their
// evaluation a = A w, b = B w, c = C w, and the satisfiability check.
//
// Variable layout (circom's): index 0 is the constant 1, then the public variables (outputs,
// then public inputs), then the private ones. num_public counts outputs and public inputs, not
// the constant.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "base/thread_pool.h"

namespace snarkd::r1cs {

template <class F>
struct Term {
  uint32_t variable;
  F coeff;
};

template <class F>
using LinearCombination = std::vector<Term<F>>;

// Compressed sparse rows: row i's terms are [row_start[i], row_start[i+1]).
template <class F>
struct SparseMatrix {
  std::vector<uint64_t> row_start{0};
  std::vector<uint32_t> column;
  std::vector<F> value;

  size_t rows() const { return row_start.size() - 1; }
  size_t nonzeros() const { return column.size(); }

  void add_row(const LinearCombination<F>& lc) {
    for (const auto& t : lc) {
      column.push_back(t.variable);
      value.push_back(t.coeff);
    }
    row_start.push_back(column.size());
  }
  void add_empty_rows(size_t count) {
    for (size_t i = 0; i < count; ++i) row_start.push_back(column.size());
  }

  F row_dot(size_t row, std::span<const F> w) const {
    F acc = F::zero();
    for (uint64_t k = row_start[row]; k < row_start[row + 1]; ++k) acc += value[k] * w[column[k]];
    return acc;
  }

  // out[i] = <row i, w> for i < rows(); out may be longer (the tail is left alone).
  void multiply(std::span<const F> w, std::span<F> out, ThreadPool& pool) const {
    pool.parallel_for(rows(), [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) out[i] = row_dot(i, w);
    });
  }

  // Largest variable index referenced plus one (0 when empty).
  uint32_t variables_referenced() const {
    uint32_t m = 0;
    for (uint32_t v : column) m = std::max(m, v + 1);
    return m;
  }

  // The variables below `variables` with a nonzero coefficient in some row, ascending: the
  // density of a query (bellperson's term).
  std::vector<uint32_t> variables_used(size_t variables) const {
    std::vector<uint8_t> used(variables, 0);
    for (size_t k = 0; k < column.size(); ++k) {
      if (column[k] < variables && !value[k].is_zero()) used[column[k]] = 1;
    }
    std::vector<uint32_t> out;
    for (size_t j = 0; j < variables; ++j) {
      if (used[j]) out.push_back(uint32_t(j));
    }
    return out;
  }
};

template <class F>
struct ConstraintSystem {
  uint32_t num_variables = 1;  // including the constant
  uint32_t num_public = 0;
  SparseMatrix<F> a, b, c;

  size_t num_constraints() const { return a.rows(); }
  uint32_t num_private() const { return num_variables - 1 - num_public; }

  Status validate() const {
    if (a.rows() != b.rows() || a.rows() != c.rows()) {
      return invalid_argument("constraint system: A, B and C have different row counts");
    }
    if (num_public + 1 > num_variables) {
      return invalid_argument("constraint system: more public variables than variables");
    }
    for (const auto* m : {&a, &b, &c}) {
      if (m->variables_referenced() > num_variables) {
        return invalid_argument("constraint system: a constraint references variable " +
                                std::to_string(m->variables_referenced() - 1) + " of " +
                                std::to_string(num_variables));
      }
    }
    return Status();
  }
};

// OK, or an error naming the first constraint i with <A_i,w><B_i,w> != <C_i,w>.
template <class F>
Status check_satisfied(const ConstraintSystem<F>& cs, std::span<const F> w) {
  if (w.size() != cs.num_variables) {
    return invalid_argument("witness has " + std::to_string(w.size()) + " values, the circuit " +
                            std::to_string(cs.num_variables));
  }
  if (!(w[0] == F::one())) return invalid_argument("witness[0] must be 1");
  for (size_t i = 0; i < cs.num_constraints(); ++i) {
    if (!(cs.a.row_dot(i, w) * cs.b.row_dot(i, w) == cs.c.row_dot(i, w))) {
      return invalid_argument("constraint " + std::to_string(i) + " is not satisfied");
    }
  }
  return Status();
}

}  // namespace snarkd::r1cs
