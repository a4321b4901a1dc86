#include <gtest/gtest.h>

#include "ff/bls12_381.h"
#include "ff/bn254.h"
#include "r1cs/builder.h"
#include "r1cs/compact.h"
#include "r1cs/cs.h"
#include "base/random.h"
#include "test_util.h"

namespace snarkd::r1cs {
namespace {

using Fr = ff::bn254::Fr;

TEST(Builder, PublicVariablesAreNumberedFirst) {
  CircuitBuilder<Fr> cb;
  auto p = cb.alloc(Fr::from_u64(3));       // private, allocated first
  auto x = cb.alloc_input(Fr::from_u64(9)); // public
  cb.enforce({{p, Fr::one()}}, {{p, Fr::one()}}, {{x, Fr::one()}});
  auto [cs, w] = cb.finish();
  EXPECT_EQ(cs.num_public, 1u);
  EXPECT_EQ(cs.num_variables, 3u);
  EXPECT_EQ(w, (std::vector<Fr>{Fr::one(), Fr::from_u64(9), Fr::from_u64(3)}));
  EXPECT_EQ(cs.a.column, (std::vector<uint32_t>{2}));
  EXPECT_EQ(cs.c.column, (std::vector<uint32_t>{1}));
  EXPECT_TRUE(cs.validate().ok());
  EXPECT_TRUE(check_satisfied(cs, std::span<const Fr>(w)).ok());
  w[1] = Fr::from_u64(10);
  auto st = check_satisfied(cs, std::span<const Fr>(w));
  EXPECT_EQ(st.message(), "constraint 0 is not satisfied");
}

}  // namespace
// BuilderCS::finish numbers inputs (ONE first) before aux variables; from an rvalue the rows
// move into the system, and both forms give the same system.
TEST(BuilderCS, FinishNumbersInputsFirstAndMovesTheRows) {
  using L = Lc<Fr>;
  auto build = [] {
    BuilderCS<Fr> cs;
    const Var p = cs.alloc(Fr::from_u64(3));        // aux 0 -> witness index 2
    const Var x = cs.alloc_input(Fr::from_u64(9));  // input 1 -> witness index 1
    const Var q = cs.alloc(Fr::from_u64(27));       // aux 1 -> witness index 3
    cs.enforce("p*p=x", [&](L& l) { l.add(p); }, [&](L& l) { l.add(p); }, [&](L& l) { l.add(x); });
    cs.enforce("x*p=q", [&](L& l) { l.add(x); }, [&](L& l) { l.add(p, Fr::from_u64(1)); },
               [&](L& l) { l.add(q).add(Var::one(), Fr::zero()); });
    return cs;
  };
  const auto kept = build();
  auto [copied, w1] = kept.finish();
  auto [moved, w2] = build().finish();
  EXPECT_EQ(w1, (std::vector<Fr>{Fr::one(), Fr::from_u64(9), Fr::from_u64(3), Fr::from_u64(27)}));
  EXPECT_EQ(w1, w2);
  for (const auto* cs : {&copied, &moved}) {
    EXPECT_EQ(cs->num_public, 1u);
    EXPECT_EQ(cs->num_variables, 4u);
    EXPECT_EQ(cs->a.column, (std::vector<uint32_t>{2, 1}));
    EXPECT_EQ(cs->b.column, (std::vector<uint32_t>{2, 2}));
    EXPECT_EQ(cs->c.column, (std::vector<uint32_t>{1, 3}));
    EXPECT_EQ(cs->a.row_start, (std::vector<uint64_t>{0, 1, 2}));
    EXPECT_TRUE(check_satisfied(*cs, std::span<const Fr>(w1)).ok());
  }
  EXPECT_EQ(kept.num_constraints(), 2u) << "finish on an lvalue leaves the builder as it was";
}

// A CSR matrix in the compact form (compact_rows) dots every row as the CSR does; the coefficient
// index refuses matrices with more distinct values than a u16 reaches.
TEST(Compact, RowsOfACsrMatrixDotAsTheCsr) {
  SNARKD_SEED_TRACE();
  SeededRandom rng(snarkd::testing::test_seed());
  const size_t vars = 300;
  const std::vector<Fr> coefficients = {Fr::one(), -Fr::one(), Fr::from_u64(2), Fr::from_u64(1u << 20), Fr::random(rng)};
  SparseMatrix<Fr> m;
  for (size_t row = 0; row < 500; ++row) {
    LinearCombination<Fr> lc;
    for (size_t t = 0; t < row % 7; ++t) lc.push_back({uint32_t(rng() % vars), coefficients[rng() % coefficients.size()]});
    m.add_row(lc);
  }
  std::vector<Fr> w(vars);
  for (auto& x : w) x = Fr::random(rng);
  const SparseMatrix<Fr>* ms[1] = {&m};
  auto index = CoefficientIndex<Fr>::of(ms);
  ASSERT_TRUE(index.ok()) << index.status().to_string();
  EXPECT_EQ(index->dictionary().size(), coefficients.size());
  auto compact = compact_rows(m, *index);
  ASSERT_TRUE(compact.ok()) << compact.status().to_string();
  EXPECT_EQ(compact->rows(), m.rows());
  EXPECT_EQ(compact->nonzeros(), m.nonzeros());
  const std::span<const Fr> dict(index->dictionary());
  for (size_t row = 0; row < m.rows(); ++row) {
    ASSERT_EQ(compact_row_dot<Fr>(*compact, dict, w, 0, row), m.row_dot(row, w)) << "row " << row;
  }
  SparseMatrix<Fr> wide;
  LinearCombination<Fr> many;
  for (size_t k = 0; k <= kMaxDictionary; ++k) many.push_back({0, Fr::from_u64(k + 1)});
  wide.add_row(many);
  const SparseMatrix<Fr>* ws[1] = {&wide};
  EXPECT_FALSE(CoefficientIndex<Fr>::of(ws).ok());
}

}  // namespace snarkd::r1cs
