// PoRep C2's inputs: the parameter ids and file names against the ids Filecoin publishes
// (parameters.json, ../shared/reference/filecoin.md §4), base64 against RFC 4648's vectors, the
// Commit2In wrapper, and the public inputs derived from the ids: a sealed 2 KiB sector's C1 is
// accepted, and a wrong sector number, a changed seed or an all-zero comm_d are refused.
#include "filecoin/c2.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "base/base64.h"
#include "filecoin/graph.h"
#include "filecoin/test_bytes.h"
#include "r1cs/compact.h"
#include "r1cs/cs.h"
#include "test_util.h"

namespace snarkd::filecoin {
namespace {

using testing::random_bytes;

TEST(C2Test, ParameterIdsArePublishedOnes) {
  // parameters.json's v28 PoRep files (the same for V1 and V1_1 of a size).
  const std::pair<const char*, const char*> published[] = {
      {"2KiB", "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f"},
      {"8MiB", "ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb"},
      {"512MiB", "6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472"},
      {"32GiB", "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820"},
      {"64GiB", "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2"},
  };
  for (const auto& [size, id] : published) {
    SCOPED_TRACE(size);
    auto p = default_seal_proof_for_size(size);
    ASSERT_TRUE(p.ok());
    EXPECT_EQ(porep_parameter_id(**p), id);
    auto v1 = parse_seal_proof("StackedDrg" + std::string(size) + "V1");
    ASSERT_TRUE(v1.ok());
    EXPECT_EQ(porep_parameter_id(**v1), id);
  }
  auto p32 = default_seal_proof_for_size("32GiB");
  EXPECT_EQ(porep_parameter_file(**p32, ".params"),
            "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
            "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params");
  auto p64 = default_seal_proof_for_size("64GiB");
  EXPECT_EQ(porep_parameter_file(**p64, ".vk"),
            "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-"
            "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.vk");
}

TEST(C2Test, ParameterCacheDirFollowsTheEnvironment) {
  const char* old = std::getenv("FIL_PROOFS_PARAMETER_CACHE");
  const std::string saved = old ? old : "";
  ::unsetenv("FIL_PROOFS_PARAMETER_CACHE");
  EXPECT_EQ(parameter_cache_dir(), "/var/tmp/filecoin-proof-parameters");
  ::setenv("FIL_PROOFS_PARAMETER_CACHE", "/srv/params", 1);
  EXPECT_EQ(parameter_cache_dir(), "/srv/params");
  if (old) ::setenv("FIL_PROOFS_PARAMETER_CACHE", saved.c_str(), 1);
  else ::unsetenv("FIL_PROOFS_PARAMETER_CACHE");
}

TEST(C2Test, Base64Rfc4648Vectors) {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},  {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    const std::string p = plain;
    EXPECT_EQ(base64_encode(reinterpret_cast<const uint8_t*>(p.data()), p.size()), encoded);
    auto d = base64_decode(encoded);
    ASSERT_TRUE(d.has_value()) << encoded;
    EXPECT_EQ(std::string(d->begin(), d->end()), p);
  }
  EXPECT_FALSE(base64_decode("Zm9v!").has_value());
  EXPECT_FALSE(base64_decode("Zg").has_value());  // Go pads
}

struct Sealed {
  const SealProof* proof = nullptr;
  Bytes32 prover{};
  uint64_t sector = 0;
  C1Output c1;
};

Sealed seal_2kib(std::mt19937_64& rng) {
  Sealed s;
  s.proof = &seal_proofs()[5];
  const StackedGraph graph(*s.proof);
  std::vector<Bytes32> data(s.proof->nodes());
  for (auto& d : data) {
    d = random_bytes(rng);
    d[31] &= 0x3f;
  }
  s.prover = prover_id_from_miner(rng() % 100000);
  s.sector = rng() % 1000;
  auto sector = seal_sector(*s.proof, graph, data, s.prover, s.sector, random_bytes(rng));
  EXPECT_TRUE(sector.ok());
  auto c1 = commit_phase1(*sector, graph, random_bytes(rng));
  EXPECT_TRUE(c1.ok());
  s.c1 = *c1;
  return s;
}

std::span<const uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(C2Test, Commit2InWrapper) {
  auto rng = snarkd::testing::make_rng();
  SNARKD_SEED_TRACE();
  const Sealed s = seal_2kib(rng);
  const std::string json = write_c1_json(s.c1);
  const std::string b64 = base64_encode(reinterpret_cast<const uint8_t*>(json.data()), json.size());
  // Go's encoding/json field order (lotus-bench's Commit2In, Curio's cuzk client).
  const std::string wrapper =
      "{\"SectorNum\":" + std::to_string(s.sector) + ",\"Phase1Out\":\"" + b64 + "\",\"SectorSize\":2048}";
  auto in = read_c2_input(as_bytes(wrapper), nullptr, "'w.json'");
  ASSERT_TRUE(in.ok()) << in.status().message();
  EXPECT_EQ(in->form, "Commit2In");
  EXPECT_EQ(in->sector, s.sector);
  EXPECT_TRUE(in->c1 == s.c1);

  auto plain = read_c2_input(as_bytes(json), nullptr, "'c1.json'");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->form, "C1 JSON");
  EXPECT_FALSE(plain->sector.has_value());
  const std::string bin = write_c1_bincode(s.c1);
  auto bincode = read_c2_input(as_bytes(bin), s.proof, "'c1.bin'");
  ASSERT_TRUE(bincode.ok());
  EXPECT_EQ(bincode->form, "C1 bincode");
  EXPECT_TRUE(bincode->c1 == s.c1);

