// snarkd/circuits: circuit families behind one interface.
//
// A circuit is named by a spec, `family:parameters` ("chain:bn254:16:50", "sha256:512",
// "poseidon:8", "por:poseidon:8x2-8"); the registry (src/registry, one line per family) parses
// it. The engine, the CLI and the daemon know circuits only through this header and
// registry/registry.h: a family is one folder and one registry line.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "ec/curve_id.h"
#include "ff/bls12_381.h"
#include "ff/bn254.h"
#include "r1cs/cs.h"
#include "r1cs/r1cs.h"

namespace snarkd::circuits {

template <class F>
struct FieldTag {};

// One circuit of a family, with all its parameters fixed.
class Circuit {
 public:
  using Fr381 = ff::bls12_381::Fr;
  using FrBn = ff::bn254::Fr;

  virtual ~Circuit() = default;
  // The canonical spec (what parse_circuit accepts and gives back for it).
  virtual const std::string& spec() const = 0;
  virtual ec::CurveId curve() const = 0;
  // Constraints and variables (with ONE), cheaply and without synthesis: for memory estimates
  // before a key exists. Exact where the family knows, an upper bound otherwise.
  virtual uint64_t approximate_constraints() const = 0;
  virtual uint64_t approximate_variables() const = 0;
  // The share of variables that appear in B (whose key points are kept), for the same estimates;
  // 1 where the family does not know.
  virtual double approximate_b_share() const { return 1.0; }

  // The shape, counted by the shape mode in memory of a few bits per variable.
  virtual r1cs::ShapeStats shape() const = 0;
  // The rows (in snarkd's layout: ONE, inputs, aux) for a key. Fails for the other curve.
  virtual Result<r1cs::ConstraintSystem<Fr381>> constraints(FieldTag<Fr381>) const;
  virtual Result<r1cs::ConstraintSystem<FrBn>> constraints(FieldTag<FrBn>) const;
  // A full assignment [ONE, inputs..., aux...] for inputs drawn from `input_seed` (0 is a
  // valid seed): the witness-only mode.
  virtual Result<std::vector<Fr381>> witness(uint64_t input_seed, FieldTag<Fr381>) const;
  virtual Result<std::vector<FrBn>> witness(uint64_t input_seed, FieldTag<FrBn>) const;

 protected:
  Status wrong_curve(const char* wanted) const;
};

class CircuitFamily {
 public:
  virtual ~CircuitFamily() = default;
  virtual std::string_view name() const = 0;
  // How its spec reads ("chain:CURVE:LOG2[:BOOLEAN_PERCENT]") and what it is, for --help.
  virtual std::string_view syntax() const = 0;
  virtual std::string_view summary() const = 0;
  // `params` is the spec after "name:"; errors name `spec`.
  virtual Result<std::unique_ptr<Circuit>> parse(std::string_view params, std::string_view spec) const = 0;
};


// Helpers for families' parsers.
std::vector<std::string_view> split(std::string_view s, char sep);
Result<uint64_t> parse_uint(std::string_view text, std::string_view what, std::string_view spec, uint64_t lo,
                            uint64_t hi);
Result<ec::CurveId> parse_curve(std::string_view text, std::string_view spec);
// "circuit 'SPEC': expected SYNTAX"
Status spec_error(std::string_view spec, std::string_view syntax);

}  // namespace snarkd::circuits
