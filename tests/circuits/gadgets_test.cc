// Bits, words, numbers, insertion and SHA-256 Merkle inclusion: values against plain C++ and
// libcrypto, row counts against upstream's tests (storage-proofs-core, bellpepper).
#include <gtest/gtest.h>

#include "circuits/gadgets/por.h"
#include "circuits/gadgets/poseidon.h"
#include "circuits/modes.h"
#include "test_util.h"

namespace snarkd::circuits {
namespace {

using testing::Fr;
using testing::run_all_modes;
using testing::expect_every_aux_constrained;
using testing::tampered_failure;

// Every operand kind (constant 0/1, a bit, a negated bit, each value): the value is right, the
// rows hold, and constants cost nothing.
template <class CS>
Boolean make(CS& cs, int kind, bool v) {
  switch (kind) {
    case 0: return Boolean::constant(v);
    case 1: return Boolean::alloc(cs, v);
    default: return Boolean::is_not(AllocatedBit::alloc(cs, !v));
  }
}

TEST(BooleanGadget, EveryKindAndValueComputesTheTruthTable) {
  for (int op = 0; op < 4; ++op) {
    for (int mask = 0; mask < 8 * 27; ++mask) {
      const bool va = mask & 1, vb = mask & 2, vc = mask & 4;
      const int ka = (mask >> 3) % 3, kb = (mask >> 3) / 3 % 3, kc = (mask >> 3) / 9 % 3;
      bool expected = false;
      switch (op) {
        case 0: expected = va != vb; break;
        case 1: expected = va && vb; break;
        case 2: expected = (va && vb) != (!va && vc); break;
        case 3: expected = int(va) + int(vb) + int(vc) >= 2; break;
      }
      Boolean result;
      size_t rows_before = 0;
      auto program = [&](auto& cs) {
        const Boolean a = make(cs, ka, va), b = make(cs, kb, vb), c = make(cs, kc, vc);
        rows_before = cs.num_aux();
        switch (op) {
          case 0: result = Boolean::xor_(cs, a, b); break;
          case 1: result = Boolean::and_(cs, a, b); break;
          case 2: result = Boolean::sha256_ch(cs, a, b, c); break;
          case 3: result = Boolean::sha256_maj(cs, a, b, c); break;
        }
      };
      r1cs::CheckingCS<Fr> cs;
      program(cs);
      SCOPED_TRACE("op " + std::to_string(op) + " mask " + std::to_string(mask));
      EXPECT_TRUE(cs.satisfied()) << cs.status().message();
      EXPECT_EQ(result.value(), expected);
      const bool all_constant = ka == 0 && kb == 0 && (op < 2 || kc == 0);
      if (all_constant) {
        EXPECT_TRUE(result.is_constant());
        EXPECT_EQ(cs.num_aux(), rows_before);
      }
      if (!result.is_constant()) {
        EXPECT_EQ(cs.value(result.var()), field_bit<Fr>(result.kind() == Boolean::Kind::kIs ? expected : !expected));
      }
      expect_every_aux_constrained(program, 0, uint32_t(rows_before));
    }
  }
}

TEST(UInt32Gadget, AddmanyRotrShrXorMatchPlainArithmetic) {
  SNARKD_SEED_TRACE();
  auto rng = snarkd::testing::make_rng();
  for (int trial = 0; trial < 20; ++trial) {
    const size_t n = 2 + rng() % 9;
    std::vector<uint32_t> values(n);
    for (auto& v : values) v = uint32_t(rng());
    const unsigned r = unsigned(rng() % 32), s_ = unsigned(rng() % 32);
    uint32_t sum = 0, mixed = 0, sum_from_bits = 0;
    auto program = [&](auto& cs) {
      using Word = UInt32<std::remove_reference_t<decltype(cs)>>;
      std::vector<Word> ops;
      for (size_t i = 0; i < n; ++i) ops.push_back(i % 3 == 2 ? Word::constant(values[i]) : Word::alloc(cs, values[i]));
      Word s;
      {
        MultiEq<std::remove_reference_t<decltype(cs)>> meq(cs);
        s = Word::addmany(meq, ops);
      }
      sum = s.value();
      sum_from_bits = 0;
      for (unsigned i = 0; i < 32; ++i) sum_from_bits |= uint32_t(s.bits()[i].value()) << i;
      mixed = ops[0].rotr(r).xor_(cs, ops[1].shr(s_)).value();
    };
    run_all_modes(program);
    uint32_t expected = 0;
    for (auto v : values) expected += v;
    EXPECT_EQ(sum, expected);
    EXPECT_EQ(mixed, std::rotr(values[0], int(r)) ^ (values[1] >> s_));
    const uint32_t from_bits = sum_from_bits;
    EXPECT_EQ(from_bits, expected);
  }
}

// Words whose bits are any mix of constants, bits and negated bits: the witness-only form
// (masks, word at a time) allocates exactly what the general form does, in the same order, for
// xor, ch, maj and addmany (run_all_modes compares the assignments).
TEST(UInt32Gadget, MixedBitKindsAgreeAcrossModes) {
  SNARKD_SEED_TRACE();
  auto rng = snarkd::testing::make_rng();
  for (int trial = 0; trial < 50; ++trial) {
    std::array<std::array<std::pair<int, bool>, 32>, 3> spec;
    for (auto& word : spec) {
      for (auto& bit : word) bit = {int(rng() % 3), bool(rng() & 1)};
    }
    uint32_t results[4] = {};
    uint32_t inputs = 0;
    auto program = [&](auto& cs) {
      using CS = std::remove_reference_t<decltype(cs)>;
      using Word = UInt32<CS>;
      std::array<Word, 3> w;
      for (size_t k = 0; k < 3; ++k) {
        std::vector<Boolean> bits;  // most significant first
        for (int i = 31; i >= 0; --i) bits.push_back(make(cs, spec[k][size_t(i)].first, spec[k][size_t(i)].second));
        w[k] = Word::from_bits_be(bits);
      }
      inputs = cs.num_aux();
      results[0] = w[0].xor_(cs, w[1]).value();
      results[1] = Word::sha256_ch(cs, w[0], w[1], w[2]).value();
      results[2] = Word::sha256_maj(cs, w[0], w[1], w[2]).value();
      MultiEq<CS> meq(cs);
      results[3] = Word::addmany(meq, std::span<const Word>(w)).value();
    };
    run_all_modes(program);
    if (trial < 5) expect_every_aux_constrained(program, 0, inputs);
    uint32_t v[3] = {};
    for (size_t k = 0; k < 3; ++k) {
      for (unsigned i = 0; i < 32; ++i) v[k] |= uint32_t(spec[k][i].second) << i;
    }
    EXPECT_EQ(results[0], v[0] ^ v[1]);
    EXPECT_EQ(results[1], (v[0] & v[1]) ^ (~v[0] & v[2]));
    EXPECT_EQ(results[2], (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
    EXPECT_EQ(results[3], v[0] + v[1] + v[2]);
  }
}

TEST(NumGadget, ToBitsPackPickAddEqual) {
  SNARKD_SEED_TRACE();
  auto rng = snarkd::testing::make_rng();
  const Fr x = Fr::random(rng), y = Fr::random(rng);
  const bool cond = rng() & 1;
  Fr packed, picked, sum;
  auto program = [&](auto& cs) {
    using CS = std::remove_reference_t<decltype(cs)>;
    const auto a = AllocatedNum<CS>::alloc(cs, x);
    const auto b = AllocatedNum<CS>::alloc(cs, y);
    const auto bits = a.to_bits_le(cs);
    packed = pack_bits(cs, std::span<const Boolean>(bits)).value;
    const Boolean c = Boolean::alloc(cs, cond);
    picked = pick(cs, c, a, b).value;
    const auto s = add(cs, a, b);
    sum = s.value;
    equal(cs, s, s);
    s.inputize(cs);
  };
  const auto r = run_all_modes(program);
  expect_every_aux_constrained(program);
  // 255 bits + unpacking + pack + the condition bit + pick + add + equal + inputize.
  EXPECT_EQ(r.shape.constraints, 255u + 1 + 1 + 1 + 1 + 1 + 1 + 1);
  EXPECT_EQ(r.shape.inputs, 2u);
  // The packed value is x's first 254 bits.
  auto low = x.to_canonical();
  low.limbs[3] &= (uint64_t(1) << 62) - 1;
  EXPECT_EQ(packed, Fr::from_canonical_unchecked(low));
  EXPECT_EQ(picked, cond ? x : y);
  EXPECT_EQ(sum, x + y);
  // The unpacking row: A and B empty.
  EXPECT_EQ(r.cs.a.row_start[256], r.cs.a.row_start[255 + 1]);
}

TEST(InsertGadget, Costs2And8And22AndInsertsAtEveryPosition) {
  SNARKD_SEED_TRACE();
  auto rng = snarkd::testing::make_rng();
  for (unsigned size : {2u, 4u, 8u, 16u}) {
    const unsigned nbits = unsigned(std::countr_zero(size));
    for (unsigned pos = 0; pos < size; ++pos) {
      std::vector<Fr> values(size);
      for (auto& v : values) v = Fr::random(rng);
      std::vector<Fr> result;
      size_t rows_before = 0;
      auto program = [&](auto& cs) {
        using CS = std::remove_reference_t<decltype(cs)>;
        const auto element = AllocatedNum<CS>::alloc(cs, values[0]);
        std::vector<Boolean> bits;
        for (unsigned j = 0; j < nbits; ++j) bits.push_back(Boolean::alloc(cs, (pos >> j) & 1));
        std::vector<AllocatedNum<CS>> others;
        for (unsigned j = 1; j < size; ++j) others.push_back(AllocatedNum<CS>::alloc(cs, values[j]));
        rows_before = nbits;
        const auto out = insert(cs, element, std::span<const Boolean>(bits), std::span<const AllocatedNum<CS>>(others));
        result.clear();
        for (const auto& o : out) result.push_back(o.value);
      };
      const auto r = run_all_modes(program);
      const uint64_t expected_rows = size == 2 ? 2 : size == 4 ? 8 : size == 8 ? 22 : size * (size - 1);
      EXPECT_EQ(r.shape.constraints - rows_before, expected_rows) << "size " << size;
      std::vector<Fr> expected(values.begin() + 1, values.end());
      expected.insert(expected.begin() + pos, values[0]);
      EXPECT_EQ(result, expected) << "size " << size << " position " << pos;
      if (pos == 0 || pos + 1 == size) expect_every_aux_constrained(program);
    }
  }
}

struct PorCase {
  TreeShape shape;
  uint64_t constraints;
};

TEST(PorGadget, Sha256TreesCostWhatUpstreamCountsAndProveInclusion) {
  SNARKD_SEED_TRACE();
  auto rng = snarkd::testing::make_rng();
  // storage-proofs-core tests/por_circuit.rs: 64 leaves, public root.
  for (const PorCase& c : {PorCase{{2, 6, 0, 0}, 272295}, PorCase{{4, 3, 0, 0}, 216258}, PorCase{{8, 2, 0, 0}, 250987}}) {
    std::vector<Fr> leaves(c.shape.leaves());
    for (auto& l : leaves) {
      uint8_t bytes[32];
      for (auto& b : bytes) b = uint8_t(rng());
      bytes[31] &= 0x3f;
      l = *Fr::from_bytes_le(bytes);
    }
    const auto tree = build_tree<Fr, Sha256TreeHasher>(c.shape, leaves);
    const uint64_t index = rng() % leaves.size();
    const auto path = tree_path(c.shape, tree, index);
    auto program = [&](auto& cs) {
      using CS = std::remove_reference_t<decltype(cs)>;
      por<CS, Sha256TreeHasher>(cs, c.shape, leaves[index], std::span<const PathLevel<Fr>>(path), tree.back()[0], true);
    };
    const auto r = run_all_modes(program);
    EXPECT_EQ(r.shape.constraints, c.constraints) << "arity " << c.shape.base_arity;
    EXPECT_EQ(r.shape.inputs, 3u);
    EXPECT_EQ(r.assignment[1], Fr::from_u64(index));
    // A wrong leaf is caught (the first aux is the leaf; the root equality fails).
    EXPECT_NE(tampered_failure(program, 0), "");
  }
}


std::string le_hex(const Fr& x) {
  uint8_t b[32];
  x.to_bytes_le(b);
  static const char* d = "0123456789abcdef";
  std::string s;
  for (uint8_t v : b) {
    s += d[v >> 4];
    s += d[v & 15];
  }
  return s;
}

// The SHA-256 tree hash against Filecoin's published commitments (filecoin.md section 5):
// go-commp-utils' CC sector CommD (a tree of zero nodes) for 2 KiB, 8 MiB and 32 GiB, and
// Curio's TreeD of a 2 KiB and an 8 MiB buffer with data[0] = 1.
TEST(PorGadget, NativeSha256TreeGivesFilecoinsPublishedCommitments) {
  // Zero commitments: z_0 = 0, z_{k+1} = H(z_k, z_k).
  std::vector<Fr> zero{Fr::zero()};
  for (int k = 0; k < 30; ++k) {
    const Fr pair[2] = {zero.back(), zero.back()};
    zero.push_back(Sha256TreeHasher::native<Fr>(pair));
  }
  EXPECT_EQ(le_hex(zero[6]), "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833");   // 2 KiB
  EXPECT_EQ(le_hex(zero[18]), "65f29e5d98d246c38b388cfc06db1f6b021303c5a289000bdce832a9c3ec421c");  // 8 MiB
  EXPECT_EQ(le_hex(zero[30]), "077e5fde35c50a9303a55009e3498a4ebedff39c42b710b730d8ec7ac7afa63e");  // 32 GiB
  for (const auto& [levels, expected] : {std::pair<unsigned, const char*>{6, "ea995c54784720b449fc92b070adb6cf6635c2619a7a5e0054a24e88f252ec0d"},
                                         std::pair<unsigned, const char*>{18, "23404a8880f9cbc72039cb8614359c2834845570fe95190bbd4d934142e8252c"}}) {
    const TreeShape shape{2, levels, 0, 0};
    std::vector<Fr> leaves(shape.leaves(), Fr::zero());
    leaves[0] = Fr::from_u64(1);  // data[0] = 1: the first node's little-endian value is 1
    const auto tree = build_tree<Fr, Sha256TreeHasher>(shape, leaves);
    EXPECT_EQ(le_hex(tree.back()[0]), expected) << levels << " levels";
  }
}

TEST(PorGadget, PoseidonTreesCostWhatUpstreamCountsAndProveInclusion) {
  SNARKD_SEED_TRACE();
  auto rng = snarkd::testing::make_rng();
  struct Case {
    TreeShape shape;
    bool public_root;
    uint64_t constraints;
  };
  // storage-proofs-core tests/por_circuit.rs (64 leaves per base tree).
  const Case cases[] = {
      {{2, 6, 0, 0}, true, 1887}, {{4, 3, 0, 0}, true, 1164}, {{8, 2, 0, 0}, true, 1063},
      {{8, 2, 2, 0}, true, 1377}, {{8, 2, 8, 0}, true, 1593}, {{8, 2, 4, 2}, true, 1764},
      {{8, 2, 8, 2}, true, 1907}, {{8, 2, 2, 4}, true, 1764}, {{2, 6, 0, 0}, false, 1886},
      {{4, 3, 0, 0}, false, 1163}, {{8, 2, 0, 0}, false, 1062},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE("shape " + std::to_string(c.shape.base_arity) + "^" + std::to_string(c.shape.base_levels) + "-" +
                 std::to_string(c.shape.sub_arity) + "-" + std::to_string(c.shape.top_arity) +
                 (c.public_root ? " public" : " private"));
    std::vector<Fr> leaves(c.shape.leaves());
    for (auto& l : leaves) l = Fr::random(rng);
    const auto tree = build_tree<Fr, PoseidonTreeHasher>(c.shape, leaves);
    const uint64_t index = rng() % leaves.size();
    const auto path = tree_path(c.shape, tree, index);
    auto program = [&](auto& cs) {
      using CS = std::remove_reference_t<decltype(cs)>;
      por<CS, PoseidonTreeHasher>(cs, c.shape, leaves[index], std::span<const PathLevel<Fr>>(path), tree.back()[0],
                                  c.public_root);
    };
    const auto r = run_all_modes(program);
    EXPECT_EQ(r.shape.constraints, c.constraints);
    EXPECT_EQ(r.shape.inputs, c.public_root ? 3u : 2u);
    EXPECT_EQ(r.assignment[1], Fr::from_u64(index));
    EXPECT_NE(tampered_failure(program, 0), "");
    expect_every_aux_constrained(program, 64);
    // A sibling from another tree position does not prove inclusion.
    auto wrong = path;
    std::swap(wrong[0].siblings[0], wrong.back().siblings[0]);
    r1cs::CheckingCS<Fr> cs;
    por<r1cs::CheckingCS<Fr>, PoseidonTreeHasher>(cs, c.shape, leaves[index], std::span<const PathLevel<Fr>>(wrong),
                                                  tree.back()[0], c.public_root);
    EXPECT_NE(cs.status().message().find("equal"), std::string::npos) << cs.status().message();
  }
}

}  // namespace
}  // namespace snarkd::circuits
