// The "partition" family: partition:CURVE:CONSTRAINTS[:B_PERCENT[:BOOLEAN_PERCENT]].
#include "circuits/circuit.h"
#include "circuits/families.h"
#include "circuits/partition/partition.h"

namespace snarkd::circuits {
namespace {

class PartitionCircuit final : public Circuit {
 public:
  PartitionCircuit(ec::CurveId curve, PartitionParams p) : curve_(curve), p_(p) {
    spec_ = "partition:" + std::string(ec::curve_snarkjs_name(curve)) + ":" + std::to_string(p.constraints) + ":" +
            std::to_string(p.b_percent) + ":" + std::to_string(p.boolean_percent);
  }
  const std::string& spec() const override { return spec_; }
  ec::CurveId curve() const override { return curve_; }
  uint64_t approximate_constraints() const override { return p_.constraints; }
  uint64_t approximate_variables() const override { return p_.constraints + 2; }

  r1cs::ShapeStats shape() const override {
    return ec::with_engine(curve_, [&]<class E>() {
      r1cs::ShapeCS<typename E::G1::Scalar> cs;
      synthesize_partition(cs, p_);
      return cs.stats();
    });
  }
  Result<r1cs::ConstraintSystem<Fr381>> constraints(FieldTag<Fr381>) const override {
    if (curve_ != ec::CurveId::kBls12_381) return wrong_curve("BLS12-381");
    return std::move(build_partition<Fr381>(p_).first);
  }
  Result<r1cs::ConstraintSystem<FrBn>> constraints(FieldTag<FrBn>) const override {
    if (curve_ != ec::CurveId::kBn254) return wrong_curve("BN254");
    return std::move(build_partition<FrBn>(p_).first);
  }
  // The values come with the shape from one seed: every witness is the same one.
  Result<std::vector<Fr381>> witness(uint64_t, FieldTag<Fr381>) const override {
    if (curve_ != ec::CurveId::kBls12_381) return wrong_curve("BLS12-381");
    return partition_witness<Fr381>(p_);
  }
  Result<std::vector<FrBn>> witness(uint64_t, FieldTag<FrBn>) const override {
    if (curve_ != ec::CurveId::kBn254) return wrong_curve("BN254");
    return partition_witness<FrBn>(p_);
  }

 private:
  ec::CurveId curve_;
  PartitionParams p_;
  std::string spec_;
};

class PartitionFamily final : public CircuitFamily {
 public:
  std::string_view name() const override { return "partition"; }
  std::string_view syntax() const override { return "partition:CURVE:CONSTRAINTS[:B_PERCENT[:BOOLEAN_PERCENT]]"; }
  std::string_view summary() const override {
    return "a synthetic circuit with a PoRep partition's shape: every variable in A and C, B_PERCENT (default "
           "25) in B, BOOLEAN_PERCENT (default 90) of the rest bits; for benchmarks";
  }
  Result<std::unique_ptr<Circuit>> parse(std::string_view params, std::string_view spec) const override {
    const auto parts = split(params, ':');
    if (parts.size() < 2 || parts.size() > 4) return spec_error(spec, syntax());
    ASSIGN_OR_RETURN(const ec::CurveId curve, parse_curve(parts[0], spec));
    PartitionParams p;
    ASSIGN_OR_RETURN(p.constraints, parse_uint(parts[1], "constraints", spec, 1, uint64_t(1) << 30));
    if (parts.size() > 2) {
      ASSIGN_OR_RETURN(const uint64_t b, parse_uint(parts[2], "B percent", spec, 0, 100));
      p.b_percent = unsigned(b);
    }
    if (parts.size() > 3) {
      ASSIGN_OR_RETURN(const uint64_t bits, parse_uint(parts[3], "boolean percent", spec, 0, 100));
      p.boolean_percent = unsigned(bits);
    }
    return std::unique_ptr<Circuit>(std::make_unique<PartitionCircuit>(curve, p));
  }
};

}  // namespace

const CircuitFamily& partition_family() {
  static const PartitionFamily family;
  return family;
}

}  // namespace snarkd::circuits
