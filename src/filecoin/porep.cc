#include "filecoin/porep.h"

#include <chrono>
#include <string>

#include "base/blake2b.h"
#include "base/chacha20.h"
#include "base/sha256.h"
#include "ff/bls12_381.h"
#include "filecoin/labels.h"

namespace snarkd::filecoin {

namespace {

using Fr = ff::bls12_381::Fr;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// (little-endian integer of `bytes`) mod m, plus one: a challenge in [1, nodes − 1].
uint64_t bytes_to_challenge(std::span<const uint8_t> bytes, uint64_t nodes) {
  const uint64_t m = nodes - 1;
  uint64_t r = 0;
  for (size_t i = bytes.size(); i-- > 0;) r = ((r << 8) | bytes[i]) % m;
  return r + 1;
}

Bytes32 u64_fr(uint64_t v) {
  Bytes32 b{};
  for (int i = 0; i < 8; ++i) b[size_t(i)] = uint8_t(v >> (8 * i));
  return b;
}

std::array<uint8_t, 32> keyed_blake2b_32(std::string_view key, const Bytes32& a, const Bytes32& b) {
  uint8_t data[64];
  std::copy(a.begin(), a.end(), data);
  std::copy(b.begin(), b.end(), data + 32);
  std::array<uint8_t, 32> out;
  blake2b(out, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(key.data()), key.size()), data);
  return out;
}

constexpr std::array<uint8_t, 12> kSynthNonce = {'s', 'y', 'n', 't', 'h', '-', 'p', 'o', 'r', 'e', 'p', 0};

uint64_t synthetic_challenge(uint64_t nodes, const std::array<uint8_t, 32>& key, uint64_t i) {
  uint8_t bytes[32];
  chacha20_ietf_keystream(key, kSynthNonce, 32 * i, bytes);
  return bytes_to_challenge(bytes, nodes);
}

// One challenge's labeling parents (the 37 of layer `layer`) from the parent columns.
std::array<Bytes32, kLabelParents> layer_parents(const ReplicaColumnProof& rc, unsigned layer) {
  std::vector<Bytes32> p;
  for (const auto& c : rc.drg_parents) p.push_back(c.column.rows[layer - 1]);
  if (layer > 1) {
    for (const auto& c : rc.exp_parents) p.push_back(c.column.rows[layer - 2]);
  }
  return expand_label_parents(p);
}

}  // namespace

std::vector<uint64_t> interactive_challenges(const SealProof& p, const Bytes32& replica_id, const Bytes32& seed,
                                             unsigned partition) {
  std::vector<uint64_t> out;
  for (unsigned i = 0; i < p.challenges_per_partition; ++i) {
    const uint32_t j = uint32_t(p.challenges_per_partition * partition + i);
    const uint8_t jb[4] = {uint8_t(j), uint8_t(j >> 8), uint8_t(j >> 16), uint8_t(j >> 24)};
    Sha256 h;
    h.update(replica_id).update(seed).update(jb);
    out.push_back(bytes_to_challenge(h.finish(), p.nodes()));
  }
  return out;
}

uint64_t synthetic_challenge_count(const SealProof& p) { return std::min<uint64_t>(p.nodes(), uint64_t(1) << 18); }

std::vector<uint64_t> synthetic_challenges(uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                           uint64_t count) {
  const auto key = keyed_blake2b_32("filecoin.io|PoRep|1|Synthetic|1|Generation", replica_id, comm_r);
  std::vector<uint64_t> out(count);
  for (uint64_t i = 0; i < count; ++i) out[i] = synthetic_challenge(nodes, key, i);
  return out;
}

