// Poseidon (neptune 11.0.0, BLS12-381, Standard, MerkleTree): the generated constants against
// supraseal's and neptune's published files, the hash against neptune's test vectors and the
// textbook schedule, the legacy circuit's row counts against neptune's tests.
#include "circuits/gadgets/poseidon.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "circuits/modes.h"
#include "test_util.h"

namespace snarkd::circuits {
namespace {

using testing::Fr;
using testing::run_all_modes;
using testing::expect_every_aux_constrained;
using testing::tampered_failure;

std::string data_path(const std::string& name) { return std::string(SNARKD_TEST_DATA) + "/poseidon/" + name; }

std::vector<Fr> read_montgomery_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes.size() % 32, 0u) << path;
  std::vector<Fr> out;
  for (size_t off = 0; off + 32 <= bytes.size(); off += 32) {
    ff::BigInt<4> v;
    for (size_t limb = 0; limb < 4; ++limb) {
      for (size_t b = 0; b < 8; ++b) v.limbs[limb] |= uint64_t(bytes[off + 8 * limb + b]) << (8 * b);
    }
    out.push_back(Fr::from_montgomery(v));
  }
  return out;
}

Fr from_hex(const std::string& hex) { return Fr::from_canonical_unchecked(ff::BigInt<4>::from_hex(hex)); }

TEST(PoseidonConstants, EqualSupraSealsPublishedFiles) {
  for (unsigned arity : {2u, 8u, 11u}) {
    SCOPED_TRACE("arity " + std::to_string(arity));
    const auto& k = poseidon_constants(arity);
    const auto file = read_montgomery_file(data_path("supra_seal_constants_" + std::to_string(arity) + ".bin"));
    const size_t t = k.width;
    std::vector<Fr> ours = k.compressed_round_constants;
    for (const auto* m : {&k.mds, &k.pre_sparse}) {
      for (const auto& row : *m) ours.insert(ours.end(), row.begin(), row.end());
    }
    for (const auto& s : k.sparse) {
      ours.insert(ours.end(), s.w_hat.begin(), s.w_hat.end());
      ours.insert(ours.end(), s.v_rest.begin(), s.v_rest.end());
    }
    ASSERT_EQ(file.size(), 8 * t + k.partial_rounds + 2 * t * t + k.partial_rounds * (2 * t - 1));
    ASSERT_EQ(ours.size(), file.size());
    for (size_t i = 0; i < ours.size(); ++i) ASSERT_EQ(ours[i], file[i]) << "element " << i;
  }
}

TEST(PoseidonConstants, GrainOutputEqualsNeptunesWidth9File) {
  std::ifstream in(data_path("neptune_round_constants_t9.txt"));
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The constants are a Python list of quoted hex strings: '0x' and 64 digits each.
  std::vector<Fr> published;
  for (size_t at = text.find("'0x"); at != std::string::npos; at = text.find("'0x", at + 1)) {
    const std::string digits = text.substr(at + 3, 64);
    ASSERT_EQ(digits.find_first_not_of("0123456789abcdef"), std::string::npos) << digits;
    ASSERT_EQ(text[at + 3 + 64], '\'');
    published.push_back(from_hex(digits));
  }
  ASSERT_EQ(published.size(), 585u);
  EXPECT_EQ(poseidon_constants(8).round_constants, published);
}

// neptune src/poseidon.rs hash_values: hash([0, 1, ..., arity - 1]), Standard, MerkleTree.
TEST(PoseidonHash, NeptunesTestVectors) {
  const std::pair<unsigned, const char*> vectors[] = {
      {2, "396508d75e76a56b739e0fd902efe161a6fba9339d05a69d2e203c369a02e7ff"},
      {4, "58a54b10a9e5848a00db3c6579229399fb6b4605bf1327ec019814ff6662075d"},
      {8, "2394611da3a5de5512010042116770774b682e9d9cc4aed92a9934f56d38a5e6"},
      {11, "0c0fc1b2e5227f286ca537e232ebe87a09f3dcd8ccb08fc1cee3bbc32b693163"},
      {16, "2d3ae2663381ae8ac1c2fb5a6f871e635b8dbc6d30680a6f1291c74060266d37"},
      {24, "63beb8831f11ae15066f39bf783f3d9fc3e779f6468815b1d7ef3569f585b321"},
      {36, "699303082a6e5d5f540a30e03c10bbaa75cd368df8a8ac3c4473606dfa4e8140"},
  };
  for (const auto& [arity, hex] : vectors) {
    std::vector<Fr> input;
    for (unsigned i = 0; i < arity; ++i) input.push_back(Fr::from_u64(i));
    EXPECT_EQ(poseidon_hash(input), from_hex(hex)) << "arity " << arity;
    EXPECT_EQ(poseidon_hash_reference(input), from_hex(hex)) << "arity " << arity;
  }
}

// filecoin.md's little-endian form of the same vectors (what Fr::to_repr gives).
TEST(PoseidonHash, LittleEndianReprOfTheVectors) {
  std::vector<Fr> input = {Fr::from_u64(0), Fr::from_u64(1)};
  uint8_t repr[32];
  poseidon_hash(input).to_bytes_le(repr);
  std::string hex;
  for (uint8_t b : repr) {
    static const char* d = "0123456789abcdef";
    hex += d[b >> 4];
    hex += d[b & 15];
  }
  EXPECT_EQ(hex, "ffe7029a363c202e9da6059d33a9fba661e1ef02d90f9e736ba5765ed7086539");
}

TEST(PoseidonHash, OptimizedEqualsTextbookOnRandomInputs) {
  SNARKD_SEED_TRACE();
  auto rng = snarkd::testing::make_rng();
  for (unsigned arity : {2u, 4u, 8u, 11u, 16u, 24u, 36u}) {
    std::vector<Fr> input(arity);
    for (auto& x : input) x = Fr::random(rng);
    EXPECT_EQ(poseidon_hash(input), poseidon_hash_reference(input)) << "arity " << arity;
  }
}

TEST(PoseidonCircuit, RowCountsEqualNeptunesAndOutputEqualsTheHash) {
  SNARKD_SEED_TRACE();
  auto rng = snarkd::testing::make_rng();
  const std::pair<unsigned, uint64_t> counts[] = {{2, 311}, {4, 377}, {8, 505}, {11, 598},
                                                  {16, 761}, {24, 1009}, {36, 1385}};
  for (const auto& [arity, expected] : counts) {
    SCOPED_TRACE("arity " + std::to_string(arity));
    std::vector<Fr> input(arity);
    for (auto& x : input) x = Fr::random(rng);
    Fr out;
    auto program = [&](auto& cs) {
      using CS = std::remove_reference_t<decltype(cs)>;
      std::vector<AllocatedNum<CS>> in;
      for (const auto& x : input) in.push_back(AllocatedNum<CS>::alloc(cs, x));
      out = poseidon_hash(cs, std::span<const AllocatedNum<CS>>(in)).value;
    };
    const auto r = run_all_modes(program);
    EXPECT_EQ(r.shape.constraints, expected);
    EXPECT_EQ(r.shape.aux, arity + expected);  // one aux per row
    EXPECT_EQ(out, poseidon_hash(input));
    EXPECT_EQ(r.assignment.back(), out);
    // A wrong input, and a wrong value in the middle of the rounds, are both caught.
    EXPECT_NE(tampered_failure(program, 0), "");
    EXPECT_NE(tampered_failure(program, uint32_t(arity + rng() % expected)), "");
    if (arity <= 8) expect_every_aux_constrained(program);
  }
}

}  // namespace
}  // namespace snarkd::circuits
