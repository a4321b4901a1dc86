// snarkd/base: base64 (RFC 4648, standard alphabet, padded) from libsodium. Go's encoding/json
// writes []byte fields this way (Curio's and lotus-bench's C2 requests carry the C1 so).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace snarkd {

// The decoded bytes, or nullopt when `text` is not padded standard base64 (blanks are not
// skipped).
std::optional<std::vector<uint8_t>> base64_decode(std::string_view text);
std::string base64_encode(const uint8_t* data, size_t size);

}  // namespace snarkd
