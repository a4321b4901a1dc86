// snarkd/filecoin: PoRep C2's circuit, storage-proofs-porep's StackedCircuit, row for row and
// variable for variable (stacked/circuit/proof.rs, params.rs, create_label.rs, hash.rs, with
// storage-proofs-core's por.rs, uint64.rs, encode.rs), over any constraint-system mode.
//
// Top level: replica_id (allocated, inputized, then its bits: to_bits_le, a constant pad bit,
// bits reversed within each byte), comm_d and comm_r (allocated, inputized), comm_r_last and
// comm_c (allocated), comm_r = Poseidon2(comm_c, comm_r_last). Per challenge: the data leaf,
// its inclusion in tree D; for 6 DRG then 8 expander parents: the column's rows, their Poseidon
// hash, its inclusion in tree C; the challenge as 64 bits packed into an input; per layer the
// label (SHA-256 of the replica id, the layer, the node and 37 parent labels' bits, re-derived in
// every layer); the encoding label_L + data leaf and its inclusion in tree R last; the Poseidon
// hash of the computed labels and its inclusion in tree C. Every inclusion takes the allocated
// leaf and root and packs its path's index bits into one input: 3 + 18 inputs per challenge.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "circuits/gadgets/num.h"
#include "circuits/gadgets/por.h"
#include "circuits/gadgets/poseidon.h"
#include "circuits/gadgets/sha256.h"
#include "ff/bls12_381.h"

