#include "formats/bellperson.h"

#include <atomic>
#include <fstream>

#include "base/mapped_file.h"
#include "base/thread_pool.h"
#include "ec/encoding.h"

namespace snarkd::formats {

namespace {

using G1 = ec::bls12_381::G1;
using G2 = ec::bls12_381::G2;
using Fr = groth16::Fr<Bls12_381>;

// The variable indices whose points the file holds: A takes every input, B only dense ones.
std::vector<uint32_t> a_indices(const groth16::ProvingKey<Bls12_381>& pk) {
  std::vector<uint8_t> used(pk.num_variables, 0);
  for (uint32_t j : pk.a.variables_used(pk.num_variables)) used[j] = 1;
  std::vector<uint32_t> out;
  for (uint32_t j = 0; j < pk.num_variables; ++j) {
    if (j <= pk.num_public || used[j]) out.push_back(j);
  }
  return out;
}
std::vector<uint32_t> b_indices(const groth16::ProvingKey<Bls12_381>& pk) {
  return pk.b.variables_used(pk.num_variables);
}

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(uint8_t(v >> s));
}
template <class C>
void put_point(std::vector<uint8_t>& out, const ec::Affine<C>& p) {
  auto e = ec::encode_uncompressed<C>(p);
  out.insert(out.end(), e.begin(), e.end());
}

// The verifying key, as both files begin.
void put_vk(std::vector<uint8_t>& out, const groth16::ProvingKey<Bls12_381>& pk) {
  put_point<G1>(out, pk.vk.alpha1);
  put_point<G1>(out, pk.beta1);
  put_point<G2>(out, pk.vk.beta2);
  put_point<G2>(out, pk.vk.gamma2);
  put_point<G1>(out, pk.delta1);
  put_point<G2>(out, pk.vk.delta2);
  put_u32(out, uint32_t(pk.vk.ic.size()));
  for (const auto& p : pk.vk.ic) put_point<G1>(out, p);
}

Status write_bytes(std::span<const uint8_t> bytes, const std::string& path) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return invalid_argument("cannot create '" + path + "'");
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!f) return invalid_argument("cannot write '" + path + "'");
  return Status();
}

class ParamsReader {
 public:
  ParamsReader(std::span<const uint8_t> bytes, const std::string& name)
      : bytes_(bytes), name_("'" + name + "'") {}

  Result<uint32_t> length(const char* field) {
    if (bytes_.size() - pos_ < 4) return truncated(field, 4);
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = v << 8 | bytes_[pos_ + size_t(i)];
    pos_ += 4;
    return v;
  }
  template <class C>
  Result<ec::Affine<C>> point(const std::string& field, ec::PointCheck check) {
    constexpr size_t n = ec::kUncompressedSize<C>;
    if (bytes_.size() - pos_ < n) return truncated(field, n);
    auto p = ec::decode_uncompressed<C>(bytes_.subspan(pos_, n), check);
    if (!p.ok()) {
      return invalid_argument(name_ + ": " + field + " at offset " + std::to_string(pos_) + ": " +
                              p.status().message());
    }
    pos_ += n;
    return *p;
  }
  // A u32 count that must equal `expected`, then that many points.
  template <class C>
  Result<std::vector<ec::Affine<C>>> points(const char* field, size_t expected) {
    ASSIGN_OR_RETURN(uint32_t count, length(field));
    if (count != expected) {
      return invalid_argument(name_ + ": " + field + " has " + std::to_string(count) +
                              " points but the circuit needs " + std::to_string(expected));
    }
    if (uint64_t(count) * ec::kUncompressedSize<C> > bytes_.size() - pos_) {
      return truncated(field, size_t(count) * ec::kUncompressedSize<C>);
    }
    // In parallel (a 32 GiB PoRep file holds some 490 million points); the first bad point in
    // file order is the one named.
    constexpr size_t n = ec::kUncompressedSize<C>;
    std::vector<ec::Affine<C>> out(count);
    std::atomic<size_t> first_bad{count};
    const size_t base = pos_;
    ThreadPool::global().parallel_for(count, [&](size_t lo, size_t hi) {
      for (size_t i = lo; i < hi && i < first_bad.load(std::memory_order_relaxed); ++i) {
        auto p = ec::decode_uncompressed<C>(bytes_.subspan(base + i * n, n), ec::PointCheck::kOnCurveOnly);
        if (!p.ok()) {
          size_t seen = first_bad.load();
          while (i < seen && !first_bad.compare_exchange_weak(seen, i)) {
          }
          return;
        }
        out[i] = *p;
      }
    });
    if (const size_t bad = first_bad.load(); bad < count) {
      pos_ = base + bad * n;
      return point<C>(std::string(field) + "[" + std::to_string(bad) + "]", ec::PointCheck::kOnCurveOnly).status();
    }
    pos_ = base + size_t(count) * n;
    return out;
  }
  Status finish(const char* last_field) const {
    if (pos_ != bytes_.size()) {
      return invalid_argument(name_ + ": " + std::to_string(bytes_.size() - pos_) + " bytes after the last field (" +
                              last_field + ")");
    }
    return Status();
  }
  // The verifying key both files begin with; IC must hold `ic_expected` points (0: any number).
  Status vk(groth16::VerifyingKey<Bls12_381>& vk, ec::Affine<G1>& beta1, ec::Affine<G1>& delta1, size_t ic_expected) {
    using ec::PointCheck;
    ASSIGN_OR_RETURN(vk.alpha1, point<G1>("vk.alpha_g1", PointCheck::kFull));
    ASSIGN_OR_RETURN(beta1, point<G1>("vk.beta_g1", PointCheck::kFull));
    ASSIGN_OR_RETURN(vk.beta2, point<G2>("vk.beta_g2", PointCheck::kFull));
    ASSIGN_OR_RETURN(vk.gamma2, point<G2>("vk.gamma_g2", PointCheck::kFull));
    ASSIGN_OR_RETURN(delta1, point<G1>("vk.delta_g1", PointCheck::kFull));
    ASSIGN_OR_RETURN(vk.delta2, point<G2>("vk.delta_g2", PointCheck::kFull));
    const size_t at = pos_;
    ASSIGN_OR_RETURN(uint32_t ic_count, length("IC length"));
    if (ic_expected != 0 && ic_count != ic_expected) {
      return invalid_argument(name_ + ": IC has " + std::to_string(ic_count) + " points (length at offset " +
                              std::to_string(at) + ") but the circuit has " + std::to_string(ic_expected - 1) +
                              " public inputs (+1)");
    }
    if (ic_count == 0) {
      return invalid_argument(name_ + ": IC has 0 points (length at offset " + std::to_string(at) + ")");
    }
    if (uint64_t(ic_count) * ec::kUncompressedSize<G1> > bytes_.size() - pos_) {
      return truncated("IC", size_t(ic_count) * ec::kUncompressedSize<G1>);
    }
    vk.ic.resize(ic_count);
    for (uint32_t i = 0; i < ic_count; ++i) {
      ASSIGN_OR_RETURN(vk.ic[i], point<G1>("IC[" + std::to_string(i) + "]", PointCheck::kFull));
    }
    return Status();
  }

