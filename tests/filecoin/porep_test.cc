// PoRep end to end on real (small) sectors sealed here with fresh random data, ticket and seed:
// commit phase 1, the C1 output through both encodings and back, the verifier, the public
// inputs against what the paths encode, corrupt C1 files; and the synthetic-PoRep challenges
// against rust-fil-proofs' hard-coded vectors (challenges.rs).
#include "filecoin/porep.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/hex.h"
#include "ff/bls12_381.h"
#include "filecoin/test_bytes.h"
#include "test_util.h"

namespace snarkd::filecoin {
namespace {

using testing::fr_bytes;
using testing::random_bytes;

using Fr = ff::bls12_381::Fr;



TEST(PorepTest, SyntheticChallengesMatchUpstreamVectors) {
  // test_synth_challenges_against_hardcoded: 2^10 nodes, replica_id 55, comm_r 101, 21 synthetic
  // challenges, seed [1; 32], 10 PoRep challenges of partition 0.
  const Bytes32 replica_id = fr_bytes(55), comm_r = fr_bytes(101);
  Bytes32 seed;
  seed.fill(1);
  EXPECT_EQ(synthetic_challenges(1024, replica_id, comm_r, 21),
            (std::vector<uint64_t>{178, 297, 869, 211, 875, 477, 94, 781, 124, 332, 856, 801, 176, 692, 429, 691, 290,
                                   204, 986, 210, 973}));
  EXPECT_EQ(synthetic_porep_challenges(1024, replica_id, comm_r, seed, 21, 10, 0),
            (std::vector<uint64_t>{176, 781, 801, 986, 290, 211, 692, 856, 986, 332}));
}

TEST(PorepTest, InteractiveChallengesAreInRangeAndPartitionsAgree) {
  auto rng = snarkd::testing::make_rng();
  SNARKD_SEED_TRACE();
  const SealProof& p = seal_proofs()[8];  // 32 GiB: 10 partitions of 18
  const Bytes32 replica_id = fr_bytes(rng()), seed = random_bytes(rng);
  std::vector<uint64_t> all;
  for (unsigned k = 0; k < p.partitions; ++k) {
    auto c = interactive_challenges(p, replica_id, seed, k);
    ASSERT_EQ(c.size(), 18u);
    all.insert(all.end(), c.begin(), c.end());
  }
  // One partition of 180 gives the same list (partition equivalence upstream).
  SealProof one = p;
  one.challenges_per_partition = 180;
  EXPECT_EQ(interactive_challenges(one, replica_id, seed, 0), all);
  for (uint64_t c : all) {
    EXPECT_GE(c, 1u);
    EXPECT_LT(c, p.nodes());
  }
}

struct Sealed {
  SealedSector sector;
  C1Output c1;
};

Sealed seal_random(const SealProof& p, std::mt19937_64& rng) {
  const StackedGraph graph(p);
  std::vector<Bytes32> data(p.nodes());
  for (auto& d : data) {
    d = random_bytes(rng);
    d[31] &= 0x3f;  // Fr32 padding
  }
  auto s = seal_sector(p, graph, data, prover_id_from_miner(rng() % 100000), rng() % 1000000, random_bytes(rng));
  EXPECT_TRUE(s.ok()) << s.status().to_string();
  auto c1 = commit_phase1(*s, graph, random_bytes(rng));
  EXPECT_TRUE(c1.ok()) << c1.status().to_string();
  return {std::move(*s), std::move(*c1)};
}

void round_trip(const SealProof& p) {
  auto rng = snarkd::testing::make_rng();
  SNARKD_SEED_TRACE();
  const StackedGraph graph(p);
  auto [sector, c1] = seal_random(p, rng);
  ASSERT_TRUE(verify_c1(c1, graph).ok()) << verify_c1(c1, graph).to_string();
  EXPECT_EQ(c1.replica_id, replica_id(sector.prover_id, sector.sector, sector.ticket, sector.comm_d, p.porep_id()));
  // JSON: read back equal, and written again byte for byte.
  const std::string json = write_c1_json(c1);
  auto back = read_c1_json(json, "'c1.json'");
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_TRUE(*back == c1);
  EXPECT_EQ(write_c1_json(*back), json);
  // bincode: the same proofs.
  const std::string bin = write_c1_bincode(c1);
  auto from_bin = read_c1_bincode(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bin.data()), bin.size()), p,
                                  "'commit-phase1-output'");
  ASSERT_TRUE(from_bin.ok()) << from_bin.status().to_string();
  EXPECT_TRUE(*from_bin == c1);
  // The public inputs derived from the graph equal what the C1's paths encode.
  for (unsigned k = 0; k < p.partitions; ++k) {
    auto in = public_inputs(p, graph, c1.replica_id, c1.comm_d, c1.comm_r, c1.seed, k);
    ASSERT_TRUE(in.ok());
    ASSERT_EQ(in->inputs.size(), 3 + 18 * p.challenges_per_partition);
    EXPECT_EQ(in->inputs[0], c1.replica_id);
    EXPECT_EQ(in->inputs[1], c1.comm_d);
    EXPECT_EQ(in->inputs[2], c1.comm_r);
    for (size_t i = 0; i < c1.vanilla_proofs[k].size(); ++i) {
      const auto& v = c1.vanilla_proofs[k][i];
      auto at = [&](size_t j) { return in->inputs[3 + 18 * i + j]; };
      EXPECT_EQ(at(0), fr_bytes(v.comm_d_proofs.leaf_index()));
      for (size_t j = 0; j < 6; ++j) {
        EXPECT_EQ(at(1 + j), fr_bytes(v.replica_column_proofs.drg_parents[j].inclusion_proof.leaf_index()));
      }
      for (size_t j = 0; j < 8; ++j) {
        EXPECT_EQ(at(7 + j), fr_bytes(v.replica_column_proofs.exp_parents[j].inclusion_proof.leaf_index()));
      }
      EXPECT_EQ(at(15), fr_bytes(v.labeling_proofs[0].node));
      EXPECT_EQ(at(16), fr_bytes(v.comm_r_last_proof.leaf_index()));
      EXPECT_EQ(at(17), fr_bytes(v.replica_column_proofs.c_x.inclusion_proof.leaf_index()));
    }
  }
}

