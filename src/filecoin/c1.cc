#include "filecoin/c1.h"

#include <nlohmann/json.hpp>

#include "ff/bls12_381.h"

namespace snarkd::filecoin {

namespace {

using nlohmann::json;
using Fr = ff::bls12_381::Fr;

constexpr unsigned kDrgParents = 6, kExpParents = 8, kLabelParents = 37;

// A JSON path ("vanilla_proofs.StackedDrg2KiBV1[0][1].comm_d_proofs"), for error messages.
struct JPath {
  std::string text;

  JPath operator/(std::string_view k) const { return JPath{text.empty() ? std::string(k) : text + "." + std::string(k)}; }
  JPath operator[](size_t i) const { return JPath{text + "[" + std::to_string(i) + "]"}; }
  const std::string& str() const { return text; }
};

bool canonical(const Bytes32& b) { return Fr::from_bytes_le(b).has_value(); }

const char* kind_name(MerkleProof::Kind k) {
  return k == MerkleProof::Kind::kSingle ? "Single" : k == MerkleProof::Kind::kSub ? "Sub" : "Top";
}

// ---- structure ----

class StructureChecker {
 public:
  explicit StructureChecker(const SealProof& p) : p_(p) {}

  Status merkle(const MerkleProof& m, const JPath& at, bool tree_d) const {
    const JPath data = at / "data";
    MerkleProof::Kind want = MerkleProof::Kind::kSingle;
    if (!tree_d && p_.tree.top_arity) want = MerkleProof::Kind::kTop;
    else if (!tree_d && p_.tree.sub_arity) want = MerkleProof::Kind::kSub;
    if (m.kind != want) {
      return fail(data, std::string("a ") + kind_name(m.kind) + " proof, but " + std::string(p_.name) +
                            (tree_d ? "'s tree D" : "'s trees C and R") + " take " + kind_name(want));
    }
    const JPath body = data / kind_name(m.kind);
    std::vector<unsigned> arities;
    if (tree_d) {
      arities.assign(p_.node_bits(), 2);
    } else {
      arities.assign(p_.tree.base_levels, p_.tree.base_arity);
      if (p_.tree.sub_arity) arities.push_back(p_.tree.sub_arity);
      if (p_.tree.top_arity) arities.push_back(p_.tree.top_arity);
    }
    if (m.path.size() != arities.size()) {
      return fail(body, std::to_string(m.path.size()) + " path levels, expected " + std::to_string(arities.size()));
    }
    const size_t base = tree_d ? arities.size() : p_.tree.base_levels;
    for (size_t i = 0; i < m.path.size(); ++i) {
      // Where the element sits in the JSON: base_proof (or path), sub_proof, top_proof.
      const std::string_view part = m.kind == MerkleProof::Kind::kSingle ? "path"
                                    : i < base                          ? "base_proof"
                                    : i == base                         ? "sub_proof"
                                                                        : "top_proof";
      const size_t j = i < base ? i : 0;
      const JPath el = (body / part / "path")[j];
      const auto& e = m.path[i];
      if (e.hashes.size() != arities[i] - 1) {
        return fail(el / "hashes", std::to_string(e.hashes.size()) + " hashes, expected " +
                                       std::to_string(arities[i] - 1) + " (arity " + std::to_string(arities[i]) + ")");
      }
      if (e.index >= arities[i]) {
        return fail(el / "index", std::to_string(e.index) + " is not a position in a group of " +
                                      std::to_string(arities[i]));
      }
    }
    return Status();
  }

  Status column_proof(const ColumnProof& c, const JPath& at) const {
    if (c.column.rows.size() != p_.layers) {
      return fail(at / "column" / "rows",
                  std::to_string(c.column.rows.size()) + " rows, expected " + std::to_string(p_.layers) + " (the layers)");
    }
    if (c.column.index >= p_.nodes()) {
      return fail(at / "column" / "index", std::to_string(c.column.index) + " is not a node of the sector (" +
                                               std::to_string(p_.nodes()) + " nodes)");
    }
    return merkle(c.inclusion_proof, at / "inclusion_proof", false);
  }

  Status labeling(const LabelingProof& l, const JPath& at, uint32_t layer, uint64_t node) const {
    if (l.parents.size() != kLabelParents) {
      return fail(at / "parents", std::to_string(l.parents.size()) + " parents, expected 37");
    }
    if (l.layer_index != layer) {
      return fail(at / "layer_index", std::to_string(l.layer_index) + ", expected layer " + std::to_string(layer));
    }
    if (l.node != node) {
      return fail(at / "node", std::to_string(l.node) + ", but the challenge is node " + std::to_string(node));
    }
    return Status();
  }

