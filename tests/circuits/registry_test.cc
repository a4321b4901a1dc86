// The registry: specs parse to their families, bad specs are refused with the spec named, and
// every family's shape (counted by the shape mode) equals the rows its key is made from.
#include "circuits/circuit.h"

#include <gtest/gtest.h>

#include "circuits/modes.h"
#include "registry/registry.h"

namespace snarkd::circuits {
namespace {

using registry::parse_circuit;
using testing::stats_of;

// The counts of the rows a key would be made from.
r1cs::ShapeStats built_stats(const Circuit& c) {
  return ec::with_engine(c.curve(), [&]<class E>() {
    auto cs = c.constraints(FieldTag<typename E::G1::Scalar>());
    EXPECT_TRUE(cs.ok()) << cs.status().message();
    return stats_of(*cs);
  });
}

TEST(Registry, UpstreamCountsThroughSpecs) {
  const std::pair<const char*, uint64_t> cases[] = {
      {"sha256:512", 45386},           {"sha256:0", 0},
      {"poseidon:2", 311},             {"poseidon:11", 598},
      {"poseidon:36", 1385},           {"por:poseidon:8x2", 1063},
      {"por:poseidon:8x2-8", 1593},    {"por:poseidon:8x2-8-2", 1907},
      {"por:poseidon:8x2-4-2", 1764},  {"por:sha256:4x3", 216258},
      {"builtin:por:poseidon:2x6", 1887},
  };
  for (const auto& [spec, constraints] : cases) {
    auto c = parse_circuit(spec);
    ASSERT_TRUE(c.ok()) << spec << ": " << c.status().message();
    const auto shape = (*c)->shape();
    EXPECT_EQ(shape.constraints, constraints) << spec;
    auto built = built_stats(**c);
    built.digest = shape.digest;
    EXPECT_EQ(shape, built) << spec;
  }
}

TEST(Registry, CanonicalSpecs) {
  EXPECT_EQ((*parse_circuit("chain:bn254:10"))->spec(), "chain:bn128:10:50");
  EXPECT_EQ((*parse_circuit("builtin:chain:bls12-381:8:25"))->spec(), "chain:bls12381:8:25");
  EXPECT_EQ((*parse_circuit("chain:bn254:rows=248:10"))->spec(), "chain:bn128:8:10");  // 2^8 - 8
  EXPECT_EQ((*parse_circuit("chain:bn254:rows=65000"))->spec(), "chain:bn128:rows=65000:50");
  EXPECT_EQ((*parse_circuit("chain:bn254:rows=65000"))->shape().constraints, 65000u);
  EXPECT_EQ((*parse_circuit("por:poseidon:8x2-0-0"))->spec(), "por:poseidon:8x2");
  EXPECT_EQ((*parse_circuit("por:poseidon:8x2-8-0"))->spec(), "por:poseidon:8x2-8");
  EXPECT_EQ((*parse_circuit("por:sha256:2x3"))->spec(), "por:sha256:2x3");
  EXPECT_EQ((*parse_circuit("partition:bn254:100"))->spec(), "partition:bn128:100:25:90");
}

TEST(Registry, BadSpecsAreRefusedNamingTheSpec) {
  for (const char* spec : {"nosuch:1", "", "chain:bn254", "chain:x:10", "chain:bn254:30", "chain:bn254:10:101", "chain:bn254:rows=0", "chain:bn254:rows=x",
                           "sha256:7", "sha256:abc", "poseidon:3", "por:md5:2x2", "por:poseidon:3x2",
                           "por:poseidon:8x2-0-2", "por:poseidon:8", "partition:bn254:0"}) {
    auto c = parse_circuit(spec);
    ASSERT_FALSE(c.ok()) << spec;
    EXPECT_NE(c.status().message().find("'" + std::string(spec) + "'"), std::string::npos) << c.status().message();
  }
}

TEST(Registry, ChainAndPartitionShapesEqualTheirFastBuilders) {
  for (const char* spec : {"chain:bn254:8:50", "chain:bls12-381:9:0", "chain:bn254:10:100", "partition:bn254:500",
                           "partition:bls12-381:300:60:10"}) {
    auto c = parse_circuit(spec);
    ASSERT_TRUE(c.ok()) << spec;
    const auto shape = (*c)->shape();
    auto built = built_stats(**c);
    built.digest = shape.digest;
    EXPECT_EQ(shape, built) << spec;
  }
}

TEST(Registry, WitnessesSatisfyTheRowsAndFollowTheSeed) {
  for (const char* spec : {"sha256:64", "poseidon:4", "por:sha256:2x1", "por:poseidon:4x2-2", "chain:bls12-381:6"}) {
    auto c = parse_circuit(spec);
    ASSERT_TRUE(c.ok()) << spec;
    auto cs = (*c)->constraints(FieldTag<Circuit::Fr381>());
    ASSERT_TRUE(cs.ok());
    auto w1 = (*c)->witness(1, FieldTag<Circuit::Fr381>());
    auto w2 = (*c)->witness(2, FieldTag<Circuit::Fr381>());
    ASSERT_TRUE(w1.ok() && w2.ok());
    EXPECT_TRUE(r1cs::check_satisfied(*cs, std::span<const Circuit::Fr381>(*w1)).ok()) << spec;
    EXPECT_TRUE(r1cs::check_satisfied(*cs, std::span<const Circuit::Fr381>(*w2)).ok()) << spec;
    EXPECT_NE(*w1, *w2) << spec;
    // The other curve is refused, naming the circuit.
    auto other = (*c)->witness(1, FieldTag<Circuit::FrBn>());
    ASSERT_FALSE(other.ok());
    EXPECT_NE(other.status().message().find((*c)->spec()), std::string::npos);
  }
}

}  // namespace
}  // namespace snarkd::circuits
