// snarkd/base: the ChaCha20 keystream (IETF: 96-bit nonce, 32-bit block counter) from libsodium
// (synthetic-PoRep challenges).
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace snarkd {

// out.size() bytes of the keystream from byte `offset` on.
void chacha20_ietf_keystream(const std::array<uint8_t, 32>& key, const std::array<uint8_t, 12>& nonce, uint64_t offset,
                             std::span<uint8_t> out);

}  // namespace snarkd
