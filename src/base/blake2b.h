// snarkd/base: BLAKE2b from libsodium (Filecoin's Feistel permutation hashes 16 bytes a round,
// millions of times per graph: libsodium's one-shot is several times faster than libcrypto's
// EVP for inputs this small; synthetic-PoRep challenges take the keyed form).
#pragma once

#include <array>
#include <cstdint>
#include <span>

namespace snarkd {

using Blake2b512Digest = std::array<uint8_t, 64>;

// Unkeyed BLAKE2b with a 64-byte output.
Blake2b512Digest blake2b512(std::span<const uint8_t> data);

// BLAKE2b with out.size() bytes of output (1..64) and a key of 0..64 bytes.
void blake2b(std::span<uint8_t> out, std::span<const uint8_t> key, std::span<const uint8_t> data);

}  // namespace snarkd