TEST(PorepTest, Seal2KiBRoundTrips) {
  round_trip(seal_proofs()[5]);   // V1_1
  round_trip(seal_proofs()[0]);   // V1
  round_trip(seal_proofs()[10]);  // synthetic
}

TEST(PorepTest, Seal8MiBRoundTrips) { round_trip(seal_proofs()[6]); }

TEST(PorepTest, CuriosKeyOrderReadsTheSame) {
  auto rng = snarkd::testing::make_rng();
  SNARKD_SEED_TRACE();
  auto [sector, c1] = seal_random(seal_proofs()[5], rng);
  // nlohmann's json sorts keys: the top level comes out in Curio's Go order (comm_d, comm_r,
  // registered_proof, replica_id, seed, ticket, vanilla_proofs), every nested object sorted too.
  const std::string go = nlohmann::json::parse(write_c1_json(c1)).dump(2);
  ASSERT_LT(go.find("\"comm_d\""), go.find("\"registered_proof\""));
  auto back = read_c1_json(go, "'go.json'");
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_TRUE(*back == c1);
}

// Each corruption is refused with an error naming the input and the field.
TEST(PorepTest, CorruptC1sAreRefusedNamingTheField) {
  auto rng = snarkd::testing::make_rng();
  SNARKD_SEED_TRACE();
  const SealProof& p = seal_proofs()[5];
  const StackedGraph graph(p);
  auto [sector, c1] = seal_random(p, rng);
  const std::string good = write_c1_json(c1);
  const auto j = nlohmann::json::parse(good);
  auto read = [&](const nlohmann::json& doc) { return read_c1_json(doc.dump(), "'bad.json'"); };
  auto expect_error = [&](const Status& st, const std::string& want) {
    ASSERT_FALSE(st.ok()) << want;
    EXPECT_NE(st.message().find(want), std::string::npos) << st.message() << "\n  wanted: " << want;
  };
  const std::string v0 = "vanilla_proofs.StackedDrg2KiBV1[0][0]";
  {  // truncated
    auto r = read_c1_json(good.substr(0, good.size() / 2), "'bad.json'");
    expect_error(r.status(), "'bad.json': not valid JSON");
  }
  {  // another registered proof's size
    auto d = j;
    d["registered_proof"] = "StackedDrg8MiBV1_1";
    expect_error(read(d).status(), "vanilla_proofs.StackedDrg2KiBV1: the proofs of another sector size");
    d["registered_proof"] = "StackedDrg4KiBV1";
    expect_error(read(d).status(), "registered_proof: unknown registered seal proof");
  }
  {  // wrong counts
    auto d = j;
    d["vanilla_proofs"]["StackedDrg2KiBV1"][0].erase(1);
    expect_error(read(d).status(), "vanilla_proofs.StackedDrg2KiBV1[0]: 1 challenges, but StackedDrg2KiBV1_1 has 2");
    d = j;
    d["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]["replica_column_proofs"]["drg_parents"].erase(0);
    expect_error(read(d).status(), v0 + ".replica_column_proofs.drg_parents: 5 column proofs, expected 6");
    d = j;
    d["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]["comm_d_proofs"]["data"]["Single"]["path"]["path"].erase(3);
    expect_error(read(d).status(), v0 + ".comm_d_proofs.data.Single: 5 path levels, expected 6");
  }
  {  // wrong types, huge numbers, non-canonical values
    auto d = j;
    d["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]["labeling_proofs"][1]["layer_index"] = "2";
    expect_error(read(d).status(), v0 + ".labeling_proofs[1].layer_index: expected an unsigned integer");
    d = j;
    d["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]["comm_r_last_proof"]["data"]["Single"]["path"]["path"][0]["index"] =
        18446744073709551615.0 * 4;
    expect_error(read(d).status(), v0 + ".comm_r_last_proof.data.Single.path.path[0].index: expected an unsigned integer");
    d = j;
    d["comm_r"][5] = 256;
    expect_error(read(d).status(), "comm_r[5]: 256 is out of range");
    d = j;
    d["comm_r"] = nlohmann::json::array();
    for (int i = 0; i < 32; ++i) d["comm_r"].push_back(255);
    expect_error(read(d).status(), "comm_r: not a canonical BLS12-381 scalar");
    d = j;
    d["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]["replica_column_proofs"]["c_x"]["column"].erase("_h");
    expect_error(read(d).status(), v0 + ".replica_column_proofs.c_x.column._h: missing");
  }
  // Semantic corruptions read fine and fail verification, named.
  auto verify = [&](const nlohmann::json& doc) -> Status {
    auto c = read(doc);
    if (!c.ok()) return c.status();
    return verify_c1(*c, graph);
  };
  {  // a flipped byte in a path
    auto d = j;
    auto& h = d["vanilla_proofs"]["StackedDrg2KiBV1"][0][1]["comm_d_proofs"]["data"]["Single"]["path"]["path"][2]["hashes"][0];
    h[0] = (h[0].get<int>() ^ 1);
    expect_error(verify(d), "vanilla_proofs.StackedDrg2KiBV1[0][1].comm_d_proofs: the leaf and path do not hash to the root");
  }
  {  // a wrong root
    auto d = j;
    d["comm_d"][0] = (d["comm_d"][0].get<int>() ^ 1);
    expect_error(verify(d), v0 + ".comm_d_proofs.root: is not comm_d");
  }
  {  // a wrong challenge: the proofs of another challenge in its place
    auto d = j;
    std::swap(d["vanilla_proofs"]["StackedDrg2KiBV1"][0][0], d["vanilla_proofs"]["StackedDrg2KiBV1"][0][1]);
    const auto& c = c1.vanilla_proofs[0];
    if (c[0].comm_d_proofs.leaf_index() != c[1].comm_d_proofs.leaf_index()) {
      expect_error(verify(d), v0 + ".comm_d_proofs: proves node");
    }
  }
  {  // a wrong label
    auto d = j;
    auto& row = d["vanilla_proofs"]["StackedDrg2KiBV1"][0][0]["labeling_proofs"][0]["parents"][3];
    row[0] = (row[0].get<int>() ^ 1);
    expect_error(verify(d), v0 + ".labeling_proofs[0].parents[3]: is not the parent column's label");
  }
  {  // a wrong seed: every challenge moves
    auto d = j;
    d["seed"][0] = (d["seed"][0].get<int>() ^ 1);
    Status st = verify(d);
    EXPECT_FALSE(st.ok());
  }
  {  // comm_r not of the trees
    auto d = j;
    d["comm_r"][0] = (d["comm_r"][0].get<int>() ^ 1);
    expect_error(verify(d), "comm_r: not Poseidon(comm_c, comm_r_last)");
  }
  // bincode: truncated, and trailing bytes.
  const std::string bin = write_c1_bincode(c1);
  auto bytes = [](const std::string& s) { return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()); };
  expect_error(read_c1_bincode(bytes(bin.substr(0, bin.size() - 40)), p, "'c1.bin'").status(), "'c1.bin': byte");
  expect_error(read_c1_bincode(bytes(bin + "x"), p, "'c1.bin'").status(), "1 bytes after the ticket");
  std::string huge = bin;
  for (int i = 0; i < 8; ++i) huge[size_t(i)] = char(0xff);
  expect_error(read_c1_bincode(bytes(huge), p, "'c1.bin'").status(), "a length of 18446744073709551615 that the input cannot hold");
  expect_error(read_c1(bytes(bin), nullptr, "'c1.bin'").status(), "holds no registered proof");
  EXPECT_TRUE(read_c1(bytes(bin), &p, "'c1.bin'").ok());
  EXPECT_TRUE(read_c1(bytes(good), nullptr, "'c1.json'").ok());
}

}  // namespace
}  // namespace snarkd::filecoin
