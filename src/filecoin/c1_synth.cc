#include "filecoin/c1_synth.h"

#include <chrono>
#include <set>

#include "base/sha256.h"
#include "filecoin/labels.h"

namespace snarkd::filecoin {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// A random-looking canonical field element, a function of (salt, what, a, b) alone (so every
// query of one node gives the same value): SHA-256 with byte 31 &= 0x3f (below 2^254 < r).
Bytes32 prf(const Bytes32& salt, uint8_t what, uint64_t a, uint64_t b) {
  uint8_t buf[32 + 1 + 16];
  std::copy(salt.begin(), salt.end(), buf);
  buf[32] = what;
  for (int i = 0; i < 8; ++i) {
    buf[33 + i] = uint8_t(a >> (8 * i));
    buf[41 + i] = uint8_t(b >> (8 * i));
  }
  Bytes32 out = sha256(std::span<const uint8_t>(buf, sizeof buf));
  out[31] &= 0x3f;
  return out;
}

enum : uint8_t { kLabel = 1, kTreeC = 2, kTreeR = 3 };

class SynthSector final : public SectorView {
 public:
  const SealProof* p = nullptr;
  Bytes32 replica, ticket_, comm_d_, comm_r_, salt;
  std::map<std::pair<unsigned, uint32_t>, Bytes32> computed;  // challenged nodes' labels
  std::unique_ptr<SparseTree> tree_d, tree_c, tree_r;

  const SealProof& proof() const override { return *p; }
  const Bytes32& replica_id() const override { return replica; }
  const Bytes32& ticket() const override { return ticket_; }
  const Bytes32& comm_d() const override { return comm_d_; }
  const Bytes32& comm_r() const override { return comm_r_; }
  Bytes32 label(unsigned layer, uint32_t node) const override {
    auto it = computed.find({layer, node});
    return it != computed.end() ? it->second : prf(salt, kLabel, layer, node);
  }
  MerkleProof tree_d_proof(uint64_t node) const override { return tree_d->proof(node, MerkleProof::Kind::kSingle); }
  MerkleProof tree_c_proof(uint64_t node) const override { return tree_c->proof(node, tree_rc_kind(*p)); }
  MerkleProof tree_r_last_proof(uint64_t node) const override { return tree_r->proof(node, tree_rc_kind(*p)); }
};

}  // namespace

SparseTree SparseTree::build(const std::map<uint64_t, Bytes32>& leaves, std::vector<unsigned> arities, TreeHash hash,
                             Fill fill, ThreadPool& pool) {
  SparseTree t;
  t.arities_ = std::move(arities);
  t.fill_ = std::move(fill);
  t.known_.resize(t.arities_.size() + 1);
  t.known_[0].insert(leaves.begin(), leaves.end());
  for (size_t level = 0; level < t.arities_.size(); ++level) {
    const unsigned arity = t.arities_[level];
    std::set<uint64_t> groups;
    for (const auto& [index, value] : t.known_[level]) groups.insert(index / arity);
    const std::vector<uint64_t> g(groups.begin(), groups.end());
    std::vector<Bytes32> up(g.size());
    pool.parallel_for(g.size(), [&](size_t begin, size_t end) {
      std::vector<Bytes32> children(arity);
      for (size_t i = begin; i < end; ++i) {
        for (unsigned j = 0; j < arity; ++j) children[j] = t.node(unsigned(level), g[i] * arity + j);
        up[i] = hash == TreeHash::kSha256 ? sha256_node(children[0], children[1]) : poseidon_node(children);
      }
    });
    for (size_t i = 0; i < g.size(); ++i) t.known_[level + 1][g[i]] = up[i];
  }
  t.root_ = t.node(unsigned(t.arities_.size()), 0);
  return t;
}

Bytes32 SparseTree::node(unsigned level, uint64_t index) const {
  auto it = known_[level].find(index);
  return it != known_[level].end() ? it->second : fill_(level, index);
}

MerkleProof SparseTree::proof(uint64_t leaf, MerkleProof::Kind kind) const {
  MerkleProof m;
  m.kind = kind;
  m.root = root_;
  m.leaf = node(0, leaf);
  uint64_t i = leaf;
  for (size_t level = 0; level < arities_.size(); ++level) {
    const unsigned arity = arities_[level];
    PathElement e;
    e.index = i % arity;
    for (unsigned j = 0; j < arity; ++j) {
      if (j != e.index) e.hashes.push_back(node(unsigned(level), i - e.index + j));
    }
    m.path.push_back(std::move(e));
    i /= arity;
  }
  return m;
}

