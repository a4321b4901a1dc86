// Runs one gadget program in every constraint-system mode and checks that the modes agree.
#pragma once

#include <gtest/gtest.h>

#include "ff/bls12_381.h"
#include "r1cs/cs.h"

namespace snarkd::circuits::testing {

using Fr = ff::bls12_381::Fr;

struct ModeResults {
  r1cs::ShapeStats shape;
  r1cs::ConstraintSystem<Fr> cs;
  std::vector<Fr> assignment;
};

// The semantic stats of a built constraint system (the builder's counterpart of ShapeCS).
template <class F>
r1cs::ShapeStats stats_of(const r1cs::ConstraintSystem<F>& cs) {
  r1cs::ShapeStats s;
  s.inputs = cs.num_public + 1;
  s.aux = cs.num_variables - s.inputs;
  s.constraints = cs.num_constraints();
  s.nnz_a = cs.a.nonzeros() + s.inputs;
  s.nnz_b = cs.b.nonzeros();
  s.nnz_c = cs.c.nonzeros();
  for (uint32_t v : cs.a.variables_used(cs.num_variables)) s.a_aux_density += v >= s.inputs;
  for (uint32_t v : cs.b.variables_used(cs.num_variables)) (v >= s.inputs ? s.b_aux_density : s.b_input_density)++;
  return s;
}

// `program(cs)` must be a generic lambda. Checks: the builder's rows are satisfied by its
// assignment; the witness-only assignment equals the builder's; the checking mode passes; the
// shape mode's counts equal the builder's.
template <class Program>
ModeResults run_all_modes(Program&& program) {
  ModeResults out;
  r1cs::BuilderCS<Fr> builder;
  program(builder);
  std::tie(out.cs, out.assignment) = builder.finish();
  EXPECT_TRUE(r1cs::check_satisfied(out.cs, std::span<const Fr>(out.assignment)).ok());

  r1cs::WitnessCS<Fr> witness;
  program(witness);
  EXPECT_TRUE(witness.assignment() == out.assignment) << "witness-only assignment differs from the builder's";

  r1cs::CheckingCS<Fr> checking;
  program(checking);
  EXPECT_TRUE(checking.satisfied()) << checking.status().message();
  EXPECT_EQ(checking.num_constraints(), out.cs.num_constraints());

  r1cs::ShapeCS<Fr> shape;
  program(shape);
  out.shape = shape.stats();
  auto built = stats_of(out.cs);
  built.digest = out.shape.digest;  // the builder has no digest; the rest must agree
  EXPECT_EQ(out.shape, built);
  return out;
}

// Re-runs the program in the checking mode with the aux variable `index` off by one and returns
// the failure message (empty when nothing failed).
template <class Program>
std::string tampered_failure(Program&& program, uint32_t index) {
  r1cs::CheckingCS<Fr> checking;
  checking.tamper_with_aux(index);
  program(checking);
  return checking.satisfied() ? std::string() : checking.status().message();
}

// Every aux variable from `first` on is pinned by some row: each one, made wrong in turn (all
// of them, or `samples` spread over them), fails the checking mode, which names the row.
// (A program's own input bits below `first` may be free: an input nothing reads.)
template <class Program>
void expect_every_aux_constrained(Program&& program, uint32_t samples = 0, uint32_t first = 0) {
  r1cs::CheckingCS<Fr> probe;
  program(probe);
  const uint32_t n = probe.num_aux();
  const uint32_t step = samples == 0 || samples >= n - first ? 1 : (n - first) / samples;
  for (uint32_t i = first; i < n; i += step) {
    const std::string failure = tampered_failure(program, i);
    EXPECT_NE(failure.find("is not satisfied"), std::string::npos) << "aux " << i << " of " << n << " is free";
  }
}

}  // namespace snarkd::circuits::testing