namespace snarkd::filecoin {

using circuits::AllocatedNum;
using circuits::Boolean;
using StackedField = ff::bls12_381::Fr;

// What the circuit's shape depends on.
struct StackedShape {
  unsigned layers = 2;
  unsigned challenges = 1;
  unsigned tree_d_levels = 3;           // log2(nodes): binary SHA-256 levels
  std::vector<unsigned> rc_arities;     // trees C and R last, leaf level first (8, 8, ..., sub, top)
};

// One partition's values (zeros for the shape mode).
struct StackedValues {
  using F = StackedField;
  using Path = std::vector<circuits::PathLevel<F>>;
  struct Column {
    std::vector<F> rows;  // layers 1..L
    Path path;            // into tree C
  };
  struct Challenge {
    uint64_t node = 0;
    F data_leaf;
    Path comm_d_path, comm_r_last_path, comm_c_path;
    std::array<Column, 6> drg;
    std::array<Column, 8> exp;
  };
  F replica_id, comm_d, comm_r, comm_r_last, comm_c;
  std::vector<Challenge> challenges;
};

// Zero values of the right sizes, for the shape mode.
StackedValues blank_stacked_values(const StackedShape& shape);

namespace stacked_detail {

// storage-proofs-core's reverse_bit_numbering: padded with constant zeros to whole bytes, then
// the bits of each byte reversed (a little-endian number as SHA-256 reads bytes).
inline std::vector<Boolean> reverse_bit_numbering(std::vector<Boolean> bits) {
  while (bits.size() % 8) bits.push_back(Boolean::constant(false));
  for (size_t byte = 0; byte < bits.size(); byte += 8) std::reverse(bits.begin() + ptrdiff_t(byte), bits.begin() + ptrdiff_t(byte + 8));
  return bits;
}

template <class CS>
std::vector<Boolean> num_bits(CS& cs, const AllocatedNum<CS>& n) {
  return reverse_bit_numbering(n.to_bits_le(cs));
}

}  // namespace stacked_detail

// create_label_circuit: SHA-256 of replica_id (256 bits) || layer (32 constant bits, big-endian)
// || node (64 bits, most significant first) || 160 zero bits || 37 parents of 256 bits; the
// digest's bits reversed within each byte and the first 254 packed into one number.
template <class CS>
AllocatedNum<CS> create_label(CS& cs, std::span<const Boolean> replica_id_bits,
                              std::span<const std::vector<Boolean>> parents, uint32_t layer,
                              std::span<const Boolean> node_bits_be) {
  std::vector<Boolean> message;
  message.reserve(256 * (2 + parents.size()));
  message.insert(message.end(), replica_id_bits.begin(), replica_id_bits.end());
  while (message.size() % 256) message.push_back(Boolean::constant(false));
  for (int i = 31; i >= 0; --i) message.push_back(Boolean::constant((layer >> i) & 1));
  message.insert(message.end(), node_bits_be.begin(), node_bits_be.end());
  while (message.size() % 512) message.push_back(Boolean::constant(false));
  for (const auto& p : parents) {
    message.insert(message.end(), p.begin(), p.end());
    while (message.size() % 256) message.push_back(Boolean::constant(false));
  }
  std::vector<Boolean> digest;
  {
    auto scope = cs.ns("hash");
    digest = circuits::sha256(cs, std::span<const Boolean>(message));
  }
  auto bits = stacked_detail::reverse_bit_numbering(std::move(digest));
  bits.resize(254);
  auto scope = cs.ns("result_num");
  return circuits::pack_bits(cs, std::span<const Boolean>(bits));
}

// The top level's variables every challenge uses.
template <class CS>
struct StackedTop {
  std::vector<Boolean> replica_id_bits;
  AllocatedNum<CS> comm_d, comm_r_last, comm_c;
};

template <class CS>
StackedTop<CS> synthesize_stacked_top(CS& cs, const StackedValues& v) {
  using Num = AllocatedNum<CS>;
  StackedTop<CS> top;
  const Num replica_id = Num::alloc(cs, v.replica_id);
  (void)replica_id.inputize(cs);
  {
    auto scope = cs.ns("replica_id_bits");
    top.replica_id_bits = stacked_detail::num_bits(cs, replica_id);
  }
  top.comm_d = Num::alloc(cs, v.comm_d);
  (void)top.comm_d.inputize(cs);
  const Num comm_r = Num::alloc(cs, v.comm_r);
  (void)comm_r.inputize(cs);
  top.comm_r_last = Num::alloc(cs, v.comm_r_last);
  top.comm_c = Num::alloc(cs, v.comm_c);
  {
    auto scope = cs.ns("H_comm_c_comm_r_last");
    const Num both[2] = {top.comm_c, top.comm_r_last};
    const Num hash = circuits::poseidon_hash(cs, std::span<const Num>(both, 2));
    circuits::equal(cs, comm_r, hash);
  }
  return top;
}

// Challenge `ci`: it reads the top level's variables only, and allocates the same number of
// inputs and aux variables and enforces the same number of rows as any other challenge.
template <class CS>
void synthesize_stacked_challenge(CS& cs, const StackedShape& shape, const StackedTop<CS>& top,
                                  const StackedValues::Challenge& c, size_t ci) {
  using Num = AllocatedNum<CS>;
  using Sha = circuits::Sha256TreeHasher;
  using Poseidon = circuits::PoseidonTreeHasher;
  const std::vector<unsigned> d_arities(shape.tree_d_levels, 2);
  const std::span<const unsigned> rc(shape.rc_arities);
  const unsigned layers = shape.layers;
  auto challenge_scope = cs.ns("challenge", ci);
  const Num data_leaf = Num::alloc(cs, c.data_leaf);
  {
    auto scope = cs.ns("comm_d_inclusion");
    circuits::por_allocated<CS, Sha>(cs, d_arities, data_leaf, c.comm_d_path, top.comm_d);
  }
  // The parents' columns: allocated, hashed and proven one parent at a time.
  auto column = [&](const StackedValues::Column& col, const char* what, size_t i) {
    auto scope = cs.ns(what, i);
    std::vector<Num> rows;
    for (unsigned r = 0; r < layers; ++r) rows.push_back(Num::alloc(cs, col.rows[r]));
    const Num hash = circuits::poseidon_hash(cs, std::span<const Num>(rows));
    circuits::por_allocated<CS, Poseidon>(cs, rc, hash, col.path, top.comm_c);
    return rows;
  };
  std::vector<std::vector<Num>> drg, exp;
  for (size_t i = 0; i < c.drg.size(); ++i) drg.push_back(column(c.drg[i], "drg_parent", i));
  for (size_t i = 0; i < c.exp.size(); ++i) exp.push_back(column(c.exp[i], "exp_parent", i));
  // The challenge: 64 bits, least significant first, packed into one input.
  std::vector<Boolean> challenge_bits;
  {
    auto scope = cs.ns("challenge_num");
    for (unsigned i = 0; i < 64; ++i) challenge_bits.push_back(Boolean::alloc(cs, (c.node >> i) & 1));
    circuits::pack_into_inputs(cs, std::span<const Boolean>(challenge_bits));
  }
  const std::vector<Boolean> node_be(challenge_bits.rbegin(), challenge_bits.rend());
  std::vector<Num> labels;
  for (unsigned layer = 1; layer <= layers; ++layer) {
    auto scope = cs.ns("labeling", layer);
    std::vector<std::vector<Boolean>> parents;
    for (const auto& rows : drg) parents.push_back(stacked_detail::num_bits(cs, rows[layer - 1]));
    if (layer > 1) {
      for (const auto& rows : exp) parents.push_back(stacked_detail::num_bits(cs, rows[layer - 2]));
    }
    std::vector<std::vector<Boolean>> expanded;
    for (size_t i = 0; i < 37; ++i) expanded.push_back(parents[i % parents.size()]);
    labels.push_back(create_label(cs, std::span<const Boolean>(top.replica_id_bits),
                                  std::span<const std::vector<Boolean>>(expanded), layer,
                                  std::span<const Boolean>(node_be)));
  }
  {
    auto scope = cs.ns("encode_node");
    const Num encoded = circuits::add(cs, labels.back(), data_leaf);
    circuits::por_allocated<CS, Poseidon>(cs, rc, encoded, c.comm_r_last_path, top.comm_r_last);
  }
  {
    auto scope = cs.ns("c_x");
    const Num hash = circuits::poseidon_hash(cs, std::span<const Num>(labels));
    circuits::por_allocated<CS, Poseidon>(cs, rc, hash, c.comm_c_path, top.comm_c);
  }
}

template <class CS>
void synthesize_stacked(CS& cs, const StackedShape& shape, const StackedValues& v) {
  const StackedTop<CS> top = synthesize_stacked_top(cs, v);
  for (size_t ci = 0; ci < v.challenges.size(); ++ci) synthesize_stacked_challenge(cs, shape, top, v.challenges[ci], ci);
}

}  // namespace snarkd::filecoin

#include "filecoin/c1.h"
#include "filecoin/seal_proof.h"

namespace snarkd::filecoin {

// The shape of a registered proof's partition circuit.
StackedShape stacked_shape(const SealProof& p);
// Its constraint count by upstream's model (exact for every shape its tests and the 32 GiB
// fingerprint check), and an upper bound on inputs + aux (ONE included).
uint64_t stacked_constraints(const StackedShape& shape);
inline uint64_t stacked_variables_bound(const StackedShape& shape) {
  return stacked_constraints(shape) + 4 + 18 * uint64_t(shape.challenges);
}
// The rows of synthesize_stacked in a BuilderCS, its challenges built in parallel (each as a
// piece numbered where the sequential build would number it, then appended in order): equal to
// the sequential build's system, row for row.
Result<r1cs::ConstraintSystem<StackedField>> build_stacked(const StackedShape& shape, const StackedValues& v);
// One partition's values from a C1 output (which the reader has checked structurally).
Result<StackedValues> stacked_values(const C1Output& c1, unsigned partition);

}  // namespace snarkd::filecoin
