#include "formats/binfile.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace snarkd::formats {

Result<Section> BinFile::section(uint32_t id, std::string_view what) const {
  auto it = sections.find(id);
  if (it == sections.end()) {
    return invalid_argument(name + ": section " + std::to_string(id) + " (" + std::string(what) +
                            ") is missing");
  }
  return it->second;
}

ByteReader BinFile::reader(const Section& s, uint32_t id, std::string_view what) const {
  return ByteReader(s.bytes, name + " section " + std::to_string(id) + " (" + std::string(what) + ")",
                    s.offset);
}

Result<BinFile> parse_bin_file(std::span<const uint8_t> bytes, std::string_view magic,
                               uint32_t max_version, std::string name) {
  BinFile f;
  f.name = std::move(name);
  ByteReader r(bytes, f.name);
  ASSIGN_OR_RETURN(auto m, r.bytes(4, "the magic number"));
  if (std::string_view(reinterpret_cast<const char*>(m.data()), 4) != magic) {
    return invalid_argument(f.name + ": not a ." + std::string(magic) + " file (magic is not '" +
                            std::string(magic) + "')");
  }
  ASSIGN_OR_RETURN(f.version, r.u32("the version"));
  if (f.version == 0 || f.version > max_version) {
    return invalid_argument(f.name + ": unsupported version " + std::to_string(f.version) +
                            " (this reader knows 1.." + std::to_string(max_version) + ")");
  }
  ASSIGN_OR_RETURN(uint32_t count, r.u32("the section count"));
  if (count > 64) {
    return invalid_argument(f.name + ": " + std::to_string(count) + " sections is implausible");
  }
  for (uint32_t i = 0; i < count; ++i) {
    ASSIGN_OR_RETURN(uint32_t id, r.u32("a section id"));
    ASSIGN_OR_RETURN(uint64_t len, r.u64("a section length"));
    uint64_t at = r.offset();
    if (len > r.remaining()) {
      return invalid_argument(f.name + ": section " + std::to_string(id) + " at offset " +
                              std::to_string(at) + " claims " + std::to_string(len) +
                              " bytes but only " + std::to_string(r.remaining()) + " remain");
    }
    ASSIGN_OR_RETURN(auto payload, r.bytes(size_t(len), "a section"));
    if (!f.sections.emplace(id, Section{at, payload}).second) {
      return invalid_argument(f.name + ": section " + std::to_string(id) + " appears twice");
    }
  }
  if (!r.at_end()) {
    return invalid_argument(f.name + ": " + std::to_string(r.remaining()) +
                            " trailing bytes after the last section");
  }
  return f;
}

BinWriter::BinWriter(std::string_view magic, uint32_t version, uint32_t section_count) {
  out_.insert(out_.end(), magic.begin(), magic.end());
  u32(version);
  u32(section_count);
}

void BinWriter::begin_section(uint32_t id) {
  u32(id);
  section_start_ = out_.size();
  u64(0);  // patched by end_section
}

void BinWriter::end_section() {
  uint64_t len = out_.size() - section_start_ - 8;
  for (int i = 0; i < 8; ++i) out_[section_start_ + size_t(i)] = uint8_t(len >> (8 * i));
}

void BinWriter::u32(uint32_t v) {
  for (int i = 0; i < 4; ++i) out_.push_back(uint8_t(v >> (8 * i)));
}

void BinWriter::u64(uint64_t v) {
  for (int i = 0; i < 8; ++i) out_.push_back(uint8_t(v >> (8 * i)));
}

Status BinWriter::write_to(const std::string& path) const {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return internal_error("cannot create '" + path + "': " + std::strerror(errno));
  size_t written = std::fwrite(out_.data(), 1, out_.size(), f);
  bool closed = std::fclose(f) == 0;
  if (written != out_.size() || !closed) return internal_error("cannot write '" + path + "'");
  return Status();
}

}  // namespace snarkd::formats
