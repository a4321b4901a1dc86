// snarkd/formats: the key cache (the engine's WARM tier): a proving key written in the prover's
// in-memory layout, so a reload is a bounds-checked copy instead of a parse with curve and
// subgroup checks.
//
// Layout (little-endian): "SNKDKEY1", u32 version, u32 curve, u32 sizeof(Fr), u32 sizeof(G1
// base field), u32 sizeof(G2 base field), the 16-byte content hash of the key's source, u32
// convention, num_variables, num_public, log_domain_size, has_c; then vk (alpha1, beta2,
// gamma2, delta2, ic), beta1, delta1, the matrices A, B, [C] (row starts, columns, values), the
// A query, B's variable list (u64 count, u32 each), the queries B1, B2 (by that list), C, H;
// last, a u64 checksum (content_hash of everything before it).
// Field elements are stored in Montgomery form exactly as in memory; a point is x, y and a
// u64 flag (0 or 1 for the identity). The cache is local to one build of snarkd: its element
// sizes and version are checked, and a mismatch or a bad checksum is an error (the caller then
// falls back to the original key file).
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <type_traits>
#include <vector>

#include "base/hash.h"
#include "base/mapped_file.h"
#include "base/status.h"
#include "ec/curve_id.h"
#include "groth16/keys.h"

namespace snarkd::formats {

inline constexpr char kKeyCacheMagic[8] = {'S', 'N', 'K', 'D', 'K', 'E', 'Y', '1'};
inline constexpr uint32_t kKeyCacheVersion = 2;  // 2: B kept by density

namespace key_cache_detail {

// Streams to a file through a buffer, hashing as it goes (a key of several GB is never held
// twice in memory).
class Writer {
 public:
  explicit Writer(std::ofstream& out) : out_(out) { buf_.reserve(kBuffer); }
  void raw(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    while (n > 0) {
      const size_t k = std::min(n, kBuffer - buf_.size());
      buf_.insert(buf_.end(), b, b + k);
      b += k;
      n -= k;
      if (buf_.size() == kBuffer) flush();
    }
  }
  void u32(uint32_t v) {
    uint8_t b[4];
    for (int i = 0; i < 4; ++i) b[i] = uint8_t(v >> (8 * i));
    raw(b, 4);
  }
  void u64(uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; ++i) b[i] = uint8_t(v >> (8 * i));
    raw(b, 8);
  }
  template <class T>
  void plain_vector(const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    u64(v.size());
    raw(v.data(), v.size() * sizeof(T));
  }
  template <class C>
  void point(const ec::Affine<C>& p) {
    raw(&p.x, sizeof(p.x));
    raw(&p.y, sizeof(p.y));
    u64(p.infinity ? 1 : 0);
  }
  template <class C>
  void points(const std::vector<ec::Affine<C>>& v) {
    u64(v.size());
    for (const auto& p : v) point(p);
  }
  template <class F>
  void matrix(const r1cs::SparseMatrix<F>& m) {
    plain_vector(m.row_start);
    plain_vector(m.column);
    plain_vector(m.value);
  }
  // Appends the checksum of everything written so far.
  void finish() {
    flush();
    const uint64_t sum = hasher_.finish().lo;
    uint8_t b[8];
    for (int i = 0; i < 8; ++i) b[i] = uint8_t(sum >> (8 * i));
    out_.write(reinterpret_cast<const char*>(b), 8);
  }

