// Gadget circuits, the ones upstream's tests count: sha256:BITS (the hash of BITS allocated
// bits), poseidon:ARITY (neptune's legacy circuit over ARITY allocated inputs), and
// por:HASH:SHAPE (a Merkle inclusion proof with a public root). Their inputs are drawn from
// the witness seed; they prove (with a test key) like any circuit.
#include <bit>
#include <random>

#include "circuits/circuit.h"
#include "circuits/families.h"
#include "circuits/gadget_circuit.h"
#include "circuits/gadgets/por.h"
#include "circuits/gadgets/poseidon.h"
#include "circuits/gadgets/sha256.h"

namespace snarkd::circuits {
namespace {

using Fr = ff::bls12_381::Fr;

class Sha256Circuit final : public GadgetCircuit<Sha256Circuit> {
 public:
  explicit Sha256Circuit(uint64_t bits) : GadgetCircuit("sha256:" + std::to_string(bits)), bits_(bits) {}
  uint64_t approximate_constraints() const override { return bits_ + (bits_ / 512 + 1) * 27000; }
  uint64_t approximate_variables() const override { return approximate_constraints() + 1; }

  template <class CS>
  void synthesize(CS& cs, uint64_t seed) const {
    std::mt19937_64 rng(seed);
    std::vector<Boolean> in;
    in.reserve(bits_);
    for (uint64_t i = 0; i < bits_; ++i) in.push_back(Boolean::alloc(cs, rng() & 1));
    (void)sha256(cs, in);
  }

 private:
  uint64_t bits_;
};

class PoseidonCircuit final : public GadgetCircuit<PoseidonCircuit> {
 public:
  explicit PoseidonCircuit(unsigned arity) : GadgetCircuit("poseidon:" + std::to_string(arity)), arity_(arity) {}
  uint64_t approximate_constraints() const override { return 3 * arity_ + 28 * (arity_ + 1) + 4 * 60 + 1; }
  uint64_t approximate_variables() const override { return approximate_constraints() + arity_ + 1; }

  template <class CS>
  void synthesize(CS& cs, uint64_t seed) const {
    std::mt19937_64 rng(seed);
    std::vector<AllocatedNum<CS>> in;
    for (unsigned i = 0; i < arity_; ++i) in.push_back(AllocatedNum<CS>::alloc(cs, Fr::random(rng)));
    (void)poseidon_hash(cs, std::span<const AllocatedNum<CS>>(in));
  }

 private:
  unsigned arity_;
};

class PorCircuit final : public GadgetCircuit<PorCircuit> {
 public:
  PorCircuit(std::string spec, bool sha, TreeShape shape) : GadgetCircuit(std::move(spec)), sha_(sha), shape_(shape) {}
  uint64_t approximate_constraints() const override {
    uint64_t n = 3;
    for (unsigned a : shape_.level_arities()) n += sha_ ? 256 * a + 27000 * (a / 2 + 1) : 3 * a + 28 * (a + 1) + 4 * 60 + 30;
    return n;
  }
  uint64_t approximate_variables() const override { return approximate_constraints() + 3; }

  template <class CS>
  void synthesize(CS& cs, uint64_t seed) const {
    if (sha_) run<CS, Sha256TreeHasher>(cs, seed);
    else run<CS, PoseidonTreeHasher>(cs, seed);
  }

 private:
  // A random leaf and siblings; the root computed natively along the path.
  template <class CS, class Hasher>
  void run(CS& cs, uint64_t seed) const {
    std::mt19937_64 rng(seed);
    auto random_node = [&] {
      uint8_t bytes[32];
      for (auto& b : bytes) b = uint8_t(rng());
      bytes[31] &= 0x3f;  // a tree node is a 254-bit value
      return *Fr::from_bytes_le(bytes);
    };
    const Fr leaf = random_node();
    std::vector<PathLevel<Fr>> path;
    Fr cur = leaf;
    for (unsigned arity : shape_.level_arities()) {
      PathLevel<Fr> level;
      level.index = unsigned(rng() % arity);
      for (unsigned j = 0; j + 1 < arity; ++j) level.siblings.push_back(random_node());
      std::vector<Fr> children = level.siblings;
      children.insert(children.begin() + level.index, cur);
      cur = Hasher::native(std::span<const Fr>(children));
      path.push_back(std::move(level));
    }
    por<CS, Hasher>(cs, shape_, leaf, std::span<const PathLevel<Fr>>(path), cur, true);
  }

