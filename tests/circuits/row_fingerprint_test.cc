// Row-by-row cross-checks: digests of the full constraint listings (every term of every row, in
// order) against a second implementation, a Python model written from the Rust sources (neptune
// 11.0.0 circuit.rs, bellperson 0.27 sha256.rs) by another reader. The model itself reproduces
// upstream's counts, hash outputs and (for Poseidon) supraseal's constants; it is not Rust
// output, so these digests back up the upstream counts rather than replace them.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include "base/sha256.h"
#include "circuits/gadgets/poseidon.h"
#include "circuits/gadgets/sha256.h"
#include "circuits/modes.h"

namespace snarkd::circuits {
namespace {

using testing::Fr;

std::string hex_no_leading_zeros(const Fr& x) {
  uint8_t be[32];
  x.to_bytes_be(be);
  static const char* d = "0123456789abcdef";
  std::string s;
  for (uint8_t b : be) {
    s += d[b >> 4];
    s += d[b & 15];
  }
  const size_t nz = s.find_first_not_of('0');
  return nz == std::string::npos ? "0" : s.substr(nz);
}

// "A;B;C\n" per row, terms "one*hex" / "auxK*hex" joined by commas (no inputs besides ONE).
std::string listing(const r1cs::ConstraintSystem<Fr>& cs) {
  std::string out;
  auto lc = [&](const r1cs::SparseMatrix<Fr>& m, size_t row) {
    std::string s;
    for (uint64_t k = m.row_start[row]; k < m.row_start[row + 1]; ++k) {
      if (!s.empty()) s += ",";
      s += m.column[k] == 0 ? std::string("one") : "aux" + std::to_string(m.column[k] - 1);
      s += "*" + hex_no_leading_zeros(m.value[k]);
    }
    return s;
  };
  for (size_t i = 0; i < cs.num_constraints(); ++i) out += lc(cs.a, i) + ";" + lc(cs.b, i) + ";" + lc(cs.c, i) + "\n";
  return out;
}

std::string hex(std::span<const uint8_t> bytes) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (uint8_t b : bytes) {
    s += d[b >> 4];
    s += d[b & 15];
  }
  return s;
}

TEST(RowFingerprint, PoseidonLegacyCircuitListingsEqualTheModels) {
  const std::pair<unsigned, const char*> digests[] = {
      {2, "408d3e61e2e52fa3443e5f93a9a3188a0a46878cb726f249817f3750ad65b66e"},
      {8, "a80a0b7e383a0e45e7be3b36ccb0791d88494d1cabdaf2f2a9338040ba3ae73c"},
      {11, "797c43088ebf5306984d61c42bd8c91d9e42405ee8c6dbadb5be1864841d3478"},
  };
  for (const auto& [arity, expected] : digests) {
    r1cs::BuilderCS<Fr> cs;
    std::vector<AllocatedNum<r1cs::BuilderCS<Fr>>> in;
    for (unsigned i = 0; i < arity; ++i) in.push_back(AllocatedNum<r1cs::BuilderCS<Fr>>::alloc(cs, Fr::from_u64(i)));
    (void)poseidon_hash(cs, std::span<const AllocatedNum<r1cs::BuilderCS<Fr>>>(in));
    const auto [built, w] = cs.finish();
    const auto text = listing(built);
    EXPECT_EQ(hex(snarkd::sha256(text)), expected) << "arity " << arity;
  }
}

// BLAKE2s-256 over u64be(inputs) u64be(aux) u64be(rows), then per row and side u64be(terms) and
// per term 'I'|'A', u64be(index), the 32-byte big-endian coefficient (bellpepper's
// TestConstraintSystem::hash layout, as the model writes it).
TEST(RowFingerprint, Sha256FullBlockEqualsTheModel) {
  r1cs::BuilderCS<Fr> cs;
  std::vector<Boolean> bits;
  for (int i = 0; i < 512; ++i) bits.push_back(Boolean::alloc(cs, (i * 7) & 1));
  (void)sha256_block_no_padding(cs, bits);
  const auto [built, w] = cs.finish();
  ASSERT_EQ(built.num_variables, 1u + 26326u);
  ASSERT_EQ(built.num_constraints(), 26352u);
  std::vector<uint8_t> bytes;
  auto u64 = [&](uint64_t v) {
    for (int i = 7; i >= 0; --i) bytes.push_back(uint8_t(v >> (8 * i)));
  };
  u64(1);
  u64(26326);
  u64(26352);
  for (size_t row = 0; row < built.num_constraints(); ++row) {
    for (const auto* m : {&built.a, &built.b, &built.c}) {
      u64(m->row_start[row + 1] - m->row_start[row]);
      for (uint64_t k = m->row_start[row]; k < m->row_start[row + 1]; ++k) {
        const uint32_t col = m->column[k];
        bytes.push_back(col == 0 ? 'I' : 'A');
        u64(col == 0 ? 0 : col - 1);
        uint8_t be[32];
        m->value[k].to_bytes_be(be);
        bytes.insert(bytes.end(), be, be + 32);
      }
    }
  }
  uint8_t digest[32];
  unsigned len = 0;
  ASSERT_EQ(EVP_Digest(bytes.data(), bytes.size(), digest, &len, EVP_blake2s256(), nullptr), 1);
  EXPECT_EQ(hex(std::span<const uint8_t>(digest, 32)), "a91be46c89fe4cb18f85d99956bf9b1afe0a96d1b6c960a30d4e9dcafcf501ba");
}

}  // namespace
}  // namespace snarkd::circuits
