// snarkd/base: a 128-bit content hash for naming keys and checking cache files. Not
// cryptographic: it tells apart files an operator registers and catches corruption; it does
// not resist deliberate collisions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace snarkd {

struct Hash128 {
  uint64_t lo = 0, hi = 0;
  friend bool operator==(const Hash128&, const Hash128&) = default;
  std::string hex() const;  // 32 lowercase hex digits, hi first
};

// Two independently seeded 64-bit lanes over 8-byte words, with the length folded in. Feeding
// the bytes in pieces gives the same hash as feeding them at once.
class ContentHasher {
 public:
  void update(std::span<const uint8_t> bytes);
  Hash128 finish() const;

 private:
  void word(uint64_t w);
  uint64_t a_ = 0x243f6a8885a308d3ULL, b_ = 0x13198a2e03707344ULL;
  uint64_t pending_ = 0;  // bytes of an incomplete word, little-endian
  size_t pending_len_ = 0;
  uint64_t length_ = 0;
};

Hash128 content_hash(std::span<const uint8_t> bytes);
inline Hash128 content_hash(std::string_view s) {
  return content_hash(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
}

}  // namespace snarkd