  Status vanilla(const VanillaProof& v, const JPath& at) const {
    RETURN_IF_ERROR(merkle(v.comm_d_proofs, at / "comm_d_proofs", true));
    RETURN_IF_ERROR(merkle(v.comm_r_last_proof, at / "comm_r_last_proof", false));
    const JPath rc = at / "replica_column_proofs";
    RETURN_IF_ERROR(column_proof(v.replica_column_proofs.c_x, rc / "c_x"));
    const auto& drg = v.replica_column_proofs.drg_parents;
    const auto& exp = v.replica_column_proofs.exp_parents;
    if (drg.size() != kDrgParents) {
      return fail(rc / "drg_parents", std::to_string(drg.size()) + " column proofs, expected 6");
    }
    if (exp.size() != kExpParents) {
      return fail(rc / "exp_parents", std::to_string(exp.size()) + " column proofs, expected 8");
    }
    for (size_t i = 0; i < drg.size(); ++i) RETURN_IF_ERROR(column_proof(drg[i], (rc / "drg_parents")[i]));
    for (size_t i = 0; i < exp.size(); ++i) RETURN_IF_ERROR(column_proof(exp[i], (rc / "exp_parents")[i]));
    const uint64_t node = v.comm_d_proofs.leaf_index();
    if (v.labeling_proofs.size() != p_.layers) {
      return fail(at / "labeling_proofs", std::to_string(v.labeling_proofs.size()) + " proofs, expected " +
                                              std::to_string(p_.layers) + " (one per layer)");
    }
    for (size_t l = 0; l < v.labeling_proofs.size(); ++l) {
      RETURN_IF_ERROR(labeling(v.labeling_proofs[l], (at / "labeling_proofs")[l], uint32_t(l + 1), node));
    }
    return labeling(v.encoding_proof, at / "encoding_proof", p_.layers, node);
  }

  Status all(const C1Output& c1) const {
    const JPath root;
    const JPath proofs = root / "vanilla_proofs" / c1.registered_proof->vanilla_variant();
    if (c1.vanilla_proofs.size() != p_.partitions) {
      return fail(proofs, std::to_string(c1.vanilla_proofs.size()) + " partitions, but " + std::string(p_.name) +
                              " has " + std::to_string(p_.partitions));
    }
    for (size_t k = 0; k < c1.vanilla_proofs.size(); ++k) {
      const auto& part = c1.vanilla_proofs[k];
      if (part.size() != p_.challenges_per_partition) {
        return fail(proofs[k], std::to_string(part.size()) + " challenges, but " + std::string(p_.name) + " has " +
                                   std::to_string(p_.challenges_per_partition) + " per partition");
      }
      for (size_t i = 0; i < part.size(); ++i) RETURN_IF_ERROR(vanilla(part[i], proofs[k][i]));
    }
    return Status();
  }

 private:
  Status fail(const JPath& at, const std::string& what) const { return invalid_argument(at.str() + ": " + what); }
  const SealProof& p_;
};

// ---- JSON ----

class JsonReader {
 public:
  explicit JsonReader(std::string_view name) : name_(name) {}

  Status fail(const JPath& at, const std::string& what) const {
    return invalid_argument(std::string(name_) + ": " + (at.str().empty() ? "the top level" : at.str()) + ": " + what);
  }

  Result<const json*> member(const json& obj, const JPath& at, std::string_view key) const {
    if (!obj.is_object()) return fail(at, std::string("expected an object, found ") + obj.type_name());
    auto it = obj.find(key);
    if (it == obj.end()) return fail(at / key, "missing");
    return &*it;
  }

  Result<const json*> array(const json& j, const JPath& at) const {
    if (!j.is_array()) return fail(at, std::string("expected an array, found ") + j.type_name());
    return &j;
  }

  Result<uint64_t> u64(const json& j, const JPath& at, uint64_t max = ~uint64_t(0)) const {
    if (!j.is_number_unsigned() && !(j.is_number_integer() && j.get<int64_t>() >= 0)) {
      return fail(at, std::string("expected an unsigned integer, found ") +
                          (j.is_number() ? "the number " + j.dump() : std::string(j.type_name())));
    }
    const uint64_t v = j.get<uint64_t>();
    if (v > max) return fail(at, std::to_string(v) + " is out of range (at most " + std::to_string(max) + ")");
    return v;
  }

  // Raw bytes (seed, ticket).
  Result<Bytes32> bytes32(const json& j, const JPath& at) const {
    if (!j.is_array() || j.size() != 32) {
      return fail(at, "expected an array of 32 byte values, found " +
                          (j.is_array() ? "an array of " + std::to_string(j.size()) : std::string(j.type_name())));
    }
    Bytes32 out;
    for (size_t i = 0; i < 32; ++i) {
      ASSIGN_OR_RETURN(const uint64_t b, u64(j[i], at[i], 255));
      out[i] = uint8_t(b);
    }
    return out;
  }