  auto expect_error = [](const std::string& text, const std::string& needle) {
    auto r = read_c2_input(as_bytes(text), nullptr, "'w.json'");
    ASSERT_FALSE(r.ok()) << needle;
    EXPECT_NE(r.status().message().find("'w.json'"), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(needle), std::string::npos) << r.status().message();
  };
  expect_error("{\"SectorNum\":1,\"Phase1Out\":\"" + b64 + "\",\"SectorSize\":8388608}", "SectorSize: 8388608");
  expect_error("{\"SectorNum\":-1,\"Phase1Out\":\"" + b64 + "\"}", "SectorNum");
  expect_error("{\"Phase1Out\":\"" + b64 + "\"}", "SectorNum: missing");
  expect_error("{\"SectorNum\":1,\"Phase1Out\":\"@@@@\"}", "Phase1Out: not padded standard base64");
  expect_error("{\"SectorNum\":1,\"Phase1Out\":\"" + b64 + "\",\"Extra\":0}", "Extra: unknown field");
  // The inner C1's errors name the wrapper's field.
  const std::string broken = json.substr(0, json.size() / 2);
  expect_error("{\"SectorNum\":1,\"Phase1Out\":\"" +
                   base64_encode(reinterpret_cast<const uint8_t*>(broken.data()), broken.size()) + "\"}",
               "Phase1Out");
}

TEST(C2Test, PublicInputsAreDerivedFromTheIds) {
  auto rng = snarkd::testing::make_rng();
  SNARKD_SEED_TRACE();
  const Sealed s = seal_2kib(rng);
  auto inputs = c2_public_inputs(s.c1, s.prover, s.sector);
  ASSERT_TRUE(inputs.ok()) << inputs.status().message();
  ASSERT_EQ(inputs->size(), 1u);
  const StackedGraph graph(*s.proof);
  auto expected = public_inputs(*s.proof, graph, s.c1.replica_id, s.c1.comm_d, s.c1.comm_r, s.c1.seed, 0);
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ((*inputs)[0].inputs, expected->inputs);
  EXPECT_EQ((*inputs)[0].inputs.size(), 39u);

  // Another sector number (or miner) gives another replica id.
  auto wrong = c2_public_inputs(s.c1, s.prover, s.sector + 1);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("replica_id"), std::string::npos) << wrong.status().message();
  // A changed seed selects other challenges than the vanilla proofs open.
  C1Output reseeded = s.c1;
  reseeded.seed[0] ^= 1;
  EXPECT_FALSE(c2_public_inputs(reseeded, s.prover, s.sector).ok());
  C1Output zero_seed = s.c1;
  zero_seed.seed = Bytes32{};
  auto z = c2_public_inputs(zero_seed, s.prover, s.sector);
  ASSERT_FALSE(z.ok());
  EXPECT_NE(z.status().message().find("seed is all zero"), std::string::npos) << z.status().message();
}

TEST(C2Test, WitnessCarriesTheDerivedInputs) {
  auto rng = snarkd::testing::make_rng();
  SNARKD_SEED_TRACE();
  const Sealed s = seal_2kib(rng);
  auto inputs = c2_public_inputs(s.c1, s.prover, s.sector);
  ASSERT_TRUE(inputs.ok());
  r1cs::ValueBuffer<StackedField> w;
  ASSERT_TRUE(c2_witness(s.c1, 0, (*inputs)[0], w).ok());
  // upstream's 2 KiB partition: 40 inputs (ONE included) and 2,685,673 aux (the fingerprint the
  // shape mode reproduces).
  ASSERT_EQ(w.size(), 40u + 2685673u);
  EXPECT_TRUE(w[0].is_one());
  for (size_t i = 0; i < 39; ++i) {
    Bytes32 b;
    w[1 + i].to_bytes_le(b);
    EXPECT_EQ(b, (*inputs)[0].inputs[i]) << i;
  }
  // Written in place, in one buffer sized from the shape's bound: never grown.
  const StackedShape shape = stacked_shape(*s.proof);
  EXPECT_EQ(w.capacity(), stacked_variables_bound(shape));
  // The same assignment as the witness-only mode's own layout (aux after the inputs).
  r1cs::WitnessCS<StackedField> plain;
  auto values = stacked_values(s.c1, 0);
  ASSERT_TRUE(values.ok());
  synthesize_stacked(plain, shape, *values);
  const auto expected = plain.assignment();
  ASSERT_EQ(expected.size(), w.size());
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), w.begin()));
  // Inputs that do not match the C1's circuit are refused.
  PartitionInputs other = (*inputs)[0];
  other.inputs[5] = testing::fr_bytes(12345);
  Status st = c2_witness(s.c1, 0, other, w);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("public input 5"), std::string::npos) << st.message();
}

