#include "base/chacha20.h"

#include <sodium.h>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace snarkd {

void chacha20_ietf_keystream(const std::array<uint8_t, 32>& key, const std::array<uint8_t, 12>& nonce, uint64_t offset,
                             std::span<uint8_t> out) {
  if (sodium_init() < 0) std::abort();
  // Whole 64-byte blocks from the one holding `offset`.
  const uint64_t block = offset / 64, skip = offset % 64;
  std::vector<uint8_t> buf(size_t(skip) + out.size(), 0);
  crypto_stream_chacha20_ietf_xor_ic(buf.data(), buf.data(), buf.size(), nonce.data(), uint32_t(block), key.data());
  std::memcpy(out.data(), buf.data() + skip, out.size());
}

}  // namespace snarkd