std::vector<uint64_t> synthetic_porep_challenges(uint64_t nodes, const Bytes32& replica_id, const Bytes32& comm_r,
                                                 const Bytes32& seed, uint64_t count, unsigned per_partition,
                                                 unsigned partition) {
  const auto gen = keyed_blake2b_32("filecoin.io|PoRep|1|Synthetic|1|Generation", replica_id, comm_r);
  const auto sel = keyed_blake2b_32("filecoin.io|PoRep|1|Synthetic|1|Selection", replica_id, seed);
  std::vector<uint8_t> words(4 * size_t(per_partition));
  chacha20_ietf_keystream(sel, kSynthNonce, 4 * uint64_t(partition) * per_partition, words);
  std::vector<uint64_t> out;
  for (unsigned t = 0; t < per_partition; ++t) {
    const uint32_t w = uint32_t(words[4 * t]) | uint32_t(words[4 * t + 1]) << 8 | uint32_t(words[4 * t + 2]) << 16 |
                       uint32_t(words[4 * t + 3]) << 24;
    out.push_back(synthetic_challenge(nodes, gen, w % count));
  }
  return out;
}

Result<std::vector<uint64_t>> porep_challenges(const SealProof& p, const Bytes32& replica_id, const Bytes32& comm_r,
                                               const Bytes32& seed, unsigned partition) {
  RETURN_IF_ERROR(check_provable(p));
  if (partition >= p.partitions) {
    return invalid_argument("partition " + std::to_string(partition) + " of " + std::string(p.name) + ", which has " +
                            std::to_string(p.partitions));
  }
  if (p.feature == PorepFeature::kSynthetic) {
    return synthetic_porep_challenges(p.nodes(), replica_id, comm_r, seed, synthetic_challenge_count(p),
                                      p.challenges_per_partition, partition);
  }
  return interactive_challenges(p, replica_id, seed, partition);
}

Result<PartitionInputs> public_inputs(const SealProof& p, const StackedGraph& graph, const Bytes32& replica_id,
                                      const Bytes32& comm_d, const Bytes32& comm_r, const Bytes32& seed,
                                      unsigned partition) {
  for (const auto* v : {&replica_id, &comm_d, &comm_r}) {
    if (!Fr::from_bytes_le(*v)) return invalid_argument("replica id, comm_d and comm_r must be canonical field elements");
  }
  PartitionInputs out;
  ASSIGN_OR_RETURN(out.challenges, porep_challenges(p, replica_id, comm_r, seed, partition));
  out.inputs = {replica_id, comm_d, comm_r};
  for (uint64_t c : out.challenges) {
    out.inputs.push_back(u64_fr(c));
    for (uint32_t parent : graph.parents(uint32_t(c))) out.inputs.push_back(u64_fr(parent));
    for (int i = 0; i < 3; ++i) out.inputs.push_back(u64_fr(c));
  }
  return out;
}

