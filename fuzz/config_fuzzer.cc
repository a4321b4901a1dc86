// libFuzzer target for the daemon's config reader: parse_config must return a config or an
// error on any text (never crash, abort or hang), and an error must name where or what.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "server/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto config = snarkd::server::parse_config(text, "fuzz.toml");
  if (!config.ok() && config.status().message().rfind("fuzz.toml", 0) != 0) std::abort();  // errors name the file
  return 0;
}