 private:
  static constexpr size_t kBuffer = size_t(1) << 20;
  void flush() {
    hasher_.update(buf_);
    out_.write(reinterpret_cast<const char*>(buf_.data()), std::streamsize(buf_.size()));
    buf_.clear();
  }
  std::ofstream& out_;
  std::vector<uint8_t> buf_;
  ContentHasher hasher_;
};

class Reader {
 public:
  Reader(std::span<const uint8_t> bytes, const std::string& name) : r_(bytes, name) {}
  ByteReader& in() { return r_; }
  template <class T>
  Status plain_vector(std::vector<T>& out, std::string_view what) {
    ASSIGN_OR_RETURN(uint64_t n, r_.u64(what));
    if (n > r_.remaining() / sizeof(T)) return r_.error(std::string(what) + ": count " + std::to_string(n) + " past the end of the file");
    ASSIGN_OR_RETURN(auto b, r_.bytes(n * sizeof(T), what));
    out.resize(n);
    if (n > 0) std::memcpy(static_cast<void*>(out.data()), b.data(), b.size());  // data() may be null when empty
    return Status();
  }
  template <class C>
  Status point(ec::Affine<C>& p, std::string_view what) {
    ASSIGN_OR_RETURN(auto x, r_.bytes(sizeof(p.x), what));
    ASSIGN_OR_RETURN(auto y, r_.bytes(sizeof(p.y), what));
    ASSIGN_OR_RETURN(uint64_t flag, r_.u64(what));
    if (flag > 1) return r_.error(std::string(what) + ": bad identity flag");
    std::memcpy(static_cast<void*>(&p.x), x.data(), x.size());
    std::memcpy(static_cast<void*>(&p.y), y.data(), y.size());
    p.infinity = flag == 1;
    return Status();
  }
  template <class C>
  Status points(std::vector<ec::Affine<C>>& out, std::string_view what) {
    ASSIGN_OR_RETURN(uint64_t n, r_.u64(what));
    const size_t record = 2 * sizeof(typename C::Field) + 8;
    if (n > r_.remaining() / record) return r_.error(std::string(what) + ": count " + std::to_string(n) + " past the end of the file");
    out.resize(n);
    for (auto& p : out) RETURN_IF_ERROR(point(p, what));
    return Status();
  }
  template <class F>
  Status matrix(r1cs::SparseMatrix<F>& m, std::string_view what, uint32_t variables) {
    RETURN_IF_ERROR(plain_vector(m.row_start, what));
    RETURN_IF_ERROR(plain_vector(m.column, what));
    RETURN_IF_ERROR(plain_vector(m.value, what));
    // The prover indexes with these: check them so a bad cache cannot read out of bounds.
    if (m.row_start.empty() || m.row_start.front() != 0 || m.row_start.back() != m.column.size() ||
        m.value.size() != m.column.size()) {
      return r_.error(std::string(what) + ": inconsistent row starts");
    }
    for (size_t i = 1; i < m.row_start.size(); ++i) {
      if (m.row_start[i] < m.row_start[i - 1]) return r_.error(std::string(what) + ": row starts decrease");
    }
    for (uint32_t c : m.column) {
      if (c >= variables) return r_.error(std::string(what) + ": column " + std::to_string(c) + " out of range");
    }
    return Status();
  }

 private:
  ByteReader r_;
};

}  // namespace key_cache_detail

template <class E>
void encode_key_cache(const groth16::ProvingKey<E>& pk, const Hash128& source, key_cache_detail::Writer& w) {
  w.raw(kKeyCacheMagic, 8);
  w.u32(kKeyCacheVersion);
  w.u32(uint32_t(ec::curve_of<E>()));
  w.u32(sizeof(groth16::Fr<E>));
  w.u32(sizeof(typename E::G1::Field));
  w.u32(sizeof(typename E::G2::Field));
  w.u64(source.lo);
  w.u64(source.hi);
  w.u32(uint32_t(pk.convention));
  w.u32(pk.num_variables);
  w.u32(pk.num_public);
  w.u32(pk.log_domain_size);
  w.u32(pk.c.has_value() ? 1 : 0);
  w.point(pk.vk.alpha1);
  w.point(pk.vk.beta2);
  w.point(pk.vk.gamma2);
  w.point(pk.vk.delta2);
  w.points(pk.vk.ic);
  w.point(pk.beta1);
  w.point(pk.delta1);
  w.matrix(pk.a);
  w.matrix(pk.b);
  if (pk.c) w.matrix(*pk.c);
  w.points(pk.a_query);
  w.plain_vector(pk.b_variables);
  w.points(pk.b1_query);
  w.points(pk.b2_query);
  w.points(pk.c_query);
  w.points(pk.h_query);
  w.finish();
}

// Writes through a temporary file and a rename, so a reader never sees half a cache.
template <class E>
Status write_key_cache(const groth16::ProvingKey<E>& pk, const Hash128& source, const std::string& path) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return unavailable("key cache: cannot create '" + tmp + "'");
    key_cache_detail::Writer w(f);
    encode_key_cache(pk, source, w);
    f.flush();
    if (!f) {
      std::remove(tmp.c_str());
      return unavailable("key cache: cannot write '" + tmp + "' (disk full?)");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return unavailable("key cache: cannot rename '" + tmp + "' to '" + path + "'");
  }
  return Status();
}