Result<SealedSector> seal_sector(const SealProof& p, const StackedGraph& graph, std::span<const Bytes32> data,
                                 const Bytes32& prover_id, uint64_t sector, const Bytes32& ticket, SealTimings* timings,
                                 ThreadPool& pool) {
  RETURN_IF_ERROR(check_provable(p));
  if (data.size() != p.nodes()) {
    return invalid_argument("the data has " + std::to_string(data.size() * 32) + " bytes; a " + std::string(p.size_name) +
                            " sector holds " + std::to_string(p.sector_size));
  }
  for (size_t i = 0; i < data.size(); ++i) {
    if (!Fr::from_bytes_le(data[i])) {
      return invalid_argument("data node " + std::to_string(i) + " (bytes " + std::to_string(32 * i) + "..) is not a " +
                              "field element: sector data is Fr32-padded (the top two bits of every 32 bytes are zero)");
    }
  }
  SealTimings t;
  SealedSector s;
  s.proof = &p;
  s.prover_id = prover_id;
  s.ticket = ticket;
  s.sector = sector;
  auto t0 = Clock::now();
  s.tree_d = std::make_unique<MerkleTree>(
      MerkleTree::build(std::vector<Bytes32>(data.begin(), data.end()), tree_d_arities(p), TreeHash::kSha256, pool));
  s.comm_d = s.tree_d->root();
  s.replica_id = replica_id(prover_id, sector, ticket, s.comm_d, p.porep_id());
  t.tree_d_ms = ms_since(t0);
  t0 = Clock::now();
  const auto cache = graph.parents_cache(pool);
  t.graph_ms = ms_since(t0);
  t0 = Clock::now();
  s.labels = create_labels(graph, cache, s.replica_id, p.layers);
  t.labels_ms = ms_since(t0);
  t0 = Clock::now();
  const size_t n = data.size();
  std::vector<Bytes32> columns(n), replica(n);
  pool.parallel_for(n, [&](size_t begin, size_t end) {
    std::vector<Bytes32> rows(p.layers);
    for (size_t v = begin; v < end; ++v) {
      for (unsigned l = 0; l < p.layers; ++l) rows[l] = s.labels[l][v];
      columns[v] = hash_column(rows);
    }
  });
  s.tree_c = std::make_unique<MerkleTree>(MerkleTree::build(std::move(columns), tree_rc_arities(p), TreeHash::kPoseidon, pool));
  s.comm_c = s.tree_c->root();
  t.tree_c_ms = ms_since(t0);
  t0 = Clock::now();
  for (size_t v = 0; v < n; ++v) {
    auto r = encode_node(s.labels.back()[v], data[v]);
    if (!r.ok()) return r.status();
    replica[v] = *r;
  }
  s.tree_r_last = std::make_unique<MerkleTree>(MerkleTree::build(std::move(replica), tree_rc_arities(p), TreeHash::kPoseidon, pool));
  s.comm_r_last = s.tree_r_last->root();
  s.comm_r = comm_r_of(s.comm_c, s.comm_r_last);
  t.tree_r_ms = ms_since(t0);
  if (timings) *timings = t;
  return s;
}

namespace {

class SealedView final : public SectorView {
 public:
  explicit SealedView(const SealedSector& s) : s_(s) {}
  const SealProof& proof() const override { return *s_.proof; }
  const Bytes32& replica_id() const override { return s_.replica_id; }
  const Bytes32& ticket() const override { return s_.ticket; }
  const Bytes32& comm_d() const override { return s_.comm_d; }
  const Bytes32& comm_r() const override { return s_.comm_r; }
  Bytes32 label(unsigned layer, uint32_t node) const override { return s_.labels[layer - 1][node]; }
  MerkleProof tree_d_proof(uint64_t node) const override { return s_.tree_d->proof(node, MerkleProof::Kind::kSingle); }
  MerkleProof tree_c_proof(uint64_t node) const override { return s_.tree_c->proof(node, tree_rc_kind(*s_.proof)); }
  MerkleProof tree_r_last_proof(uint64_t node) const override {
    return s_.tree_r_last->proof(node, tree_rc_kind(*s_.proof));
  }

 private:
  const SealedSector& s_;
};

}  // namespace

std::unique_ptr<SectorView> view_of(const SealedSector& s) { return std::make_unique<SealedView>(s); }

