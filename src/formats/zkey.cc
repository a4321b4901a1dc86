#include "formats/zkey.h"

#include <algorithm>
#include <atomic>

#include "base/thread_pool.h"
#include "ec/bls12_381.h"
#include "ec/bn254.h"
#include "ec/encoding.h"
#include "formats/binfile.h"

namespace snarkd::formats {

namespace {

constexpr uint32_t kMaxLogDomain = 28;

template <class C>
Result<ec::Affine<C>> read_point(ByteReader& r, std::string_view what, ec::PointCheck check) {
  uint64_t at = r.offset();
  ASSIGN_OR_RETURN(auto b, r.bytes(ec::kSnarkjsSize<C>, what));
  auto p = ec::decode_snarkjs<C>(b, check);
  if (!p.ok()) {
    return p.status().with_context(r.name() + " at offset " + std::to_string(at) + " (" +
                                   std::string(what) + ")");
  }
  return *p;
}

// Checks a point section's length before anything is allocated for it.
Status check_point_section(const BinFile& f, uint32_t id, std::string_view what, uint64_t count,
                           size_t point_size) {
  ASSIGN_OR_RETURN(auto s, f.section(id, what));
  if (s.bytes.size() != count * point_size) {
    return invalid_argument(f.name + ": section " + std::to_string(id) + " (" + std::string(what) +
                            ") has " + std::to_string(s.bytes.size()) + " bytes, expected " +
                            std::to_string(count) + " points of " + std::to_string(point_size));
  }
  return Status();
}

// A whole section of points, decoded in parallel; the first bad point is reported.
template <class C>
Result<std::vector<ec::Affine<C>>> read_points(const BinFile& f, uint32_t id, std::string_view what,
                                               uint64_t count, ec::PointCheck check) {
  const size_t size = ec::kSnarkjsSize<C>;
  RETURN_IF_ERROR(check_point_section(f, id, what, count, size));
  ASSIGN_OR_RETURN(auto s, f.section(id, what));
  std::vector<ec::Affine<C>> out(count);
  std::vector<Status> errors(ThreadPool::global().size() * 4);
  std::atomic<size_t> chunk_id{0};
  ThreadPool::global().parallel_for(
      count,
      [&](size_t begin, size_t end) {
        size_t me = chunk_id++;
        for (size_t i = begin; i < end; ++i) {
          auto p = ec::decode_snarkjs<C>(s.bytes.subspan(i * size, size), check);
          if (!p.ok()) {
            errors[me] = p.status().with_context(
                f.name + ": section " + std::to_string(id) + " (" + std::string(what) +
                ") point " + std::to_string(i) + " at offset " + std::to_string(s.offset + i * size));
            return;
          }
          out[i] = *p;
        }
      },
      errors.size());
  for (const auto& e : errors) {
    if (!e.ok()) return e;
  }
  return out;
}

template <class F>
Result<F> read_coefficient(ByteReader& r) {
  uint64_t at = r.offset();
  ASSIGN_OR_RETURN(auto b, r.bytes(F::kBytes, "a coefficient"));
  auto raw = F::Int::from_bytes_le(b);
  if (!raw || !(*raw < F::kModulus)) {
    return invalid_argument(r.name() + " at offset " + std::to_string(at) +
                            ": coefficient is not below r");
  }
  // Stored as v * R^2 (plain): reading it as Montgomery form gives v * R; once more gives v.
  return F::from_montgomery(*raw) * F::from_montgomery(F::Int::from_u64(1));
}

template <class F>
void write_scalar_le(BinWriter& w, const F& v) {
  std::array<uint8_t, F::kBytes> b{};
  v.to_bytes_le(b);
  w.bytes(b);
}

template <class C>
void write_point(BinWriter& w, const ec::Affine<C>& p) {
  auto b = ec::encode_snarkjs(p);
  w.bytes(b);
}

}  // namespace

template <class E>
Result<groth16::ProvingKey<E>> read_zkey(std::span<const uint8_t> bytes, const std::string& name) {
  using G1 = typename E::G1;
  using G2 = typename E::G2;
  using Fq = typename G1::Field;
  using F = groth16::Fr<E>;
  ASSIGN_OR_RETURN(auto file, parse_bin_file(bytes, "zkey", 1, "'" + name + "'"));
  {
    ASSIGN_OR_RETURN(auto s, file.section(1, "protocol"));
    auto r = file.reader(s, 1, "protocol");
    ASSIGN_OR_RETURN(uint32_t protocol, r.u32("the protocol"));
    if (protocol != 1) {
      return invalid_argument(file.name + ": protocol " + std::to_string(protocol) +
                              " is not Groth16 (1)");
    }
  }
  groth16::ProvingKey<E> pk;
  pk.convention = poly::QuotientConvention::kSnarkjsOddCoset;
  ASSIGN_OR_RETURN(auto hs, file.section(2, "Groth16 header"));
  auto h = file.reader(hs, 2, "Groth16 header");
  ASSIGN_OR_RETURN(uint32_t n8q, h.u32("n8q"));
  if (n8q != Fq::kBytes) {
    return h.error("n8q = " + std::to_string(n8q) + ", expected " + std::to_string(Fq::kBytes) +
                   " for " + G1::kName);
  }
  ASSIGN_OR_RETURN(auto q, h.bytes(n8q, "q"));
  auto qv = Fq::Int::from_bytes_le(q);
  if (!qv || !(*qv == Fq::kModulus)) return h.error(std::string("q is not the base prime of ") + G1::kName);
  ASSIGN_OR_RETURN(uint32_t n8r, h.u32("n8r"));
  if (n8r != F::kBytes) return h.error("n8r = " + std::to_string(n8r) + ", expected 32");
  ASSIGN_OR_RETURN(auto rb, h.bytes(n8r, "r"));
  auto rv = F::Int::from_bytes_le(rb);
  if (!rv || !(*rv == F::kModulus)) return h.error(std::string("r is not the scalar prime of ") + G1::kName);
  ASSIGN_OR_RETURN(pk.num_variables, h.u32("nVars"));
  ASSIGN_OR_RETURN(pk.num_public, h.u32("nPublic"));
  ASSIGN_OR_RETURN(uint32_t domain_size, h.u32("domainSize"));
  if (pk.num_variables == 0 || uint64_t(pk.num_public) + 1 > pk.num_variables) {
    return h.error("nPublic = " + std::to_string(pk.num_public) + " does not fit nVars = " +
                   std::to_string(pk.num_variables));
  }
  if (domain_size == 0 || (domain_size & (domain_size - 1)) != 0 ||
      domain_size > (1u << kMaxLogDomain)) {
    return h.error("domainSize " + std::to_string(domain_size) +
                   " is not a power of two up to 2^28");
  }
  while ((1u << pk.log_domain_size) < domain_size) ++pk.log_domain_size;
  const auto full = ec::PointCheck::kFull;
  ASSIGN_OR_RETURN(pk.vk.alpha1, read_point<G1>(h, "alpha1", full));
  ASSIGN_OR_RETURN(pk.beta1, read_point<G1>(h, "beta1", full));
  ASSIGN_OR_RETURN(pk.vk.beta2, read_point<G2>(h, "beta2", full));
  ASSIGN_OR_RETURN(pk.vk.gamma2, read_point<G2>(h, "gamma2", full));
  ASSIGN_OR_RETURN(pk.delta1, read_point<G1>(h, "delta1", full));
  ASSIGN_OR_RETURN(pk.vk.delta2, read_point<G2>(h, "delta2", full));
  if (!h.at_end()) return h.error("unexpected bytes after delta2");

  // Every point section's size first: later allocations (the CSR rows, up to domainSize) are
  // then bounded by the file's own size.
  const uint64_t n_private = pk.num_variables - pk.num_public - 1;
  const size_t g1 = ec::kSnarkjsSize<G1>, g2 = ec::kSnarkjsSize<G2>;
  RETURN_IF_ERROR(check_point_section(file, 3, "IC", uint64_t(pk.num_public) + 1, g1));
  RETURN_IF_ERROR(check_point_section(file, 5, "A", pk.num_variables, g1));
  RETURN_IF_ERROR(check_point_section(file, 6, "B1", pk.num_variables, g1));
  RETURN_IF_ERROR(check_point_section(file, 7, "B2", pk.num_variables, g2));
  RETURN_IF_ERROR(check_point_section(file, 8, "C", n_private, g1));
  RETURN_IF_ERROR(check_point_section(file, 9, "H", domain_size, g1));

  // Coefficients: counting sort into CSR rows.
  {
    ASSIGN_OR_RETURN(auto s, file.section(4, "coefficients"));
    auto r = file.reader(s, 4, "coefficients");
    ASSIGN_OR_RETURN(uint32_t count, r.u32("the coefficient count"));
    const uint64_t entry = 12 + F::kBytes;
    if (uint64_t(count) * entry != r.remaining()) {
      return r.error(std::to_string(count) + " coefficients need " +
                     std::to_string(uint64_t(count) * entry) + " bytes, the section has " +
                     std::to_string(r.remaining()));
    }
    struct Entry {
      uint32_t row, col;
      F value;
    };
    std::vector<Entry> entries[2];
    uint32_t rows = 0;
    for (uint32_t i = 0; i < count; ++i) {
      ASSIGN_OR_RETURN(uint32_t matrix, r.u32("a matrix id"));
      ASSIGN_OR_RETURN(uint32_t row, r.u32("a constraint index"));
      ASSIGN_OR_RETURN(uint32_t col, r.u32("a signal index"));
      if (matrix > 1) return r.error("matrix id " + std::to_string(matrix) + " is not 0 (A) or 1 (B)");
      if (row >= domain_size) {
        return r.error("constraint " + std::to_string(row) + " is outside the domain of " +
                       std::to_string(domain_size));
      }
      if (col >= pk.num_variables) {
        return r.error("signal " + std::to_string(col) + " is not below nVars = " +
                       std::to_string(pk.num_variables));
      }
      ASSIGN_OR_RETURN(F v, read_coefficient<F>(r));
      entries[matrix].push_back({row, col, v});
      rows = std::max(rows, row + 1);
    }
    r1cs::SparseMatrix<F>* mats[2] = {&pk.a, &pk.b};
    for (int m = 0; m < 2; ++m) {
      auto& mat = *mats[m];
      mat.row_start.assign(size_t(rows) + 1, 0);
      for (const auto& e : entries[m]) ++mat.row_start[e.row + 1];
      for (uint32_t i = 0; i < rows; ++i) mat.row_start[i + 1] += mat.row_start[i];
      mat.column.resize(entries[m].size());
      mat.value.resize(entries[m].size());
      std::vector<uint64_t> next(mat.row_start.begin(), mat.row_start.end() - 1);
      for (const auto& e : entries[m]) {
        uint64_t k = next[e.row]++;
        mat.column[k] = e.col;
        mat.value[k] = e.value;
      }
    }
  }

  const auto bulk = ec::PointCheck::kOnCurveOnly;
  ASSIGN_OR_RETURN(pk.vk.ic, read_points<G1>(file, 3, "IC", uint64_t(pk.num_public) + 1, full));
  ASSIGN_OR_RETURN(pk.a_query, read_points<G1>(file, 5, "A", pk.num_variables, bulk));
  {
    // Full length in the file (the identity for a variable absent from B); kept by density.
    ASSIGN_OR_RETURN(auto b1, read_points<G1>(file, 6, "B1", pk.num_variables, bulk));
    ASSIGN_OR_RETURN(auto b2, read_points<G2>(file, 7, "B2", pk.num_variables, bulk));
    groth16::set_b_from_full(pk, std::move(b1), std::move(b2));
  }
  ASSIGN_OR_RETURN(pk.c_query, read_points<G1>(file, 8, "C", n_private, bulk));
  ASSIGN_OR_RETURN(pk.h_query, read_points<G1>(file, 9, "H", domain_size, bulk));
  return pk;
}

template <class E>
Status write_zkey(const groth16::ProvingKey<E>& pk, const std::string& path) {
  using Fq = typename E::G1::Field;
  using F = groth16::Fr<E>;
  if (pk.convention != poly::QuotientConvention::kSnarkjsOddCoset) {
    return invalid_argument("a zkey needs the snarkjs H convention (odd coset)");
  }
  RETURN_IF_ERROR(groth16::check_query_sizes(pk, "zkey writer: the key"));
  BinWriter w("zkey", 1, 10);
  w.begin_section(1);
  w.u32(1);
  w.end_section();

  w.begin_section(2);
  std::array<uint8_t, Fq::kBytes> qb{};
  Fq::kModulus.to_bytes_le(qb);
  w.u32(Fq::kBytes);
  w.bytes(qb);
  std::array<uint8_t, F::kBytes> rb{};
  F::kModulus.to_bytes_le(rb);
  w.u32(F::kBytes);
  w.bytes(rb);
  w.u32(pk.num_variables);
  w.u32(pk.num_public);
  w.u32(uint32_t(pk.domain_size()));
  write_point(w, pk.vk.alpha1);
  write_point(w, pk.beta1);
  write_point(w, pk.vk.beta2);
  write_point(w, pk.vk.gamma2);
  write_point(w, pk.delta1);
  write_point(w, pk.vk.delta2);
  w.end_section();

  w.begin_section(4);
  w.u32(uint32_t(pk.a.nonzeros() + pk.b.nonzeros()));
  const F r2 = F::from_canonical_unchecked(F::kR2);  // values are stored times R^2
  const r1cs::SparseMatrix<F>* mats[2] = {&pk.a, &pk.b};
  for (uint32_t m = 0; m < 2; ++m) {
    const auto& mat = *mats[m];
    for (size_t row = 0; row < mat.rows(); ++row) {
      for (uint64_t k = mat.row_start[row]; k < mat.row_start[row + 1]; ++k) {
        w.u32(m);
        w.u32(uint32_t(row));
        w.u32(mat.column[k]);
        write_scalar_le(w, mat.value[k] * r2);
      }
    }
  }
  w.end_section();

  auto section = [&](uint32_t id, const auto& points) {
    w.begin_section(id);
    for (const auto& p : points) write_point(w, p);
    w.end_section();
  };
  section(3, pk.vk.ic);
  section(9, pk.h_query);
  section(8, pk.c_query);
  section(5, pk.a_query);
  // A zkey's B sections are full length: the identity for each variable absent from B.
  auto b_section = [&]<class C>(uint32_t id, const std::vector<ec::Affine<C>>& points) {
    w.begin_section(id);
    size_t k = 0;
    for (uint32_t j = 0; j < pk.num_variables; ++j) {
      const bool listed = k < pk.b_variables.size() && pk.b_variables[k] == j;
      write_point(w, listed ? points[k++] : ec::Affine<C>::identity());
    }
    w.end_section();
  };
  b_section(6, pk.b1_query);
  b_section(7, pk.b2_query);
  w.begin_section(10);
  std::array<uint8_t, 64> no_hash{};
  w.bytes(no_hash);
  w.u32(0);
  w.end_section();
  return w.write_to(path);
}

template Result<groth16::ProvingKey<ec::bls12_381::Engine>> read_zkey(std::span<const uint8_t>,
                                                                      const std::string&);
template Result<groth16::ProvingKey<ec::bn254::Engine>> read_zkey(std::span<const uint8_t>,
                                                                  const std::string&);
template Status write_zkey(const groth16::ProvingKey<ec::bls12_381::Engine>&, const std::string&);
template Status write_zkey(const groth16::ProvingKey<ec::bn254::Engine>&, const std::string&);

}  // namespace snarkd::formats