  // A field element's bytes (every domain, comm_d, comm_r).
  Result<Bytes32> domain(const json& j, const JPath& at) const {
    ASSIGN_OR_RETURN(Bytes32 b, bytes32(j, at));
    if (!canonical(b)) return fail(at, "not a canonical BLS12-381 scalar (the value is not below the field's modulus)");
    return b;
  }

  Result<std::vector<Bytes32>> domains(const json& j, const JPath& at, size_t max) const {
    ASSIGN_OR_RETURN(const json* a, array(j, at));
    if (a->size() > max) return fail(at, std::to_string(a->size()) + " values, more than any proof has (" + std::to_string(max) + ")");
    std::vector<Bytes32> out(a->size());
    for (size_t i = 0; i < a->size(); ++i) {
      ASSIGN_OR_RETURN(out[i], domain((*a)[i], at[i]));
    }
    return out;
  }

  Result<std::vector<PathElement>> inclusion_path(const json& j, const JPath& at) const {
    ASSIGN_OR_RETURN(const json* p, member(j, at, "path"));
    const JPath pp = at / "path";
    ASSIGN_OR_RETURN(const json* a, array(*p, pp));
    if (a->size() > 64) return fail(pp, std::to_string(a->size()) + " levels, more than any tree has");
    std::vector<PathElement> out(a->size());
    for (size_t i = 0; i < a->size(); ++i) {
      const JPath e = pp[i];
      ASSIGN_OR_RETURN(const json* h, member((*a)[i], e, "hashes"));
      ASSIGN_OR_RETURN(out[i].hashes, domains(*h, e / "hashes", 15));
      ASSIGN_OR_RETURN(const json* idx, member((*a)[i], e, "index"));
      ASSIGN_OR_RETURN(out[i].index, u64(*idx, e / "index"));
    }
    return out;
  }

  Result<MerkleProof> merkle(const json& j, const JPath& at) const {
    ASSIGN_OR_RETURN(const json* data, member(j, at, "data"));
    const JPath d = at / "data";
    if (!data->is_object() || data->size() != 1) {
      return fail(d, "expected one of {\"Single\": …}, {\"Sub\": …}, {\"Top\": …}");
    }
    MerkleProof m;
    const std::string& tag = data->begin().key();
    const json& body = data->begin().value();
    if (tag == "Single") m.kind = MerkleProof::Kind::kSingle;
    else if (tag == "Sub") m.kind = MerkleProof::Kind::kSub;
    else if (tag == "Top") m.kind = MerkleProof::Kind::kTop;
    else return fail(d / tag, "unknown proof kind (Single, Sub or Top)");
    const JPath b = d / tag;
    ASSIGN_OR_RETURN(const json* root, member(body, b, "root"));
    ASSIGN_OR_RETURN(m.root, domain(*root, b / "root"));
    ASSIGN_OR_RETURN(const json* leaf, member(body, b, "leaf"));
    ASSIGN_OR_RETURN(m.leaf, domain(*leaf, b / "leaf"));
    auto append = [&](std::string_view part) -> Status {
      ASSIGN_OR_RETURN(const json* p, member(body, b, part));
      ASSIGN_OR_RETURN(auto levels, inclusion_path(*p, b / part));
      m.path.insert(m.path.end(), levels.begin(), levels.end());
      return Status();
    };
    if (m.kind == MerkleProof::Kind::kSingle) {
      RETURN_IF_ERROR(append("path"));
    } else {
      RETURN_IF_ERROR(append("base_proof"));
      RETURN_IF_ERROR(append("sub_proof"));
      if (m.kind == MerkleProof::Kind::kTop) RETURN_IF_ERROR(append("top_proof"));
    }
    return m;
  }

  Result<ColumnProof> column_proof(const json& j, const JPath& at) const {
    ColumnProof c;
    ASSIGN_OR_RETURN(const json* col, member(j, at, "column"));
    const JPath cp = at / "column";
    ASSIGN_OR_RETURN(const json* index, member(*col, cp, "index"));
    ASSIGN_OR_RETURN(const uint64_t idx, u64(*index, cp / "index", UINT32_MAX));
    c.column.index = uint32_t(idx);
    ASSIGN_OR_RETURN(const json* rows, member(*col, cp, "rows"));
    ASSIGN_OR_RETURN(c.column.rows, domains(*rows, cp / "rows", 64));
    // serde writes Column's PhantomData as null and requires the key when reading.
    ASSIGN_OR_RETURN(const json* h, member(*col, cp, "_h"));
    if (!h->is_null()) return fail(cp / "_h", "expected null");
    ASSIGN_OR_RETURN(const json* inc, member(j, at, "inclusion_proof"));
    ASSIGN_OR_RETURN(c.inclusion_proof, merkle(*inc, at / "inclusion_proof"));
    return c;
  }