  bool sha_;
  TreeShape shape_;
};

class Sha256Family final : public CircuitFamily {
 public:
  std::string_view name() const override { return "sha256"; }
  std::string_view syntax() const override { return "sha256:BITS"; }
  std::string_view summary() const override {
    return "bellperson's SHA-256 gadget over BITS allocated bits (a multiple of 8, at most 2^20)";
  }
  Result<std::unique_ptr<Circuit>> parse(std::string_view params, std::string_view spec) const override {
    ASSIGN_OR_RETURN(const uint64_t bits, parse_uint(params, "bits", spec, 0, uint64_t(1) << 20));
    if (bits % 8) return invalid_argument("circuit '" + std::string(spec) + "': bits must be a multiple of 8");
    return std::unique_ptr<Circuit>(std::make_unique<Sha256Circuit>(bits));
  }
};

class PoseidonFamily final : public CircuitFamily {
 public:
  std::string_view name() const override { return "poseidon"; }
  std::string_view syntax() const override { return "poseidon:ARITY"; }
  std::string_view summary() const override {
    return "neptune's legacy Poseidon circuit (BLS12-381, Standard, MerkleTree tag) over ARITY allocated inputs; "
           "ARITY 2, 4, 8, 11, 16, 24 or 36";
  }
  Result<std::unique_ptr<Circuit>> parse(std::string_view params, std::string_view spec) const override {
    ASSIGN_OR_RETURN(const uint64_t arity, parse_uint(params, "arity", spec, 1, 64));
    if (!poseidon_arity_supported(unsigned(arity))) {
      return invalid_argument("circuit '" + std::string(spec) + "': arity must be 2, 4, 8, 11, 16, 24 or 36");
    }
    return std::unique_ptr<Circuit>(std::make_unique<PoseidonCircuit>(unsigned(arity)));
  }
};

class PorFamily final : public CircuitFamily {
 public:
  std::string_view name() const override { return "por"; }
  std::string_view syntax() const override { return "por:sha256|poseidon:BASExLEVELS[-SUB[-TOP]]"; }
  std::string_view summary() const override {
    return "storage-proofs-core's Merkle inclusion proof with a public root: LEVELS levels of arity BASE, then "
           "optional sub and top levels (arities 2, 4, 8; SUB 0 for none), e.g. 8x2-8-2";
  }
  Result<std::unique_ptr<Circuit>> parse(std::string_view params, std::string_view spec) const override {
    const auto parts = split(params, ':');
    if (parts.size() != 2 || (parts[0] != "sha256" && parts[0] != "poseidon")) return spec_error(spec, syntax());
    const auto dims = split(parts[1], '-');
    if (dims.empty() || dims.size() > 3) return spec_error(spec, syntax());
    const auto base = split(dims[0], 'x');
    if (base.size() != 2) return spec_error(spec, syntax());
    auto arity = [&](std::string_view text, bool zero_ok) -> Result<unsigned> {
      ASSIGN_OR_RETURN(const uint64_t a, parse_uint(text, "arity", spec, 0, 8));
      if (!(a == 2 || a == 4 || a == 8 || (zero_ok && a == 0))) {
        return invalid_argument("circuit '" + std::string(spec) + "': arity must be 2, 4 or 8, not " +
                                std::to_string(a));
      }
      return unsigned(a);
    };
    TreeShape shape;
    ASSIGN_OR_RETURN(shape.base_arity, arity(base[0], false));
    ASSIGN_OR_RETURN(const uint64_t levels, parse_uint(base[1], "levels", spec, 1, 64));
    shape.base_levels = unsigned(levels);
    if (dims.size() > 1) {
      ASSIGN_OR_RETURN(shape.sub_arity, arity(dims[1], true));
    }
    if (dims.size() > 2) {
      ASSIGN_OR_RETURN(shape.top_arity, arity(dims[2], true));
      if (shape.top_arity != 0 && shape.sub_arity == 0) return invalid_argument("circuit '" + std::string(spec) + "': a top level needs a sub level");
    }
    if (std::bit_width(shape.leaves()) > 64 || shape.base_levels * 3 + 6 > 64) {
      return invalid_argument("circuit '" + std::string(spec) + "': more than 2^64 leaves");
    }
    std::string canonical = "por:" + std::string(parts[0]) + ":" + std::to_string(shape.base_arity) + "x" +
                            std::to_string(shape.base_levels);
    if (shape.sub_arity || shape.top_arity) canonical += "-" + std::to_string(shape.sub_arity);
    if (shape.top_arity) canonical += "-" + std::to_string(shape.top_arity);
    return std::unique_ptr<Circuit>(std::make_unique<PorCircuit>(canonical, parts[0] == "sha256", shape));
  }
};

}  // namespace

const CircuitFamily& sha256_family() {
  static const Sha256Family family;
  return family;
}
const CircuitFamily& poseidon_family() {
  static const PoseidonFamily family;
  return family;
}
const CircuitFamily& por_family() {
  static const PorFamily family;
  return family;
}

}  // namespace snarkd::circuits
