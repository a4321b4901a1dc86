// snarkd/circuits/gadgets: SHA-256 over Booleans (bellpepper 0.2 gadgets/sha256.rs).
//
// The compression function keeps `a` and `e` as deferred sums (their addition is done when the
// value is first used, folding more operands into one addmany), and one MultiEq per compression
// packs the additions' equalities into as few rows as fit.
#pragma once

#include <array>
#include <span>
#include <vector>

#include "circuits/gadgets/uint32.h"

namespace snarkd::circuits {

namespace sha256_detail {

inline constexpr std::array<uint32_t, 64> kRoundConstants = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

inline constexpr std::array<uint32_t, 8> kIv = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                                0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

// A word that is either known (Concrete) or the pending sum of some operands (Deferred, at
// most 8).
template <class CS>
struct Maybe {
  bool concrete = true;
  UInt32<CS> value;
  std::array<UInt32<CS>, 8> deferred;
  size_t count = 0;

  static Maybe of(const UInt32<CS>& v) { return {true, v, {}, 0}; }
  void defer(std::initializer_list<const UInt32<CS>*> ops) {
    concrete = false;
    count = 0;
    for (const auto* op : ops) deferred[count++] = *op;
  }
  UInt32<CS> compute(MultiEq<CS>& meq, const UInt32<CS>* other) {
    if (concrete) return value;
    if (other) deferred[count++] = *other;
    return UInt32<CS>::addmany(meq, std::span<const UInt32<CS>>(deferred.data(), count));
  }
};

}  // namespace sha256_detail

template <class CS>
std::array<UInt32<CS>, 8> sha256_iv() {
  std::array<UInt32<CS>, 8> iv;
  for (size_t i = 0; i < 8; ++i) iv[i] = UInt32<CS>::constant(sha256_detail::kIv[i]);
  return iv;
}

// One compression of a 512-bit block (bits most significant first) into `current`.
template <class CS>
std::array<UInt32<CS>, 8> sha256_compression(CS& cs, std::span<const Boolean> block,
                                             const std::array<UInt32<CS>, 8>& current) {
  using Word = UInt32<CS>;
  using Maybe = sha256_detail::Maybe<CS>;
  std::array<Word, 64> w;
  for (size_t i = 0; i < 16; ++i) w[i] = Word::from_bits_be(block.subspan(32 * i, 32));
  std::array<Word, 8> out;
  {
    MultiEq<CS> meq(cs);
    for (size_t i = 16; i < 64; ++i) {
      auto scope = cs.ns("w extension", i);
      Word s0 = w[i - 15].rotr(7);
      s0 = s0.xor_(cs, w[i - 15].rotr(18));
      s0 = s0.xor_(cs, w[i - 15].shr(3));
      Word s1 = w[i - 2].rotr(17);
      s1 = s1.xor_(cs, w[i - 2].rotr(19));
      s1 = s1.xor_(cs, w[i - 2].shr(10));
      const std::array<Word, 4> terms = {w[i - 16], s0, w[i - 7], s1};
      w[i] = Word::addmany(meq, terms);
    }
    Maybe a = Maybe::of(current[0]);
    Word b = current[1], c = current[2], d = current[3];
    Maybe e = Maybe::of(current[4]);
    Word f = current[5], g = current[6], h = current[7];
    for (size_t i = 0; i < 64; ++i) {
      auto scope = cs.ns("compression round", i);
      const Word new_e = e.compute(meq, nullptr);
      Word s1 = new_e.rotr(6);
      s1 = s1.xor_(cs, new_e.rotr(11));
      s1 = s1.xor_(cs, new_e.rotr(25));
      const Word ch = Word::sha256_ch(cs, new_e, f, g);
      const Word k = Word::constant(sha256_detail::kRoundConstants[i]);
      const Word new_a = a.compute(meq, nullptr);
      Word s0 = new_a.rotr(2);
      s0 = s0.xor_(cs, new_a.rotr(13));
      s0 = s0.xor_(cs, new_a.rotr(22));
      const Word maj = Word::sha256_maj(cs, new_a, b, c);
      // temp1 = h + S1 + ch + k[i] + w[i]; e = d + temp1; a = temp1 + S0 + maj.
      e.defer({&h, &s1, &ch, &k, &w[i], &d});
      a.defer({&h, &s1, &ch, &k, &w[i], &s0, &maj});
      h = g;
      g = f;
      f = new_e;
      d = c;
      c = b;
      b = new_a;
    }
    auto pair_sum = [&](const Word& x, const Word& y) {
      const std::array<Word, 2> ops = {x, y};
      return Word::addmany(meq, ops);
    };
    out[0] = a.compute(meq, &current[0]);
    out[1] = pair_sum(current[1], b);
    out[2] = pair_sum(current[2], c);
    out[3] = pair_sum(current[3], d);
    out[4] = e.compute(meq, &current[4]);
    out[5] = pair_sum(current[5], f);
    out[6] = pair_sum(current[6], g);
    out[7] = pair_sum(current[7], h);
  }  // the MultiEq flushes here
  return out;
}

// The hash of the block with the standard IV, no padding: 256 bits, most significant first.
template <class CS>
std::vector<Boolean> sha256_block_no_padding(CS& cs, std::span<const Boolean> block) {
  const auto h = sha256_compression(cs, block, sha256_iv<CS>());
  std::vector<Boolean> out;
  out.reserve(256);
  for (const auto& word : h) word.append_bits_be(out);
  return out;
}

// SHA-256 of a whole number of bytes (bits most significant first within each byte): the
// padding is constants (a one, zeros, the 64-bit length).
template <class CS>
std::vector<Boolean> sha256(CS& cs, std::span<const Boolean> input) {
  std::vector<Boolean> padded(input.begin(), input.end());
  const uint64_t length = input.size();
  padded.push_back(Boolean::constant(true));
  while ((padded.size() + 64) % 512 != 0) padded.push_back(Boolean::constant(false));
  for (int i = 63; i >= 0; --i) padded.push_back(Boolean::constant((length >> i) & 1));
  auto current = sha256_iv<CS>();
  for (size_t block = 0; block * 512 < padded.size(); ++block) {
    auto scope = cs.ns("block", block);
    current = sha256_compression(cs, std::span<const Boolean>(padded).subspan(512 * block, 512), current);
  }
  std::vector<Boolean> out;
  out.reserve(256);
  for (const auto& word : current) word.append_bits_be(out);
  return out;
}

}  // namespace snarkd::circuits