  Result<std::vector<ColumnProof>> column_proofs(const json& j, const JPath& at) const {
    ASSIGN_OR_RETURN(const json* a, array(j, at));
    if (a->size() > 16) return fail(at, std::to_string(a->size()) + " column proofs, more than any challenge has");
    std::vector<ColumnProof> out(a->size());
    for (size_t i = 0; i < a->size(); ++i) {
      ASSIGN_OR_RETURN(out[i], column_proof((*a)[i], at[i]));
    }
    return out;
  }

  Result<LabelingProof> labeling(const json& j, const JPath& at) const {
    LabelingProof l;
    ASSIGN_OR_RETURN(const json* parents, member(j, at, "parents"));
    ASSIGN_OR_RETURN(l.parents, domains(*parents, at / "parents", 64));
    ASSIGN_OR_RETURN(const json* layer, member(j, at, "layer_index"));
    ASSIGN_OR_RETURN(const uint64_t li, u64(*layer, at / "layer_index", UINT32_MAX));
    l.layer_index = uint32_t(li);
    ASSIGN_OR_RETURN(const json* node, member(j, at, "node"));
    ASSIGN_OR_RETURN(l.node, u64(*node, at / "node"));
    return l;
  }

  Result<VanillaProof> vanilla(const json& j, const JPath& at) const {
    VanillaProof v;
    ASSIGN_OR_RETURN(const json* d, member(j, at, "comm_d_proofs"));
    ASSIGN_OR_RETURN(v.comm_d_proofs, merkle(*d, at / "comm_d_proofs"));
    ASSIGN_OR_RETURN(const json* r, member(j, at, "comm_r_last_proof"));
    ASSIGN_OR_RETURN(v.comm_r_last_proof, merkle(*r, at / "comm_r_last_proof"));
    ASSIGN_OR_RETURN(const json* rc, member(j, at, "replica_column_proofs"));
    const JPath rcp = at / "replica_column_proofs";
    ASSIGN_OR_RETURN(const json* cx, member(*rc, rcp, "c_x"));
    ASSIGN_OR_RETURN(v.replica_column_proofs.c_x, column_proof(*cx, rcp / "c_x"));
    ASSIGN_OR_RETURN(const json* drg, member(*rc, rcp, "drg_parents"));
    ASSIGN_OR_RETURN(v.replica_column_proofs.drg_parents, column_proofs(*drg, rcp / "drg_parents"));
    ASSIGN_OR_RETURN(const json* exp, member(*rc, rcp, "exp_parents"));
    ASSIGN_OR_RETURN(v.replica_column_proofs.exp_parents, column_proofs(*exp, rcp / "exp_parents"));
    ASSIGN_OR_RETURN(const json* lp, member(j, at, "labeling_proofs"));
    ASSIGN_OR_RETURN(const json* la, array(*lp, at / "labeling_proofs"));
    if (la->size() > 64) return fail(at / "labeling_proofs", std::to_string(la->size()) + " proofs, more than any sector has layers");
    v.labeling_proofs.resize(la->size());
    for (size_t i = 0; i < la->size(); ++i) {
      ASSIGN_OR_RETURN(v.labeling_proofs[i], labeling((*la)[i], (at / "labeling_proofs")[i]));
    }
    ASSIGN_OR_RETURN(const json* enc, member(j, at, "encoding_proof"));
    ASSIGN_OR_RETURN(v.encoding_proof, labeling(*enc, at / "encoding_proof"));
    return v;
  }

