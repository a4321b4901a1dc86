// snarkd/base: read-only memory-mapped files and a bounds-checked little-endian reader over them.
//
// Every read checks the remaining length first; errors name the file, the part being read
// (the caller's context, e.g. "section 2") and the byte offset, and never read out of bounds.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "base/status.h"

namespace snarkd {

class MappedFile {
 public:
  static Result<MappedFile> open(const std::string& path);
  MappedFile() = default;
  MappedFile(MappedFile&& other) noexcept { *this = std::move(other); }
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  const std::string& path() const { return path_; }

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  std::string path_;
};

class ByteReader {
 public:
  // `name` prefixes every error: "'c.zkey' section 2".
  ByteReader(std::span<const uint8_t> bytes, std::string name, uint64_t base_offset = 0)
      : bytes_(bytes), name_(std::move(name)), base_(base_offset) {}

  uint64_t offset() const { return base_ + pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }
  bool at_end() const { return pos_ == bytes_.size(); }

  Result<std::span<const uint8_t>> bytes(size_t n, std::string_view what) {
    if (n > remaining()) {
      return Status(StatusCode::kInvalidArgument,
                    name_ + ": truncated at offset " + std::to_string(offset()) + " reading " +
                        std::string(what) + " (" + std::to_string(n) + " bytes needed, " +
                        std::to_string(remaining()) + " left)");
    }
    auto out = bytes_.subspan(pos_, n);
    pos_ += n;
    return out;
  }
  Result<uint32_t> u32(std::string_view what) {
    ASSIGN_OR_RETURN(auto b, bytes(4, what));
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = v << 8 | b[size_t(i)];
    return v;
  }
  Result<uint64_t> u64(std::string_view what) {
    ASSIGN_OR_RETURN(auto b, bytes(8, what));
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = v << 8 | b[size_t(i)];
    return v;
  }
  Status error(const std::string& message) const {
    return invalid_argument(name_ + " at offset " + std::to_string(offset()) + ": " + message);
  }
  const std::string& name() const { return name_; }

 private:
  std::span<const uint8_t> bytes_;
  std::string name_;
  uint64_t base_;
  size_t pos_ = 0;
};

}  // namespace snarkd
