// snarkd/base: hexadecimal encoding of byte strings (used by encodings, tests and logs).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace snarkd {

// Lower-case hex, two characters per byte, no prefix.
std::string to_hex(std::span<const uint8_t> bytes);

// Accepts an optional "0x" prefix and either case; an odd length or a non-hex character is an
// error naming its position.
Result<std::vector<uint8_t>> from_hex(std::string_view hex);

}  // namespace snarkd
