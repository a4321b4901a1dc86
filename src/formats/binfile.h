// snarkd/formats: the iden3 binary container shared by .r1cs, .wtns, .zkey and .ptau files:
// 4-byte magic, u32 version, u32 section count, then sections (u32 id, u64 length, payload),
// all little-endian, in any order.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "base/mapped_file.h"
#include "base/status.h"

namespace snarkd::formats {

struct Section {
  uint64_t offset = 0;  // of the payload in the file
  std::span<const uint8_t> bytes;
};

struct BinFile {
  std::string name;  // for messages: "'c.zkey'"
  uint32_t version = 0;
  std::map<uint32_t, Section> sections;

  // The section, or an error naming it ("'c.zkey': section 9 (H) is missing").
  Result<Section> section(uint32_t id, std::string_view what) const;
  // A reader over a section, with messages naming file and section.
  ByteReader reader(const Section& s, uint32_t id, std::string_view what) const;
};

// Parses the container; every section length is checked against the file size, a repeated
// section id is an error, and so are more than 64 sections (no real file has more than 10).
Result<BinFile> parse_bin_file(std::span<const uint8_t> bytes, std::string_view magic,
                               uint32_t max_version, std::string name);

// Writes a container: sections in the given order.
class BinWriter {
 public:
  BinWriter(std::string_view magic, uint32_t version, uint32_t section_count);
  void begin_section(uint32_t id);
  void end_section();
  void u32(uint32_t v);
  void u64(uint64_t v);
  void bytes(std::span<const uint8_t> b) { out_.insert(out_.end(), b.begin(), b.end()); }
  const std::vector<uint8_t>& data() const { return out_; }
  Status write_to(const std::string& path) const;

 private:
  std::vector<uint8_t> out_;
  size_t section_start_ = 0;
};

}  // namespace snarkd::formats
