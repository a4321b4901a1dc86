#include "base/sha256.h"

#include <openssl/evp.h>

#include <cstdlib>

namespace snarkd {

struct Sha256::Impl {
  EVP_MD_CTX* ctx = nullptr;
};

namespace {
[[noreturn]] void die(const char* what) {
  // libcrypto fails here only when out of memory; there is nothing to recover.
  (void)what;
  std::abort();
}
}  // namespace

Sha256Digest sha256(std::span<const uint8_t> data) {
  Sha256Digest out;
  unsigned len = 0;
  if (EVP_Digest(data.data(), data.size(), out.data(), &len, EVP_sha256(), nullptr) != 1 || len != 32) {
    die("EVP_Digest");
  }
  return out;
}

Sha256::Sha256() : impl_(std::make_unique<Impl>()) {
  impl_->ctx = EVP_MD_CTX_new();
  if (!impl_->ctx || EVP_DigestInit_ex(impl_->ctx, EVP_sha256(), nullptr) != 1) die("EVP_DigestInit_ex");
}

Sha256::~Sha256() { EVP_MD_CTX_free(impl_->ctx); }

Sha256& Sha256::update(std::span<const uint8_t> data) {
  if (EVP_DigestUpdate(impl_->ctx, data.data(), data.size()) != 1) die("EVP_DigestUpdate");
  return *this;
}

Sha256Digest Sha256::finish() {
  Sha256Digest out;
  unsigned len = 0;
  if (EVP_DigestFinal_ex(impl_->ctx, out.data(), &len) != 1 || len != 32) die("EVP_DigestFinal_ex");
  return out;
}

}  // namespace snarkd
