#include "base/hash.h"

#include <cstring>

namespace snarkd {

namespace {

constexpr uint64_t mix(uint64_t x) {  // a bijective finalizer (multiply-xorshift)
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

constexpr uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

}  // namespace

std::string Hash128::hex() const {
  static const char* digits = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) {
    out[size_t(15 - i)] = digits[(hi >> (4 * i)) & 15];
    out[size_t(31 - i)] = digits[(lo >> (4 * i)) & 15];
  }
  return out;
}

void ContentHasher::word(uint64_t w) {
  a_ = rotl(a_ ^ mix(w + 0x9e3779b97f4a7c15ULL), 23) * 0xff51afd7ed558ccdULL;
  b_ = rotl(b_ + mix(w ^ 0xc4ceb9fe1a85ec53ULL), 29) * 0xc2b2ae3d27d4eb4fULL;
}

void ContentHasher::update(std::span<const uint8_t> bytes) {
  length_ += bytes.size();
  size_t i = 0;
  while (pending_len_ != 0 && i < bytes.size()) {  // finish an incomplete word first
    pending_ |= uint64_t(bytes[i++]) << (8 * pending_len_);
    if (++pending_len_ == 8) {
      word(pending_);
      pending_ = 0;
      pending_len_ = 0;
    }
  }
  for (; i + 8 <= bytes.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, bytes.data() + i, 8);
    word(w);
  }
  for (; i < bytes.size(); ++i) pending_ |= uint64_t(bytes[i]) << (8 * pending_len_++);
}

Hash128 ContentHasher::finish() const {
  uint64_t a = mix(a_ ^ mix(pending_ + pending_len_) ^ length_);
  uint64_t b = mix(b_ + mix(pending_ ^ 0x5851f42d4c957f2dULL) + length_);
  return {mix(a ^ rotl(b, 17)), mix(b ^ rotl(a, 41))};
}

Hash128 content_hash(std::span<const uint8_t> bytes) {
  ContentHasher h;
  h.update(bytes);
  return h.finish();
}

}  // namespace snarkd