  Result<C1Output> c1(const json& top) const {
    const JPath root;
    if (!top.is_object()) return fail(root, std::string("expected a JSON object, found ") + top.type_name());
    C1Output c1;
    ASSIGN_OR_RETURN(const json* rp, member(top, root, "registered_proof"));
    if (!rp->is_string()) return fail(root / "registered_proof", std::string("expected a string, found ") + rp->type_name());
    auto proof = parse_seal_proof(rp->get<std::string>());
    if (!proof.ok()) return fail(root / "registered_proof", proof.status().message());
    c1.registered_proof = *proof;
    ASSIGN_OR_RETURN(const json* vp, member(top, root, "vanilla_proofs"));
    const JPath vpp = root / "vanilla_proofs";
    const std::string variant = c1.registered_proof->vanilla_variant();
    if (!vp->is_object() || vp->size() != 1) return fail(vpp, "expected {\"" + variant + "\": [[…]]}");
    if (vp->begin().key() != variant) {
      return fail(vpp / vp->begin().key(), "the proofs of another sector size (" + std::string(c1.registered_proof->name) +
                                               " takes \"" + variant + "\")");
    }
    const JPath parts = vpp / variant;
    ASSIGN_OR_RETURN(const json* outer, array(vp->begin().value(), parts));
    if (outer->size() > 1024) return fail(parts, std::to_string(outer->size()) + " partitions, more than any sector has");
    c1.vanilla_proofs.resize(outer->size());
    for (size_t k = 0; k < outer->size(); ++k) {
      ASSIGN_OR_RETURN(const json* inner, array((*outer)[k], parts[k]));
      if (inner->size() > 1024) return fail(parts[k], std::to_string(inner->size()) + " challenges, more than any partition has");
      c1.vanilla_proofs[k].resize(inner->size());
      for (size_t i = 0; i < inner->size(); ++i) {
      ASSIGN_OR_RETURN(c1.vanilla_proofs[k][i], vanilla((*inner)[i], parts[k][i]));
    }
    }
    struct Field {
      const char* key;
      Bytes32* out;
      bool field_element;
    };
    for (const Field& f : {Field{"comm_r", &c1.comm_r, true}, Field{"comm_d", &c1.comm_d, true},
                           Field{"replica_id", &c1.replica_id, true}, Field{"seed", &c1.seed, false},
                           Field{"ticket", &c1.ticket, false}}) {
      ASSIGN_OR_RETURN(const json* v, member(top, root, f.key));
      ASSIGN_OR_RETURN(*f.out, f.field_element ? domain(*v, root / f.key) : bytes32(*v, root / f.key));
    }
    return c1;
  }

 private:
  std::string_view name_;
};

class JsonWriter {
 public:
  std::string out;

  void bytes(const Bytes32& b) {
    out += '[';
    for (size_t i = 0; i < 32; ++i) {
      if (i) out += ',';
      out += std::to_string(b[i]);
    }
    out += ']';
  }
  void key(const char* k) {
    out += '"';
    out += k;
    out += "\":";
  }
  void domains(const std::vector<Bytes32>& v) {
    out += '[';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out += ',';
      bytes(v[i]);
    }
    out += ']';
  }
  void path(std::span<const PathElement> levels) {
    out += "{\"path\":[";
    for (size_t i = 0; i < levels.size(); ++i) {
      if (i) out += ',';
      out += "{\"hashes\":";
      domains(levels[i].hashes);
      out += ",\"index\":" + std::to_string(levels[i].index) + "}";
    }
    out += "]}";
  }
  // Sub and Top proofs hold one sub (and one top) level above the base levels.
  void merkle(const MerkleProof& m) {
    out += "{\"data\":{\"";
    out += kind_name(m.kind);
    out += "\":{";
    const std::span<const PathElement> all(m.path);
    if (m.kind == MerkleProof::Kind::kSingle) {
      key("root");
      bytes(m.root);
      out += ',';
      key("leaf");
      bytes(m.leaf);
      out += ',';
      key("path");
      path(all);
    } else {
      const size_t upper = m.kind == MerkleProof::Kind::kTop ? 2 : 1;
      const size_t base = all.size() >= upper ? all.size() - upper : 0;
      key("base_proof");
      path(all.subspan(0, base));
      out += ',';
      key("sub_proof");
      path(all.subspan(base, std::min<size_t>(1, all.size() - base)));
      if (m.kind == MerkleProof::Kind::kTop) {
        out += ',';
        key("top_proof");
        path(all.subspan(std::min(all.size(), base + 1)));
      }
      out += ',';
      key("root");
      bytes(m.root);
      out += ',';
      key("leaf");
      bytes(m.leaf);
    }
    out += "}}}";
  }
  void column_proof(const ColumnProof& c) {
    out += "{\"column\":{\"index\":" + std::to_string(c.column.index) + ",\"rows\":";
    domains(c.column.rows);
    out += ",\"_h\":null},\"inclusion_proof\":";
    merkle(c.inclusion_proof);
    out += '}';
  }
  void column_proofs(const std::vector<ColumnProof>& v) {
    out += '[';
    for (size_t i = 0; i < v.size(); ++i) {
      if (i) out += ',';
      column_proof(v[i]);
    }
    out += ']';
  }
  void labeling(const LabelingProof& l) {
    out += "{\"parents\":";
    domains(l.parents);
    out += ",\"layer_index\":" + std::to_string(l.layer_index) + ",\"node\":" + std::to_string(l.node) + "}";
  }
  void vanilla(const VanillaProof& v) {
    out += '{';
    key("comm_d_proofs");
    merkle(v.comm_d_proofs);
    out += ',';
    key("comm_r_last_proof");
    merkle(v.comm_r_last_proof);
    out += ",\"replica_column_proofs\":{\"c_x\":";
    column_proof(v.replica_column_proofs.c_x);
    out += ",\"drg_parents\":";
    column_proofs(v.replica_column_proofs.drg_parents);
    out += ",\"exp_parents\":";
    column_proofs(v.replica_column_proofs.exp_parents);
    out += "},\"labeling_proofs\":[";
    for (size_t i = 0; i < v.labeling_proofs.size(); ++i) {
      if (i) out += ',';
      labeling(v.labeling_proofs[i]);
    }
    out += "],";
    key("encoding_proof");
    labeling(v.encoding_proof);
    out += '}';
  }
};

// ---- bincode ----

class BinReader {
 public:
  BinReader(std::span<const uint8_t> b, std::string_view name) : b_(b), name_(name) {}