Result<C1Output> commit_phase1(const SectorView& s, const StackedGraph& graph, const Bytes32& seed) {
  const SealProof& p = s.proof();
  if (seed == Bytes32{}) return invalid_argument("the seed is all zeros (Filecoin rejects it)");
  C1Output c1;
  c1.registered_proof = &p;
  c1.comm_r = s.comm_r();
  c1.comm_d = s.comm_d();
  c1.replica_id = s.replica_id();
  c1.seed = seed;
  c1.ticket = s.ticket();
  auto column_proof = [&](uint32_t node) {
    ColumnProof c;
    c.column.index = node;
    for (unsigned l = 1; l <= p.layers; ++l) c.column.rows.push_back(s.label(l, node));
    c.inclusion_proof = s.tree_c_proof(node);
    return c;
  };
  for (unsigned k = 0; k < p.partitions; ++k) {
    ASSIGN_OR_RETURN(const auto challenges, porep_challenges(p, c1.replica_id, c1.comm_r, seed, k));
    auto& part = c1.vanilla_proofs.emplace_back();
    for (uint64_t c : challenges) {
      VanillaProof v;
      v.comm_d_proofs = s.tree_d_proof(c);
      v.comm_r_last_proof = s.tree_r_last_proof(c);
      v.replica_column_proofs.c_x = column_proof(uint32_t(c));
      const auto parents = graph.parents(uint32_t(c));
      for (unsigned i = 0; i < kDrgDegree; ++i) v.replica_column_proofs.drg_parents.push_back(column_proof(parents[i]));
      for (unsigned i = kDrgDegree; i < kParents; ++i) {
        v.replica_column_proofs.exp_parents.push_back(column_proof(parents[i]));
      }
      for (unsigned l = 1; l <= p.layers; ++l) {
        const auto expanded = layer_parents(v.replica_column_proofs, l);
        v.labeling_proofs.push_back(LabelingProof{{expanded.begin(), expanded.end()}, l, c});
      }
      v.encoding_proof = v.labeling_proofs.back();
      part.push_back(std::move(v));
    }
  }
  return c1;
}

namespace {

// One challenge's proof against the derived challenge and the graph; `at` is its JSON path.
Status verify_challenge(const C1Output& c1, const VanillaProof& v, uint64_t challenge, const StackedGraph& graph,
                        const Bytes32& comm_c, const Bytes32& comm_r_last, const std::string& at) {
  const SealProof& p = *c1.registered_proof;
  auto fail = [&](const std::string& where, const std::string& what) { return invalid_argument(at + "." + where + ": " + what); };
  auto check_path = [&](const MerkleProof& m, TreeHash hash, const Bytes32& root, uint64_t node, const std::string& where,
                        const char* tree) -> Status {
    if (m.leaf_index() != node) {
      return fail(where, "proves node " + std::to_string(m.leaf_index()) + ", but the node is " + std::to_string(node));
    }
    if (m.root != root) return fail(where + ".root", std::string("is not ") + tree);
    auto r = merkle_root(m, hash);
    if (!r.ok()) return fail(where, r.status().message());
    if (*r != m.root) return fail(where, "the leaf and path do not hash to the root");
    return Status();
  };
  const std::string derived = " (derived from the replica id and the seed)";
  if (v.comm_d_proofs.leaf_index() != challenge) {
    return fail("comm_d_proofs", "proves node " + std::to_string(v.comm_d_proofs.leaf_index()) + ", but the challenge is " +
                                     std::to_string(challenge) + derived);
  }
  RETURN_IF_ERROR(check_path(v.comm_d_proofs, TreeHash::kSha256, c1.comm_d, challenge, "comm_d_proofs", "comm_d"));
  RETURN_IF_ERROR(check_path(v.comm_r_last_proof, TreeHash::kPoseidon, comm_r_last, challenge, "comm_r_last_proof",
                             "comm_r_last (the root of the first challenge's proof)"));
  const auto parents = graph.parents(uint32_t(challenge));
  auto check_column = [&](const ColumnProof& c, uint64_t node, const std::string& where) -> Status {
    if (c.column.index != node) {
      return fail(where + ".column.index",
                  std::to_string(c.column.index) + ", but the graph says node " + std::to_string(node));
    }
    RETURN_IF_ERROR(check_path(c.inclusion_proof, TreeHash::kPoseidon, comm_c, node, where + ".inclusion_proof",
                               "comm_c (the root of the first challenge's column proof)"));
    if (c.inclusion_proof.leaf != hash_column(c.column.rows)) {
      return fail(where + ".inclusion_proof", "its leaf is not the hash of the column's rows");
    }
    return Status();
  };
  const auto& rc = v.replica_column_proofs;
  RETURN_IF_ERROR(check_column(rc.c_x, challenge, "replica_column_proofs.c_x"));
  for (unsigned i = 0; i < kDrgDegree; ++i) {
    RETURN_IF_ERROR(check_column(rc.drg_parents[i], parents[i], "replica_column_proofs.drg_parents[" + std::to_string(i) + "]"));
  }
  for (unsigned i = 0; i < kExpDegree; ++i) {
    RETURN_IF_ERROR(check_column(rc.exp_parents[i], parents[kDrgDegree + i],
                                 "replica_column_proofs.exp_parents[" + std::to_string(i) + "]"));
  }
  for (unsigned l = 1; l <= p.layers; ++l) {
    const std::string where = "labeling_proofs[" + std::to_string(l - 1) + "]";
    const auto& lp = v.labeling_proofs[l - 1];
    const auto want = layer_parents(rc, l);
    for (size_t i = 0; i < kLabelParents; ++i) {
      if (lp.parents[i] != want[i]) {
        return fail(where + ".parents[" + std::to_string(i) + "]", "is not the parent column's label");
      }
    }
    if (create_label(c1.replica_id, l, challenge, lp.parents) != rc.c_x.column.rows[l - 1]) {
      return fail(where, "the label of its parents is not row " + std::to_string(l - 1) + " of the challenge's column");
    }
  }
  if (v.encoding_proof.parents != v.labeling_proofs.back().parents) {
    return fail("encoding_proof.parents", "differ from the last layer's labeling parents");
  }
  auto encoded = encode_node(rc.c_x.column.rows.back(), v.comm_d_proofs.leaf);
  if (!encoded.ok()) return fail("comm_d_proofs.data.Single.leaf", encoded.status().message());
  if (*encoded != v.comm_r_last_proof.leaf) {
    return fail("comm_r_last_proof", "its leaf is not the encoding of the data leaf with the last layer's label");
  }
  return Status();
}

}  // namespace

