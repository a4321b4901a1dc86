// snarkd/formats: circom's .r1cs (version 1) and .wtns (version 2) files.
//
//   .r1cs section 1: u32 n8, prime, u32 nWires, nOutputs, nPubInputs, nPrvInputs, u64 nLabels,
//                    u32 nConstraints; section 2: per constraint the linear combinations A, B, C,
//                    each u32 nTerms then (u32 wire, n8-byte coefficient, plain LE).
//   .wtns section 1: u32 n8, prime, u32 nWitness; section 2: nWitness plain LE values.
// Counts are checked against section sizes before anything is allocated.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/mapped_file.h"
#include "base/status.h"
#include "ec/curve_id.h"
#include "formats/binfile.h"
#include "r1cs/r1cs.h"

namespace snarkd::formats {

// The curve whose scalar field (is_scalar = true) or base field has this little-endian prime.
Result<ec::CurveId> curve_from_prime(std::span<const uint8_t> prime_le, bool is_scalar,
                                     const std::string& where);

// Reads the prime at the start of `section` (u32 n8, then n8 bytes) and names the curve.
Result<ec::CurveId> curve_from_header(const BinFile& file, uint32_t section, bool is_scalar);

struct R1csInfo {
  uint32_t n_outputs = 0, n_pub_inputs = 0, n_prv_inputs = 0;
  uint64_t n_labels = 0;
};

namespace detail {

// Reads a canonical scalar (n8 = 32 bytes); an error names the offset.
template <class F>
Result<F> read_scalar(ByteReader& r, std::string_view what) {
  uint64_t at = r.offset();
  ASSIGN_OR_RETURN(auto b, r.bytes(F::kBytes, what));
  auto v = F::from_bytes_le(b);
  if (!v) {
    return invalid_argument(r.name() + " at offset " + std::to_string(at) + ": " +
                            std::string(what) + " is not below the field prime");
  }
  return *v;
}

template <class F>
Status check_prime(ByteReader& r) {
  ASSIGN_OR_RETURN(uint32_t n8, r.u32("n8"));
  if (n8 != F::kBytes) {
    return r.error("field element size n8 = " + std::to_string(n8) + ", expected " +
                   std::to_string(F::kBytes));
  }
  ASSIGN_OR_RETURN(auto prime, r.bytes(n8, "the prime"));
  auto p = F::Int::from_bytes_le(prime);
  if (!p || !(*p == F::kModulus)) {
    return r.error(std::string("the prime is not the scalar field of ") + F::name());
  }
  return Status();
}

}  // namespace detail

template <class F>
Result<r1cs::ConstraintSystem<F>> read_r1cs(std::span<const uint8_t> bytes, const std::string& name,
                                            R1csInfo* info = nullptr) {
  ASSIGN_OR_RETURN(auto file, parse_bin_file(bytes, "r1cs", 1, "'" + name + "'"));
  ASSIGN_OR_RETURN(auto hs, file.section(1, "header"));
  auto h = file.reader(hs, 1, "header");
  RETURN_IF_ERROR(detail::check_prime<F>(h));
  R1csInfo meta;
  ASSIGN_OR_RETURN(uint32_t n_wires, h.u32("nWires"));
  ASSIGN_OR_RETURN(meta.n_outputs, h.u32("nOutputs"));
  ASSIGN_OR_RETURN(meta.n_pub_inputs, h.u32("nPubInputs"));
  ASSIGN_OR_RETURN(meta.n_prv_inputs, h.u32("nPrvInputs"));
  ASSIGN_OR_RETURN(meta.n_labels, h.u64("nLabels"));
  ASSIGN_OR_RETURN(uint32_t n_constraints, h.u32("nConstraints"));
  uint64_t declared = 1ull + meta.n_outputs + meta.n_pub_inputs + meta.n_prv_inputs;
  if (n_wires == 0 || declared > n_wires) {
    return h.error("nWires = " + std::to_string(n_wires) + " is less than 1 + outputs + inputs = " +
                   std::to_string(declared));
  }
  ASSIGN_OR_RETURN(auto cs_sec, file.section(2, "constraints"));
  auto r = file.reader(cs_sec, 2, "constraints");
  if (uint64_t(n_constraints) * 12 > r.remaining()) {
    return r.error(std::to_string(n_constraints) + " constraints cannot fit in " +
                   std::to_string(r.remaining()) + " bytes");
  }
  r1cs::ConstraintSystem<F> cs;
  cs.num_variables = n_wires;
  cs.num_public = meta.n_outputs + meta.n_pub_inputs;
  r1cs::SparseMatrix<F>* mats[3] = {&cs.a, &cs.b, &cs.c};
  for (auto* m : mats) {
    m->row_start.reserve(size_t(n_constraints) + 1);
  }
  for (uint32_t c = 0; c < n_constraints; ++c) {
    for (auto* m : mats) {
      ASSIGN_OR_RETURN(uint32_t terms, r.u32("a term count"));
      if (uint64_t(terms) * (4 + F::kBytes) > r.remaining()) {
        return r.error("constraint " + std::to_string(c) + " claims " + std::to_string(terms) +
                       " terms, more than the section holds");
      }
      for (uint32_t t = 0; t < terms; ++t) {
        ASSIGN_OR_RETURN(uint32_t wire, r.u32("a wire id"));
        if (wire >= n_wires) {
          return r.error("constraint " + std::to_string(c) + " uses wire " + std::to_string(wire) +
                         " of " + std::to_string(n_wires));
        }
        ASSIGN_OR_RETURN(F coeff, detail::read_scalar<F>(r, "a coefficient"));
        m->column.push_back(wire);
        m->value.push_back(coeff);
      }
      m->row_start.push_back(m->column.size());
    }
  }
  if (!r.at_end()) return r.error("trailing bytes after the last constraint");
  if (info) *info = meta;
  return cs;
}

template <class F>
Result<std::vector<F>> read_wtns(std::span<const uint8_t> bytes, const std::string& name) {
  ASSIGN_OR_RETURN(auto file, parse_bin_file(bytes, "wtns", 2, "'" + name + "'"));
  ASSIGN_OR_RETURN(auto hs, file.section(1, "header"));
  auto h = file.reader(hs, 1, "header");
  RETURN_IF_ERROR(detail::check_prime<F>(h));
  ASSIGN_OR_RETURN(uint32_t count, h.u32("nWitness"));
  ASSIGN_OR_RETURN(auto ws, file.section(2, "witness"));
  auto r = file.reader(ws, 2, "witness");
  if (uint64_t(count) * F::kBytes != r.remaining()) {
    return r.error("holds " + std::to_string(r.remaining()) + " bytes, expected " +
                   std::to_string(count) + " values of " + std::to_string(F::kBytes) + " bytes");
  }
  std::vector<F> w;
  w.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    ASSIGN_OR_RETURN(F v, detail::read_scalar<F>(r, "a witness value"));
    w.push_back(v);
  }
  if (count == 0 || !w[0].is_one()) {
    return invalid_argument("'" + name + "': witness[0] must be 1");
  }
  return w;
}

// Writes a .wtns (version 2) file: used by tests and by native circuits exported for snarkjs.
template <class F>
Status write_wtns(std::span<const F> w, const std::string& path) {
  BinWriter out("wtns", 2, 2);
  out.begin_section(1);
  out.u32(F::kBytes);
  std::array<uint8_t, F::kBytes> buf{};
  F::kModulus.to_bytes_le(buf);
  out.bytes(buf);
  out.u32(uint32_t(w.size()));
  out.end_section();
  out.begin_section(2);
  for (const auto& v : w) {
    v.to_bytes_le(buf);
    out.bytes(buf);
  }
  out.end_section();
  return out.write_to(path);
}

}  // namespace snarkd::formats
