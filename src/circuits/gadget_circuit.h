// snarkd/circuits (internal to families): a Circuit from one generic `synthesize(cs, seed)`,
// for families written with the gadgets. Over BLS12-381 (the gadgets' field).
#pragma once

#include <string>

#include "circuits/circuit.h"

namespace snarkd::circuits {

template <class Derived>
class GadgetCircuit : public Circuit {
 public:
  explicit GadgetCircuit(std::string spec) : spec_(std::move(spec)) {}
  const std::string& spec() const override { return spec_; }
  ec::CurveId curve() const override { return ec::CurveId::kBls12_381; }

  r1cs::ShapeStats shape() const override {
    r1cs::ShapeCS<Fr381> cs;
    self().synthesize(cs, 0);
    return cs.stats();
  }
  Result<r1cs::ConstraintSystem<Fr381>> constraints(FieldTag<Fr381>) const override {
    r1cs::BuilderCS<Fr381> cs;
    self().synthesize(cs, 0);
    return std::move(std::move(cs).finish().first);
  }
  Result<std::vector<Fr381>> witness(uint64_t input_seed, FieldTag<Fr381>) const override {
    r1cs::WitnessCS<Fr381> cs;
    cs.reserve_aux(approximate_variables());
    self().synthesize(cs, input_seed);
    return cs.assignment();
  }
  using Circuit::constraints;
  using Circuit::witness;

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
  std::string spec_;
};

}  // namespace snarkd::circuits