Result<C1Output> synthesize_c1(const SealProof& p, const Bytes32& prover_id, uint64_t sector, const Bytes32& ticket,
                               const Bytes32& seed, SynthTimings* timings, ThreadPool& pool) {
  RETURN_IF_ERROR(check_provable(p));
  if (p.feature == PorepFeature::kSynthetic) {
    return invalid_argument(std::string(p.name) +
                            ": synthetic PoRep derives its challenges from comm_r, which a synthesized C1 "
                            "computes from the challenged nodes; use the V1_1 kind of the size");
  }
  if (seed == Bytes32{}) return invalid_argument("the seed is all zeros (Filecoin rejects it)");
  SynthTimings tm;
  auto s = std::make_unique<SynthSector>();
  s->p = &p;
  s->ticket_ = ticket;
  // Tree D of a CC sector: level k is the zero commitment z_k everywhere.
  std::vector<Bytes32> zeros{Bytes32{}};
  for (unsigned k = 0; k < p.node_bits(); ++k) zeros.push_back(sha256_node(zeros.back(), zeros.back()));
  s->comm_d_ = zeros.back();
  s->replica = replica_id(prover_id, sector, ticket, s->comm_d_, p.porep_id());
  {
    Sha256 h;
    static constexpr uint8_t kTag[] = {'s', 'n', 'a', 'r', 'k', 'd', ' ', 'c', '1', '-', 's', 'y', 'n', 't', 'h'};
    h.update(kTag).update(s->replica).update(seed);
    s->salt = h.finish();
  }
  const StackedGraph graph(p);
  // Every challenge of every partition, and the nodes their columns touch.
  std::set<uint32_t> challenged, touched;
  for (unsigned k = 0; k < p.partitions; ++k) {
    for (uint64_t c : interactive_challenges(p, s->replica, seed, k)) {
      challenged.insert(uint32_t(c));
      touched.insert(uint32_t(c));
      for (uint32_t parent : graph.parents(uint32_t(c))) touched.insert(parent);
    }
  }
  auto t0 = Clock::now();
  // Challenged labels, layer by layer and node by node: a DRG parent precedes its node in the
  // same layer, an expander parent is in the layer before.
  for (unsigned layer = 1; layer <= p.layers; ++layer) {
    for (uint32_t c : challenged) {
      const auto parents = graph.parents(c);
      std::vector<Bytes32> rows;
      for (unsigned i = 0; i < kDrgDegree; ++i) rows.push_back(s->label(layer, parents[i]));
      if (layer > 1) {
        for (unsigned i = kDrgDegree; i < kParents; ++i) rows.push_back(s->label(layer - 1, parents[i]));
      }
      s->computed[{layer, c}] = create_label(s->replica, layer, c, rows);
    }
  }
  tm.labels_ms = ms_since(t0);
  s->tree_d = std::make_unique<SparseTree>(SparseTree::build(
      {{*challenged.begin(), Bytes32{}}}, tree_d_arities(p), TreeHash::kSha256,
      [zeros](unsigned level, uint64_t) { return zeros[level]; }, pool));
  t0 = Clock::now();
  std::map<uint64_t, Bytes32> columns;
  {
    const std::vector<uint32_t> nodes(touched.begin(), touched.end());
    std::vector<Bytes32> hashes(nodes.size());
    pool.parallel_for(nodes.size(), [&](size_t begin, size_t end) {
      std::vector<Bytes32> rows(p.layers);
      for (size_t i = begin; i < end; ++i) {
        for (unsigned l = 1; l <= p.layers; ++l) rows[l - 1] = s->label(l, nodes[i]);
        hashes[i] = hash_column(rows);
      }
    });
    for (size_t i = 0; i < nodes.size(); ++i) columns[nodes[i]] = hashes[i];
  }
  const Bytes32 salt = s->salt;
  s->tree_c = std::make_unique<SparseTree>(SparseTree::build(
      columns, tree_rc_arities(p), TreeHash::kPoseidon,
      [salt](unsigned level, uint64_t index) { return prf(salt, kTreeC, level, index); }, pool));
  tm.tree_c_ms = ms_since(t0);
  t0 = Clock::now();
  std::map<uint64_t, Bytes32> replica;
  for (uint32_t c : challenged) {
    ASSIGN_OR_RETURN(replica[c], encode_node(s->label(p.layers, c), Bytes32{}));  // CC data: 0
  }
  s->tree_r = std::make_unique<SparseTree>(SparseTree::build(
      replica, tree_rc_arities(p), TreeHash::kPoseidon,
      [salt](unsigned level, uint64_t index) { return prf(salt, kTreeR, level, index); }, pool));
  s->comm_r_ = comm_r_of(s->tree_c->root(), s->tree_r->root());
  tm.tree_r_ms = ms_since(t0);
  t0 = Clock::now();
  auto c1 = commit_phase1(*s, graph, seed);
  tm.c1_ms = ms_since(t0);
  if (timings) *timings = tm;
  return c1;
}

}  // namespace snarkd::filecoin