Status verify_c1(const C1Output& c1, const StackedGraph& graph, ThreadPool& pool) {
  RETURN_IF_ERROR(check_c1_structure(c1));
  const SealProof& p = *c1.registered_proof;
  RETURN_IF_ERROR(check_provable(p));
  if (graph.nodes() != p.nodes()) return invalid_argument("the graph is not the registered proof's");
  for (const auto& [name, value] : {std::pair<const char*, const Bytes32*>{"seed", &c1.seed}, {"comm_d", &c1.comm_d},
                                    {"comm_r", &c1.comm_r}}) {
    if (*value == Bytes32{}) return invalid_argument(std::string(name) + ": all zeros (Filecoin rejects it)");
  }
  const auto& first = c1.vanilla_proofs.front().front();
  const Bytes32 comm_c = first.replica_column_proofs.c_x.inclusion_proof.root;
  const Bytes32 comm_r_last = first.comm_r_last_proof.root;
  if (comm_r_of(comm_c, comm_r_last) != c1.comm_r) {
    return invalid_argument("comm_r: not Poseidon(comm_c, comm_r_last) of the proofs' tree C and tree R last roots");
  }
  const std::string base = "vanilla_proofs." + p.vanilla_variant();
  for (unsigned k = 0; k < c1.vanilla_proofs.size(); ++k) {
    ASSIGN_OR_RETURN(const auto challenges, porep_challenges(p, c1.replica_id, c1.comm_r, c1.seed, k));
    const auto& part = c1.vanilla_proofs[k];
    std::vector<Status> results(part.size());
    pool.parallel_for(part.size(), [&](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) {
        results[i] = verify_challenge(c1, part[i], challenges[i], graph, comm_c, comm_r_last,
                                      base + "[" + std::to_string(k) + "][" + std::to_string(i) + "]");
      }
    });
    for (const auto& st : results) RETURN_IF_ERROR(st);
  }
  return Status();
}

}  // namespace snarkd::filecoin