 private:
  Status truncated(const std::string& field, size_t need) const {
    return invalid_argument(name_ + ": truncated at offset " + std::to_string(pos_) + " reading " +
                            field + " (" + std::to_string(need) + " bytes needed, " +
                            std::to_string(bytes_.size() - pos_) + " left)");
  }
  std::span<const uint8_t> bytes_;
  std::string name_;
  size_t pos_ = 0;
};

}  // namespace

Result<std::vector<uint8_t>> encode_params(const groth16::ProvingKey<Bls12_381>& pk) {
  if (pk.convention != poly::QuotientConvention::kDivideByZ) {
    return invalid_argument("bellperson params need the divide-by-z H convention (this key is " +
                            std::string(poly::quotient_convention_name(pk.convention)) + ")");
  }
  const size_t nv = pk.num_variables;
  RETURN_IF_ERROR(groth16::check_query_sizes(pk, "bellperson params: the key"));
  auto ai = a_indices(pk), bi = b_indices(pk);
  auto stray = [](size_t j) {
    return invalid_argument("bellperson params: variable " + std::to_string(j) +
                            " has a point but does not appear in the circuit's matrix");
  };
  // Dropped points must be the identity, or the file would describe another key.
  std::vector<bool> in_a(nv, false);
  for (auto j : ai) in_a[j] = true;
  for (size_t j = 0; j < nv; ++j) {
    if (!in_a[j] && !pk.a_query[j].infinity) return stray(j);
  }
  // The file's B holds a point for each variable of bi: the key's where it lists the variable,
  // the identity where it does not. Both lists are ascending.
  std::vector<ec::Affine<G1>> b1(bi.size(), ec::Affine<G1>::identity());
  std::vector<ec::Affine<G2>> b2(bi.size(), ec::Affine<G2>::identity());
  for (size_t k = 0, i = 0; k < pk.b_variables.size(); ++k) {
    const uint32_t j = pk.b_variables[k];
    while (i < bi.size() && bi[i] < j) ++i;
    if (i < bi.size() && bi[i] == j) {
      b1[i] = pk.b1_query[k];
      b2[i] = pk.b2_query[k];
    } else if (!pk.b1_query[k].infinity || !pk.b2_query[k].infinity) {
      return stray(j);
    }
  }
  std::vector<uint8_t> out;
  out.reserve(864 + 96 * (pk.vk.ic.size() + pk.h_query.size() + pk.c_query.size() + ai.size() + bi.size()) +
              192 * bi.size() + 24);
  put_vk(out, pk);
  put_u32(out, uint32_t(pk.h_query.size()));
  for (const auto& p : pk.h_query) put_point<G1>(out, p);
  put_u32(out, uint32_t(pk.c_query.size()));
  for (const auto& p : pk.c_query) put_point<G1>(out, p);
  put_u32(out, uint32_t(ai.size()));
  for (auto j : ai) put_point<G1>(out, pk.a_query[j]);
  put_u32(out, uint32_t(bi.size()));
  for (const auto& p : b1) put_point<G1>(out, p);
  put_u32(out, uint32_t(bi.size()));
  for (const auto& p : b2) put_point<G2>(out, p);
  return out;
}