  Status fail(const JPath& at, const std::string& what) const {
    return invalid_argument(std::string(name_) + ": byte " + std::to_string(off_) + " (" +
                            (at.str().empty() ? "the top level" : at.str()) + "): " + what);
  }
  size_t left() const { return b_.size() - off_; }

  Result<uint64_t> uint(const JPath& at, size_t width, uint64_t max) {
    if (left() < width) return fail(at, "the input ends inside a " + std::to_string(8 * width) + "-bit integer");
    uint64_t v = 0;
    for (size_t i = 0; i < width; ++i) v |= uint64_t(b_[off_ + i]) << (8 * i);
    if (v > max) return fail(at, std::to_string(v) + " is out of range (at most " + std::to_string(max) + ")");
    off_ += width;
    return v;
  }
  // A Vec's u64 length, bounded by what the rest of the input can hold.
  Result<size_t> length(const JPath& at, size_t min_element_bytes, size_t max) {
    ASSIGN_OR_RETURN(const uint64_t n, uint(at, 8, ~uint64_t(0)));
    if (n > max || n > left() / std::max<size_t>(1, min_element_bytes)) {
      off_ -= 8;
      return fail(at, "a length of " + std::to_string(n) + " that the input cannot hold");
    }
    return size_t(n);
  }
  Result<Bytes32> bytes32(const JPath& at, bool field_element) {
    if (left() < 32) return fail(at, "the input ends inside a 32-byte value");
    Bytes32 out;
    std::copy_n(b_.begin() + ptrdiff_t(off_), 32, out.begin());
    if (field_element && !canonical(out)) return fail(at, "not a canonical BLS12-381 scalar");
    off_ += 32;
    return out;
  }
  Result<std::vector<Bytes32>> domains(const JPath& at, size_t max) {
    ASSIGN_OR_RETURN(const size_t n, length(at, 32, max));
    std::vector<Bytes32> out(n);
    for (size_t i = 0; i < n; ++i) {
      ASSIGN_OR_RETURN(out[i], bytes32(at[i], true));
    }
    return out;
  }
  Status inclusion_path(const JPath& at, std::vector<PathElement>& out) {
    ASSIGN_OR_RETURN(const size_t n, length(at / "path", 16, 64));
    for (size_t i = 0; i < n; ++i) {
      PathElement e;
      ASSIGN_OR_RETURN(e.hashes, domains((at / "path")[i] / "hashes", 15));
      ASSIGN_OR_RETURN(e.index, uint((at / "path")[i] / "index", 8, ~uint64_t(0)));
      out.push_back(std::move(e));
    }
    return Status();
  }
  Result<MerkleProof> merkle(const JPath& at) {
    MerkleProof m;
    const JPath d = at / "data";
    ASSIGN_OR_RETURN(const uint64_t kind, uint(d, 4, 2));
    m.kind = MerkleProof::Kind(kind);
    const JPath b = d / kind_name(m.kind);
    if (m.kind == MerkleProof::Kind::kSingle) {
      ASSIGN_OR_RETURN(m.root, bytes32(b / "root", true));
      ASSIGN_OR_RETURN(m.leaf, bytes32(b / "leaf", true));
      RETURN_IF_ERROR(inclusion_path(b / "path", m.path));
      return m;
    }
    RETURN_IF_ERROR(inclusion_path(b / "base_proof", m.path));
    RETURN_IF_ERROR(inclusion_path(b / "sub_proof", m.path));
    if (m.kind == MerkleProof::Kind::kTop) RETURN_IF_ERROR(inclusion_path(b / "top_proof", m.path));
    ASSIGN_OR_RETURN(m.root, bytes32(b / "root", true));
    ASSIGN_OR_RETURN(m.leaf, bytes32(b / "leaf", true));
    return m;
  }
  Result<ColumnProof> column_proof(const JPath& at) {
    ColumnProof c;
    ASSIGN_OR_RETURN(const uint64_t index, uint(at / "column" / "index", 4, UINT32_MAX));
    c.column.index = uint32_t(index);
    ASSIGN_OR_RETURN(c.column.rows, domains(at / "column" / "rows", 64));
    ASSIGN_OR_RETURN(c.inclusion_proof, merkle(at / "inclusion_proof"));
    return c;
  }
  Result<std::vector<ColumnProof>> column_proofs(const JPath& at) {
    ASSIGN_OR_RETURN(const size_t n, length(at, 64, 16));
    std::vector<ColumnProof> out(n);
    for (size_t i = 0; i < n; ++i) {
      ASSIGN_OR_RETURN(out[i], column_proof(at[i]));
    }
    return out;
  }
  Result<LabelingProof> labeling(const JPath& at) {
    LabelingProof l;
    ASSIGN_OR_RETURN(l.parents, domains(at / "parents", 64));
    ASSIGN_OR_RETURN(const uint64_t layer, uint(at / "layer_index", 4, UINT32_MAX));
    l.layer_index = uint32_t(layer);
    ASSIGN_OR_RETURN(l.node, uint(at / "node", 8, ~uint64_t(0)));
    return l;
  }
  Result<VanillaProof> vanilla(const JPath& at) {
    VanillaProof v;
    ASSIGN_OR_RETURN(v.comm_d_proofs, merkle(at / "comm_d_proofs"));
    ASSIGN_OR_RETURN(v.comm_r_last_proof, merkle(at / "comm_r_last_proof"));
    const JPath rc = at / "replica_column_proofs";
    ASSIGN_OR_RETURN(v.replica_column_proofs.c_x, column_proof(rc / "c_x"));
    ASSIGN_OR_RETURN(v.replica_column_proofs.drg_parents, column_proofs(rc / "drg_parents"));
    ASSIGN_OR_RETURN(v.replica_column_proofs.exp_parents, column_proofs(rc / "exp_parents"));
    ASSIGN_OR_RETURN(const size_t layers, length(at / "labeling_proofs", 52, 64));
    v.labeling_proofs.resize(layers);
    for (size_t i = 0; i < layers; ++i) {
      ASSIGN_OR_RETURN(v.labeling_proofs[i], labeling((at / "labeling_proofs")[i]));
    }
    ASSIGN_OR_RETURN(v.encoding_proof, labeling(at / "encoding_proof"));
    return v;
  }
  Result<C1Output> c1(const SealProof& proof) {
    C1Output c1;
    c1.registered_proof = &proof;
    const JPath root;
    const JPath parts = root / "vanilla_proofs" / proof.vanilla_variant();
    ASSIGN_OR_RETURN(const size_t n, length(parts, 8, 1024));
    c1.vanilla_proofs.resize(n);
    for (size_t k = 0; k < n; ++k) {
      ASSIGN_OR_RETURN(const size_t m, length(parts[k], 256, 1024));
      c1.vanilla_proofs[k].resize(m);
      for (size_t i = 0; i < m; ++i) {
      ASSIGN_OR_RETURN(c1.vanilla_proofs[k][i], vanilla(parts[k][i]));
    }
    }
    ASSIGN_OR_RETURN(c1.comm_r, bytes32(root / "comm_r", true));
    ASSIGN_OR_RETURN(c1.comm_d, bytes32(root / "comm_d", true));
    ASSIGN_OR_RETURN(c1.replica_id, bytes32(root / "replica_id", true));
    ASSIGN_OR_RETURN(c1.seed, bytes32(root / "seed", false));
    ASSIGN_OR_RETURN(c1.ticket, bytes32(root / "ticket", false));
    if (left() != 0) return fail(root, std::to_string(left()) + " bytes after the ticket (the end of the C1 output)");
    return c1;
  }