// The compact matrices of the 2 KiB partition: the shape mode's nonzero counts, a small
// dictionary, under a quarter of CSR's bytes; evaluated on a sealed sector's witness they equal the
// builder's CSR rows' evaluation, and satisfy a * b = c on every row.
TEST(C2Test, CompactMatricesOfTheTwoKiBPartition) {
  auto rng = snarkd::testing::make_rng();
  SNARKD_SEED_TRACE();
  const Sealed s = seal_2kib(rng);
  const StackedShape shape = stacked_shape(*s.proof);
  r1cs::CompactCS<StackedField> ccs;
  synthesize_stacked(ccs, shape, blank_stacked_values(shape));
  auto sys = std::move(ccs).finish();
  ASSERT_TRUE(sys.ok()) << sys.status().message();
  auto values = stacked_values(s.c1, 0);
  ASSERT_TRUE(values.ok());
  r1cs::BuilderCS<StackedField> builder;
  synthesize_stacked(builder, shape, *values);
  auto [csr, w] = builder.finish();
  // The builder's rows are the shape mode's (stacked_circuit_test), which upstream's counts pin.
  EXPECT_EQ(sys->num_inputs, csr.num_public + 1);
  EXPECT_EQ(size_t(sys->num_inputs) + sys->num_aux, csr.num_variables);
  EXPECT_EQ(sys->a.rows(), csr.a.rows());
  EXPECT_EQ(sys->a.nonzeros(), csr.a.nonzeros());
  EXPECT_EQ(sys->b.nonzeros(), csr.b.nonzeros());
  EXPECT_EQ(sys->c.nonzeros(), csr.c.nonzeros());
  EXPECT_LT(sys->dictionary.size(), 4096u);
  // CSR takes 36 bytes a nonzero (a 32-byte value, a u32 column) and 8 a row start, per matrix.
  const size_t nnz = sys->a.nonzeros() + sys->b.nonzeros() + sys->c.nonzeros();
  const size_t csr_bytes = 36 * nnz + 3 * 8 * (csr.a.rows() + 1);
  EXPECT_LT(sys->bytes() * 4, csr_bytes) << sys->bytes() << " bytes for " << nnz << " nonzeros";
  const size_t rows = sys->a.rows();
  std::vector<StackedField> a(rows), b(rows), c(rows);
  r1cs::evaluate_compact<StackedField>(sys->a, sys->dictionary, w, sys->num_inputs, a);
  r1cs::evaluate_compact<StackedField>(sys->b, sys->dictionary, w, sys->num_inputs, b);
  r1cs::evaluate_compact<StackedField>(sys->c, sys->dictionary, w, sys->num_inputs, c);
  size_t differ = 0, unsatisfied = 0;
  for (size_t i = 0; i < rows; ++i) {
    auto row = [&](const r1cs::SparseMatrix<StackedField>& m) {
      StackedField acc = StackedField::zero();
      for (uint64_t k = m.row_start[i]; k < m.row_start[i + 1]; ++k) acc += m.value[k] * w[m.column[k]];
      return acc;
    };
    differ += !(row(csr.a) == a[i]) || !(row(csr.b) == b[i]) || !(row(csr.c) == c[i]);
    unsatisfied += !(a[i] * b[i] == c[i]);
  }
  EXPECT_EQ(differ, 0u);
  EXPECT_EQ(unsatisfied, 0u);

  // The GPU backend compacts a key's CSR matrices (r1cs::CoefficientIndex): the same distinct
  // coefficients as the recording, each nonzero's index naming its value.
  const r1cs::SparseMatrix<StackedField>* ms[3] = {&csr.a, &csr.b, &csr.c};
  auto index = r1cs::CoefficientIndex<StackedField>::of(ms);
  ASSERT_TRUE(index.ok()) << index.status().message();
  EXPECT_EQ(index->dictionary().size(), sys->dictionary.size());
  size_t wrong = 0;
  for (const auto* m : ms) {
    std::vector<uint16_t> coeff(m->nonzeros());
    index->indices(*m, 0, coeff.size(), coeff.data());
    for (size_t k = 0; k < coeff.size(); ++k) wrong += !(index->dictionary()[coeff[k]] == m->value[k]);
  }
  EXPECT_EQ(wrong, 0u);
  // More distinct values than a u16 reaches are refused.
  r1cs::SparseMatrix<StackedField> wide;
  for (uint64_t i = 0; i <= r1cs::kMaxDictionary; ++i) wide.add_row({{0, StackedField::from_u64(i + 2)}});
  const r1cs::SparseMatrix<StackedField>* one[1] = {&wide};
  EXPECT_FALSE(r1cs::CoefficientIndex<StackedField>::of(one).ok());
}

}  // namespace
}  // namespace snarkd::filecoin