Status write_params(const groth16::ProvingKey<Bls12_381>& pk, const std::string& path) {
  ASSIGN_OR_RETURN(auto bytes, encode_params(pk));
  return write_bytes(bytes, path);
}

std::vector<uint8_t> encode_vk(const groth16::ProvingKey<Bls12_381>& pk) {
  std::vector<uint8_t> out;
  put_vk(out, pk);
  return out;
}

Status write_vk(const groth16::ProvingKey<Bls12_381>& pk, const std::string& path) {
  return write_bytes(encode_vk(pk), path);
}

Result<groth16::VerifyingKey<Bls12_381>> read_vk(std::span<const uint8_t> bytes, const std::string& name) {
  ParamsReader r(bytes, name);
  groth16::VerifyingKey<Bls12_381> vk;
  ec::Affine<G1> beta1, delta1;
  RETURN_IF_ERROR(r.vk(vk, beta1, delta1, 0));
  RETURN_IF_ERROR(r.finish("IC"));
  return vk;
}

Result<groth16::ProvingKey<Bls12_381>> read_params(std::span<const uint8_t> bytes,
                                                   const std::string& name,
                                                   groth16::ProvingKey<Bls12_381> pk) {
  pk.convention = poly::QuotientConvention::kDivideByZ;
  if (pk.num_variables < pk.num_public + 1) {
    return invalid_argument("'" + name + "': the circuit has fewer variables than public inputs");
  }
  ParamsReader r(bytes, name);
  RETURN_IF_ERROR(r.vk(pk.vk, pk.beta1, pk.delta1, size_t(pk.num_public) + 1));
  const size_t n = pk.domain_size(), nv = pk.num_variables;
  ASSIGN_OR_RETURN(pk.h_query, r.points<G1>("H", n - 1));
  ASSIGN_OR_RETURN(pk.c_query, r.points<G1>("L", nv - pk.num_public - 1));
  const auto ai = a_indices(pk);
  auto bi = b_indices(pk);
  ASSIGN_OR_RETURN(auto a, r.points<G1>("A", ai.size()));
  ASSIGN_OR_RETURN(auto b1, r.points<G1>("B_G1", bi.size()));
  ASSIGN_OR_RETURN(auto b2, r.points<G2>("B_G2", bi.size()));
  RETURN_IF_ERROR(r.finish("B_G2"));
  pk.a_query.assign(nv, ec::Affine<G1>::identity());
  for (size_t k = 0; k < ai.size(); ++k) pk.a_query[ai[k]] = a[k];
  // B stays as the file keeps it, by density.
  pk.b_variables = std::move(bi);
  pk.b1_query = std::move(b1);
  pk.b2_query = std::move(b2);
  return pk;
}

std::array<uint8_t, kBellpersonProofSize> encode_proof(const groth16::Proof<Bls12_381>& proof) {
  std::array<uint8_t, kBellpersonProofSize> out{};
  auto a = ec::encode_compressed<G1>(proof.a);
  auto b = ec::encode_compressed<G2>(proof.b);
  auto c = ec::encode_compressed<G1>(proof.c);
  std::copy(a.begin(), a.end(), out.begin());
  std::copy(b.begin(), b.end(), out.begin() + 48);
  std::copy(c.begin(), c.end(), out.begin() + 144);
  return out;
}

Result<groth16::Proof<Bls12_381>> decode_proof(std::span<const uint8_t> bytes) {
  if (bytes.size() != kBellpersonProofSize) {
    return invalid_argument("bellperson proof: expected 192 bytes, got " + std::to_string(bytes.size()));
  }
  groth16::Proof<Bls12_381> p;
  auto field = [](const char* what, const Status& s) {
    return invalid_argument(std::string("bellperson proof: ") + what + ": " + s.message());
  };
  auto a = ec::decode_compressed<G1>(bytes.subspan(0, 48));
  if (!a.ok()) return field("A", a.status());
  auto b = ec::decode_compressed<G2>(bytes.subspan(48, 96));
  if (!b.ok()) return field("B", b.status());
  auto c = ec::decode_compressed<G1>(bytes.subspan(144, 48));
  if (!c.ok()) return field("C", c.status());
  p.a = *a;
  p.b = *b;
  p.c = *c;
  return p;
}

}  // namespace snarkd::formats
