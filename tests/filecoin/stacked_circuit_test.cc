// PoRep C2's StackedCircuit: the constraint counts rust-fil-proofs' tests assert
// (storage-proofs-porep tests/stacked_circuit.rs: one challenge, 2 layers, 22 inputs; the
// create_label test's 532,025), and on a real sealed 2 KiB sector every mode agrees (builder,
// witness-only, checking, shape), the witness satisfies every row, and the circuit's public
// inputs are the ones the vanilla side derives from the ids alone.
#include "filecoin/stacked_circuit.h"

#include <gtest/gtest.h>

#include "circuits/modes.h"
#include "filecoin/porep.h"
#include "filecoin/test_bytes.h"
#include "r1cs/cs.h"
#include "test_util.h"

namespace snarkd::filecoin {
namespace {

using testing::random_bytes;
using F = StackedField;

r1cs::ShapeStats shape_stats(const StackedShape& shape) {
  r1cs::ShapeCS<F> cs;
  synthesize_stacked(cs, shape, blank_stacked_values(shape));
  return cs.stats();
}

TEST(StackedCircuitTest, UpstreamCircuitCounts) {
  struct Case {
    const char* tree;
    unsigned tree_d_levels;
    std::vector<unsigned> rc;
    uint64_t constraints;
  };
  // nodes = 8 x the base tree count: 8, 8, 32, 64.
  for (const Case& c : {Case{"2-0-0", 3, {2, 2, 2}, 1206212}, Case{"8-0-0", 3, {8}, 1199620},
                        Case{"8-4-0", 5, {8, 4}, 1296576}, Case{"8-4-2", 6, {8, 4, 2}, 1346982}}) {
    SCOPED_TRACE(c.tree);
    const auto s = shape_stats({2, 1, c.tree_d_levels, c.rc});
    EXPECT_EQ(s.constraints, c.constraints);
    EXPECT_EQ(s.inputs, 22u);
  }
}

TEST(StackedCircuitTest, CreateLabelCount) {
  // The create_label test: 37 parents and the replica id as 256 allocated bits each, the layer
  // (3) and the node (22) constants: 532,025 rows in all.
  r1cs::ShapeCS<F> cs;
  std::vector<std::vector<Boolean>> parents(37);
  for (auto& p : parents) {
    for (int i = 0; i < 256; ++i) p.push_back(Boolean::alloc(cs, false));
  }
  std::vector<Boolean> id;
  for (int i = 0; i < 256; ++i) id.push_back(Boolean::alloc(cs, false));
  std::vector<Boolean> node;
  for (int i = 63; i >= 0; --i) node.push_back(Boolean::constant((uint64_t(22) >> i) & 1));
  (void)create_label(cs, std::span<const Boolean>(id), std::span<const std::vector<Boolean>>(parents), 3,
                     std::span<const Boolean>(node));
  EXPECT_EQ(cs.stats().constraints, 532025u);
}

TEST(StackedCircuitTest, SealedTwoKiBSectorInEveryMode) {
  auto rng = snarkd::testing::make_rng();
  SNARKD_SEED_TRACE();
  const SealProof& p = seal_proofs()[5];
  const StackedGraph graph(p);
  std::vector<Bytes32> data(p.nodes());
  for (auto& d : data) {
    d = random_bytes(rng);
    d[31] &= 0x3f;
  }
  auto sector = seal_sector(p, graph, data, prover_id_from_miner(rng() % 100000), rng() % 1000, random_bytes(rng));
  ASSERT_TRUE(sector.ok());
  auto c1 = commit_phase1(*sector, graph, random_bytes(rng));
  ASSERT_TRUE(c1.ok());
  auto values = stacked_values(*c1, 0);
  ASSERT_TRUE(values.ok());
  const StackedShape shape = stacked_shape(p);
  const auto modes = circuits::testing::run_all_modes([&](auto& cs) { synthesize_stacked(cs, shape, *values); });
  // 571 + 2 x 1,343,675 (the count model of the upstream tests at 64 nodes, 8-0-0, 2 layers).
  EXPECT_EQ(modes.shape.constraints, 2687921u);
  EXPECT_EQ(modes.shape.inputs, 40u);
  // The inputs are what the vanilla side derives from the replica id, comm_d, comm_r and seed.
  auto derived = public_inputs(p, graph, c1->replica_id, c1->comm_d, c1->comm_r, c1->seed, 0);
  ASSERT_TRUE(derived.ok());
  ASSERT_EQ(derived->inputs.size(), 39u);
  for (size_t i = 0; i < derived->inputs.size(); ++i) {
    Bytes32 got;
    modes.assignment[1 + i].to_bytes_le(got);
    EXPECT_EQ(got, derived->inputs[i]) << "input " << i;
  }
}

// build_stacked builds challenges 1.. as pieces in parallel and appends them: the system must be
// the sequential build's, row for row and column for column (three challenges: the pieces are
// numbered from challenge 0's counts times 1 and 2).
TEST(StackedCircuitTest, ParallelBuildEqualsTheSequentialBuild) {
  const StackedShape shape{2, 3, 3, {8}};
  const StackedValues values = blank_stacked_values(shape);
  r1cs::BuilderCS<F> sequential;
  synthesize_stacked(sequential, shape, values);
  const r1cs::ConstraintSystem<F> want = std::move(sequential).finish().first;
  auto got = build_stacked(shape, values);
  ASSERT_TRUE(got.ok()) << got.status().to_string();
  EXPECT_EQ(got->num_public, want.num_public);
  EXPECT_EQ(got->num_variables, want.num_variables);
  const std::pair<const r1cs::SparseMatrix<F>*, const r1cs::SparseMatrix<F>*> pairs[3] = {
      {&got->a, &want.a}, {&got->b, &want.b}, {&got->c, &want.c}};
  for (const auto& [g, w] : pairs) {
    ASSERT_EQ(g->rows(), w->rows());
    EXPECT_EQ(w->rows(), stacked_constraints(shape));  // upstream's count model
    EXPECT_TRUE(g->row_start == w->row_start);
    EXPECT_TRUE(g->column == w->column);
    EXPECT_TRUE(g->value == w->value);
  }
}

}  // namespace
}  // namespace snarkd::filecoin
