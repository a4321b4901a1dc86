#include "filecoin/families.h"

#include <bit>

#include "base/sha256.h"
#include "filecoin/c1_synth.h"
#include "filecoin/stacked_circuit.h"
#include "r1cs/cs.h"

namespace snarkd::filecoin {

namespace {

using Fr = circuits::Circuit::Fr381;

class StackedCircuitFamilyMember final : public circuits::Circuit {
 public:
  // `proof` is copied: a test shape's SealProof is made here, and its names point into `names_`.
  StackedCircuitFamilyMember(std::string spec, const SealProof& proof, std::string name, std::string size_name)
      : spec_(std::move(spec)), proof_(proof), name_(std::move(name)), size_name_(std::move(size_name)) {
    proof_.name = name_;
    proof_.size_name = size_name_;
    shape_ = stacked_shape(proof_);
  }

  const std::string& spec() const override { return spec_; }
  ec::CurveId curve() const override { return ec::CurveId::kBls12_381; }

  uint64_t approximate_constraints() const override { return stacked_constraints(shape_); }
  uint64_t approximate_variables() const override { return stacked_variables_bound(shape_); }
  // The 32 GiB partition's fingerprint: 33,112,282 of its 130,170,221 variables are in B (0.254).
  double approximate_b_share() const override { return 0.26; }

  r1cs::ShapeStats shape() const override {
    r1cs::ShapeCS<Fr> cs;
    synthesize_stacked(cs, shape_, blank_stacked_values(shape_));
    return cs.stats();
  }
  Result<r1cs::ConstraintSystem<Fr>> constraints(circuits::FieldTag<Fr>) const override {
    return build_stacked(shape_, blank_stacked_values(shape_));
  }
  // The first partition of a CC sector's synthesized C1 for ids drawn from the seed.
  Result<std::vector<Fr>> witness(uint64_t input_seed, circuits::FieldTag<Fr>) const override {
    auto id = [&](uint8_t tag) {
      uint8_t buf[9] = {tag};
      for (int i = 0; i < 8; ++i) buf[1 + i] = uint8_t(input_seed >> (8 * i));
      return sha256(std::span<const uint8_t>(buf, 9));
    };
    Bytes32 seed = id(2);
    ASSIGN_OR_RETURN(const C1Output c1, synthesize_c1(proof_, prover_id_from_miner(1000), input_seed, id(1), seed));
    ASSIGN_OR_RETURN(const StackedValues values, stacked_values(c1, 0));
    r1cs::WitnessCS<Fr> cs;
    cs.reserve_aux(approximate_variables());
    synthesize_stacked(cs, shape_, values);
    return cs.assignment();
  }
  using circuits::Circuit::constraints;
  using circuits::Circuit::witness;

