#include "base/blake2b.h"

#include <sodium.h>

#include <cstdlib>

namespace snarkd {

namespace {

// sodium_init picks the CPU's fastest implementations; it is idempotent and thread-safe.
void ensure_sodium() {
  static const bool ready = sodium_init() >= 0;
  if (!ready) std::abort();
}

}  // namespace

Blake2b512Digest blake2b512(std::span<const uint8_t> data) {
  Blake2b512Digest out;
  blake2b(out, {}, data);
  return out;
}

void blake2b(std::span<uint8_t> out, std::span<const uint8_t> key, std::span<const uint8_t> data) {
  ensure_sodium();
  // Fails only for lengths out of range (a caller's bug).
  if (crypto_generichash_blake2b(out.data(), out.size(), data.data(), data.size(), key.empty() ? nullptr : key.data(),
                                 key.size()) != 0) {
    std::abort();
  }
}

}  // namespace snarkd