// `source` must match the hash the cache was written for (a stale cache is an error).
template <class E>
Result<groth16::ProvingKey<E>> read_key_cache(std::span<const uint8_t> bytes, const std::string& name,
                                              const Hash128& source) {
  const std::string who = "key cache '" + name + "'";
  if (bytes.size() < 8 + 8 || std::memcmp(bytes.data(), kKeyCacheMagic, 8) != 0) {
    return invalid_argument(who + ": not a snarkd key cache (bad magic)");
  }
  uint64_t stored = 0;
  for (int i = 7; i >= 0; --i) stored = stored << 8 | bytes[bytes.size() - 8 + size_t(i)];
  // The checksum covers everything before it, the magic included.
  if (content_hash(bytes.first(bytes.size() - 8)).lo != stored) {
    return Status(StatusCode::kDataLoss, who + ": checksum mismatch (corrupt or truncated)");
  }
  key_cache_detail::Reader r(bytes.first(bytes.size() - 8).subspan(8), who);
  auto& in = r.in();
  ASSIGN_OR_RETURN(uint32_t version, in.u32("version"));
  if (version != kKeyCacheVersion) return in.error("version " + std::to_string(version) + ", this build reads " + std::to_string(kKeyCacheVersion));
  ASSIGN_OR_RETURN(uint32_t curve, in.u32("curve"));
  if (curve != uint32_t(ec::curve_of<E>())) return in.error("the cache is for another curve");
  ASSIGN_OR_RETURN(uint32_t fr_size, in.u32("element sizes"));
  ASSIGN_OR_RETURN(uint32_t fq1_size, in.u32("element sizes"));
  ASSIGN_OR_RETURN(uint32_t fq2_size, in.u32("element sizes"));
  if (fr_size != sizeof(groth16::Fr<E>) || fq1_size != sizeof(typename E::G1::Field) ||
      fq2_size != sizeof(typename E::G2::Field)) {
    return in.error("element sizes differ from this build");
  }
  Hash128 h;
  ASSIGN_OR_RETURN(h.lo, in.u64("source hash"));
  ASSIGN_OR_RETURN(h.hi, in.u64("source hash"));
  if (!(h == source)) return in.error("made for another key (" + h.hex() + ", wanted " + source.hex() + ")");
  groth16::ProvingKey<E> pk;
  ASSIGN_OR_RETURN(uint32_t convention, in.u32("convention"));
  if (convention > 1) return in.error("bad quotient convention " + std::to_string(convention));
  pk.convention = poly::QuotientConvention(convention);
  ASSIGN_OR_RETURN(pk.num_variables, in.u32("num_variables"));
  ASSIGN_OR_RETURN(pk.num_public, in.u32("num_public"));
  ASSIGN_OR_RETURN(pk.log_domain_size, in.u32("log_domain_size"));
  ASSIGN_OR_RETURN(uint32_t has_c, in.u32("has_c"));
  if (pk.log_domain_size > 31 || pk.num_public >= pk.num_variables || has_c > 1) {
    return in.error("inconsistent key sizes");
  }
  RETURN_IF_ERROR(r.point(pk.vk.alpha1, "alpha1"));
  RETURN_IF_ERROR(r.point(pk.vk.beta2, "beta2"));
  RETURN_IF_ERROR(r.point(pk.vk.gamma2, "gamma2"));
  RETURN_IF_ERROR(r.point(pk.vk.delta2, "delta2"));
  RETURN_IF_ERROR(r.points(pk.vk.ic, "ic"));
  RETURN_IF_ERROR(r.point(pk.beta1, "beta1"));
  RETURN_IF_ERROR(r.point(pk.delta1, "delta1"));
  RETURN_IF_ERROR(r.matrix(pk.a, "matrix A", pk.num_variables));
  RETURN_IF_ERROR(r.matrix(pk.b, "matrix B", pk.num_variables));
  if (has_c) {
    pk.c.emplace();
    RETURN_IF_ERROR(r.matrix(*pk.c, "matrix C", pk.num_variables));
  }
  RETURN_IF_ERROR(r.points(pk.a_query, "A query"));
  RETURN_IF_ERROR(r.plain_vector(pk.b_variables, "B variables"));
  RETURN_IF_ERROR(r.points(pk.b1_query, "B1 query"));
  RETURN_IF_ERROR(r.points(pk.b2_query, "B2 query"));
  RETURN_IF_ERROR(r.points(pk.c_query, "C query"));
  RETURN_IF_ERROR(r.points(pk.h_query, "H query"));
  if (!in.at_end()) return in.error("trailing bytes");
  // The prover indexes with the query sizes and B's list too.
  RETURN_IF_ERROR(groth16::check_query_sizes(pk, who));
  const size_t rows = pk.a.rows();
  if (pk.b.rows() != rows || (pk.c && pk.c->rows() != rows) || rows > pk.domain_size()) {
    return invalid_argument(who + ": matrix sizes do not match the key's sizes");
  }
  return pk;
}

}  // namespace snarkd::formats