 private:
  std::span<const uint8_t> b_;
  size_t off_ = 0;
  std::string_view name_;
};

class BinWriter {
 public:
  std::string out;
  void uint(uint64_t v, size_t width) {
    for (size_t i = 0; i < width; ++i) out += char(uint8_t(v >> (8 * i)));
  }
  void bytes(const Bytes32& b) { out.append(reinterpret_cast<const char*>(b.data()), 32); }
  void domains(const std::vector<Bytes32>& v) {
    uint(v.size(), 8);
    for (const auto& d : v) bytes(d);
  }
  void path(std::span<const PathElement> levels) {
    uint(levels.size(), 8);
    for (const auto& e : levels) {
      domains(e.hashes);
      uint(e.index, 8);
    }
  }
  void merkle(const MerkleProof& m) {
    uint(uint32_t(m.kind), 4);
    const std::span<const PathElement> all(m.path);
    if (m.kind == MerkleProof::Kind::kSingle) {
      bytes(m.root);
      bytes(m.leaf);
      path(all);
      return;
    }
    const size_t upper = m.kind == MerkleProof::Kind::kTop ? 2 : 1;
    const size_t base = all.size() >= upper ? all.size() - upper : 0;
    path(all.subspan(0, base));
    path(all.subspan(base, std::min<size_t>(1, all.size() - base)));
    if (m.kind == MerkleProof::Kind::kTop) path(all.subspan(std::min(all.size(), base + 1)));
    bytes(m.root);
    bytes(m.leaf);
  }
  void column_proof(const ColumnProof& c) {
    uint(c.column.index, 4);
    domains(c.column.rows);
    merkle(c.inclusion_proof);
  }
  void labeling(const LabelingProof& l) {
    domains(l.parents);
    uint(l.layer_index, 4);
    uint(l.node, 8);
  }
  void vanilla(const VanillaProof& v) {
    merkle(v.comm_d_proofs);
    merkle(v.comm_r_last_proof);
    column_proof(v.replica_column_proofs.c_x);
    uint(v.replica_column_proofs.drg_parents.size(), 8);
    for (const auto& c : v.replica_column_proofs.drg_parents) column_proof(c);
    uint(v.replica_column_proofs.exp_parents.size(), 8);
    for (const auto& c : v.replica_column_proofs.exp_parents) column_proof(c);
    uint(v.labeling_proofs.size(), 8);
    for (const auto& l : v.labeling_proofs) labeling(l);
    labeling(v.encoding_proof);
  }
};

}  // namespace

