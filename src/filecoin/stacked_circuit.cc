#include "filecoin/stacked_circuit.h"

#include "base/thread_pool.h"
#include "filecoin/trees.h"
#include "r1cs/cs.h"

namespace snarkd::filecoin {

namespace {

using F = StackedField;

StackedValues::Path blank_path(std::span<const unsigned> arities) {
  StackedValues::Path p;
  for (unsigned a : arities) p.push_back({std::vector<F>(a - 1, F::zero()), 0});
  return p;
}

Result<F> fr(const Bytes32& b) {
  auto v = F::from_bytes_le(b);
  if (!v) return invalid_argument("a value of the C1 output is not a canonical field element");
  return *v;
}

Result<StackedValues::Path> path_of(const MerkleProof& m) {
  StackedValues::Path out;
  for (const auto& e : m.path) {
    circuits::PathLevel<F> level;
    level.index = unsigned(e.index);
    for (const auto& h : e.hashes) {
      ASSIGN_OR_RETURN(F v, fr(h));
      level.siblings.push_back(v);
    }
    out.push_back(std::move(level));
  }
  return out;
}

Result<StackedValues::Column> column_of(const ColumnProof& c) {
  StackedValues::Column col;
  for (const auto& r : c.column.rows) {
    ASSIGN_OR_RETURN(F v, fr(r));
    col.rows.push_back(v);
  }
  ASSIGN_OR_RETURN(col.path, path_of(c.inclusion_proof));
  return col;
}

}  // namespace

StackedValues blank_stacked_values(const StackedShape& shape) {
  StackedValues v;
  v.replica_id = v.comm_d = v.comm_r = v.comm_r_last = v.comm_c = F::zero();
  const std::vector<unsigned> d(shape.tree_d_levels, 2);
  for (unsigned i = 0; i < shape.challenges; ++i) {
    StackedValues::Challenge c;
    c.data_leaf = F::zero();
    c.comm_d_path = blank_path(d);
    c.comm_r_last_path = c.comm_c_path = blank_path(shape.rc_arities);
    StackedValues::Column col{std::vector<F>(shape.layers, F::zero()), blank_path(shape.rc_arities)};
    c.drg.fill(col);
    c.exp.fill(col);
    v.challenges.push_back(std::move(c));
  }
  return v;
}

// upstream's count model (exact for every shape its tests and the 32 GiB fingerprint check):
// 571 + challenges x (the tree D path, 14 parent columns, the challenge, the labels, the
// encoding's path, the challenge's column).
uint64_t stacked_constraints(const StackedShape& shape) {
  auto por_rc = [&] {
    uint64_t n = 2;
    for (unsigned a : shape.rc_arities) n += a == 2 ? 314 : a == 4 ? 387 : 530;
    return n;
  };
  const uint64_t column = shape.layers == 2 ? 311 : 598;
  const uint64_t per = uint64_t(shape.tree_d_levels) * 45382 + 2 + 14 * (column + por_rc()) + 65 + 6 * 256 +
                       uint64_t(shape.layers - 1) * 14 * 256 + uint64_t(shape.layers) * 522269 + 1 + por_rc() +
                       column + por_rc();
  return 571 + shape.challenges * per;
}

Result<r1cs::ConstraintSystem<F>> build_stacked(const StackedShape& shape, const StackedValues& v) {
  using CS = r1cs::BuilderCS<F>;
  CS cs;
  const StackedTop<CS> top = synthesize_stacked_top(cs, v);
  const size_t k = v.challenges.size();
  if (k == 0) return std::move(std::move(cs).finish().first);
  // Challenge 0 in place: its counts number the others (every challenge allocates as many
  // inputs and aux variables and enforces as many rows; each piece is checked against them).
  const uint32_t inputs0 = cs.num_inputs(), aux0 = cs.num_aux();
  const size_t rows0 = cs.num_constraints(), a0 = cs.nonzeros_a(), b0 = cs.nonzeros_b(), c0 = cs.nonzeros_c();
  synthesize_stacked_challenge(cs, shape, top, v.challenges[0], 0);
  const uint32_t inputs = cs.num_inputs() - inputs0, aux = cs.num_aux() - aux0;
  const size_t rows = cs.num_constraints() - rows0;
  const size_t nnz_a = cs.nonzeros_a() - a0, nnz_b = cs.nonzeros_b() - b0, nnz_c = cs.nonzeros_c() - c0;
  // Reserved (not touched) for all of them, so the appends below never move the rows: the build
  // holds the rows once, plus one piece while it is appended.
  cs.reserve_rows((k - 1) * rows, (k - 1) * nnz_a, (k - 1) * nnz_b, (k - 1) * nnz_c);
  cs.reserve_aux(size_t(cs.num_aux()) + (k - 1) * size_t(aux));
  std::vector<CS> pieces(k);
  ThreadPool::global().parallel_for(k - 1, [&](size_t lo, size_t hi) {
    for (size_t ci = lo + 1; ci < hi + 1; ++ci) {
      pieces[ci] = CS::piece(uint32_t(inputs0 + ci * inputs), uint32_t(aux0 + ci * aux));
      pieces[ci].reserve_rows(rows, nnz_a, nnz_b, nnz_c);
      pieces[ci].reserve_aux(aux);
      synthesize_stacked_challenge(pieces[ci], shape, top, v.challenges[ci], ci);
    }
  }, k - 1);  // a challenge a chunk: the pool's threads take the next as they finish
  for (size_t ci = 1; ci < k; ++ci) {
    if (pieces[ci].num_inputs() != inputs || pieces[ci].num_aux() != aux || pieces[ci].num_constraints() != rows) {
      return internal_error("stacked circuit: challenge " + std::to_string(ci) + " allocated " +
                            std::to_string(pieces[ci].num_inputs()) + " inputs, " +
                            std::to_string(pieces[ci].num_aux()) + " aux variables and " +
                            std::to_string(pieces[ci].num_constraints()) + " rows, challenge 0 " +
                            std::to_string(inputs) + ", " + std::to_string(aux) + " and " + std::to_string(rows));
    }
    RETURN_IF_ERROR(cs.append(std::move(pieces[ci])));
  }
  return std::move(std::move(cs).finish().first);
}

StackedShape stacked_shape(const SealProof& p) {
  StackedShape s;
  s.layers = p.layers;
  s.challenges = p.challenges_per_partition;
  s.tree_d_levels = p.node_bits();
  s.rc_arities = tree_rc_arities(p);
  return s;
}

Result<StackedValues> stacked_values(const C1Output& c1, unsigned partition) {
  if (partition >= c1.vanilla_proofs.size()) return invalid_argument("no partition " + std::to_string(partition));
  const auto& proofs = c1.vanilla_proofs[partition];
  StackedValues v;
  ASSIGN_OR_RETURN(v.replica_id, fr(c1.replica_id));
  ASSIGN_OR_RETURN(v.comm_d, fr(c1.comm_d));
  ASSIGN_OR_RETURN(v.comm_r, fr(c1.comm_r));
  // As StackedCompound::circuit: comm_r_last and comm_c from the first challenge's proofs.
  ASSIGN_OR_RETURN(v.comm_r_last, fr(proofs.front().comm_r_last_proof.root));
  ASSIGN_OR_RETURN(v.comm_c, fr(proofs.front().replica_column_proofs.c_x.inclusion_proof.root));
  for (const auto& p : proofs) {
    StackedValues::Challenge c;
    c.node = p.labeling_proofs.front().node;
    ASSIGN_OR_RETURN(c.data_leaf, fr(p.comm_d_proofs.leaf));
    ASSIGN_OR_RETURN(c.comm_d_path, path_of(p.comm_d_proofs));
    ASSIGN_OR_RETURN(c.comm_r_last_path, path_of(p.comm_r_last_proof));
    ASSIGN_OR_RETURN(c.comm_c_path, path_of(p.replica_column_proofs.c_x.inclusion_proof));
    for (size_t i = 0; i < 6; ++i) {
      ASSIGN_OR_RETURN(c.drg[i], column_of(p.replica_column_proofs.drg_parents[i]));
    }
    for (size_t i = 0; i < 8; ++i) {
      ASSIGN_OR_RETURN(c.exp[i], column_of(p.replica_column_proofs.exp_parents[i]));
    }
    v.challenges.push_back(std::move(c));
  }
  return v;
}

}  // namespace snarkd::filecoin
