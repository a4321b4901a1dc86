// snarkd/base: SHA-256 from OpenSSL's libcrypto (which uses the CPU's SHA extensions).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

namespace snarkd {

using Sha256Digest = std::array<uint8_t, 32>;

Sha256Digest sha256(std::span<const uint8_t> data);
inline Sha256Digest sha256(std::string_view s) {
  return sha256(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
}

// Incremental: update() any number of times, then finish() once.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  Sha256& update(std::span<const uint8_t> data);
  Sha256Digest finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace snarkd