uint64_t MerkleProof::leaf_index() const {
  // Levels from the leaf up: the index at level i counts in units of the arities below it.
  uint64_t index = 0, scale = 1;
  for (const auto& e : path) {
    index += e.index * scale;
    scale *= e.hashes.size() + 1;
  }
  return index;
}

Status check_c1_structure(const C1Output& c1) {
  if (!c1.registered_proof) return invalid_argument("C1 output without a registered proof");
  return StructureChecker(*c1.registered_proof).all(c1);
}

std::string write_c1_json(const C1Output& c1) {
  JsonWriter w;
  w.out = "{\"registered_proof\":\"" + std::string(c1.registered_proof->name) + "\",\"vanilla_proofs\":{\"" +
          c1.registered_proof->vanilla_variant() + "\":[";
  for (size_t k = 0; k < c1.vanilla_proofs.size(); ++k) {
    if (k) w.out += ',';
    w.out += '[';
    for (size_t i = 0; i < c1.vanilla_proofs[k].size(); ++i) {
      if (i) w.out += ',';
      w.vanilla(c1.vanilla_proofs[k][i]);
    }
    w.out += ']';
  }
  w.out += "]}";
  for (const auto& [name, value] : {std::pair<const char*, const Bytes32*>{"comm_r", &c1.comm_r}, {"comm_d", &c1.comm_d},
                                    {"replica_id", &c1.replica_id}, {"seed", &c1.seed}, {"ticket", &c1.ticket}}) {
    w.out += ',';
    w.key(name);
    w.bytes(*value);
  }
  w.out += '}';
  return std::move(w.out);
}

Result<C1Output> read_c1_json(std::string_view text, std::string_view name) {
  json top;
  try {
    top = json::parse(text);
  } catch (const json::exception& e) {
    const auto* pe = dynamic_cast<const json::parse_error*>(&e);
    return invalid_argument(std::string(name) + ": not valid JSON" +
                            (pe ? " (at byte " + std::to_string(pe->byte) + ")" : std::string()));
  }
  ASSIGN_OR_RETURN(C1Output c1, JsonReader(name).c1(top));
  if (Status st = check_c1_structure(c1); !st.ok()) return st.with_context(name);
  return c1;
}

std::string write_c1_bincode(const C1Output& c1) {
  BinWriter w;
  w.uint(c1.vanilla_proofs.size(), 8);
  for (const auto& part : c1.vanilla_proofs) {
    w.uint(part.size(), 8);
    for (const auto& v : part) w.vanilla(v);
  }
  for (const Bytes32* b : {&c1.comm_r, &c1.comm_d, &c1.replica_id, &c1.seed, &c1.ticket}) w.bytes(*b);
  return std::move(w.out);
}

Result<C1Output> read_c1_bincode(std::span<const uint8_t> bytes, const SealProof& proof, std::string_view name) {
  ASSIGN_OR_RETURN(C1Output c1, BinReader(bytes, name).c1(proof));
  if (Status st = check_c1_structure(c1); !st.ok()) return st.with_context(std::string(name) + " (bincode)");
  return c1;
}

Result<C1Output> read_c1(std::span<const uint8_t> bytes, const SealProof* bincode_proof, std::string_view name) {
  size_t i = 0;
  while (i < bytes.size() && (bytes[i] == ' ' || bytes[i] == '\n' || bytes[i] == '\r' || bytes[i] == '\t')) ++i;
  if (i < bytes.size() && bytes[i] == '{') {
    return read_c1_json(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), name);
  }
  if (!bincode_proof) {
    return invalid_argument(std::string(name) +
                            ": not JSON; a bincode C1 output (commit-phase1-output) holds no registered proof: name it");
  }
  return read_c1_bincode(bytes, *bincode_proof, name);
}

}  // namespace snarkd::filecoin
