// The "chain" family: chain:CURVE:LOG2[:BOOLEAN_PERCENT], 2^LOG2 - 8 rows (a 2^LOG2 domain), or
// chain:CURVE:rows=N[:BOOLEAN_PERCENT], N rows.
#include "base/hash.h"
#include "circuits/chain/chain.h"
#include "circuits/circuit.h"
#include "circuits/families.h"

namespace snarkd::circuits {
namespace {

class ChainCircuit final : public Circuit {
 public:
  ChainCircuit(ec::CurveId curve, uint64_t rows, unsigned percent) : curve_(curve), rows_(rows), percent_(percent) {
    std::string size = "rows=" + std::to_string(rows);
    for (unsigned log = 4; log <= 26; ++log) {
      if (rows == (uint64_t(1) << log) - 8) size = std::to_string(log);
    }
    spec_ = "chain:" + std::string(ec::curve_snarkjs_name(curve)) + ":" + size + ":" + std::to_string(percent);
    // The shape seed is a function of the spec (as a key source), so every engine builds the
    // same key.
    seed_ = content_hash("builtin:" + spec_).lo | 1;
  }
  const std::string& spec() const override { return spec_; }
  ec::CurveId curve() const override { return curve_; }
  uint64_t approximate_constraints() const override { return rows_ < 2 ? 2 : rows_; }
  uint64_t approximate_variables() const override { return approximate_constraints() + 2; }

  r1cs::ShapeStats shape() const override {
    return ec::with_engine(curve_, [&]<class E>() {
      using F = typename E::G1::Scalar;
      r1cs::ShapeCS<F> cs;
      synthesize_chain(cs, detail::chain_values<F>(params(1)));
      return cs.stats();
    });
  }
  Result<r1cs::ConstraintSystem<Fr381>> constraints(FieldTag<Fr381> t) const override { return build<Fr381>(t); }
  Result<r1cs::ConstraintSystem<FrBn>> constraints(FieldTag<FrBn> t) const override { return build<FrBn>(t); }
  Result<std::vector<Fr381>> witness(uint64_t s, FieldTag<Fr381> t) const override { return values<Fr381>(s, t); }
  Result<std::vector<FrBn>> witness(uint64_t s, FieldTag<FrBn> t) const override { return values<FrBn>(s, t); }

 private:
  ChainParams params(uint64_t input_seed) const {
    ChainParams p;
    p.constraints = approximate_constraints();
    p.boolean_percent = percent_;
    p.seed = seed_;
    p.input_seed = input_seed == 0 ? 1 : input_seed;  // 0 would draw the shape's seed too
    return p;
  }
  template <class F>
  bool ours() const {
    return (curve_ == ec::CurveId::kBls12_381) == std::is_same_v<F, Fr381>;
  }
  template <class F>
  Result<r1cs::ConstraintSystem<F>> build(FieldTag<F>) const {
    if (!ours<F>()) return wrong_curve(std::is_same_v<F, Fr381> ? "BLS12-381" : "BN254");
    // Any input seed: the rows do not depend on it.
    return std::move(build_chain<F>(params(1)).first);
  }
  template <class F>
  Result<std::vector<F>> values(uint64_t input_seed, FieldTag<F>) const {
    if (!ours<F>()) return wrong_curve(std::is_same_v<F, Fr381> ? "BLS12-381" : "BN254");
    return chain_witness<F>(params(input_seed));
  }

  ec::CurveId curve_;
  uint64_t rows_;
  unsigned percent_;
  std::string spec_;
  uint64_t seed_ = 1;
};

class ChainFamily final : public CircuitFamily {
 public:
  std::string_view name() const override { return "chain"; }
  std::string_view syntax() const override { return "chain:CURVE:LOG2|rows=N[:BOOLEAN_PERCENT]"; }
  std::string_view summary() const override {
    return "a squaring chain with 0/1 side inputs, 2^LOG2 - 8 rows (LOG2 4..26) or N rows (1..2^27), "
           "BOOLEAN_PERCENT default 50; CURVE bn254 or bls12-381";
  }
  Result<std::unique_ptr<Circuit>> parse(std::string_view params, std::string_view spec) const override {
    const auto parts = split(params, ':');
    if (parts.size() < 2 || parts.size() > 3) return spec_error(spec, syntax());
    ASSIGN_OR_RETURN(const ec::CurveId curve, parse_curve(parts[0], spec));
    uint64_t rows = 0;
    if (parts[1].rfind("rows=", 0) == 0) {
      ASSIGN_OR_RETURN(rows, parse_uint(parts[1].substr(5), "rows", spec, 1, uint64_t(1) << 27));
    } else {
      ASSIGN_OR_RETURN(const uint64_t log, parse_uint(parts[1], "log2 constraints", spec, 4, 26));
      rows = (uint64_t(1) << log) - 8;
    }
    uint64_t percent = 50;
    if (parts.size() == 3) {
      ASSIGN_OR_RETURN(percent, parse_uint(parts[2], "boolean percent", spec, 0, 100));
    }
    return std::unique_ptr<Circuit>(std::make_unique<ChainCircuit>(curve, rows, unsigned(percent)));
  }
};

}  // namespace

const CircuitFamily& chain_family() {
  static const ChainFamily family;
  return family;
}

}  // namespace snarkd::circuits