 private:
  std::string spec_;
  SealProof proof_;
  std::string name_, size_name_;
  StackedShape shape_;
};

class PorepFamily final : public circuits::CircuitFamily {
 public:
  std::string_view name() const override { return "porep"; }
  std::string_view syntax() const override { return "porep:2KiB|8MiB|512MiB|32GiB|64GiB"; }
  std::string_view summary() const override {
    return "one partition of Filecoin's PoRep C2 circuit (StackedCircuit) for the sector size; witnesses from a "
           "synthesized CC sector";
  }
  Result<std::unique_ptr<circuits::Circuit>> parse(std::string_view params, std::string_view spec) const override {
    auto p = default_seal_proof_for_size(params);
    if (!p.ok()) return circuits::spec_error(spec, syntax());
    return std::unique_ptr<circuits::Circuit>(std::make_unique<StackedCircuitFamilyMember>(
        "porep:" + std::string(params), **p, std::string((*p)->name), std::string((*p)->size_name)));
  }
};

class StackedFamily final : public circuits::CircuitFamily {
 public:
  std::string_view name() const override { return "stacked"; }
  std::string_view syntax() const override { return "stacked:nodes=N,layers=L,challenges=K,tree=B-S-T"; }
  std::string_view summary() const override {
    return "PoRep's StackedCircuit of any test shape: N nodes (a power of two), L layers (2 or 11), K challenges, "
           "trees C and R with base arity B (2 or 8), sub arity S and top arity T (0, 2, 4 or 8)";
  }
  Result<std::unique_ptr<circuits::Circuit>> parse(std::string_view params, std::string_view spec) const override {
    uint64_t nodes = 0, layers = 0, challenges = 0;
    std::vector<uint64_t> tree;
    for (std::string_view part : circuits::split(params, ',')) {
      const auto eq = part.find('=');
      if (eq == std::string_view::npos) return circuits::spec_error(spec, syntax());
      const std::string_view key = part.substr(0, eq), value = part.substr(eq + 1);
      if (key == "nodes") {
        ASSIGN_OR_RETURN(nodes, circuits::parse_uint(value, "nodes", spec, 8, uint64_t(1) << 31));
      } else if (key == "layers") {
        ASSIGN_OR_RETURN(layers, circuits::parse_uint(value, "layers", spec, 2, 11));
      } else if (key == "challenges") {
        ASSIGN_OR_RETURN(challenges, circuits::parse_uint(value, "challenges", spec, 1, 18));
      } else if (key == "tree") {
        for (std::string_view a : circuits::split(value, '-')) {
          ASSIGN_OR_RETURN(const uint64_t v, circuits::parse_uint(a, "tree arity", spec, 0, 8));
          tree.push_back(v);
        }
      } else {
        return circuits::spec_error(spec, syntax());
      }
    }
    if (!nodes || !layers || !challenges || tree.size() != 3) return circuits::spec_error(spec, syntax());
    auto bad = [&](const std::string& why) { return invalid_argument("circuit '" + std::string(spec) + "': " + why); };
    if (layers != 2 && layers != 11) return bad("layers must be 2 or 11 (the column hash's arity)");
    if (!std::has_single_bit(nodes)) return bad("nodes must be a power of two");
    if (tree[0] != 2 && tree[0] != 8) return bad("the base arity must be 2 or 8");
    for (size_t i = 1; i < 3; ++i) {
      if (tree[i] != 0 && tree[i] != 2 && tree[i] != 4 && tree[i] != 8) return bad("sub and top arities must be 0, 2, 4 or 8");
    }
    if (tree[1] == 0 && tree[2] != 0) return bad("a top level needs a sub level");
    const uint64_t upper = (tree[1] ? tree[1] : 1) * (tree[2] ? tree[2] : 1);
    uint64_t base_leaves = nodes / upper, levels = 0;
    while (base_leaves > 1 && base_leaves % tree[0] == 0) {
      base_leaves /= tree[0];
      ++levels;
    }
    if (nodes % upper != 0 || base_leaves != 1 || levels == 0) {
      return bad(std::to_string(nodes) + " nodes do not fill a " + std::to_string(tree[0]) + "-" +
                 std::to_string(tree[1]) + "-" + std::to_string(tree[2]) + " tree");
    }
    SealProof p = seal_proofs()[5];  // V1_1's porep id for the graph; the rest set here
    p.sector_size = nodes * 32;
    p.layers = unsigned(layers);
    p.partitions = 1;
    p.challenges_per_partition = unsigned(challenges);
    p.tree = TreeArities{unsigned(tree[0]), unsigned(levels), unsigned(tree[1]), unsigned(tree[2])};
    const std::string canonical = "stacked:nodes=" + std::to_string(nodes) + ",layers=" + std::to_string(layers) +
                                  ",challenges=" + std::to_string(challenges) + ",tree=" + p.tree.name();
    const std::string size = std::to_string(nodes) + "nodes";
    return std::unique_ptr<circuits::Circuit>(
        std::make_unique<StackedCircuitFamilyMember>(canonical, p, "stacked test shape", size));
  }
};

}  // namespace

const circuits::CircuitFamily& porep_family() {
  static const PorepFamily family;
  return family;
}

const circuits::CircuitFamily& stacked_family() {
  static const StackedFamily family;
  return family;
}

}  // namespace snarkd::filecoin
